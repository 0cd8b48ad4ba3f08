#!/bin/sh
# librevprof's one-sided rules against SimGrid, a reference machine known
# exactly: characterizes a simulated cluster with revprof-characterize-smpi,
# fits its model, then runs the halo exchange of bench/smpi/halo_rma.c
# (MPI_Win_fence and post-start-complete-wait) under smpirun on that
# cluster and natively under librevprof predicting it from the model, at
# each rank count. Prints one table: smpirun's time, revprof's predicted
# time and its error by default (REVPROF_CONTENTION=epoch: the model's
# gap_all row, the operations of these active-target epochs drain at the
# rate of the window's group all moving data at once), then the same with
# REVPROF_CONTENTION=off (the pair's gap only) and =world (messages too). The computation is declared (smpi_execute_flops on
# the 1 Gflop/s simulated hosts / revprof_compute_seconds), so both see
# the same. Asserts nothing.
#
# usage: bench/smpi-onesided.sh [BUILD_DIR]        (default: build)
# env:   NPS (rank counts, default "4 8 16"), D (halo bytes, default
#        65536), ITERS (default 50), COMPUTE (seconds per iteration,
#        default 0.001), MODES (default "fence pscw"), KEEP=1 keeps the
#        work folder, MPIEXEC, MPIFLAGS (native launcher and its flags;
#        Open MPI gets --oversubscribe)
set -eu
. "$(dirname "$0")/common.sh"
nps=${NPS:-4 8 16} d=${D:-65536} iters=${ITERS:-50} work=${COMPUTE:-0.001}
modes=${MODES:-fence pscw}
bench_smpi_setup smpi-onesided
echo "# halo: $d bytes each way, $iters iterations, $work s of computation each; cluster of $max hosts (characterize/smpi/cluster.xml)"
bench_smpi_model latency,gap,gap_all,MPI_Send,MPI_Recv,MPI_Put,MPI_Get,MPI_Accumulate,MPI_Win_lock,MPI_Win_fence,MPI_Barrier,MPI_Reduce,MPI_Wtime

bench_smpi_build halo_rma

printf '%-6s %-4s %14s %14s %9s %14s %9s %14s %9s\n' mode np "smpirun s" "revprof s" error "off s" error "world s" error
predict() { # mode np contention: the predicted time
  # shellcheck disable=SC2086
  (cd "$w" && REVPROF_CONTENTION=$3 REVPROF_MODEL="$w/model.lua" REVPROF_COMPUTE=annotate REVPROF_QUIET=1 \
     REVPROF_OUTPUT_DIR="$w/rp-$1-$2-$3" "$MPIEXEC" $flags -n "$2" "$w/halo_rma_rp" \
     "$1" "$d" "$iters" "$work" 2> "$w/rp.err" \
     | sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p')
}
for mode in $modes; do
  for np in $nps; do
    echo "$mode at $np ranks ..." >&2
    ref=$(smpi "$np" "$w/halo_rma_smpi" "$mode" "$d" "$iters" "$work" 2> "$w/smpi.err" \
          | sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p')
    [ -n "$ref" ] || { tail -n 5 "$w/smpi.err" >&2; echo "smpi-onesided: smpirun $mode $np failed" >&2; exit 1; }
    pred=$(predict "$mode" "$np" epoch)
    [ -n "$pred" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-onesided: revprof $mode $np failed" >&2; exit 1; }
    off=$(predict "$mode" "$np" off)
    [ -n "$off" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-onesided: revprof $mode $np (off) failed" >&2; exit 1; }
    world=$(predict "$mode" "$np" world)
    [ -n "$world" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-onesided: revprof $mode $np (world) failed" >&2; exit 1; }
    echo "$mode $np $ref $pred $off $world" | awk '{ printf "%-6s %-4s %14.6e %14.6e %+8.1f%% %14.6e %+8.1f%% %14.6e %+8.1f%%\n", $1, $2, $3, $4, 100 * ($4 - $3) / $3, $5, 100 * ($5 - $3) / $3, $6, 100 * ($6 - $3) / $3 }'
  done
done
