# `cmake --install build --prefix P`: the command-line tools (bin/, host/CMakeLists.txt) and, as the
# component "devel", a CMake package for C++ programs that link quatstep (a DEM code, say):
#   P/include/quatstep/            the header-only core
#   P/include/quatstep/host/       the CPU backend's headers (cpu_ensemble.hpp, cpu_batch_stepper.hpp and what they include)
#   P/include/quatstep/kernels/    the coupled-step API's headers (CUDA builds)
#   P/lib/libquatstep_lanes.a      the SIMD lane steps (where the build has them)
#   P/lib/cmake/quatstep/          quatstepConfig.cmake, its version file and the exported targets
# The installed targets' include paths are those of the build tree, so that `#include
# "cpu_ensemble.hpp"` and `#include "kernels/batch_stepper.cuh"` mean the same in both.
# tests/package/ builds the examples against an installation (ctest: package.find_package).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(quatstep_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/quatstep)
set(quatstep_host ${PROJECT_SOURCE_DIR}/host)
set(quatstep_kernels ${PROJECT_SOURCE_DIR}/kernels)
set_target_properties(quatstep_core PROPERTIES EXPORT_NAME core)
set_target_properties(quatstep_cpu PROPERTIES EXPORT_NAME cpu)
set(quatstep_exported quatstep_core quatstep_cpu)
if(TARGET quatstep_lanes)
  set_target_properties(quatstep_lanes PROPERTIES EXPORT_NAME lanes)
  list(APPEND quatstep_exported quatstep_lanes)
endif()
install(TARGETS ${quatstep_exported} EXPORT quatstepTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
install(EXPORT quatstepTargets NAMESPACE quatstep:: DESTINATION ${quatstep_cmake_dir} COMPONENT devel)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/quatstep DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)
install(FILES ${quatstep_host}/cpu_ensemble.hpp ${quatstep_host}/cpu_lanes.hpp ${quatstep_host}/body_validation.hpp
              ${quatstep_host}/step_records.hpp ${quatstep_host}/coupled_batch.hpp ${quatstep_host}/cpu_batch_stepper.hpp
              ${quatstep_host}/cpu_coupled_lanes.hpp ${quatstep_host}/cpu_coupled_blocks.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/quatstep/host COMPONENT devel)

if(QUATSTEP_HAVE_CUDA)
  set_target_properties(quatstep_kernels PROPERTIES EXPORT_NAME kernels)
  install(TARGETS quatstep_kernels EXPORT quatstepKernelsTargets COMPONENT devel)
  install(EXPORT quatstepKernelsTargets NAMESPACE quatstep:: DESTINATION ${quatstep_cmake_dir} COMPONENT devel)
  install(FILES ${quatstep_kernels}/batch_stepper.cuh ${quatstep_kernels}/device_array.cuh ${quatstep_kernels}/cuda_error.hpp
                ${quatstep_kernels}/ensemble_kernels.cuh ${quatstep_kernels}/cuda_device.hpp
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/quatstep/kernels COMPONENT devel)
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/quatstepConfig.cmake.in ${PROJECT_BINARY_DIR}/quatstepConfig.cmake
                              INSTALL_DESTINATION ${quatstep_cmake_dir})
# 0.x: a minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/quatstepConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/quatstepConfig.cmake ${PROJECT_BINARY_DIR}/quatstepConfigVersion.cmake
        DESTINATION ${quatstep_cmake_dir} COMPONENT devel)
