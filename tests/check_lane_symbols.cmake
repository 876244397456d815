# The AVX2 units of the CPU backend (host/cpu_lanes_avx2.cpp.in) may define, as symbols another unit
# could also define (weak: inline functions and template instantiations), only instantiations on the
# AVX2 lane types and the entry points lanes::LaneSteps<T> (declared in cpu_lanes.hpp, defined and
# explicitly instantiated there alone): an AVX2 copy of a function that baseline units also
# instantiate could be the one the linker keeps, and would then run on CPUs without AVX2. Usage:
#   cmake -DNM=nm -DARCHIVE=libquatstep_lanes.a -P check_lane_symbols.cmake
execute_process(COMMAND ${NM} -C --defined-only ${ARCHIVE} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${ARCHIVE}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(shared 0)
set(bad "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-f]+ [WVu] (.*)$")
    set(name "${CMAKE_MATCH_1}")
    math(EXPR shared "${shared} + 1")
    if(NOT name MATCHES "_VecBuiltin<32>" AND NOT name MATCHES "^quatstep::lanes::LaneSteps<(double|float)>::"
       AND NOT name STREQUAL "DW.ref.__gxx_personality_v0")
      string(APPEND bad "  ${name}\n")
    endif()
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "${ARCHIVE} defines weak symbols outside the AVX2 lane type:\n${bad}")
endif()
if(shared EQUAL 0)
  message(FATAL_ERROR "no weak symbol in ${ARCHIVE}: the check reads nm's output wrongly")
endif()
message(STATUS "${shared} weak symbols, all on the AVX2 lane type")
