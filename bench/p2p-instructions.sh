#!/bin/bash
# librevprof's own work per small point-to-point call, in instructions
# counted by valgrind's callgrind: what its MPI_Send and MPI_Recv wrappers
# execute besides the MPI's own PMPI_Send and PMPI_Recv (and what those
# execute, for scale), per call, in each mode. Instruction counts do not
# depend on the host's load or timer, so two commits compare exactly where
# the ping-pong timings of bench/pingpong-overhead.sh move by 10-20 % from
# run to run on a shared VM. Rank 1 of examples/pingpong (messages of 0 to
# 8 bytes, the copy path) runs under callgrind, rank 0 natively. Prints a
# table; asserts nothing.
#
# usage: bench/p2p-instructions.sh [BUILD_DIR]     (default: build)
# env:   MPIEXEC, MPIFLAGS, REPS (round trips per size, default 2000),
#        REVPROF_MODEL (default: tests/mpi/rp_exact_model.lua), KEEP=1 (keep
#        the callgrind profiles, cg.N for the N-th setting, to read with
#        callgrind_annotate --inclusive=yes)
# About 5 minutes (8 settings, each an MPI start under valgrind).
set -u
case ${1:-} in -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
. "$(dirname "$0")/common.sh"
bench_mpi_tools
bench_need_callgrind p2p-instructions
lib=$build/revprof/librevprof.so
exe=$build/examples/pingpong
bench_need_built p2p-instructions "$lib" "$exe"
w=$(mktemp -d "${TMPDIR:-/tmp}/rp-p2pins-XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "# profiles in $w (kept)"; else trap 'rm -rf "$w"' EXIT; fi
model=${REVPROF_MODEL:-$here/tests/mpi/rp_exact_model.lua}

# per_call OUT FN: "revprof mpi calls" for wrapper FN (MPI_Send, MPI_Recv)
# from callgrind's calling tree: the wrapper's inclusive count less its
# calls into the MPI's FN (PMPI_FN, or FN where the MPI names it so).
# callgrind_annotate shortens the file names under its working directory,
# some of them only, and then splits a function in two (run from /tmp, it
# gave /tmp/b/revprof/rp_wrappers.c:MPI_Recv 146 instructions a call where
# it has 760): it runs in $w, a prefix of no source.
per_call() {
  (cd "$w" && callgrind_annotate --tree=calling --inclusive=yes "$1") 2>/dev/null | awk -v fn="$2" '
    function num(s) { gsub(/,/, "", s); return s + 0 }
    /^ *[0-9,]+ .*\* / { inw = ($0 ~ ("[:]" fn " \\[") && $0 ~ /librevprof/); if (inw) incl = num($1); next }
    inw && /^ *[0-9,]+ .*> / && $0 !~ /librevprof/ && $0 ~ ("[:]P?" fn " \\(") {
      mpi += num($1); c = $0; sub(/.*\(/, "", c); sub(/x\).*/, "", c); calls += num(c)
    }
    END { if (calls > 0) printf "%.0f %.0f %d\n", (incl - mpi) / calls, mpi / calls, calls; else print "- - 0" }'
}

echo "# $(uname -n); MPI: $("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'open ?(mpi|rte)|version' | tr -s ' '); $(valgrind --version)"
echo "# examples/pingpong --max 8 --reps ${REPS:-2000}, rank 1 under callgrind; instructions per call"
printf "%-44s %9s %9s %9s %9s %8s\n" setting "Send:rp" "(MPI)" "Recv:rp" "(MPI)" calls
i=0
while read -r name envs; do
  i=$((i + 1))
  out=$w/cg.$i
  # shellcheck disable=SC2086 # flags, envs: several words
  "$MPIEXEC" $flags -n 2 env LD_PRELOAD="$lib" REVPROF_MODEL="$model" REVPROF_QUIET=1 \
    REVPROF_OUTPUT_DIR="$w/out.$i" $envs CG_OUT="$out" sh -c '
      r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
      if [ "$r" = 1 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file="$CG_OUT" "$@"
      else exec "$@"; fi' sh "$exe" --max 8 --reps "${REPS:-2000}" </dev/null >"$w/log.$i" 2>&1 ||
    { echo "$name: the run failed:"; tail -5 "$w/log.$i"; continue; }
  read -r s sm n <<<"$(per_call "$out" MPI_Send)"
  read -r r rm _ <<<"$(per_call "$out" MPI_Recv)"
  printf "%-44s %9s %9s %9s %9s %8s\n" "$name" "$s" "$sm" "$r" "$rm" "$n"
done <<'EOF'
predict REVPROF_MODE=predict
predict,compute=zero REVPROF_MODE=predict REVPROF_COMPUTE=zero
predict,wildcard=real REVPROF_MODE=predict REVPROF_WILDCARD=real
predict,zero,real REVPROF_MODE=predict REVPROF_COMPUTE=zero REVPROF_WILDCARD=real
compensate REVPROF_MODE=compensate
sample,off REVPROF_MODE=sample REVPROF_SAMPLE=off
sample,random:0.01 REVPROF_MODE=sample REVPROF_SAMPLE=random:0.01
sample,all REVPROF_MODE=sample REVPROF_SAMPLE=all
EOF
echo "# rp: librevprof's own instructions per call (wrapper, rules, piggyback, bookkeeping);"
echo "# (MPI): the MPI's PMPI call inside it, polling for the message included"
