#!/bin/sh
# A real application against SimGrid: HPCCG (Mantevo; its source folder is
# the argument, never copied into the project) built with smpicxx and run
# under smpirun on a copy of characterize/smpi/cluster.xml, and built with
# the MPI's mpicxx and run natively under librevprof (preloaded, measured
# computation: what an unmodified program gets) predicting it from the
# model revprof-characterize-smpi measured on that cluster (--quick, every
# function, p = the rank counts). SimGrid times each computation burst on
# this host and injects it at smpi/host-speed = the simulated hosts' 1
# Gflop/s, so a burst's simulated time is its host time on both sides.
# Compares HPCCG's own "Total" time (MPI_Wtime: simulated under both
# tools), medians of RUNS runs each (both sides time real computation, so
# both vary), with its spread (max - min over the median) and the
# report's flags. Checks every run's answer (final residual < 1e-8).
# Asserts nothing.
#
# usage: bench/smpi-apps.sh BUILD_DIR HPCCG_SRC
# env:   NPS (rank counts, default "2 4 8"; more than the cores: natively
#        oversubscribed, said in the table), SIZE (tiny or small, default
#        tiny), RUNS (default 3), KEEP=1 keeps the work folder, MPIEXEC,
#        MPIFLAGS, MPICXX (default: the C++ wrapper beside the build's
#        mpicc)
set -eu
. "$(dirname "$0")/common.sh"
src=${2:?usage: bench/smpi-apps.sh BUILD_DIR HPCCG_SRC}
[ -f "$src/HPCCG.cpp" ] || { echo "smpi-apps: $src has no HPCCG.cpp (the HPCCG source folder)" >&2; exit 2; }
nps=${NPS:-2 4 8} size=${SIZE:-tiny} runs=${RUNS:-3}
command -v smpicxx > /dev/null || { echo "smpi-apps: smpicxx not found (apt-get install libsimgrid-dev)" >&2; exit 1; }
bench_smpi_setup smpi-apps
MPICXX=${MPICXX:-$(echo "$mpicc" | sed 's/mpicc\([^/]*\)$/mpicxx\1/')}
echo "# HPCCG ($size), $runs runs per side; cluster of $max hosts (characterize/smpi/cluster.xml); natively $(nproc) cores"
bench_smpi_model all
mkdir -p "$w/smpi" "$w/nat"
MPICXX=smpicxx build_hpccg "$src" "$w/smpi" > "$w/cc.log" 2>&1 || { cat "$w/cc.log" >&2; exit 1; }
build_hpccg "$src" "$w/nat" >> "$w/cc.log" 2>&1 || { cat "$w/cc.log" >&2; exit 1; }

total() { # HPCCG's own total time from the yaml file it wrote in folder $1
  awk '/^Time Summary/ { t = 1; next } t && /Total/ { print $3; exit }' "$1"/hpccg*.yaml 2> /dev/null
}
spread() { # (max - min) / median of the numbers on stdin, in %
  sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", 100 * (v[NR] - v[1]) / m }'
}
printf '%-6s %-5s %11s %7s %11s %7s %9s  %s\n' ranks "" "smpirun s" spread "revprof s" spread error flags
errs="$w/errors"
: > "$errs"
for np in $nps; do
  # shellcheck disable=SC2154 # size: the caller's, read by args_hpccg
  args=$(args_hpccg "$np") || { echo "smpi-apps: HPCCG cannot run on $np ranks at size $size" >&2; continue; }
  over=-
  [ "$np" -gt "$(nproc)" ] && over=over
  : > "$w/ref" && : > "$w/pred"
  i=0
  while [ "$i" -lt "$runs" ]; do
    echo "$np ranks, run $((i + 1)) of $runs ..." >&2
    d="$w/smpi/run-$np-$i" && mkdir -p "$d"
    # shellcheck disable=SC2086
    (cd "$d" && smpirun -np "$np" -platform "$smpi_dir/cluster.xml" -hostfile "$smpi_dir/hostfile" \
       --cfg=smpi/host-speed:1e9 --log=root.thres:warning "$w/smpi/$exe_hpccg" $args > out 2> err) \
      || { tail -n 5 "$d/err" >&2; echo "smpi-apps: smpirun at $np ranks failed" >&2; exit 1; }
    case $(check_hpccg "$d/out") in ok*) ;; *) echo "smpi-apps: smpirun's answer at $np ranks: $(check_hpccg "$d/out")" >&2; exit 1 ;; esac
    total "$d" >> "$w/ref"
    d="$w/nat/run-$np-$i" && mkdir -p "$d"
    # shellcheck disable=SC2086
    (cd "$d" && REVPROF_MODEL="$w/model.lua" REVPROF_OUTPUT_DIR="$d/rp" "$MPIEXEC" $flags -n "$np" \
       env LD_PRELOAD="$lib" "$w/nat/$exe_hpccg" $args > out 2> err) \
      || { tail -n 5 "$d/err" >&2; echo "smpi-apps: revprof at $np ranks failed" >&2; exit 1; }
    case $(check_hpccg "$d/out") in ok*) ;; *) echo "smpi-apps: revprof's run's answer at $np ranks: $(check_hpccg "$d/out")" >&2; exit 1 ;; esac
    total "$d" >> "$w/pred"
    i=$((i + 1))
  done
  ref=$(median < "$w/ref") pred=$(median < "$w/pred")
  [ -n "$ref" ] && [ -n "$pred" ] || { echo "smpi-apps: no Total time at $np ranks" >&2; exit 1; }
  fl=$(sed -n 's/^flags: *//p' "$d/rp/report.txt" | head -n 1)
  ex=$(sed -n 's/^  \(extrapolated\|[a-z-]*\):.*/\1/p' "$d/rp/report.txt" | tr '\n' ' ')
  echo "$np $over $ref $(spread < "$w/ref") $pred $(spread < "$w/pred")" | awk -v out="$errs" -v fl="$fl $ex" '{
    e = 100 * ($5 - $3) / $3
    printf "%-6s %-5s %11.6f %6s%% %11.6f %6s%% %+8.1f%%  %s\n", $1, $2, $3, $4, $5, $6, e, fl
    print (e < 0 ? -e : e) >> out }'
done
bench_error_summary "$errs" 15
