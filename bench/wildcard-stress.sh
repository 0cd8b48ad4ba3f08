#!/bin/bash
# Wildcard receives decided in predicted time, under a perturbed schedule:
# runs the test program tests/mpi/rp_wildcard_rp (the "wildcard" case of
# tests/mpi/rp_check.sh, with its settings) many times, each rank started
# after a random 0-49 ms sleep under a random nice level 0-19, so that
# ranks reach their decisions in orders a quiet ctest run rarely gives. A
# run that outlives --hang seconds is a hang: gdb (when installed) prints
# every rank's stack into the kept work folder, then the run is killed.
# Prints a table per rank count and variant: runs, good, wrong data (no
# "0 mismatches" line), hangs, failed, median seconds. Exit status 1 when
# any run hung, failed or printed wrong data; 0 otherwise; 2 for usage.
#
# usage: bench/wildcard-stress.sh [OPTIONS] [BUILD_DIR]
#   BUILD_DIR        a build of this repository (default: build); a
#                    sanitized one (-DREVPROF_SANITIZE=ON) slows ranks the
#                    most and found the send/flush deadlock of 2e6b87b
#   --runs N         runs per case (default 20)
#   --cases LIST     NP:VARIANT pairs, comma-separated; VARIANT as in
#                    rp_wildcard.c, "plain" for none, "real" under
#                    REVPROF_WILDCARD=real (default
#                    2:exchange,4:exchange,4:defer,3:defer,4:cycle,4:irecv,4:waitany,4:probe)
#   --hang S         seconds after which a run is a hang (default 50)
#   --no-jitter      start ranks at once at their normal priority
# env: MPIEXEC (default: the one the build found), MPIFLAGS, KEEP=1 (keep
#      the work folder even when nothing hung)
set -u
runs=20 hang=50 jitter=1
# rp_wildcard.c's variants ("real": the MPI's order, REVPROF_WILDCARD=real)
variants="plain exchange defer cycle irecv irecvtest waitany testany waitsome testsome probe iprobe flood cancel real sendrecv waitrecv waitallrecv stall"
cases=2:exchange,4:exchange,4:defer,3:defer,4:cycle,4:irecv,4:waitany,4:probe
usage() { sed -n '13,25p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=${2:-}; shift ;;
    --cases) cases=${2:-}; shift ;;
    --hang) hang=${2:-}; shift ;;
    --no-jitter) jitter=0 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "wildcard-stress.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
# every case checked before the first run
for c in ${cases//,/ }; do
  np=${c%%:*} v=${c#*:}
  [ "$v" = "$c" ] && v=plain
  case $np in '' | *[!0-9]* | 0 | 1) echo "wildcard-stress.sh: case '$c' is not NP:VARIANT with NP >= 2" >&2; exit 2 ;; esac
  case " $variants " in *" $v "*) ;; *) echo "wildcard-stress.sh: unknown variant '$v' in '$c' (one of: $variants)" >&2; exit 2 ;; esac
done
[ -n "${cases//,/}" ] || { echo "wildcard-stress.sh: --cases is empty" >&2; exit 2; }
for v in "$runs" "$hang"; do
  case $v in '' | *[!0-9]* | 0) echo "wildcard-stress.sh: --runs and --hang take a positive whole number, not '$v'" >&2; exit 2 ;; esac
done
. "$(dirname "$0")/common.sh"
bench_mpi_tools
exe=$build/tests/mpi/rp_wildcard_rp
bench_need_built wildcard-stress.sh "$exe"
model=$here/tests/mpi/rp_exact_p2p_model.lua
w=$(cd "$(mktemp -d "${TMPDIR:-/tmp}/rp-wildcard-stress-XXXXXX")" && pwd -P)

# the per-rank perturbation: a random sleep, then a random nice level
cat > "$w/jitter.sh" <<'EOF'
#!/bin/sh
n=$(( $(od -An -N1 -tu1 /dev/urandom) % 20 ))
d=$(( $(od -An -N1 -tu1 /dev/urandom) % 50 ))
sleep "$(printf '0.%03d' "$d")" 2>/dev/null
exec nice -n "$n" "$@"
EOF
chmod +x "$w/jitter.sh"
launch=
[ "$jitter" = 1 ] && launch=$w/jitter.sh

# the ranks of the run under way: the program's processes working in its
# folder $d (not those of another run on the host)
run_ranks() {
  for p in $(pgrep -f "$exe"); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$exe")" ] &&
      [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$d" ] && echo "$p"
  done
}
# backtraces of every rank of a hung run into $1
backtraces() {
  if ! command -v gdb > /dev/null; then echo "(gdb not installed: no backtraces)" > "$1"; return; fi
  for p in $(run_ranks); do
    echo "== pid $p: $(tr '\0' ' ' < "/proc/$p/cmdline")"
    timeout 60 gdb -p "$p" -batch -ex "thread apply all bt" 2>/dev/null | grep -E '^#|^Thread'
  done > "$1"
}

export REVPROF_MODEL=$model REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6 \
  REVPROF_COMPUTE=annotate REVPROF_WILDCARD_TIMEOUT=10
echo "# $(uname -n), $(nproc) cores; $("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'open ?(mpi|rte)|version' | tr -s ' ' | sed 's/^ //'); $exe; jitter $([ "$jitter" = 1 ] && echo on || echo off)"
printf '%-4s %-11s %5s %5s %6s %6s %7s %9s\n' np variant runs good wrong hangs failed median_s
bad=0
for c in ${cases//,/ }; do
  np=${c%%:*} v=${c#*:}
  [ "$v" = "$c" ] && v=plain
  arg=$v; [ "$v" = plain ] && arg=
  wild=predicted; [ "$v" = real ] && wild=real
  good=0 wrong=0 hung=0 failed=0
  : > "$w/times"
  for i in $(seq 1 "$runs"); do
    d=$w/run; rm -rf "$d"; mkdir -p "$d"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 # flags and the launcher split on purpose
    (cd "$d" && REVPROF_WILDCARD=$wild REVPROF_OUTPUT_DIR=$d/revprof-out exec "$MPIEXEC" $flags -n "$np" $launch "$exe" "$np" $arg > out 2> err) &
    pid=$!
    s=0
    while kill -0 "$pid" 2>/dev/null && [ "$s" -lt "$((hang * 10))" ]; do sleep 0.1; s=$((s + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
      hung=$((hung + 1))
      backtraces "$w/hang-$np-$v-$i.bt"
      cp "$d/out" "$w/hang-$np-$v-$i.out"; cp "$d/err" "$w/hang-$np-$v-$i.err"
      for p in $(run_ranks); do kill -KILL "$p" 2>/dev/null; done
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      continue
    fi
    wait "$pid"; rc=$?
    t1=$(date +%s.%N)
    if [ "$rc" != 0 ]; then
      failed=$((failed + 1)); cp "$d/err" "$w/failed-$np-$v-$i.err"
    elif grep -q " 0 mismatches" "$d/out"; then
      good=$((good + 1)); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$w/times"
    else
      wrong=$((wrong + 1)); cp "$d/out" "$w/wrong-$np-$v-$i.out"
    fi
  done
  med=$(sort -g "$w/times" | awk '{ t[NR] = $1 } END { if (NR) printf "%.2f", NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2; else printf "-" }')
  printf '%-4s %-11s %5s %5s %6s %6s %7s %9s\n' "$np" "$v" "$runs" "$good" "$wrong" "$hung" "$failed" "$med"
  [ $((wrong + hung + failed)) -gt 0 ] && bad=1
done
rm -rf "$w/run"
if [ "$bad" = 1 ] || [ "${KEEP:-0}" = 1 ]; then
  echo "# work folder $w (kept: backtraces hang-*.bt, outputs of the runs that went wrong)"
else
  rm -rf "$w"
fi
exit "$bad"
