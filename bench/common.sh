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

# The median of the numbers on stdin, one per line (nothing for none).
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench/smpi/halo_p2p.c: its time from its output line, and the counts a
# case runs with (halo: neighbours KS, train: messages NS, stencil: 4).
p2p_timed() { sed -n 's/.*iterations, \([^ ]*\) s, 0 bad$/\1/p'; }
p2p_counts() { # case ks ns; fails on an unknown case
  case $1 in
    halo) echo "$2" ;;
    train) echo "$3" ;;
    stencil) echo 4 ;;
    *) return 1 ;;
  esac
}
