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
*) fail "unknown command" ;;
esac
exit 0
