#!/usr/bin/env bash
# Runs every revprof test: installs missing Debian packages, builds with
# warnings as errors, then runs CTest (unit tests and MPI tests under mpiexec).
#   ./test.sh            Open MPI (the default MPI)
#   ./test.sh --mpich    the same suite built against MPICH
#   ./test.sh --all      both, one after the other
set -euo pipefail
cd "$(dirname "$0")"

mpis=(openmpi)
case "${1:-}" in
  "") ;;
  --mpich) mpis=(mpich) ;;
  --all) mpis=(openmpi mpich) ;;
  -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
status=0
for mpi in "${mpis[@]}"; do
  dir=build-test-$mpi
  echo "== revprof tests with $mpi (build dir $dir)"
  cmake -S . -B "$dir" -DREVPROF_MPI="$mpi" -DREVPROF_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure --timeout 600) || status=1
done
exit $status
