#!/bin/sh
# Predicted against measured run time of the examples at 2 ranks on this
# machine, using a model of this machine (default: the shipped one) and
# measured computation (REVPROF_COMPUTE=measure, CPU time x 1). Each example
# runs natively and under revprof, alternating, RUNS times (default 5);
# prints medians and the relative error of the prediction. Asserts nothing.
#   bench/predict-accuracy.sh [BUILD_DIR] [MODEL]
set -eu
. "$(dirname "$0")/common.sh"
model=${2:-$here/models/machines/debian12-2core-openmpi.lua}
runs=${RUNS:-5}
revprof=$build/tools/revprof
for f in "$revprof" "$build/examples/outer" "$build/examples/stencil"; do
  [ -x "$f" ] || { echo "predict-accuracy: $f not built" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# elapsed OUTPUT: the "elapsed X s" figure the examples print (MPI_Wtime:
# real natively, the simulated avg clock under revprof)
elapsed() { sed -n 's/.* elapsed \([0-9.e+-]*\) s.*/\1/p' "$1" | tail -n 1; }

echo "predicted vs measured, 2 ranks, model $(basename "$model"), compute measured"
echo "(measured and predicted: the program's own MPI_Wtime span; whole run: the"
echo " report's predicted elapsed time avg [min, max] from MPI_Init to MPI_Finalize)"
printf '%-52s %10s %10s %8s   %s\n' example "measured" "predicted" error "whole run predicted"
for ex in "outer --n 3000" "stencil --nx 1024 --ny 1024 --iters 200 --check 10" \
          "stencil --nx 128 --ny 128 --iters 2000 --check 1"; do
  set -- $ex
  prog=$build/examples/$1
  shift
  : > "$tmp/native" ; : > "$tmp/pred"; : > "$tmp/lo"; : > "$tmp/av"; : > "$tmp/hi"
  i=0
  while [ $i -lt "$runs" ]; do
    "$MPIEXEC" -n 2 "$prog" "$@" > "$tmp/out" 2>&1
    elapsed "$tmp/out" >> "$tmp/native"
    "$revprof" run --model "$model" -np 2 --compute measure -o "$tmp/rp" \
      -- "$prog" "$@" > "$tmp/out" 2>&1
    elapsed "$tmp/out" >> "$tmp/pred"
    # report.csv: record,rank,name,calls,bytes,min_s,avg_s,max_s,wait_s
    awk -F, '$1=="elapsed" {print $6 > "'"$tmp/lo"'"; print $7 > "'"$tmp/av"'"; print $8 > "'"$tmp/hi"'"}' \
      "$tmp/rp/report.csv"
    i=$((i + 1))
  done
  m=$(median < "$tmp/native"); p=$(median < "$tmp/pred")
  lo=$(median < "$tmp/lo"); av=$(median < "$tmp/av"); hi=$(median < "$tmp/hi")
  err=$(awk -v m="$m" -v p="$p" 'BEGIN {printf "%+.1f%%", (p - m) / m * 100}')
  printf '%-52s %9.4fs %9.4fs %8s   %.4fs [%.4f, %.4f]\n' "$ex" "$m" "$p" "$err" "$av" "$lo" "$hi"
done
