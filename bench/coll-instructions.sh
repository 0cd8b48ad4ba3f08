#!/bin/bash
# librevprof's own work per 8-byte collective, in instructions counted by
# valgrind's callgrind (issue 9): for Barrier, Bcast, Allreduce, Reduce,
# Allgather and Alltoall, what the MPI's call costs natively (PMPI_,
# called by the program) and what the wrapped call costs (MPI_ through
# librevprof), split by who executed it: librevprof itself (its rules, the
# fold of the clocks into the call, bookkeeping), the MPI's libraries (the
# call on the data and the clocks, and the second collective where there
# is one) and the rest (libc's copies, clock reads). Instruction counts
# do not depend on the host's load or timer, so two commits compare
# exactly where the timings of bench/collective-overhead.sh move from run
# to run on a shared VM. Rank 1 of revprof/bench/rp_coll_overhead.c
# ("count N OP": N calls natively, then N wrapped) runs under callgrind,
# one loop collected per run (--toggle-collect), rank 0 natively; rank 1,
# being the slower, finds the others' data there and does not spin for
# it. Rank 1 is not the root of Bcast and Reduce. Prints a table; asserts
# nothing.
#
# usage: bench/coll-instructions.sh [BUILD_DIR]     (default: build)
# env:   MPIEXEC, MPIFLAGS, REPS (calls of each, default 2000),
#        REVPROF_MODEL (default: tests/mpi/rp_exact_model.lua), MODES
#        (REVPROF_MODE values, default "predict compensate"), KEEP=1 (keep
#        the profiles, cg.MODE.OP.SIDE, to read with callgrind_annotate
#        --inclusive=yes)
# Two runs per collective and mode (one per loop), about 1 minute a mode.
set -u
case ${1:-} in -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
. "$(dirname "$0")/common.sh"
bench_mpi_tools
bench_need_callgrind coll-instructions
exe=$build/revprof/rp_bench_coll
bench_need_built coll-instructions "$exe"
w=$(mktemp -d "${TMPDIR:-/tmp}/rp-collins-XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "# profiles in $w (kept)"; else trap 'rm -rf "$w"' EXIT; fi
model=${REVPROF_MODEL:-$here/tests/mpi/rp_exact_model.lua}
reps=${REPS:-2000}

# split OUT: OUT's instructions (one loop of REPS calls, collected by
# --toggle-collect) per call: "total revprof mpi other",
# by the object that executed them: librevprof; the MPI's libraries and
# components; the rest (libc, the loader, the program's loop).
# In $w: callgrind_annotate shortens some file names under its working
# directory (see bench/p2p-instructions.sh).
split() {
  (cd "$w" && callgrind_annotate --threshold=100 "$1") 2>/dev/null | awk -v reps="$reps" '
    function num(s) { gsub(/,/, "", s); return s + 0 }
    /PROGRAM TOTALS/ { tot = num($1); next }
    /^ *[0-9,]+ .*\[.*\]$/ {
      o = $NF
      if (o ~ /librevprof/) rp += num($1)
      else if (o ~ /libmpi|libopen-(pal|rte)|libpmix|libmpich|openmpi|mpich|libuc[pts]|libfabric|libhwloc|libevent/) mpi += num($1)
      else other += num($1)
    }
    END { printf "%.0f %.0f %.0f %.0f\n", tot / reps, rp / reps, mpi / reps, other / reps }'
}

echo "# $(uname -n); MPI: $("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'open ?(mpi|rte)|version' | tr -s ' '); $(valgrind --version)"
echo "# rp_bench_coll count $reps: 8-byte calls, 2 ranks, rank 1 under callgrind; instructions per call"
printf "%-10s %-10s %9s %9s %9s %9s %9s %7s\n" mode call native wrapped revprof "(MPI)" "(other)" ratio
# run MODE OP SIDE: rank 1's instructions in loop_SIDE alone (OP's REPS
# calls), collected by --toggle-collect; prints split's figures
run() {
  local out=$w/cg.$1.$2.$3
  # shellcheck disable=SC2086 # flags: several words
  "$MPIEXEC" $flags -n 2 env REVPROF_MODE="$1" REVPROF_MODEL="$model" REVPROF_QUIET=1 \
    REVPROF_OUTPUT_DIR="$w/out.$1" CG_OUT="$out" CG_FN="loop_$3*" sh -c '
      r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
      if [ "$r" = 1 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file="$CG_OUT" \
        --toggle-collect="$CG_FN" "$@"
      else exec "$@"; fi' sh "$exe" count "$reps" "$2" </dev/null >"$out.log" 2>&1 ||
    { echo "coll-instructions: $1 $2: the run failed:" >&2; tail -5 "$out.log" >&2; return 1; }
  split "$out"
}
for mode in ${MODES:-predict compensate}; do
  for op in Barrier Bcast Allreduce Reduce Allgather Alltoall; do
    read -r n _ <<<"$(run "$mode" "$op" native)"
    read -r t r m o <<<"$(run "$mode" "$op" wrapped)"
    printf "%-10s %-10s %9s %9s %9s %9s %9s %7s\n" "$mode" "$op" "${n:--}" "${t:--}" "${r:--}" "${m:--}" "${o:--}" \
      "$(awk -v t="${t:-0}" -v n="${n:-0}" 'BEGIN { if (n > 0) printf "%.2f", t / n; else print "-" }')"
  done
done
echo "# native: the PMPI_ call per call, with the loop's few; wrapped: the MPI_ call through"
echo "# librevprof, of which revprof: in librevprof itself (rules, fold, bookkeeping), (MPI): in the"
echo "# MPI's libraries (the call on data and clocks, and a second collective where there is one),"
echo "# (other): libc and the rest (copies, clock reads); ratio: wrapped / native"
