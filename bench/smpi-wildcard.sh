#!/bin/sh
# librevprof's wildcard receives and MPI_Waitany against SimGrid (issue 15):
# characterizes a simulated cluster with revprof-characterize-smpi, fits
# its model, then runs two programs whose message order the clock decides
# under smpirun on that cluster (the truth) and natively under librevprof
# predicting them from the model, at each rank count. Cases:
# "master-worker", bench/smpi/master_worker.c: rank 0 hands out TASKS tasks
# per worker of 1 to 5.1 times COST seconds of computation, receiving results
# of BYTES bytes with MPI_ANY_SOURCE/MPI_ANY_TAG and giving the next task
# to whoever answered; "master-worker-irecv": the same, the master taking
# each result with MPI_Irecv(MPI_ANY_SOURCE) and MPI_Wait (deferred until
# the Wait under librevprof); "waitany", bench/smpi/waitany_pipe.c: rank 0 keeps
# one MPI_Irecv per other rank and takes ITERS results of BYTES bytes from
# each with MPI_Waitany, acking each (1 to 5.1 times COST seconds of
# computation before each result, varying by rank and iteration). The
# computation is declared (smpi_execute_flops on the 1 Gflop/s simulated
# hosts / REVPROF_COMPUTE=annotate with revprof_compute_seconds), so both
# see the same. librevprof runs REPEATS times with REVPROF_WILDCARD=
# predicted (the message its predicted clock says arrives first) and
# REPEATS times with REVPROF_WILDCARD=real (the one native MPI matched).
# Prints one table: the predicted mode's median time (revprof_s), its
# error (revprof / smpirun - 1), its spread over the repeats ((max - min) /
# median), whether the repeats all predicted the same time and schedule
# (same), how many repeats made smpirun's schedule (sched; the programs
# hash the order in which rank 0 took in the results), the same two for
# the real mode (real_err, real_sched), both modes' median wall-clock time
# per run and their ratio, and the flags of the last predicted run's
# report.csv (- for none); then the median and largest |error| of the
# predicted mode. About 1.5 min on the 2-core VM with the defaults (the
# figures do not depend on the machine's load: both tools' clocks are
# simulated and the computation is declared; the wall-clock times do).
# Asserts nothing.
#
# usage: bench/smpi-wildcard.sh [BUILD_DIR]   (default: build)
# env:   NPS (rank counts, default "4 8 16"), CASES (default "master-worker
#        master-worker-irecv waitany"), TASKS (master-worker tasks per worker, default 8),
#        ITERS (waitany results per rank, default 8), COST (seconds of
#        computation of the cheapest task, default 0.001), BYTES (result
#        size, default 16; master-worker needs 16 or more), REPEATS (runs
#        of each mode, default 5), BB_BW (the cluster's backbone, default
#        10Gbps), KEEP=1 keeps the work folder,
#        MPIEXEC, MPIFLAGS (native launcher and its flags; Open MPI gets
#        --oversubscribe)
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
nps=${NPS:-4 8 16} cases=${CASES:-master-worker master-worker-irecv waitany} tasks=${TASKS:-8}
iters=${ITERS:-8} cost=${COST:-0.001} bytes=${BYTES:-16} repeats=${REPEATS:-5}
for c in $cases; do
  case $c in master-worker | master-worker-irecv | waitany) ;; *) echo "smpi-wildcard: unknown case $c (master-worker, master-worker-irecv, waitany)" >&2; exit 2 ;; esac
done
bench_smpi_setup smpi-wildcard
echo "# master-worker $tasks tasks per worker, waitany $iters results per rank; $cost s of computation per unit of cost; $bytes-byte results; $repeats runs per mode; cluster of $max hosts (characterize/smpi/cluster.xml, backbone ${BB_BW:-10Gbps})"
bench_smpi_model latency,MPI_Send,MPI_Recv,MPI_Isend,MPI_Irecv,MPI_Wait,gap,post,MPI_Barrier,MPI_Reduce,MPI_Wtime

for p in master_worker waitany_pipe; do bench_smpi_build "$p"; done

# "T H" (time, schedule hash) from the programs' output line
timed() { sed -n 's/.* bytes, \([^ ]*\) s, schedule \([0-9a-f]*\), 0 bad$/\1 \2/p'; }
clock() { date +%s.%N; }

native() { # mode case np prog args...: "T H wall" appended to $w/$1; report in $w/rp-$1
  m=$1 c=$2 np=$3; shift 3
  rm -rf "$w/rp-$m"
  t0=$(clock)
  # shellcheck disable=SC2086
  out=$(cd "$w" && REVPROF_MODEL="$w/model.lua" REVPROF_COMPUTE=annotate REVPROF_QUIET=1 \
        REVPROF_WILDCARD=$m REVPROF_OUTPUT_DIR="$w/rp-$m" "$MPIEXEC" $flags -n "$np" "$@" \
        2> "$w/rp.err" | timed)
  t1=$(clock)
  [ -n "$out" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-wildcard: revprof ($m) $c $np failed" >&2; exit 1; }
  echo "$out $(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }')" >> "$w/$m"
}

row() { # case np: one table row, the predicted mode's |error| appended to $w/errors
  c=$1 np=$2
  case $c in
    master-worker) prog=master_worker k=$tasks x= ;;
    master-worker-irecv) prog=master_worker k=$tasks x=irecv ;;
    *) prog=waitany_pipe k=$iters x= ;;
  esac
  echo "$c at $np ranks ..." >&2
  # shellcheck disable=SC2086 # $x: one word or none
  ref=$(smpi "$np" "$w/${prog}_smpi" "$k" "$cost" "$bytes" $x 2> "$w/smpi.err" | timed)
  [ -n "$ref" ] || { tail -n 5 "$w/smpi.err" >&2; echo "smpi-wildcard: smpirun $c $np failed" >&2; exit 1; }
  : > "$w/predicted"; : > "$w/real"
  i=0
  while [ "$i" -lt "$repeats" ]; do
    # shellcheck disable=SC2086
    native predicted "$c" "$np" "$w/${prog}_rp" "$k" "$cost" "$bytes" $x
    # shellcheck disable=SC2086
    native real "$c" "$np" "$w/${prog}_rp" "$k" "$cost" "$bytes" $x
    i=$((i + 1))
  done
  # shellcheck disable=SC2086 # the two words of $ref
  set -- $ref
  pred=$(cut -d' ' -f1 "$w/predicted" | median)
  real=$(cut -d' ' -f1 "$w/real" | median)
  wp=$(cut -d' ' -f3 "$w/predicted" | median)
  wr=$(cut -d' ' -f3 "$w/real" | median)
  spread=$(cut -d' ' -f1 "$w/predicted" | awk -v m="$pred" 'NR == 1 || $1 < lo { lo = $1 }
    NR == 1 || $1 > hi { hi = $1 } END { printf "%.1f%%", 100 * (hi - lo) / m }')
  same=$(cut -d' ' -f1,2 "$w/predicted" | sort -u | awk 'END { print NR == 1 ? "yes" : "no" }')
  sched=$(awk -v h="$2" '{ n += $2 == h } END { printf "%d/%d", n, NR }' "$w/predicted")
  rsched=$(awk -v h="$2" '{ n += $2 == h } END { printf "%d/%d", n, NR }' "$w/real")
  rerr=$(awk -v r="$1" -v p="$real" 'BEGIN { printf "%+.1f%%", 100 * (p - r) / r }')
  fl=$(awk -F, '$1 == "flags" && $2 == "all" { print $3; exit }' "$w/rp-predicted/report.csv" 2> /dev/null)
  printf '%s %s %s %s %s %s %.3f %.3f %.2f %s\n' \
    "$(echo "$c $np $k $bytes $1 $pred" | bench_error_row "$w/errors")" \
    "$spread" "$same" "$sched" "$rerr" "$rsched" "$wp" "$wr" \
    "$(echo "$wp $wr" | awk '{ print $1 / $2 }')" "${fl:--}" >> "$w/table"
}

: > "$w/errors"
echo "case np k bytes smpirun_s revprof_s error spread same sched real_err real_sched wall_pred_s wall_real_s ratio flags" > "$w/table"
for c in $cases; do
  for np in $nps; do row "$c" "$np"; done
done
if command -v column > /dev/null; then column -t < "$w/table"; else cat "$w/table"; fi
bench_error_summary "$w/errors"
