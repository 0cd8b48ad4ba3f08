#!/bin/sh
# librevprof's point-to-point rules against SimGrid, on messages that
# overlap (issue 14): characterizes a simulated cluster with
# revprof-characterize-smpi, fits its model, then runs the cases of
# bench/smpi/halo_p2p.c under smpirun on that cluster (the truth) and
# natively under librevprof predicting them from the model, at each rank
# count. Cases: "halo", K Irecv + K Isend of D bytes to ring neighbours at
# distances +-1, +-2, ... and one MPI_Waitall; "halowait", the same halo
# completed by one MPI_Wait per request (as HPCCG and LULESH do); "train",
# rank 0 sends N messages of D bytes to rank 1, which pre-posted their
# receives; "incast", every other rank sends N messages of D bytes to rank
# 0, which completes them one MPI_Wait each; "stencil",
# a 2-D grid's 4-neighbour halo of D bytes after COMPUTE seconds of
# computation, then an 8-byte MPI_Allreduce; "ssend" (not in the default
# CASES), rank 0 MPI_Ssends N messages of D bytes to rank 1, then
# computes N x COMPUTE seconds, while rank 1 computes COMPUTE seconds
# before each receive (the rendezvous rule); "send" (not in the default
# CASES either), the same with MPI_Send, which waits from the model's
# eager limit on (SimGrid's 64 KiB). The computation is declared
# (smpi_execute_flops on the 1 Gflop/s simulated hosts / REVPROF_COMPUTE=
# annotate with revprof_compute_seconds), so both see the same. Prints one
# table (error = revprof / smpirun - 1) and the median and largest |error|.
# A halo with K >= P would repeat neighbours: it is skipped, and listed.
# Under SimGrid every repetition of a point is the same, so characterize's
# --quick preset measures the medians the default preset does (it adds
# fewer midpoint sizes); the model's MPI_Wait and gap rows are fitted for
# the overlap rules. About 3 min on the 2-core VM with the defaults; the
# figures do not depend on the machine's load (both tools' clocks are
# simulated and the computation is declared). Asserts nothing.
#
# usage: bench/smpi-p2p.sh [BUILD_DIR]        (default: build)
# env:   NPS (rank counts, default "4 8 16"), CASES (default "halo
#        halowait train incast stencil"), KS (halo neighbours, default
#        "2 4 6 8"), NS (train, incast, ssend and send messages, default
#        "8 32"),
#        SIZES (bytes, default "8 1024 65536 1048576"), ITERS (default
#        20), COMPUTE (stencil seconds per iteration, default 0.001),
#        REPEATS=1 also runs the halos with K >= P (neighbours repeat),
#        BB_BW (the cluster's backbone, default 10Gbps; e.g. 100Gbps
#        shows what its contention costs at 16 ranks), KEEP=1 keeps the
#        work folder,
#        MPIEXEC, MPIFLAGS (native launcher and its flags; Open MPI gets
#        --oversubscribe)
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
nps=${NPS:-4 8 16} cases=${CASES:-halo halowait train incast stencil} ks=${KS:-2 4 6 8}
ns=${NS:-8 32} sizes=${SIZES:-8 1024 65536 1048576} iters=${ITERS:-20}
work=${COMPUTE:-0.001} repeats=${REPEATS:-0}
bench_smpi_setup smpi-p2p
echo "# $iters iterations per run; stencil $work s of computation per iteration; cluster of $max hosts (characterize/smpi/cluster.xml, backbone ${BB_BW:-10Gbps})"
bench_smpi_model latency,MPI_Send,MPI_Recv,MPI_Isend,MPI_Irecv,MPI_Wait,gap,gap_all,post,MPI_Sendrecv,MPI_Barrier,MPI_Allreduce,MPI_Wtime

bench_smpi_build halo_p2p

run() { # case np k d: one table row, its |error| appended to $w/errors
  c=$1 np=$2 k=$3 d=$4
  echo "$c at $np ranks, k $k, $d B ..." >&2
  ref=$(smpi "$np" "$w/halo_p2p_smpi" "$c" "$d" "$iters" "$k" "$work" 2> "$w/smpi.err" | p2p_timed)
  [ -n "$ref" ] || { tail -n 5 "$w/smpi.err" >&2; echo "smpi-p2p: smpirun $c $np $k $d failed" >&2; exit 1; }
  # shellcheck disable=SC2086
  pred=$(cd "$w" && REVPROF_MODEL="$w/model.lua" REVPROF_COMPUTE=annotate REVPROF_QUIET=1 \
         REVPROF_OUTPUT_DIR="$w/rp-$c-$np-$k-$d" "$MPIEXEC" $flags -n "$np" "$w/halo_p2p_rp" \
         "$c" "$d" "$iters" "$k" "$work" 2> "$w/rp.err" | p2p_timed)
  [ -n "$pred" ] || { tail -n 5 "$w/rp.err" >&2; echo "smpi-p2p: revprof $c $np $k $d failed" >&2; exit 1; }
  echo "$c $np $k $d $ref $pred" | bench_error_row "$w/errors"
}

: > "$w/errors"
skipped=
printf '%-8s %4s %3s %8s %13s %13s %10s\n' case np k bytes "smpirun s" "revprof s" error
for c in $cases; do
  for np in $nps; do
    list=$(p2p_counts "$c" "$ks" "$ns") \
      || { echo "smpi-p2p: unknown case $c (halo, halowait, train, incast, stencil, ssend, send)" >&2; exit 2; }
    for k in $list; do
      if { [ "$c" = halo ] || [ "$c" = halowait ]; } && [ "$k" -ge "$np" ] && [ "$repeats" != 1 ]; then
        skipped="$skipped $c:k$k/np$np"
        continue
      fi
      for d in $sizes; do run "$c" "$np" "$k" "$d"; done
    done
  done
done
bench_error_summary "$w/errors"
[ -z "$skipped" ] || echo "# halos skipped (k >= np: neighbours would repeat; REPEATS=1 runs them):$skipped"
