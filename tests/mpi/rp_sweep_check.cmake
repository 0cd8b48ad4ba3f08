# revprof sweep over process counts, predicted and measured: sweep.csv has a
# row per count with a positive prediction, and sweep.png is drawn.
# cmake -DREVPROF=tool -DMODEL=m.lua -DNPS=1,2 -DOUT=dir -DEXE=..
#       -DARGS=a;b -P this
cmake_minimum_required(VERSION 3.18)
string(REPLACE "\\;" ";" ARGS "${ARGS}") # a list passed through -D
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${REVPROF} sweep --np ${NPS} --measure --model
                ${MODEL} -o ${OUT} -- ${EXE} ${ARGS}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "revprof sweep failed (${rc}):\n${out}\n${err}")
endif()
file(STRINGS ${OUT}/sweep.csv rows)
string(REPLACE "," ";" counts "${NPS}")
list(LENGTH counts want)
list(LENGTH rows n)
math(EXPR want "${want} + 1")
if(NOT n EQUAL want)
  message(FATAL_ERROR "sweep.csv has ${n} lines, expected ${want}")
endif()
list(GET rows 1 first)
if(NOT first MATCHES "^1,[0-9.e+-]+,[0-9.e+-]+,")
  message(FATAL_ERROR "sweep.csv row '${first}' has no prediction")
endif()
if(NOT EXISTS ${OUT}/sweep.png)
  message(FATAL_ERROR "no ${OUT}/sweep.png")
endif()
message(STATUS "${out}")
