#!/bin/sh
# Prints the fitter's figures for a raw CSV: held-out accuracy of the paper
# and default methods side by side, the default fit's errors on the points
# it was fitted to (per function, its largest size apart), and the time
# each method takes to fit it.
#   bench/fit-accuracy.sh RAW.csv          real characterization data
#   bench/fit-accuracy.sh --synthetic      a generated 16-rank data set
# BENCH_FIT names the bench_fit program (default: the first of
# build*/bench/bench_fit under the source tree); RUNS the timing runs (7).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${BENCH_FIT:-}
if [ -z "$bin" ]; then
  for b in "$here"/build/bench/bench_fit "$here"/build*/bench/bench_fit; do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "fit-accuracy.sh: bench_fit not built (cmake --build BUILD --target bench_fit, or set BENCH_FIT)" >&2
  exit 2
fi
if [ $# -ne 1 ]; then
  echo "usage: $0 RAW.csv | --synthetic" >&2
  exit 2
fi

raw=$1
label=$1
if [ "$raw" = "--synthetic" ]; then
  raw=$(mktemp "${TMPDIR:-/tmp}/revprof-synthetic-XXXXXX")
  trap 'rm -f "$raw"' EXIT
  "$bin" gen "$raw" 2024 >/dev/null
  label="synthetic 16-rank data (bench_fit gen, seed 2024)"
fi

echo "raw data: $label, $(($(grep -vc '^#' "$raw") - 1)) points"
"$bin" accuracy "$raw"
echo
echo "default method fitted to all points, each point against it:"
"$bin" fitted "$raw"
"$bin" time "$raw" "${RUNS:-7}"
