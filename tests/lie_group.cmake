# Lie-group quaternion schemes (Zupan3, ExplicitNewmarkLie, MidpointLie): tests. Included from
# tests/CMakeLists.txt.
set(QUATSTEP_LIE_TESTS zupan_field zupan3 krysl lie_jacobians lie_ensemble)
foreach(t ${QUATSTEP_LIE_TESTS})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/lie_group/test_${t}.cpp)
    quatstep_test(test_${t} lie_group/test_${t}.cpp)
    target_include_directories(test_${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)
  endif()
endforeach()
