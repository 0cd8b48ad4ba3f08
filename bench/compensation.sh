#!/bin/sh
# Compensate mode on the master/worker Monte-Carlo pi of seed 000 §5
# (examples/mcpi.c): the program's time uninstrumented, then instrumented
# (fine-grained regions) with no, local and parallel compensation, for the
# master and the workers, as in the paper's Table 1. Each figure is the
# median over RUNS runs of that run's figure (for workers: the least over
# the workers, as the paper's minimum); the median, not the minimum over
# runs, since the compensated figures are estimates whose noise the minimum
# would select. Prints a table, then what one "point" region costs the
# worker: (its instrumented, uncompensated time - its native time) over
# its points (medians of the runs). Then a second table: bench/
# comp_imbalance.c, where rank 0 alone runs tiny regions between
# allreduces, its loop's time natively, instrumented, and parallel-
# compensated with each rule of docs/revprof.md ("Parallel compensation"):
# the messages' send times (one node, the default) and seed 000's rule
# alone (REVPROF_TEST_NODES=many), the loop's time being the latest rank's
# (medians of the runs). Asserts nothing.
#
# usage: bench/compensation.sh [BUILD_DIR]          (default: build)
# env:   NP (ranks, default 2: one master, one worker per core),
#        RUNS (default 5), MCPI_ARGS (mcpi's --chunks, --chunk, --work;
#        default: its own), MPIEXEC, MPIFLAGS, REVPROF_MODEL / REVPROF_OVERHEAD
#        (default: calibrate at MPI_Init), IMB_ARGS (comp_imbalance's
#        --iters, --work, --regions; default --iters 1000)
set -eu
. "$(dirname "$0")/common.sh"
plain=$build/examples/mcpi
inst=$build/examples/mcpi_rp
imb=$build/bench/rp_bench_comp_imbalance
bench_need_built compensation "$plain" "$inst" "$imb" "${imb}_native"
NP=${NP:-2}
RUNS=${RUNS:-5}
MCPI_ARGS=${MCPI_ARGS:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# awk helpers of both tables: the values of key k (n[k] of them, in
# val[k, 1..n[k]]), their median; a relative error against ref
awk_lib='
  function med(k,    i, j, t, m) {
    m = n[k]
    for (i = 2; i <= m; i++)
      for (j = i; j > 1 && val[k, j - 1] > val[k, j]; j--) {
        t = val[k, j]; val[k, j] = val[k, j - 1]; val[k, j - 1] = t }
    return m % 2 ? val[k, (m + 1) / 2] : 0.5 * (val[k, m / 2] + val[k, m / 2 + 1])
  }
  function err(v, ref) { return sprintf("%+.1f%%", 100 * (v - ref) / ref) }'

i=0
while [ $i -lt "$RUNS" ]; do
  # shellcheck disable=SC2086
  REVPROF_MODE=off $MPIEXEC ${MPIFLAGS:-} -n "$NP" "$plain" $MCPI_ARGS \
    >>"$tmp/plain.txt"
  echo "-- end of run" >>"$tmp/plain.txt"
  # shellcheck disable=SC2086
  REVPROF_MODE=compensate REVPROF_OUTPUT_DIR="$tmp/out" \
    $MPIEXEC ${MPIFLAGS:-} -n "$NP" "$inst" $MCPI_ARGS >/dev/null 2>&1
  sed -n 's/^\([0-9]*\),(program),1,\([^,]*\),[^,]*,\([^,]*\),[^,]*,\([^,]*\),.*/\1 \2 \3 \4/p' \
    "$tmp/out/compensate.csv" >>"$tmp/comp.txt"
  # the points of the worker whose row comes first (rank 1)
  awk -F, '$1 == 1 && $2 == "point" { print $3 }' "$tmp/out/compensate.csv" >>"$tmp/points.txt"
  i=$((i + 1))
done

awk -v np="$NP" -v runs="$RUNS" "$awk_lib"'
  function mn(a, b) { return a == "" || b < a ? b : a }
  function add(k, v) { n[k]++; val[k, n[k]] = v }
  # the plain file holds RUNS blocks ending "-- end of run", the comp file
  # RUNS blocks of NP rows starting with rank 0
  FILENAME ~ /plain/ && $2 == "time" && $3 == "worker" { pw = mn(pw, $5) }
  FILENAME ~ /plain/ && $2 == "time" && $3 == "master" { pm = $4 }
  FILENAME ~ /plain/ && $1 == "--" { add("pm", pm); add("pw", pw); pm = pw = "" }
  FILENAME ~ /comp/ && $1 == 0 { if (nw != "") { add("nw", nw); add("lw", lw); add("qw", qw) }
                                 nw = lw = qw = ""; add("nm", $2); add("lm", $3); add("qm", $4) }
  FILENAME ~ /comp/ && $1 != 0 { nw = mn(nw, $2); lw = mn(lw, $3); qw = mn(qw, $4) }
  FILENAME ~ /points/ { add("pt", $1) }
  END {
    add("nw", nw); add("lw", lw); add("qw", qw)
    pm = med("pm"); pw = med("pw")
    printf "mcpi, %d ranks (1 master, %d workers), median of %d runs, seconds\n\n", np, np - 1, runs
    printf "%-7s %18s %17s %17s %17s\n", "task", "no instrumentation", "no compensation", "local comp.", "parallel comp."
    printf "%-7s %18.4f %10.4f %6s %10.4f %6s %10.4f %6s\n", "master", pm, med("nm"), err(med("nm"), pm), med("lm"), err(med("lm"), pm), med("qm"), err(med("qm"), pm)
    printf "%-7s %18.4f %10.4f %6s %10.4f %6s %10.4f %6s\n", "worker", pw, med("nw"), err(med("nw"), pw), med("lw"), err(med("lw"), pw), med("qw"), err(med("qw"), pw)
    if (med("pt") > 0)
      printf "\ninstrumentation per point region (worker, uncompensated - native, over %d points): %.1f ns\n", med("pt"), 1e9 * (med("nw") - pw) / med("pt")
  }' "$tmp/plain.txt" "$tmp/comp.txt" "$tmp/points.txt"

# the imbalanced program: native, then compensate mode with each rule
: > "$tmp/imb.txt"
i=0
while [ $i -lt "$RUNS" ]; do
  # shellcheck disable=SC2086
  t=$($MPIEXEC ${MPIFLAGS:-} -n "$NP" "${imb}_native" ${IMB_ARGS:---iters 1000} |
      sed -n 's/^comp_imbalance: loop \([^ ]*\) s.*/\1/p')
  echo "native $t" >>"$tmp/imb.txt"
  for rule in one many; do
    rm -rf "$tmp/out"
    # shellcheck disable=SC2086
    REVPROF_MODE=compensate REVPROF_TEST_NODES=$rule REVPROF_OUTPUT_DIR="$tmp/out" \
      $MPIEXEC ${MPIFLAGS:-} -n "$NP" "$imb" ${IMB_ARGS:---iters 1000} >/dev/null 2>&1
    # the loop's measured and parallel-compensated time, latest rank
    awk -F, -v r=$rule '$2 == "loop" { if ($4 > m) m = $4; if ($8 > q) q = $8 }
      END { print "measured." r, m; print "parallel." r, q }' "$tmp/out/compensate.csv" >>"$tmp/imb.txt"
  done
  i=$((i + 1))
done
awk -v np="$NP" -v runs="$RUNS" "$awk_lib"'
  { n[$1]++; val[$1, n[$1]] = $2 }
  END {
    nat = med("native")
    printf "\ncomp_imbalance (rank 0 alone runs tiny regions between allreduces), %d ranks, median of %d runs, seconds\n\n", np, runs
    printf "%18s %17s %24s %24s\n", "no instrumentation", "no compensation", "parallel, send times", "parallel, seed 000 alone"
    printf "%18.4f %10.4f %6s %17.4f %6s %17.4f %6s\n", nat, med("measured.one"), err(med("measured.one"), nat),
      med("parallel.one"), err(med("parallel.one"), nat), med("parallel.many"), err(med("parallel.many"), nat)
  }' "$tmp/imb.txt"
