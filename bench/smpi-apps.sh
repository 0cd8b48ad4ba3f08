#!/bin/sh
# Real applications against SimGrid: HPCCG (Mantevo) and LULESH 2.0 (LLNL)
# (their source folders are the arguments, never copied into the project)
# built with smpicxx and run under smpirun on a copy of
# characterize/smpi/cluster.xml, and built with the MPI's mpicxx and run
# natively under librevprof (preloaded, measured computation: what an
# unmodified program gets) predicting them from the model
# revprof-characterize-smpi measured on that cluster (--quick, every
# function, p = the rank counts). SimGrid times each computation burst on
# this host and injects it at smpi/host-speed = the simulated hosts' 1
# Gflop/s, so a burst's simulated time is its host time on both sides.
# Compares the application's own time (HPCCG's "Total", LULESH's grind
# time per domain; MPI_Wtime, simulated under both tools), medians of RUNS
# runs each (both sides time real computation, so both vary), with its
# spread (max - min over the median) and the report's flags. Checks every
# run's answer (HPCCG: final residual < 1e-8; LULESH: its symmetry test).
# Rank counts an application cannot use (LULESH: cubes) are skipped.
# Asserts nothing.
#
# usage: bench/smpi-apps.sh BUILD_DIR APP_SRC...   (HPCCG, LULESH folders)
# env:   NPS (rank counts, default "2 4 8"; more than the cores: natively
#        oversubscribed, said in the table), SIZE (tiny or small, default
#        tiny), RUNS (default 3), KEEP=1 keeps the work folder, MPIEXEC,
#        MPIFLAGS, MPICXX (default: the C++ wrapper beside the build's
#        mpicc)
set -eu
[ $# -ge 2 ] || { echo "usage: bench/smpi-apps.sh BUILD_DIR APP_SRC... (HPCCG, LULESH)" >&2; exit 2; }
. "$(dirname "$0")/common.sh"
shift
for src in "$@"; do
  [ -f "$src/HPCCG.cpp" ] || [ -f "$src/lulesh.cc" ] \
    || { echo "smpi-apps: $src is neither HPCCG's nor LULESH's source folder" >&2; exit 2; }
done
nps=${NPS:-2 4 8} size=${SIZE:-tiny} runs=${RUNS:-3}
command -v smpicxx > /dev/null || { echo "smpi-apps: smpicxx not found (apt-get install libsimgrid-dev)" >&2; exit 1; }
bench_smpi_setup smpi-apps
MPICXX=${MPICXX:-$(echo "$mpicc" | sed 's/mpicc\([^/]*\)$/mpicxx\1/')}
echo "# $size, $runs runs per side; cluster of $max hosts (characterize/smpi/cluster.xml); natively $(nproc) cores"
echo "# time: HPCCG's Total (s), LULESH's grind time per domain (us per zone and cycle)"
bench_smpi_model all
# the application's own time in its run folder $1
time_hpccg() { # its "Total", from the yaml file it wrote
  awk '/^Time Summary/ { t = 1; next } t && /Total/ { print $3; exit }' "$1"/hpccg*.yaml 2> /dev/null
}
time_lulesh() { # its grind time per domain, us per zone and cycle
  sed -n 's/^Grind time (us\/z\/c) *= *\([^ ]*\) (per dom).*/\1/p' "$1/out" | tail -n 1
}
spread() { # (max - min) / median of the numbers on stdin, in %
  sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", 100 * (v[NR] - v[1]) / m }'
}
printf '%-7s %-6s %-5s %11s %7s %11s %7s %9s  %s\n' app ranks "" smpirun spread revprof spread error flags
errs="$w/errors"
: > "$errs"
for src in "$@"; do
  app=hpccg
  [ -f "$src/lulesh.cc" ] && app=lulesh
  eval "exe=\$exe_$app"
  mkdir -p "$w/smpi" "$w/nat"
  echo "building $app ..." >&2
  MPICXX=smpicxx build_$app "$src" "$w/smpi" > "$w/cc.log" 2>&1 || { cat "$w/cc.log" >&2; exit 1; }
  build_$app "$src" "$w/nat" >> "$w/cc.log" 2>&1 || { cat "$w/cc.log" >&2; exit 1; }
  for np in $nps; do
    # shellcheck disable=SC2154 # size: the caller's, read by args_hpccg
    args=$(args_$app "$np") || { echo "smpi-apps: $app does not run on $np ranks" >&2; continue; }
    over=-
    [ "$np" -gt "$(nproc)" ] && over=over
    : > "$w/ref" && : > "$w/pred"
    i=0
    while [ "$i" -lt "$runs" ]; do
      echo "$app at $np ranks, run $((i + 1)) of $runs ..." >&2
      d="$w/smpi/$app-$np-$i" && mkdir -p "$d"
      # shellcheck disable=SC2086
      (cd "$d" && smpirun -np "$np" -platform "$smpi_dir/cluster.xml" -hostfile "$smpi_dir/hostfile" \
         --cfg=smpi/host-speed:1e9 --log=root.thres:warning "$w/smpi/$exe" $args > out 2> err) \
        || { tail -n 5 "$d/err" >&2; echo "smpi-apps: smpirun of $app at $np ranks failed" >&2; exit 1; }
      case $(check_$app "$d/out") in ok*) ;; *) echo "smpi-apps: smpirun's $app answer at $np ranks: $(check_$app "$d/out")" >&2; exit 1 ;; esac
      time_$app "$d" >> "$w/ref"
      d="$w/nat/$app-$np-$i" && mkdir -p "$d"
      # shellcheck disable=SC2086
      (cd "$d" && REVPROF_MODEL="$w/model.lua" REVPROF_OUTPUT_DIR="$d/rp" "$MPIEXEC" $flags -n "$np" \
         env LD_PRELOAD="$lib" "$w/nat/$exe" $args > out 2> err) \
        || { tail -n 5 "$d/err" >&2; echo "smpi-apps: revprof with $app at $np ranks failed" >&2; exit 1; }
      case $(check_$app "$d/out") in ok*) ;; *) echo "smpi-apps: revprof's $app answer at $np ranks: $(check_$app "$d/out")" >&2; exit 1 ;; esac
      time_$app "$d" >> "$w/pred"
      i=$((i + 1))
    done
    ref=$(median < "$w/ref") pred=$(median < "$w/pred")
    [ -n "$ref" ] && [ -n "$pred" ] || { echo "smpi-apps: no time from $app at $np ranks" >&2; exit 1; }
    fl=$(sed -n 's/^flags: *//p' "$d/rp/report.txt" | head -n 1)
    ex=$(sed -n 's/^  \(extrapolated\|[a-z-]*\):.*/\1/p' "$d/rp/report.txt" | tr '\n' ' ')
    echo "$app $np $over $ref $(spread < "$w/ref") $pred $(spread < "$w/pred")" | awk -v out="$errs" -v fl="$fl $ex" '{
      e = 100 * ($6 - $4) / $4
      printf "%-7s %-6s %-5s %11.6f %6s%% %11.6f %6s%% %+8.1f%%  %s\n", $1, $2, $3, $4, $5, $6, $7, e, fl
      print (e < 0 ? -e : e) >> out }'
  done
done
bench_error_summary "$errs" 15
