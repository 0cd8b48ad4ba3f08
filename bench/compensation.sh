#!/bin/sh
# Compensate mode on the master/worker Monte-Carlo pi of seed 000 §5
# (examples/mcpi.c): the program's time uninstrumented, then instrumented
# (fine-grained regions) with no, local and parallel compensation, for the
# master and the workers, as in the paper's Table 1. Each figure is the
# minimum over RUNS runs (min over workers too). Prints a table; asserts
# nothing.
#
# usage: bench/compensation.sh [BUILD_DIR]          (default: build)
# env:   NP (ranks, default 2: one master, one worker per core),
#        RUNS (default 5), MCPI_ARGS (mcpi's --chunks, --chunk, --work;
#        default: its own), MPIEXEC, MPIFLAGS, REVPROF_MODEL / REVPROF_OVERHEAD
#        (default: calibrate at MPI_Init)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
plain=$build/examples/mcpi
inst=$build/examples/mcpi_rp
for exe in "$plain" "$inst"; do
  [ -x "$exe" ] || { echo "compensation: $exe not built (cmake --build $build)" >&2; exit 1; }
done
if [ -z "${MPIEXEC:-}" ]; then
  MPIEXEC=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
  MPIEXEC=${MPIEXEC:-mpiexec}
fi
if [ "$(id -u)" = 0 ]; then # Open MPI refuses root without these
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
NP=${NP:-2}
RUNS=${RUNS:-5}
MCPI_ARGS=${MCPI_ARGS:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

i=0
while [ $i -lt "$RUNS" ]; do
  # shellcheck disable=SC2086
  REVPROF_MODE=off $MPIEXEC ${MPIFLAGS:-} -n "$NP" "$plain" $MCPI_ARGS \
    >>"$tmp/plain.txt"
  # shellcheck disable=SC2086
  REVPROF_MODE=compensate REVPROF_OUTPUT_DIR="$tmp/out" \
    $MPIEXEC ${MPIFLAGS:-} -n "$NP" "$inst" $MCPI_ARGS >/dev/null 2>&1
  sed -n 's/^\([0-9]*\),(program),1,\([^,]*\),[^,]*,\([^,]*\),[^,]*,\([^,]*\),.*/\1 \2 \3 \4/p' \
    "$tmp/out/compensate.csv" >>"$tmp/comp.txt"
  i=$((i + 1))
done

awk -v np="$NP" -v runs="$RUNS" '
  function mn(a, b) { return a == "" || b < a ? b : a }
  FILENAME ~ /plain/ && $2 == "time" && $3 == "master" { pm = mn(pm, $4) }
  FILENAME ~ /plain/ && $2 == "time" && $3 == "worker" { pw = mn(pw, $5) }
  FILENAME ~ /comp/ && $1 == 0 { nm = mn(nm, $2); lm = mn(lm, $3); qm = mn(qm, $4) }
  FILENAME ~ /comp/ && $1 != 0 { nw = mn(nw, $2); lw = mn(lw, $3); qw = mn(qw, $4) }
  function err(v, ref) { return sprintf("%+.1f%%", 100 * (v - ref) / ref) }
  END {
    printf "mcpi, %d ranks (1 master, %d workers), minimum of %d runs, seconds\n\n", np, np - 1, runs
    printf "%-7s %17s %17s %17s %17s\n", "task", "no instrumentation", "no compensation", "local comp.", "parallel comp."
    printf "%-7s %17.4f %10.4f %6s %10.4f %6s %10.4f %6s\n", "master", pm, nm, err(nm, pm), lm, err(lm, pm), qm, err(qm, pm)
    printf "%-7s %17.4f %10.4f %6s %10.4f %6s %10.4f %6s\n", "worker", pw, nw, err(nw, pw), lw, err(lw, pw), qw, err(qw, pw)
  }' "$tmp/plain.txt" "$tmp/comp.txt"
