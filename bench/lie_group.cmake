# Lie-group quaternion schemes: throughput and Zupan work–precision programs.
# Include from bench/CMakeLists.txt:  include(${CMAKE_CURRENT_SOURCE_DIR}/lie_group.cmake)
find_package(benchmark REQUIRED)

add_executable(lie_group_throughput ${CMAKE_CURRENT_LIST_DIR}/lie_group_throughput.cpp)
target_link_libraries(lie_group_throughput PRIVATE quatstep::cpu benchmark::benchmark)

# Zupan §IV.A prescribed-rotation body (problems/zupan_rotation_field.hpp).
add_executable(zupan_work_precision ${CMAKE_CURRENT_LIST_DIR}/zupan_work_precision.cpp)
target_link_libraries(zupan_work_precision PRIVATE quatstep::cpu)
target_link_libraries(zupan_work_precision PRIVATE quatstep::problems)
