# A traced run whose ranks exit without MPI_Finalize: each stream must end
# partial, PARTIAL must exist, and 'revprof trace merge' must build a
# trace.json marked partial (and an OTF2 archive otf2-print reads).
# cmake -DREVPROF=tool -DMODEL=m.lua -DNP=.. -DOUT=dir -DEXE=..
#       -DFORMATS=.. [-DOTF2_PRINT=..] -P this
cmake_minimum_required(VERSION 3.19) # string(JSON)
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${REVPROF} run --model ${MODEL} -np ${NP} -o ${OUT}
                --trace ${FORMATS} -- ${EXE}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message(STATUS "run exited with ${rc} (expected: not 0)")
if(NOT EXISTS ${OUT}/PARTIAL)
  message(FATAL_ERROR "no ${OUT}/PARTIAL after an early exit:\n${out}\n${err}")
endif()
if(EXISTS ${OUT}/trace.json)
  message(FATAL_ERROR "trace.json merged from a run that did not finish")
endif()
# Every rank leaves a stream. One that closed itself (its "E partial"
# line) holds the ring's states; one killed before its exit handler ran
# (MPICH's launcher kills the others once a rank exits without
# MPI_Finalize) may hold only what it had flushed: merge says so.
math(EXPR last "${NP} - 1")
set(closed 0)
foreach(rank RANGE ${last})
  set(s ${OUT}/p${rank}.trace)
  if(NOT EXISTS ${s})
    set(s ${OUT}/p${rank}.trace.part)
  endif()
  if(NOT EXISTS ${s})
    message(FATAL_ERROR "rank ${rank} left no trace stream")
  endif()
  file(READ ${s} text)
  if(text MATCHES "\nE partial")
    math(EXPR closed "${closed} + 1")
    if(NOT text MATCHES "MPI_Sendrecv")
      message(FATAL_ERROR "${s}: closed partial but no MPI_Sendrecv states")
    endif()
  endif()
endforeach()
if(closed EQUAL 0)
  message(FATAL_ERROR "no rank closed its stream as partial at exit")
endif()
execute_process(COMMAND ${REVPROF} trace merge ${OUT} --formats ${FORMATS}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "PARTIAL")
  message(FATAL_ERROR "revprof trace merge (${rc}):\n${out}\n${err}")
endif()
file(READ ${OUT}/trace.json json)
string(JSON partial GET "${json}" otherData partial)
if(NOT partial STREQUAL "ON")
  message(FATAL_ERROR "merged trace.json: partial is ${partial}")
endif()
if(FORMATS MATCHES "otf2")
  execute_process(COMMAND ${OTF2_PRINT} -A ${OUT}/traces.otf2
                  OUTPUT_VARIABLE anchor RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT anchor MATCHES "REVPROF::PARTIAL[^\n]*\n[^\n]*true")
    message(FATAL_ERROR "otf2-print -A (${rc}) shows no partial flag:\n${anchor}")
  endif()
endif()
execute_process(COMMAND ${REVPROF} timeline ${OUT} -o ${OUT}/timeline.png
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "revprof timeline failed on the partial run")
endif()
message(STATUS "partial run: streams, PARTIAL, merged trace.json (partial)")
