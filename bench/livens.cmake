# Livens-principle integrators: throughput benchmark (include() from bench/CMakeLists.txt).
find_package(benchmark REQUIRED)
add_executable(bench_livens_throughput ${CMAKE_CURRENT_LIST_DIR}/livens_throughput.cpp)
target_link_libraries(bench_livens_throughput PRIVATE quatstep::cpu quatstep::problems benchmark::benchmark)
