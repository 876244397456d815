# Peer baselines of issue 4 (bench/README.md, "Peers"): bench_peers_cpu, the GPU object library
# quatstep_bench_peers_gpu (linked into bench_gpu), and the peers' test.
# Boost.Odeint (libboost-dev) and Thrust (CUDA's CCCL, also used on the CPU through its OMP backend)
# are needed; without them the peer targets are skipped.
find_package(Boost 1.74 QUIET)
find_package(Thrust CONFIG QUIET HINTS /usr/local/cuda/lib64/cmake)
if(NOT Boost_FOUND OR NOT Thrust_FOUND)
  message(STATUS "quatstep: Boost.Odeint or Thrust not found, peer benchmarks skipped")
  return()
endif()
# Thrust for g++: host CPP, device OMP. Linked PRIVATE only (docs/toolchain.md: its
# THRUST_DEVICE_SYSTEM=OMP must not reach .cu targets).
thrust_create_target(quatstep_thrust_omp HOST CPP DEVICE OMP)
# The test checks numbers, not parallelism: serial device system, immune to OpenMP barriers on a
# shared machine (12 parallel regions per odeint step).
thrust_create_target(quatstep_thrust_cpp HOST CPP DEVICE CPP)

quatstep_bench(bench_peers_cpu peers_cpu.cpp)
target_link_libraries(bench_peers_cpu PRIVATE quatstep_thrust_omp Boost::headers)
# Energy/momentum drift over 10⁶ steps (CSV for peers_table.py --drift).
add_executable(peers_drift peers_drift.cpp)
target_link_libraries(peers_drift PRIVATE quatstep::cpu)

if(QUATSTEP_BUILD_TESTS)
  add_executable(test_bench_peers peers_test.cpp)
  target_link_libraries(test_bench_peers PRIVATE quatstep::cpu quatstep_thrust_cpp Boost::headers GTest::gtest_main)
  gtest_discover_tests(test_bench_peers DISCOVERY_TIMEOUT 60)
endif()

# The GPU side: one .cu (nvcc time), benchmarks only, linked into bench_gpu (bench/CMakeLists.txt).
if(QUATSTEP_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  add_library(quatstep_bench_peers_gpu OBJECT peers_gpu.cu)
  target_link_libraries(quatstep_bench_peers_gpu PUBLIC quatstep::kernels benchmark::benchmark Boost::headers)
endif()
