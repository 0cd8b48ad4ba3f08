#!/usr/bin/env bash
# Installs the Debian 12 packages revprof needs, only those missing.
# Runs apt-get as root, through sudo otherwise; says what to run if neither works.
set -euo pipefail

packages=(
  build-essential cmake pkg-config gfortran
  libgsl-dev
  libopenmpi-dev openmpi-bin
  mpich libmpich-dev
  liblua5.4-dev lua5.4
  libpapi-dev papi-tools
  libcmocka-dev
  libotf2-trace-dev otf2-tools
  libdw-dev
  libsimgrid-dev
  gnuplot-nox
  texlive-latex-base texlive-latex-recommended texlive-latex-extra
  poppler-utils
  python3 valgrind
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} Debian packages are installed"
  exit 0
fi

echo "deps: installing ${#missing[@]} missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "deps: not root and no password-less sudo; as root, run:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
