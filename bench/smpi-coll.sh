#!/bin/sh
# librevprof's collective rules against SimGrid, a reference machine known
# exactly: characterizes a simulated cluster with revprof-characterize-smpi,
# fits its model, then runs a loop of one collective
# (bench/smpi/coll_loop.c: Allreduce, Bcast with a root that moves each
# iteration and from rank 0 (bcast0), Reduce, Allgather, Alltoall, Barrier) under smpirun on that cluster and natively
# under librevprof predicting it from the model, at each rank count and
# size, with balanced computation and with SKEW (rank r computes 1 + SKEW
# r / (P - 1) times as long: the last rank decides when each collective
# ends). The computation is declared (smpi_execute_flops on the 1 Gflop/s
# simulated hosts / revprof_compute_seconds), so both see the same. Prints
# one row per case (error = predicted / smpirun - 1), with the model and
# with the same model less its bcast_root, bcast_late and reduce_late rows
# (every member of a rooted call then pays the whole call, the rule before
# them), and a summary line for each.
# Asserts nothing.
#
# usage: bench/smpi-coll.sh [BUILD_DIR]        (default: build)
# env:   NPS (rank counts, default "4 8 16"), SIZES (bytes per rank,
#        default "8 65536"), FNS (default "allreduce bcast bcast0 reduce
#        allgather alltoall barrier"), SKEWS (default "0 1"), ITERS
#        (default 20), COMPUTE (seconds per iteration, default 0.0005),
#        SYNC (how characterize starts its repetitions: window, its
#        default under SimGrid, or barrier), KEEP=1 keeps the work folder,
#        MPIEXEC, MPIFLAGS (native launcher and its flags; Open MPI gets
#        --oversubscribe)
set -eu
. "$(dirname "$0")/common.sh"
nps=${NPS:-4 8 16} sizes=${SIZES:-8 65536} iters=${ITERS:-20}
work=${COMPUTE:-0.0005} skews=${SKEWS:-0 1}
fns=${FNS:-allreduce bcast bcast0 reduce allgather alltoall barrier}
bench_smpi_setup smpi-coll
echo "# $iters iterations of one collective after $work s of computation (rank r: x (1 + skew r / (P - 1))); cluster of $max hosts (characterize/smpi/cluster.xml)"
bench_smpi_model latency,MPI_Send,MPI_Recv,MPI_Allreduce,MPI_Bcast,bcast_root,bcast_late,MPI_Reduce,reduce_late,MPI_Allgather,MPI_Alltoall,MPI_Barrier,MPI_Wtime

bench_smpi_build coll_loop
# the same model without the rows of a member's own part of a rooted call
# (the rule of models before them: every member pays the whole call)
awk '/^    (bcast_root|bcast_late|reduce_late) = \{/ { skip = 1 } !skip { print } skip && /^    \},/ { skip = 0 }' \
  "$w/model.lua" > "$w/whole.lua"
grep -Eq "^    (bcast_root|bcast_late|reduce_late) = " "$w/whole.lua" && { echo "smpi-coll: could not remove the rooted rows" >&2; exit 1; }

printf '%-9s %4s %4s %8s %13s %13s %9s %13s %9s\n' call np skew bytes "smpirun s" "revprof s" error "whole s" error
errs="$w/errors" whole="$w/errors-whole"
: > "$errs"
: > "$whole"
predict() { # model fn d skew np: the predicted time
  # shellcheck disable=SC2086
  (cd "$w" && REVPROF_MODEL="$w/$1" REVPROF_COMPUTE=annotate REVPROF_QUIET=1 \
     REVPROF_OUTPUT_DIR="$w/rp-$1-$2-$3-$4-$5" "$MPIEXEC" $flags -n "$5" "$w/coll_loop_rp" \
     "$2" "$3" "$iters" "$work" "$4" 2> "$w/rp.err" \
     | sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p')
}
for fn in $fns; do
  for d in $sizes; do
    [ "$fn" = barrier ] && [ "$d" != "$(echo "$sizes" | awk '{ print $1 }')" ] && continue
    for skew in $skews; do
      for np in $nps; do
        echo "$fn $d B, skew $skew, $np ranks ..." >&2
        ref=$(smpi "$np" "$w/coll_loop_smpi" "$fn" "$d" "$iters" "$work" "$skew" 2> "$w/smpi.err" \
              | sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p')
        [ -n "$ref" ] || { tail -n 5 "$w/smpi.err" >&2; echo "smpi-coll: smpirun $fn $np failed" >&2; exit 1; }
        pred=$(predict model.lua "$fn" "$d" "$skew" "$np")
        [ -n "$pred" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-coll: revprof $fn $np failed" >&2; exit 1; }
        old=$(predict whole.lua "$fn" "$d" "$skew" "$np")
        [ -n "$old" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-coll: revprof $fn $np (whole) failed" >&2; exit 1; }
        echo "$fn $np $skew $d $ref $pred $old" | awk -v out="$errs" -v out2="$whole" '{
          e = 100 * ($6 - $5) / $5; o = 100 * ($7 - $5) / $5
          printf "%-9s %4s %4s %8s %13.6e %13.6e %+8.1f%% %13.6e %+8.1f%%\n", $1, $2, $3, $4, $5, $6, e, $7, o
          print (e < 0 ? -e : e) >> out; print (o < 0 ? -o : o) >> out2 }'
      done
    done
  done
done
printf '# with the rooted rows: '
bench_error_summary "$errs" 15 | sed 's/^# //'
printf '# whole call for every member: '
bench_error_summary "$whole" 15 | sed 's/^# //'
