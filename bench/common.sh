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
