#!/bin/sh
# Prints the wall time of two characterizations on this machine, side by
# side: a quick one (4 ranks, sizes up to 1 MiB, all functions; the target
# is at most 2 minutes on a 2-core machine) and the default one (2 ranks).
# Figures only, no assertion. usage: bench/characterize-time.sh [BUILD_DIR]
set -eu
build=${1:-build}
exe=$build/characterize/revprof-characterize
mpiexec=${MPIEXEC:-mpiexec}
if [ ! -x "$exe" ]; then
  echo "characterize-time: no $exe (build first, or pass the build folder)" >&2
  exit 2
fi
flags=""
if "$mpiexec" --version 2>&1 | grep -Eq "Open MPI|OpenRTE"; then
  flags="--oversubscribe" # 4 ranks on fewer cores
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL NP ARGS...: one characterization, its wall time and what it did
run() {
  label=$1 np=$2
  shift 2
  out=$tmp/$np-$$-$(date +%s%N)
  t0=$(date +%s.%N)
  if "$mpiexec" $flags -n "$np" "$exe" "$@" -o "$out" -q >"$tmp/log" 2>&1; then
    status=ok
  else
    status="FAILED (exit $?)"
  fi
  t1=$(date +%s.%N)
  meas=$(sed -n 's/^measuring time: //p' "$out/run.txt" 2>/dev/null || true)
  pts=$(sed -n 's/^points measured: \([0-9]*\).*/\1/p' "$out/run.txt" \
        2>/dev/null || true)
  printf '%-44s %7.1f s wall  (%s measuring, %s points, %s)\n' "$label" \
    "$(echo "$t1 - $t0" | bc)" "${meas:-?}" "${pts:-?}" "$status"
  [ "$status" = ok ] || sed 's/^/    /' "$tmp/log" | tail -5
}

echo "characterize-time: $(nproc) cores, $("$mpiexec" --version 2>&1 | head -1)"
run "quick, 4 ranks, 0..1 MiB, all functions" 4 --quick --sizes 0:1M
run "default, 2 ranks (0..4 MiB, rse 5 %)" 2
