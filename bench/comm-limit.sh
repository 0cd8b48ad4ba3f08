#!/bin/sh
# How many communicators a program can keep at once, natively and under
# librevprof (preloaded, predict mode): bench/comm_limit.c duplicates
# MPI_COMM_WORLD until the MPI refuses or N are made. revprof gives every
# communicator a shadow of its own (its clock exchanges), which takes one
# of the MPI's context ids too. Then what a duplicate costs: R rounds of
# MPI_Comm_dup + MPI_Comm_free, host time per round (median of 5
# batches). Prints both counts, both times and their ratio; asserts
# nothing.
#
# usage: bench/comm-limit.sh [BUILD_DIR]      (default: build)
# env:   N (communicators to try, default 5000), R (rounds, default
#        2000), NP (ranks, default 2), MPIEXEC, MPIFLAGS, REVPROF_MODEL
#        (default: tests/mpi/rp_exact_model.lua)
set -eu
case ${1:-} in -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
. "$(dirname "$0")/common.sh"
bench_mpi_tools
exe=$build/bench/rp_bench_comm_limit
lib=$build/revprof/librevprof.so
bench_need_built comm-limit "$exe" "$lib"
out=$(mktemp -d "${TMPDIR:-/tmp}/rp-comm-XXXXXX")
trap 'rm -rf "$out"' EXIT
n=${N:-5000} r=${R:-2000} np=${NP:-2}
echo "# $(uname -n); MPI: $("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'open ?(mpi|rte)|version' | tr -s ' '); $np ranks"
# shellcheck disable=SC2086 # flags: several words
native=$("$MPIEXEC" $flags -n "$np" "$exe" "$n" "$r")
# shellcheck disable=SC2086
rp=$("$MPIEXEC" $flags -n "$np" env LD_PRELOAD="$lib" REVPROF_QUIET=1 \
  REVPROF_MODEL="${REVPROF_MODEL:-$here/tests/mpi/rp_exact_model.lua}" \
  REVPROF_OUTPUT_DIR="$out/revprof-out" "$exe" "$n" "$r")
field() { printf '%s\n' "$1" | sed -n "s/^$2: //p"; }
echo "communicators natively:       $(field "$native" communicators)"
echo "communicators under revprof:  $(field "$rp" communicators)"
tn=$(field "$native" dup+free | cut -d' ' -f1)
tr_=$(field "$rp" dup+free | cut -d' ' -f1)
echo "dup+free natively:            $tn us"
echo "dup+free under revprof:       $tr_ us ($(awk -v a="$tr_" -v b="$tn" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "?" }'))"
