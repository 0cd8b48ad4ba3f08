#!/bin/sh
# librevprof's cost on a ping-pong: one-way latency natively and through
# revprof, measured side by side in one run (rounds alternate between the
# PMPI and the MPI entry points of the same program), and the piggyback
# candidates the mechanism was chosen from. Prints tables; asserts nothing.
#
# usage: bench/pingpong-overhead.sh [BUILD_DIR]      (default: build)
# env:   MPIEXEC (default: the one the build found, else mpiexec),
#        MPIFLAGS (extra launcher flags), ROUNDS (default 300),
#        BUDGET (ping-pongs per round at 8 B, default 2000: short rounds, so
#        that some fall between other processes' time slices),
#        REVPROF_MODEL (default: tests/mpi/rp_exact_model.lua),
#        HEADERS (header sizes of the candidates, in doubles, default "5",
#        revprof's; e.g. "5 2 1": one candidates table per size, one after
#        the other, to see what the header's bytes weigh)
set -eu
. "$(dirname "$0")/common.sh"
overhead=$build/revprof/rp_bench_overhead
candidates=$build/revprof/rp_bench_piggyback
bench_need_built pingpong-overhead "$overhead" "$candidates"
export REVPROF_MODEL=${REVPROF_MODEL:-$here/tests/mpi/rp_exact_model.lua}
export REVPROF_OUTPUT_DIR=${REVPROF_OUTPUT_DIR:-$(mktemp -d)}
rounds=${ROUNDS:-300}
echo "# $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); launcher $MPIEXEC"
echo "# MPI: $("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'open ?(mpi|rte)|version' | tr -s ' ')"
echo
echo "## librevprof against native, same program, alternating rounds"
# shellcheck disable=SC2086
"$MPIEXEC" ${MPIFLAGS:-} -n 2 "$overhead" "$rounds" "${BUDGET:-2000}" 2>/dev/null
echo
for h in ${HEADERS:-5}; do
  echo "## piggyback candidates (plain MPI, no revprof), a header of $h doubles"
  # shellcheck disable=SC2086
  "$MPIEXEC" ${MPIFLAGS:-} -n 2 "$candidates" 2000 $((rounds > 40 ? 40 : rounds)) "$h"
done
