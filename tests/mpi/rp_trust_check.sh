#!/bin/sh
# Trust checks of librevprof run by CTest through mpiexec
# (tests/mpi/rp_trust.cmake): exchange patterns under every piggyback
# encoding, partial reports in compensate mode, runs with nothing
# intercepted. Environment as for rp_check.sh: RP_MPIEXEC, RP_MPIFLAGS,
# RP_WORK, RP_LIB, RP_MODEL.
#   rp_trust_check.sh exchange PATTERN MODE EXE NP   PATTERN: sendrecv
#       stress; MODE: predict compensate. Runs EXE under LD_PRELOAD with
#       REVPROF_PACK_MAX 0 (struct path only), the default and 1048576
#       (copy path up to 1 MiB); every run must check every byte.
#   rp_trust_check.sh cm-early MODE EXE NP   MODE: abort exit segv (see
#       rp_early.c) in compensate mode: each affected rank leaves a
#       compensate.partial.rank<r>.txt/.csv marked PARTIAL.
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
  pattern=$1 mode=$2 exe=$3 np=$4
  for pm in 0 default 1048576; do
    rm -rf revprof-out
    if [ $pm = default ]; then unset REVPROF_PACK_MAX; else export REVPROF_PACK_MAX=$pm; fi
    REVPROF_MODEL=$RP_MODEL REVPROF_MODE=$mode run "$np" env LD_PRELOAD="$RP_LIB" "$exe" "$pattern" \
      || { tail -n 30 out err; fail "$pattern, $mode, REVPROF_PACK_MAX=$pm: the run failed"; }
    grep -q "^exchange $pattern: 2000 iterations, 0 failed checks" out \
      || { cat out; tail -n 30 err; fail "$pattern, $mode, REVPROF_PACK_MAX=$pm: wrong data"; }
    if [ "$mode" = predict ]; then rep=revprof-out/report.txt; else rep=revprof-out/compensate.txt; fi
    test -s "$rep" || { cat err; fail "$pattern, $mode, REVPROF_PACK_MAX=$pm: no $rep"; }
    echo "exchange $pattern $mode REVPROF_PACK_MAX=$pm: $np ranks, every byte right"
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
*) fail "unknown command" ;;
esac
exit 0
