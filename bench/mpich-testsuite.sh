#!/bin/bash
# MPICH's own test suite (test/mpi of an MPICH source tree, e.g. v4.0.2)
# natively and under librevprof (LD_PRELOAD) in its predict, compensate or
# sample mode, judged by MPICH's own rule.
# The test sources are not part of this repository: fetch them beforehand
# and give the test/mpi folder. The suite is built without MPICH's
# autotools: its util library, dtpools and every program named in a
# directory's testlist are compiled with mpicc.mpich against a generated
# mpitestconf.h. See --help.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/mpich-testsuite.sh [OPTIONS] TESTMPI_DIR

Builds the tests of MPICH's test suite (TESTMPI_DIR: the test/mpi folder of
an MPICH source tree, e.g. `git archive v4.0.2 test/mpi` of pmodels/mpich)
with the MPICH compiler wrapper, runs each one natively, then, if it passed,
with librevprof preloaded in each revprof mode, and prints a table of counts
per directory and the tests that pass natively but fail under revprof.

options:
  --build DIR         revprof build folder configured with -DREVPROF_MPI=mpich
                      (default: build-test-mpich in the repository); its
                      revprof/librevprof.so is preloaded. Build it with
                        cmake -S . -B DIR -DREVPROF_MPI=mpich && cmake --build DIR
  --mpi NAME          mpich (default) or openmpi: the MPI the tests are built
                      with and run on (mpicc.NAME, mpifort.NAME, mpiexec.NAME;
                      Open MPI's launcher gets -x LD_PRELOAD and
                      --oversubscribe); --build must use the same MPI
  --modes LIST        comma-separated, of native, predict, compensate, sample
                      (default native,predict,compensate). The native run
                      always happens: a test counts under revprof only when
                      it passes natively
  --dirs LIST         test directories, comma-separated (default pt2pt,coll,
                      comm,datatype,group,init,attr,info,topo,errhan,rma,io;
                      a sub-folder such as threads/pt2pt is a directory too)
  --max-np N          run only tests of at most N processes (default 4)
  --jobs N            tests built and run at the same time (default 1)
  --work DIR          scratch folder: builds, run folders, logs, results
                      (default /tmp/revprof-mpich-tests); nothing is written
                      anywhere else
  --timeout-min S     least time limit of a revprof run: it gets
                      max(3 x the native run's time, S) seconds (default 60)
  --native-timeout S  time limit of a native run without timeLimit= in the
                      testlist (default 180, as MPICH's runtests)
  --model FILE        machine model for predict mode (default
                      models/machines/debian12-2core-openmpi.lua)
  --no-rerun          judge a revprof run that ran past its limit as it is
                      (default: when every test is done, each test whose
                      revprof run timed out is run again alone, natively
                      and in that mode, the limit from the new native time;
                      a pass there counts as a pass, shown apart as
                      "rerun" in the table, and WORK/reruns.txt keeps both
                      attempts. On a loaded machine MPICH's busy-polling
                      ranks also stall natively: rma/window_creation took
                      0.2 s alone and 19 to over 100 s beside a 4-rank test)
  --rebuild           compile again even when the work folder has the programs
  --resume            keep the results of tests that an earlier run in the same
                      work folder finished (an interrupted run, another
                      --dirs); run only the others
  --report            build and run nothing: the table of the results in the
                      work folder (an earlier or interrupted run)
  -h, --help          this text

Environment: MPICC (default mpicc.mpich), MPIFC (the Fortran tests'
compiler, default mpifort.mpich), MPIEXEC (default mpiexec.mpich),
TEST_CFLAGS (default "-g -O2"), TEST_FFLAGS (default "-g -O2
-fallow-argument-mismatch"), REVPROF_SAMPLE (sample mode's technique,
default all: every message stamped, the strongest check that MPI's
semantics are unchanged).

What is run. Each directory's testlist (else testlist.in) as MPICH's
runtests reads it: `program [np [key=value ...]]`, np 2 when absent. Lines
with an @...@ configure substitution are dropped (configure comments them
out by default: large tests and the like). Keys: arg= and env= (repeatable),
mpiexecarg=, timeLimit= (seconds), resultTest=, xfail=, mem= (GiB),
mpix=, mpiversion=; others are ignored. Skipped, and counted as such:
xfail= tests (runtests skips them by default), mpix=true (MPIX tests need an
MPICH build tree), mem= above this machine's memory, mpiversion= above the
library's MPI version, np above --max-np. Programs are built as the
directory's Makefile.am says (<prog>_SOURCES, _CPPFLAGS, _CFLAGS, _LDADD);
one that does not compile counts as "not built". The Fortran directories
(f77/..., f90/..., f08/...: name them, e.g. --dirs f77/pt2pt,f08/coll) are
built with MPIFC and util/mtest_f77.f, mtest_f90.f90 or mtest_f08.f90;
their *.h.in get integer*8 for the address and offset kinds. The f90/
directories MPICH's autogen derives from f77/ (f90/pt2pt, f90/coll, ...)
and f77/io's generated write*.f are made with MPICH's own maint/f77tof90
and maint/testmerge (perl) in WORK/gen/tree, from which the suite then
runs whenever f77/io or an f90/ directory is asked for (the tree itself is
left as it is). testlist.dtp and
testlist.cvar (generated by MPICH's autogen) are not read.

How a run is judged (runtests' rule): exit status 0, a line
`^\s*No [Ee]rrors\s*$`, and no other line of stdout+stderr (but "Test Passed"
and the checkpoint lines runtests also allows; a second "No Errors" line is
unexpected output, as in runtests). resultTest=TestStatus and TestErrFatal
need a non-zero exit status and allow any output; TestStatusNoErrors needs a
non-zero status, "No Errors" and nothing else. Every run is
`timeout ... $MPIEXEC -n NP [mpiexecargs] ./prog ARGS` in its own folder, with
MPIEXEC_TIMEOUT set to its time limit (as runtests sets it). Revprof runs
add `-genv LD_PRELOAD librevprof.so`, REVPROF_MODE, REVPROF_MODEL,
REVPROF_QUIET=1 (revprof writes nothing on stdout/stderr), their own
REVPROF_OUTPUT_DIR and, in sample mode, REVPROF_SAMPLE; a revprof run
without report.txt/.csv (predict), compensate.txt/.csv (compensate) or
sample.txt (sample) there counts as "no report" (a run revprof turned off
still writes report.* with status OFF: shown as "off").

Output: the table (stdout; also WORK/summary.txt; its sample column only
when --modes has sample), WORK/results.csv (one row per test, every mode's
columns), WORK/failures.txt (every test that passes natively and fails
under a revprof mode, or has no report, with the first lines of its output).
Per test and mode: WORK/runs/DIR/TEST/MODE.log (the run's whole output) and
WORK/runs/DIR/TEST/MODE/ (its folder; revprof-out/ has the reports). Build
logs: WORK/build/DIR/PROGRAM.log. Progress: one line per test on stderr.
Exit status: 0 when the table was printed (even with failing tests), 1 when
nothing could be built, 2 for usage errors, 130 when interrupted (INT or
TERM: the running tests are stopped and the table of those done is printed;
--resume goes on from there).
EOF
}

die() { echo "mpich-testsuite: $*" >&2; exit 2; }
note() { echo "mpich-testsuite: $*" >&2; }

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build-test-mpich
modes=native,predict,compensate mpi=mpich
dirs=pt2pt,coll,comm,datatype,group,init,attr,info,topo,errhan,rma,io
max_np=4 jobs=1 work=/tmp/revprof-mpich-tests timeout_min=60
native_timeout=180 rebuild=0 rerun=1 resume=0 report_only=0 testdir=
model=$here/models/machines/debian12-2core-openmpi.lua
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=${2:?--build needs a folder}; shift ;;
    --mpi) mpi=${2:?--mpi needs mpich or openmpi}; shift ;;
    --modes) modes=${2:?--modes needs a list}; shift ;;
    --dirs) dirs=${2:?--dirs needs a list}; shift ;;
    --max-np) max_np=${2:?--max-np needs a number}; shift ;;
    --jobs|-j) jobs=${2:?--jobs needs a number}; shift ;;
    --work) work=${2:?--work needs a folder}; shift ;;
    --timeout-min) timeout_min=${2:?--timeout-min needs seconds}; shift ;;
    --native-timeout) native_timeout=${2:?--native-timeout needs seconds}; shift ;;
    --model) model=${2:?--model needs a file}; shift ;;
    --rebuild) rebuild=1 ;;
    --no-rerun) rerun=0 ;;
    --resume) resume=1 ;;
    --report) report_only=1 resume=1 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; [ $# -eq 1 ] || die "one TESTMPI_DIR expected (see --help)"; testdir=$1 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$testdir" ] || die "one TESTMPI_DIR expected, got $testdir and $1"; testdir=$1 ;;
  esac
  shift
done
[ -n "$testdir" ] || die "no TESTMPI_DIR given (see --help)"
for n in "$max_np" "$jobs" "$timeout_min" "$native_timeout"; do
  case $n in ''|*[!0-9]*|0) die "expected a positive integer, got '$n'" ;; esac
done
if [ ! -f "$testdir/util/mtest.c" ] || [ ! -d "$testdir/include" ]; then
  die "$testdir: not MPICH's test/mpi folder (no util/mtest.c, include/)"
fi
testdir=$(cd "$testdir" && pwd)
IFS=, read -ra dir_list <<<"$dirs"
IFS=, read -ra mode_list <<<"$modes"
# Every revprof mode, in the order of results.csv's columns; rp_modes: the
# ones asked for.
all_rp_modes=(predict compensate sample)
rp_modes=()
for m in "${mode_list[@]}"; do
  if [ "$m" = native ]; then continue; fi
  [[ " ${all_rp_modes[*]} " == *" $m "* ]] ||
    die "--modes: unknown mode '$m' (native$(printf ', %s' "${all_rp_modes[@]}"))"
  rp_modes+=("$m")
done
# Sample mode stamps every message unless the user chose otherwise.
sample_spec=${REVPROF_SAMPLE:-all}
for d in "${dir_list[@]}"; do
  case $d in ''|/*|*/|.*|*/.*|*..*) die "--dirs: bad directory name '$d'" ;; esac
done

case $mpi in mpich|openmpi) ;; *) die "--mpi $mpi: expected mpich or openmpi" ;; esac
MPICC=${MPICC:-mpicc.$mpi}
MPIFC=${MPIFC:-mpifort.$mpi}
MPIEXEC=${MPIEXEC:-mpiexec.$mpi}
read -ra test_cflags <<<"${TEST_CFLAGS:--g -O2}"
# mpif.h declares no interfaces: one buffer, many types
read -ra test_fflags <<<"${TEST_FFLAGS:--g -O2 -fallow-argument-mismatch}"
pkg=mpich; [ "$mpi" = mpich ] || pkg=openmpi
command -v "$MPICC" >/dev/null || die "$MPICC not found (Debian: apt-get install lib$pkg-dev)"
command -v "$MPIEXEC" >/dev/null || die "$MPIEXEC not found (Debian: apt-get install $pkg-bin)"
command -v timeout >/dev/null || die "timeout (coreutils) not found"

lib=
if [ ${#rp_modes[@]} -gt 0 ]; then
  case $build in /*) ;; *) build=$(pwd)/$build ;; esac
  lib=$build/revprof/librevprof.so
  [ -f "$lib" ] || die "$lib not built: cmake -S $here -B $build -DREVPROF_MPI=mpich && cmake --build $build"
  case $(ldd "$lib" 2>/dev/null || true) in
    *libmpich*) [ "$mpi" = mpich ] || die "$lib is linked against MPICH, not $mpi" ;;
    *libmpi.so.40*) [ "$mpi" = openmpi ] || die "$lib is linked against Open MPI: use --mpi openmpi" ;;
    *) die "$lib is not linked against $mpi (configure $build with -DREVPROF_MPI=$mpi)" ;;
  esac
  case $model in /*) ;; *) model=$(pwd)/$model ;; esac
  [ -r "$model" ] || die "--model $model: cannot read it"
fi

# The work folder; refuse one inside the repository (runs leave files).
mkdir -p "$work" || die "--work $work: cannot create it"
work=$(cd "$work" && pwd)
case $work/ in "$here"/*) die "--work $work is inside the repository; use a folder outside it" ;; esac
gen=$work/gen
libdir=$work/lib
mkdir -p "$gen/include" "$gen/dtpools/include" "$libdir" "$work/build" "$work/runs" \
  "$work/running"
rm -f "$work"/running/*.pid

# MPICH's autogen derives f90/DIR from f77/DIR (maint/f77tof90) and its
# make writes f77/io's write*.f (maint/testmerge): a tree without them (a
# release tarball, a git checkout) gets them in WORK/gen/tree, a copy of its
# f77/ and f90/ beside links to the rest, and the suite runs from there.
# With MPICH's own scripts (perl); made again when the tree is another.
generate_fortran() {
  local t=$gen/tree log=$gen/tree.log d x
  [ "$(cat "$t.stamp" 2>/dev/null || true)" = "$testdir" ] && return 0
  command -v perl >/dev/null || { note "perl not found: f90/ is not generated from f77/"; return 0; }
  note "generating f90/ from f77/ and f77/io's sources in $t (log $log)"
  rm -rf "$t" "$t.stamp"
  mkdir -p "$t"
  : >"$log"
  for d in "$testdir"/*; do
    case ${d##*/} in f77|f90) cp -r "$d" "$t/" ;; *) ln -s "$d" "$t/${d##*/}" ;; esac
  done
  if [ -f "$t/f77/io/ioharness.defn" ] && [ -f "$testdir/maint/testmerge.in" ]; then
    sed '1s|^#!.*|#!/usr/bin/env perl|' "$testdir/maint/testmerge.in" >"$gen/testmerge.pl"
    (cd "$t/f77/io" && perl "$gen/testmerge.pl" -defn="$testdir/maint/common.defn" \
      ioharness.defn ioharness.tlt) >>"$log" 2>&1 || note "maint/testmerge failed (see $log)"
  fi
  for d in "$t"/f77/*/; do
    x=$(basename "$d")
    mkdir -p "$t/f90/$x"
    (cd "$t" && perl "$testdir/maint/f77tof90" "f77/$x" "f90/$x" Makefile.am Makefile.ap) \
      >>"$log" 2>&1 || note "maint/f77tof90 f77/$x failed (see $log)"
  done
  echo "$testdir" >"$t.stamp"
}
for d in "${dir_list[@]}"; do
  case $d in f77/io|f90/*) ;; *) continue ;; esac
  if [ -f "$testdir/maint/f77tof90" ]; then
    [ "$report_only" = 1 ] || generate_fortran
    [ "$(cat "$gen/tree.stamp" 2>/dev/null || true)" = "$testdir" ] && testdir=$gen/tree
  fi
  break
done
for d in "${dir_list[@]}"; do
  [ -d "$testdir/$d" ] || die "$testdir/$d: no such test directory"
done

mem_gib=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
mpi_version=$(printf '#include <mpi.h>\nMPI_VERSION.MPI_SUBVERSION\n' |
  "$MPICC" -E -P - 2>/dev/null | grep -E '^[0-9]+ *\. *[0-9]+$' | tr -d ' ' || true)
mpi_version=${mpi_version:-3.1}

# Interrupted (INT, TERM): stop our own background jobs and the launches
# they started (timeout runs in its own process group: its pid is in
# $work/running/), then print the results so far. A test cut short has no
# result (it shows as not-run); --resume runs it next time.
interrupted=0
on_signal() {
  local p f
  [ "$interrupted" = 1 ] && return 0
  interrupted=1
  note "interrupted: stopping the running tests"
  for p in $(jobs -pr); do kill "$p" 2>/dev/null || true; done
  for f in "$work"/running/*.pid; do
    if [ -f "$f" ]; then kill -TERM "$(cat "$f")" 2>/dev/null || true; fi
  done
}
trap on_signal INT TERM

# ----------------------------------------------------------- configuration
# What MPICH's configure would find on Linux with MPICH: the macros the
# tests, util/ and dtpools/ test (AC_CHECK_HEADERS/FUNCS/TYPES, the
# AC_DEFINEs of test/mpi/configure.ac). mtest_mpix.h maps the MPI names of
# functions an MPICH has only as MPIX_ (MPICH's maint/gen_binding_c.py
# writes it from its API list; e.g. MPI_Delete_error_code in 4.0.2): here,
# every MPIX_ function mpi.h declares without its MPI_ name.
mpix_defines() {
  local pre x names
  pre=$(printf '#include <mpi.h>\n' | "$MPICC" -E - 2>/dev/null || true)
  mapfile -t names < <(grep -oE '\bMPIX_[A-Z][a-z][A-Za-z0-9_]*' <<<"$pre" | sort -u)
  for x in "${names[@]}"; do
    grep -qw -- "MPI_${x#MPIX_}" <<<"$pre" || echo "#define MPI_${x#MPIX_} $x"
  done
}
write_config() {
  cat >"$gen/include/mpitestconf.h.new" <<'EOF'
/* mpitestconf.h written by revprof's bench/mpich-testsuite.sh in place of
 * MPICH test/mpi's configure (Linux, MPICH, no GPU, not strict MPI). */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_MEMORY_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_PTHREAD_H 1
#define HAVE_STRDUP 1
#define HAVE_USLEEP 1
#define HAVE_GETRUSAGE 1
#define HAVE_PTHREAD_BARRIER_INIT 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_SPAWN 1
#define HAVE_MPI_IO 1
#define MPIO_USES_MPI_REQUEST 1
#define HAVE_MPI_INTEGER16 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_TYPE_CREATE_STRUCT 1
#define HAVE_MPI2_COMBINERS 1
#define HAVE_FORTRAN_BINDING 1
#define F77_NAME_LOWER_USCORE 1
#define HAVE_H_ADDR_LIST 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define POINTERINT_t long
#define SIZEOF_VOID_P 8
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#endif
EOF
  { printf '#ifndef MTEST_MPIX_H_INCLUDED\n#define MTEST_MPIX_H_INCLUDED\n'
    mpix_defines
    printf '#endif\n'
  } >"$gen/include/mtest_mpix.h.new"
  # dtpools_internal.h includes "../dtpoolsconf.h": found through
  # -I$gen/dtpools/include as $gen/dtpools/dtpoolsconf.h.
  printf '#ifndef DTPOOLSCONF_H_INCLUDED\n#define DTPOOLSCONF_H_INCLUDED\n#define HAVE_STRDUP 1\n#define HAVE_MEMSET 1\n#endif\n' \
    >"$gen/dtpools/dtpoolsconf.h.new"
  local f
  for f in "$gen/include/mpitestconf.h" "$gen/include/mtest_mpix.h" "$gen/dtpools/dtpoolsconf.h"; do
    if cmp -s "$f.new" "$f"; then rm -f "$f.new"; else mv "$f.new" "$f"; fi
  done
}

incs=(-I"$gen/include" -I"$testdir/include" -I"$testdir/dtpools/include")

# ----------------------------------------------------- util and dtpools libs
build_libs() {
  local log=$libdir/build.log f o objs
  if [ "$stale" = 0 ] && [ -f "$libdir/libmtest.a" ] && [ -f "$libdir/libmtest_thread.a" ] && [ -f "$libdir/libdtypes.a" ] &&
    [ -f "$libdir/libdtpools.a" ]; then
    return 0
  fi
  rm -f "$libdir"/*.a "$libdir"/*.o
  : >"$log"
  for f in mtest mtest_common mtest_single mtest_thread; do
    "$MPICC" "${test_cflags[@]}" -w "${incs[@]}" -c "$testdir/util/$f.c" \
      -o "$libdir/$f.o" >>"$log" 2>&1 || { note "cannot build util/$f.c (see $log)"; exit 1; }
  done
  ar rcs "$libdir/libmtest.a" "$libdir/mtest.o" "$libdir/mtest_common.o" "$libdir/mtest_single.o"
  # the threads/ tests' MTest: MTest_Start_thread and friends
  ar rcs "$libdir/libmtest_thread.a" "$libdir/mtest.o" "$libdir/mtest_common.o" "$libdir/mtest_thread.o"
  "$MPICC" "${test_cflags[@]}" -w "${incs[@]}" -c "$testdir/util/dtypes.c" \
    -o "$libdir/dtypes.o" >>"$log" 2>&1 || { note "cannot build util/dtypes.c (see $log)"; exit 1; }
  ar rcs "$libdir/libdtypes.a" "$libdir/dtypes.o"
  # dtpools: the datatype pools of the typed tests; without it those tests
  # are simply not built.
  objs=()
  for f in "$testdir"/dtpools/src/*.c; do
    [ -f "$f" ] || continue
    o=$libdir/dtp_$(basename "$f" .c).o
    if "$MPICC" "${test_cflags[@]}" -w -I"$gen/dtpools/include" -I"$testdir/dtpools/include" \
      -c "$f" -o "$o" >>"$log" 2>&1; then
      objs+=("$o")
    else
      note "dtpools: cannot build $f (see $log); the typed tests will not link"
    fi
  done
  if [ ${#objs[@]} -gt 0 ]; then ar rcs "$libdir/libdtpools.a" "${objs[@]}"
  else ar rcs "$libdir/libdtpools.a"; fi
}

# The Fortran tests' MTest (f77/, f90/, f08/) and headers, each when a
# directory of its language is asked for: without a Fortran compiler, or
# when it does not compile, those tests are simply not built.
build_flibs() {
  local log=$libdir/build-fortran.log k lang f d h
  for k in f77:f f90:f90 f08:f90; do
    lang=${k%%:*} f=$testdir/util/mtest_$lang.${k#*:}
    for d in "${dir_list[@]}"; do
      case $d in "$lang"|"$lang"/*) ;; *) continue ;; esac
      [ "$stale" = 0 ] && [ -f "$libdir/libmtest_$lang.a" ] && break
      rm -f "$libdir/libmtest_$lang.a"
      command -v "$MPIFC" >/dev/null || { note "$MPIFC not found: the $lang tests will not be built"; break; }
      mkdir -p "$libdir/mod_$lang" "$libdir/gen_$lang" "$work/gen/up/up"
      # the headers configure writes from the language's *.h.in
      for h in "$testdir/$lang"/*/*.h.in; do
        [ -f "$h" ] || continue
        sed -e 's/@F77_MPI_ADDRESS@/integer*8/g' -e 's/@F77_MPI_OFFSET@/integer*8/g' \
          "$h" >"$libdir/gen_$lang/$(basename "$h" .in)"
      done
      if "$MPIFC" "${test_fflags[@]}" -w -J"$libdir/mod_$lang" -c "$f" \
        -o "$libdir/mtest_$lang.o" >>"$log" 2>&1; then
        ar rcs "$libdir/libmtest_$lang.a" "$libdir/mtest_$lang.o"
      else
        note "cannot build util/$(basename "$f") (see $log); the $lang tests will not be built"
      fi
      break
    done
  done
}

# ------------------------------------------------------- testlist, Makefile.am
# Makefile.am's assignments, one "name|value" a line (continuations joined,
# += appended).
parse_makefile() {
  awk '
    {
      line = (cont ? acc " " : "") $0
      if (line ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", line); acc = line; cont = 1; next }
      cont = 0
      if (line ~ /^[ \t]*#/) next
      if (match(line, /^[A-Za-z0-9_]+[ \t]*\+?=/)) {
        head = substr(line, 1, RLENGTH); val = substr(line, RLENGTH + 1)
        name = head; sub(/[ \t]*\+?=$/, "", name)
        gsub(/[ \t]+/, " ", val); sub(/^ /, "", val); sub(/ $/, "", val)
        if (head ~ /\+=$/ && (name in v)) v[name] = v[name] " " val
        else v[name] = val
        if (!(name in seen)) { seen[name] = 1; order[++n] = name }
      }
    }
    END { for (i = 1; i <= n; i++) print order[i] "|" v[order[i]] }
  ' "$1"
}

# The tests of one directory, one a line:
# id|program|np|args|envs|mpiexecargs|timelimit|resulttest|skip
# (lists space-separated: testlist fields never hold spaces; skip empty or
# the reason the test is not run).
parse_testlist() {
  awk -v maxnp="$max_np" -v mem="$mem_gib" -v mpiver="$mpi_version" -v dir="$2" '
    function vnum(s,  a) { split(s, a, "."); return a[1] * 1000 + a[2] }
    {
      sub(/#.*/, ""); gsub(/\r/, ""); sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "")
      if ($0 == "" || $0 ~ /^!/ || $0 ~ /@[A-Za-z0-9_]*@/) next
      n = split($0, f, /[ \t]+/)
      prog = f[1]; np = 2; k = 2
      if (n >= 2 && f[2] !~ /=/) { np = f[2]; k = 3 }
      args = envs = mx = tl = rt = skip = ""
      for (i = k; i <= n; i++) {
        if (f[i] !~ /=/) continue              # runtests ignores these too
        key = f[i]; sub(/=.*/, "", key); val = substr(f[i], length(key) + 2)
        if (key == "arg") args = args (args == "" ? "" : " ") val
        else if (key == "env") envs = envs (envs == "" ? "" : " ") val
        else if (key == "mpiexecarg") mx = mx (mx == "" ? "" : " ") val
        else if (key == "timeLimit") tl = val
        else if (key == "resultTest") rt = val
        else if (key == "xfail" && skip == "") skip = "xfail"
        else if (key == "mpix" && tolower(val) == "true" && skip == "") skip = "mpix"
        else if (key == "mem" && val + 0 > mem + 0 && skip == "") skip = "mem"
        else if (key == "mpiversion" && vnum(val) > vnum(mpiver) && skip == "") skip = "mpiversion"
      }
      if (np !~ /^[0-9]+$/) np = 2
      if (skip == "" && np + 0 > maxnp + 0) skip = "np>" maxnp
      if (skip == "" && prog ~ /\//) skip = "path"
      id = prog ".np" np
      if (++count[id] > 1) id = id "." count[id]
      print id "|" prog "|" np "|" args "|" envs "|" mx "|" tl "|" rt "|" skip
    }
  ' "$1"
}

mvar() { # mvar VARSFILE NAME: a Makefile.am variable
  awk -v k="$2" 'index($0, k "|") == 1 { print substr($0, length(k) + 2); exit }' "$1"
}

# build_fortran DIR PROG LANG LOG SOURCES...: a Fortran test (f77/, f90/,
# f08/) with the MPI's Fortran compiler wrapper: its C sources compiled
# apart (they include "../../include/mpitestconf.h": found through a
# folder two below the generated include/), the headers build_flibs wrote
# from the language's *.h.in (f77/rma includes f77/attr's), the Fortran sources in the
# order given (again in the reverse order when a module they use comes
# later), linked with the language's MTest and the C one. A nodist_
# program's source is the one generate_fortran wrote (f77/io's write*.f).
build_fortran() {
  local d=$1 p=$2 lang=$3 log=$4 src=$testdir/$1 out=$work/build/$1 f
  shift 4
  local -a fsrc=() objs=()
  local mods=$out/mod.$p gen=$libdir/gen_$lang bin=$out/$p
  [ -f "$libdir/libmtest_$lang.a" ] || { echo "not built: no util/mtest_$lang (Fortran compiler $MPIFC)" >"$log"; return 1; }
  mkdir -p "$mods"
  : >"$log"
  for f in "$@"; do
    case $f in
      *.c) "$MPICC" "${test_cflags[@]}" -w "${incs[@]}" -I"$work/gen/up/up" -I"$src" -c "$f" \
             -o "$mods/$(basename "$f" .c).o" >>"$log" 2>&1 || return 1
           objs+=("$mods/$(basename "$f" .c).o") ;;
      *) fsrc+=("$f") ;;
    esac
  done
  local -a flags=("${test_fflags[@]}" -w -I"$gen" -I"$src" -I"$libdir/mod_$lang" -J"$mods")
  local -a libs=("$libdir/libmtest_$lang.a" "$libdir/libmtest.a" -lm)
  "$MPIFC" "${flags[@]}" -o "$bin" "${fsrc[@]}" "${objs[@]}" "${libs[@]}" >>"$log" 2>&1 && return 0
  local -a rev=()
  for ((f = ${#fsrc[@]} - 1; f >= 0; f--)); do rev+=("${fsrc[f]}"); done
  "$MPIFC" "${flags[@]}" -o "$bin" "${rev[@]}" "${objs[@]}" "${libs[@]}" >>"$log" 2>&1 && return 0
  rm -f "$bin"
  return 1
}

# build_prog DIR PROG: compile one program as Makefile.am says; status 0
# when built.
build_prog() {
  local d=$1 p=$2 src=$testdir/$1 out=$work/build/$1
  local vars=$out/make.vars bin=$out/$2 log=$out/$2.log canon w
  local -a srcs=() cpp=() cfl=() lda=() words
  local mtest=$libdir/libmtest.a lang=c ext=c
  case $d in
    threads/*) mtest=$libdir/libmtest_thread.a ;;
    f77|f77/*) lang=f77 ext=f ;;
    f90|f90/*) lang=f90 ext=f90 ;;
    f08|f08/*) lang=f08 ext=f90 ;;
  esac
  [ "$stale" = 0 ] && [ -x "$bin" ] && return 0
  rm -f "$bin"
  canon=${p//[^A-Za-z0-9_]/_}
  read -ra words <<<"$(mvar "$vars" "${canon}_SOURCES")"
  [ ${#words[@]} -gt 0 ] || words=("$p.$ext")
  for w in "${words[@]}"; do
    case $lang:$w in
      *:*.c) srcs+=("$src/$w") ;;
      *:*.h) ;;
      f*:*.f|f*:*.F|f*:*.f90|f*:*.F90) srcs+=("$src/$w") ;;
      *) echo "not built: source $w is not C" >"$log"; return 1 ;;
    esac
  done
  for w in "${srcs[@]}"; do
    [ -f "$w" ] || { echo "not built: no source $w" >"$log"; return 1; }
  done
  if [ "$lang" != c ]; then
    build_fortran "$d" "$p" "$lang" "$log" "${srcs[@]}"
    return
  fi
  # Flags: keep -D/-I/-U/-l/-L/-W/-f/-O/-g words; automake's $(...), @...@
  # and .la libraries are our own libs, linked to every program.
  read -ra words <<<"$(mvar "$vars" "${canon}_CPPFLAGS") $(mvar "$vars" AM_CPPFLAGS)"
  for w in "${words[@]}"; do case $w in -D*|-U*) cpp+=("$w") ;; esac; done
  read -ra words <<<"$(mvar "$vars" "${canon}_CFLAGS")"
  for w in "${words[@]}"; do case $w in -[DUWfOg]*) cfl+=("$w") ;; esac; done
  read -ra words <<<"$(mvar "$vars" "${canon}_LDADD") $(mvar "$vars" "${canon}_LDFLAGS")"
  for w in "${words[@]}"; do case $w in -l*|-L*) lda+=("$w") ;; esac; done
  if "$MPICC" "${test_cflags[@]}" -w "${cfl[@]}" "${cpp[@]}" "${incs[@]}" -I"$src" \
    -o "$bin" "${srcs[@]}" -Wl,--start-group "$mtest" "$libdir/libdtypes.a" \
    "$libdir/libdtpools.a" -Wl,--end-group "${lda[@]}" -lm -lpthread >"$log" 2>&1; then
    return 0
  fi
  rm -f "$bin"
  return 1
}

# ------------------------------------------------------------------ running
# judge LOG RC ELAPSED LIMIT RESULTTEST: prints "pass" or the reasons of a
# failure joined by "+" (timeout, exit=N, no-NoErrors, output=N lines).
judge() {
  awk -v rc="$2" -v t="$3" -v lim="$4" -v rt="$5" '
    /FORTRAN STOP/ { next }
    {
      if ($0 ~ /^[[:space:]]*No [Ee]rrors[[:space:]]*$/ && !noerr) { noerr = 1; next }
      if ($0 ~ /^[[:space:]]*Test Passed[[:space:]]*$/ ||
          $0 ~ /requesting checkpoint[[:space:]]*$/ || $0 ~ /checkpoint completed[[:space:]]*$/) next
      other++
    }
    END {
      r = ""
      if (rt == "TestStatus" || rt == "TestErrFatal" || rt == "TestStatusNoErrors") {
        # the test must end with a non-zero status (MPIEXEC_TIMEOUT may be
        # what ends it: only our outer limit counts as a timeout)
        if (t + 0 >= lim + 30) r = r "+timeout"
        else if (rc == 0) r = r "+exit=0(wanted-nonzero)"
        if (rt == "TestStatusNoErrors") {
          if (!noerr) r = r "+no-NoErrors"
          if (other) r = r "+output=" other
        }
      } else {
        if (t + 0 >= lim + 0) r = r "+timeout"
        if (rc != 0) r = r "+exit=" rc
        if (!noerr) r = r "+no-NoErrors"
        if (other) r = r "+output=" other
      }
      print r == "" ? "pass" : substr(r, 2)
    }
  ' "$1"
}

# report_kind FOLDER MODE: final, off, nothing-intercepted, partial, none.
# Final: the mode's own report (predict: report.* with status FINAL,
# compensate: compensate.*, sample: sample.txt).
report_kind() {
  local d=$1 s
  case $2 in
    compensate) if [ -s "$d/compensate.csv" ] || [ -s "$d/compensate.txt" ]; then echo final; return; fi ;;
    sample) if [ -s "$d/sample.txt" ]; then echo final; return; fi ;;
  esac
  if [ -s "$d/report.csv" ]; then
    # the status field, unquoted: "FINAL, INCOMPLETE" (calls not
    # predicted, named in the report) is a final report too
    s=$(awk '/^status,/ { sub(/^status,[^,]*,"?/, ""); sub(/[",].*$/, ""); print; exit }' "$d/report.csv")
    case $s in
      FINAL) [ "$2" = predict ] && echo final || echo "report.csv($s)" ;;
      OFF*) echo off ;;
      NOTHING*) echo nothing-intercepted ;;
      *) echo "status:${s:-?}" | tr ' ,' '__' ;;
    esac
  elif [ "$2" != sample ] && [ -s "$d/report.txt" ]; then echo final
  elif compgen -G "$d/*partial*" >/dev/null; then echo partial
  else echo none
  fi
}

# run_one DIR ID PROG NP ARGS ENVS MX LIMIT RT MODE: one run; prints
# "status seconds report". Its folder and log are named MODE$run_tag
# (run_tag: "" for a first run, ".rerun" for a quiet rerun).
run_tag=
run_one() {
  local d=$1 id=$2 p=$3 np=$4 limit=$8 rt=$9 mode=${10}
  local base=$work/runs/$1/$2 rc=0 t0 t1 el st rep pid
  local -a args envs mx pre=()
  read -ra args <<<"$5"
  read -ra envs <<<"$6"
  read -ra mx <<<"$7"
  local cwd=$base/$mode$run_tag log=$base/$mode$run_tag.log
  rm -rf "$cwd" && mkdir -p "$cwd"
  envs+=("MPIEXEC_TIMEOUT=$limit")
  # Open MPI: more ranks than cores, as root (CI), and its own -x
  [ "$mpi" = mpich ] || pre=(--oversubscribe)
  [ "$mpi" = mpich ] || envs+=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
  if [ "$mode" = native ]; then
    envs=(-u LD_PRELOAD "${envs[@]}")
  else
    if [ "$mpi" = openmpi ]; then pre+=(-x "LD_PRELOAD=$lib")
    else pre=(-genv LD_PRELOAD "$lib"); fi
    envs+=("REVPROF_MODE=$mode" "REVPROF_MODEL=$model" REVPROF_QUIET=1
      "REVPROF_OUTPUT_DIR=$cwd/revprof-out")
    [ "$mode" != sample ] || envs+=("REVPROF_SAMPLE=$sample_spec")
  fi
  t0=$EPOCHREALTIME
  (cd "$cwd" && exec env "${envs[@]}" timeout -k 10 $((limit + 30)) \
    "$MPIEXEC" "${pre[@]}" -n "$np" "${mx[@]}" "$work/build/$d/$p" "${args[@]}") \
    </dev/null >"$log" 2>&1 &
  pid=$!
  echo "$pid" >"$work/running/$pid.pid"
  wait "$pid" || rc=$?
  rm -f "$work/running/$pid.pid"
  t1=$EPOCHREALTIME
  el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  st=$(judge "$log" "$rc" "$el" "$limit" "$rt")
  rep=-
  [ "$mode" = native ] || rep=$(report_kind "$cwd/revprof-out" "$mode")
  echo "$st $el $rep"
}

# revprof_limit NATIVE_SECONDS: a revprof run's limit, max(3 x native,
# --timeout-min) seconds
revprof_limit() {
  awk -v t="$1" -v m="$timeout_min" 'BEGIN { l = int(3 * t + 0.999); print (l > m ? l : m) }'
}

# run_test LINE INDEX TOTAL: all modes of one test; writes its result line
# dir|id|prog|np|args|envs|native|native_s, then MODE|MODE_s|MODE_rep for
# each of all_rp_modes (-|-|- when not run)
run_test() {
  local d id p np args envs mx tl rt skip
  IFS='|' read -r d id p np args envs mx tl rt skip <<<"$1"
  local base=$work/runs/$d/$id limit st el rep line prog_line m s2 e2 r2
  rm -rf "$base" && mkdir -p "$base"
  limit=${tl:-$native_timeout}
  read -r st el rep < <(run_one "$d" "$id" "$p" "$np" "$args" "$envs" "$mx" "$limit" "$rt" native)
  line="$d|$id|$p|$np|$args|$envs|$st|$el"
  prog_line="native $st ${el}s"
  for m in "${all_rp_modes[@]}"; do
    if [ "$st" = pass ] && [[ " ${rp_modes[*]} " == *" $m "* ]]; then
      limit=$(revprof_limit "$el")
      read -r s2 e2 r2 < <(run_one "$d" "$id" "$p" "$np" "$args" "$envs" "$mx" "$limit" "$rt" "$m")
      line+="|$s2|$e2|$r2"
      prog_line+=" | $m $s2 ${e2}s report=$r2"
    else
      line+="|-|-|-"
    fi
  done
  echo "$line" >"$base/result"
  echo "[$2/$3] $d/$id: $prog_line" >&2
}

# Run CMD... in the background, at most $jobs at a time.
throttle() {
  while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  [ "$interrupted" = 1 ] && return 0
  "$@" &
}

# ===================================================================== main
start=$EPOCHSECONDS
write_config
# A stamp of what the programs were built from: a different suite,
# compiler, flags or generated headers rebuild everything.
stamp_now="$testdir|$MPICC|${test_cflags[*]}|$(command -v "$MPICC")|$(cat "$gen"/include/*.h "$gen"/dtpools/*.h | cksum)"
stale=$rebuild
if [ "$(cat "$work/build/stamp" 2>/dev/null || true)" != "$stamp_now" ]; then stale=1; fi
note "suite $testdir (MPI $mpi_version), work $work, dirs ${dir_list[*]}, modes native ${rp_modes[*]}, max np $max_np, jobs $jobs"
[ "$report_only" = 1 ] || { build_libs; build_flibs; }

# Parse and build every directory.
all_tests=$work/tests.txt
: >"$all_tests"
for d in "${dir_list[@]}"; do
  src=$testdir/$d out=$work/build/$d
  mkdir -p "$out"
  list=$src/testlist
  [ -f "$list" ] || list=$src/testlist.in
  [ -f "$list" ] || { note "$d: no testlist or testlist.in; skipped"; continue; }
  if [ -f "$src/Makefile.am" ]; then parse_makefile "$src/Makefile.am" >"$out/make.vars"
  else : >"$out/make.vars"; fi
  parse_testlist "$list" "$d" >"$out/tests"
  # every program to build once
  mapfile -t progs < <(awk -F'|' '$9 == "" { print $2 }' "$out/tests" | sort -u)
  if [ "$report_only" = 0 ]; then
    for p in "${progs[@]}"; do throttle build_prog "$d" "$p"; done
  fi
  wait
  nb=0 nf=0
  for p in "${progs[@]}"; do
    if [ -x "$out/$p" ]; then nb=$((nb + 1)); else nf=$((nf + 1)); fi
  done
  note "$d: $(wc -l <"$out/tests") tests listed, ${#progs[@]} programs to build: $nb built, $nf not built"
  awk -F'|' -v OFS='|' -v d="$d" '{ print d, $0 }' "$out/tests" >>"$all_tests"
done
[ "$report_only" = 1 ] || echo "$stamp_now" >"$work/build/stamp"

# Run every built test (all its modes), at most $jobs tests at a time.
mapfile -t runnable < <(awk -F'|' '$10 == ""' "$all_tests" | while IFS='|' read -r d id p rest; do
  [ -x "$work/build/$d/$p" ] && echo "$d|$id|$p|$rest"
done)
total=${#runnable[@]}
[ "$report_only" = 1 ] ||
  note "running $total tests (native${rp_modes[*]:+, then ${rp_modes[*]} when native passes})"
if [ "$resume" = 0 ]; then # no result of an earlier run may show as this run's
  for l in "${runnable[@]}"; do
    IFS='|' read -r d id _ <<<"$l"
    rm -f "$work/runs/$d/$id/result"
  done
fi
i=0 reused=0
for l in "${runnable[@]}"; do
  i=$((i + 1))
  [ "$interrupted" = 1 ] && break
  IFS='|' read -r d id _ <<<"$l"
  if [ "$report_only" = 1 ] || { [ "$resume" = 1 ] && [ -f "$work/runs/$d/$id/result" ]; }; then
    reused=$((reused + 1))
    continue
  fi
  throttle run_test "$l" "$i" "$total"
done
# (wait returns early when a trapped signal arrives: wait again)
while [ -n "$(jobs -pr)" ]; do wait || true; done

# rerun_test LINE: a test whose revprof run timed out, run again alone
# (nothing else runs by then): natively, then each mode that timed out,
# with the limit from the new native time. Its result's mode status becomes
# "pass-rerun", or the first status + "+alone:" + the rerun's (its "+" as
# "/"); WORK/reruns.txt gets a line per rerun with both attempts.
first_timeout() { [[ $1 == *timeout* && $1 != *alone:* ]]; } # not yet rerun
rerun_test() {
  local d id p np args envs mx tl rt skip
  IFS='|' read -r d id p np args envs mx tl rt skip <<<"$1"
  local res=$work/runs/$d/$id/result st el rep limit k=8 m s2 e2 r2 s0 e0 out
  local -a f
  IFS='|' read -ra f <"$res"
  [ "${f[6]}" = pass ] || return 0
  for m in "${all_rp_modes[@]}"; do
    first_timeout "${f[k]:-}" && break
    k=$((k + 3))
  done
  [ "$k" -lt $((8 + 3 * ${#all_rp_modes[@]})) ] || return 0
  run_tag=.rerun
  limit=${tl:-$native_timeout}
  read -r st el rep < <(run_one "$d" "$id" "$p" "$np" "$args" "$envs" "$mx" "$limit" "$rt" native)
  k=8
  for m in "${all_rp_modes[@]}"; do
    s0=${f[k]:--} e0=${f[k + 1]:--}
    if first_timeout "$s0"; then
      if [ "$st" = pass ]; then
        limit=$(revprof_limit "$el")
        read -r s2 e2 r2 < <(run_one "$d" "$id" "$p" "$np" "$args" "$envs" "$mx" "$limit" "$rt" "$m")
      else
        s2="native-$st" e2=$el r2=${f[k + 2]:--}
      fi
      if [ "$s2" = pass ]; then out=pass-rerun; else out="$s0+alone:${s2//+//}"; fi
      f[k]=$out f[k + 1]=$e2 f[k + 2]=$r2
      echo "$d/$id $m: first $s0 ${e0}s (native ${f[7]}s); alone: native $st ${el}s, $m $s2 ${e2}s report=$r2" \
        >>"$work/reruns.txt"
      echo "rerun $d/$id: native $st ${el}s | $m $s2 ${e2}s report=$r2" >&2
    fi
    k=$((k + 3))
  done
  run_tag=
  (IFS='|'; echo "${f[*]}") >"$res"
}
if [ "$rerun" = 1 ] && [ "$report_only" = 0 ] && [ "$interrupted" = 0 ] && [ ${#rp_modes[@]} -gt 0 ]; then
  [ "$resume" = 1 ] || : >"$work/reruns.txt" # --resume keeps the earlier ones
  for l in "${runnable[@]}"; do
    [ "$interrupted" = 1 ] && break
    IFS='|' read -r d id _ <<<"$l"
    [ -f "$work/runs/$d/$id/result" ] && rerun_test "$l"
  done
fi
[ "$reused" = 0 ] || [ "$report_only" = 1 ] || note "--resume: kept the results of $reused tests from an earlier run"

# ------------------------------------------------------------------ results
# rows: dir|id|prog|np|args|envs|skip|built|native|native_s, then
#       MODE|MODE_s|MODE_rep for each of all_rp_modes
rows=$work/rows.txt
not_run=0
rp_dashes=$(printf -- '|-|-|-%.0s' "${all_rp_modes[@]}") # a row's revprof fields, not run
while IFS='|' read -r d id p np args envs mx tl rt skip; do
  if [ -n "$skip" ]; then
    echo "$d|$id|$p|$np|$args|$envs|$skip|-|-|-$rp_dashes"
  elif [ ! -x "$work/build/$d/$p" ]; then
    echo "$d|$id|$p|$np|$args|$envs||no|-|-$rp_dashes"
  elif [ -f "$work/runs/$d/$id/result" ]; then
    IFS='|' read -r _ _ _ _ _ _ res <"$work/runs/$d/$id/result"
    echo "$d|$id|$p|$np|$args|$envs||yes|$res"
  else
    echo "$d|$id|$p|$np|$args|$envs||yes|not-run|-$rp_dashes"
    not_run=$((not_run + 1))
  fi
done <"$all_tests" >"$rows"

awk -F'|' -v modes="${all_rp_modes[*]}" 'BEGIN {
    printf "dir,test,program,np,args,env,skipped,built,native,native_s"
    n = split(modes, ms, " ")
    for (k = 1; k <= n; k++) printf ",%s,%s_s,%s_report", ms[k], ms[k], ms[k]
    printf "\n"
  }
  { for (i = NF + 1; i <= 10 + 3 * n; i++) $i = "-" # a result of an older version: fewer modes
    for (i = 1; i <= NF; i++) { v = $i; if (v ~ /[, "]/) { gsub(/"/, "\"\"", v); v = "\"" v "\"" }
                                printf "%s%s", v, (i < NF ? "," : "\n") } }' "$rows" >"$work/results.csv"

# The table's mode columns: predict and compensate always ("-" when not
# run, as before sample mode existed), a later mode when it was asked for.
shown=()
for m in "${all_rp_modes[@]}"; do
  case " predict compensate ${rp_modes[*]} " in *" $m "*) shown+=("$m") ;; esac
done
awk -F'|' -v all="${all_rp_modes[*]}" -v shown="${shown[*]}" -v want=" ${rp_modes[*]} " \
  -v any="${#rp_modes[@]}" -v dirs="${dir_list[*]}" '
  BEGIN { na = split(all, am, " "); ns = split(shown, sm, " ") }
  { d = $1; listed[d]++
    if ($7 != "") { skipped[d]++; next }
    if ($8 == "no") { notbuilt[d]++; next }
    built[d]++
    if ($9 == "not-run") notrun[d]++
    if ($9 == "pass") nat[d]++
    for (k = 1; k <= na; k++) {            # MODE|MODE_s|MODE_rep from field 11
      if ($(8 + 3 * k) == "pass" || $(8 + 3 * k) == "pass-rerun") ok[am[k], d]++
      if ($(8 + 3 * k) == "pass-rerun") rr[am[k]]++
      if ($(10 + 3 * k) == "none") nr[d]++
    } }
  # row(NAME, A..G, V, J): V[1..ns] are the shown modes cells
  function row(name, a, b, e, f, g, v, j,   k) {
    printf "%-10s %7s %8s %10s %6s %7s", name, a, b, e, f, g
    for (k = 1; k <= ns; k++) printf " %" (length(sm[k]) + 1) "s", v[k]
    printf " %10s\n", j }
  # cell[1..ns]: the shown modes passes in folder D ("" for the total), "-"
  # when not run
  function passes(d,   k, m) {
    for (k = 1; k <= ns; k++) {
      m = sm[k]
      cell[k] = index(want, " " m " ") ? (d == "" ? tot[m] : ok[m, d]) + 0 : "-"
    } }
  END {
    for (k = 1; k <= ns; k++) head[k] = sm[k]
    row("dir", "listed", "skipped", "not built", "built", "native", head, "no report")
    n = split(dirs, ds, " ")
    for (i = 1; i <= n; i++) {
      d = ds[i]
      passes(d)
      row(d, listed[d] + 0, skipped[d] + 0, notbuilt[d] + 0, built[d] + 0, nat[d] + 0, cell,
          any ? nr[d] + 0 : "-")
      L += listed[d]; S += skipped[d]; NB += notbuilt[d]; B += built[d]; N += nat[d]
      R += nr[d]; U += notrun[d]
      for (k = 1; k <= ns; k++) tot[sm[k]] += ok[sm[k], d]
      if (notrun[d]) nrl = nrl " " d " " notrun[d]
    }
    passes("")
    row("total", L + 0, S + 0, NB + 0, B + 0, N + 0, cell, any ? R + 0 : "-")
    if (U) printf "built but not run (interrupted, or --report of a partial run):%s\n", nrl
    for (k = 1; k <= ns; k++) if (rr[sm[k]]) rrl = rrl " " sm[k] " " rr[sm[k]]
    if (rrl != "") printf "of those passes, after a timeout, when run again alone (WORK/reruns.txt):%s\n", rrl
  }' "$rows" >"$work/summary.txt"

# Tests that pass natively and fail (or leave no report) under revprof.
fails=$work/failures.txt
: >"$fails"
nfail=0
while IFS='|' read -ra f; do
  [ "${f[8]}" = pass ] || continue
  d=${f[0]} id=${f[1]} p=${f[2]} np=${f[3]} args=${f[4]} envs=${f[5]} nat_s=${f[9]} k=10
  for m in "${all_rp_modes[@]}"; do
    st=${f[k]:--} el=${f[k + 1]:--} rep=${f[k + 2]:--} # (a result of an older version: fewer modes)
    k=$((k + 3))
    [ "$st" = - ] && continue
    case $st in pass|pass-rerun) [ "$rep" != none ] && continue ;; esac
    nfail=$((nfail + 1))
    log=$work/runs/$d/$id/$m.log
    {
      echo "$d/$id ($p, np $np${args:+, args $args}${envs:+, env $envs}) $m: $st, ${el}s (native ${nat_s}s), report $rep"
      echo "  log: $log"
      if [ -s "$log" ]; then head -n 20 "$log" | cut -c1-300 | sed 's/^/  | /'
      else echo "  | (no output)"; fi
    } >>"$fails"
  done
done <"$rows"
awk -F'|' '$8 == "yes" && $9 != "pass" && $9 != "not-run" { print $1 "/" $2 ": native " $9 " (" $10 "s)" }' \
  "$rows" >"$work/native-failures.txt"
awk -F'|' '$8 == "no" { print $1 "/" $2 ": not built, see build/" $1 "/" $3 ".log" }' \
  "$rows" >"$work/not-built.txt"

if [ "$not_run" -gt 0 ]; then
  note "$not_run built tests have no result (not run, or interrupted); --resume runs them"
fi
echo "MPICH test suite $testdir under revprof (MPI $mpi_version; max np $max_np;" \
  "revprof limit max(3 x native, ${timeout_min}s); $((EPOCHSECONDS - start)) s)"
sample_note=
[[ " ${rp_modes[*]} " != *" sample "* ]] || sample_note="; REVPROF_SAMPLE=$sample_spec"
echo "library: ${lib:-(none)}; model: ${model}$sample_note"
echo
cat "$work/summary.txt"
echo
both=all
[ ${#shown[@]} -ne 2 ] || both=both
echo "$(IFS=/; echo "${shown[*]}"): tests passing natively that also pass in that mode;"
echo "no report: revprof runs ($both modes) that left no report in REVPROF_OUTPUT_DIR."
echo "native failures: $work/native-failures.txt ($(wc -l <"$work/native-failures.txt"));" \
  "not built: $work/not-built.txt ($(wc -l <"$work/not-built.txt"))"
echo
if [ "$nfail" -eq 0 ]; then
  echo "no test that passes natively fails under revprof"
else
  echo "$nfail revprof runs of tests that pass natively failed or left no report" \
    "(first lines; 20 lines each in $fails):"
  awk '/^  log: / { next } /^  \| / { if (++k <= 4) print; next } { k = 0; print }' "$fails"
fi
echo
echo "results: $work/results.csv, logs: $work/runs/DIR/TEST/MODE.log"
[ "$interrupted" = 0 ] || exit 130
