#!/bin/bash
# How well REVPROF_COMPUTE=measure (auto's choice for an unmodified program)
# predicts loops of cheap MPI calls, where revprof's own cost per call would
# otherwise be charged as the program's computation (issue 8, target: within
# 25 %). Runs tests/mpi/rp_compute.c's "iprobe N" and "wtime N" loops natively
# and under librevprof, RUNS times each, alternating, and prints per loop the
# native median, the predicted median (MPI_Wtime around the loop: simulated
# under revprof) and their ratio.
#   bench/compute-overhead.sh [BUILD] [RUNS] [NP]
# BUILD: the build folder (default build); RUNS: default 5; NP: ranks
# (default 2). The model is models/machines/debian12-2core-openmpi.lua (its
# MPI_Wtime row costs each MPI_Wtime; MPI_Iprobe has no row: a poll runs at
# host speed). Asserts nothing.
set -euo pipefail
. "$(dirname "$0")/common.sh"
runs=${2:-5} np=${3:-2}
exe=$build/tests/mpi/rp_compute_native
lib=$build/revprof/librevprof.so
model=${REVPROF_MODEL:-$here/models/machines/debian12-2core-openmpi.lua}
for f in "$exe" "$lib" "$model"; do
  [ -e "$f" ] || { echo "compute-overhead: $f not found (build first)" >&2; exit 2; }
done
flags=()
"$MPIEXEC" --version 2>&1 | grep -q "Open MPI" && flags=(--oversubscribe)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

loop() { # the slowest rank's "loop" figure of one run's output
  awk '$3 == "loop" && $4 > m { m = $4 } END { print m }'
}

printf '%-18s %5s %12s %12s %8s\n' loop ranks "native s" "predicted s" ratio
for spec in "iprobe 200000" "wtime 1000000"; do
  : > "$work/nat"; : > "$work/rp"
  for ((r = 0; r < runs; r++)); do
    # shellcheck disable=SC2086
    "$MPIEXEC" "${flags[@]}" -n "$np" "$exe" $spec | loop >> "$work/nat"
    # shellcheck disable=SC2086
    "$MPIEXEC" "${flags[@]}" -n "$np" env REVPROF_MODEL="$model" \
      REVPROF_OUTPUT_DIR="$work/out" LD_PRELOAD="$lib" "$exe" $spec \
      2>/dev/null | loop >> "$work/rp"
  done
  nat=$(median < "$work/nat") rp=$(median < "$work/rp")
  printf '%-18s %5d %12.6f %12.6f %8.3f\n' "$spec" "$np" "$nat" "$rp" \
    "$(awk -v a="$rp" -v b="$nat" 'BEGIN { print (b > 0 ? a / b : 0) }')"
done
echo "(medians of $runs runs each; REVPROF_COMPUTE unset: auto, i.e. measure for this unmodified program)"
