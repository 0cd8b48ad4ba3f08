# librevprof MPI tests (included from tests/mpi/CMakeLists.txt): MPI
# semantics under revprof against the same program run natively, exactness
# of the predicted clocks, LD_PRELOAD on an unmodified binary, Fortran
# bindings, faults, and
# partial reports of runs that end early. Driver: rp_check.sh.
if(NOT TARGET revprof_shared)
  return()
endif()
foreach(prog rp_semantics rp_early rp_compute rp_threads rp_sample
        rp_monitor_late)
  add_executable(${prog}_native ${prog}.c)
  target_link_libraries(${prog}_native PRIVATE MPI::MPI_C)
  rp_target_defaults(${prog}_native)
endforeach()
find_package(Threads REQUIRED)
target_link_libraries(rp_threads_native PRIVATE Threads::Threads)
add_executable(rp_semantics_rp rp_semantics.c)
add_executable(rp_exact_rp rp_exact.c)
add_executable(rp_exact_rma_rp rp_exact_rma.c)
add_executable(rp_exact_io_rp rp_exact_io.c)
add_executable(rp_exact_p2p_rp rp_exact_p2p.c)
add_executable(rp_wildcard_rp rp_wildcard.c)
add_executable(rp_sample_rp rp_sample.c)
add_executable(rp_monitor_live_rp rp_monitor_live.c)
add_executable(rp_now_rp rp_now.c)
target_compile_definitions(rp_sample_rp PRIVATE RP_LINKED)
foreach(prog rp_semantics_rp rp_exact_rp rp_exact_rma_rp rp_exact_io_rp
        rp_exact_p2p_rp rp_wildcard_rp rp_sample_rp rp_monitor_live_rp
        rp_now_rp)
  # librevprof before the MPI library: its MPI_* wrappers win
  target_link_libraries(${prog} PRIVATE revprof_shared MPI::MPI_C ${MATH_LIBRARY})
  rp_target_defaults(${prog})
endforeach()

set(rp_flags "")
if(REVPROF_MPI STREQUAL "openmpi")
  set(rp_flags --oversubscribe)
endif()
set(rp_check ${CMAKE_CURRENT_SOURCE_DIR}/rp_check.sh)
# revprof_test(name command args...): rp_check.sh in its own scratch dir.
function(revprof_test name)
  add_test(NAME ${name} COMMAND sh ${rp_check} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 240 LABELS "mpi;revprof"
    ENVIRONMENT "${RP_MPIEXEC_ENV};RP_MPIEXEC=${MPIEXEC_EXECUTABLE};RP_MPIFLAGS=${rp_flags};RP_WORK=${CMAKE_CURRENT_BINARY_DIR}/${name};RP_LIB=$<TARGET_FILE:revprof_shared>;RP_MODEL=${CMAKE_CURRENT_SOURCE_DIR}/rp_exact_model.lua")
endfunction()

set(rp_nat $<TARGET_FILE:rp_semantics_native>)
foreach(np 2 3 4)
  revprof_test(revprof_semantics_np${np} compare ${rp_nat}
               $<TARGET_FILE:rp_semantics_rp> ${np})
endforeach()
# the same with wildcards in the MPI's order (the default decides them in
# predicted time)
revprof_test(revprof_semantics_real_np3 compare ${rp_nat}
             $<TARGET_FILE:rp_semantics_rp> 3 real)
revprof_test(revprof_preload_np3 preload ${rp_nat} 3)
# a program of another MPI family than librevprof's: stopped before it
# starts, with a message that names both and the fix
add_library(rp_other_mpi SHARED rp_other_mpi.c)
target_link_libraries(rp_other_mpi PRIVATE MPI::MPI_C)
rp_target_defaults(rp_other_mpi)
revprof_test(revprof_other_mpi other-mpi ${rp_nat}
             $<TARGET_FILE:rp_other_mpi>)
foreach(np 2 3 4)
  revprof_test(revprof_exact_np${np} exact $<TARGET_FILE:rp_exact_rp> ${np})
endforeach()
# messages that overlap (issue 14): k-neighbour exchanges, late receives,
# a train, a gather, to the formula; and the old rule without the gap row
foreach(np 2 4)
  revprof_test(revprof_exact_p2p_np${np} p2p-exact
               $<TARGET_FILE:rp_exact_p2p_rp> ${np})
endforeach()
# wildcard receives decided in predicted time (issue 15): a master-worker
# whose first worker in predicted time answers last in real time, 20
# rounds; by MPI_Probe, by an MPI_Iprobe loop, by MPI_Waitany (and an
# MPI_Testany loop, MPI_Waitsome, an MPI_Testsome loop) over one receive per
# worker; workers blocked on the
# deciding rank; by MPI_Irecv(MPI_ANY_SOURCE) and MPI_Wait (or an MPI_Test
# loop), deferred until the Wait decides; REVPROF_WILDCARD=real; a sender
# further ahead than its log keeps; a cancelled send; MPI's order around
# deferred wildcard receives; pairs exchanging large messages from
# wildcard receives posted first
foreach(np 2 4)
  revprof_test(revprof_wildcard_exchange_np${np} wildcard
               $<TARGET_FILE:rp_wildcard_rp> ${np} exchange)
endforeach()
foreach(np 3 4)
  revprof_test(revprof_wildcard_np${np} wildcard
               $<TARGET_FILE:rp_wildcard_rp> ${np})
  revprof_test(revprof_wildcard_defer_np${np} wildcard
               $<TARGET_FILE:rp_wildcard_rp> ${np} defer)
endforeach()
foreach(v probe iprobe waitany testany waitsome testsome irecv irecvtest
          cycle real flood)
  revprof_test(revprof_wildcard_${v}_np4 wildcard
               $<TARGET_FILE:rp_wildcard_rp> 4 ${v})
endforeach()
revprof_test(revprof_wildcard_cancel_np3 wildcard
             $<TARGET_FILE:rp_wildcard_rp> 3 cancel)
# a decision while a rank waits inside MPI_Sendrecv for a rank blocked on
# the decider: no time-out
revprof_test(revprof_wildcard_sendrecv_np4 wildcard
             $<TARGET_FILE:rp_wildcard_rp> 4 sendrecv)
# the same with the receive waited for in MPI_Wait and in MPI_Waitall
revprof_test(revprof_wildcard_waitrecv_np4 wildcard
             $<TARGET_FILE:rp_wildcard_rp> 4 waitrecv)
revprof_test(revprof_wildcard_waitallrecv_np4 wildcard
             $<TARGET_FILE:rp_wildcard_rp> 4 waitallrecv)
# a wildcard receive waiting past REVPROF_WILDCARD_STALL says so, once
revprof_test(revprof_wildcard_stall_np3 wildcard
             $<TARGET_FILE:rp_wildcard_rp> 3 stall)
# bench/wildcard-stress.sh, the stress harness of the cases above (ranks
# started late and at random priorities): its checks of bad input, and two
# cases run through it
revprof_test(revprof_wildcard_stress_script wildcard-stress
             ${PROJECT_SOURCE_DIR}/bench/wildcard-stress.sh ${PROJECT_BINARY_DIR})
# sample mode (issue 10): every message counted at "all", the binomial
# count at random:0.5, every 4th message exactly at counter:4, all but
# the first at timer:1e-9 and none at timer:1000, a receiver
# late by a known sleep, latencies corrected for a drifting clock
# (REVPROF_TEST_DRIFT), aliasing of a counter with a periodic program and
# what jitter changes, partitioned messages (MPI 4) sampled like the
# others, a program of collectives alone (nothing to stamp, said), stamps
# without a shadow (MPI_COMM_SELF, an inter-communicator) and after a
# probe, the runtime switch (linked build), a bad REVPROF_SAMPLE refused,
# and the semantics suite in sample mode
foreach(v count-all count-random count-counter count-timer delay burst
          drift bad partitioned coll edges)
  revprof_test(revprof_sample_${v}_np3 sample
               $<TARGET_FILE:rp_sample_native> 3 ${v})
endforeach()
# partitioned communication is MPI 4 (MPICH; skipped with Open MPI 4.1)
set_tests_properties(revprof_sample_partitioned_np3 PROPERTIES
                     SKIP_RETURN_CODE 77)
revprof_test(revprof_sample_set_np2 sample $<TARGET_FILE:rp_sample_rp> 2 set)
revprof_test(revprof_sample_early_np2 sample $<TARGET_FILE:rp_early_native> 2
             early)
# revprof validate on a sampled run: the model of this machine, and one
# whose latency is 1000 times too large (a large error, every class outside)
revprof_test(revprof_sample_validate_np2 sample $<TARGET_FILE:rp_sample_native>
             2 validate $<TARGET_FILE:revprof>
             ${PROJECT_SOURCE_DIR}/models/machines/debian12-2core-${REVPROF_MPI}.lua)
revprof_test(revprof_semantics_sample_np3 compare ${rp_nat}
             $<TARGET_FILE:rp_semantics_rp> 3 sample)
# MPI_THREAD_MULTIPLE (rp_mt.c): a program that asks for it and calls MPI
# from one thread gets the same semantics and the same clocks; one whose
# two threads call MPI at once gets right data and a report that says so
revprof_test(revprof_semantics_multiple_np2 compare ${rp_nat}
             $<TARGET_FILE:rp_semantics_rp> 2 multiple)
revprof_test(revprof_exact_multiple_np3 exact $<TARGET_FILE:rp_exact_rp> 3
             multiple)
foreach(np 2 3)
  revprof_test(revprof_threads_np${np} threads
               $<TARGET_FILE:rp_threads_native> ${np})
endforeach()
set_tests_properties(revprof_threads_np2 revprof_threads_np3 PROPERTIES
                     SKIP_RETURN_CODE 77)
# one-sided rules (fence, post-start-complete-wait, lock/unlock), exactly
foreach(np 2 3 4)
  revprof_test(revprof_exact_rma_np${np} rma-exact $<TARGET_FILE:rp_exact_rma_rp> ${np})
endforeach()
# MPI-IO rules (open, independent and collective access, close), exactly;
# without the model's I/O rows the calls are reported as not predicted
foreach(np 2 3 4)
  revprof_test(revprof_exact_io_np${np} io-exact $<TARGET_FILE:rp_exact_io_rp> ${np})
endforeach()
foreach(np 2 3)
  revprof_test(revprof_extrapolated_np${np} extrapolated $<TARGET_FILE:rp_exact_rp> ${np})
endforeach()
# more ranks on the host than cores: the report says so
revprof_test(revprof_oversubscribed oversub $<TARGET_FILE:rp_early_native>)
# another process on the rank's core: the report says so
revprof_test(revprof_host_busy host-busy $<TARGET_FILE:rp_compute_native>)
foreach(fault missing-model broken-model bad-field lacking-function broken-lua
        bad-mode bad-bound bad-profile)
  revprof_test(revprof_fault_${fault} fault ${fault} ${rp_nat} 2)
endforeach()
revprof_test(revprof_measure_np2 measure $<TARGET_FILE:rp_early_native> 2)
# REVPROF_COMPUTE=auto, the default: an unmodified program is measured, an
# annotated one measured until its first annotation; polls at host speed
foreach(what burn annotated iprobe)
  revprof_test(revprof_auto_${what}_np2 auto ${what} $<TARGET_FILE:rp_compute_native> 2)
endforeach()
# Fortran bindings (mpif.h, use mpi, use mpi_f08): the ping-pong examples
# predicted exactly, linked and preloaded; mpif.h semantics the same as
# natively.
if(TARGET pingpong_f08_rp)
  revprof_test(revprof_fortran08_exact_linked_np2 fortran-exact
               $<TARGET_FILE:pingpong_f08_rp> 2)
  revprof_test(revprof_fortran08_exact_preload_np2 fortran-exact
               $<TARGET_FILE:pingpong_f08> 2 preload)
endif()
# use mpi_f08's large counts (MPI-4), where the MPI's module has them
if(TARGET pingpong_f08)
  try_compile(RP_F08_LARGE_COUNT ${CMAKE_CURRENT_BINARY_DIR}/f08count
              SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/rp_f08_count.f90
              LINK_LIBRARIES MPI::MPI_Fortran)
  if(RP_F08_LARGE_COUNT)
    add_executable(rp_f08_count rp_f08_count.f90)
    target_link_libraries(rp_f08_count PRIVATE MPI::MPI_Fortran)
    revprof_test(revprof_fortran08_count_np2 fortran-count
                 $<TARGET_FILE:rp_f08_count>)
  else()
    message(STATUS "revprof: this MPI's mpi_f08 has no large counts: "
                   "revprof_fortran08_count_np2 not built")
  endif()
endif()
if(TARGET pingpong_f_rp)
  revprof_test(revprof_fortran_exact_linked_np2 fortran-exact
               $<TARGET_FILE:pingpong_f_rp> 2)
  revprof_test(revprof_fortran_exact_preload_np2 fortran-exact
               $<TARGET_FILE:pingpong_f> 2 preload)
  # sample mode: every message, call sites in the Fortran program
  revprof_test(revprof_fortran_sample_np2 sample $<TARGET_FILE:pingpong_f> 2
               fortran)
  add_executable(rp_fortran_h rp_fortran_h.f90 rp_fortran_h_c.c)
  # mpif.h declares no interfaces: one buffer argument, many types (and
  # gfortran warns about each even when allowed: -w)
  target_compile_options(rp_fortran_h PRIVATE -fallow-argument-mismatch -w)
  target_link_libraries(rp_fortran_h PRIVATE MPI::MPI_Fortran MPI::MPI_C)
  foreach(np 2 3)
    revprof_test(revprof_fortran_mpifh_np${np} fortran-compare
                 $<TARGET_FILE:rp_fortran_h> ${np})
  endforeach()
endif()
if(TARGET mcpi_rp) # compensate mode on examples/mcpi.c
  foreach(np 2 3)
    revprof_test(revprof_compensate_inject_np${np} compensate
                 $<TARGET_FILE:mcpi> $<TARGET_FILE:mcpi_rp> ${np})
  endforeach()
  revprof_test(revprof_compensate_finstrument finstrument
               $<TARGET_FILE:mcpi> $<TARGET_FILE:mcpi_fi>)
  revprof_test(revprof_compensate_overhead_model overhead-model
               $<TARGET_FILE:mcpi> $<TARGET_FILE:mcpi_rp>)
  # the instrumentation cost model (seed 002, issue 11)
  revprof_test(revprof_cost_throttle cost-throttle
               $<TARGET_FILE:mcpi> $<TARGET_FILE:mcpi_rp>)
  revprof_test(revprof_cost_modes cost-modes $<TARGET_FILE:mcpi_rp>)
  revprof_test(revprof_cost_calibration cost-calibration $<TARGET_FILE:mcpi_rp>)
  revprof_test(revprof_cost_sample cost-sample $<TARGET_FILE:mcpi_rp>)
  revprof_test(revprof_cost_dry dry-cost $<TARGET_FILE:revprof>
               $<TARGET_FILE:mcpi>)
endif()
foreach(mode abort exit segv term kill)
  revprof_test(revprof_early_${mode} early ${mode}
               $<TARGET_FILE:rp_early_native> 2)
  # the launcher reports the early end; the check looks at the files
endforeach()
revprof_test(revprof_checkpoint_np2 checkpoint
             $<TARGET_FILE:rp_early_native> 2)
revprof_test(revprof_run_early_segv run-early $<TARGET_FILE:revprof>
             $<TARGET_FILE:rp_early_native> 2)
# ... and a program linked with the other MPI family's library (the
# stand-in under that library's name, in a folder of its own)
add_library(rp_other_mpi_named SHARED rp_other_mpi.c)
target_link_libraries(rp_other_mpi_named PRIVATE MPI::MPI_C)
rp_target_defaults(rp_other_mpi_named)
if(REVPROF_MPI STREQUAL "mpich")
  set_target_properties(rp_other_mpi_named PROPERTIES OUTPUT_NAME mpi
                        SOVERSION 40)
else()
  set_target_properties(rp_other_mpi_named PROPERTIES OUTPUT_NAME mpich
                        SOVERSION 12)
endif()
set_target_properties(rp_other_mpi_named PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/other-mpi)
add_executable(rp_other_prog rp_other_prog.c)
target_link_libraries(rp_other_prog PRIVATE rp_other_mpi_named)
rp_target_defaults(rp_other_prog)
revprof_test(revprof_run_bad_program run-bad $<TARGET_FILE:revprof>
             $<TARGET_FILE:rp_other_prog>)
# revprof run without a model: predict refused, compensate and sample run
revprof_test(revprof_run_no_model run-nomodel $<TARGET_FILE:revprof>
             $<TARGET_FILE:rp_sample_native>)
# collectives on an inter-communicator: right data, costed locally, flagged
add_executable(rp_intercomm rp_intercomm.c)
target_link_libraries(rp_intercomm PRIVATE MPI::MPI_C)
rp_target_defaults(rp_intercomm)
revprof_test(revprof_intercomm_np3 intercomm $<TARGET_FILE:rp_intercomm> 3)
# compensate mode's delays through rooted collectives
add_executable(rp_comp_rooted rp_comp_rooted.c)
target_link_libraries(rp_comp_rooted PRIVATE MPI::MPI_C)
rp_target_defaults(rp_comp_rooted)
revprof_test(revprof_compensate_rooted_np3 comp-rooted
             $<TARGET_FILE:rp_comp_rooted> 3)
# revprof_now: the simulated clock in predict mode only
revprof_test(revprof_now_modes_np2 now-modes $<TARGET_FILE:rp_now_rp>)
revprof_test(revprof_trace_kill_np2 trace-kill $<TARGET_FILE:revprof>
             $<TARGET_FILE:rp_early_native> 2)
# online monitoring (seed 004, issue 12): tool ranks beside the
# application's, which sees its own world
revprof_test(revprof_monitor_semantics monitor semantics ${rp_nat}
             $<TARGET_FILE:rp_semantics_rp>)
revprof_test(revprof_monitor_timer monitor timer ${rp_nat}
             $<TARGET_FILE:rp_semantics_rp>)
if(TARGET bspbench_rp)
  revprof_test(revprof_monitor_rounds monitor rounds
               $<TARGET_FILE:bspbench_rp>)
  revprof_test(revprof_monitor_lossy monitor lossy $<TARGET_FILE:bspbench_rp>)
  revprof_test(revprof_monitor_auto monitor auto $<TARGET_FILE:bspbench_rp>)
endif()
if(TARGET rp_fortran_h)
  revprof_test(revprof_monitor_fortran monitor fortran
               $<TARGET_FILE:rp_fortran_h>)
endif()
# rounds.csv is written as the rounds arrive, read by the job itself
revprof_test(revprof_monitor_live monitor live
             $<TARGET_FILE:rp_monitor_live_rp>)
# compensate mode's regions in the profile, by name across the ranks
revprof_test(revprof_monitor_regions monitor regions
             $<TARGET_FILE:rp_monitor_live_rp>)
# a rank that reaches MPI_Finalize rounds after the others: the last round
# still holds every rank's final profile
revprof_test(revprof_monitor_late monitor late
             $<TARGET_FILE:rp_monitor_late_native>)
revprof_test(revprof_monitor_probe monitor probe $<TARGET_FILE:revprof>)
revprof_test(revprof_monitor_bad monitor bad $<TARGET_FILE:revprof> ${rp_nat})
include(${CMAKE_CURRENT_SOURCE_DIR}/rp_trust.cmake)
