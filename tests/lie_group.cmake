# Lie-group quaternion schemes (Zupan3, ExplicitNewmarkLie, MidpointLie) and EML on the Zupan body:
# tests. Included from tests/CMakeLists.txt.
foreach(t zupan_field zupan3 zupan_livens krysl lie_jacobians lie_ensemble)
  quatstep_test(test_${t} lie_group/test_${t}.cpp)
  target_include_directories(test_${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)
endforeach()
