# Runs an example program and compares its printed checksum with a second
# run: natively on REF_NP ranks, or under revprof (revprof run) when
# REVPROF is set -- the tool must never change what a program computes.
# cmake -DMPIEXEC=.. -DMPIFLAGS=.. -DNP=.. -DEXE=.. -DARGS=a;b
#       [-DREF_NP=1] [-DREVPROF=tool -DMODEL=m.lua -DOUT=dir] -P this
cmake_minimum_required(VERSION 3.18)
string(REPLACE "\\;" ";" ARGS "${ARGS}") # a list passed through -D

function(checksum_of out var)
  if(NOT out MATCHES "checksum ([-+0-9.eE]+)")
    message(FATAL_ERROR "no 'checksum' in the output:\n${out}")
  endif()
  set(${var} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

function(run_checked var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "'${cmd}' failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

run_checked(out ${MPIEXEC} ${MPIFLAGS} -n ${NP} ${EXE} ${ARGS})
checksum_of("${out}" sum)
if(REVPROF)
  run_checked(ref ${REVPROF} run --model ${MODEL} -np ${NP} -o ${OUT}
              -- ${EXE} ${ARGS})
  set(what "under revprof")
else()
  if(NOT REF_NP)
    set(REF_NP 1)
  endif()
  run_checked(ref ${MPIEXEC} ${MPIFLAGS} -n ${REF_NP} ${EXE} ${ARGS})
  set(what "natively on ${REF_NP} ranks")
endif()
checksum_of("${ref}" refsum)
if(NOT sum STREQUAL refsum)
  message(FATAL_ERROR "checksum ${sum} on ${NP} ranks, ${refsum} ${what}")
endif()
message(STATUS "checksum ${sum} on ${NP} ranks = ${what}")
