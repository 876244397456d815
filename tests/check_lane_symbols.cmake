# The lane units of the CPU backend (host/cpu_lane_steps.cpp.in) may define, as symbols another unit
# could also define (weak: inline functions and template instantiations), only instantiations on their
# own lane type — the AVX2 units on _VecBuiltin<32>, the AVX-512 units on _VecBltnBtmsk<64> — and
# their entry points lanes::LaneSteps<T, I> and lanes::CoupledLaneSteps<T, I> (declared in
# cpu_lanes.hpp and cpu_coupled_lanes.hpp, defined and explicitly instantiated there alone): a copy
# of a function that baseline units, or the units of the other instruction set, also instantiate
# could be the one the linker keeps, and would then run on CPUs without that instruction set. Usage:
#   cmake -DNM=nm -DARCHIVE=libquatstep_lanes.a -P check_lane_symbols.cmake
execute_process(COMMAND ${NM} -C --defined-only ${ARCHIVE} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${ARCHIVE}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(shared 0)
set(objects 0)
set(bad "")
set(own "")
foreach(line IN LISTS lines)
  if(line MATCHES "^(.*)\\.o:$")  # nm's header of the archive's next object
    set(object "${CMAKE_MATCH_1}")
    math(EXPR objects "${objects} + 1")
    if(object MATCHES "avx512")
      set(own "_VecBltnBtmsk<64>")
      set(isa 64)
    elseif(object MATCHES "avx2")
      set(own "_VecBuiltin<32>")
      set(isa 32)
    else()
      message(FATAL_ERROR "${ARCHIVE}: an object of no known instruction set, ${object}")
    endif()
  elseif(line MATCHES "^[0-9a-f]+ [WVu] (.*)$")
    set(name "${CMAKE_MATCH_1}")
    math(EXPR shared "${shared} + 1")
    string(FIND "${name}" "${own}" at)
    # (an entry point that is a member template, the mechanisms' of either capacity, demangles with its
    # return type first)
    if(at EQUAL -1 AND NOT name MATCHES "^(void )?quatstep::lanes::(Coupled)?LaneSteps<(double|float), \\(quatstep::lanes::Isa\\)${isa}>::"
       AND NOT name STREQUAL "DW.ref.__gxx_personality_v0")
      string(APPEND bad "  ${object}: ${name}\n")
    endif()
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "${ARCHIVE} defines weak symbols outside each unit's own lane type:\n${bad}")
endif()
if(shared EQUAL 0 OR objects EQUAL 0)
  message(FATAL_ERROR "no weak symbol or no object in ${ARCHIVE}: the check reads nm's output wrongly")
endif()
message(STATUS "${shared} weak symbols in ${objects} units, each on its own lane type")
