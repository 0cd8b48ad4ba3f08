#!/usr/bin/env bash
# Runs every revprof test: installs missing Debian packages, builds with
# warnings as errors, then runs CTest (unit tests and MPI tests under mpiexec).
#   ./test.sh            the suite built against Open MPI, then against MPICH
#   ./test.sh --openmpi  Open MPI only (the default MPI)
#   ./test.sh --mpich    MPICH only
set -euo pipefail
cd "$(dirname "$0")"

mpis=(openmpi mpich)
case "${1:-}" in
  ""|--all) ;;
  --openmpi) mpis=(openmpi) ;;
  --mpich) mpis=(mpich) ;;
  -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
status=0
results=()
for mpi in "${mpis[@]}"; do
  dir=build-test-$mpi
  echo "== revprof tests with $mpi (build dir $dir)"
  cmake -S . -B "$dir" -DREVPROF_MPI="$mpi" -DREVPROF_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$dir" -j "$jobs"
  if (cd "$dir" && ctest --output-on-failure --timeout 600); then
    results+=("$mpi: all tests passed")
  else
    results+=("$mpi: TESTS FAILED")
    status=1
  fi
done
printf '%s\n' "${results[@]}"
exit $status
