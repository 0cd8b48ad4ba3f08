# librevprof trust tests (included from tests/mpi/revprof.cmake): exchange
# patterns under every piggyback encoding (issue #8), partial reports in
# compensate mode, runs with nothing intercepted. Driver: rp_trust_check.sh.
add_executable(rp_exchange rp_exchange.c)
target_link_libraries(rp_exchange PRIVATE MPI::MPI_C)
rp_target_defaults(rp_exchange)

set(rp_trust_check ${CMAKE_CURRENT_SOURCE_DIR}/rp_trust_check.sh)
# revprof_trust_test(name command args...): rp_trust_check.sh in its own
# scratch dir.
function(revprof_trust_test name)
  add_test(NAME ${name} COMMAND sh ${rp_trust_check} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 LABELS "mpi;revprof"
    ENVIRONMENT "${RP_MPIEXEC_ENV};RP_MPIEXEC=${MPIEXEC_EXECUTABLE};RP_MPIFLAGS=${rp_flags};RP_WORK=${CMAKE_CURRENT_BINARY_DIR}/${name};RP_LIB=$<TARGET_FILE:revprof_shared>;RP_MODEL=${CMAKE_CURRENT_SOURCE_DIR}/rp_exact_model.lua")
endfunction()

foreach(pattern sendrecv stress)
  foreach(mode predict compensate)
    revprof_trust_test(revprof_exchange_${pattern}_${mode}_np2 exchange
                       ${pattern} ${mode} $<TARGET_FILE:rp_exchange> 2)
  endforeach()
endforeach()
# three ranks on a ring (oversubscribed, slow with MPICH): fewer iterations
revprof_trust_test(revprof_exchange_stress_predict_np3 exchange stress
                   predict $<TARGET_FILE:rp_exchange> 3 500)

# every point-to-point binding against every other (MPI-4 ones where the
# MPI has them), zero-size types with NULL buffers, a large-count message
add_executable(rp_bindings rp_bindings.c)
target_link_libraries(rp_bindings PRIVATE MPI::MPI_C)
rp_target_defaults(rp_bindings)
foreach(what matrix exchange zeros)
  foreach(mode predict compensate)
    revprof_trust_test(revprof_bindings_${what}_${mode}_np2 checks ${mode}
                       $<TARGET_FILE:rp_bindings> 2 ${what})
  endforeach()
endforeach()
if(REVPROF_MPI STREQUAL "mpich")
  # 2 GiB + 16 B each way (MPI 4: MPICH only); 4 GiB of memory
  revprof_trust_test(revprof_bindings_big_predict_np2 checks predict
                     $<TARGET_FILE:rp_bindings> 2 big)
endif()

# a rank that waits in revprof's start-up for a slower one: not computation
revprof_trust_test(revprof_startup_wait_np2 startup
                   $<TARGET_FILE:rp_exchange> 2)

# calls without a cost rule (one-sided, neighbourhood, MPI-IO): right data,
# and the report's not-predicted flag and INCOMPLETE mark
add_executable(rp_uncosted rp_uncosted.c)
target_link_libraries(rp_uncosted PRIVATE MPI::MPI_C)
rp_target_defaults(rp_uncosted)
revprof_trust_test(revprof_unpredicted_np2 unpredicted
                   $<TARGET_FILE:rp_uncosted> 2)

if(REVPROF_MPI STREQUAL "mpich")
  # MPI-4 sessions (MPICH 4; Open MPI 4.1 has none): predicted
  add_executable(rp_sessions rp_sessions.c)
  target_link_libraries(rp_sessions PRIVATE MPI::MPI_C)
  rp_target_defaults(rp_sessions)
  revprof_trust_test(revprof_sessions_np2 sessions
                     $<TARGET_FILE:rp_sessions> 2)
endif()

# MPI_Comm_spawn: the child job's reports go to a folder of their own
# (skipped where spawning fails natively: MPICH 4.0.2's Hydra here)
add_executable(rp_spawn rp_spawn.c)
target_link_libraries(rp_spawn PRIVATE MPI::MPI_C)
rp_target_defaults(rp_spawn)
add_executable(rp_spawn_rp rp_spawn.c) # linked: the child runs revprof too
target_link_libraries(rp_spawn_rp PRIVATE revprof_shared MPI::MPI_C)
rp_target_defaults(rp_spawn_rp)
revprof_trust_test(revprof_spawn_np2 spawn $<TARGET_FILE:rp_spawn>
                   $<TARGET_FILE:rp_spawn_rp> 2)
set_tests_properties(revprof_spawn_np2 PROPERTIES SKIP_RETURN_CODE 77)
# the same from Fortran (MPI_COMM_SPAWN takes strings: bound by hand)
if(TARGET MPI::MPI_Fortran)
  add_executable(rp_spawn_f rp_spawn_f.f90)
  target_compile_options(rp_spawn_f PRIVATE -fallow-argument-mismatch -w)
  target_link_libraries(rp_spawn_f PRIVATE MPI::MPI_Fortran)
  add_executable(rp_spawn_f_rp rp_spawn_f.f90)
  target_compile_options(rp_spawn_f_rp PRIVATE -fallow-argument-mismatch -w)
  target_link_libraries(rp_spawn_f_rp PRIVATE revprof_shared MPI::MPI_Fortran)
  revprof_trust_test(revprof_spawn_fortran_np2 spawn
                     $<TARGET_FILE:rp_spawn_f> $<TARGET_FILE:rp_spawn_f_rp> 2)
  set_tests_properties(revprof_spawn_fortran_np2 PROPERTIES
                       SKIP_RETURN_CODE 77)
endif()

# compensate mode: runs that end early leave partial compensate reports
foreach(mode abort exit segv)
  revprof_trust_test(revprof_compensate_early_${mode} cm-early ${mode}
                     $<TARGET_FILE:rp_early_native> 2)
endforeach()

# nothing intercepted: MPI only through PMPI_ names (an unwrapped binding)
add_executable(rp_pmpi_only rp_pmpi_only.c)
target_link_libraries(rp_pmpi_only PRIVATE MPI::MPI_C)
rp_target_defaults(rp_pmpi_only)
foreach(mode pmpi init)
  revprof_trust_test(revprof_nothing_intercepted_${mode}_np2 nothing ${mode}
                     $<TARGET_FILE:rp_pmpi_only> 2)
endforeach()
revprof_trust_test(revprof_flags_no_piggyback_np2 nopb
                   $<TARGET_FILE:rp_pmpi_only> 2)
# REVPROF_QUIET=1: the program's output untouched, reports in files only
revprof_trust_test(revprof_quiet_np2 quiet $<TARGET_FILE:rp_exchange> 2)
# degraded runs are marked in report.csv and report.txt's first lines
# (a lacking model, a broken Lua file, synchronous sends)
revprof_trust_test(revprof_flags_np2 flags $<TARGET_FILE:rp_semantics_native> 2)
