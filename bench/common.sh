# Set-up shared by the bench scripts (sourced, not run): the repository root
# ($here), the build folder from the first argument ($build, absolute;
# default build), the launcher the build found ($MPIEXEC unless set), and
# Open MPI's consent to run as root.
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
if [ -z "${MPIEXEC:-}" ]; then
  MPIEXEC=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
  MPIEXEC=${MPIEXEC:-mpiexec}
fi
if [ "$(id -u)" = 0 ]; then # Open MPI refuses root without these
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The C compiler wrapper the build used ($mpicc) and the launcher's flags
# ($flags: MPIFLAGS, plus --oversubscribe for Open MPI).
bench_mpi_tools() {
  mpicc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  mpicc=${mpicc:-mpicc}
  flags=${MPIFLAGS:-}
  if "$MPIEXEC" --version 2>&1 | grep -qi 'open mpi\|open-mpi\|openrte'; then
    flags="$flags --oversubscribe"
  fi
}

# bench_need_built NAME FILE...: an exit naming the first FILE that is not
# there (NAME: the script's, for the message), else nothing.
bench_need_built() {
  _name=$1
  shift
  for _f in "$@"; do
    [ -e "$_f" ] || { echo "$_name: $_f not built (cmake --build $build)" >&2; exit 1; }
  done
}

# valgrind and callgrind_annotate, or an exit naming the package (the
# instruction-count benches; $1: the script's name for the message).
bench_need_callgrind() {
  for t in valgrind callgrind_annotate; do
    command -v $t >/dev/null || { echo "$1: $t not found (apt-get install valgrind)" >&2; exit 1; }
  done
}

# SimGrid: the cluster of characterize/smpi/cluster.xml with $2 hosts (and
# the backbone's bandwidth BB_BW, default 10Gbps as there) and its host
# file in folder $1; then smpi NP PROGRAM ARGS... runs on it.
bench_smpi_cluster() {
  smpi_dir=$1
  sed -e "s/radical=\"0-3\"/radical=\"0-$(($2 - 1))\"/" \
      -e "s/bb_bw=\"10Gbps\"/bb_bw=\"${BB_BW:-10Gbps}\"/" \
      "$here/characterize/smpi/cluster.xml" > "$smpi_dir/cluster.xml"
  i=0
  while [ "$i" -lt "$2" ]; do echo "node-$i.rp"; i=$((i + 1)); done > "$smpi_dir/hostfile"
}
# The start of a bench against SimGrid (bench/smpi-*.sh), named $1 in its
# messages, at the rank counts $nps: checks that characterize's SimGrid
# build, the revprof tool and librevprof ($char, $tool, $lib) and smpicc
# are there, makes the work folder $w (kept with KEEP=1), the cluster of
# $max hosts, and prints the machine's line.
bench_smpi_setup() {
  char=$build/characterize/revprof-characterize-smpi
  tool=$build/tools/revprof
  lib=$build/revprof/librevprof.so
  for need in "$char" "$tool" "$lib"; do
    [ -x "$need" ] || [ -f "$need" ] || { echo "$1: $need not built (cmake --build $build; SimGrid's smpicc is needed)" >&2; exit 1; }
  done
  if ! command -v smpicc > /dev/null || ! command -v smpirun > /dev/null; then
    echo "$1: smpicc/smpirun not found (apt-get install libsimgrid-dev)" >&2; exit 1
  fi
  bench_mpi_tools
  w=$(mktemp -d "${TMPDIR:-/tmp}/rp-$1-XXXXXX")
  if [ "${KEEP:-0}" = 1 ]; then echo "# work folder $w (kept)"; else trap 'rm -rf "$w"' EXIT; fi
  max=2
  # shellcheck disable=SC2154 # nps: the caller's rank counts
  for np in $nps; do [ "$np" -gt "$max" ] && max=$np; done
  # the cluster of characterize/smpi/cluster.xml, with max hosts
  bench_smpi_cluster "$w" "$max"
  echo "# $(uname -n), $(nproc) cores; SimGrid $(smpirun -version 2>&1 | grep -m1 -o '[0-9][0-9.]*' || echo '?'); native $("$MPIEXEC" --version 2>&1 | head -n 1)"
}

# Characterizes the cluster for the functions $1 (comma-separated) at the
# rank counts $nps and fits its model, $w/model.lua. SYNC (window or
# barrier), when set, chooses how characterize starts its repetitions.
bench_smpi_model() {
  procs=$(echo "$nps" | tr ' ' ',')
  echo "characterizing the simulated cluster (p = $procs) ..." >&2
  smpi "$max" "$char" --quick --sizes "0:1M" --procs "$procs" --seed 7 \
    --functions "$1" ${SYNC:+--sync "$SYNC"} -q -o "$w/char" > "$w/char.log" 2>&1 || { tail -n 20 "$w/char.log" >&2; exit 1; }
  "$tool" fit "$w/char/raw.csv" -o "$w/model.lua" > "$w/fit.log" 2>&1 || { cat "$w/fit.log" >&2; exit 1; }
}

# bench/smpi/$1.c built for smpirun ($w/$1_smpi) and against librevprof
# ($w/$1_rp).
bench_smpi_build() {
  smpicc -O2 -DRP_SMPI "$here/bench/smpi/$1.c" -o "$w/$1_smpi" > "$w/cc.log" 2>&1 || { cat "$w/cc.log" >&2; exit 1; }
  "$mpicc" -O2 -DRP_REVPROF -I"$here/revprof" "$here/bench/smpi/$1.c" \
    -L"$(dirname "$lib")" -lrevprof -Wl,-rpath,"$(dirname "$lib")" -o "$w/$1_rp" \
    || exit 1
}

smpi() { # np, then the program and its arguments
  n=$1; shift
  smpirun -np "$n" -platform "$smpi_dir/cluster.xml" -hostfile "$smpi_dir/hostfile" \
    --cfg=smpi/simulate-computation:no --log=root.thres:warning "$@"
}

# One table row "case np k bytes reference predicted error" from those six
# words on stdin; the |error| in % is appended to file $1.
bench_error_row() {
  awk -v out="$1" '{ e = 100 * ($6 - $5) / $5
    printf "%-8s %4s %3s %8s %13.6e %13.6e %+9.1f%%\n", $1, $2, $3, $4, $5, $6, e
    print (e < 0 ? -e : e) >> out }'
}

# The summary line of the |errors| in file $1 (and how many are within
# $2 %, when given).
bench_error_summary() {
  sort -g "$1" | awk -v lim="${2:-}" '{ v[NR] = $1; n += $1 <= lim + 0 } END {
    if (!NR) exit
    printf "# %d cases: median |error| %.1f %%, max |error| %.1f %%", NR,
      (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR]
    if (lim != "") printf ", %d within %s %%", n, lim
    printf "\n" }'
}

# HPCCG (Mantevo; its source folder comes from the user): C++, CG on a
# 27-point problem; nx ny nz are per rank (nz shrinks with the ranks: the
# global problem stays the same). Its comparison with the exact solution is
# commented out in the source, so the check is the final residual (< 1e-8,
# from ~600; CG to 150 iterations); answer: the residual and the iteration
# count. Uses $MPICXX (the C++ wrapper) and $size (small: ~3 s at 2 ranks
# on the 2-core VM; tiny: < 1 s). Subshell bodies: POSIX sh has no local.
exe_hpccg=test_HPCCG
build_hpccg() { # build_hpccg SRC DEST: DEST/$exe_hpccg (SRC stays clean)
  (cd "$1" && $MPICXX -O3 -g -DUSING_MPI ./*.cpp -o "$2/$exe_hpccg")
}
args_hpccg() ( # args_hpccg NP: its arguments; status 1: NP not usable
  n=64 z=128
  [ "$size" = tiny ] && n=24 z=24
  [ $((z % $1)) -eq 0 ] || exit 1
  echo "$n $n $((z / $1))"
)
# the applications' checks: the last value a sed script prints from a
# file, and whether a number is below the verification tolerance 1e-8
last_of() { sed -n "$1" "$2" | tail -n 1; }
below_tol() { awk -v x="$1" 'BEGIN { exit !(x + 0 < 1e-8) }'; }
check_hpccg() ( # check_hpccg OUT: "ok ANSWER" or "FAIL why"
  r=$(last_of 's/^Final residual: *\([^ ]*\).*/\1/p' "$1")
  it=$(last_of 's/^Number of iterations: *\([0-9]*\).*/\1/p' "$1")
  [ -n "$r" ] || { echo "FAIL no 'Final residual'"; exit 0; }
  below_tol "$r" || { echo "FAIL final residual $r"; exit 0; }
  echo "ok res=$r,iters=$it"
)

# LULESH 2.0 (LLNL; its source folder comes from the user): C++, MPI
# without OpenMP, on a cube number of ranks (1, 8, 27, ...). Verification:
# its symmetry test of the energy array (MaxRelDiff); answer: Final Origin
# Energy. Uses $MPICXX and $size (tiny or small), as for HPCCG.
exe_lulesh=lulesh2.0
build_lulesh() { # build_lulesh SRC DEST: DEST/$exe_lulesh
  (cd "$1" && $MPICXX -O2 -g -DUSE_MPI=1 -DUSE_OMP=0 -I. lulesh.cc lulesh-comm.cc \
     lulesh-viz.cc lulesh-util.cc lulesh-init.cc -o "$2/$exe_lulesh" -lm)
}
args_lulesh() ( # args_lulesh NP: its arguments; status 1: NP not a cube
  s=18 i=100
  [ "$size" = tiny ] && s=6 i=20
  c=1; while [ $((c * c * c)) -lt "$1" ]; do c=$((c + 1)); done
  [ $((c * c * c)) -eq "$1" ] || exit 1
  # weak scaling per rank: keep the global problem about the same
  [ "$1" -ge 8 ] && s=$((s / c + 1))
  echo "-s $s -i $i"
)
check_lulesh() ( # check_lulesh OUT: "ok ANSWER" or "FAIL why"
  e=$(last_of 's/.*Final Origin Energy = *\([^ ]*\).*/\1/p' "$1")
  d=$(last_of 's/.*MaxRelDiff *= *\([^ ]*\).*/\1/p' "$1")
  [ -n "$e" ] || { echo "FAIL no 'Final Origin Energy'"; exit 0; }
  below_tol "${d:-1}" || { echo "FAIL symmetry MaxRelDiff ${d:-missing}"; exit 0; }
  echo "ok $e"
)

# The median of the numbers on stdin, one per line (nothing for none).
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench/smpi/halo_p2p.c: its time from its output line, and the counts a
# case runs with (halo, halowait: neighbours KS; train, incast: messages
# NS; stencil: 4).
p2p_timed() { sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p'; }
p2p_counts() { # case ks ns; fails on an unknown case
  case $1 in
    halo | halowait) echo "$2" ;;
    train | incast | ssend | send) echo "$3" ;;
    stencil) echo 4 ;;
    *) return 1 ;;
  esac
}
