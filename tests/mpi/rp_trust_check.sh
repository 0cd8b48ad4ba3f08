#!/bin/sh
# Trust checks of librevprof run by CTest through mpiexec
# (tests/mpi/rp_trust.cmake): exchange patterns under every piggyback
# encoding, partial reports in compensate mode, runs with nothing
# intercepted. Environment as for rp_check.sh: RP_MPIEXEC, RP_MPIFLAGS,
# RP_WORK, RP_LIB, RP_MODEL.
#   rp_trust_check.sh exchange PATTERN MODE EXE NP [ITERS]   PATTERN: sendrecv
#       stress; MODE: predict compensate. Runs EXE under LD_PRELOAD with
#       REVPROF_PACK_MAX 0 (struct path only), the default and 1048576
#       (copy path up to 1 MiB); every run must check every byte.
#   rp_trust_check.sh checks MODE EXE NP ARGS...   EXE ARGS under MODE
#       (predict compensate) with the three REVPROF_PACK_MAX settings of
#       exchange; its output must end in ", 0 failed checks" (rp_bindings).
#   rp_trust_check.sh cm-early MODE EXE NP   MODE: abort exit segv (see
#       rp_early.c) in compensate mode: each affected rank leaves a
#       compensate.partial.rank<r>.txt/.csv marked PARTIAL.
#   rp_trust_check.sh nothing MODE EXE NP   MODE: pmpi init (see
#       rp_pmpi_only.c) under LD_PRELOAD: rank 0 says once that nothing was
#       intercepted; report.txt says so in its first lines, report.csv in
#       its flags row. Then the same with REVPROF_MODE=off: silence.
#   rp_trust_check.sh nopb EXE NP   rp_pmpi_only unwrapped: a message sent
#       past revprof is flagged no-piggyback in report.csv and report.txt.
#   rp_trust_check.sh quiet EXE NP   REVPROF_QUIET=1: rp_exchange prints
#       exactly what it prints natively (stdout and stderr) under predict,
#       compensate and a model that does not load; the reports are in
#       their files, the last one marked OFF with its reason.
#   rp_trust_check.sh unpredicted EXE NP   rp_uncosted (one-sided,
#       neighbourhood, MPI-IO) right natively and under predict and
#       compensate; with a model lacking I/O rows the report names every
#       MPI-IO call in its not-predicted flag and CSV status column, and is
#       marked INCOMPLETE; one-sided and neighbourhood calls are costed;
#       with the I/O rows, open, collective access and close are costed,
#       and a sync whose row the model lacks is still named.
#   rp_trust_check.sh sessions EXE NP   rp_sessions (MPI-4 sessions, no
#       MPI_Init, a library's second session): predicted (FINAL report,
#       every call counted, the ring's waiting from the senders' clocks),
#       compensated; silent when off; with MPI_Init first and a tool rank,
#       mpi://WORLD is the application's ranks; sessions alone with
#       REVPROF_MONITOR: said and flagged monitor-off.
#   rp_trust_check.sh spawn EXE RP_EXE NP   rp_spawn (MPI_Comm_spawn):
#       preloaded parent and native child exchange right data (no
#       piggyback to another job, flagged other-job); linked, the parent's
#       report is in revprof-out, the child's in revprof-out/spawned-*.
#   rp_trust_check.sh startup EXE NP   rp_exchange (a few iterations)
#       under predict, rank 1 held 0.5 s in revprof's start-up
#       (REVPROF_TEST_STARTUP_DELAY): rank 0's wait for it there is not its
#       computation (report.csv: rank 0's compute below 0.1 s).
#   rp_trust_check.sh flags NATIVE_EXE NP   a model lacking functions and
#       a broken Lua file: report.csv's flags row names fallback and lua,
#       report.txt's first lines too.
set -u
cmd=$1; shift
fail() { echo "rp_trust_check $cmd: FAIL: $*" >&2; exit 1; }
run() { # np, then the command; stdout to $RP_WORK/out, stderr to $RP_WORK/err
  np=$1; shift
  # shellcheck disable=SC2086
  $RP_MPIEXEC $RP_MPIFLAGS -n "$np" "$@" > "$RP_WORK/out" 2> "$RP_WORK/err"
}
rm -rf "$RP_WORK" && mkdir -p "$RP_WORK" || fail "cannot create $RP_WORK"
cd "$RP_WORK" || exit 1
export REVPROF_OUTPUT_DIR="$RP_WORK/revprof-out"

case $cmd in
exchange)
  pattern=$1 mode=$2 exe=$3 np=$4 iters=${5:-2000}
  for pm in 0 default 1048576; do
    rm -rf revprof-out
    if [ $pm = default ]; then unset REVPROF_PACK_MAX; else export REVPROF_PACK_MAX=$pm; fi
    REVPROF_MODEL=$RP_MODEL REVPROF_MODE=$mode run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$pattern" "$iters" \
      || { tail -n 30 out err; fail "$pattern, $mode, REVPROF_PACK_MAX=$pm: the run failed"; }
    grep -q "^exchange $pattern: $iters iterations, 0 failed checks" out \
      || { cat out; tail -n 30 err; fail "$pattern, $mode, REVPROF_PACK_MAX=$pm: wrong data"; }
    if [ "$mode" = predict ]; then rep=revprof-out/report.txt; else rep=revprof-out/compensate.txt; fi
    test -s "$rep" || { cat err; fail "$pattern, $mode, REVPROF_PACK_MAX=$pm: no $rep"; }
    echo "exchange $pattern $mode REVPROF_PACK_MAX=$pm: $np ranks, every byte right"
  done
  ;;
checks)
  mode=$1 exe=$2 np=$3
  shift 3
  for pm in 0 default 1048576; do
    rm -rf revprof-out
    if [ $pm = default ]; then unset REVPROF_PACK_MAX; else export REVPROF_PACK_MAX=$pm; fi
    REVPROF_MODEL=$RP_MODEL REVPROF_MODE=$mode run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$@" \
      || { tail -n 30 out err; fail "$*, $mode, REVPROF_PACK_MAX=$pm: the run failed"; }
    grep -q ", 0 failed checks\$" out || { cat out; tail -n 30 err; fail "$*, $mode, REVPROF_PACK_MAX=$pm: wrong data"; }
    if [ "$mode" = predict ]; then rep=revprof-out/report.txt; else rep=revprof-out/compensate.txt; fi
    test -s "$rep" || { cat err; fail "$*, $mode, REVPROF_PACK_MAX=$pm: no $rep"; }
    grep -q "no-piggyback" "$rep" && { head -n 8 "$rep"; fail "$*, $mode, REVPROF_PACK_MAX=$pm: messages went without clocks"; }
    echo "$(cat out) ($mode, REVPROF_PACK_MAX=$pm)"
  done
  ;;
cm-early)
  mode=$1 exe=$2 np=$3
  REVPROF_MODE=compensate run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$mode"
  last=$((np - 1))
  case $mode in
  abort) ranks=0; why="MPI_Abort with error code 3" ;;
  exit) ranks=$(seq 0 $last); why="exit without MPI_Finalize" ;;
  segv) ranks=$last; why="signal SIGSEGV" ;;
  *) fail "unknown mode $mode" ;;
  esac
  found=0
  for r in $ranks; do
    f=revprof-out/compensate.partial.rank$r
    if [ "$mode" = exit ] && ! grep -q "PARTIAL: $why" "$f.txt" 2>/dev/null; then
      # the launcher may kill a rank still in its atexit handler once
      # another rank has left without MPI_Finalize (SIGKILL: no report)
      [ -e "$f.txt" ] && { grep -q "PARTIAL: signal SIG" "$f.txt" || fail "$f.txt badly marked"; }
      continue
    fi
    test -s "$f.txt" || { cat err; ls revprof-out; fail "no $f.txt"; }
    head -n 2 "$f.txt" | grep -q "PARTIAL: $why" || { cat "$f.txt"; fail "$f.txt is not marked PARTIAL ($why) in its first lines"; }
    grep -q "^rank $r: elapsed" "$f.txt" || { cat "$f.txt"; fail "$f.txt lacks the profile"; }
    grep -q "^$r,\"(status) PARTIAL: $why\"" "$f.csv" || { cat "$f.csv"; fail "$f.csv not marked"; }
    grep -q "^$r,(program),1," "$f.csv" || { cat "$f.csv"; fail "$f.csv lacks the profile"; }
    found=$((found + 1))
  done
  [ "$found" -ge 1 ] || { cat err; ls revprof-out; fail "no partial compensate report marked '$why'"; }
  test -e revprof-out/compensate.txt && fail "a final report after an early end"
  echo "compensate early $mode: partial reports of rank(s)" $ranks
  ;;
nothing)
  mode=$1 exe=$2 np=$3
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$mode" || { cat out err; fail "run failed"; }
  grep -q "^pmpi-only $mode: .*, 0 failed checks" out || { cat out; fail "the program's checks failed"; }
  n=$(grep -c "^revprof.*\(intercepted no MPI call\|no MPI call was intercepted\)" err)
  [ "$n" -eq 1 ] || { cat err; fail "stderr says nothing-intercepted $n times, not once"; }
  if [ "$mode" = pmpi ]; then status="NOTHING INTERCEPTED"; else status=FINAL; fi
  head -n 3 revprof-out/report.txt | grep -q "^  nothing-intercepted: " || { cat revprof-out/report.txt; fail "report.txt's first lines do not say nothing-intercepted"; }
  head -n 1 revprof-out/report.txt | grep -q "($status)" || { head -n 3 revprof-out/report.txt; fail "report.txt status is not $status"; }
  grep -q "^status,all,$status," revprof-out/report.csv || { cat revprof-out/report.csv; fail "report.csv status is not $status"; }
  grep -q "^flags,all,\([^,]*;\)*nothing-intercepted[;,]" revprof-out/report.csv || { cat revprof-out/report.csv; fail "report.csv's flags row lacks nothing-intercepted"; }
  grep -q "^flag,all,\"\{0,1\}nothing-intercepted: .*,$np,0," revprof-out/report.csv || { cat revprof-out/report.csv; fail "report.csv lacks the nothing-intercepted row on $np ranks"; }
  rm -rf revprof-out
  REVPROF_MODE=off REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$mode" || { cat out err; fail "run with REVPROF_MODE=off failed"; }
  grep -q "intercepted" err && { cat err; fail "REVPROF_MODE=off is not silent"; }
  test -e revprof-out/report.txt && fail "REVPROF_MODE=off wrote a report"
  echo "nothing $mode: said once, report marked"
  ;;
startup)
  exe=$1 np=$2
  REVPROF_MODEL=$RP_MODEL REVPROF_MODE=predict REVPROF_TEST_STARTUP_DELAY=0.5 \
    run "$np" env LD_PRELOAD="$RP_LIB" "$exe" sendrecv 10 || { cat out err; fail "run failed"; }
  grep -q "^exchange sendrecv: 10 iterations, 0 failed checks" out || { cat out err; fail "wrong data"; }
  c=$(awk -F, '$1 == "rank" && $2 == 0 && $3 == "compute" { print $7 }' revprof-out/report.csv)
  [ -n "$c" ] || { cat revprof-out/report.csv; fail "report.csv has no compute row for rank 0"; }
  awk -v c="$c" 'BEGIN { exit !(c < 0.1) }' || { head -n 30 revprof-out/report.txt; fail "rank 0's computation is $c s: its wait in revprof's start-up was charged"; }
  # no synchronous send in this program: no such flag
  grep -q "synchronous-send" revprof-out/report.csv && { grep synchronous revprof-out/report.csv; fail "synchronous-send flagged without a synchronous send"; }
  echo "startup: rank 0's measured computation $c s after a 0.5 s wait in revprof's start-up"
  ;;
flags)
  exe=$1 np=$2
  printf 'return { format = "revprof-model 1", functions = {\n  MPI_Send = { { form = { "1" }, avg = { 1e-6 } } },\n  MPI_Recv = { { form = { "1" }, avg = { 1e-6 } } },\n  latency = { { form = { "1" }, avg = { 1e-6 } } } } }\n' > lacking.lua
  printf 'function row(n)\n  return n *\nend\n' > broken.lua
  REVPROF_MODEL=$RP_WORK/lacking.lua REVPROF_LUA=$RP_WORK/broken.lua run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "run failed"; }
  csv=revprof-out/report.csv txt=revprof-out/report.txt
  test -s $csv || { cat err; fail "no report.csv"; }
  keys=$(awk -F, '$1 == "flags" && $2 == "all" { print $3 }' $csv)
  for k in fallback lua; do
    echo ";$keys;" | grep -q ";$k;" || { cat $csv; fail "flags row '$keys' lacks $k"; }
    grep -q "^flag,all,\"\{0,1\}$k: " $csv || { cat $csv; fail "no flag row for $k"; }
  done
  head -n 6 $txt | grep -q "^  fallback: the model has no " || { head -n 8 $txt; fail "report.txt's first lines lack the fallback flag"; }
  head -n 6 $txt | grep -q "^  lua: Lua region costs were off" || { head -n 8 $txt; fail "report.txt's first lines lack the lua flag"; }
  # the program's synchronous sends costed as standard ones (all but
  # those of the rendezvous rule): said, with as many calls as the
  # functions' rows count, less the rendezvous row's
  want=$(awk -F, '$1 == "function" && $2 == "all" && ($3 ~ /^MPI_Ssend/ || $3 ~ /^MPI_Issend/) { n += $4 } $1 == "rendezvous" && $3 == "costed" { n -= $4 } END { print n + 0 }' $csv)
  [ "$want" -gt 0 ] || { cat $csv; fail "the program made no synchronous send costed as a standard one"; }
  grep -q "^flag,all,\"synchronous-send: $want synchronous send call(s) costed as standard sends (MPI_Ssend_init; MPI_Ssend and MPI_Issend whose" $csv \
    || { grep synchronous $csv; fail "no synchronous-send flag for $want calls"; }
  grep -q "^  synchronous-send: $want " $txt || { head -n 12 $txt; fail "report.txt lacks the synchronous-send flag"; }
  echo "flags: $keys"
  ;;
nopb)
  exe=$1 np=$2
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" unwrapped || { cat out err; fail "run failed"; }
  grep -q "^pmpi-only unwrapped: done" out || { cat out err; fail "the program did not finish"; }
  grep -q "^flags,all,\([^,]*;\)*no-piggyback[;,]" revprof-out/report.csv || { cat revprof-out/report.csv; fail "report.csv's flags row lacks no-piggyback"; }
  grep -q "^flag,all,no-piggyback: 1 message(s) arrived without piggyback.*,1,0," revprof-out/report.csv || { cat revprof-out/report.csv; fail "no no-piggyback row for 1 message on 1 rank"; }
  head -n 4 revprof-out/report.txt | grep -q "^  no-piggyback: " || { head revprof-out/report.txt; fail "report.txt's first lines lack no-piggyback"; }
  echo "nopb: flagged"
  ;;
quiet)
  exe=$1 np=$2
  run "$np" "$exe" sendrecv 50 || { cat out err; fail "native run failed"; }
  mv out native.out && mv err native.err
  for mode in predict compensate broken; do
    rm -rf revprof-out
    model=$RP_MODEL m=$mode
    if [ $mode = broken ]; then model=$RP_WORK/no-such-model.lua m=predict; fi
    REVPROF_QUIET=1 REVPROF_MODE=$m REVPROF_MODEL=$model run "$np" env LD_PRELOAD="$RP_LIB" "$exe" sendrecv 50 \
      || { cat out err; fail "$mode: run failed"; }
    cmp -s out native.out || { diff native.out out; fail "$mode: stdout differs from the native run's"; }
    cmp -s err native.err || { diff native.err err; fail "$mode: stderr differs from the native run's"; }
    case $mode in
    predict) test -s revprof-out/report.txt && test -s revprof-out/report.csv || fail "predict: no report files" ;;
    compensate) test -s revprof-out/compensate.txt || fail "compensate: no compensate.txt" ;;
    broken)
      head -n 1 revprof-out/report.txt | grep -q "(OFF)" || { cat revprof-out/report.txt; fail "broken model: report.txt not marked OFF"; }
      grep -q "revprof-off: .*no-such-model.lua" revprof-out/report.txt || { cat revprof-out/report.txt; fail "broken model: the reason is not in report.txt"; }
      grep -q "^status,all,OFF," revprof-out/report.csv || { cat revprof-out/report.csv; fail "broken model: report.csv status is not OFF"; } ;;
    esac
    echo "quiet $mode: output as native, report in its files"
  done
  ;;
unpredicted)
  exe=$1 np=$2
  run "$np" "$exe" "$RP_WORK/io.dat" 10 || { cat out err; fail "native run failed"; }
  grep -q ", 0 failed checks\$" out || { cat out err; fail "the program fails natively"; }
  for mode in predict compensate; do
    rm -rf revprof-out
    REVPROF_MODE=$mode REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$RP_WORK/io.dat" 10 \
      || { cat out err; fail "$mode: run failed"; }
    grep -q ", 0 failed checks\$" out || { cat out; tail -n 30 err; fail "$mode: wrong data"; }
  done
  # the model without its I/O rows: MPI-IO is not predicted
  rm -rf revprof-out
  sed '/-- MPI-IO/,/-- end of MPI-IO/d' "$RP_MODEL" > noio.lua
  REVPROF_MODEL=$RP_WORK/noio.lua run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$RP_WORK/io.dat" 10 || { cat out err; fail "run failed"; }
  txt=revprof-out/report.txt csv=revprof-out/report.csv
  head -n 1 $txt | grep -q "(FINAL, INCOMPLETE)" || { head -n 12 $txt; fail "report.txt is not marked INCOMPLETE"; }
  line=$(sed -n '2,12p' $txt | grep "^  not-predicted: ")
  [ -n "$line" ] || { head -n 12 $txt; fail "report.txt's first lines lack not-predicted"; }
  # the flag names the functions by host time while they fit ("and K more"
  # beyond), the CSV all
  echo "$line" | grep -q "in MPI_[A-Za-z_]* ([0-9]*), MPI_[A-Za-z_]* ([0-9]*)" || { echo "$line"; fail "not-predicted names no functions"; }
  for fn in MPI_File_open MPI_File_write_at_all MPI_File_read_at_all MPI_File_sync; do
    awk -F, -v fn=$fn '$1 == "function" && $2 == "all" && $3 == fn && $10 > 0 && $11 == "not-predicted" { ok = 1 } END { exit !ok }' $csv \
      || { grep "$fn" $csv; fail "report.csv: no not-predicted row with host time for $fn"; }
  done
  echo "$line" | grep -q "^  not-predicted: [0-9]* calls, [0-9.e+-]* s of host time (" || { echo "$line"; fail "not-predicted lacks its totals"; }
  grep -q "INCOMPLETE: it leaves out" $txt || fail "the predicted time is not marked incomplete"
  grep -q '^status,all,"FINAL, INCOMPLETE",' $csv || { head -n 3 $csv; fail "report.csv status is not FINAL, INCOMPLETE"; }
  grep -q "^elapsed,all,predicted,.*,incomplete\$" $csv || { grep elapsed $csv; fail "report.csv's elapsed row is not incomplete"; }
  grep -q "^flag,all,\"not-predicted: " $csv || { grep flag $csv; fail "report.csv lacks the not-predicted flag"; }
  for fn in MPI_Barrier MPI_Win_fence MPI_Put MPI_Win_complete MPI_Win_unlock MPI_Neighbor_allgather; do
    awk -F, -v fn=$fn '$1 == "function" && $2 == "all" && $3 == fn && $11 == "costed" { ok = 1 } END { exit !ok }' $csv \
      || { grep "$fn" $csv; fail "$fn is not costed"; }
  done
  echo "unpredicted: $line"
  # with the I/O rows but not MPI_File_sync's (a model measured before it
  # had one; no fallback): open, collective access and close are costed,
  # the sync still named
  rm -rf revprof-out
  sed '/^    MPI_File_sync = /,+1d' "$RP_MODEL" > nosync.lua
  REVPROF_MODEL=$RP_WORK/nosync.lua run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$RP_WORK/io.dat" 10 || { cat out err; fail "run with I/O rows failed"; }
  for fn in MPI_File_open MPI_File_write_at_all MPI_File_read_at_all MPI_File_close; do
    awk -F, -v fn=$fn '$1 == "function" && $2 == "all" && $3 == fn && $7 > 0 && $11 == "costed" { ok = 1 } END { exit !ok }' $csv \
      || { grep "$fn" $csv; fail "$fn is not costed from the model's I/O rows"; }
  done
  awk -F, '$1 == "function" && $2 == "all" && $3 == "MPI_File_sync" && $11 == "not-predicted" { ok = 1 } END { exit !ok }' $csv \
    || { grep MPI_File_sync $csv; fail "MPI_File_sync is not named as not predicted"; }
  ;;
sessions)
  exe=$1 np=$2
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "run failed"; }
  grep -q ", 0 failed checks\$" out || { cat out err; fail "the program's check failed"; }
  grep -q "used MPI sessions\|NOT PREDICTED" err && { cat err; fail "stderr says the sessions program is not predicted"; }
  head -n 1 revprof-out/report.txt | grep -q "(FINAL)" || { cat revprof-out/report.txt; fail "report.txt is not a FINAL prediction"; }
  grep -q "^predicted elapsed time: [0-9]" revprof-out/report.txt || { cat revprof-out/report.txt; fail "no predicted time"; }
  # every rank: 5 Sendrecv, 5 Send, 5 Wait, 5 Bcast, 3 Allreduce (one in
  # the library's own session), its communicators made from groups
  for fc in MPI_Sendrecv:5 MPI_Send:5 MPI_Wait:5 MPI_Bcast:5 MPI_Allreduce:3 MPI_Comm_create_from_group:2 MPI_Session_finalize:1; do
    f=${fc%%:*} want=$((${fc#*:} * np))
    grep -q "^function,all,$f,$want," revprof-out/report.csv || { grep "$f" revprof-out/report.csv; fail "$f: not $want calls in report.csv"; }
  done
  # the ring's waiting: messages carried their senders' clocks
  awk -F, '$1 == "function" && $2 == "all" && $3 == "MPI_Sendrecv" && $9 + 0 > 0 { ok = 1 } END { exit !ok }' revprof-out/report.csv \
    || { grep MPI_Sendrecv revprof-out/report.csv; fail "MPI_Sendrecv shows no waiting: clocks not exchanged"; }
  rm -rf revprof-out
  REVPROF_MODE=compensate run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "compensate run failed"; }
  grep -q ", 0 failed checks\$" out || { cat out err; fail "compensate: the program's check failed"; }
  test -s revprof-out/compensate.txt || { cat err; fail "compensate: no compensate.txt"; }
  rm -rf revprof-out
  REVPROF_MODE=off run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "run with REVPROF_MODE=off failed"; }
  test -s err && { cat err; fail "REVPROF_MODE=off is not silent"; }
  test -e revprof-out/report.txt && fail "REVPROF_MODE=off wrote a report"
  # MPI_Init first, then a session: monitoring's tool rank is not in
  # mpi://WORLD (a communicator of the whole job would wait for it)
  rm -rf revprof-out
  napp=$np # run sets np
  REVPROF_MONITOR=1 REVPROF_MODEL=$RP_MODEL run $((napp + 1)) env LD_PRELOAD="$RP_LIB" "$exe" init || { cat out err; fail "init + session + tool rank: run failed"; }
  np=$napp
  grep -q "^sessions: $np ranks, 0 failed checks\$" out || { cat out err; fail "init + session + tool rank: mpi://WORLD is not the application's $np ranks"; }
  test -s revprof-out/monitor/summary.txt || { cat err; fail "init + session + tool rank: no monitor summary"; }
  # a sessions program cannot have tool ranks: said, flagged, all ranks run
  rm -rf revprof-out
  REVPROF_MONITOR=1 REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "sessions + REVPROF_MONITOR: run failed"; }
  grep -q "^sessions: $np ranks, 0 failed checks\$" out || { cat out err; fail "sessions + REVPROF_MONITOR: not all ranks ran"; }
  grep -q "REVPROF_MONITOR=1 is ignored" err || { cat err; fail "sessions + REVPROF_MONITOR: not said"; }
  grep -q "^  monitor-off: " revprof-out/report.txt || { sed '/^$/q' revprof-out/report.txt; fail "sessions + REVPROF_MONITOR: no monitor-off flag"; }
  echo "sessions: predicted (report FINAL), compensated; silent when off; beside a tool rank mpi://WORLD is the application's"
  ;;
spawn)
  exe=$1 rpexe=$2 np=$3
  if ! run "$np" "$exe" || ! grep -q "^spawn: parent got 42" out; then
    echo "spawn: MPI_Comm_spawn fails natively here; skipped"; exit 77
  fi
  # the parent preloaded, the child (launched by the MPI) without revprof:
  # messages between them must go without piggyback
  REVPROF_MODEL=$RP_MODEL run "$np" env LD_PRELOAD="$RP_LIB" "$exe" || { cat out err; fail "preloaded parent: run failed"; }
  grep -q "^spawn: parent got 42, 0 failed checks" out || { cat out err; fail "preloaded parent: wrong data"; }
  grep -q "other-job" revprof-out/report.txt || { head revprof-out/report.txt; fail "the report does not flag messages to another job"; }
  rm -rf revprof-out
  # both linked with revprof: each job its own report
  REVPROF_MODEL=$RP_MODEL run "$np" "$rpexe" || { cat out err; fail "run failed"; }
  grep -q "^spawn: parent got 42, 0 failed checks" out || { cat out err; fail "the program's check failed"; }
  grep -q "^ranks: *$np\$" revprof-out/report.txt || { cat revprof-out/report.txt; fail "report.txt is not the parent's ($np ranks)"; }
  n=$(ls -d revprof-out/spawned-* 2>/dev/null | wc -l)
  [ "$n" -eq 1 ] || { ls -R revprof-out; fail "$n spawned-* report folders, not 1"; }
  grep -q "^ranks: *1\$" revprof-out/spawned-*/report.txt || { cat revprof-out/spawned-*/report.txt; fail "the child's report is not its own"; }
  echo "spawn: the parent's report and the child's in revprof-out/spawned-*"
  ;;
*) fail "unknown command" ;;
esac
exit 0
