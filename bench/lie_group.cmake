# Lie-group quaternion schemes: throughput and Zupan work–precision programs.
# Include from bench/CMakeLists.txt:  include(${CMAKE_CURRENT_SOURCE_DIR}/lie_group.cmake)
find_package(benchmark REQUIRED)

add_executable(lie_group_throughput ${CMAKE_CURRENT_LIST_DIR}/lie_group_throughput.cpp)
target_link_libraries(lie_group_throughput PRIVATE quatstep::cpu benchmark::benchmark)

# Uses the Zupan §IV.A prescribed-rotation body shared with the tests.
add_executable(zupan_work_precision ${CMAKE_CURRENT_LIST_DIR}/zupan_work_precision.cpp)
target_link_libraries(zupan_work_precision PRIVATE quatstep::cpu)
target_include_directories(zupan_work_precision PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
