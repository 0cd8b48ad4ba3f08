#!/bin/sh
# librevprof's point-to-point rules against this machine (issue 14's target:
# within 10 % of the native time): runs the cases of bench/smpi/halo_p2p.c
# (see bench/smpi-p2p.sh) natively, RUNS times, and under librevprof
# (LD_PRELOAD, the same binary), RUNS times, alternating, and prints per
# case the native median, the predicted median (MPI_Wtime around the loop:
# simulated under revprof; both per iteration) and the error (predicted /
# native - 1), then the median and largest |error|, over all cases and over
# the halo and stencil cases alone (those the target names). At 2 ranks
# every halo message goes to the other rank (K of them each way) and the
# stencil's grid is 2 x 1 (up and down the other rank, left and right
# itself).
# The computation is real, so that the prediction is compared with what
# runs: the program is built without the tools' annotations, the stencil's
# COMPUTE is a busy loop, and revprof measures it (REVPROF_COMPUTE=measure;
# filling and checking the halos count too, as they cost natively). The halo
# and train cases compute nothing else: they test the communication rules
# alone; the stencil, computation and communication together. From 64 KiB on
# a comment line after each case gives the real time rank 0 spent writing
# its send buffer in an iteration, natively and under revprof (medians):
# librevprof sends large messages as a struct of its clocks and the data,
# which the MPI copies on the sender's side, while Open MPI reads a native
# contiguous one straight from the sender's buffer (single copy), so that
# writing it again costs less under revprof than natively, and measured
# computation is short by the difference. Other jobs on the machine inflate
# the native times (the stencil's busy loops most: a rank that loses its
# core holds up the other): run it on a quiet machine. Before the timed
# iterations each run makes WARM untimed ones (default 20): Open MPI's
# shared-memory transport sends the first 16 messages to a peer by a slower
# path, then gives the pair a fast box (btl_vader_fbox_threshold); on this
# VM that costs a 2-rank halo about 0.2-0.3 ms once, within its first 10
# iterations, which a model of the steady state does not describe. WARM=1
# measures it (the smpi-p2p.sh cases make 1). About 5 minutes on the 2-core
# VM with the defaults. Asserts nothing.
#
# usage: bench/p2p-native.sh [BUILD_DIR]        (default: build)
# env:   NP (ranks, default 2), CASES (default "halo train stencil"), KS
#        (halo messages each way, default "2 4 6 8"), NS (train messages,
#        default "8 32"), SIZES (bytes, default "8 1024 65536 1048576"),
#        ITERS (default 1000), MIN_RUN (seconds, default 0.05: a case
#        whose native run of ITERS iterations is shorter runs more
#        iterations, enough for MIN_RUN, measured by one native run first;
#        0 keeps ITERS), WARM (untimed iterations first, default
#        20), COMPUTE (stencil busy loop, seconds per
#        iteration, default 0.0005), RUNS (default 5), MODEL (a model
#        file to predict from; default: this machine, characterized as
#        CHARACTERIZE says), CHARACTERIZE (each, the default without MODEL:
#        this machine is characterized (revprof-characterize on NP ranks,
#        the functions bench/smpi-p2p.sh times and gap_all, for
#        REVPROF_CONTENTION=world; sizes 0:1M; a few seconds) right before
#        each case's runs, as a VM whose speed drifts within minutes needs
#        (a characterization that saw the drift says so); 1: once, first;
#        0, the default with MODEL: no characterization, and without MODEL
#        the shipped models/machines/debian12-2core-openmpi.lua, whose
#        2026-11-22 rows no longer describe this VM), KEEP=1
#        keeps the work folder, MPIEXEC,
#        MPIFLAGS (launcher and its flags; Open MPI gets --oversubscribe),
#        WITHOUT (model rows, comma-separated, e.g. "post": each repetition
#        also runs under the same model without them, printed as a second
#        row per case, named CASE-no-ROWS, with its own summary: what the
#        rows bring, measured side by side), ALSO (environment
#        assignments, space-separated, e.g. "REVPROF_CONTENTION=world": each
#        repetition also runs with them, printed as a second row per case,
#        CASE-also, with its own summary; with WITHOUT, the second run
#        uses both)
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
np=${NP:-2} cases=${CASES:-halo train stencil} ks=${KS:-2 4 6 8}
ns=${NS:-8 32} sizes=${SIZES:-8 1024 65536 1048576} iters=${ITERS:-1000}
warm=${WARM:-20} min_run=${MIN_RUN:-0.05}
work=${COMPUTE:-0.0005} runs=${RUNS:-5}
model=${MODEL:-$here/models/machines/debian12-2core-openmpi.lua}
if [ -n "${MODEL:-}" ]; then characterize_mode=${CHARACTERIZE:-0}; else characterize_mode=${CHARACTERIZE:-each}; fi
char=$build/characterize/revprof-characterize
lib=$build/revprof/librevprof.so
bench_need_built p2p-native "$char" "$lib"
bench_mpi_tools

case $min_run in
  '' | *[!0-9.]* | *.*.* | .)
    echo "p2p-native: MIN_RUN=$min_run: expected seconds, a number (0 keeps ITERS)" >&2; exit 2 ;;
esac
case $characterize_mode in
  0 | 1 | each) ;;
  *) echo "p2p-native: CHARACTERIZE=$characterize_mode: expected 0, 1 or each" >&2; exit 2 ;;
esac
w=$(mktemp -d "${TMPDIR:-/tmp}/rp-p2p-native-XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "# work folder $w (kept)"; else trap 'rm -rf "$w"' EXIT; fi

echo "# $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $("$MPIEXEC" --version 2>&1 | head -n 1)"
characterize() { # folder: this machine's model in folder/model.lua
  # shellcheck disable=SC2086
  "$MPIEXEC" $flags -n "$np" "$char" --sizes "0:1M" --no-datasheet -q \
    --functions latency,MPI_Send,MPI_Recv,MPI_Isend,MPI_Irecv,MPI_Wait,gap,gap_all,post,MPI_Sendrecv,MPI_Barrier,MPI_Allreduce,MPI_Wtime \
    -o "$1" > "$1.log" 2>&1 || { tail -n 20 "$1.log" >&2; exit 1; }
  grep -q '^drift:' "$1/run.txt" && echo "# $(grep '^reference:' "$1/run.txt") (the machine drifted while characterized)"
  return 0
}
if [ "$characterize_mode" = 1 ]; then
  echo "characterizing this machine on $np ranks ..." >&2
  characterize "$w/char"
  model=$w/char/model.lua
  echo "# model: this machine, characterized now on $np ranks (sizes 0:1M)"
elif [ "$characterize_mode" = each ]; then
  characterize "$w/char"
  model=$w/char/model.lua
  echo "# model: this machine, characterized again on $np ranks (sizes 0:1M) right before each case's runs"
else
  echo "# model: $model"
fi
[ -f "$model" ] || { echo "p2p-native: model $model not found" >&2; exit 1; }
for row in MPI_Wait gap; do
  grep -q "^ *$row = {" "$model" || echo "# (the model has no $row row)"
done
without() { # $model less the rows $WITHOUT, in $w/without.lua
  awk -v rows="$WITHOUT" 'BEGIN { n = split(rows, r, ","); for (i = 1; i <= n; i++) drop["    " r[i] " = {"] = 1 }
    skip && /^    },/ { skip = 0; next } skip { next }
    { for (k in drop) if (index($0, k) == 1) skip = 1 } !skip { print }' "$model" > "$w/without.lua"
  cmp -s "$model" "$w/without.lua" && { echo "p2p-native: the model has none of the rows $WITHOUT" >&2; exit 2; }
  return 0
}
if [ -n "${WITHOUT:-}" ]; then
  without
  echo "# and, side by side, the same model without the rows $WITHOUT (cases named CASE-no-...)"
fi
[ -n "${ALSO:-}" ] && echo "# and, side by side, the same runs with $ALSO (cases named CASE-also)"
model2=$model
[ -n "${WITHOUT:-}" ] && model2=$w/without.lua
second=0
[ -n "${WITHOUT:-}${ALSO:-}" ] && second=1
name2=also
[ -n "${WITHOUT:-}" ] && name2=no-$(echo "$WITHOUT" | tr , -)
[ -n "${WITHOUT:-}" ] && [ -n "${ALSO:-}" ] && name2=$name2-also
echo "# $iters iterations per run (more where a native run of them is shorter than $min_run s) after $warm untimed, median of $runs runs; times per iteration; stencil $work s of busy loop per iteration; REVPROF_COMPUTE=measure"

"$mpicc" -O2 "$here/bench/smpi/halo_p2p.c" -o "$w/p2p" || exit 1

fill() { sed -n 's/^halo_p2p fill: \([^ ]*\) s$/\1/p' | per_it; }
per_it() { awk -v n="$niters" '{ printf "%.9e\n", $1 / n }'; }
# Iterations for case $1 $2 $3: $iters, or more when a native run of them
# is shorter than $min_run seconds (this VM's scheduler and drift move a
# run of a few milliseconds by 30 %).
iterations() {
  # shellcheck disable=SC2086
  t=$("$MPIEXEC" $flags -n "$np" "$w/p2p" "$1" "$3" "$iters" "$2" "$work" "$warm" 2> "$w/nat.err" | p2p_timed)
  [ -n "$t" ] || { tail -n 5 "$w/nat.err" >&2; echo "p2p-native: native $1 $2 $3 failed" >&2; exit 1; }
  awk -v t="$t" -v n="$iters" -v m="$min_run" 'BEGIN { k = t > 0 && t < m ? int(n * m / t + 1) : n; print k }'
}
run() { # case k d: one table row, its |error| appended to $w/errors
  c=$1 k=$2 d=$3
  echo "$c at $np ranks, k $k, $d B ..." >&2
  : > "$w/nat"; : > "$w/rp"; : > "$w/rp2"; : > "$w/natfill"; : > "$w/rpfill"
  if [ "$characterize_mode" = each ] && [ -n "${ran:-}" ]; then
    rm -rf "$w/char" # (the first case runs under the model made above)
    characterize "$w/char"
    [ -z "${WITHOUT:-}" ] || without
  fi
  ran=1
  niters=$iters
  if awk -v m="$min_run" 'BEGIN { exit !(m > 0) }'; then
    niters=$(iterations "$c" "$k" "$d") || exit 1
  fi
  r=0
  while [ "$r" -lt "$runs" ]; do
    # shellcheck disable=SC2086
    "$MPIEXEC" $flags -n "$np" "$w/p2p" "$c" "$d" "$niters" "$k" "$work" "$warm" 2> "$w/nat.err" > "$w/out"
    p2p_timed < "$w/out" | per_it >> "$w/nat"
    fill < "$w/out" >> "$w/natfill"
    # shellcheck disable=SC2086
    "$MPIEXEC" $flags -n "$np" env LD_PRELOAD="$lib" REVPROF_MODEL="$model" \
      REVPROF_COMPUTE=measure REVPROF_QUIET=1 REVPROF_OUTPUT_DIR="$w/rp-out" \
      "$w/p2p" "$c" "$d" "$niters" "$k" "$work" "$warm" 2> "$w/rp.err" > "$w/out"
    p2p_timed < "$w/out" | per_it >> "$w/rp"
    fill < "$w/out" >> "$w/rpfill"
    if [ "$second" = 1 ]; then
      # shellcheck disable=SC2086
      "$MPIEXEC" $flags -n "$np" env LD_PRELOAD="$lib" REVPROF_MODEL="$model2" \
        ${ALSO:-} REVPROF_COMPUTE=measure REVPROF_QUIET=1 REVPROF_OUTPUT_DIR="$w/rp-out" \
        "$w/p2p" "$c" "$d" "$niters" "$k" "$work" "$warm" 2> "$w/rp.err" | p2p_timed | per_it >> "$w/rp2"
    fi
    r=$((r + 1))
  done
  nat=$(median < "$w/nat") pred=$(median < "$w/rp")
  [ -n "$nat" ] || { tail -n 5 "$w/nat.err" >&2; echo "p2p-native: native $c $k $d failed" >&2; exit 1; }
  [ -n "$pred" ] || { tail -n 5 "$w/rp.err" >&2; echo "p2p-native: revprof $c $k $d failed" >&2; exit 1; }
  echo "$c $np $k $d $nat $pred" | bench_error_row "$w/errors"
  # the cases the issue's target names (the trains are the rules' own)
  case $c in halo | stencil) tail -n 1 "$w/errors" >> "$w/errors-target" ;; esac
  if [ "$second" = 1 ]; then
    pred2=$(median < "$w/rp2")
    [ -n "$pred2" ] || { tail -n 5 "$w/rp.err" >&2; echo "p2p-native: revprof's second run ($name2) failed" >&2; exit 1; }
    echo "$c-$name2 $np $k $d $nat $pred2" | bench_error_row "$w/errors2"
  fi
  [ "$niters" = "$iters" ] || echo "#   $niters iterations a run"
  sort -g "$w/nat" | awk 'NR == 1 { lo = $1 } { hi = $1 } END {
    if (lo > 0 && hi > 1.1 * lo) printf "#   native runs from %.3e to %.3e s: more than 10 %% apart\n", lo, hi }'
  if [ "$d" -ge 65536 ]; then
    echo "#   rank 0 writing its send buffer, real time per iteration: native $(median < "$w/natfill") s, under revprof $(median < "$w/rpfill") s"
  fi
}

: > "$w/errors"; : > "$w/errors2"; : > "$w/errors-target"
printf '%-8s %4s %3s %8s %13s %13s %10s\n' case np k bytes "native s" "revprof s" error
for c in $cases; do
  list=$(p2p_counts "$c" "$ks" "$ns") \
    || { echo "p2p-native: unknown case $c (halo, train, stencil)" >&2; exit 2; }
  for k in $list; do
    for d in $sizes; do run "$c" "$k" "$d"; done
  done
done
bench_error_summary "$w/errors" 10
if [ -s "$w/errors-target" ]; then
  printf 'the target (halo and stencil within 10 %% of native): '
  bench_error_summary "$w/errors-target" 10 | sed 's/^# //'
fi
if [ "$second" = 1 ]; then
  printf '%s: ' "$name2"
  bench_error_summary "$w/errors2" 10
fi
