#!/bin/sh
# librevprof's collective rules against SimGrid, a reference machine known
# exactly: characterizes a simulated cluster with revprof-characterize-smpi,
# fits its model, then runs a loop of one collective
# (bench/smpi/coll_loop.c: Allreduce, Bcast with a moving root, Reduce,
# Allgather, Alltoall, Barrier) under smpirun on that cluster and natively
# under librevprof predicting it from the model, at each rank count and
# size, with balanced computation and with SKEW (rank r computes 1 + SKEW
# r / (P - 1) times as long: the last rank decides when each collective
# ends). The computation is declared (smpi_execute_flops on the 1 Gflop/s
# simulated hosts / revprof_compute_seconds), so both see the same. Prints
# one row per case (error = predicted / smpirun - 1) and a summary line.
# Asserts nothing.
#
# usage: bench/smpi-coll.sh [BUILD_DIR]        (default: build)
# env:   NPS (rank counts, default "4 8 16"), SIZES (bytes per rank,
#        default "8 65536"), FNS (default "allreduce bcast reduce allgather
#        alltoall barrier"), SKEWS (default "0 1"), ITERS (default 20),
#        COMPUTE (seconds per iteration, default 0.0005), KEEP=1 keeps the
#        work folder, MPIEXEC, MPIFLAGS (native launcher and its flags;
#        Open MPI gets --oversubscribe)
set -eu
. "$(dirname "$0")/common.sh"
nps=${NPS:-4 8 16} sizes=${SIZES:-8 65536} iters=${ITERS:-20}
work=${COMPUTE:-0.0005} skews=${SKEWS:-0 1}
fns=${FNS:-allreduce bcast reduce allgather alltoall barrier}
bench_smpi_setup smpi-coll
echo "# $iters iterations of one collective after $work s of computation (rank r: x (1 + skew r / (P - 1))); cluster of $max hosts (characterize/smpi/cluster.xml)"
bench_smpi_model latency,MPI_Send,MPI_Recv,MPI_Allreduce,MPI_Bcast,MPI_Reduce,MPI_Allgather,MPI_Alltoall,MPI_Barrier,MPI_Wtime

bench_smpi_build coll_loop

printf '%-8s %4s %3s %8s %13s %13s %10s\n' call np skew bytes "smpirun s" "revprof s" error
errs="$w/errors"
: > "$errs"
for fn in $fns; do
  for d in $sizes; do
    [ "$fn" = barrier ] && [ "$d" != "$(echo "$sizes" | awk '{ print $1 }')" ] && continue
    for skew in $skews; do
      for np in $nps; do
        echo "$fn $d B, skew $skew, $np ranks ..." >&2
        ref=$(smpi "$np" "$w/coll_loop_smpi" "$fn" "$d" "$iters" "$work" "$skew" 2> "$w/smpi.err" \
              | sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p')
        [ -n "$ref" ] || { tail -n 5 "$w/smpi.err" >&2; echo "smpi-coll: smpirun $fn $np failed" >&2; exit 1; }
        # shellcheck disable=SC2086
        pred=$(cd "$w" && REVPROF_MODEL="$w/model.lua" REVPROF_COMPUTE=annotate REVPROF_QUIET=1 \
               REVPROF_OUTPUT_DIR="$w/rp-$fn-$d-$skew-$np" "$MPIEXEC" $flags -n "$np" "$w/coll_loop_rp" \
               "$fn" "$d" "$iters" "$work" "$skew" 2> "$w/rp.err" \
               | sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p')
        [ -n "$pred" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-coll: revprof $fn $np failed" >&2; exit 1; }
        echo "$fn $np $skew $d $ref $pred" | bench_error_row "$errs"
      done
    done
  done
done
bench_error_summary "$errs" 15
