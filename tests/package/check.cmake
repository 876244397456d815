# ctest package.find_package: install the build BUILD (component devel) into WORK/prefix, configure
# and build tests/package against it with the build's compilers, and run what it built:
# library_example and dem_coupling_cpu must succeed, dem_coupling (CUDA builds) succeed or skip (77: no GPU).
# cmake -DBUILD=… -DWORK=… -DSOURCE=… -DCXX=… [-DCUDA=… -DCUDA_ARCHITECTURES=…] -P check.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix --component devel)
set(configure ${CMAKE_COMMAND} -S ${SOURCE}/tests/package -B ${WORK}/build -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK}/prefix -DQUATSTEP_PREFIX=${WORK}/prefix
    -DQUATSTEP_EXAMPLES=${SOURCE}/examples)
if(CUDA)
  list(APPEND configure -DCMAKE_CUDA_COMPILER=${CUDA} -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES})
endif()
run(${configure})
run(${CMAKE_COMMAND} --build ${WORK}/build -j 2)
run(${WORK}/build/library_example)
message(STATUS "library_example: built against ${WORK}/prefix and ran")
run(${WORK}/build/dem_coupling_cpu 1000 10)
message(STATUS "dem_coupling_cpu: built against ${WORK}/prefix and ran")
if(CUDA)
  if(NOT EXISTS ${WORK}/build/dem_coupling)
    message(FATAL_ERROR "a CUDA build's package gave no quatstep::kernels")
  endif()
  execute_process(COMMAND ${WORK}/build/dem_coupling 1000 10 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 77)
    message(FATAL_ERROR "dem_coupling failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "dem_coupling: built against ${WORK}/prefix, exit ${rc} (77: no GPU)\n${out}${err}")
endif()
file(REMOVE_RECURSE ${WORK})
