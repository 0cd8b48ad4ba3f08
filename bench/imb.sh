#!/bin/sh
# The Intel MPI Benchmarks (IMB-MPI1) predicted by librevprof: IMB times
# each MPI function over message sizes with MPI_Wtime, which revprof's
# predict mode answers from its simulated clock, so the same program prints
# its table natively and as predicted from a machine model. This script
# builds IMB-MPI1 from a copy of its source folder (fetched beforehand:
# github.com/intel/mpi-benchmarks; never by this script, and never into the
# repository), runs IMB natively and under predict mode RUNS times each,
# alternating, each pair right after characterizing this machine (unless
# MODEL is given: this VM's speed changed by 2x within an hour), and
# prints per benchmark and size the native median, the predicted median and
# the error (predicted / native - 1), then a summary per benchmark and over
# every row. Rows whose native time is below 0.1 us (IMB's zero-byte
# collectives, which call nothing) are left out. Prints figures; asserts
# nothing. About 1 minute at 2 ranks on the 2-core VM.
#
# usage: bench/imb.sh BUILD_DIR IMB_DIR
# env:   NP (ranks, default 2), RUNS (default 3), MSGLOG (IMB's -msglog,
#        default 0:16), BENCHMARKS (IMB's names, space-separated; default
#        PingPong Sendrecv Exchange Allreduce Reduce Reduce_scatter
#        Allgather Allgatherv Gather Gatherv Scatter Scatterv Alltoall
#        Alltoallv Bcast Barrier), SHOW (sizes printed per benchmark,
#        default "1 8 1024 8192 65536"; "all" prints every row), MODEL
#        (default: characterize this machine on NP ranks, sizes up to
#        2^max of MSGLOG, no datasheet, a few seconds, before each run),
#        KEEP=1 keeps the work folder,
#        MPIEXEC, MPIFLAGS (launcher and its flags; Open MPI gets
#        --oversubscribe)
set -eu
[ $# -eq 2 ] || { echo "usage: bench/imb.sh BUILD_DIR IMB_DIR (see the header)" >&2; exit 2; }
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
imb=$2
if [ ! -f "$imb/src_cpp/Makefile" ] || [ ! -d "$imb/src_c" ]; then
  echo "imb: $imb is not the mpi-benchmarks source folder (no src_cpp/Makefile, src_c/)" >&2
  exit 2
fi
tool=$build/tools/revprof
bench_need_built imb "$tool"
bench_mpi_tools
np=${NP:-2} runs=${RUNS:-3} msglog=${MSGLOG:-0:16}
benchmarks=${BENCHMARKS:-PingPong Sendrecv Exchange Allreduce Reduce Reduce_scatter Allgather Allgatherv Gather Gatherv Scatter Scatterv Alltoall Alltoallv Bcast Barrier}
show=${SHOW:-1 8 1024 8192 65536}

w=$(mktemp -d "${TMPDIR:-/tmp}/rp-imb-XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "# work folder $w (kept)"; else trap 'rm -rf "$w"' EXIT; fi

# IMB builds in its tree: a copy, whose Makefile loses -Werror (Open MPI's
# C++ bindings do not compile under it; IMB needs none of them) and -O0
mkdir -p "$w/imb"
cp -R "$imb/src_c" "$imb/src_cpp" "$w/imb/"
sed -i -e 's/ -Werror//g' -e 's/-O0/-O2/g' "$w/imb/src_cpp/Makefile"
mpicxx=$(echo "$mpicc" | sed 's/mpicc/mpicxx/')
echo "building IMB-MPI1 ($mpicc, $mpicxx) ..." >&2
make -C "$w/imb/src_cpp" -f Makefile TARGET=MPI1 CC="$mpicc" CXX="$mpicxx" \
  CPPFLAGS="-DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX" > "$w/build.log" 2>&1 ||
  { tail -n 20 "$w/build.log" >&2; echo "imb: build failed (log above)" >&2; exit 1; }
exe=$w/imb/src_cpp/IMB-MPI1

echo "# $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $("$MPIEXEC" --version 2>&1 | head -n 1)"
max=$((1 << ${msglog#*:}))
if [ -n "${MODEL:-}" ]; then
  [ -f "$MODEL" ] || { echo "imb: model $MODEL not found" >&2; exit 1; }
  echo "# model: $MODEL"
else
  echo "# model: this machine, characterized on $np ranks (sizes 0:$max) right before each native run"
fi

# shellcheck disable=SC2086
set -- -msglog "$msglog" -npmin "$np" $benchmarks
i=1
while [ "$i" -le "$runs" ]; do
  echo "run $i of $runs ..." >&2
  model=${MODEL:-$w/char.$i/model.lua}
  if [ -z "${MODEL:-}" ]; then # seconds here; the VM's speed drifts over minutes
    "$tool" characterize -n "$np" --sizes "0:$max" --no-datasheet \
      -o "$w/char.$i" > "$w/char.$i.log" 2>&1 || { tail -n 20 "$w/char.$i.log" >&2; exit 1; }
  fi
  # shellcheck disable=SC2086
  "$MPIEXEC" $flags -n "$np" "$exe" "$@" > "$w/native.$i" 2> "$w/native.$i.err" ||
    { cat "$w/native.$i.err" >&2; exit 1; }
  REVPROF_MODE=predict "$tool" run -n "$np" --model "$model" -o "$w/out.$i" -- \
    "$exe" "$@" > "$w/predict.$i" 2> "$w/predict.$i.err" ||
    { tail -n 20 "$w/predict.$i.err" >&2; exit 1; }
  i=$((i + 1))
done
echo "# IMB-MPI1 $*; $np ranks; median of $runs runs each, alternating"
echo "# flags of the first prediction: $(sed -n 's/^flags: *//p' "$w/out.1/report.txt" | head -n 1)"

# rows "kind run benchmark bytes microseconds": t[usec] (PingPong,
# PingPing), t_avg (the others), Barrier's at 0 bytes; the report revprof
# prints after IMB's table is not read (IMB's last line comes first)
for f in "$w"/native.[0-9]* "$w"/predict.[0-9]*; do
  case $f in *.err) continue ;; esac
  k=${f##*/}
  awk -v k="${k%.*}" -v r="${k#*.}" '
    /entering MPI_Finalize/ { exit }
    /^# Benchmarking / { b = $3; next }
    b != "" && /^[ \t]+[0-9]/ {
      if (b == "Barrier") print k, r, b, 0, (NF >= 4 ? $4 : $2)
      else if (b == "PingPong" || b == "PingPing") print k, r, b, $1, $3
      else print k, r, b, $1, (NF >= 5 ? $5 : $3)
    }' "$f"
done > "$w/rows"

: > "$w/errs"
awk -v show=" $show " -v errs="$w/errs" '
  function median(s,   a, m, i, j, t) {
    m = split(s, a, " ")
    for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
  function fabs(x) { return x < 0 ? -x : x }
  { key = $3 " " $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    v[$1, key] = v[$1, key] " " $5 }
  END {
    printf "%-15s %8s %12s %12s %8s\n", "benchmark", "bytes", "native us", "predicted us", "error"
    for (i = 1; i <= n; i++) {
      key = order[i]; split(key, kb, " ")
      if (v["native", key] == "" || v["predict", key] == "") continue
      nat = median(v["native", key]); pre = median(v["predict", key])
      if (nat < 0.1) continue
      e = pre / nat - 1; print 100 * fabs(e) > errs
      per[kb[1]] = per[kb[1]] " " fabs(e); if (!(kb[1] in bseen)) { bseen[kb[1]] = 1; border[++nb] = kb[1] }
      if (show == " all " || index(show, " " kb[2] " ") || kb[1] == "Barrier")
        printf "%-15s %8d %12.3f %12.3f %+7.1f%%\n", kb[1], kb[2], nat, pre, 100 * e
    }
    printf "\nper benchmark: median |error| over its sizes\n"
    for (i = 1; i <= nb; i++) printf "  %-15s %6.1f %%\n", border[i], 100 * median(per[border[i]])
  }' "$w/rows"
echo "all rows:"
bench_error_summary "$w/errs" 10
bench_error_summary "$w/errs" 25
