# A traced revprof run of an example, then checks that existing viewers can
# read the traces: trace.json is valid JSON with events, otf2-print reads the
# OTF2 archive and lists enters, leaves and messages, and revprof timeline
# draws a picture.
# cmake -DREVPROF=tool -DMODEL=m.lua -DNP=.. -DOUT=dir -DEXE=.. -DARGS=a;b
#       -DFORMATS=otf2,chrome [-DOTF2_PRINT=..] [-DPYTHON=..] -P this
cmake_minimum_required(VERSION 3.19) # string(JSON)
string(REPLACE "\\;" ";" ARGS "${ARGS}") # a list passed through -D

function(run_checked var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "'${cmd}' failed (${rc}):\n${out}\n${err}")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${OUT})
run_checked(out ${REVPROF} run --model ${MODEL} -np ${NP} -o ${OUT}
            --trace ${FORMATS} -- ${EXE} ${ARGS})
foreach(r RANGE 1 ${NP})
  math(EXPR rank "${r} - 1")
  if(NOT EXISTS ${OUT}/p${rank}.trace)
    message(FATAL_ERROR "no trace stream ${OUT}/p${rank}.trace")
  endif()
endforeach()
if(EXISTS ${OUT}/PARTIAL)
  message(FATAL_ERROR "a complete run left ${OUT}/PARTIAL")
endif()

if(FORMATS MATCHES "chrome")
  if(NOT EXISTS ${OUT}/trace.json)
    message(FATAL_ERROR "no ${OUT}/trace.json")
  endif()
  file(READ ${OUT}/trace.json json)
  string(JSON nev ERROR_VARIABLE jerr LENGTH "${json}" traceEvents)
  if(jerr)
    message(FATAL_ERROR "${OUT}/trace.json: ${jerr}")
  endif()
  string(JSON partial GET "${json}" otherData partial)
  if(nev LESS 10 OR NOT partial STREQUAL "OFF")
    message(FATAL_ERROR "trace.json: ${nev} events, partial ${partial}")
  endif()
  if(PYTHON)
    run_checked(ignored ${PYTHON} -m json.tool ${OUT}/trace.json)
  endif()
  message(STATUS "trace.json: ${nev} events")
endif()

if(FORMATS MATCHES "otf2")
  run_checked(listing ${OTF2_PRINT} ${OUT}/traces.otf2)
  foreach(want "ENTER" "LEAVE" "MPI_SEND" "MPI_RECV" "MPI_Allreduce")
    if(NOT listing MATCHES "${want}")
      message(FATAL_ERROR "otf2-print lists no ${want}")
    endif()
  endforeach()
  string(REGEX MATCHALL "\nENTER " enters "${listing}")
  list(LENGTH enters n)
  message(STATUS "otf2-print: ${n} enters")
endif()

run_checked(ignored ${REVPROF} timeline ${OUT} -o ${OUT}/timeline.png)
file(SIZE ${OUT}/timeline.png size)
if(size LESS 2000)
  message(FATAL_ERROR "${OUT}/timeline.png is only ${size} bytes")
endif()
message(STATUS "timeline.png: ${size} bytes")
