#!/bin/bash
# librevprof under valgrind's memcheck: the unit tests, then MPI programs
# with librevprof preloaded in every mode (predict, compensate, sample,
# monitored), each rank under valgrind. Prints a table: per run, the errors
# and definitely lost blocks of revprof's own code ("revprof": see
# classify), and those in the MPI, hwloc and the rest ("others", which are
# not revprof's to fix: MPI libraries keep memory to the end and read
# uninitialised padding). Exit status 1 when any revprof error or leak was
# found, 0 otherwise; 2 for usage errors.
#
# usage: bench/valgrind.sh [--unit-only | --mpi-only | --check-rule] [BUILD_DIR]
#   BUILD_DIR  a build of this repository (default: build); MPICH builds
#              give the quietest MPI under valgrind, Open MPI works too
#   --check-rule  only check the rule that tells revprof's errors from the
#              MPI's, on a built-in log (no valgrind, no build; CTest runs it)
# env: MPIEXEC (default: the one the build found), MPIFLAGS,
#      VALGRIND_FLAGS (extra memcheck flags), KEEP=1 (keep the logs' folder)
# About 10 minutes on the 2-core VM (each MPI run 20-60 s under valgrind).
set -u
parts=unit,mpi
while [ $# -gt 0 ]; do
  case $1 in
    --unit-only) parts=unit ;;
    --mpi-only) parts=mpi ;;
    --check-rule) parts=rule ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "valgrind.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
. "$(dirname "$0")/common.sh"
w=$(mktemp -d "${TMPDIR:-/tmp}/rp-valgrind-XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "# logs in $w (kept)"; else trap 'rm -rf "$w"' EXIT; fi

# The basenames of revprof's sources: a frame "(name.c:LINE)" is its code.
(cd "$here" && git ls-files 2>/dev/null | grep -E '\.(c|h|c\.in|f90)$' |
  sed 's|.*/||; s|\.in$||') | sort -u >"$w/ours.txt"
[ -s "$w/ours.txt" ] || find "$here" -name '*.[ch]' -printf '%f\n' | sort -u >"$w/ours.txt"

# classify LOG...: "revprof_errors revprof_leaks other_errors other_leaks"
# over valgrind logs (blocks of lines between blank "==PID==" lines). An
# error is revprof's when, going out from the innermost frame, a frame of
# revprof's code comes before one of another library (valgrind's
# allocators and string replacements, libc and unnamed frames are passed
# over): a leak inside MPI_Init that revprof's MPI_Init called is the
# MPI's, a strlen that revprof called is revprof's. revprof's blocks go to
# stderr.
classify() {
  awk -v ours="$w/ours.txt" '
    BEGIN { while ((getline n < ours) > 0) mine[n] = 1 }
    function owner(blk,   n, ln, i, f) {
      n = split(blk, ln, "\n")
      for (i = 2; i <= n; i++) {
        if (ln[i] !~ /^ *(at|by) 0x/) continue
        if (ln[i] ~ /librevprof/) return 1
        if (match(ln[i], /\(([A-Za-z0-9_.+-]+):[0-9]+\)$/)) {
          f = substr(ln[i], RSTART + 1, RLENGTH - 2); sub(/:[0-9]+$/, "", f)
          if (f in mine) return 1
        }
        # another object named (the MPI, hwloc, PMIx...): theirs; libc,
        # the allocators of valgrind, unnamed frames and source files not
        # ours (of libc, the string replacements of valgrind): further out
        if (ln[i] ~ /\(in / && ln[i] !~ /vgpreload|\/libc\.so|\/ld-linux/) return 0
      }
      return 0
    }
    function flush(   rp, leak) {
      if (blk == "") return
      if (blk ~ /(Invalid|uninitialised|Conditional jump|Mismatched|Syscall param|Source and destination|definitely lost)/) {
        leak = blk ~ /definitely lost/
        rp = owner(blk)
        if (rp) { if (leak) rl++; else re++ } else { if (leak) ol++; else oe++ }
        if (rp) print blk "\n" > "/dev/stderr"
      }
      blk = ""
    }
    /^==[0-9]+== *$/ { flush(); next }
    /^==[0-9]+== / { line = $0; sub(/^==[0-9]+== /, "", line); blk = blk (blk == "" ? "" : "\n") line; next }
    END { flush(); printf "%d %d %d %d\n", re, rl, oe, ol }
  ' "$@"
}

if [ "$parts" = rule ]; then
  # a leak inside the MPI's MPI_Init under revprof's and PMIx's writev:
  # theirs; revprof's own leak, and its strlen and strdup calls: revprof's
  cat >"$w/sample.vg" <<'EOF'
==1== 1,016 (136 direct, 880 indirect) bytes in 1 blocks are definitely lost in loss record 20 of 30
==1==    at 0x48465EF: calloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==1==    by 0xADF3CAE: ???
==1==    by 0x7F514FD: ??? (in /usr/lib/x86_64-linux-gnu/libhwloc.so.15.6.1)
==1==    by 0x56EFC2B: PMPI_Init (in /usr/lib/x86_64-linux-gnu/libmpich.so.12.2.2)
==1==    by 0x48A0ECC: MPI_Init (rp_wrap_manual.c:27)
==1== 
==1== 16 bytes in 1 blocks are definitely lost in loss record 2 of 30
==1==    at 0x48465EF: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==1==    by 0x48A0ECC: make_struct (rp_p2p.c:276)
==1==    by 0x48A0ECC: MPI_Init (rp_wrap_manual.c:27)
==1== 
==1== Conditional jump or move depends on uninitialised value(s)
==1==    at 0x48465EF: strlen (in /usr/lib/x86_64-linux-gnu/libc.so.6)
==1==    by 0x48A0ECC: rp_report_write (rp_report.c:27)
==1== 
==1== Invalid read of size 1
==1==    at 0x484ED16: strlen (vg_replace_strmem.c:495)
==1==    by 0x4CB9E9D: __strdup (strdup.c:41)
==1==    by 0x48A0ECC: rp_site_name (rp_site.c:88)
==1== 
==1== Syscall param writev(vector[...]) points to uninitialised byte(s)
==1==    at 0x4CB9E9D: __writev (writev.c:26)
==1==    by 0x673590F: pmix_ptl_base_send_handler (in /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2.6.2)
==1==    by 0x4C451F4: start_thread (pthread_create.c:442)
==1== 
EOF
  got=$(classify "$w/sample.vg" 2>/dev/null)
  [ "$got" = "2 1 1 1" ] || { echo "valgrind.sh: rule: got '$got', expected '2 1 1 1'" >&2; exit 1; }
  echo "valgrind.sh: rule ok (revprof: 2 errors, 1 leak; the others: 1 error, 1 leak)"
  exit 0
fi
bench_mpi_tools
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
lib=$build/revprof/librevprof.so
[ -f "$lib" ] || { echo "valgrind.sh: $lib not built (cmake --build $build)" >&2; exit 2; }

vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite
  --show-leak-kinds=definite --num-callers=30 ${VALGRIND_FLAGS:-})
bad=0
row() { # name logs...
  local name=$1 c
  shift
  c=$(classify "$@" 2>>"$w/revprof-errors.txt")
  read -r re rl oe ol <<<"$c"
  printf "%-48s %8s %8s %8s %8s\n" "$name" "$re" "$rl" "$oe" "$ol"
  [ "$re" = 0 ] && [ "$rl" = 0 ] || bad=1
}
echo "# $(uname -n), $(nproc) cores; MPI: $("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'open ?(mpi|rte)|version' | tr -s ' '); $(valgrind --version)"
printf "%-48s %8s %8s %8s %8s\n" run "rp-err" "rp-leak" "oth-err" "oth-leak"

if [[ $parts == *unit* ]]; then
  for t in "$build"/tests/unit/test_*; do
    [ -x "$t" ] || continue
    n=$(basename "$t")
    (cd "$w" && "${vg[@]}" --log-file="$w/$n.vg" "$t" >"$w/$n.out" 2>&1) ||
      echo "  ($n exited non-zero under valgrind: $w/$n.out)"
    row "unit: $n" "$w/$n.vg"
  done
fi

# mpirun NAME NP ENV... -- PROGRAM ARGS...: every rank under valgrind, the
# library preloaded into the program (not into valgrind) through env.
mpirun_vg() {
  local name=$1 np=$2 d=$w/${1//[^A-Za-z0-9_]/_}
  shift 2
  local -a envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$d"
  # shellcheck disable=SC2086 # flags: several launcher words
  (cd "$d" && timeout 600 "$MPIEXEC" $flags -n "$np" "${vg[@]}" --trace-children=yes \
    --trace-children-skip='*/sh,*/bash,*/hydra*,*/orted,*/gnuplot*,*/pdflatex,*/latex' --log-file="$d/vg.%p" \
    env LD_PRELOAD="$lib" REVPROF_MODEL="$here/tests/mpi/rp_exact_model.lua" \
    REVPROF_OUTPUT_DIR="$d/out" REVPROF_QUIET=1 "${envs[@]}" "$@" >"$d/stdout" 2>"$d/stderr") ||
    echo "  ($name: the run failed, see $d/stderr)"
  local -a logs=("$d"/vg.*)
  [ -e "${logs[0]}" ] || { echo "  ($name: no valgrind log)"; bad=1; return; }
  row "$name" "${logs[@]}"
}

if [[ $parts == *mpi* ]]; then
  sem=$build/tests/mpi/rp_semantics_native
  for m in predict compensate "sample REVPROF_SAMPLE=all"; do
    read -ra kv <<<"$m"
    mpirun_vg "semantics np2 ${kv[0]}" 2 REVPROF_MODE="${kv[0]}" "${kv[@]:1}" -- "$sem"
  done
  mpirun_vg "semantics np3 predict, wildcards real" 3 REVPROF_WILDCARD=real -- "$sem"
  mpirun_vg "semantics np2+1 monitored" 3 REVPROF_MONITOR=1 -- "$sem"
  mpirun_vg "stencil np2 predict, Lua costs" 2 REVPROF_LUA="$here/examples/stencil_costs.lua" \
    -- "$build/examples/stencil_rp" --nx 64 --ny 64 --iters 20
  mpirun_vg "mcpi_fi np2 compensate, -finstrument-functions" 2 REVPROF_MODE=compensate \
    -- "$build/examples/mcpi_fi"
  mpirun_vg "bspbench np2+1 compensate, monitored" 3 REVPROF_MODE=compensate REVPROF_MONITOR=1 \
    -- "$build/examples/bspbench" -i 20
  [ -x "$build/examples/pingpong_f" ] &&
    mpirun_vg "pingpong_f np2 sample (Fortran)" 2 REVPROF_MODE=sample REVPROF_SAMPLE=all \
      -- "$build/examples/pingpong_f"
fi
if [ "$bad" = 1 ]; then
  echo "revprof's own code has memcheck errors or leaks:"
  cat "$w/revprof-errors.txt"
  exit 1
fi
echo "no memcheck error or definite leak in revprof's own code"
