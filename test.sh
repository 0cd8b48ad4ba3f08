#!/usr/bin/env bash
# Runs every revprof test: installs missing Debian packages, builds with
# warnings as errors, then runs CTest (unit tests and MPI tests under mpiexec).
#   ./test.sh             Open MPI, then MPICH, then the Open MPI build under
#                         AddressSanitizer and UBSan (the whole suite each)
#   ./test.sh --openmpi   Open MPI only (the default MPI)
#   ./test.sh --mpich     MPICH only
#   ./test.sh --sanitize  the sanitized build only (build-test-sanitize)
set -euo pipefail
cd "$(dirname "$0")"

configs=(openmpi mpich sanitize)
case "${1:-}" in
  ""|--all) ;;
  --openmpi) configs=(openmpi) ;;
  --mpich) configs=(mpich) ;;
  --sanitize) configs=(sanitize) ;;
  -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
status=0
results=()
for cfg in "${configs[@]}"; do
  dir=build-test-$cfg
  if [ "$cfg" = sanitize ]; then
    # Open MPI; no -Werror: GCC warns falsely under -fsanitize. Leaks are
    # not checked (the MPI libraries keep theirs; bench/valgrind.sh covers
    # ours), and the link-order check is off so that an ASan librevprof
    # can be preloaded into the tests' plain MPI programs.
    flags=(-DREVPROF_MPI=openmpi -DREVPROF_SANITIZE=ON -DREVPROF_WERROR=OFF)
    export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
    export UBSAN_OPTIONS=print_stacktrace=1
  else
    flags=(-DREVPROF_MPI="$cfg" -DREVPROF_SANITIZE=OFF -DREVPROF_WERROR=ON)
  fi
  echo "== revprof tests: $cfg (build dir $dir)"
  cmake -S . -B "$dir" "${flags[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$dir" -j "$jobs"
  if (cd "$dir" && ctest --output-on-failure --timeout 600); then
    results+=("$cfg: all tests passed")
  else
    results+=("$cfg: TESTS FAILED")
    status=1
  fi
  unset ASAN_OPTIONS UBSAN_OPTIONS
done
printf '%s\n' "${results[@]}"
exit $status
