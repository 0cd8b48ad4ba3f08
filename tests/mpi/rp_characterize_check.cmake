# Runs revprof-characterize through a launcher and checks its exit status,
# its messages and what it left in the output directory (cmake -P).
#   -DLAUNCHER=list   e.g. mpiexec;--oversubscribe;-n;2 (or smpirun ...)
#   -DEXE=path        the program (empty when LAUNCHER runs it itself)
#   -DARGS=list       its arguments
#   -DOUT=dir         output directory: removed first, passed as -o
#   -DMODE=raw|model|fit|fail|keep|help
#       raw:   exit 0, raw.csv valid (rp_raw_check), no model with --raw-only
#       model: exit 0, raw.csv valid, model.lua passes 'revprof model check',
#              'revprof fit raw.csv' names the machine as model.lua does,
#              datasheet/datasheet.tex written
#       fit:   as raw, then 'revprof fit' on raw.csv and 'model check'
#       fail:  exit status not 0, output matches REGEX, no raw.csv
#       keep:  exit status not 0, output matches REGEX, raw.csv valid (a
#              failure after measuring keeps the data)
#       help:  exit 0 and output matches REGEX
#       resume: as partial, then the same command with --resume (and
#              without REVPROF_TEST_CHAR_ABORT): exit 0, raw.csv valid,
#              run.txt says how many points were resumed, no
#              raw.partial.csv left; then another abort, and --resume
#              with other --functions refused (exit 2, said)
#       partial: exit status not 0 (REVPROF_TEST_CHAR_ABORT), output matches
#              REGEX, no raw.csv, raw.partial.csv valid, says PARTIAL, and
#              'revprof fit' makes a model of it that says so too
#   -DNP=n -DFUNCTIONS=all|any|LIST   for rp_raw_check
#   -DRAWCHECK=path -DREVPROF=path -DREGEX=... -DMAKE_FILE=path (created
#   as a plain file first, to make an output path that cannot be a folder)
#   -DNOTES=regex     model: the notes of model.lua and of the refit from
#                     raw.csv match it; run.txt has a "drift:" line and
#                     the output a warning of it
#   -DEXIT=n          fail: the exit status must be n; 2 (bad usage) also
#                     means OUT must not even be created
#   -DIODIR=dir       the --io-dir of ARGS: made empty first, and empty
#                     again afterwards (every file I/O file removed); in
#                     model mode the model must have each of FUNCTIONS and
#                     name the file system
#   -DLINK_BW=B/s     a simulated run (deterministic): every MPI_Wait row
#                     below 1 us (its message has arrived), and the gap of
#                     the largest size measured between d / LINK_BW and
#                     1.5 times that (the link's bandwidth, SimGrid's
#                     bandwidth factor)
cmake_minimum_required(VERSION 3.18)

set(cmd ${LAUNCHER})
if(EXE)
  list(APPEND cmd ${EXE})
endif()
list(APPEND cmd ${ARGS})
if(OUT)
  file(REMOVE_RECURSE ${OUT})
  list(APPEND cmd -o ${OUT})
endif()
if(MAKE_FILE)
  file(WRITE ${MAKE_FILE} "a plain file, not a directory\n")
endif()
if(IODIR)
  file(REMOVE_RECURSE ${IODIR})
  file(MAKE_DIRECTORY ${IODIR})
endif()
list(JOIN cmd " " shown)
message("running: ${shown}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("exit status: ${rc}\n--- stdout\n${out}--- stderr\n${err}---")
set(all "${out}${err}")

function(fail_test msg)
  message(FATAL_ERROR "FAILED: ${msg}")
endfunction()

function(check_raw)
  if(NOT EXISTS ${OUT}/raw.csv)
    fail_test("no ${OUT}/raw.csv")
  endif()
  file(READ ${OUT}/raw.csv raw LIMIT 200)
  if(NOT raw MATCHES "^function,p,bytes,min,median,mean,max,reps,rse\n")
    fail_test("raw.csv does not start with the header")
  endif()
  execute_process(COMMAND ${RAWCHECK} ${OUT}/raw.csv ${NP} ${FUNCTIONS}
                  RESULT_VARIABLE crc OUTPUT_VARIABLE cout
                  ERROR_VARIABLE cerr)
  message("${cout}${cerr}")
  if(NOT crc EQUAL 0)
    fail_test("raw.csv rows do not check out")
  endif()
  file(GLOB_RECURSE tmps ${OUT}/*.tmp)
  if(tmps)
    fail_test("temporary files left: ${tmps}")
  endif()
  if(EXISTS ${OUT}/raw.partial.csv)
    fail_test("raw.partial.csv left beside raw.csv")
  endif()
endfunction()

# Every file the file I/O rows made in IODIR is gone (probe included).
function(check_iodir_empty)
  file(GLOB left LIST_DIRECTORIES true ${IODIR}/* ${IODIR}/.*)
  if(left)
    fail_test("files left in --io-dir ${IODIR}: ${left}")
  endif()
endfunction()

function(check_model path)
  execute_process(COMMAND ${REVPROF} model check ${path}
                  RESULT_VARIABLE mrc OUTPUT_VARIABLE mout
                  ERROR_VARIABLE merr)
  message("${mout}${merr}")
  if(NOT mrc EQUAL 0)
    fail_test("'revprof model check ${path}' failed")
  endif()
endfunction()

if(IODIR)
  check_iodir_empty()
endif()

if(MODE STREQUAL "resume")
  if(rc EQUAL 0 OR NOT EXISTS ${OUT}/raw.partial.csv OR EXISTS ${OUT}/raw.csv)
    fail_test("the first run did not die leaving raw.partial.csv alone")
  endif()
  file(STRINGS ${OUT}/raw.partial.csv kept REGEX "^[A-Za-z_]+,[0-9]")
  list(LENGTH kept nkept)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=REVPROF_TEST_CHAR_ABORT
                          ${cmd} --resume
                  RESULT_VARIABLE rrc OUTPUT_VARIABLE rout ERROR_VARIABLE rerr)
  message("--- resumed: exit ${rrc}\n${rout}${rerr}---")
  if(NOT rrc EQUAL 0)
    fail_test("--resume: exit status ${rrc}")
  endif()
  if(NOT "${rout}${rerr}" MATCHES "resuming ${OUT}/raw.partial.csv: ${nkept} points kept")
    fail_test("--resume did not say it kept the ${nkept} points")
  endif()
  check_raw()
  file(READ ${OUT}/run.txt summary)
  if(NOT summary MATCHES "\nresumed: ${nkept} of them from raw.partial.csv")
    fail_test("run.txt does not say ${nkept} points were resumed")
  endif()
  # a partial run of other settings is refused
  execute_process(COMMAND ${cmd} RESULT_VARIABLE arc OUTPUT_QUIET ERROR_QUIET)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=REVPROF_TEST_CHAR_ABORT
                          ${cmd} --resume --functions latency
                  RESULT_VARIABLE mrc OUTPUT_VARIABLE mout ERROR_VARIABLE merr)
  message("--- other settings: exit ${mrc}\n${mout}${merr}---")
  if(mrc EQUAL 0 OR NOT "${mout}${merr}" MATCHES "--resume: ${OUT}/raw.partial.csv was measured with other settings")
    fail_test("--resume with other --functions not refused")
  endif()
  return()
endif()

if(MODE STREQUAL "partial")
  if(rc EQUAL 0)
    fail_test("exit status 0, expected the test abort")
  endif()
  if(NOT all MATCHES "${REGEX}")
    fail_test("output does not match '${REGEX}'")
  endif()
  if(EXISTS ${OUT}/raw.csv)
    fail_test("raw.csv written by a run that did not finish")
  endif()
  if(NOT EXISTS ${OUT}/raw.partial.csv)
    fail_test("no ${OUT}/raw.partial.csv")
  endif()
  execute_process(COMMAND ${RAWCHECK} ${OUT}/raw.partial.csv ${NP} ${FUNCTIONS}
                  RESULT_VARIABLE crc OUTPUT_VARIABLE cout
                  ERROR_VARIABLE cerr)
  message("${cout}${cerr}")
  if(NOT crc EQUAL 0)
    fail_test("raw.partial.csv rows do not check out")
  endif()
  file(READ ${OUT}/raw.partial.csv raw)
  if(NOT raw MATCHES "\n# machine.notes: [^\n]*; PARTIAL: [0-9]+ of [0-9]+ points when written")
    fail_test("raw.partial.csv does not say it is partial")
  endif()
  execute_process(COMMAND ${REVPROF} fit ${OUT}/raw.partial.csv -o ${OUT}/partial.lua
                  RESULT_VARIABLE frc OUTPUT_VARIABLE fout ERROR_VARIABLE ferr)
  message("${fout}${ferr}")
  if(NOT frc EQUAL 0)
    fail_test("'revprof fit ${OUT}/raw.partial.csv' failed")
  endif()
  check_model(${OUT}/partial.lua)
  file(READ ${OUT}/partial.lua model)
  if(NOT model MATCHES "notes = \"[^\n]*PARTIAL: ")
    fail_test("the model fitted from raw.partial.csv does not say PARTIAL")
  endif()
  return()
endif()

if(MODE STREQUAL "fail" OR MODE STREQUAL "keep")
  if(rc EQUAL 0)
    fail_test("exit status 0, expected a failure")
  endif()
  if(NOT "${EXIT}" STREQUAL "" AND NOT rc EQUAL EXIT)
    fail_test("exit status ${rc}, expected ${EXIT}")
  endif()
  if("${EXIT}" STREQUAL "2" AND OUT AND EXISTS ${OUT})
    fail_test("${OUT} created despite the usage error")
  endif()
  if(NOT all MATCHES "${REGEX}")
    fail_test("output does not match '${REGEX}'")
  endif()
  if(MODE STREQUAL "keep")
    check_raw()
  elseif(OUT AND EXISTS ${OUT}/raw.csv)
    fail_test("${OUT}/raw.csv written despite the error")
  endif()
  return()
endif()

if(NOT rc EQUAL 0)
  fail_test("exit status ${rc}")
endif()
if(REGEX AND NOT all MATCHES "${REGEX}")
  fail_test("output does not match '${REGEX}'")
endif()
if(MODE STREQUAL "help")
  return()
endif()

check_raw()
if(MODE STREQUAL "raw")
  if(ARGS MATCHES "--raw-only" AND EXISTS ${OUT}/model.lua)
    fail_test("model.lua written with --raw-only")
  endif()
elseif(MODE STREQUAL "model")
  check_model(${OUT}/model.lua)
  # raw.csv alone carries the machine: a refit names it as model.lua does
  execute_process(COMMAND ${REVPROF} fit ${OUT}/raw.csv -o ${OUT}/refit.lua
                  RESULT_VARIABLE frc OUTPUT_VARIABLE fout
                  ERROR_VARIABLE ferr)
  if(NOT frc EQUAL 0)
    message("${fout}${ferr}")
    fail_test("'revprof fit ${OUT}/raw.csv' failed")
  endif()
  file(READ ${OUT}/model.lua model)
  file(READ ${OUT}/refit.lua refit)
  foreach(key name mpi filesystem date ranks)
    string(REGEX MATCH "\n    ${key} = [^\n]*" want "${model}")
    string(REGEX MATCH "\n    ${key} = [^\n]*" got "${refit}")
    if(NOT got STREQUAL want)
      fail_test("refit from raw.csv: machine.${key} is '${got}', model.lua "
                "has '${want}'")
    endif()
  endforeach()
  if(NOT refit MATCHES "\n    ranks = ${NP},")
    fail_test("refit from raw.csv: machine.ranks is not ${NP}")
  endif()
  if(NOTES)
    file(READ ${OUT}/run.txt summary)
    if(NOT summary MATCHES "\ndrift: the machine's speed changed")
      fail_test("run.txt has no drift line")
    endif()
    if(NOT all MATCHES "warning: 8 B one way took [^\n]*: the machine's speed changed")
      fail_test("no warning of the drift on stderr")
    endif()
    foreach(what model refit)
      if(NOT "${${what}}" MATCHES "${NOTES}")
        fail_test("${what} does not match '${NOTES}'")
      endif()
    endforeach()
    if(NOT model MATCHES "\n    notes = \"[^\"\n]*${NOTES}")
      fail_test("model.lua's notes do not match '${NOTES}'")
    endif()
  endif()
  if(IODIR)
    file(READ ${OUT}/model.lua model)
    string(REPLACE "," ";" fns "${FUNCTIONS}")
    foreach(fn ${fns})
      if(NOT model MATCHES "\n    ${fn} = {")
        fail_test("model.lua has no ${fn}")
      endif()
    endforeach()
    if(NOT model MATCHES "\n    filesystem = \"[^\"]+ at /[^\"]*\",")
      fail_test("model.lua does not name the file system of --io-dir")
    endif()
    file(READ ${OUT}/raw.csv raw)
    if(NOT raw MATCHES "\n# machine.filesystem: [^\n]+ at /")
      fail_test("raw.csv does not name the file system of --io-dir")
    endif()
    execute_process(COMMAND ${REVPROF} model show ${OUT}/model.lua
                    OUTPUT_VARIABLE show)
    if(NOT show MATCHES "file system: [^\n]+ at /")
      fail_test("'revprof model show' does not name the file system")
    endif()
  endif()
  if(NOT EXISTS ${OUT}/datasheet/datasheet.tex)
    fail_test("no ${OUT}/datasheet/datasheet.tex")
  endif()
  if(NOT out MATCHES "model +${OUT}/model.lua")
    fail_test("the program does not say where the model is")
  endif()
elseif(MODE STREQUAL "fit")
  if(LINK_BW)
    file(STRINGS ${OUT}/raw.csv rows REGEX "^(MPI_Wait|gap),")
    set(gap_d -1)
    foreach(row ${rows})
      string(REPLACE "," ";" f "${row}")
      list(GET f 0 fn)
      list(GET f 2 d)
      list(GET f 4 median)
      if(fn STREQUAL "MPI_Wait" AND NOT median LESS 1e-6)
        fail_test("MPI_Wait at d = ${d}: ${median} s, not below 1 us")
      elseif(fn STREQUAL "gap" AND d GREATER gap_d)
        set(gap_d ${d})
        set(gap_t ${median})
      endif()
    endforeach()
    if(gap_d LESS 1)
      fail_test("no gap row with data")
    endif()
    math(EXPR gap_lo_ns "${gap_d} * 1000000000 / ${LINK_BW}")
    math(EXPR gap_hi_ns "${gap_lo_ns} * 3 / 2")
    message("gap at d = ${gap_d}: ${gap_t} s, want ${gap_lo_ns} .. "
            "${gap_hi_ns} ns")
    if(gap_t LESS "${gap_lo_ns}e-9" OR gap_t GREATER "${gap_hi_ns}e-9")
      fail_test("gap at d = ${gap_d}: ${gap_t} s, not d / LINK_BW to 1.5 "
                "times that")
    endif()
  endif()
  execute_process(COMMAND ${REVPROF} fit ${OUT}/raw.csv -o ${OUT}/model.lua
                  RESULT_VARIABLE frc OUTPUT_VARIABLE fout
                  ERROR_VARIABLE ferr)
  message("${fout}${ferr}")
  if(NOT frc EQUAL 0)
    fail_test("'revprof fit' on the simulated raw data failed")
  endif()
  check_model(${OUT}/model.lua)
endif()
