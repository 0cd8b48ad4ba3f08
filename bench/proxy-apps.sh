#!/bin/bash
# Real proxy applications under revprof (issue 8). Given the source folders
# of public proxy apps (fetched beforehand, never by this script), it builds
# each one out of tree with the MPI wrappers of the chosen MPI, runs it
# natively and under `revprof run`, checks the app's own verification in
# every run, and prints a table: app, ranks, native median, predicted
# avg [min, max], error, inside the interval, calls intercepted.
# Asserts nothing: a failing app is a row of the table, not an exit status.
# See docs/proxy-apps.md for the sources, sizes and figures.
set -u

usage() {
  cat <<'EOF'
usage: bench/proxy-apps.sh [OPTIONS] APPDIR...

Builds each proxy app found in APPDIR (its source folder, as fetched from
its repository), runs it natively RUNS times and under `revprof run` RUNS
times per rank count, checks the app's own verification in every run, and
prints a table. The kind of app is recognised from the folder's files; force
it with KIND=DIR. Kinds and what they need:
  lulesh      LLNL/LULESH          (cube rank counts: 1, 8, 27)
  hpccg       Mantevo/HPCCG
  minife      Mantevo/miniFE       (uses ref/)
  amg         LLNL/AMG
  npb-cg      NPB 3.4 MPI, CG, Fortran (power-of-two ranks)
  npb-mg      NPB 3.4 MPI, MG, Fortran (power-of-two ranks)
  npb-lu      NPB 3.4 MPI, LU, Fortran: a pipelined wavefront of small
              messages (power-of-two ranks)
  npb-ft      NPB 3.4 MPI, FT, Fortran: 3-D FFTs by MPI_Alltoall
              (power-of-two ranks)
  npb-is      NPB 3.4 MPI, IS, C: bucket sort by MPI_Alltoallv
              (power-of-two ranks)
  npb-bt      NPB 3.4 MPI, BT, Fortran: multi-partition ADI, Isend/Irecv/
              Waitall on split communicators (square rank counts: 1, 4, 9)
  npb-sp      NPB 3.4 MPI, SP, Fortran: the same scheme (square rank counts)
  comd        ECP-copa/CoMD        (uses src-mpi/)
  miniamr     Mantevo/miniAMR      (uses ref/)
  cloverleaf  UK-MAC/CloverLeaf_ref, Fortran 90 with "USE MPI" (any ranks)
A folder holding NPB gives npb-cg; write npb-mg=DIR (npb-lu=, npb-ft=,
npb-is=, npb-bt=, npb-sp=) for the other kernels.

options:
  --build DIR     revprof build folder (default: build-openmpi, or build-mpich
                  with --mpi mpich); its tools/revprof is used
  --mpi NAME      openmpi or mpich (default: the build's REVPROF_MPI, else
                  openmpi; one that differs from the build's is refused):
                  the wrappers mpicc.NAME, mpicxx.NAME, mpif90.NAME and
                  mpiexec.NAME
  --model FILE    machine model (default models/machines/debian12-2core-openmpi.lua)
  --runs N        runs of each kind per app and rank count (default 3); the
                  table shows medians
  --np LIST       rank counts, comma-separated (default 1,2,4); an app skips a
                  count it cannot use, and runs at 8 when it can use none
                  above 1 (LULESH: cubes). Counts above the cores are marked
                  "over" (oversubscribed)
  --mode LIST     predict, compensate, sample and/or bounded, comma-
                  separated (default predict,compensate); one table per
                  mode
  --monitor K     every revprof run with online monitoring: K tool ranks
                  beside the app's (revprof run --monitor K; default 0, none);
                  the app's verification then shows that it saw its own world
  --work DIR      scratch folder for builds, outputs and logs (default: a new
                  folder under /tmp, kept and printed at the end)
  --rebuild       build again even if the scratch folder has the binary
  --size NAME     small (default: ~1-10 s natively at 2 ranks on a 2-core VM)
                  or tiny (quick check of the plumbing, < 1 s each)
  -j N            make -j N (default 2)
  -h, --help      this text

Native time: the elapsed time from the end of MPI_Init to the start of
MPI_Finalize, the latest over the ranks, measured by a PMPI shim
(bench/proxy/span.c) preloaded into the native run: the same span as the
report's predicted elapsed time; (cpu): the CPU time of the busiest rank in
that span (well below the native time: the machine was busy with others, or
ranks waited). Predicted: report.csv's elapsed row (avg
[min, max]) of a `revprof run --model M -np P --compute measure` run
(predict mode). Error: (predicted avg - native) / native. In: native inside
[min, max]. Calls: MPI calls intercepted (sum of report.csv's function rows).
Verify: the app's own check in the native and the revprof runs, then
whether both runs computed the same answer (figure the app prints).
Compensate mode: REVPROF_MODE=compensate, the parallel-compensated elapsed
time of compensate.csv ((program) row, latest over the ranks) against the
native time, and the uncompensated one.
Sample mode (REVPROF_MODE=sample, revprof's default technique random:0.1
and analyses stat,freq): the wall time of the whole mpiexec against the
native one's (start-up and revprof's calibration included: sample mode
keeps MPI_Wtime real, so this is what it costs the app), the messages
sent and sampled (sample.txt) and the classes of latency.csv.
Bounded: compensate mode under REVPROF_MAX_OVERHEAD=5% (revprof run
--max-overhead 5%), the wall time against native's, the observed
instrumentation cost (cost.csv's total rows, largest over the ranks, % of
one CPU) and the regulation's decisions (cost.txt).
Exit status: 0 when the table was printed (even with failing apps), 2 for
usage errors.
EOF
}

here=$(cd "$(dirname "$0")/.." && pwd)
build= mpi=openmpi model=$here/models/machines/debian12-2core-openmpi.lua
mpi_given=0
runs=3 nplist=1,2,4 modes=predict,compensate work= rebuild=0 size=small jobs=2
monitor=0
apps=()
die() { echo "proxy-apps: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=${2:?}; shift ;;
    --mpi) mpi=${2:?}; mpi_given=1; shift ;;
    --model) model=${2:?}; shift ;;
    --runs) runs=${2:?}; shift ;;
    --np) nplist=${2:?}; shift ;;
    --mode) modes=${2:?}; shift ;;
    --work) work=${2:?}; shift ;;
    --monitor) monitor=${2:?}; shift ;;
    --rebuild) rebuild=1 ;;
    --size) size=${2:?}; shift ;;
    -j) jobs=${2:?}; shift ;;
    -j*) jobs=${1#-j} ;;
    -h|--help) usage; exit 0 ;;
    --) shift; apps+=("$@"); break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) apps+=("$1") ;;
  esac
  shift
done
[ ${#apps[@]} -gt 0 ] || die "no APPDIR given (see --help)"
case $mpi in openmpi|mpich) ;; *) die "--mpi $mpi: expected openmpi or mpich" ;; esac
case $runs in ''|*[!0-9]*|0) die "--runs $runs: expected a positive integer" ;; esac
case $jobs in ''|*[!0-9]*|0) die "-j $jobs: expected a positive integer" ;; esac
case $size in small|tiny) ;; *) die "--size $size: expected small or tiny" ;; esac
case $monitor in ''|*[!0-9]*) die "--monitor $monitor: expected a count of tool ranks" ;; esac
for p in ${nplist//,/ }; do
  case $p in ''|*[!0-9]*|0) die "--np $nplist: expected positive integers, comma-separated" ;; esac
done
for m in ${modes//,/ }; do
  case $m in predict|compensate|sample|bounded) ;; *) die "--mode $m: expected predict, compensate, sample or bounded" ;; esac
done
[ -n "$build" ] || build=$here/build-$mpi
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
# the MPI the build was configured for (REVPROF_MPI): --mpi defaults to
# it, and an --mpi that differs would build the applications for another
# MPI than librevprof's, so it is refused
built_mpi=$(sed -n 's/^REVPROF_MPI:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ -n "$built_mpi" ] && [ "$built_mpi" != "$mpi" ]; then
  [ "$mpi_given" = 1 ] && die "--mpi $mpi, but $build was configured with REVPROF_MPI=$built_mpi"
  mpi=$built_mpi
fi
case $model in /*) ;; *) model=$(pwd)/$model ;; esac
[ -r "$model" ] || die "--model $model: cannot read it"
revprof=$build/tools/revprof
[ -x "$revprof" ] || die "$revprof not built (cmake --build $build, or --build DIR)"
# bench/common.sh: the launcher the build found and Open MPI's root consent
MPIEXEC=${MPIEXEC:-}
set -- "$build"
. "$here/bench/common.sh"
MPICC=mpicc.$mpi MPICXX=mpicxx.$mpi MPIF90=mpif90.$mpi
[ "$mpi" = mpich ] && MPIEXEC=${MPIEXEC%.openmpi}
case $MPIEXEC in *openmpi*|*mpirun|*mpiexec) ;; esac
for w in $MPICC $MPICXX $MPIF90; do
  command -v "$w" >/dev/null || die "$w not found (install the $mpi development package)"
done
export REVPROF_MPIEXEC=$MPIEXEC
over_flag=
if [ "$mpi" = openmpi ]; then over_flag=--oversubscribe; fi
cores=$(nproc)

[ -n "$work" ] || work=$(mktemp -d /tmp/proxy-apps.XXXXXX)
mkdir -p "$work" || die "--work $work: cannot create it"
work=$(cd "$work" && pwd)
log=$work/log.txt
: >"$log"
note() { echo "$*" >>"$log"; }

# -------------------------------------------------------------- app kinds
# Each kind has: build_K SRC DIR (sets nothing; leaves the binary named in
# exe_K), args_K NP (prints the arguments; status 1: NP not usable), and
# check_K OUT (prints "ok ANSWER" or "FAIL why"; ANSWER: the figure both
# runs must agree on).
detect() { # detect DIR: prints the kind
  local d=$1
  if [ -f "$d/lulesh.cc" ]; then echo lulesh
  elif [ -f "$d/HPCCG.cpp" ]; then echo hpccg
  elif [ -f "$d/ref/src/main.cpp" ] && [ -d "$d/ref/fem" ]; then echo minife
  elif [ -f "$d/test/amg.c" ]; then echo amg
  elif [ -f "$d/CG/cg.f" ] && [ -f "$d/sys/setparams.c" ]; then echo npb-cg
  elif [ -f "$d/src-mpi/CoMD.c" ]; then echo comd
  elif [ -f "$d/ref/check_sum.c" ] && [ -f "$d/ref/stencil.c" ]; then echo miniamr
  elif [ -f "$d/clover_leaf.f90" ]; then echo cloverleaf
  else return 1
  fi
}

copy_src() { # copy_src SRC DEST: a private copy to build in (the source stays clean)
  rm -rf "$2" && mkdir -p "$2" && cp -R "$1/." "$2/"
}

# LULESH: build_lulesh, args_lulesh, check_lulesh in bench/common.sh
# (shared with bench/smpi-apps.sh).

# HPCCG: build_hpccg, args_hpccg, check_hpccg in bench/common.sh (shared
# with bench/sampling.sh).

# miniFE (ref): C++, implicit FE + CG. Verification: the residual of the
# final solution must be small; answer: the final residual norm.
exe_minife=miniFE.x
build_minife() {
  (cd "$1/ref/src" && make -j"$jobs" CXX="$MPICXX" CC="$MPICC" CFLAGS="-O3 -g" \
     >/dev/null && cp miniFE.x "$2/")
}
args_minife() {
  local n=60
  [ "$size" = tiny ] && n=20
  echo "-nx $n -ny $n -nz $n"
}
check_minife() {
  local y r
  y=$(ls -t "$(dirname "$1")"/miniFE.*.yaml 2>/dev/null | head -n 1)
  [ -n "$y" ] || { echo "FAIL no miniFE.*.yaml written"; return; }
  r=$(sed -n 's/^ *Final Resid Norm: *\([^ ]*\).*/\1/p' "$y" | tail -n 1)
  [ -n "$r" ] || { echo "FAIL no 'Final Resid Norm' in $(basename "$y")"; return; }
  awk -v r="$r" 'BEGIN { exit !(r + 0 < 1e-6) }' || { echo "FAIL residual $r"; return; }
  echo "ok $r"
}

# AMG (2017): C, without OpenMP. -problem 1, a 27-point Laplacian, -n per
# rank, -P the process grid. Verification: the final relative residual.
exe_amg=amg
build_amg() {
  (cd "$1" && make -j"$jobs" CC="$MPICC" \
     INCLUDE_CFLAGS="-O2 -g -DTIMER_USE_MPI -DHYPRE_USING_PERSISTENT_COMM -DHYPRE_BIGINT" \
     INCLUDE_LFLAGS="-lm" >/dev/null && cp test/amg "$2/")
}
args_amg() {
  local n=48 px=1 py=1 pz=1
  [ "$size" = tiny ] && n=12
  case $1 in 1) ;; 2) px=2; n=$((n * 4 / 5)) ;; 4) px=2 py=2; n=$((n * 3 / 5)) ;;
    8) px=2 py=2 pz=2; n=$((n / 2)) ;; *) return 1 ;; esac
  echo "-problem 1 -n $n $n $n -P $px $py $pz"
}
check_amg() {
  local r
  r=$(sed -n 's/.*Final Relative Residual Norm *= *\([^ ]*\).*/\1/p' "$1" | tail -n 1)
  [ -n "$r" ] || { echo "FAIL no 'Final Relative Residual Norm'"; return; }
  awk -v r="$r" 'BEGIN { exit !(r + 0 < 1e-6) }' || { echo "FAIL residual $r"; return; }
  echo "ok $r"
}

# NPB 3.4 MPI kernels (Fortran 77 + MPI): built by its own make with a
# make.def written here. Verification: its "Verification = SUCCESSFUL".
npb_class() { if [ "$size" = tiny ]; then echo S; else echo "$1"; fi; }
npb_build() { # npb_build SRC DEST kernel class
  cat >"$1/config/make.def" <<EOF
MPIFC = $MPIF90
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = -O2 -g -fallow-argument-mismatch -fallow-invalid-boz
FLINKFLAGS = \$(FFLAGS)
MPICC = $MPICC
CLINK = \$(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = -O2 -g
CLINKFLAGS = \$(CFLAGS)
CC = gcc -g
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=1
RAND = randi8
EOF
  local k=$3
  (cd "$1" && mkdir -p bin && make "$k" CLASS="$4" >/dev/null && cp "bin/$k.$4.x" "$2/npb-$k.$4")
}
npb_args() { # power-of-two ranks
  local p=1
  while [ $p -lt "$1" ]; do p=$((p * 2)); done
  [ $p -eq "$1" ] || return 1
  echo ""
}
npb_check() {
  grep -q 'Verification *= *SUCCESSFUL' "$1" || { echo "FAIL no 'Verification = SUCCESSFUL'"; return; }
  local z
  z=$(sed -n 's/.*Zeta is *\([^ ]*\).*/\1/p; s/.*L2 Norm is *\([^ ]*\).*/\1/p' "$1" | tail -n 1)
  echo "ok ${z:-SUCCESSFUL}"
}
npb_square() { # square rank counts (BT, SP)
  local q=1
  while [ $((q * q)) -lt "$1" ]; do q=$((q + 1)); done
  [ $((q * q)) -eq "$1" ] || return 1
  echo ""
}
# npb_kind KERNEL CLASS RANKS: kind npb-KERNEL (exe_, build_, args_ and
# check_npb_KERNEL), built at CLASS (S with --size tiny), its rank counts
# told by the function RANKS
npb_kind() {
  eval "exe_npb_$1=npb-$1.\$(npb_class $2)
build_npb_$1() { npb_build \"\$1\" \"\$2\" $1 \"\$(npb_class $2)\"; }
args_npb_$1() { $3 \"\$1\"; }
check_npb_$1() { npb_check \"\$1\"; }"
}
npb_kind cg A npb_args
npb_kind mg A npb_args
npb_kind lu W npb_args
npb_kind ft A npb_args
npb_kind is A npb_args
npb_kind bt W npb_square
npb_kind sp W npb_square

# CoMD (src-mpi): C, molecular dynamics, Lennard-Jones. -i -j -k the rank
# grid. Its own "Simulation Validation": energy conserved (relative drift
# < 1e-4) and no atoms lost; answer: the final energy and the atom count.
exe_comd=CoMD-mpi
build_comd() {
  (cd "$1/src-mpi" && cp Makefile.vanilla Makefile && mkdir -p ../bin &&
   make CC="$MPICC" OPTFLAGS="-g -O2" >/dev/null && cp ../bin/CoMD-mpi "$2/")
}
args_comd() {
  local n=16 s=100 i=1 j=1 k=1
  [ "$size" = tiny ] && n=12 s=10
  case $1 in 1) ;; 2) i=2 ;; 4) i=2 j=2 ;; 8) i=2 j=2 k=2 ;; *) return 1 ;; esac
  echo "-x $n -y $n -z $n -i $i -j $j -k $k -N $s -n 10"
}
check_comd() {
  local e0 e1 a
  e0=$(sed -n 's/^ *Initial energy *: *\([^ ]*\).*/\1/p' "$1" | tail -n 1)
  e1=$(sed -n 's/^ *Final energy *: *\([^ ]*\).*/\1/p' "$1" | tail -n 1)
  a=$(sed -n 's/^ *Final atom count *: *\([0-9]*\).*/\1/p' "$1" | tail -n 1)
  [ -n "$e0" ] && [ -n "$e1" ] && [ -n "$a" ] || { echo "FAIL no 'Simulation Validation' block"; return; }
  grep -q 'no atoms lost' "$1" || { echo "FAIL atoms lost: $(grep -m1 'Final atom count' "$1")"; return; }
  awk -v a="$e0" -v b="$e1" 'BEGIN { d = (b - a) / a; exit !(d < 1e-4 && d > -1e-4) }' ||
    { echo "FAIL energy not conserved: $e0 -> $e1"; return; }
  echo "ok E=$e1,atoms=$a"
}

# miniAMR (ref): C, adaptive mesh refinement, many small messages. It checks
# its checksums every 5 stages itself ("difference too large" when one
# diverges); answer: the blocks per step and the most blocks of the Summary.
exe_miniamr=miniAMR.x
build_miniamr() {
  (cd "$1/ref" && make -j"$jobs" CC="$MPICC" LD="$MPICC" CFLAGS="-O2 -g" >/dev/null &&
   cp miniAMR.x "$2/")
}
args_miniamr() {
  local px=1 py=1 pz=1 t=10 nr=2
  [ "$size" = tiny ] && t=4 nr=1
  case $1 in 1) ;; 2) px=2 ;; 4) px=2 py=2 ;; 8) px=2 py=2 pz=2 ;; *) return 1 ;; esac
  echo "--npx $px --npy $py --npz $pz --nx 8 --ny 8 --nz 8 --init_x 1 --init_y 1 --init_z 1" \
       "--num_refine $nr --max_blocks 400 --num_tsteps $t --stages_per_ts 10 --checksum_freq 5" \
       "--num_objects 1 --object 2 0 -0.50 -0.50 -0.50 0.030 0.030 0.030 1.5 1.5 1.5 0.0 0.0 0.0"
}
check_miniamr() {
  grep -q 'difference too large' "$1" && { echo "FAIL $(grep -m1 'difference too large' "$1")"; return; }
  local sm
  sm=$(grep -m1 '^Summary:' "$1")
  [ -n "$sm" ] || { echo "FAIL no 'Summary:' (the run did not finish)"; return; }
  echo "ok $(echo "$sm" | sed -n 's/.*\(blocks\/ts [^ ]* max_blocks [^ ]*\).*/\1/p' | tr ' ' '_')"
}

# CloverLeaf (ref): Fortran 90 (USE MPI), 2-D hydrodynamics, halo
# exchanges by MPI_Isend/MPI_Irecv/MPI_Waitall and reductions, any rank
# count. It reads clover.in from the folder it runs in (prep_cloverleaf
# writes it) and writes clover.out there; its own "test problem" check
# holds only for the benchmark decks, so the answer is the last field
# summary (step, then volume, mass, density, pressure, internal, kinetic
# and total energy), which must be the deck's last step and finite.
exe_cloverleaf=clover_leaf
build_cloverleaf() {
  (cd "$1" && make COMPILER=GNU MPI_COMPILER="$MPIF90" C_MPI_COMPILER="$MPICC" \
     OMP_GNU= FLAGS_GNU="-O2 -g" CFLAGS_GNU="-O2 -g" >/dev/null && cp clover_leaf "$2/")
}
clover_steps() { if [ "$size" = tiny ]; then echo 20; else echo 100; fi; }
args_cloverleaf() { echo ""; }
prep_cloverleaf() { # prep_cloverleaf RUNDIR NP
  local n=480
  [ "$size" = tiny ] && n=120
  cat >"$1/clover.in" <<EOF
*clover
 state 1 density=0.2 energy=1.0
 state 2 density=1.0 energy=2.5 geometry=rectangle xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0
 x_cells=$n
 y_cells=$n
 xmin=0.0
 ymin=0.0
 xmax=10.0
 ymax=10.0
 initial_timestep=0.04
 timestep_rise=1.5
 max_timestep=0.04
 end_step=$(clover_steps)
*endclover
EOF
}
check_cloverleaf() {
  local f l
  f=$(dirname "$1")/clover.out
  [ -f "$f" ] || { echo "FAIL no clover.out written"; return; }
  l=$(grep '^ step:' "$f" | tail -n 1)
  [ -n "$l" ] || { echo "FAIL no field summary in clover.out"; return; }
  echo "$l" | awk -v n="$(clover_steps)" '{ if ($2 != n) exit 1; for (i = 3; i <= 9; i++) if ($i !~ /^[0-9.E+-]+$/) exit 1 }' ||
    { echo "FAIL last summary: $l"; return; }
  echo "ok $(echo "$l" | awk '{ print "ie=" $7 ",ke=" $8 }')"
}

# -------------------------------------------------------------- helpers

# the shim that measures the native span
span=$work/span-$mpi.so
if [ ! -f "$span" ] || [ "$rebuild" = 1 ] || [ "$here/bench/proxy/span.c" -nt "$span" ]; then
  $MPICC -O2 -fPIC -c "$here/bench/proxy/span.c" -o "$work/span.o" &&
    $MPIF90 -shared -o "$span" "$work/span.o" >>"$log" 2>&1 ||
    die "cannot build the native-span shim $span (see $log)"
fi

# launch NP LABEL DIR CMD...: runs CMD with its output in DIR/LABEL.out,
# in DIR (the apps write files into the current folder). Prints the status.
run_native() { # run_native NP OUT BIN ARGS...
  local np=$1 out=$2; shift 2
  # shellcheck disable=SC2086
  timeout 600 "$MPIEXEC" $over_flag -n "$np" env LD_PRELOAD="$span" "$@" >"$out" 2>&1
}
run_revprof() { # run_revprof MODE NP OUT RPDIR BIN ARGS...
  local mode=$1 np=$2 out=$3 rp=$4 bound=; shift 4
  rm -rf "$rp"
  [ "$mode" = bounded ] && mode=compensate bound="--max-overhead 5%"
  # shellcheck disable=SC2086
  REVPROF_MODE=$mode timeout 600 "$revprof" run --model "$model" -np "$np" \
    --compute measure --monitor "$monitor" $bound -o "$rp" -- "$@" >"$out" 2>&1
}
# seconds since the epoch, to the nanosecond (wall time around a run)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", b - a }'; }
# what a failed run said: the status, a signal, the first error-ish line
why() { # why STATUS OUT
  local s=$1 l
  l=$(grep -m1 -i 'segmentation\|error\|abort\|revprof:.*\(warn\|fault\|off\)' "$2" | sed 's/^\[[^]]*\] //' | cut -c1-120)
  if [ "$s" = 124 ]; then echo "timed out (600 s)"
  elif [ "$s" -gt 128 ]; then echo "status $s (signal $((s - 128))) ${l}"
  else echo "status $s ${l}"
  fi
}

# -------------------------------------------------------------- build
declare -a kind dir bin
for a in "${apps[@]}"; do
  case $a in
    *=*) k=${a%%=*} d=${a#*=} ;;
    *) d=$a; k=$(detect "$d") || die "$d: not a known proxy app (see --help; force with KIND=DIR)" ;;
  esac
  [ -d "$d" ] || die "$d: no such folder"
  case $k in lulesh|hpccg|minife|amg|npb-cg|npb-mg|npb-lu|npb-ft|npb-is|npb-bt|npb-sp|comd|miniamr|cloverleaf) ;; *) die "unknown kind $k" ;; esac
  kk=${k//-/_}
  d=$(cd "$d" && pwd)
  b=$work/$mpi/$k
  mkdir -p "$b"
  if [ "$rebuild" = 1 ] || [ ! -x "$b/$(eval echo "\$exe_$kk")" ]; then
    echo "building $k from $d ..." >&2
    copy_src "$d" "$b/src"
    if ! "build_$kk" "$b/src" "$b" >"$b/build.log" 2>&1; then
      echo "proxy-apps: $k: build failed, see $b/build.log:" >&2
      tail -n 5 "$b/build.log" >&2
      note "$k: BUILD FAILED ($b/build.log)"
      continue
    fi
  fi
  kind+=("$k"); dir+=("$d"); bin+=("$b/$(eval echo "\$exe_$kk")")
done
[ ${#kind[@]} -gt 0 ] || die "no app built"

# -------------------------------------------------------------- run
# results: one line per app/np/mode in $work/results.txt
res=$work/results-$mpi.txt
: >"$res"
for i in "${!kind[@]}"; do
  k=${kind[$i]} kk=${kind[$i]//-/_} exe=${bin[$i]}
  nps=()
  for p in ${nplist//,/ }; do "args_$kk" "$p" >/dev/null && nps+=("$p"); done
  # an app that can use none of the counts above 1 (LULESH: cubes only)
  # runs at 8 ranks as well, when the list asks for more than one rank
  multi=0 asked=0
  for p in "${nps[@]}"; do [ "$p" -gt 1 ] && multi=1; done
  for p in ${nplist//,/ }; do [ "$p" -gt 1 ] && asked=1; done
  if [ $multi = 0 ] && [ $asked = 1 ] && "args_$kk" 8 >/dev/null; then nps+=(8); fi
  for p in "${nps[@]}"; do
    args=$("args_$kk" "$p")
    rd=$work/$mpi/$k/np$p
    mkdir -p "$rd"
    if declare -F "prep_$kk" >/dev/null; then "prep_$kk" "$rd" "$p"; fi
    over=; [ "$p" -gt "$cores" ] && over=over
    note "== $k np=$p: $exe $args"
    : >"$rd/native.t"; : >"$rd/native.cpu"; : >"$rd/native.w"
    nat_ok=0 nat_fail= answer=
    for mode in ${modes//,/ }; do : >"$rd/$mode.lo"; : >"$rd/$mode.av"; : >"$rd/$mode.hi"; : >"$rd/$mode.calls"; done
    declare -A mfail=() mok=() msame=()
    r=0
    while [ $r -lt "$runs" ]; do
      # native
      t0=$(now)
      # shellcheck disable=SC2086
      (cd "$rd" && rm -f ./*.yaml && run_native "$p" "$rd/native.$r.out" "$exe" $args)
      s=$? t1=$(now)
      c=$(check_"$kk" "$rd/native.$r.out")
      if [ $s -ne 0 ] || [ "${c%% *}" != ok ]; then
        [ -n "$nat_fail" ] || nat_fail="native: $( [ $s -ne 0 ] && why $s "$rd/native.$r.out" ) ${c#ok *}"
      else
        nat_ok=$((nat_ok + 1)); answer=${c#ok }
        sed -n 's/^proxy-span: \([0-9.e+-]*\) s.*/\1/p' "$rd/native.$r.out" >>"$rd/native.t"
        sed -n 's/^proxy-span: .* cpu \([0-9.e+-]*\) s.*/\1/p' "$rd/native.$r.out" >>"$rd/native.cpu"
        since "$t0" "$t1" >>"$rd/native.w"
      fi
      for mode in ${modes//,/ }; do
        o=$rd/$mode.$r.out rp=$rd/rp-$mode.$r
        t0=$(now)
        # shellcheck disable=SC2086
        (cd "$rd" && rm -f ./*.yaml && run_revprof "$mode" "$p" "$o" "$rp" "$exe" $args)
        s=$? t1=$(now)
        c=$(check_"$kk" "$o")
        if [ $s -ne 0 ] || [ "${c%% *}" != ok ]; then
          [ -n "${mfail[$mode]:-}" ] || mfail[$mode]="$mode: $( [ $s -ne 0 ] && why $s "$o" ) ${c#ok *}"
          continue
        fi
        mok[$mode]=$((${mok[$mode]:-0} + 1))
        [ -n "$answer" ] && [ "${c#ok }" != "$answer" ] && msame[$mode]="answer differs: native ${answer} vs ${c#ok }"
        if [ "$mode" = predict ] && [ -f "$rp/report.csv" ]; then
          awk -F, -v d="$rd/$mode" '
            $1 == "elapsed" { print $6 >> (d ".lo"); print $7 >> (d ".av"); print $8 >> (d ".hi") }
            $1 == "function" && $2 == "all" { n += $4 }
            END { print n + 0 >> (d ".calls") }' "$rp/report.csv"
        elif [ "$mode" = sample ] && [ -f "$rp/sample.txt" ]; then
          # wall time; messages sent and sampled; classes
          since "$t0" "$t1" >>"$rd/$mode.av"
          sed -n 's/^messages: *\([0-9]*\) sent, \([0-9]*\) sampled.*/\1/p' "$rp/sample.txt" >>"$rd/$mode.lo"
          sed -n 's/^messages: *\([0-9]*\) sent, \([0-9]*\) sampled.*/\2/p' "$rp/sample.txt" >>"$rd/$mode.hi"
          grep -vc '^#\|^src,' "$rp/latency.csv" >>"$rd/$mode.calls"
        elif [ "$mode" = bounded ] && [ -f "$rp/cost.csv" ] && [ -f "$rp/cost.txt" ]; then
          # wall time; observed cost (largest total over the ranks);
          # the regulation's decisions
          since "$t0" "$t1" >>"$rd/$mode.av"
          awk -F, '$2 == "total" && $7 > m { m = $7 } END { print m + 0 }' "$rp/cost.csv" >>"$rd/$mode.lo"
          sed -n 's/^regulation: .*; \([0-9]*\) decisions.*/\1/p' "$rp/cost.txt" >>"$rd/$mode.hi"
          echo 0 >>"$rd/$mode.calls"
        elif [ "$mode" = compensate ] && [ -f "$rp/compensate.csv" ]; then
          # (program) rows: rank,(program),count,incl_s,excl_s,incl_local_s,excl_local_s,incl_parallel_s,...
          awk -F, -v d="$rd/$mode" '
            $2 == "(program)" { if ($4 > m) m = $4; if ($8 > q) q = $8 }
            END { print m >> (d ".lo"); print q >> (d ".av") }' "$rp/compensate.csv"
          # MPI calls: the per-rank MPI_* region rows
          awk -F, -v d="$rd/$mode" '$2 ~ /^MPI_/ { n += $3 } END { print n + 0 >> (d ".calls") }' \
            "$rp/compensate.csv"
        else
          case $mode in
            compensate) f=compensate.csv ;; sample) f=sample.txt ;;
            bounded) f=cost.csv ;; *) f=report.csv ;;
          esac
          if grep -q '^revprof: \|==== revprof' "$o"; then
            mfail[$mode]="${mfail[$mode]:-$mode: no $f in $rp}"
          else # the wrappers never ran: no message from librevprof at all
            mfail[$mode]="${mfail[$mode]:-$mode: NOT INTERCEPTED: no $f and no librevprof output at all}"
          fi
        fi
      done
      r=$((r + 1))
    done
    nat=$(median <"$rd/native.t") cpu=$(median <"$rd/native.cpu")
    natw=$(median <"$rd/native.w")
    for mode in ${modes//,/ }; do
      lo=$(median <"$rd/$mode.lo") av=$(median <"$rd/$mode.av") hi=$(median <"$rd/$mode.hi")
      calls=$(median <"$rd/$mode.calls")
      v="native $nat_ok/$runs ok, $mode ${mok[$mode]:-0}/$runs ok"
      problems="${nat_fail} ${mfail[$mode]:-} ${msame[$mode]:-}"
      n=$nat; case $mode in sample|bounded) n=$natw ;; esac
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$k" "$p" "$over" \
        "${n:--}" "${av:--}" "${lo:--}" "${hi:--}" "${calls:--}" "$v" "$(printf '%s' "$problems" | tr -s ' \t' '  ' | sed 's/^ //; s/ $//')" "${cpu:--}" >>"$res"
    done
    unset mfail mok msame
  done
done

# -------------------------------------------------------------- tables
echo "proxy apps under revprof: $mpi ($MPIEXEC), model $(basename "$model"), compute measured,"
echo "$runs runs each (medians), size $size, $cores cores ('over': more ranks than cores), scratch $work"
for mode in ${modes//,/ }; do
  echo
  if [ "$mode" = predict ]; then
    echo "predict: native elapsed (MPI_Init..MPI_Finalize, latest rank) vs revprof's predicted elapsed avg [min, max]"
    printf '%-10s %6s %8s %7s %28s %8s %4s %8s  %s\n' app ranks native "(cpu)" "predicted avg [min, max]" error in calls verify
  elif [ "$mode" = sample ]; then
    echo "sample: wall time of mpiexec, native vs sample mode (REVPROF_SAMPLE random:0.1), messages sent and sampled, latency classes"
    printf '%-10s %6s %8s %8s %7s %10s %10s %8s  %s\n' app ranks native sample ratio sent sampled classes verify
  elif [ "$mode" = bounded ]; then
    echo "bounded: wall time of mpiexec, native vs compensate mode under --max-overhead 5%, observed cost (% of one CPU, largest rank), decisions"
    printf '%-10s %6s %8s %8s %7s %9s %9s  %s\n' app ranks native bounded ratio "cost %" decisions verify
  else
    echo "compensate: native elapsed vs compensate mode's measured (uncompensated) and parallel-compensated elapsed"
    printf '%-10s %6s %8s %7s %9s %8s %11s %8s %8s  %s\n' app ranks native "(cpu)" measured error compensated error calls verify
  fi
  awk -F'\t' -v mode="$mode" '
    function f3(v) { return (v == "-" || v == "") ? "-" : sprintf("(%.2f)", v) }
    function err(v, n) { return (v == "-" || n == "-" || n == 0) ? "-" : sprintf("%+.1f%%", (v - n) / n * 100) }
    $1 != mode { next }
    {
      r = $3 ($4 != "" ? " " $4 : "")
      ver = ($11 == "") ? "ok" : "FAIL"
      if (mode == "predict") {
        iv = ($6 == "-") ? "-" : sprintf("%.3f [%.3f, %.3f]", $6, $7, $8)
        inn = ($6 == "-" || $5 == "-") ? "-" : (($5 >= $7 && $5 <= $8) ? "yes" : "no")
        printf "%-10s %6s %8s %7s %28s %8s %4s %8s  %s\n", $2, r, ($5 == "-") ? "-" : sprintf("%.3f", $5), f3($12), iv, err($6, $5), inn, $9, ver
      } else if (mode == "sample" || mode == "bounded") {
        ratio = ($6 == "-" || $5 == "-" || $5 == 0) ? "-" : sprintf("%.2f", $6 / $5)
        w = ($6 == "-") ? "-" : sprintf("%.3f", $6)
        if (mode == "sample")
          printf "%-10s %6s %8s %8s %7s %10s %10s %8s  %s\n", $2, r, ($5 == "-") ? "-" : sprintf("%.3f", $5), w, ratio, $7, $8, $9, ver
        else
          printf "%-10s %6s %8s %8s %7s %9s %9s  %s\n", $2, r, ($5 == "-") ? "-" : sprintf("%.3f", $5), w, ratio,
            ($7 == "-") ? "-" : sprintf("%.2f", $7), $8, ver
      } else {
        printf "%-10s %6s %8s %7s %9s %8s %11s %8s %8s  %s\n", $2, r, ($5 == "-") ? "-" : sprintf("%.3f", $5), f3($12),
          ($7 == "-") ? "-" : sprintf("%.3f", $7), err($7, $5), ($6 == "-") ? "-" : sprintf("%.3f", $6), err($6, $5), $9, ver
      }
      if ($11 != "") fails = fails sprintf("  %s np=%s: %s (%s)\n", $2, $3, $11, $10)
    }
    END { if (fails != "") printf "\nfailures (%s):\n%s", mode, fails }' "$res"
done
echo
echo "outputs and logs: $work/$mpi/<app>/np<P>/ (native.R.out, MODE.R.out, rp-MODE.R/)"
