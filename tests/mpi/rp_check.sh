#!/bin/sh
# Checks of librevprof run by CTest through mpiexec (tests/mpi/revprof.cmake).
# Environment: RP_MPIEXEC (launcher), RP_MPIFLAGS (e.g. --oversubscribe),
# RP_WORK (a scratch directory for this test), RP_LIB (librevprof.so),
# RP_MODEL (the exactness model).
#   rp_check.sh compare NATIVE_EXE REVPROF_EXE NP [multiple|real|sample]
#   rp_check.sh preload NATIVE_EXE NP
#   rp_check.sh other-mpi NATIVE_EXE FAKE_LIB   a library of another MPI
#                                             family loaded: stopped
#   rp_check.sh exact EXE NP [multiple]       "multiple": the program asks
#                                             for MPI_THREAD_MULTIPLE
#   rp_check.sh threads EXE NP                two threads in MPI at once:
#                                             data right, report says so
#   rp_check.sh wildcard EXE NP [VARIANT]     wildcard receives decided in
#                                             predicted time (rp_wildcard.c;
#                                             VARIANT probe iprobe waitany testany
#                                             waitsome testsome cycle real flood
#                                             cancel exchange)
#   rp_check.sh sample EXE NP VARIANT         sample mode (rp_sample.c;
#                                             VARIANT count-all count-random
#                                             count-counter delay burst bad
#                                             set partitioned drift coll
#                                             edges)
#   rp_check.sh rma-exact EXE NP              one-sided rules, exactly
#   rp_check.sh io-exact EXE NP               MPI-IO rules, exactly; then
#                                             with no I/O rows: not predicted
#   rp_check.sh fault KIND NATIVE_EXE NP      KIND: missing-model broken-model
#                                             lacking-function broken-lua
#                                             bad-mode
#   rp_check.sh early MODE EXE NP             MODE: abort exit segv term
#                                             kill (the last checkpoint)
#   rp_check.sh checkpoint EXE NP             checkpoints gone after a
#                                             normal end; off when asked
#   rp_check.sh measure EXE NP                REVPROF_COMPUTE=measure
#   rp_check.sh auto WHAT EXE NP              REVPROF_COMPUTE unset (auto) on
#                                             rp_compute.c's WHAT
#   rp_check.sh run-early TOOL EXE NP        revprof run on a rank's SIGSEGV
#   rp_check.sh intercomm EXE NP             inter-communicator collectives
#   rp_check.sh run-bad TOOL                 run/sweep on a missing program,
#                                             run on one that starts no MPI
#   rp_check.sh run-nomodel TOOL EXE         revprof run without a model
#   rp_check.sh trace-kill TOOL EXE NP       traces of a rank's SIGKILL
#   rp_check.sh fortran-exact EXE NP [preload]  Fortran ping-pong exact
#   rp_check.sh fortran-compare EXE NP        mpif.h program, same output
#   rp_check.sh fortran-count EXE             mpi_f08 large counts (MPI-4)
#   rp_check.sh compensate NATIVE_EXE RP_EXE NP   compensate mode recovers
#                                             an injected overhead
#   rp_check.sh comp-rooted EXE NP            compensate mode: delays
#                                             through collectives, both
#                                             parallel rules
#   rp_check.sh now-modes RP_EXE              revprof_now: the simulated
#                                             clock in predict mode, 0 in
#                                             compensate and sample modes
#   rp_check.sh finstrument NATIVE_EXE FI_EXE   functions as regions
#   rp_check.sh overhead-model NATIVE_EXE RP_EXE  per-event costs from a model
#   rp_check.sh cost-throttle NATIVE RP_EXE   REVPROF_MAX_OVERHEAD turns
#                                             mcpi's tiny regions off
#   rp_check.sh cost-modes RP_EXE             the cost model's counters in
#                                             predict, compensate, sample
#   rp_check.sh cost-sample RP_EXE            REVPROF_MAX_OVERHEAD lowers
#                                             the sampling rate
#   rp_check.sh dry-cost TOOL EXE             revprof run --dry-cost
#   rp_check.sh extrapolated EXE NP           uses outside a model's measured
#                                             range are counted in the report
#   rp_check.sh oversub NATIVE_EXE            more ranks than cores: flagged
#   rp_check.sh host-busy NATIVE_EXE          a busy process beside the rank:
#                                             flagged
#   rp_check.sh wildcard-stress BENCH BUILD  bench/wildcard-stress.sh runs
#   rp_check.sh monitor WHAT ...              online monitoring (issue 12):
#                                             semantics NATIVE RP, rounds
#                                             BSPBENCH, lossy BSPBENCH, auto
#                                             BSPBENCH,
#                                             fortran EXE, late EXE,
#                                             probe TOOL,
#                                             bad TOOL EXE
set -u
cmd=$1; shift
fail() { echo "rp_check $cmd: FAIL: $*" >&2; exit 1; }
run() { # np, then the command; stdout to $RP_WORK/out, stderr to $RP_WORK/err
  np=$1; shift
  # shellcheck disable=SC2086
  $RP_MPIEXEC $RP_MPIFLAGS -n "$np" "$@" > "$RP_WORK/out" 2> "$RP_WORK/err"
}
# flag_seen MODE KEY TEXT: the run's report in MODE (predict: report.txt
# and report.csv; compensate: compensate.txt and compensate.csv) has flag
# KEY in the text's header, its words starting with TEXT (a grep pattern),
# and in the CSV; else prints what it has and returns 1.
flag_seen() {
  case $1 in
    predict) txt=revprof-out/report.txt csv=revprof-out/report.csv
      line="^flags,all,\\([^,]*;\\)*$2[;,]" ;;
    *) txt=revprof-out/compensate.txt csv=revprof-out/compensate.csv
      line="^all,\"(flag) $2: " ;;
  esac
  sed '/^$/q' "$txt" | grep -q "^  $2: $3" || { sed '/^$/q' "$txt"; return 1; }
  grep -q "$line" "$csv" || { cat "$csv"; return 1; }
}
# An exactness program (np and exe of the case) run again with the model
# file $1 of $RP_WORK and the argument $2 must print "$3: NP ranks, 0
# mismatches" (REVPROF_* settings of the variant exported by the caller).
exact_with() {
  rm -rf revprof-out
  REVPROF_MODEL=$RP_WORK/$1 REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
    REVPROF_COMPUTE=annotate run "$np" "$exe" "$2" || { cat out err; fail "run with $1 failed"; }
  cat out
  grep -q "^$3: $np ranks, 0 mismatches" out || { cat err; fail "clocks differ with $1"; }
}
rm -rf "$RP_WORK" && mkdir -p "$RP_WORK" || fail "cannot create $RP_WORK"
cd "$RP_WORK" || exit 1
export REVPROF_OUTPUT_DIR="$RP_WORK/revprof-out"

case $cmd in
compare)
  native=$1 rp=$2 np=$3
  # "multiple": the program asks for MPI_THREAD_MULTIPLE; "real": wildcards
  # take the MPI's order (REVPROF_WILDCARD=real)
  [ "${4:-}" = multiple ] && export RP_THREAD_MULTIPLE=1
  [ "${4:-}" = real ] && export REVPROF_WILDCARD=real
  # "sample": sample mode, every message stamped and written
  [ "${4:-}" = sample ] && export REVPROF_MODE=sample REVPROF_SAMPLE=all REVPROF_ANALYSIS=stat,freq,write
  REVPROF_MODEL=$RP_MODEL run "$np" env REVPROF_MODE=off "$native" || { cat err; fail "native run failed"; }
  mv out native.out
  mv err native.err
  REVPROF_MODEL=$RP_MODEL run "$np" "$rp" || { cat out err; fail "revprof run failed"; }
  mv out revprof.out
  diff native.out revprof.out > diff.txt || { cat diff.txt; fail "outputs differ"; }
  grep -q ", 0 failed checks" revprof.out || fail "checks failed"
  # what the MPI says of leaked objects (MPICH: cancelled receives) is the
  # program's own, not revprof's
  grep -i "leaked" native.err > native.leaks || true
  grep -i "leaked" err > revprof.leaks || true
  diff native.leaks revprof.leaks > diff.txt || { cat diff.txt; fail "the MPI's leak warnings differ"; }
  if [ "${4:-}" = sample ]; then
    grep -q "^messages: *[1-9][0-9]* sent, [1-9][0-9]* sampled (100.00 %)" revprof-out/sample.txt \
      || { cat revprof-out/sample.txt err; fail "sample.txt"; }
    # every stamp reached its receiver: probed (MPI_Mrecv), on a freed
    # communicator, by Sendrecv_replace, ... (a stamp left behind would
    # also pair with the wrong message later)
    sed -n 's/^messages: *[0-9]* sent, \([0-9]*\) sampled .*, \([0-9]*\) received with a stamp.*/\1 \2/p' \
      revprof-out/sample.txt | awk 'NR == 1 { ok = $1 == $2 } END { exit !ok }' \
      || { cat revprof-out/sample.txt; fail "stamps sent and received differ"; }
    test -s revprof-out/latency.csv || fail "no latency.csv"
    echo "compare (sample mode): $np ranks, identical outputs"
    exit 0
  fi
  grep -q "predicted elapsed time" err || { cat err; fail "no report on stderr"; }
  test -s revprof-out/report.txt && test -s revprof-out/report.csv || fail "no report files"
  echo "compare: $np ranks, identical outputs"
  ;;
threads)
  exe=$1 np=$2
  run "$np" "$exe"; rc=$?
  if grep -q "not provided" out; then cat out; exit 77; fi
  [ $rc -eq 0 ] && grep -q ", 0 failed checks" out || { cat out err; fail "native run failed"; }
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "predict run failed"; }
  grep -q ", 0 failed checks" out || { cat out err; fail "predict: the program's checks failed"; }
  grep -q "not supported" err && { cat err; fail "revprof turned itself off"; }
  r=revprof-out/report.txt
  test -s $r || { cat err; fail "no report.txt"; }
  head -n 1 $r | grep -q "(OFF)\|NOT PREDICTED" && { head $r; fail "report marked off"; }
  grep -q "^  thread-order: MPI_THREAD_MULTIPLE: [0-9]* MPI calls .*began while another thread" $r || { head -n 20 $r; fail "report.txt lacks the thread-order flag"; }
  grep -q '^flag,all,"thread-order: ' revprof-out/report.csv || { grep flag revprof-out/report.csv; fail "report.csv lacks the thread-order flag"; }
  grep -q "^MPI_Recv " $r || fail "no MPI_Recv row"
  awk -F, '$1 == "elapsed" && $7 > 0 { ok = 1 } END { exit !ok }' revprof-out/report.csv || { grep elapsed revprof-out/report.csv; fail "no predicted time"; }
  head -n 12 $r
  rm -rf revprof-out
  REVPROF_MODE=compensate run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "compensate run failed"; }
  grep -q ", 0 failed checks" out || { cat out err; fail "compensate: the program's checks failed"; }
  grep -q "^thread-profile: MPI_THREAD_MULTIPLE" revprof-out/compensate.txt || { head revprof-out/compensate.txt; fail "compensate.txt does not say other threads are left out"; }
  grep -q '^all,"(flag) thread-profile' revprof-out/compensate.csv || { head -3 revprof-out/compensate.csv; fail "compensate.csv lacks the flag"; }
  echo "threads: $np ranks, data right in predict and compensate, reports say so"
  ;;
preload)
  native=$1 np=$2
  run "$np" "$native" || { cat err; fail "native run failed"; }
  mv out native.out
  test -s revprof-out/report.txt && fail "native run wrote a report"
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$native" || { cat out err; fail "preloaded run failed"; }
  mv out preload.out
  diff native.out preload.out > diff.txt || { cat diff.txt; fail "outputs differ"; }
  grep -q "MPI_Send " revprof-out/report.txt || { cat err; fail "no per-function report from the preloaded run"; }
  grep -q "^elapsed,all,predicted" revprof-out/report.csv || fail "no elapsed row in report.csv"
  grep -q "unknown-variable" revprof-out/report.csv && fail "unknown-variable flag without one"
  # a misspelt variable: said on stderr with the name meant, and flagged
  rm -rf revprof-out
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" REVPROF_MDOE=compensate "$native" || { cat out err; fail "run with REVPROF_MDOE failed"; }
  grep -q "does not know, ignored: REVPROF_MDOE (did you mean REVPROF_MODE?)" err || { cat err; fail "REVPROF_MDOE not said"; }
  grep -q "^flag,all,\"unknown-variable: 1 REVPROF_\* variable(s) that revprof does not know, ignored: REVPROF_MDOE (did you mean REVPROF_MODE?)\",$np," revprof-out/report.csv \
    || { grep flag revprof-out/report.csv; fail "REVPROF_MDOE not flagged in report.csv"; }
  echo "preload: $np ranks, identical outputs, report written; a misspelt variable said and flagged"
  ;;
exact)
  exe=$1 np=$2
  [ "${3:-}" = multiple ] && export RP_THREAD_MULTIPLE=1
  REVPROF_MODEL=$RP_MODEL REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
    REVPROF_COMPUTE=annotate REVPROF_LUA=$(dirname "$RP_MODEL")/rp_exact_costs.lua \
    run "$np" "$exe" || { cat out err; fail "exact run failed"; }
  cat out
  grep -q ", 0 mismatches" out || fail "clocks differ from the analytic values"
  exp=$(sed -n 's/^expected elapsed //p' out)
  got=$(awk -F, '$1 == "elapsed" { print $6, $7, $8 }' revprof-out/report.csv)
  echo "expected elapsed: $exp"
  echo "report.csv:       $got"
  echo "$exp $got" | awk '{ for (i = 1; i <= 3; i++) { d = $i - $(i + 3); if (d < 0) d = -d; if (d > 1e-9) exit 1 } }' \
    || fail "report.csv elapsed differs from the analytic value"
  # every call has its rule (persistent collectives and partitioned too)
  grep -q "not-predicted" revprof-out/report.txt && { head revprof-out/report.txt; fail "calls reported as not predicted"; }
  # each rank's one Lua region call is an event of the instrumentation
  # cost (the first call timed), left out of the prediction at the start
  awk -F, -v np="$np" '$2 == "lua" { n++; if ($3 != 1 || !($4 > 0) || $14 != "timed-calls") bad = 1 }
       END { exit bad || n != np }' revprof-out/cost.csv || { cat revprof-out/cost.csv; fail "the Lua region calls not in cost.csv"; }
  grep -q "^revprof: instrumentation cost predicted .*left out until their first events are timed: Lua regions" err \
    || { cat err; fail "the prediction does not say it left the Lua regions out"; }
  if [ "${3:-}" != multiple ]; then
    # with that run's cost.csv the Lua regions have their cost from the start
    cp revprof-out/cost.csv previous-cost.csv
    REVPROF_COST_PROFILE=$PWD/previous-cost.csv REVPROF_MODEL=$RP_MODEL REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
      REVPROF_COMPUTE=annotate REVPROF_LUA=$(dirname "$RP_MODEL")/rp_exact_costs.lua \
      run "$np" "$exe" || { cat out err; fail "exact run with a cost profile failed"; }
    grep -q ", 0 mismatches" out || fail "cost profile: clocks differ from the analytic values"
    grep -q "^revprof: instrumentation cost predicted .*previous-cost.csv, and its timed costs of the kinds not known before their events" err \
      || { cat err; fail "the previous run's Lua cost not taken"; }
    grep -q "left out until their first events" err && { cat err; fail "Lua regions still left out with a cost profile"; }
    # with the rows of a member's own part of a rooted call: a broadcast's
    # root pays bcast_root, its others max(own + bcast_late, root + T), a
    # reduction's non-roots reduce_late
    sed 's/^    MPI_Reduce = lin/    bcast_root = lin(2e-6, 1e-10, 1e-6, 5e-11, 4e-6, 2e-10),\n    bcast_late = lin(1e-6, 5e-10, 5e-7, 2.5e-10, 2e-6, 1e-9),\n    reduce_late = lin(1.5e-6, 2e-10, 7.5e-7, 1e-10, 3e-6, 4e-10),\n&/' "$RP_MODEL" > rooted.lua
    [ "$(grep -c '^    \(bcast_root\|bcast_late\|reduce_late\) = lin' rooted.lua)" = 3 ] || fail "could not add the rooted rows"
    REVPROF_LUA=$(dirname "$RP_MODEL")/rp_exact_costs.lua exact_with rooted.lua rooted exact
  fi
  if [ "$np" -ge 3 ] && [ "${3:-}" = multiple ]; then
    # threads: the MPI matches wildcards, in the host's order, and says so
    grep -q "wildcard order: 2 then 1" out || fail "the wildcard phase did not match 2 first (timing)"
    awk -F, '$1 == "wildcard" && $3 == "suspicious" && $4 >= 1 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
      || fail "the wildcard receive against the predicted order was not reported"
    grep -q "predicted arrival order would have matched another sender: [1-9]" err || fail "no wildcard warning in the text report"
    grep -q "wildcard-real: .*MPI_THREAD_MULTIPLE" revprof-out/report.txt || { head revprof-out/report.txt; fail "no wildcard-real flag"; }
  elif [ "$np" -ge 3 ]; then
    grep -q "wildcard order: 1 then 2" out || fail "the wildcard phase did not match the predicted first (rank 1) first"
    awk -F, '$1 == "wildcard" && $3 == "suspicious" && $4 == 0 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
      || fail "suspicious wildcard receives counted in predicted order"
  fi
  ;;
p2p-exact)
  exe=$1 np=$2
  model=$(dirname "$RP_MODEL")/rp_exact_p2p_model.lua
  REVPROF_MODEL=$model REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
    REVPROF_COMPUTE=annotate run "$np" "$exe" || { cat out err; fail "run failed"; }
  cat out
  grep -q "^p2p exact: $np ranks, 0 mismatches" out || { cat err; fail "clocks differ from the analytic values"; }
  grep -q "no-overlap-rows" revprof-out/report.txt && fail "the model's gap row was not used"
  # the rendezvous rule costed 3 MPI_Ssend and the MPI_Issend: the
  # MPI_Ssend_init and the MPI_Ssend after 4100 tags are flagged
  grep -q "^rendezvous,all,costed,4," revprof-out/report.csv || { grep rendezvous revprof-out/report.csv; fail "report.csv does not count the 4 synchronous sends of the rendezvous rule"; }
  flag_seen predict synchronous-send "2 synchronous send call(s) costed as standard sends" \
    || fail "MPI_Ssend_init and the last MPI_Ssend not flagged, or the rule's sends flagged too"
  # and the MPI_Send and MPI_Isend at the model's eager limit, none left
  grep -q "^rendezvous,all,standard,2," revprof-out/report.csv || { grep rendezvous revprof-out/report.csv; fail "report.csv does not count the 2 standard sends of the rendezvous rule"; }
  grep -q "^rendezvous,all,eager-limit 524288 B," revprof-out/report.csv || { grep rendezvous revprof-out/report.csv; fail "report.csv does not give the model's eager limit"; }
  grep -q "eager-guess" revprof-out/report.txt && { head revprof-out/report.txt; fail "an eager-guess flag where the rule costed every send"; }
  if [ "$np" -ge 3 ]; then
    # the Waitany phase is decided in predicted time (rp_match.c): no flag
    grep -q "any-order" revprof-out/report.txt && { head -20 revprof-out/report.txt; fail "an any-order flag for a Waitany decided in predicted time"; }
    awk -F, '$1 == "wildcard" && $3 == "decided" && $4 >= 1 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
      || { grep wildcard revprof-out/report.csv; fail "the Waitany was not decided in predicted time"; }
    # where the MPI decides (REVPROF_WILDCARD=real), among the receives it
    # completed, the one first in predicted time, and the report says so
    rm -rf revprof-out
    REVPROF_WILDCARD=real REVPROF_MODEL=$model REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
      REVPROF_COMPUTE=annotate run "$np" "$exe" || { cat out err; fail "run with REVPROF_WILDCARD=real failed"; }
    grep -q "^p2p exact: $np ranks, 0 mismatches" out || { cat out err; fail "clocks differ with REVPROF_WILDCARD=real"; }
    grep -q "any-order: 1 MPI_Waitany" revprof-out/report.txt || { head -20 revprof-out/report.txt; fail "no any-order flag for the Waitany phase"; }
    # no published posts there: the six synchronous send calls (4
    # MPI_Ssend, an MPI_Issend, an MPI_Ssend_init) are standard sends, said
    flag_seen predict synchronous-send "6 synchronous send call(s) costed as standard sends" \
      || fail "MPI_Ssend without the rendezvous rule not flagged"
    flag_seen predict eager-guess "2 standard send(s) of 524288 B or more" \
      || fail "the sends at the eager limit without the rendezvous rule not flagged"
  fi
  # with the post row: each non-blocking receive costs its rank T_post(d)
  # as it is posted
  sed 's/^    MPI_Wait = lin/    post = lin(1e-7, 2e-12, 5e-8, 1e-12, 2e-7, 4e-12),\n&/' "$model" > post.lua
  grep -q "^    post = lin" post.lua || fail "could not add the post row"
  exact_with post.lua post "p2p exact (post row)"
  # with gap_all (REVPROF_CONTENTION's default, epoch): the messages of the
  # exchanges drain at the load of the whole world, no others; with
  # REVPROF_CONTENTION=off none does
  sed 's/^    MPI_Wait = lin/    gap_all = { range = { p = { 2, 16 }, d = { 0, 1048576 } }, { dmin = 0, n = 0, form = { "1", "p*d" }, avg = { 1e-6, 6e-10 }, min = { 5e-7, 3e-10 }, max = { 2e-6, 1.2e-9 } } },\n&/' "$model" > load.lua
  grep -q "^    gap_all = " load.lua || fail "could not add the gap_all row"
  exact_with load.lua load "p2p exact (load)"
  grep -q "^settings: .* REVPROF_CONTENTION=epoch" revprof-out/report.txt \
    || { grep "^settings" revprof-out/report.txt; fail "the settings line does not say REVPROF_CONTENTION=epoch"; }
  export REVPROF_CONTENTION=off
  exact_with load.lua plain "p2p exact"
  unset REVPROF_CONTENTION
  grep -q "^settings: .* REVPROF_CONTENTION=off" revprof-out/report.txt \
    || { grep "^settings" revprof-out/report.txt; fail "the settings line does not say REVPROF_CONTENTION=off"; }
  # with the MPI_Sendrecv row too and REVPROF_EXCHANGE=sendrecv: the
  # exchanges' messages from the eager limit on travel no shorter than
  # T_Sendrecv(d) - o(d), with the load and without
  # (REVPROF_CONTENTION=off); by default (latency) the row changes nothing
  sed 's/^    MPI_Wait = lin/    MPI_Sendrecv = lin(2e-5, 4e-9, 1e-5, 2e-9, 4e-5, 8e-9),\n&/' load.lua > pair.lua
  grep -q "^    MPI_Sendrecv = lin" pair.lua || fail "could not add the MPI_Sendrecv row"
  exact_with pair.lua pair-latency "p2p exact (pair)"
  export REVPROF_EXCHANGE=sendrecv
  exact_with pair.lua pair "p2p exact (pair)"
  grep -q "^settings: .* REVPROF_EXCHANGE=sendrecv" revprof-out/report.txt \
    || { grep "^settings" revprof-out/report.txt; fail "the settings line does not say REVPROF_EXCHANGE=sendrecv"; }
  export REVPROF_CONTENTION=off
  exact_with pair.lua pair-off "p2p exact (pair)"
  unset REVPROF_CONTENTION REVPROF_EXCHANGE
  # without the gap and MPI_Wait rows (a format-1 model): the old rule, and
  # the report says the receives were not overlapped
  sed '/^    MPI_Wait = /d; /^    gap = {/,/^    },/d' "$model" > old.lua
  grep -q "^    gap = \|^    MPI_Wait = " old.lua && fail "could not remove the rows"
  rm -rf revprof-out
  REVPROF_MODEL=$RP_WORK/old.lua REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
    REVPROF_COMPUTE=annotate run "$np" "$exe" old || { cat out err; fail "run with the old rule failed"; }
  cat out
  grep -q "^p2p exact (old rule): $np ranks, 0 mismatches" out || { cat err; fail "old-rule clocks differ"; }
  grep -q "no-overlap-rows" revprof-out/report.txt || { head -20 revprof-out/report.txt; fail "no no-overlap-rows flag without the gap row"; }
  # its MPI_Isend at the eager limit cannot wait (no gap row): flagged
  flag_seen predict eager-guess "1 standard send(s) of 524288 B or more" \
    || fail "the MPI_Isend at the eager limit without the gap row not flagged"
  grep -q "^flags,.*no-overlap-rows" revprof-out/report.csv \
    || { grep flag revprof-out/report.csv; fail "no no-overlap-rows flag in report.csv"; }
  # compensate and sample modes cost no messages (their model only lends
  # its overhead table): their reports must not say it lacks the overlap
  # rows, as they did of the halos' Waitalls before
  for mode in compensate sample; do
    rm -rf revprof-out
    REVPROF_MODE=$mode REVPROF_MODEL=$model run "$np" "$exe" || { cat out err; fail "$mode run failed"; }
    f=revprof-out/$mode.txt
    test -s "$f" || { cat err; fail "$mode mode wrote no $f"; }
    grep -q "no-overlap-rows" "$f" && { grep -A3 "^flags" "$f"; fail "$mode mode: a no-overlap-rows flag"; }
  done
  ;;
wildcard)
  exe=$1 np=$2 v=${3:-}
  model=$(dirname "$RP_MODEL")/rp_exact_p2p_model.lua
  [ "$v" = real ] && export REVPROF_WILDCARD=real
  [ "$v" = stall ] && export REVPROF_WILDCARD_STALL=1
  # a rank descheduled inside MPI on this loaded host must not time out a
  # decision: the test asserts that none was needed
  export REVPROF_WILDCARD_TIMEOUT=10
  REVPROF_MODEL=$model REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
    REVPROF_COMPUTE=annotate run "$np" "$exe" $v || { cat out err; fail "run failed"; }
  cat out
  rep=revprof-out/report.txt csv=revprof-out/report.csv
  decided=$(awk -F, '$1 == "wildcard" && $3 == "decided" { print $4 }' $csv)
  if [ "$v" = cancel ]; then
    # a cancelled send is not waited for (where the MPI can cancel sends)
    grep -q "^wildcard cancel: send .*, 0 mismatches" out || { cat out err; fail "cancel"; }
  elif [ "$v" = sendrecv ] || [ "$v" = waitrecv ] || [ "$v" = waitallrecv ]; then
    # a rank inside MPI_Sendrecv (MPI_Wait, MPI_Waitall), its receive
    # waiting on a rank blocked on the decider, cannot send first: decided
    # at once (each took the 10 s time-out when such a rank counted as
    # able to send)
    grep -q "^wildcard $v: $np ranks, 0 mismatches" out || { cat out err; fail "$v: data"; }
    [ "${decided:-0}" = 1 ] || { grep wildcard $csv; fail "$v: ${decided:-no} receive decided in predicted time, expected 1"; }
    awk -F, '$1 == "wildcard" && $3 == "timeouts" && $4 == 0 { ok = 1 } END { exit !ok }' $csv || { grep wildcard $csv; fail "$v: a time-out"; }
  elif [ "$v" = stall ]; then
    # rank 1 sleeps 2.5 s before it sends: rank 0's wildcard receive says
    # after 1 s that it waits, once, with what the others do
    grep -q "^wildcard stall: $np ranks, 0 mismatches" out || { cat out err; fail "stall: data"; }
    n=$(grep -c "has waited [0-9]* s: it knows no message it may take; the ranks of MPI_COMM_WORLD: 1 running the program" err)
    [ "$n" = 1 ] || { cat err; fail "stall: $n notices of the wait, expected 1"; }
    if [ "$np" -ge 3 ]; then
      grep -q "has waited .*; 2 in a receive from rank 0" err || { cat err; fail "stall: rank 2's state"; }
    fi
    [ "${decided:-0}" = 1 ] || fail "stall: ${decided:-no} receive decided in predicted time, expected 1"
    rm -rf revprof-out
    REVPROF_WILDCARD_STALL=0 REVPROF_MODEL=$model REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
      REVPROF_COMPUTE=annotate run "$np" "$exe" stall || { cat out err; fail "run with REVPROF_WILDCARD_STALL=0 failed"; }
    grep -q "has waited" err && { cat err; fail "a notice with REVPROF_WILDCARD_STALL=0"; }
  elif [ "$v" = exchange ]; then
    # pairs exchanging rendezvous-sized messages from wildcard receives
    # posted first: data right and no deadlock (each in MPI_Recv for the
    # other's logged but unsent message hung every run at 2 ranks before)
    grep -q "^wildcard exchange: $np ranks, 300 exchanges, 0 mismatches" out || { cat out err; fail "exchange"; }
  elif [ "$v" = defer ]; then
    # the data and MPI's order; some of these take the MPI's order, by design
    grep -q "^wildcard defer: $np ranks, 0 mismatches" out || { cat out err; fail "defer"; }
  elif [ "$v" = flood ]; then
    # more messages under way than the sender's log keeps: the first ones
    # go by the MPI's order (data in order), counted and flagged
    grep -q "^wildcard flood: 1100 messages, 0 mismatches" out || { cat out err; fail "flood data wrong"; }
    grep -q "wildcard-real: .*more messages under way" $rep || { head $rep; fail "no wildcard-real flag for the lost log"; }
    real=$(awk -F, '$1 == "wildcard" && $3 == "real-order" { print $4 }' $csv)
    [ "${real:-0}" -ge 1 ] && [ "${decided:-0}" -ge 1 ] || fail "flood: ${real:-none} left to the MPI, ${decided:-none} decided"
  elif [ "$v" = real ]; then
    # the host's order: data still right, and the report says whose order
    grep -q "^wildcard exact (real): $np ranks, 20 rounds, 0 mismatches" out || { cat err; fail "data wrong with REVPROF_WILDCARD=real"; }
    sed -n '1,/^model:/p' $rep | grep -q "wildcard-real: .*REVPROF_WILDCARD=real" || { head $rep; fail "no wildcard-real flag in the first lines"; }
    grep -q "^flags,.*wildcard-real" $csv || { grep flag $csv; fail "no wildcard-real flag in report.csv"; }
    [ "$decided" = 0 ] || fail "$decided receives decided in predicted time with REVPROF_WILDCARD=real"
  else
    grep -q "^wildcard exact: $np ranks, 20 rounds, 0 mismatches; schedule is the predicted one in every round" out || { cat err; fail "schedule or clocks differ from the paper's"; }
    grep -q "^flags,.*wildcard" $csv && { grep flag $csv; fail "a wildcard flag on a run decided exactly"; }
    # every result of the 20 rounds (waitany: but each round's last, when
    # one receive is left and there is nothing to decide)
    least=$((20 * 3 * (np - 1)))
    case $v in waitany | testany | waitsome | testsome) least=$((least - 20)) ;; esac
    [ "${decided:-0}" -ge "$least" ] || fail "only ${decided:-none} wildcard matches decided in predicted time"
    awk -F, '$1 == "wildcard" && $3 == "timeouts" && $4 == 0 { ok = 1 } END { exit !ok }' $csv || { grep wildcard $csv; fail "time-outs in report.csv"; }
    grep -q "^wildcard matches decided in predicted time: $decided exactly, 0 after a time-out" $rep || { grep wildcard $rep; fail "report.txt's wildcard line"; }
  fi
  ;;
wildcard-stress)
  # bench/wildcard-stress.sh: its usage errors, then two cases run twice
  # each under its per-rank jitter, every run with the data right
  bench=$1 build=$2
  bash "$bench" --runs 0 "$build" > out 2> err
  rc=$?
  [ "$rc" = 2 ] && grep -q "positive whole number, not '0'" err || { cat out err; fail "--runs 0 gave $rc"; }
  bash "$bench" --cases 4:exchange:x "$build" > out 2> err
  rc=$?
  [ "$rc" = 2 ] && grep -q "unknown variant 'exchange:x'" err || { cat out err; fail "a bad variant gave $rc"; }
  MPIEXEC=$RP_MPIEXEC bash "$bench" --runs 2 --hang 200 --cases 2:exchange,3:plain "$build" > out 2> err ||
    { cat out err; fail "a run hung, failed or received wrong data"; }
  cat out
  grep -Eq '^2 +exchange +2 +2 +0 +0 +0 +[0-9.]+$' out || fail "no good row for 2:exchange"
  grep -Eq '^3 +plain +2 +2 +0 +0 +0 +[0-9.]+$' out || fail "no good row for 3:plain"
  ;;
sample)
  exe=$1 np=$2 v=$3
  export REVPROF_MODE=sample
  st=revprof-out/sample.txt lc=revprof-out/latency.csv
  # total of a latency.csv column (by name) over the rows
  # calls.csv: only the four send calls of the count pattern, each with
  # its size class and model row, histograms adding up; $1 > 0: each kind
  # counted $1 times; $2: the counts' total
  calls_rows() {
    awk -F, -v q="$1" -v tot="$2" '/^#/ || /^call,/ { next }
      $1 == "MPI_Send" && $2 == "MPI_Send" && $4 == 4 { k["s"] += $8 }
      $1 == "MPI_Isend" && $2 == "MPI_Isend" && $4 == 11 { k["i"] += $8 }
      $1 == "MPI_Startall" && $2 == "MPI_Isend" && $4 == 7 { k["p"] += $8 }
      $1 == "MPI_Sendrecv" && $2 == "MPI_Sendrecv" && $4 == 5 { k["r"] += $8 }
      { t += $8; h = 0; for (j = 13; j <= NF; j++) h += $j; if (h != $8 || $10 < 0 || $10 > $11) bad = 1 }
      END { u = k["s"] + k["i"] + k["p"] + k["r"]; if (u != t || t != tot) bad = 1
            if (q > 0 && (k["s"] != q || k["i"] != q || k["p"] != q || k["r"] != q)) bad = 1
            exit bad }' revprof-out/calls.csv
  }
  col() { awk -F, -v name="$1" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == name) c = i; h = 1; next } { s += $c } END { print s + 0 }' $lc; }
  case $v in
  count-all | count-random | count-counter | count-timer | set)
    if [ "$v" = count-all ]; then
      export REVPROF_SAMPLE=all REVPROF_ANALYSIS=stat,freq,write
      run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || { cat out err; fail "run failed"; }
    elif [ "$v" = count-counter ]; then
      export REVPROF_SAMPLE=counter:4
      run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || { cat out err; fail "run failed"; }
    elif [ "$v" = count-timer ]; then
      # a period far below a message's time: every message after each
      # rank's first (which starts its timer)
      export REVPROF_SAMPLE=timer:1e-9
      run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || { cat out err; fail "run failed"; }
    elif [ "$v" = set ]; then
      export REVPROF_SAMPLE=off
      run "$np" "$exe" set || { cat out err; fail "run failed"; }
    else
      export REVPROF_SAMPLE=random:0.5
      run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || { cat out err; fail "run failed"; }
    fi
    cat out
    n=$(sed -n 's/^sample count: [0-9]* ranks, \([0-9]*\) messages, 0 bad$/\1/p' out)
    [ -n "$n" ] || { cat out err; fail "the program's data"; }
    test -s $st && test -s $lc || { cat err; fail "no sample.txt or latency.csv"; }
    sent=$(sed -n 's/^messages: *\([0-9]*\) sent, .*/\1/p' $st)
    got=$(sed -n 's/^messages: *[0-9]* sent, \([0-9]*\) sampled.*/\1/p' $st)
    [ "$sent" = "$n" ] || { cat $st; fail "$sent messages seen, the program sent $n"; }
    counted=$(col count)
    [ "$counted" = "$got" ] || { cat $st; fail "latency.csv counts $counted samples, sample.txt $got"; }
    case $v in
    count-all)
      [ "$got" = "$n" ] || { cat $st; fail "all: $got of $n sampled"; }
      w=$(cat revprof-out/samples.rank*.csv | grep -vc '^src,')
      [ "$w" = "$n" ] || fail "samples.rank*.csv hold $w samples, not $n"
      # each rank hears only its left neighbour; histograms add up
      awk -F, -v p="$np" '/^#/ || /^src,/ { next } { if (($1 + 1) % p != $2) bad = 1; h = 0; for (i = 14; i <= NF; i++) h += $i; if (h != $9 || $11 <= 0 || $11 > $12 || $10 < $11 || $10 > $12) bad = 1 } END { exit bad }' $lc \
        || { cat $lc; fail "latency.csv rows"; }
      # the send calls' own time: every MPI_Send (8 B, class 4), MPI_Isend
      # (1 KiB, class 11), persistent send started by MPI_Startall (64 B,
      # class 7, costed as MPI_Isend) and MPI_Sendrecv (16 B, class 5)
      # timed once, nothing else, histograms adding up
      calls_rows "$((n / 4))" "$n" \
        || { cat revprof-out/calls.csv; fail "calls.csv rows (want $((n / 4)) of MPI_Send, MPI_Isend, MPI_Startall, MPI_Sendrecv)"; }
      # the plot, where gnuplot is
      if command -v gnuplot > /dev/null; then
        grep -q "latency.png, drawn" $st && test -s revprof-out/latency.png \
          || { cat $st revprof-out/latency.gp.log; fail "latency.png not drawn"; }
      else
        grep -q "latency.png, not drawn" $st || { cat $st; fail "sample.txt does not say the plot is missing"; }
      fi ;;
    count-random)
      # binomial: within 5 standard deviations of n / 2
      awk -v k="$got" -v n="$n" 'BEGIN { d = k - n / 2; if (d < 0) d = -d; exit !(d <= 5 * sqrt(n / 4)) }' \
        || fail "random:0.5 sampled $got of $n"
      # each sampled message's send call timed once, whatever its kind
      # (an unsampled send after a sampled one times nothing)
      calls_rows 0 "$got" \
        || { cat revprof-out/calls.csv; fail "calls.csv does not time the $got sampled messages' send calls once each"; }
      cp $st first.txt
      rm -rf revprof-out
      REVPROF_GNUPLOT= run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || fail "second run failed"
      grep -q "latency.png, not drawn (REVPROF_GNUPLOT is empty)" $st || { cat $st; fail "REVPROF_GNUPLOT empty"; }
      test -e revprof-out/latency.png && fail "latency.png drawn with REVPROF_GNUPLOT empty"
      again=$(sed -n 's/^messages: *[0-9]* sent, \([0-9]*\) sampled.*/\1/p' $st)
      [ "$again" = "$got" ] || fail "the same seed sampled $got, then $again" ;;
    count-counter)
      # every 4th message of each rank, the unsampled ones marked without
      # the sampler (rp_sample_out): a quarter of each of the four phases
      # of ROUNDS (a multiple of 4) messages, exactly
      [ "$got" = $((n / 4)) ] || { cat $st; fail "counter:4 sampled $got of $n, expected $((n / 4))"; }
      calls_rows "$((n / 16))" "$((n / 4))" \
        || { cat revprof-out/calls.csv; fail "calls.csv does not hold $((n / 16)) timed calls of each send kind"; } ;;
    count-timer)
      [ "$got" = $((n - np)) ] || { cat $st; fail "timer:1e-9 sampled $got of $n, expected $((n - np)) (all but each rank's first)"; }
      # a period far beyond the run: none
      rm -rf revprof-out
      REVPROF_SAMPLE=timer:1000 run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || { cat out err; fail "timer:1000 run failed"; }
      got=$(sed -n 's/^messages: *[0-9]* sent, \([0-9]*\) sampled.*/\1/p' $st)
      [ "$got" = 0 ] || { cat $st; fail "timer:1000 sampled $got of $n, expected 0"; } ;;
    set)
      [ "$got" = $((n * 3 / 4)) ] || { cat $st; fail "revprof_sample_set: $got of $n sampled, expected $((n * 3 / 4))" ; } ;;
    esac
    echo "sample $v: $got of $n messages sampled" ;;
  edges)
    # every message sampled: the self-message's and the probed one's stamps
    # received (as many received as sampled), the inter-communicator's not
    # sampled, and the first lines and sample.csv's flags say so
    export REVPROF_SAMPLE=all
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" edges || { cat out err; fail "run failed"; }
    grep -q "^sample edges: $np ranks, 0 bad$" out || { cat out err; fail "the program's data"; }
    sed -n 's/^messages: *\([0-9]*\) sent, \([0-9]*\) sampled .*, \([0-9]*\) received with a stamp.*/\1 \2 \3/p' $st |
      awk -v np="$np" 'NR == 1 { ok = $2 == $3 && $2 == $1 - 2 && $1 == np + 3 } END { exit !ok }' ||
      { cat $st; fail "expected $((np + 3)) messages, the two on the inter-communicator not sampled, every stamp received"; }
    sed '/^$/q' $st | grep -q "^  sample-lost: sampled messages on inter-communicators" ||
      { sed '/^$/q' $st; fail "no sample-lost flag in sample.txt's first lines"; }
    echo "sample edges: stamps on MPI_COMM_SELF and after MPI_Mprobe received, the inter-communicator's flagged"
    ;;
  coll)
    # collectives alone: nothing stamped, and sample.txt's first lines and
    # latency.csv say why, not only that nothing was sampled
    export REVPROF_SAMPLE=all
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" coll || { cat out err; fail "run failed"; }
    cat out
    grep -q "^sample coll: $np ranks, [0-9]* calls, 0 bad$" out || { cat out err; fail "the program's data"; }
    grep -q "^messages: *0 sent, 0 sampled" $st || { cat $st; fail "messages seen in a program of collectives"; }
    head -n 4 $st | grep -q "^warning: *no point-to-point message was sent: sample mode stamps point-to-point messages only" \
      || { cat $st; fail "sample.txt's first lines do not say why nothing was sampled"; }
    grep -q "^# warning: no point-to-point message was sent" $lc || { cat $lc; fail "latency.csv does not say why it is empty"; }
    grep -q "^revprof: warning: no point-to-point message was sent" err || { cat err; fail "the run's last lines do not say why nothing was sampled"; }
    [ "$(grep -vc '^#' $lc)" = 1 ] || { cat $lc; fail "latency.csv has rows"; }
    # more ranks than cores (a 2-core host): the flags speak of the times
    # measured, not of a prediction
    if grep -q "^  oversubscribed:" $st; then
      grep -q "^flags: *[0-9]* (these measurements are degraded" $st \
        || { cat $st; fail "sample mode's flags line speaks of a prediction"; }
      grep -q "^  oversubscribed: .*: the times measured here include the ranks' waits for a core" $st \
        || { cat $st; fail "sample mode's oversubscribed flag speaks of a prediction"; }
    fi
    echo "sample coll: nothing to stamp, said in sample.txt and latency.csv" ;;
  partitioned)
    # MPI 4 partitioned messages are seen and sampled like the others: at
    # "all" every one, each with its latency, in the size class of all
    # its partitions (4 x 64 bytes: class 9); none times a send call
    export REVPROF_SAMPLE=all
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" partitioned || { cat out err; fail "run failed"; }
    cat out
    if grep -q "not available" out; then exit 77; fi
    n=$(sed -n 's/^sample partitioned: [0-9]* ranks, \([0-9]*\) messages, 0 bad$/\1/p' out)
    [ -n "$n" ] || { cat out err; fail "the program's data"; }
    grep -q "^messages: *$n sent, $n sampled (100.00 %), $n received with a stamp" $st \
      || { cat $st; fail "not every one of the $n partitioned messages seen, sampled and received"; }
    [ "$(col count)" = "$n" ] || { cat $lc; fail "latency.csv counts $(col count) samples, not $n"; }
    awk -F, '/^#/ || /^src,/ { next } $5 != 9 || $11 <= 0 { bad = 1 } END { exit bad }' $lc \
      || { cat $lc; fail "latency.csv rows (size class 9, latency > 0)"; }
    calls_rows 0 0 || { cat revprof-out/calls.csv; fail "calls.csv times a send call"; }
    echo "sample partitioned: $n of $n messages sampled" ;;
  delay)
    export REVPROF_SAMPLE=all
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" delay || { cat out err; fail "run failed"; }
    cat out
    # the 3000-byte messages (size class 12) waited >= 20 ms for their
    # receiver: their mean latency is at least half of it (not their
    # minimum: on a loaded host the clock offset measured at MPI_Init can
    # be ms off, seen once at 15 ms under ctest -j2 beside SimGrid jobs,
    # min 5.4 ms, mean 16.5 ms)
    awk -F, '/^#/ || /^src,/ { next } $5 == 12 { n += $9; sum += $9 * $10 } END { exit !(n == 10 && sum / n >= 0.01) }' $lc \
      || { cat $lc; fail "delayed messages' latency"; } ;;
  drift)
    # a clock drifting by 50 % (REVPROF_TEST_DRIFT: odd ranks' clocks run
    # fast, every rank measures its own offset): the offsets at MPI_Init
    # and MPI_Finalize give rank 1 a rate near -0.5 / 1.5 (its offset to
    # rank 0 falls as its clock runs ahead; within the measurements' round
    # trips, which a loaded host makes milliseconds), and latency.csv's
    # means are the samples' own (samples.rank1.csv's latency_s, as
    # measured) corrected by that rate, as sample.txt's formula says and
    # samples.rank1.csv's latency_corrected_s gives. (Not "small":
    # on a loaded host the true latencies are milliseconds too.) The
    # correction is flagged; min <= mean <= max.
    export REVPROF_SAMPLE=all REVPROF_ANALYSIS=stat,freq,write REVPROF_TEST_DRIFT=0.5
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" burst || { cat out err; fail "run failed"; }
    unset REVPROF_TEST_DRIFT REVPROF_ANALYSIS
    cat $st
    rate=$(awk '$1 == 1 && NF == 9 { print $8 }' $st)
    u0=$(awk '$1 == 1 && NF == 9 { print $9 }' $st)
    [ -n "$rate" ] && [ -n "$u0" ] || fail "no drift rate or u0 of rank 1 in sample.txt"
    awk -v r="$rate" 'BEGIN { w = -0.5 / 1.5; exit !(r < 0.5 * w && r > 1.5 * w) }' \
      || fail "rank 1's drift rate $rate, not near -0.5 / 1.5"
    grep -q "^  clock-drift: the clocks drifted during the run: latencies corrected" $st \
      || fail "the correction is not flagged"
    grep -q "latency_s + rate\[dst\] x (t_send_s + latency_s - u0\[dst\]) - rate\[src\] x (t_send_s - u0\[src\])" $st \
      || fail "no correction formula for samples.rank<N>.csv"
    # every written sample's latency_corrected_s is the formula's (rank
    # 0's rate is 0)
    head -n 1 revprof-out/samples.rank1.csv | grep -q ',latency_s,latency_corrected_s$' \
      || fail "samples.rank1.csv has no latency_corrected_s column"
    awk -F, -v r="$rate" -v u0="$u0" '$1 == 0 { n++; c = $7 + r * ($6 + $7 - u0); d = $8 - c; if (d < 0) d = -d
      if (d > 1e-9) { print "line " NR ": " $0 " want " c; bad = 1 } }
      END { exit !(n == 320 && !bad) }' revprof-out/samples.rank1.csv \
      || fail "samples.rank1.csv's latency_corrected_s is not the formula's"
    # over all the samples: the corrected mean and the correction's size
    exp=$(awk -F, '$1 == 0 { n++; c += $8; d += $8 - $7 }
      END { if (n != 320) print "none"; else printf "%.9e %.9e\n", c / n, (d < 0 ? -d : d) / n }' \
      revprof-out/samples.rank1.csv)
    got=$(awk -F, '/^#/ || /^src,/ { next } { n += $9; s += $9 * $10; if (!($11 <= $10 && $10 <= $12)) bad = 1 }
      END { if (n != 320 || bad) print "bad"; else printf "%.9e\n", s / n }' $lc)
    echo "drift: corrected mean $got; from the samples by the formula $exp (mean, |correction|)"
    awk -v g="$got" -v e="$exp" 'BEGIN { split(e, x, " "); d = g - x[1]; if (d < 0) d = -d
      exit !(g != "bad" && e != "none" && x[2] > 1e-3 && d <= 0.01 * x[2] + 1e-6) }' \
      || { cat $lc; fail "latency.csv's means are not the samples corrected for the drift (got $got, want $exp)"; }
    # the histograms follow bucket by bucket: each row's buckets hold its
    # count, and every bucket of raw latencies moved as a whole to the
    # bucket of its samples' mean corrected latency (rp_lstat_undrift):
    # the middle bucket over all rows is that of the histogram the rule
    # gives from the written samples (per class: sender, size class; one
    # bucket apart for rounding at a bucket's edge), and 3 or more buckets
    # from the uncorrected one (the drift put it 12 off). (Not the
    # samples' median: when the drift leaves every raw latency in one
    # bucket, the rule puts them all at their mean, which a loaded host's
    # skew put 3 buckets above the median.)
    bk='function bk(x,  k) { if (!(x >= 1e-7)) return 0; k = int(4 * log(x / 1e-7) / log(10) + 1e-9) + 1; return k > 33 ? 33 : k }
      function sc(b,  e) { if (b < 1) return 0; e = 0; while (b >= 1) { b /= 2; e++ } return e }
      function mid(h, n,  k, m) { m = 0; for (k = 0; k < 34; k++) { m += h[k]; if (m >= n / 2) return k } return 33 }'
    hb=$(awk -F, '/^#/ || /^src,/ { next } { s = 0; for (i = 14; i <= 47; i++) { s += $i; h[i - 14] += $i }
      n += $9; if (s != $9) bad = 1 }
      END { if (bad || n == 0) { print "bad"; exit } m = 0
        for (k = 0; k < 34; k++) { m += h[k]; if (m >= n / 2) { print k; exit } } }' $lc)
    rb=$(for f in revprof-out/samples.rank*.csv; do tail -n +2 "$f"; done | awk -F, "$bk"'
      { key = $1 " " $2 " " sc($5) " " bk($7); c[key]++; s[key] += $8; raw[bk($7)]++; n++ }
      END { for (key in c) h[bk(s[key] / c[key])] += c[key]
        print mid(h, n), mid(raw, n) }')
    echo "drift: histograms' middle bucket $hb; by the rule from the written samples, then uncorrected: $rb"
    rh=${rb% *} ru=${rb#* }
    [ "$hb" != bad ] && [ -n "$rh" ] && [ $((hb - rh)) -le 1 ] && [ $((rh - hb)) -le 1 ] \
      && { [ $((ru - hb)) -ge 3 ] || [ $((hb - ru)) -ge 3 ]; } \
      || { cat $lc; fail "the histograms are not corrected for the drift bucket by bucket (middle bucket $hb; by the rule, uncorrected: $rb)"; } ;;
  burst)
    export REVPROF_SAMPLE=counter:8
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" burst || { cat out err; fail "run failed"; }
    cat out
    # aliasing: every 8th message is the last of a burst (128 B, class 8)
    awk -F, '/^#/ || /^src,/ { next } { n += $9; if ($5 != 8) bad = 1 } END { exit !(n == 40 && !bad) }' $lc \
      || { cat $lc; fail "counter:8 on bursts of 8"; }
    export REVPROF_SAMPLE=counter:8:3
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" burst || { cat out err; fail "run with jitter failed"; }
    k=$(awk -F, '/^#/ || /^src,/ { next } { c[$5] = 1 } END { for (x in c) n++; print n + 0 }' $lc)
    [ "$k" -ge 3 ] || { cat $lc; fail "counter:8:3 sampled $k places of the bursts"; }
    echo "sample burst: counter:8 one place of the bursts, counter:8:3 $k" ;;
  validate)
    tool=$4 model=$5
    [ -f "$model" ] || model=$(dirname "$model")/debian12-2core-openmpi.lua
    export REVPROF_SAMPLE=all
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || { cat out err; fail "run failed"; }
    "$tool" validate --model "$model" --csv right.csv revprof-out > right.txt 2>&1 || { cat right.txt; fail "validate failed"; }
    cat right.txt
    grep -q "^validate \[MPI_Send\]: 1 classes, " right.txt && grep -q "^validate \[MPI_Isend\]: 1 classes, " right.txt \
      || fail "no MPI_Send and MPI_Isend tables of the send calls' own time"
    # the same model with its latency and MPI_Send rows' coefficients 1000
    # times larger (so wrong that no load or sanitizer on this host can
    # make them right)
    awk '/^    (latency|MPI_Send) = / { in_lat = 1 } in_lat && /^ *(avg|min|max) *=/ { gsub(/[-+]?[0-9.]+([eE][-+]?[0-9]+)?/, "1000 * &") } in_lat && /^    },/ { in_lat = 0 } { print }' "$model" > wrong.lua
    cmp -s "$model" wrong.lua && fail "could not scale the latency row"
    "$tool" validate --model wrong.lua --csv wrong.csv revprof-out > wrong.txt 2>&1 || { cat wrong.txt; fail "validate (wrong model) failed"; }
    cat wrong.txt
    e_right=$(sed -n 's/^validate: .* median |error| \([0-9.]*\) %.*/\1/p' right.txt)
    e_wrong=$(sed -n 's/^validate: .* median |error| \([0-9.]*\) %.*/\1/p' wrong.txt)
    [ -n "$e_right" ] && [ -n "$e_wrong" ] || fail "no summary line"
    awk -v w="$e_wrong" 'BEGIN { exit !(w > 90) }' \
      || fail "a 1000x latency row gives median |error| $e_wrong % (the right model $e_right %)"
    sed '/^calls:/,$d' wrong.txt > wrong-lat.txt
    grep -q " no$" wrong-lat.txt && ! grep -q " yes$" wrong-lat.txt || fail "classes inside a 1000x latency row's bounds"
    e_send=$(sed -n 's/^validate \[MPI_Send\]: .* median |error| \([0-9.]*\) %, 0 of 1 inside.*/\1/p' wrong.txt)
    awk -v w="${e_send:-0}" 'BEGIN { exit !(w > 90) }' || fail "a 1000x MPI_Send row: $(grep '^validate \[MPI_Send\]' wrong.txt)" ;;
  fortran)
    # examples/pingpong_f.f90 preloaded: 100 round trips and one exchange
    export REVPROF_SAMPLE=all
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" 128 100 || { cat out err; fail "run failed"; }
    cat out
    grep -q "pingpong_f[0-9]*: 0 failed checks" out || fail "checks failed"
    grep -q "^messages: *202 sent, 202 sampled" $st || { cat $st; fail "sample.txt"; }
    # the sites are the program's calls, not the bindings' calls of the
    # C wrappers
    grep -q "rp_fortran\|rp_f_MPI" $lc && { cat $lc; fail "call sites inside revprof's Fortran bindings"; }
    if grep -q "pingpong_f.f90:" $lc; then :; else
      grep -q '"0x' $lc && { cat $lc; fail "call sites not named"; }
    fi ;;
  early)
    # rp_early.c's last rank dies of SIGSEGV before MPI_Finalize: its
    # counts so far in sample.partial.rank<N>.csv, its MPI_Send's time in
    # calls.partial.rank<N>.csv, no final report
    REVPROF_SAMPLE=all run "$np" env LD_PRELOAD="$RP_LIB" "$exe" segv
    f=revprof-out/sample.partial.rank$((np - 1)).csv
    test -s "$f" || { cat err; ls revprof-out; fail "no $f"; }
    grep -q "^# revprof sample mode, PARTIAL (signal SIGSEGV): rank $((np - 1)) of $np" "$f" || { cat "$f"; fail "$f not marked"; }
    grep -q "^# instrumentation cost on this rank so far: observed " "$f" || { cat "$f"; fail "$f lacks the cost so far"; }
    f=revprof-out/calls.partial.rank$((np - 1)).csv
    test -s "$f" || { ls revprof-out; fail "no $f"; }
    grep -q "^MPI_Send,MPI_Send,$((np - 1)),[0-9]*,1,[0-9]" "$f" || { cat "$f"; fail "$f lacks the rank's one MPI_Send"; }
    test -e $st && fail "a final sample report after an early end" ;;
  bad)
    REVPROF_SAMPLE=random:1.5 run "$np" env LD_PRELOAD="$RP_LIB" "$exe" count || { cat out err; fail "run failed"; }
    grep -q 'REVPROF_SAMPLE="random:1.5"' err || { cat err; fail "no message naming REVPROF_SAMPLE"; }
    test -e $st && fail "sample.txt written with a bad REVPROF_SAMPLE" ;;
  *) fail "unknown variant $v" ;;
  esac
  ;;
rma-exact)
  exe=$1 np=$2
  REVPROF_MODEL=$RP_MODEL REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
    REVPROF_COMPUTE=annotate run "$np" "$exe" || { cat out err; fail "run failed"; }
  cat out
  grep -q "^rma exact: $np ranks, 0 mismatches" out || { cat err; fail "clocks differ from the analytic values"; }
  grep -q "not-predicted" revprof-out/report.txt && { head revprof-out/report.txt; fail "one-sided calls reported as not predicted"; }
  for fn in MPI_Win_fence MPI_Win_complete MPI_Win_wait MPI_Win_unlock \
            MPI_Neighbor_alltoallv; do
    awk -F, -v fn=$fn '$1 == "function" && $2 == "all" && $3 == fn && $7 > 0 && $11 == "costed" { ok = 1 } END { exit !ok }' \
      revprof-out/report.csv || { grep "$fn" revprof-out/report.csv; fail "$fn has no predicted cost"; }
  done
  # with the gap row: an origin's operations share its endpoint (the
  # second put starts one gap after the first instead of after its end)
  sed 's/^    MPI_Put = lin/    gap = lin(4e-7, 5e-10, 2e-7, 2.5e-10, 8e-7, 1e-9),\n&/' "$RP_MODEL" > gap.lua
  grep -q "^    gap = lin" gap.lua || fail "could not add the gap row"
  exact_with gap.lua gap "rma exact (gap row)"
  # with gap_all too and REVPROF_CONTENTION=world: the bytes drain at the
  # rate of all ranks sending at once (2 ranks too: both ways at once)
  # (gap_all measured at p = 2 only: beyond, every cost it enters is
  # extrapolated)
  sed 's/^    MPI_Put = lin/    gap_all = { range = { p = { 2, 2 }, d = { 0, 1048576 } }, { dmin = 0, n = 0, form = { "1", "p*d" }, avg = { 4e-7, 4e-10 }, min = { 2e-7, 2e-10 }, max = { 8e-7, 8e-10 } } },\n&/' gap.lua > load.lua
  grep -q "^    gap_all = " load.lua || fail "could not add the gap_all row"
  export REVPROF_CONTENTION=world
  exact_with load.lua load "rma exact (load)"
  unset REVPROF_CONTENTION
  if [ "$np" -ge 3 ]; then
    # counted once per cost, sizes repeated or not: at least the gap and
    # the completion of every one-sided operation
    ops=$(awk -F, '$1 == "function" && $2 == "all" && ($3 == "MPI_Put" || $3 == "MPI_Get" || $3 == "MPI_Accumulate") { n += $4 } END { print n + 0 }' revprof-out/report.csv)
    got=$(sed -n 's/^extrapolated,all,"gap_all \([0-9]*\) at .*/\1/p' revprof-out/report.csv)
    [ -n "$got" ] && [ "$got" -ge $((2 * ops)) ] \
      || { grep -i extrapolated revprof-out/report.csv; fail "gap_all extrapolated ${got:-0} times for $ops one-sided operations"; }
    echo "gap_all extrapolated $got times for $ops one-sided operations"
  fi
  # by default (epoch) only the operations of active-target epochs
  exact_with load.lua epoch "rma exact (epoch)"
  export REVPROF_CONTENTION=off
  exact_with load.lua gap "rma exact (gap row)"
  unset REVPROF_CONTENTION
  ;;
io-exact)
  exe=$1 np=$2
  REVPROF_MODEL=$RP_MODEL REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
    REVPROF_COMPUTE=annotate run "$np" "$exe" || { cat out err; fail "run failed"; }
  cat out
  grep -q "^io exact: $np ranks, 0 mismatches, 0 bad reads" out || { cat err; fail "clocks or data differ"; }
  for fn in MPI_File_open MPI_File_write_at MPI_File_read_at MPI_File_write_at_all \
            MPI_File_read_all MPI_File_write_at_all_begin MPI_File_iwrite_at MPI_File_close \
            MPI_File_set_view MPI_File_sync MPI_File_preallocate MPI_File_set_size \
            MPI_File_delete; do
    awk -F, -v fn=$fn '$1 == "function" && $2 == "all" && $3 == fn && $7 > 0 && $11 == "costed" { ok = 1 } END { exit !ok }' \
      revprof-out/report.csv || { grep "$fn" revprof-out/report.csv; fail "$fn has no predicted cost"; }
  done
  grep -q "not-predicted" revprof-out/report.txt && { head -20 revprof-out/report.txt; fail "I/O calls reported as not predicted"; }
  # a model with I/O rows but not set_view's or delete's (no fallback):
  # those two are named as not predicted, never costed silently
  sed '/^    MPI_File_set_view = /,+1d; /^    MPI_File_delete = /,+1d' "$RP_MODEL" > noview.lua
  rm -rf revprof-out
  REVPROF_MODEL=$RP_WORK/noview.lua REVPROF_COMPUTE=annotate run "$np" "$exe" || { cat out err; fail "run without set_view's row failed"; }
  line=$(grep "not-predicted" revprof-out/report.txt) || { head -20 revprof-out/report.txt; fail "no not-predicted line"; }
  for fn in MPI_File_set_view MPI_File_delete; do
    echo "$line" | grep -q "$fn" || fail "$fn missing from: $line"
  done
  echo "$line" | grep -q "MPI_File_sync" && fail "MPI_File_sync not predicted with its row: $line"
  awk -F, '$1 == "function" && $2 == "all" && $3 == "MPI_File_set_view" && $11 == "not-predicted" { ok = 1 } END { exit !ok }' \
    revprof-out/report.csv || { grep MPI_File_set_view revprof-out/report.csv; fail "CSV status of MPI_File_set_view"; }
  # a model without I/O rows: every I/O call runs, counted as not predicted
  sed '/-- MPI-IO/,/-- end of MPI-IO/d' "$RP_MODEL" > noio.lua
  rm -rf revprof-out
  REVPROF_MODEL=$RP_WORK/noio.lua REVPROF_COMPUTE=annotate run "$np" "$exe" || { cat out err; fail "run without I/O rows failed"; }
  grep -q "0 bad reads" out || { cat out err; fail "data differ without I/O rows"; }
  line=$(grep "not-predicted" revprof-out/report.txt) || { head -20 revprof-out/report.txt; fail "no not-predicted line"; }
  for fn in MPI_File_open MPI_File_write_at_all MPI_File_close; do
    echo "$line" | grep -q "$fn" || fail "$fn missing from: $line"
  done
  for fn in MPI_File_sync MPI_File_set_size MPI_File_preallocate MPI_File_set_view MPI_File_delete; do
    awk -F, -v fn=$fn '$1 == "function" && $2 == "all" && $3 == fn && $11 == "not-predicted" { ok = 1 } END { exit !ok }' \
      revprof-out/report.csv || { grep "$fn" revprof-out/report.csv; fail "CSV status of $fn"; }
  done
  awk -F, '$1 == "function" && $2 == "all" && $3 == "MPI_File_write_at" && $11 == "not-predicted" { ok = 1 } END { exit !ok }' \
    revprof-out/report.csv || { grep MPI_File_write_at revprof-out/report.csv; fail "CSV status of MPI_File_write_at"; }
  ;;
extrapolated)
  exe=$1 np=$2 model=$RP_WORK/ranged.lua
  # the exactness model, with MPI_Allreduce measured at p = 2 and d <= 8 only
  sed 's/^    MPI_Allreduce = { {/    MPI_Allreduce = { range = { p = { 2, 2 }, d = { 0, 8 } }, {/' \
    "$RP_MODEL" > "$model"
  grep -q 'range = { p = { 2, 2 }' "$model" || fail "could not add a range to the model"
  REVPROF_MODEL=$model REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 REVPROF_COMPUTE=annotate REVPROF_LUA=$(dirname "$RP_MODEL")/rp_exact_costs.lua \
    run "$np" "$exe" || { cat out err; fail "run failed"; }
  sed '/^$/q' revprof-out/report.txt
  # the header (up to the first blank line) lists it among the flags
  line=$(sed '/^$/q' revprof-out/report.txt | sed -n 's/^ *extrapolated: /extrapolated: /p')
  n2=$((2 * np))
  if [ "$np" -gt 2 ]; then # every rank calls MPI_Allreduce twice (32 and 12 bytes), p = np
    echo "$line" | grep -q "^extrapolated: $n2 calls of 1 function(s).*MPI_Allreduce $n2 at p<=$np d<=32 .*measured p 2..2, d 0..8" \
      || fail "header lacks the extrapolated MPI_Allreduce calls: $line"
    awk -F, -v n="$n2" '$1 == "extrapolated" && $3 == "all" && $4 == n { ok = 1 } END { exit !ok }' \
      revprof-out/report.csv || fail "report.csv lacks the extrapolated total"
    grep -q '^extrapolated,all,"MPI_Allreduce ' revprof-out/report.csv || fail "report.csv lacks the MPI_Allreduce row"
    grep -q '^flag,all,"extrapolated: ' revprof-out/report.csv || fail "report.csv lacks the extrapolated flag"
  else # p = 2 is inside; 32 and 12 bytes are not
    echo "$line" | grep -q "MPI_Allreduce 4 at p<=2 d<=32 (1x outside in p, 3.67x in d" \
      || fail "header lacks the size extrapolation: $line"
  fi
  REVPROF_MODEL=$RP_MODEL REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 REVPROF_COMPUTE=annotate REVPROF_LUA=$(dirname "$RP_MODEL")/rp_exact_costs.lua \
    run "$np" "$exe" || { cat out err; fail "run failed"; }
  grep -q "^extrapolated: not detected (the model records no measured ranges" revprof-out/report.txt \
    || fail "a model without ranges must say that extrapolation is not detected"
  grep -q "low-confidence" revprof-out/report.txt && fail "low-confidence flag with a model of no cross-validated errors"
  grep -q "partial-model" revprof-out/report.txt && fail "partial-model flag with a finished model"
  grep -q "model-drift" revprof-out/report.txt && fail "model-drift flag with a model without a DRIFT note"
  # flagged_model NAME SED MARK FLAG WANT: the exact model edited by SED
  # (MARK proves the edit) runs the same program; the report's first lines
  # say WANT and report.csv has the FLAG row
  flagged_model() {
    sed "$2" "$RP_MODEL" > "$RP_WORK/$1.lua"
    grep -q "$3" "$RP_WORK/$1.lua" || fail "could not make $1.lua"
    REVPROF_MODEL=$RP_WORK/$1.lua REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 REVPROF_COMPUTE=annotate REVPROF_LUA=$(dirname "$RP_MODEL")/rp_exact_costs.lua \
      run "$np" "$exe" || { cat out err; fail "run with $1.lua failed"; }
    sed '/^$/q' revprof-out/report.txt | grep -q "$5" \
      || { sed '/^$/q' revprof-out/report.txt; fail "the header lacks the $4 flag ($5)"; }
    grep -q "^flag,all,\"\\?$4: " revprof-out/report.csv || fail "report.csv lacks the $4 flag"
  }
  # a cross-validated error of 35 % on MPI_Allreduce's equation: the calls
  # it costs are flagged low-confidence
  flagged_model lowconf 's/^    MPI_Allreduce = { { dmin = 0, n = 0,/    MPI_Allreduce = { { dmin = 0, n = 0, cv_error = 0.35,/' \
    'cv_error = 0.35' low-confidence \
    "low-confidence: $n2 calls of 1 function(s) costed by equations that miss their own measurements by more than 20 %.*MPI_Allreduce $n2 (cv up to 35 %)"
  # a model fitted from a characterization that had not finished (its
  # notes as raw.partial.csv leaves them)
  flagged_model partial 's|notes = "tests/mpi/rp_exact_model.lua"|notes = "preset quick; PARTIAL: 12 of 40 points when written, the run had not finished"|' \
    'PARTIAL: 12 of 40' partial-model \
    "partial-model: the model was fitted from a characterization that had not finished (12 of 40 points when written)"
  # a model whose characterization saw the machine's speed change
  # (rp_char_drift's note in its notes)
  flagged_model drift 's|notes = "tests/mpi/rp_exact_model.lua"|notes = "preset quick; DRIFT: 8 B one way took 0.12 us before the first point, 0.36 us after the last (3.00x): the machine'"'"'s speed changed while it was measured; 700 points"|' \
    'DRIFT: 8 B' model-drift \
    "model-drift: the machine's speed changed while the model was characterized (8 B one way took 0.12 us before the first point, 0.36 us after the last (3.00x)): its rows mix both speeds"
  # the host line names this host's MPI; a model of another MPI family gets
  # a note there (no flag: predicting another machine is what models are
  # for), one of no known MPI (the exact model's "none") none
  host=$(sed -n 's/^host: *//p' revprof-out/report.txt)
  echo "host: $host"
  echo "$host" | grep -q "| .*\(Open MPI\|MPICH\)" || fail "the host line does not name the MPI: '$host'"
  echo "$host" | grep -q "characterized with" && fail "a note on the host line with a model of no known MPI"
  sed 's/mpi = "none"/mpi = "MVAPICH2 Version:\t2.3.7"/' "$RP_MODEL" > "$RP_WORK/other.lua"
  grep -q "MVAPICH2" "$RP_WORK/other.lua" || fail "could not make other.lua"
  REVPROF_MODEL=$RP_WORK/other.lua REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 REVPROF_COMPUTE=annotate REVPROF_LUA=$(dirname "$RP_MODEL")/rp_exact_costs.lua \
    run "$np" "$exe" || { cat out err; fail "run with other.lua failed"; }
  want="(the model was characterized with MVAPICH: the times predicted are that MPI's, not this one's)"
  sed '/^$/q' revprof-out/report.txt | grep "^host: " | grep -qF "$want" \
    || { sed '/^$/q' revprof-out/report.txt; fail "the host line lacks the other MPI's note"; }
  grep "^host,all,\"" revprof-out/report.csv | grep -qF "$want" || fail "report.csv's host row lacks the note"
  grep -q '^flag,.*MVAPICH' revprof-out/report.csv && fail "another MPI's model must not flag the run"
  ;;
other-mpi)
  native=$1 fake=$2
  # librevprof with a library of the other MPI family beside it
  # (rp_other_mpi.c stands in for one): stopped before main with exit
  # status 1 and one message naming both libraries and the fix
  LD_PRELOAD="$RP_LIB:$fake" "$native" > out 2> err; rc=$?
  cat err
  [ $rc -eq 1 ] || { cat out; fail "exit status $rc, not 1"; }
  [ -s out ] && { cat out; fail "the program ran"; }
  grep -q "^revprof: .*librevprof.so.* was built for \(Open MPI\|MPICH\), but this program also loads .*($fake)" err \
    || fail "no message naming both libraries"
  grep -q "cmake -DREVPROF_MPI=\(mpich\|openmpi\)" err || fail "the message does not say how to fix it"
  [ "$(grep -c '^revprof:' err)" = 1 ] || fail "more than one message"
  # under the launcher: said once for the job (rank 0), and the job fails
  run 2 env LD_PRELOAD="$RP_LIB:$fake" "$native"; rc=$?
  [ $rc -ne 0 ] || { cat out err; fail "the job's exit status is 0"; }
  [ -s out ] && { cat out; fail "the program ran under the launcher"; }
  n=$(grep -c "^revprof: .* was built for" err)
  [ "$n" = 1 ] || { cat err; fail "said $n times under the launcher, not once"; }
  # librevprof alone, as in every other test: the program runs
  run 2 env LD_PRELOAD="$RP_LIB" "$native" || { cat out err; fail "the program without the stand-in failed"; }
  grep -q "was built for" err && { cat err; fail "a message without another MPI"; }
  echo "other-mpi: stopped before the program, one message"
  ;;
fault)
  kind=$1 native=$2 np=$3
  run "$np" "$native" || { cat err; fail "native run failed"; }
  mv out native.out
  case $kind in
  missing-model) model=$RP_WORK/no-such-model.lua; want="no-such-model.lua: cannot open model file" ;;
  broken-model) model=$RP_WORK/broken.lua
    printf 'return {\n  format = "revprof-model 1",\n  functions = { MPI_Send = {\n' > "$model"
    want="broken.lua:[0-9]*:" ;;
  bad-field) model=$RP_WORK/badfield.lua
    printf 'return { format = "revprof-model 1", functions = { MPI_Send = { { form = { "1" }, avg = { "fast" } } } } }\n' > "$model"
    want="badfield.lua: functions.MPI_Send\\[1\\].avg\\[1\\]" ;;
  lacking-function) model=$RP_WORK/lacking.lua
    printf 'return { format = "revprof-model 1", functions = {\n  MPI_Send = { { form = { "1" }, avg = { 1e-6 } } },\n  MPI_Recv = { { form = { "1" }, avg = { 1e-6 } } },\n  latency = { { form = { "1" }, avg = { 1e-6 } } } } }\n' > "$model"
    want="model .*lacking.lua has no MPI_Allreduce; its cost counts as 0 s" ;;
  broken-lua) model=$RP_MODEL; lua=$RP_WORK/costs.lua
    printf 'function row(n)\n  return n *\nend\n' > "$lua"
    want="costs.lua:3: .*Lua region costs are off" ;;
  bad-mode) model=$RP_MODEL; want='REVPROF_MODE="measure": unknown mode.*not implemented yet.*runs without revprof' ;;
  bad-bound) model=$RP_MODEL; want='REVPROF_MAX_OVERHEAD=5: expected a percentage such as 5% (or off).*runs without revprof' ;;
  bad-profile) model=$RP_MODEL; printf 'rank,kind\n' > "$RP_WORK/cost.csv"
    want="rank 0\]: REVPROF_COST_PROFILE: .*cost.csv: line 1: no column count.*static rates are used" ;;
  *) fail "unknown fault $kind" ;;
  esac
  extra=""
  [ "$kind" = bad-mode ] && extra="REVPROF_MODE=measure"
  [ "$kind" = bad-bound ] && extra="REVPROF_MAX_OVERHEAD=5"
  [ "$kind" = bad-profile ] && extra="REVPROF_COST_PROFILE=$RP_WORK"
  [ "$kind" = broken-lua ] && extra="REVPROF_LUA=$lua"
  # shellcheck disable=SC2086
  REVPROF_MODEL=$model run "$np" env $extra LD_PRELOAD="$RP_LIB" "$native" || { cat err; fail "the program did not run on (exit status)"; }
  diff native.out out > diff.txt || { cat diff.txt; fail "the program's output changed"; }
  grep -q "$want" err || { cat err; fail "no message matching '$want'"; }
  n=$(grep -c "$want" err)
  [ "$n" -eq 1 ] || { cat err; fail "message printed $n times, not once"; }
  cat err | grep "revprof" | head -3
  ;;
early)
  mode=$1 exe=$2 np=$3
  # kill: SIGKILL leaves the last checkpoint, every 0.2 s here
  REVPROF_CHECKPOINT=0.2 REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$mode"
  last=$((np - 1))
  case $mode in
  abort) ranks=0; why="MPI_Abort with error code 3" ;;
  exit) ranks=$(seq 0 $last); why="exit without MPI_Finalize" ;;
  segv) ranks=$last; why="signal SIGSEGV" ;;
  term) ranks=$last; why="signal SIGTERM" ;;
  kill) ranks=$last; why="checkpoint [0-9.]* s after MPI_Init: the run had not reached MPI_Finalize" ;;
  *) fail "unknown mode $mode" ;;
  esac
  found=0
  for r in $ranks; do
    f=revprof-out/report.partial.rank$r.txt
    if [ "$mode" = exit ] && ! grep -q "PARTIAL: $why" "$f" 2>/dev/null; then
      # the launcher may kill a rank still in its atexit handler once
      # another rank has left without MPI_Finalize (SIGKILL: no report)
      [ -e "$f" ] && { grep -q "PARTIAL: signal SIG" "$f" || fail "$f badly marked"; }
      continue
    fi
    test -s "$f" || { cat err; ls revprof-out; fail "no $f"; }
    grep -q "PARTIAL: $why" "$f" || { cat "$f"; fail "$f is not marked PARTIAL ($why)"; }
    grep -q "MPI_Allreduce" "$f" || fail "$f lacks the statistics"
    grep -q "^cost:      instrumentation cost on this rank so far: observed " "$f" || { cat "$f"; fail "$f lacks the cost so far"; }
    grep -q "^status,$r,\"\?PARTIAL: $why" "revprof-out/report.partial.rank$r.csv" || fail "csv not marked"
    found=$((found + 1))
  done
  [ "$found" -ge 1 ] || { cat err; ls revprof-out; fail "no partial report marked '$why'"; }
  test -e revprof-out/report.txt && fail "a final report after an early end"
  echo "early $mode: partial reports of rank(s)" $ranks
  ;;
checkpoint)
  # a run past several checkpoints that ends normally: its final reports,
  # and no partial file left, in every mode
  exe=$1 np=$2
  for m in predict compensate sample; do
    rm -rf revprof-out
    REVPROF_MODE=$m REVPROF_CHECKPOINT=0.1 REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" long || { cat out err; fail "$m: run failed"; }
    case $m in
    predict) final=report.txt ;;
    compensate) final=compensate.txt ;;
    sample) final=sample.txt ;;
    esac
    test -s "revprof-out/$final" || { ls revprof-out; cat err; fail "$m: no $final"; }
    ls revprof-out | grep -q partial && { ls revprof-out; fail "$m: a checkpoint is left after the final report"; }
    grep -q PARTIAL err && { cat err; fail "$m: a checkpoint was said on stderr"; }
  done
  # off: no checkpoint at all, even when killed (the SIGKILLed last rank
  # leaves nothing; the launcher may SIGTERM the others, which then write
  # their partial report as on any signal)
  rm -rf revprof-out
  REVPROF_CHECKPOINT=off REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" kill
  ls revprof-out | grep -q "partial.rank$((np - 1))\\." && { ls revprof-out; fail "REVPROF_CHECKPOINT=off wrote a checkpoint"; }
  grep -l "PARTIAL: checkpoint" revprof-out/*partial* 2>/dev/null && fail "REVPROF_CHECKPOINT=off wrote a checkpoint"
  echo "checkpoint: written while running (early kill), removed at the end, off when asked"
  ;;
run-early)
  # revprof run on a program whose last rank dies of SIGSEGV: a failed exit
  # status, the signal named (Open MPI's mpiexec exits 128 + N; MPICH's
  # passes another code, then the status is printed), the partial reports
  # listed
  tool=$1 exe=$2 np=$3
  REVPROF_LIB=$RP_LIB $tool run --model "$RP_MODEL" -np "$np" -o "$RP_WORK/out-dir" -- "$exe" segv > out 2> err
  st=$?
  cat err
  [ $st -ne 0 ] || fail "revprof run exited 0 after a rank died"
  grep -q "revprof run: a rank of the program was killed by signal 11 (Segmentation fault): exit status 139" err \
    || grep -q "revprof run: the program exited with status $st" err || fail "the end of the run is not reported"
  grep -q "revprof run: partial report: $RP_WORK/out-dir/report.partial.rank$((np - 1)).txt (PARTIAL: signal SIGSEGV)" err \
    || fail "the partial report of the dead rank is not listed"
  ;;
intercomm)
  # collectives on an inter-communicator: the data right, and the report
  # says they were costed locally (3 calls a rank: Bcast, Allreduce,
  # Barrier)
  exe=$1 np=$2
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "run failed"; }
  grep -q "^intercomm: $np ranks, 0 failed checks" out || { cat out err; fail "wrong data"; }
  grep -q "^flag,all,\"inter-collective: 3 collective call(s) on inter-communicators costed locally: 0 bytes over the local group's size, members' clocks not combined\",$np," revprof-out/report.csv \
    || { grep flag revprof-out/report.csv; fail "no inter-collective flag of 3 calls on all $np ranks"; }
  echo "intercomm: data right, the local costing flagged"
  ;;
comp-rooted)
  # compensate mode's delays through collectives. rp_comp_rooted.c gives
  # the ranks delays of about 0.4, 0.2 and 0 s, and the root (rank 0)
  # comes last. Each rank's delay afterwards is H (above the midpoint of
  # ranks 0 and 1's own overheads: the root's), M (between the midpoints:
  # rank 1's own) or L (below: rank 2's). With the send times (one node,
  # the default here) the root's delay reaches every member of bcast and
  # scatter, and of an allreduce (the root came last: without measurement
  # all leave 0.4 s earlier); a gather's root keeps its own. With seed
  # 000's rule alone (REVPROF_TEST_NODES=many, as on several nodes) a
  # gather's root takes the least delay, an allreduce's members the least
  # below their own or else the largest. Checked against the ranks' own
  # overheads, so the machine's speed does not matter. (A gather of 1
  # double: its members leave at once. Above the MPI's eager limit they
  # wait for the root, which their delays do not learn: Known limits.)
  exe=$1 np=$2
  for c in bcast:1:HHH scatter:1:HHH gather:1:HML allreduce:1:HHH \
           bcast:1024:HHH scatter:1024:HHH \
           seed:bcast:1:HHH seed:gather:1:LML seed:allreduce:1:LLH; do
    nodes=one rule="with the messages' send times"
    case $c in seed:*) c=${c#seed:} nodes=many rule="with each message taken as sent when its receive ended" ;; esac
    coll=${c%%:*} rest=${c#*:}; n=${rest%%:*} want=${rest#*:}
    rm -rf revprof-out
    REVPROF_MODE=compensate REVPROF_TEST_NODES=$nodes run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$coll" "$n" || { cat out err; fail "$c: run failed"; }
    grep -q "^comp-rooted: $coll $np ranks, 0 failed checks" out || { cat out err; fail "$c: wrong data"; }
    grep -q "seed 000's rule $rule" revprof-out/compensate.txt || { head -5 revprof-out/compensate.txt; fail "$c ($nodes): the report does not name the rule"; }
    awk -F, -v c="$nodes:$c" -v want="$want" '
      function fail(m) { print "rp_check comp-rooted: FAIL: " c ": " m > "/dev/stderr"; bad = 1 }
      $2 == "(program)" { over[$1] = $4 - $6; delay[$1] = $4 - $8 }
      END {
        hi = (over[0] + over[1]) / 2; lo = (over[1] + over[2]) / 2
        got = ""
        for (r = 0; r < 3; r++) got = got (delay[r] > hi ? "H" : delay[r] > lo ? "M" : "L")
        printf "%s: own overheads %.3f %.3f %.3f s, delays after %.3f %.3f %.3f s: %s\n", c, over[0], over[1], over[2], delay[0], delay[1], delay[2], got
        if (!(over[0] > hi && hi > over[1] && over[1] > lo && lo > over[2])) fail("the injected overheads are not ordered")
        if (got != want) fail("delays " got ", expected " want)
        exit bad }' revprof-out/compensate.csv || fail "see above"
  done
  echo "comp-rooted: delays through bcast, scatter, gather and allreduce as the rules say"
  ;;
run-bad)
  # revprof run and sweep on a program that is not there or cannot run:
  # exit 2 and a line naming it, before mpiexec starts (whose own failure
  # read as a rank killed by a signal)
  tool=$1
  touch plain.txt
  for p in "$RP_WORK/no-such-program:No such file or directory" \
           "no-such-program-rp:no such program in PATH or the current folder" \
           "./plain.txt:not an executable file" "$RP_WORK:not an executable file"; do
    prog=${p%%:*} why=${p#*:}
    for c in run sweep; do
      np=-np; [ $c = sweep ] && np=--np
      $tool $c --model "$RP_MODEL" $np 2 -o "$RP_WORK/out-$c" -- "$prog" > out 2> err
      st=$?
      [ $st -eq 2 ] || { cat out err; fail "$c $prog: exit status $st, not 2"; }
      grep -qxF "revprof $c: $prog: $why" err || { cat err; fail "$c $prog: no line naming it"; }
      grep -q "killed by signal" err && { cat err; fail "$c $prog: reported as a signal"; }
    done
  done
  # a program linked with the other MPI family's library: refused with
  # exit 2 before the launch, naming both libraries and the fix
  other=$2
  for c in run sweep; do
    np=-np; [ $c = sweep ] && np=--np
    $tool $c --model "$RP_MODEL" $np 2 -o "$RP_WORK/out-$c" -- "$other" > out 2> err
    st=$?
    [ $st -eq 2 ] || { cat out err; fail "$c $other: exit status $st, not 2"; }
    grep -q "ran" out && { cat out; fail "$c $other: the program ran"; }
    grep -q "^revprof $c: $other is linked with \(MPICH (libmpich.so.12)\|Open MPI (libmpi.so.40)\), but .*librevprof.* was built for" err \
      || { cat err; fail "$c $other: no message naming both libraries"; }
    grep -q "cmake -DREVPROF_MPI=\(mpich\|openmpi\)" err || { cat err; fail "$c: the message does not say how to fix it"; }
  done
  # a program that never starts MPI: nothing intercepted, which run says
  # (exit 1), but not when revprof was turned off
  $tool run --model "$RP_MODEL" -np 2 -o "$RP_WORK/out-true" -- true > out 2> err
  st=$?
  [ $st -eq 1 ] || { cat out err; fail "run true: exit status $st, not 1"; }
  grep -q "^revprof run: the program ended with status 0, but revprof wrote nothing in $RP_WORK/out-true:" err \
    || { cat err; fail "run true: not said that nothing was intercepted"; }
  REVPROF_MODE=off $tool run --model "$RP_MODEL" -np 2 -o "$RP_WORK/out-off" -- true > out 2> err \
    || { cat out err; fail "REVPROF_MODE=off run true: failed"; }
  echo "run-bad: missing, non-executable and other-MPI programs refused by name; a run that started no MPI said"
  ;;
run-nomodel)
  # revprof run without a model: refused in predict mode, with a line that
  # says which modes need none; compensate and sample mode run and write
  # their reports; sweep always needs one
  tool=$1 exe=$2
  env -u REVPROF_MODEL REVPROF_MODE=predict $tool run -np 2 -o "$RP_WORK/out-p" -- "$exe" > out 2> err
  st=$?
  [ $st -ne 0 ] || { cat out err; fail "predict without a model: exit status 0"; }
  grep -q "^revprof run: no machine model: give --model FILE.lua .* (compensate and sample mode run without one: --mode or REVPROF_MODE)" err \
    || { cat err; fail "predict without a model: no line saying what to do"; }
  test -e "$RP_WORK/out-p/report.txt" && fail "predict without a model: a report written"
  for m in compensate:compensate.txt sample:sample.txt; do
    mode=${m%%:*} file=${m#*:}
    env -u REVPROF_MODEL REVPROF_MODE=$mode $tool run -np 2 -o "$RP_WORK/out-$mode" -- "$exe" > out 2> err \
      || { cat out err; fail "$mode without a model: failed"; }
    test -s "$RP_WORK/out-$mode/$file" || { cat err; fail "$mode without a model: no $file"; }
    # the same by run's --mode, over REVPROF_MODE=predict
    env -u REVPROF_MODEL REVPROF_MODE=predict $tool run --mode $mode -np 2 -o "$RP_WORK/out-m$mode" -- "$exe" > out 2> err \
      || { cat out err; fail "--mode $mode without a model: failed"; }
    test -s "$RP_WORK/out-m$mode/$file" || { cat err; fail "--mode $mode: no $file"; }
  done
  $tool run --mode fast -np 2 -o "$RP_WORK/out-bad" -- "$exe" > out 2> err
  [ $? -eq 2 ] || { cat out err; fail "--mode fast: exit status not 2"; }
  grep -qxF "revprof run: --mode needs predict, compensate, sample or off, not 'fast'" err \
    || { cat err; fail "--mode fast: no line naming it"; }
  env -u REVPROF_MODEL REVPROF_MODE=compensate $tool sweep --np 1,2 -o "$RP_WORK/out-s" -- "$exe" > out 2> err
  [ $? -ne 0 ] || fail "sweep without a model: exit status 0"
  grep -q "^revprof sweep: no machine model" err || { cat err; fail "sweep without a model: not said"; }
  echo "run-nomodel: predict refused, compensate and sample run without a model (REVPROF_MODE or --mode); a bad --mode refused"
  ;;
trace-kill)
  # a traced run whose last rank is killed by SIGKILL after 2 s: its
  # stream holds the header and what the periodic flush wrote, the others
  # are readable, and the tools read the whole directory (exit 0), saying
  # which streams ended how
  tool=$1 exe=$2 np=$3 last=$(($3 - 1))
  REVPROF_MODEL=$RP_MODEL REVPROF_TRACE=text,chrome run "$np" env LD_PRELOAD="$RP_LIB" "$exe" kill
  s=revprof-out/p$last.trace.part
  test -s "$s" || { ls -l revprof-out; fail "the killed rank left no stream"; }
  head -1 "$s" | grep -q "^# revprof trace" || fail "$s has no header"
  grep -c "^S " "$s" | awk '{ exit !($1 > 0) }' || fail "$s: nothing flushed in 2 s"
  $tool trace info revprof-out > info.txt 2> info.err || { cat info.txt info.err; fail "trace info failed"; }
  cat info.txt info.err
  grep -q "^ *$last .* truncated$" info.txt || fail "the killed rank is not shown as truncated"
  $tool trace merge revprof-out > merge.txt 2>&1 || { cat merge.txt; fail "trace merge failed"; }
  grep -q "PARTIAL" merge.txt || fail "the merged trace is not marked PARTIAL"
  ;;
measure)
  exe=$1 np=$2
  # 0.2 s of CPU between two MPI calls, target twice as fast: ~0.1 s each
  REVPROF_MODEL=$RP_MODEL REVPROF_COMPUTE=measure REVPROF_CPU_SCALE=0.5 \
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" burn || { cat err; fail "run failed"; }
  awk -F, '$1 == "rank" && $3 == "compute" { n++; if ($7 < 0.09 || $7 > 0.2) bad = 1 } END { exit !(n == '"$np"' && !bad) }' \
    revprof-out/report.csv || { grep compute revprof-out/report.csv; fail "measured compute not ~0.1 s per rank"; }
  grep "compute" revprof-out/report.csv
  # its bounds cover the spread of measured CPU time: at least 5 % each way
  awk -F, '$1 == "rank" && $3 == "compute" { n++; if (!($6 <= 0.9501 * $7 && $8 >= 1.0499 * $7)) bad = 1 } END { exit !(n == '"$np"' && !bad) }' \
    revprof-out/report.csv || fail "measured compute has no [min, max] spread"
  awk -F, '$1 == "elapsed" { exit !($6 < $7 && $7 < $8) }' revprof-out/report.csv \
    || fail "the elapsed time's [min, max] does not surround avg"
  grep -q "min and max from the model bounds and measured compute -[0-9]*%/+[0-9]*%" revprof-out/report.txt \
    || fail "the report does not say how measured compute is bounded"
  # REVPROF_COMPUTE_SPREAD raises the least spread: 20 % each way
  REVPROF_MODEL=$RP_MODEL REVPROF_COMPUTE=measure REVPROF_COMPUTE_SPREAD=0.2 \
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" burn || { cat err; fail "run with a spread failed"; }
  awk -F, '$1 == "rank" && $3 == "compute" { n++; if (!($6 <= 0.8001 * $7 && $8 >= 1.1999 * $7)) bad = 1 } END { exit !(n == '"$np"' && !bad) }' \
    revprof-out/report.csv || { grep compute revprof-out/report.csv; fail "REVPROF_COMPUTE_SPREAD=0.2 did not widen [min, max]"; }
  grep -q "REVPROF_COMPUTE_SPREAD=0.2 " revprof-out/report.txt || fail "the settings do not show REVPROF_COMPUTE_SPREAD"
  ;;
auto)
  what=$1 exe=$2 np=$3
  REVPROF_MODEL=$RP_MODEL run "$np" env -u REVPROF_COMPUTE LD_PRELOAD="$RP_LIB" "$exe" "$what" \
    || { cat out err; fail "run failed"; }
  cat out
  compute() { # compute avg seconds of every rank within [lo, hi]
    awk -F, -v lo="$1" -v hi="$2" '$1 == "rank" && $3 == "compute" { n++; if ($7 < lo || $7 > hi) bad = 1 } END { exit !(n == '"$np"' && !bad) }' \
      revprof-out/report.csv || { grep compute revprof-out/report.csv; fail "compute per rank not within [$1, $2] s"; }
  }
  case $what in
  burn) # unmodified: measured (0.2 s of CPU), and the report says auto chose it
    grep -q "REVPROF_COMPUTE=auto:measure " revprof-out/report.txt || fail "settings do not say auto:measure"
    grep -q '^setting,all,.*REVPROF_COMPUTE=auto:measure ' revprof-out/report.csv || fail "report.csv does not say auto:measure"
    grep -q "no-compute" revprof-out/report.txt && fail "a measured run is flagged no-compute"
    compute 0.18 0.6 ;;
  annotated) # 0.2 s measured before a barrier, then 1 s declared; neither
    # the 0.1 s between the barrier and the declaration (it covers them) nor
    # the 0.2 s after it are measured
    grep -q "REVPROF_COMPUTE=auto:measure>annotate@call[0-9]" revprof-out/report.txt \
      || fail "settings do not say that auto switched to annotate"
    compute 1.18 1.3 ;;
  iprobe) # 200000 polls, all seen; no message matched
    awk -F, '$1 == "function" && $3 == "MPI_Iprobe" && $4 == 200000 * '"$np"' { ok = 1 } END { exit !ok }' \
      revprof-out/report.csv || { grep Iprobe revprof-out/report.csv; fail "MPI_Iprobe calls not counted"; } ;;
  esac
  ;;
fortran-exact)
  # examples/pingpong_f.f90, 100 round trips of 128 doubles (1024 B) on the
  # exactness model, communication only: rank 0's round trip is 2 latencies
  # (the reply cannot leave before the request arrives), so MPI_WTIME reads
  # 100 * 2 * (5e-6 + 2e-9 * 1024) s, plus the 1e-8 s of one MPI_WTIME
  exe=$1 np=$2 how=${3:-linked}
  pre=
  [ "$how" = preload ] && pre="LD_PRELOAD=$RP_LIB"
  REVPROF_MODEL=$RP_MODEL run "$np" env $pre REVPROF_COMPUTE=zero "$exe" 128 100 \
    || { cat out err; fail "run failed"; }
  cat out
  grep -q "pingpong_f[0-9]*: 0 failed checks" out || fail "checks failed"
  got=$(sed -n 's/.*bytes: elapsed *//p' out)
  echo "$got" | awk '{ want = 100 * 2 * (5e-6 + 2e-9 * 1024) + 1e-8; d = $1 - want; if (d < 0) d = -d
                       printf "elapsed %.16g, analytic %.16g\n", $1, want; exit !(d < 1e-12) }' \
    || fail "MPI_WTIME in Fortran does not give the analytic prediction"
  awk -F, '$1 == "function" && $3 == "MPI_Send" && $4 == 200 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
    || { cat revprof-out/report.csv; fail "the Fortran MPI_SEND calls were not all intercepted"; }
  for fn in MPI_Barrier MPI_Recv MPI_Allreduce MPI_Waitany MPI_Waitall MPI_Finalize; do
    awk -F, -v fn=$fn '$1 == "function" && $3 == fn && $4 > 0 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
      || { cat revprof-out/report.csv; fail "$fn from Fortran not intercepted"; }
  done
  ;;
fortran-count)
  # tests/mpi/rp_f08_count.f90: large counts of use mpi_f08 reach revprof's
  # MPI_Send_c / MPI_Recv_c wrappers, data and count intact, in every mode
  exe=$1
  run 2 env REVPROF_MODE=off "$exe" || { cat out err; fail "native run failed"; }
  grep -q "^large-count f08: bad 0 count 16" out || { cat out; fail "native: wrong data"; }
  for mode in compensate sample predict; do # predict's report read below
    rm -rf revprof-out
    REVPROF_MODEL=$RP_MODEL REVPROF_MODE=$mode run 2 env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "$mode: run failed"; }
    grep -q "^large-count f08: bad 0 count 16" out || { cat out err; fail "$mode: wrong data or count"; }
  done
  for fn in MPI_Send_c MPI_Recv_c MPI_Send MPI_Recv; do
    awk -F, -v fn=$fn '$1 == "function" && $3 == fn && $4 == 1 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
      || { cat revprof-out/report.csv; fail "$fn from use mpi_f08 not intercepted once"; }
  done
  echo "fortran-count: mpi_f08's large counts through revprof's _c wrappers, data intact in every mode"
  ;;
fortran-compare)
  # tests/mpi/rp_fortran_h.f90 natively and preloaded: same lines, every
  # check passed, its calls intercepted
  exe=$1 np=$2
  REVPROF_MODEL=$RP_MODEL run "$np" env REVPROF_MODE=off "$exe" || { cat err; fail "native run failed"; }
  mv out native.out
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "revprof run failed"; }
  mv out revprof.out
  diff native.out revprof.out > diff.txt || { cat diff.txt; fail "outputs differ"; }
  cat revprof.out
  grep -q ", 0 failed checks" revprof.out || fail "checks failed"
  # a status' MPI_ERROR keeps the program's value (not compared natively:
  # Open MPI's own binding leaves it undefined)
  REVPROF_MODEL=$RP_MODEL RP_FORTRAN_STATUS=1 run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "revprof run (status) failed"; }
  grep -q "keeps MPI_ERROR" out && grep -q ", 0 failed checks" out || { cat out; fail "MPI_ERROR of a status not kept"; }
  for fn in MPI_Sendrecv MPI_Waitsome MPI_Iprobe MPI_Comm_split MPI_Type_free \
            MPI_Win_create MPI_Win_fence MPI_Put MPI_Neighbor_allgather \
            MPI_File_open MPI_File_write_at_all MPI_File_read_at MPI_File_close \
            MPI_File_set_view MPI_File_read_all MPI_File_delete; do
    awk -F, -v fn=$fn '$1 == "function" && $3 == fn && $4 > 0 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
      || fail "$fn from Fortran not intercepted"
  done
  grep -q "one-sided" revprof-out/report.txt && { head revprof-out/report.txt; fail "a Fortran window was not seen created"; }
  grep -q "^  io:" revprof-out/report.txt && { head revprof-out/report.txt; fail "a Fortran file was not seen opened"; }
  ;;
compensate)
  # mcpi: rank 0 (master) only waits; the workers run fine-grained regions.
  # Run A: compensate mode as is; run B: the same plus a busy-wait of INJ
  # seconds per event (REVPROF_INJECT_OVERHEAD), ~0.4-0.8 s in all. Checks
  # compare amounts, not wall-clock times, so that a loaded machine (which
  # stretches run B beyond the injection) does not fail them: B's measured
  # time grows by at least half the injection; parallel compensation
  # removes the injection (within 25 %) more in B than in A, on the workers
  # and on the master, which had none of it (it came in the piggybacked
  # delays); local compensation removes less than 25 % of it on the master.
  native=$1 rp=$2 np=$3 inj=2e-6
  args="--chunks 20 --chunk 10000"
  # shellcheck disable=SC2086
  run "$np" "$native" $args || { cat err; fail "native run failed"; }
  grep "pi ~" out > native.out
  for v in A B; do
    i=0; [ $v = B ] && i=$inj
    # shellcheck disable=SC2086
    REVPROF_MODE=compensate REVPROF_INJECT_OVERHEAD=$i run "$np" "$rp" $args || { cat err; fail "compensate run $v failed"; }
    grep "pi ~" out > $v.out
    diff native.out $v.out || fail "the program's output changed"
    grep -q "compensate report" err || { cat err; fail "no report on stderr"; }
    test -s revprof-out/compensate.txt || fail "no compensate.txt"
    cp revprof-out/compensate.csv $v.csv || fail "no compensate.csv"
  done
  workers=$((np - 1))
  awk -F, -v inj=$inj -v w=$workers '
    function fail(m) { print "rp_check compensate: FAIL: " m > "/dev/stderr"; bad = 1 }
    $2 == "(program)" { role = $1 == 0 ? "m" : "w" # w: the last worker
      if (FILENAME == "A.csv") { am[role] = $4; al[role] = $6; ap[role] = $8 }
      else { bm[role] = $4; bl[role] = $6; bp[role] = $8 } }
    END {
      nominal = 2 * inj * 200000 / w   # two events per point
      grow = bm["m"] - am["m"]
      pm = (bm["m"] - bp["m"]) - (am["m"] - ap["m"])
      pw = (bm["w"] - bp["w"]) - (am["w"] - ap["w"])
      lm = (bm["m"] - bl["m"]) - (am["m"] - al["m"])
      printf "measured master %.3f -> %.3f s (nominal injection %.3f s per worker)\n", am["m"], bm["m"], nominal
      printf "parallel master %.3f -> %.3f s, a worker %.3f -> %.3f s; local master %.3f -> %.3f s\n", ap["m"], bp["m"], ap["w"], bp["w"], al["m"], bl["m"]
      printf "removed more in B: parallel master %.3f s, a worker %.3f s; local master %.3f s\n", pm, pw, lm
      if (grow < 0.5 * nominal) fail("injection did not show in the measured time")
      if (pm < 0.75 * nominal || pm > 1.25 * nominal) fail("master: parallel compensation missed the injected overhead")
      if (pw < 0.75 * nominal || pw > 1.25 * nominal) fail("worker: parallel compensation missed the injected overhead")
      if (lm > 0.25 * nominal) fail("master: local compensation should not see remote overhead")
      exit bad }' A.csv B.csv || fail "see above"
  echo "compensate: injected overhead recovered"
  ;;
finstrument)
  # mcpi built with -finstrument-functions: on the worker, under() runs once
  # and uniform() twice per point (200000 points), as regions of their own.
  native=$1 fi=$2
  args="--chunks 20 --chunk 10000"
  # shellcheck disable=SC2086
  run 2 "$native" $args || { cat err; fail "native run failed"; }
  grep "pi ~" out > native.out
  # shellcheck disable=SC2086
  REVPROF_MODE=compensate run 2 "$fi" $args || { cat err; fail "compensate run failed"; }
  grep "pi ~" out | diff native.out - || fail "the program's output changed"
  csv=revprof-out/compensate.csv
  grep -q '^1,[^,]*,200000,' "$csv" || { cat "$csv"; fail "no function called 200000 times on rank 1"; }
  grep -q '^1,[^,]*,400000,' "$csv" || { cat "$csv"; fail "no function called 400000 times on rank 1"; }
  # beside a tool rank the functions are regions of the monitoring profile
  rm -rf revprof-out
  # shellcheck disable=SC2086
  REVPROF_MODE=compensate REVPROF_MONITOR=1 run 3 "$fi" $args || { cat out err; fail "monitored run failed"; }
  grep "pi ~" out | diff native.out - || fail "monitored: the program's output changed"
  mon=revprof-out/monitor
  grep -q "^regions in the profile: [1-9][0-9]* of 32 slots" $mon/summary.txt || { cat $mon/summary.txt; fail "no functions in the profile"; }
  awk -F, '$2 ~ /^region\..*\.calls$/ && $7 == 400000 { a = 1 } $2 ~ /^region\..*\.calls$/ && $7 == 200000 { b = 1 }
           END { exit !(a && b) }' $mon/profile.csv || { grep region $mon/profile.csv; fail "the worker's functions not in the profile"; }
  echo "finstrument: functions profiled, in the monitoring profile too"
  ;;
overhead-model)
  # REVPROF_OVERHEAD=model: the model's overhead table is used and printed;
  # a model without it is an error that leaves the program running as is.
  native=$1 rp=$2
  args="--chunks 5 --chunk 1000"
  head='return { format = "revprof-model 1", functions = {},'
  printf '%s overhead = { region_enter = 4e-8, region_exit = 5e-8, mpi_wrapper = 1e-7, piggyback = 2e-8 } }\n' "$head" > good.lua
  printf '%s overhead = { mpi_wrapper = 1e-7 } }\n' "$head" > lacking.lua
  # shellcheck disable=SC2086
  run 2 "$native" $args || { cat err; fail "native run failed"; }
  grep "pi ~" out > native.out
  # shellcheck disable=SC2086
  REVPROF_MODE=compensate REVPROF_OVERHEAD=model REVPROF_MODEL=$RP_WORK/good.lua run 2 "$rp" $args || { cat err; fail "run with the model failed"; }
  grep "pi ~" out | diff native.out - || fail "the program's output changed"
  grep -q "overhead per event (model): region enter+exit 9.000e-08 s (4.500e-08 s inside the region), MPI wrapper 1.000e-07 s, piggyback 2.000e-08 s" revprof-out/compensate.txt || { cat revprof-out/compensate.txt; fail "model values not used"; }
  # shellcheck disable=SC2086
  REVPROF_MODE=compensate REVPROF_OVERHEAD=model REVPROF_MODEL=$RP_WORK/lacking.lua run 2 "$rp" $args || { cat err; fail "run with the lacking model failed"; }
  grep "pi ~" out | diff native.out - || fail "the program's output changed"
  grep -q "lacks region_enter.*compensation is off" err || { cat err; fail "no message about the lacking model"; }
  echo "overhead-model: model values used, lacking table refused"
  ;;
cost-throttle)
  # mcpi's worker runs 200000 regions of about 0.1 us ("point"), whose
  # enter + exit costs about as much: far over a 5 % bound on any machine.
  # The regulation turns "point" off early, logs why, marks it in the
  # profile (throttled_calls) and flags it; the program's output is the
  # same, and every point is either profiled or counted as throttled.
  native=$1 rp=$2
  args="--chunks 20 --chunk 10000"
  # shellcheck disable=SC2086
  run 2 "$native" $args || { cat err; fail "native run failed"; }
  grep "pi ~" out > native.out
  # periods of 10 ms: several of them within the run even when the machine
  # is busy (the default 0.1 s can exceed the whole run)
  # shellcheck disable=SC2086
  REVPROF_COST_PERIOD=0.01 REVPROF_MODE=compensate REVPROF_MAX_OVERHEAD=5% run 2 "$rp" $args || { cat err; fail "compensate run failed"; }
  grep "pi ~" out | diff native.out - || fail "the program's output changed"
  d=revprof-out
  grep -q "bound 5 %" err || { cat err; fail "no predicted cost line with the bound on stderr"; }
  grep -q '^1,[0-9.]*,lower,"region point off"' $d/cost-decisions.csv || { cat $d/cost-decisions.csv; fail "point was not turned off"; }
  awk -F, '$1 == 1 && $2 == "point" { n = $3 + $10; t = $10 } END {
    if (n != 200000 || t <= 0) { print "profiled + throttled " n ", throttled " t > "/dev/stderr"; exit 1 } }' $d/compensate.csv || { cat $d/compensate.csv; fail "point's calls not all accounted for"; }
  grep -q "^  throttled: regions or functions turned off (REVPROF_MAX_OVERHEAD" $d/compensate.txt || { head $d/compensate.txt; fail "no throttled flag in compensate.txt"; }
  grep -q '^all,"(flag) throttled:' $d/compensate.csv || fail "no throttled flag in compensate.csv"
  grep -q "OFF$" $d/compensate.txt || fail "the region is not marked OFF in compensate.txt"
  grep -q "^cost: instrumentation cost: predicted .*bound 5 %; regulated" $d/compensate.txt || fail "no cost line in compensate.txt"
  for k in mpi region skipped; do
    grep -q "^1,$k,[1-9]" $d/cost.csv || { cat $d/cost.csv; fail "no $k events counted on rank 1"; }
  done
  test "$(wc -l < $d/cost-series.csv)" -ge 3 || fail "no time series"
  echo "cost-throttle: point turned off, accounted for and flagged"
  ;;
now-modes)
  # revprof_now and its bounds after a barrier: min <= avg <= max and now =
  # avg > 0 in predict mode (the model's barrier costs > 0); 0 in compensate
  # and sample modes, whose clocks hold delays and send times, with revprof
  # on (enabled 1) all the same.
  rp=$1
  for mode in predict compensate sample; do
    rm -rf revprof-out
    REVPROF_MODE=$mode REVPROF_MODEL=$RP_MODEL run 2 "$rp" || { cat out err; fail "$mode run failed"; }
    [ "$(grep -c '^now: ' out)" = 2 ] || { cat out err; fail "$mode: not 2 'now:' lines"; }
    awk -v m=$mode '$1 == "now:" {
        if ($3 != 1) { print m ": rank " $2 " not enabled"; bad = 1 }
        if (m == "predict" && !($4 > 0 && $4 == $6 && $5 <= $6 && $6 <= $7)) {
          print m ": rank " $2 " clocks " $4 " [" $5 ", " $6 ", " $7 "]"; bad = 1 }
        if (m != "predict" && ($4 != 0 || $5 != 0 || $6 != 0 || $7 != 0)) {
          print m ": rank " $2 " reads " $4 " [" $5 ", " $6 ", " $7 "], not 0"; bad = 1 }
      } END { exit bad }' out || { cat out; fail "$mode: revprof_now"; }
  done
  echo "now-modes: the simulated clock in predict mode, 0 in compensate and sample"
  ;;
cost-modes)
  # The counters and the calibration are there in every mode: cost.csv has
  # each rank's MPI calls with a cost > 0, counted as the report counts
  # them (predict), and the mode's own kinds.
  rp=$1
  args="--chunks 4 --chunk 1000"
  for mode in predict compensate sample; do
    rm -rf revprof-out
    # shellcheck disable=SC2086
    trace=""; [ $mode = predict ] && trace=text
    REVPROF_MODE=$mode REVPROF_MODEL=$RP_MODEL REVPROF_SAMPLE=all REVPROF_TRACE=$trace run 2 "$rp" $args || { cat err; fail "$mode run failed"; }
    grep -q "^revprof: instrumentation cost predicted .* % of one CPU per rank" err || { cat err; fail "$mode: no predicted cost on stderr"; }
    c=revprof-out/cost.csv
    for r in 0 1; do
      grep -q "^$r,mpi,[1-9][0-9]*," $c || { cat $c; fail "$mode: rank $r has no MPI calls counted"; }
      # a cost of 0 only where the calibration said it found none (on a
      # loaded machine revprof's round can come out no slower than PMPI's)
      grep -q "^$r,mpi,[1-9][0-9]*,[1-9]" $c || grep -rq "cost-calibration" revprof-out \
        || { cat $c; fail "$mode: rank $r's MPI calls have no cost and no cost-calibration flag"; }
    done
    case $mode in
    predict)
      grep -q "^cost: *instrumentation cost" revprof-out/report.txt || fail "no cost line in report.txt"
      # the MPI calls counted are those of the report
      awk -F, 'FILENAME ~ /cost/ && $2 == "mpi" { c[$1] = $3 }
        FILENAME ~ /report/ && $1 == "function" { r[$2] += $4 }
        END { for (k in c) if (c[k] != r[k]) { print "rank " k ": cost.csv " c[k] ", report.csv " r[k] > "/dev/stderr"; bad = 1 } exit bad }' \
        $c revprof-out/report.csv || { head -3 revprof-out/report.csv; fail "MPI calls counted differ from the report's"; }
      # traced: a record per MPI call and per message, each with its cost
      grep -q "^[01],trace,[1-9][0-9]*,[1-9]" $c || { cat $c; fail "no trace records counted or no cost"; } ;;
    compensate) grep -q "^1,region,[1-9]" $c || fail "compensate: no regions counted" ;;
    sample)
      grep -q "^[01],sample,[1-9]" $c || { cat $c; fail "sample: no samples counted"; }
      grep -q "^cost: *instrumentation cost" revprof-out/sample.txt || fail "no cost line in sample.txt" ;;
    esac
  done
  echo "cost-modes: counters and calibration in predict, compensate and sample"
  ;;
cost-calibration)
  # A calibration at MPI_Init that finds revprof's work per MPI call free
  # (REVPROF_TEST_CALIBRATION=zero, as a loaded machine can) is flagged,
  # not taken silently as the cost: compensate's own (REVPROF_OVERHEAD=
  # calibrate: not the model's rows), which its compensation uses, and the
  # instrumentation cost's in predict mode; a bad value is refused, named.
  rp=$1
  for m in predict compensate; do
    rm -rf revprof-out
    REVPROF_MODE=$m REVPROF_MODEL=$RP_MODEL REVPROF_OVERHEAD=calibrate REVPROF_TEST_CALIBRATION=zero \
      run 2 "$rp" --chunks 2 --chunk 100 || { cat err; fail "$m run failed"; }
    case $m in
      predict) want="the instrumentation cost's calibration found revprof's work per MPI call no dearer" ;;
      *) want="compensate's calibration found revprof's MPI wrapper and piggyback no dearer than PMPI's in 20 rounds" ;;
    esac
    flag_seen $m cost-calibration "$want" || fail "$m: no cost-calibration flag in the text's header or the CSV"
    for r in 0 1; do
      grep -q "^$r,mpi,[1-9][0-9]*,0.000000e+00," revprof-out/cost.csv || { cat revprof-out/cost.csv; fail "$m: rank $r's MPI calls are not counted at 0 s"; }
    done
  done
  rm -rf revprof-out
  # (a bad setting turns revprof off; the program itself still runs)
  REVPROF_MODE=compensate REVPROF_TEST_CALIBRATION=1 run 2 "$rp" --chunks 2 --chunk 100 || { cat err; fail "the run with a bad setting failed"; }
  grep -q 'REVPROF_TEST_CALIBRATION="1": expected .zero.; .* the program runs without revprof' err \
    || { cat err; fail "REVPROF_TEST_CALIBRATION=1 was not refused by name"; }
  echo "cost-calibration: a free calibration flagged in predict and compensate mode"
  ;;
cost-sample)
  # Sample mode under a bound its MPI interception alone exceeds: the
  # sampling is lowered first (all -> random:0.5 -> ...), each step logged,
  # the lowered technique flagged in sample.txt and latency.csv; then
  # nothing is left (the MPI interception stays), said once.
  rp=$1
  REVPROF_MODE=sample REVPROF_SAMPLE=all REVPROF_MAX_OVERHEAD=0.0001% REVPROF_COST_PERIOD=0.002 \
    run 2 "$rp" --chunks 40 --chunk 2000 || { cat err; fail "sample run failed"; }
  d=revprof-out
  grep -q '^[01],[0-9.]*,lower,"sampling random:0.5 (was all)"' $d/cost-decisions.csv || { cat $d/cost-decisions.csv; fail "the sampling was not lowered first"; }
  grep -q '^[01],[0-9.]*,lower,"sampling random:0.25 (was random:0.5)"' $d/cost-decisions.csv || fail "no second step"
  grep -q "^  sample-lowered: REVPROF_MAX_OVERHEAD lowered the sampling" $d/sample.txt || { head $d/sample.txt; fail "no sample-lowered flag in sample.txt"; }
  grep -q "^# flag: sample-lowered" $d/latency.csv || fail "no flag in latency.csv"
  grep -q "technique: REVPROF_SAMPLE=random:" $d/sample.txt || fail "sample.txt does not show the lowered technique"
  echo "cost-sample: sampling lowered step by step, logged and flagged"
  ;;
dry-cost)
  # revprof run --dry-cost: the prediction by kind on stdout, then the
  # program ends at MPI_Init (mcpi prints nothing before its end); a bad
  # bound is refused before anything runs; a previous run's cost.csv gives
  # the rates.
  tool=$1 exe=$2
  export REVPROF_LIB=$RP_LIB
  REVPROF_MODE=compensate "$tool" run --model "$RP_MODEL" --dry-cost --max-overhead 0.001% -o dry -- "$exe" > out 2> err || { cat out err; fail "dry run failed"; }
  grep -q "^revprof dry cost: mode compensate, 1 rank" out || { cat out err; fail "no dry cost header"; }
  grep -q "^  region " out || fail "no region row"
  grep -q "over the bound: lowered first: the user regions" out || { cat out; fail "no word about what is lowered first"; }
  grep -q "pi ~" out && fail "the program ran"
  test -e dry/compensate.txt && fail "a report was written"
  "$tool" run --model "$RP_MODEL" --max-overhead 5 -- "$exe" > out 2> err && fail "a bound without % was taken"
  grep -q "REVPROF_MAX_OVERHEAD=5: expected a percentage" err || { cat err; fail "no message about the bound"; }
  REVPROF_MODE=compensate REVPROF_MODEL=$RP_MODEL run 2 env LD_PRELOAD="$RP_LIB" "$exe" --chunks 4 --chunk 1000 || { cat err; fail "profile run failed"; }
  REVPROF_MODE=compensate "$tool" run --model "$RP_MODEL" --dry-cost --cost-profile revprof-out -o dry -- "$exe" > out 2> err || { cat out err; fail "dry run with a profile failed"; }
  grep -q "rates of .*revprof-out/cost.csv" out || { cat out err; fail "the profile's rates were not used"; }
  # REVPROF_DRY_COST with a tool rank beside the program (revprof run
  # --dry-cost runs one rank alone): the application ranks end at MPI_Init
  # and the tool rank with them (it used to wait for them forever); the
  # offloads' cost unknown, said
  REVPROF_MODE=compensate REVPROF_DRY_COST=1 REVPROF_MONITOR=1 REVPROF_OUTPUT_DIR=drymon \
    run 3 env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "dry run with monitoring failed"; }
  grep -q "^  offload  *unknown  *[0-9.]*  *left out" out || { cat out err; fail "no offload row left out"; }
  grep -q "pi ~" out && fail "the program ran beside a tool rank"
  echo "dry-cost: predicted without running, bad bound refused, profile read, a tool rank ended with the program"
  ;;
monitor)
  # online monitoring (seed 004): tool ranks beside the application's
  what=$1; shift
  export REVPROF_MODEL="$RP_MODEL"
  mon=revprof-out/monitor
  checksum() { sed -n 's/.*\(checksum [0-9.]*\).*/\1/p' "$1"; }
  case $what in
  semantics) # 4 application ranks beside 3 tool ranks see a world of 4
    native=$1 rp=$2
    run 4 env REVPROF_MODE=off "$native" || { cat err; fail "native run failed"; }
    mv out native.out
    REVPROF_MONITOR=3 REVPROF_MONITOR_FANOUT=2 run 7 "$rp" || { cat out err; fail "monitored run failed"; }
    diff native.out out > diff.txt || { cat diff.txt; fail "outputs differ"; }
    grep -q "^semantics: 4 ranks, 0 failed checks" out || fail "checks failed"
    grep -q "^monitor: *3 tool ranks beside these 4 (fanout 2" revprof-out/report.txt || { cat revprof-out/report.txt; fail "no monitor line in the report"; }
    grep -q "^rounds: [1-9][0-9]* (complete [1-9]" $mon/summary.txt || { cat $mon/summary.txt; fail "no complete round"; }
    echo "monitor semantics: 4 + 3 ranks, the program saw 4, identical output"
    ;;
  timer) # timer-driven offloads (REVPROF_MONITOR_INTERVAL in seconds, the
    # default kind): several rounds over a run of many intervals, each in a
    # later slot than the one before, and the output as natively
    native=$1 rp=$2
    run 2 env REVPROF_MODE=off "$native" || { cat err; fail "native run failed"; }
    mv out native.out
    REVPROF_MONITOR=1 REVPROF_MONITOR_INTERVAL=0.0001 run 3 "$rp" || { cat out err; fail "monitored run failed"; }
    diff native.out out > diff.txt || { cat diff.txt; fail "outputs differ"; }
    n=$(sed -n 's/^rounds: *\([0-9]*\).*/\1/p' $mon/summary.txt)
    [ -n "$n" ] && [ "$n" -ge 3 ] || { cat $mon/summary.txt; fail "$n rounds at 0.1 ms intervals: the timer did not offload"; }
    awk -F, 'NR > 1 { if (NR > 2 && !($2 > prev)) bad = 1; prev = $2 } END { exit bad }' $mon/rounds.csv \
      || { cat $mon/rounds.csv; fail "rounds.csv: ids (slots) not increasing"; }
    echo "monitor timer: $n rounds at 0.1 ms intervals, identical output"
    ;;
  rounds) # each offload round reaches the front-end with right statistics,
    # in every mode and with both filters; the program's result unchanged
    exe=$1
    run 4 env REVPROF_MODE=off "$exe" -i 12 -c 1 || { cat err; fail "native run failed"; }
    want=$(checksum out)
    [ -n "$want" ] || { cat out; fail "no checksum"; }
    for mode in predict compensate sample; do
      for filter in stats hist; do
        rm -rf revprof-out
        REVPROF_MODE=$mode REVPROF_MONITOR=3 REVPROF_MONITOR_FANOUT=2 REVPROF_MONITOR_INTERVAL=calls \
          REVPROF_MONITOR_FILTER=$filter run 7 "$exe" -i 12 -c 1 || { cat out err; fail "$mode/$filter: run failed"; }
        [ "$(checksum out)" = "$want" ] || { cat out; fail "$mode/$filter: checksum $(checksum out), natively $want"; }
        grep -q "^rounds: 13 (complete 13, partial 0, discarded 0" $mon/summary.txt || { cat $mon/summary.txt; fail "$mode/$filter: not 13 complete rounds"; }
        [ "$(wc -l < $mon/rounds.csv)" -eq 14 ] || fail "$mode/$filter: rounds.csv"
        awk -F, 'NR > 1 && !($4 > 0 && $5 > 0 && $6 == 4 && $7 == 0) { bad = 1 } END { exit bad }' $mon/rounds.csv \
          || { cat $mon/rounds.csv; fail "$mode/$filter: OWD, OC or ranks wrong"; }
        # one host: one clock, no offset measured (a round trip between
        # busy shared cores once put one of -2 ms on the OWDs)
        grep -q "^clocks: one host" $mon/summary.txt || { cat $mon/summary.txt; fail "$mode/$filter: clocks not one host's"; }
        [ "$(wc -l < $mon/loss.csv)" -eq 1 ] || fail "$mode/$filter: losses without a lossy scheme"
        # round k holds k barriers on each of the 4 ranks (the 13th: the
        # final profile at MPI_Finalize, 12)
        if [ $filter = stats ]; then
          awk -F, '$2 == "MPI_Barrier.calls" { k = $1 < 13 ? $1 : 12; n++
                   if ($3 != 4 || $4 != k || $5 != 0 || $6 != k || $7 != k) bad = 1 }
                   END { exit bad || n != 13 }' $mon/profile.csv \
            || { grep Barrier.calls $mon/profile.csv; fail "$mode: wrong statistics"; }
        else
          awk -F, '$2 == "MPI_Barrier.calls" { k = $1 < 13 ? $1 : 12; n++
                   if ($4 != 4 || !($3 <= k && k < 2 * $3)) bad = 1 }
                   END { exit bad || n != 13 }' $mon/profile.csv \
            || { grep Barrier.calls $mon/profile.csv; fail "$mode: wrong histogram"; }
        fi
        # the simulated clock is an event of predict mode only (the other
        # modes' clocks carry their own bookkeeping: 0, left out)
        if [ $mode = predict ]; then
          grep -q "^[0-9]*,clock," $mon/profile.csv || { head $mon/profile.csv; fail "predict/$filter: no clock in the profile"; }
        else
          grep -q "^[0-9]*,clock," $mon/profile.csv && { grep ",clock," $mon/profile.csv | head -3; fail "$mode/$filter: a clock in the profile"; }
        fi
        # the offloads are an event kind of the instrumentation cost: 13
        # per rank, costed at the mean time they took (their OC); without
        # a model (compensate, sample) the prediction says it left them out
        awk -F, '$2 == "offload" { n++; if ($3 != 13 || !($4 > 0) || $14 != "offloads") bad = 1 }
                 END { exit bad || n != 4 }' revprof-out/cost.csv \
          || { cat revprof-out/cost.csv; fail "$mode/$filter: the offloads not in cost.csv"; }
        if [ $mode = predict ]; then
          grep -q "timed: monitoring's offloads" err && { cat err; fail "predict: the model's offload cost not used"; }
        else
          grep -q "^revprof: instrumentation cost predicted .*left out until their first events are timed: monitoring's offloads" err \
            || { cat err; fail "$mode/$filter: the prediction does not say it left the offloads out"; }
        fi
        # compensate mode's regions, "compute" and "reduce", met in either
        # order by even and odd ranks: each in one slot for all 4 ranks
        if [ $mode = compensate ]; then
          grep -q "^regions in the profile: 2 of [0-9]* slots (" $mon/summary.txt \
            || { cat $mon/summary.txt; fail "$mode/$filter: regions not in the summary"; }
          for r in compute reduce; do
            if [ $filter = stats ]; then
              awk -F, -v ev=region.$r.calls '$2 == ev { k = $1 < 13 ? $1 : 12; n++
                       if ($3 != 4 || $4 != k || $5 != 0 || $6 != k || $7 != k) bad = 1 }
                       END { exit bad || n != 13 }' $mon/profile.csv \
                || { grep "region" $mon/profile.csv; fail "$mode: wrong statistics of region $r"; }
              awk -F, -v ev=region.$r.time '$2 == ev { n++; if (!($6 > 0)) bad = 1 }
                       END { exit bad || n != 13 }' $mon/profile.csv \
                || { grep "region" $mon/profile.csv; fail "$mode: no time of region $r"; }
            else
              awk -F, -v ev=region.$r.calls '$2 == ev { k = $1 < 13 ? $1 : 12; n++
                       if ($4 != 4 || !($3 <= k && k < 2 * $3)) bad = 1 }
                       END { exit bad || n != 13 }' $mon/profile.csv \
                || { grep "region" $mon/profile.csv; fail "$mode: wrong histogram of region $r"; }
            fi
          done
        else
          grep -q "region" $mon/profile.csv && { grep region $mon/profile.csv | head; fail "$mode/$filter: region data without regions"; }
          grep -q "^regions in the profile: 0 of" $mon/summary.txt || { cat $mon/summary.txt; fail "$mode/$filter: summary's regions"; }
        fi
      done
    done
    echo "monitor rounds: 13 complete rounds with right statistics and histograms in predict, compensate and sample mode, compensate mode's regions among them; $want as natively"
    ;;
  late) # rank 0 reaches MPI_Finalize 0.5 s after rank 1, ten slots of the
    # timer later: the final round is one for both, complete
    exe=$1
    REVPROF_MONITOR=1 REVPROF_MONITOR_INTERVAL=0.05 run 3 env LD_PRELOAD="$RP_LIB" "$exe" 500 \
      || { cat out err; fail "run failed"; }
    awk -F, 'NR > 1 { s = $8 } END { exit s != "complete" }' $mon/rounds.csv \
      || { cat $mon/rounds.csv; fail "the last round is not complete"; }
    echo "monitor late: rank 0 at MPI_Finalize 0.5 s after rank 1, the last round complete"
    ;;
  live) # rounds.csv while the job runs: its rows as the rounds arrive,
    # the OC column empty until the end, then filled
    exe=$1
    REVPROF_MONITOR=1 REVPROF_MONITOR_INTERVAL=calls run 3 "$exe" || { cat out err; fail "run failed"; }
    cat out
    # the cost of each round's previous offload is there live (rounds 2, 3)
    grep -q "^live rounds: 3 of 3, oc empty: 3, previous oc: 2$" out || { cat out err; fail "rounds.csv not written as the rounds arrived"; }
    awk -F, 'NR > 1 { n++; if ($5 == "" || !($5 > 0)) bad = 1 } END { exit bad || n < 4 }' $mon/rounds.csv \
      || { cat $mon/rounds.csv; fail "the final rounds.csv lacks the OC"; }
    # every rank in every round: a row's prev_oc_s is the row before's oc_s
    awk -F, 'NR == 2 && $10 != 0 { bad = 1 } NR > 2 && $10 != oc { bad = 1 } { oc = $5 }
             END { exit bad }' $mon/rounds.csv || { cat $mon/rounds.csv; fail "prev_oc_s is not the previous round's OC"; }
    test -e $mon/rounds.csv.tmp && fail "rounds.csv.tmp left"
    echo "monitor live: 3 rounds in rounds.csv while the job ran with the OC of the round before each, the OC filled at its end"
    ;;
  regions) # 41 region names, 40 met in a different order by each rank:
    # 32 slots, the same for both ranks; the 9 others said in the summary.
    # The first name is 250 characters long with a comma: cut to 200, the
    # comma made _ (profile.csv's event column)
    exe=$1
    REVPROF_MODE=compensate RP_REGIONS=40 REVPROF_MONITOR=1 REVPROF_MONITOR_INTERVAL=calls run 3 "$exe" \
      || { cat out err; fail "run failed"; }
    cat $mon/summary.txt
    grep -q "^regions in the profile: 32 of 32 slots (long_namexxx*, r" $mon/summary.txt || fail "not 32 regions in the profile"
    grep -q "^regions left out of the profile (no slot left): 9 (r" $mon/summary.txt || fail "the 9 regions left out not said"
    # the final round: 32 regions of one call on each of the 2 ranks
    last=$(awk -F, 'NR > 1 { r = $1 } END { print r }' $mon/profile.csv)
    awk -F, -v r="$last" '$1 == r && $2 ~ /^region\..*\.calls$/ { n++
             if ($3 != 2 || $4 != 1 || $6 != 1 || $7 != 1) bad = 1 }
             NF != 7 { bad = 1 }
             END { exit bad || n != 32 }' $mon/profile.csv \
      || { grep "^$last,region" $mon/profile.csv; fail "region statistics wrong in round $last"; }
    awk -F, -v r="$last" '$1 == r && $2 ~ /^region\.long_name.*\.calls$/ { n = length($2) } END { exit n != length("region..calls") + 200 }' \
      $mon/profile.csv || { grep "long" $mon/profile.csv; fail "the long name not cut to 200 characters"; }
    # predict mode's Lua regions: calls and predicted (avg) seconds by name
    printf 'function a() return 1e-6, 2e-6, 4e-6 end\nfunction b() return 1e-6, 3e-6, 9e-6 end\n' > ab.lua
    rm -rf revprof-out
    REVPROF_MODEL=$RP_MODEL REVPROF_COMPUTE=annotate REVPROF_LUA=$PWD/ab.lua RP_LUA_REGIONS=50 REVPROF_MONITOR=1 \
      REVPROF_MONITOR_INTERVAL=calls run 3 "$exe" || { cat out err; fail "Lua regions: run failed"; }
    grep -q "^regions in the profile: 2 of 32 slots (a, b)" $mon/summary.txt || { cat $mon/summary.txt; fail "Lua regions not in the summary"; }
    last=$(awk -F, 'NR > 1 { r = $1 } END { print r }' $mon/profile.csv)
    awk -F, -v r="$last" '$1 != r || $2 !~ /^region\./ { next }
        { n++ }
        $2 == "region.a.calls" && !($4 == 50 && $6 == 50 && $7 == 50) { bad = 1 }
        $2 == "region.b.calls" && !($4 == 100 && $6 == 100 && $7 == 100) { bad = 1 }
        $2 == "region.a.time" && !($4 > 0.99e-4 && $4 < 1.01e-4) { bad = 1 }
        $2 == "region.b.time" && !($4 > 2.99e-4 && $4 < 3.01e-4) { bad = 1 }
        END { exit bad || n != 4 }' $mon/profile.csv \
      || { grep "^$last,region" $mon/profile.csv; fail "Lua region statistics wrong in round $last"; }
    echo "monitor regions: 32 of 41 region names in one slot each for both ranks, 9 said left out, a long name cut; predict mode's Lua regions by name"
    ;;
  lossy) # a bounded queue drops, and the loss is recorded
    exe=$1
    run 4 env REVPROF_MODE=off "$exe" -i 300 -c 0 || { cat err; fail "native run failed"; }
    want=$(checksum out)
    # the tool rank sleeps 20 ms when idle: a queue of one fills
    REVPROF_MONITOR=1 REVPROF_MONITOR_OFFLOAD=lossy:1 REVPROF_MONITOR_POLL_US=20000 REVPROF_MONITOR_INTERVAL=calls \
      run 5 "$exe" -i 300 -c 0 || { cat out err; fail "lossy run failed"; }
    [ "$(checksum out)" = "$want" ] || fail "checksum $(checksum out), natively $want"
    dropped=$(sed -n 's/^offloads: [0-9]* sent, \([0-9]*\) dropped.*/\1/p' $mon/summary.txt)
    [ "${dropped:-0}" -gt 0 ] || { cat $mon/summary.txt; fail "nothing dropped"; }
    [ "$(wc -l < $mon/loss.csv)" -gt 1 ] || fail "empty loss map"
    grep -q "monitor-loss: .* profile offloads dropped" revprof-out/report.txt || { sed '/^$/q' revprof-out/report.txt; fail "no monitor-loss flag"; }
    awk '/^rounds:/ { gsub(/[(),:]/, " "); if ($2 != $4 + $6 + $8) exit 1 }' $mon/summary.txt || fail "rounds do not add up"
    echo "monitor lossy: $dropped offloads dropped and recorded; $want as natively"
    ;;
  auto) # REVPROF_MONITOR_INTERVAL=auto: offloads thinned to a probed BOI
    # of 2 s, the same calls on every rank (every round complete); the
    # calls are 1 to 30 ms apart (under MPICH's polling on shared cores),
    # up to 60 ms on a loaded machine: at most 52 x 0.06 / 2 = 1.6 kept
    exe=$1
    printf '%s\n' "apps,tools,fanout,filter,offload,events,rest_owd_s,rest_sd_s,boi_s,owd_s,oc_s,lo_pct,steps,model_boi_s,model_oc_s,model_lo_pct" \
      "4,1,8,stats,blocking,1024,0.001,0.0001,2,0.001,0.0001,2,5,nan,nan,nan" > probe.csv
    REVPROF_MONITOR=1 REVPROF_MONITOR_INTERVAL=auto REVPROF_MONITOR_PROBE_FILE=$RP_WORK/probe.csv \
      run 5 "$exe" -i 60 -c 1 || { cat out err; fail "auto run failed"; }
    n=$(sed -n 's/^rounds: \([0-9]*\) (complete \([0-9]*\),.*/\1 \2/p' $mon/summary.txt)
    set -- $n
    [ "$1" = "$2" ] || { cat $mon/summary.txt; fail "auto: rounds not all complete (ranks thinned differently)"; }
    # 8 timed calls, then a share d / BOI of the 52 others (at most 4),
    # then the final profile
    [ "$1" -ge 9 ] && [ "$1" -le 13 ] || { cat $mon/summary.txt; fail "auto: $1 rounds of 61 calls (BOI 2 s)"; }
    grep -q "monitor-auto" revprof-out/report.txt && fail "auto: flagged although a BOI was found"
    # a search's BOI of 1 ms below a measured capacity of 2 s: the
    # capacity is what the tree can take, so the calls are thinned to it
    printf '%s\n' "apps,tools,fanout,filter,offload,events,rest_owd_s,rest_sd_s,boi_s,owd_s,oc_s,lo_pct,steps,model_boi_s,model_oc_s,model_lo_pct,repeats,boi_min_s,boi_max_s,capacity_s" \
      "4,1,8,stats,blocking,1024,0.001,0.0001,0.001,0.001,0.0001,9,5,nan,nan,nan,1,0.001,0.001,2" > probe-cap.csv
    rm -rf revprof-out
    REVPROF_MONITOR=1 REVPROF_MONITOR_INTERVAL=auto REVPROF_MONITOR_PROBE_FILE=$RP_WORK/probe-cap.csv \
      run 5 "$exe" -i 60 -c 1 || { cat out err; fail "auto run with a capacity failed"; }
    c=$(sed -n 's/^rounds: \([0-9]*\) (complete.*/\1/p' $mon/summary.txt)
    [ "$c" -ge 9 ] && [ "$c" -le 13 ] || { cat $mon/summary.txt; fail "auto: $c rounds of 61 calls (capacity 2 s over a BOI of 1 ms)"; }
    rm -rf revprof-out
    REVPROF_MONITOR=1 REVPROF_MONITOR_INTERVAL=auto REVPROF_MONITOR_PROBE_FILE=$RP_WORK/none.csv \
      run 5 "$exe" -i 60 -c 1 || { cat out err; fail "auto run without a probe failed"; }
    grep -q "^rounds: 61 (complete 61" $mon/summary.txt || { cat $mon/summary.txt; fail "auto without a probe: not every call"; }
    grep -q "monitor-auto: REVPROF_MONITOR_INTERVAL=auto found no probed BOI" revprof-out/report.txt || fail "auto without a probe: not flagged"
    echo "monitor auto: $1 of 61 calls offloaded at a BOI of 2 s, all complete; without a probe every call, flagged"
    ;;
  fortran) # a Fortran program's MPI_COMM_WORLD is the application's
    exe=$1
    run 2 env REVPROF_MODE=off "$exe" || { cat err; fail "native run failed"; }
    mv out native.out
    REVPROF_MONITOR=1 run 3 env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "monitored run failed"; }
    diff native.out out > diff.txt || { cat diff.txt; fail "outputs differ"; }
    grep -q ", 0 failed checks" out || fail "checks failed"
    grep -q "^rounds: [1-9]" $mon/summary.txt || fail "no round"
    echo "monitor fortran: identical output beside a tool rank"
    ;;
  probe) # the BOI search ends on a small configuration
    tool=$1
    export REVPROF_LIB=$RP_LIB
    "$tool" monitor-probe --monitor 1 -np 2 --events 16:32 --rounds 6 --growth round --predict --model "$RP_MODEL" -o probe > out 2> err \
      || { cat out err; fail "monitor-probe failed"; }
    cat out
    [ "$(grep -c "BOI .* ms after [0-9]* steps" out)" -eq 2 ] || fail "not two sizes probed"
    grep -q "growth per round" err || { cat err; fail "--growth round not said"; }
    awk -F, 'NR > 1 { n++; if (!($9 > 0 && $11 > 0 && $14 > 0 && $21 == "round")) bad = 1 } END { exit bad || n != 2 }' probe/monitor/probe.csv \
      || { cat probe/monitor/probe.csv; fail "probe.csv"; }
    "$tool" monitor-probe --monitor 1 -np 2 --events 16:64 --model-only --model "$RP_MODEL" > out 2> err || { cat err; fail "--model-only failed"; }
    [ "$(grep -c '^ *[0-9][0-9]* ' out)" -eq 3 ] || { cat out; fail "--model-only rows"; }
    # --repeat: three searches per size, their medians and the BOI's range
    "$tool" monitor-probe --monitor 1 -np 1 --events 16:16 --rounds 4 --repeat 3 -o rep > out 2> err \
      || { cat out err; fail "monitor-probe --repeat 3 failed"; }
    cat out
    grep -q "BOI .* ms after [0-9]* steps.*(medians of 3 searches; BOI .*\.\..* ms)" out || fail "--repeat not said"
    [ "$(awk -F, '$1 == "events" && $8 == "repeat"' rep/monitor/probe-steps.csv | wc -l)" -eq 1 ] \
      && awk -F, 'NR > 1 { r[$8] = 1 } END { exit !(length(r) == 3) }' rep/monitor/probe-steps.csv \
      || { cat rep/monitor/probe-steps.csv; fail "probe-steps.csv: not 3 searches"; }
    # a step's rounds (rp_boi_rounds): under the step's rule as long as the
    # first step, L * first / interval up to 32 L (L = 4), never below L;
    # under the seed's rule L (6)
    awk -F, 'NR == 1 { ok = $9 == "rounds"; next }
             $2 == 1 { first = $3 }
             { want = 4 * first / $3; if (want > 128) want = 128; if (want < 4) want = 4
               if ($9 < want - 0.01 || $9 > want + 1.01) bad = 1 }
             END { exit !(ok && !bad) }' rep/monitor/probe-steps.csv \
      || { cat rep/monitor/probe-steps.csv; fail "probe-steps.csv: rounds not as long as the first step"; }
    awk -F, 'NR > 1 && $9 != 6 { bad = 1 } END { exit bad }' probe/monitor/probe-steps.csv \
      || { cat probe/monitor/probe-steps.csv; fail "probe-steps.csv: the seed's rule, not L rounds"; }
    awk -F, 'NR > 1 { n++; if (!($17 == 3 && $18 > 0 && $18 <= $9 && $9 <= $19)) bad = 1 } END { exit bad || n != 1 }' rep/monitor/probe.csv \
      || { cat rep/monitor/probe.csv; fail "probe.csv: repeats, boi_min <= boi <= boi_max"; }
    # the capacity (all rounds at once, the OWD's slope) of a shape that
    # fits two cores, in probe.csv and on stdout
    head -1 rep/monitor/probe.csv | grep -q ",capacity_s,growth$" || fail "probe.csv: no capacity_s and growth columns"
    awk -F, 'NR > 1 && $21 != "step" { bad = 1 } END { exit bad }' rep/monitor/probe.csv || fail "probe.csv: growth rule not step"
    awk -F, 'NR > 1 { n++; if (!($20 > 0)) bad = 1 } END { exit bad || n != 1 }' rep/monitor/probe.csv \
      || { cat rep/monitor/probe.csv; fail "probe.csv: no capacity"; }
    grep -q "; capacity [0-9.e-]* ms" out || fail "no capacity on stdout"
    "$tool" monitor-probe --growth each > out 2> err && fail "--growth each taken"
    grep -q "\-\-growth needs step or round, not 'each'" err || { cat err; fail "--growth each: no message"; }
    "$tool" monitor-probe --repeat 0 > out 2> err && fail "--repeat 0 taken"
    grep -q "\-\-repeat needs a count from 1 to 100, not '0'" err || { cat err; fail "--repeat 0: no message"; }
    echo "monitor probe: BOI found for 2 sizes, the model's beside it; --repeat 3 gives medians and the range"
    ;;
  bad) # bad settings stop the job, or the tool before it
    tool=$1 exe=$2
    REVPROF_MONITOR=x run 2 env LD_PRELOAD="$RP_LIB" "$exe" && fail "REVPROF_MONITOR=x ran"
    grep -q "REVPROF_MONITOR=x" err || { cat err; fail "no message naming REVPROF_MONITOR"; }
    REVPROF_MONITOR=2 run 2 env LD_PRELOAD="$RP_LIB" "$exe" && fail "2 tool ranks of 2 ran"
    grep -q "leave no application rank" err || { cat err; fail "no message about the ranks"; }
    export REVPROF_LIB=$RP_LIB
    "$tool" run --model "$RP_MODEL" --monitor 1 --offload lossy:0 -- "$exe" > out 2> err && fail "lossy:0 taken"
    grep -q "REVPROF_MONITOR_OFFLOAD=lossy:0" err || { cat err; fail "no message about lossy:0"; }
    # commands that count their ranks run them without tool ranks, and say so
    REVPROF_MONITOR=2 "$tool" sweep --help > out 2> err || fail "sweep --help failed"
    grep -q "REVPROF_MONITOR=2 ignored: sweep runs its ranks without tool ranks" err || { cat err; fail "sweep took REVPROF_MONITOR silently"; }
    echo "monitor bad: settings refused with the variable named"
    ;;
  *) fail "unknown monitor check $what" ;;
  esac
  ;;
oversub)
  # one rank more than this host has cores: flagged "oversubscribed" in
  # report.txt's header and report.csv; as many ranks as cores (2 or
  # more: the program sends to its last rank): not flagged
  exe=$1 cores=$(nproc)
  np=$((cores + 1))
  [ "$np" -le 8 ] || { echo "oversub: $cores cores, too many ranks to start here"; exit 77; }
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" burn || { cat out err; fail "run at $np ranks failed"; }
  sed '/^$/q' revprof-out/report.txt
  sed '/^$/q' revprof-out/report.txt | grep -q "^  oversubscribed: $np ranks on .* share $cores cores\{0,1\}: the prediction is for a core per rank" \
    || fail "no oversubscribed flag at $np ranks on $cores cores"
  grep -q '^flags,all,oversubscribed,1,' revprof-out/report.csv || fail "report.csv lacks the oversubscribed flag"
  if [ "$cores" -ge 2 ]; then
    REVPROF_MODEL=$RP_MODEL run "$cores" env LD_PRELOAD="$RP_LIB" "$exe" burn || { cat out err; fail "run at $cores ranks failed"; }
    test -s revprof-out/report.txt || fail "no report at $cores ranks"
    grep -q "oversubscribed" revprof-out/report.txt && fail "oversubscribed flag with $cores ranks on $cores cores"
  fi
  echo "oversub: flagged at $np ranks on $cores cores, not at $cores ranks"
  ;;
host-busy)
  # a process that never sleeps on the rank's core: the rank waits for it
  # half the run, flagged "host-busy" in the header of report.txt (a
  # prediction) and compensate.txt (measurements) and in report.csv and
  # compensate.csv. One rank (two on one core are "oversubscribed"): EXE
  # is rp_compute's, which sends no message to itself (MPICH's blocking
  # send to its own rank waits for the receive)
  exe=$1
  command -v taskset > /dev/null || { echo "host-busy: no taskset here"; exit 77; }
  cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
  case $cpu in ''|*[!0-9]*) echo "host-busy: no CPU list from taskset"; exit 77 ;; esac
  # (timeout: gone even if this script is killed)
  timeout 200 taskset -c "$cpu" sh -c 'while :; do :; done' &
  hog=$!
  for m in predict compensate; do
    rm -rf revprof-out
    REVPROF_MODE=$m REVPROF_MODEL=$RP_MODEL run 1 taskset -c "$cpu" env LD_PRELOAD="$RP_LIB" "$exe" burn \
      || { kill $hog; cat out err; fail "$m: the run failed"; }
    case $m in
      predict) want="the prediction is for cores of their own" ;;
      *) want="the times measured here include those waits" ;;
    esac
    flag_seen $m host-busy "ranks waited for a core held by another process up to [0-9]* % of the run: $want" \
      || { kill $hog; fail "$m: no host-busy flag in the text's header or the CSV with a busy process on CPU $cpu"; }
  done
  kill $hog
  echo "host-busy: flagged in predict and compensate mode beside a busy process"
  ;;
*) fail "unknown command" ;;
esac
exit 0
