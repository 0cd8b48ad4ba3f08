#!/bin/bash
# How steady compensate mode's calibration of its own cost per MPI call is
# from run to run: examples/mcpi on 2 ranks, RUNS times, under
# REVPROF_MODE=compensate REVPROF_OVERHEAD=calibrate (the model's overhead
# rows not used), each run's calibrated cost per MPI call (o_mpi + o_pb,
# cost.csv's "mpi" rows, both ranks) collected; prints their least,
# median and largest and how many came out at 0 s. With OTHER=LIB (a
# librevprof.so of another commit, e.g. from a git worktree's build) the
# runs alternate between the two libraries and both are printed. BUSY=N
# runs N busy loops beside the job (a loaded machine; default 0). Asserts
# nothing.
#
# usage: bench/calibration-spread.sh [BUILD_DIR]     (default: build)
# env:   RUNS (default 15), BUSY (default 0), OTHER (a second librevprof.so),
#        MPIEXEC, MPIFLAGS
# About 3 s a run.
set -u
case ${1:-} in -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
. "$(dirname "$0")/common.sh"
bench_mpi_tools
exe=$build/examples/mcpi
libs=$build/revprof/librevprof.so
[ -n "${OTHER:-}" ] && libs="$libs ${OTHER}"
# shellcheck disable=SC2086 # libs: one or two paths
bench_need_built calibration-spread "$exe" $libs
w=$(mktemp -d "${TMPDIR:-/tmp}/rp-calspread-XXXXXX")
hogs=""
cleanup() { for h in $hogs; do kill "$h" 2>/dev/null; done; rm -rf "$w"; }
trap cleanup EXIT
for _ in $(seq 1 "${BUSY:-0}"); do
  timeout 3600 sh -c 'while :; do :; done' &
  hogs="$hogs $!"
done
echo "# $(uname -n); $("$MPIEXEC" --version 2>&1 | head -1); ${BUSY:-0} busy loop(s) beside 2 ranks"
for i in $(seq 1 "${RUNS:-15}"); do
  k=0
  for lib in $libs; do
    k=$((k + 1))
    d=$w/out.$k.$i
    # shellcheck disable=SC2086 # flags: several words
    "$MPIEXEC" $flags -n 2 env LD_PRELOAD="$lib" REVPROF_MODE=compensate REVPROF_OVERHEAD=calibrate \
      REVPROF_QUIET=1 REVPROF_OUTPUT_DIR="$d" "$exe" --chunks 2 --chunk 100 > /dev/null 2>&1 ||
      { echo "calibration-spread: run $i with $lib failed" >&2; continue; }
    awk -F, -v k=$k '$2 == "mpi" { print k, $4 }' "$d/cost.csv" >> "$w/costs"
  done
done
printf "%-50s %6s %10s %10s %10s %6s\n" library values "least ns" "median ns" "most ns" "at 0"
k=0
for lib in $libs; do
  k=$((k + 1))
  awk -v k=$k '$1 == k { print $2 * 1e9 }' "$w/costs" | sort -g | awk -v lib="$lib" '
    { v[NR] = $1; if ($1 == 0) z++ }
    END { if (NR == 0) { printf "%-50s none\n", lib; exit }
          printf "%-50s %6d %10.1f %10.1f %10.1f %6d\n", lib, NR, v[1], v[int((NR + 1) / 2)], v[NR], z }'
done
