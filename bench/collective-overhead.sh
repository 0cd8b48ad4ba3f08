#!/bin/sh
# librevprof's cost on collectives (and an 8-byte ping-pong for reference):
# each run alternates rounds between the native (PMPI_) and the wrapped
# (MPI_) entry points of the same program, best round of each; the script
# runs it RUNS times and prints the median of each column as one table.
# The rows "Bcast+32" and "Reduce+32" compare revprof's 8-byte call with the
# native call on 8 + 32 bytes: the floor of carrying the clocks in the call.
# The rows "Allgather+x" and "Alltoall+x" (64 KiB) compare it with the
# native call behind a 4-double MPI_Allreduce on a duplicate of the world:
# the floor of the general path, whose clocks go by a second collective.
# With SWEEP=1 both columns are native: rows "Bcast~N" and "Reduce~N" time
# the call on 8 bytes and on N (12 to 64), rows "Allgather/s" and
# "Alltoall/s" the 64 KiB call on plain bytes and on a struct datatype
# that carries 32 bytes of clocks beside each block, rows "Allreduce/u" and
# "Reduce/u" an 8-byte sum as a user function on a 48-byte element against
# MPI_SUM on 7 doubles (2 ranks: data, then a slot of clocks per rank).
# Prints figures; asserts nothing.
#
# usage: bench/collective-overhead.sh [BUILD_DIR]      (default: build)
# env:   MPIEXEC (default: the one the build found, else mpiexec),
#        MPIFLAGS (extra launcher flags), NP (ranks, default 2),
#        RUNS (default 3), ROUNDS (per run, default 30),
#        BUDGET (calls per round at 8 B, default 2000),
#        REVPROF_MODEL (default: tests/mpi/rp_exact_model.lua), SWEEP=1
set -eu
. "$(dirname "$0")/common.sh"
exe=$build/revprof/rp_bench_coll
bench_need_built collective-overhead "$exe"
export REVPROF_MODEL=${REVPROF_MODEL:-$here/tests/mpi/rp_exact_model.lua}
out=$(mktemp -d "${TMPDIR:-/tmp}/rp-coll-XXXXXX")
trap 'rm -rf "$out"' EXIT
export REVPROF_OUTPUT_DIR=$out/revprof-out
runs=${RUNS:-3}
echo "# $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); launcher $MPIEXEC"
echo "# MPI: $("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'open ?(mpi|rte)|version' | tr -s ' ')"
i=1
while [ "$i" -le "$runs" ]; do
  echo "run $i of $runs ..." >&2
  # shellcheck disable=SC2086
  "$MPIEXEC" ${MPIFLAGS:-} -n "${NP:-2}" "$exe" "${ROUNDS:-30}" "${BUDGET:-2000}" ${SWEEP:+sweep} \
    2> "$out/err.$i" > "$out/run.$i" || { cat "$out/err.$i" >&2; exit 1; }
  i=$((i + 1))
done
head -n 1 "$out/run.1"
echo "# median of $runs runs"
# rows: call bytes native revprof ratio; the median of each number column
cat "$out"/run.* | awk '!/^#/ && $1 != "call" { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    nat[k] = nat[k] " " $3; rp[k] = rp[k] " " $4; ra[k] = ra[k] " " $5 }
  function median(s,   a, m, i, j, t) {
    m = split(s, a, " ")
    for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
  END { printf "%-10s %8s %12s %12s %8s\n", "call", "bytes", "native us", "revprof us", "ratio"
    for (i = 1; i <= n; i++) { k = order[i]; split(k, kk, " ")
      printf "%-10s %8s %12.3f %12.3f %8.2f\n", kk[1], kk[2], median(nat[k]), median(rp[k]), median(ra[k]) } }'
