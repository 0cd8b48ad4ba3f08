#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and checks what a user of
# the installed revprof gets: the command, pkg-config files for both libraries
# and find_package(revprof) with its imported targets.
#   install_check.sh BUILD_DIR SOURCE_DIR MPICC
set -euo pipefail
build=$1 src=$2 mpicc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
"$tmp/prefix/bin/revprof" --version
"$tmp/prefix/bin/revprof" model check "$src/examples/toy_model.lua"
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib/x86_64-linux-gnu/pkgconfig
# an MPI program linked with -lrevprof through pkg-config
"$mpicc" "$src/examples/outer.c" -DHAVE_REVPROF $(pkg-config --cflags --libs revprof) -lm -o "$tmp/outer"
# a model-library user through find_package
mkdir -p "$tmp/consumer"
cat > "$tmp/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(revprof REQUIRED)
add_executable(ev ev.c)
target_link_libraries(ev revprof::revprof_model)
CM
cat > "$tmp/consumer/ev.c" <<'C'
#include <stdio.h>
#include "revprof_model.h"
int main(int argc, char **argv) {
  revprof_model *m;
  char err[512];
  double t[3];
  if (argc < 2 || revprof_model_load(argv[1], &m, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (revprof_model_eval(m, REVPROF_FN_ALLREDUCE, 4, 64, t) != 0)
    return 1;
  printf("%.6g\n", t[REVPROF_AVG]);
  revprof_model_free(m);
  return 0;
}
C
cmake -S "$tmp/consumer" -B "$tmp/consumer/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer/b" >/dev/null
LD_LIBRARY_PATH=$tmp/prefix/lib:$tmp/prefix/lib/x86_64-linux-gnu "$tmp/consumer/b/ev" "$src/examples/toy_model.lua"
# the model library exports its public API only (models/revprof_model.map)
lib=
for f in "$tmp"/prefix/lib/librevprof_model.so "$tmp"/prefix/lib/*/librevprof_model.so; do
  if [ -e "$f" ]; then lib=$f; break; fi
done
[ -n "$lib" ] || { echo "install_check: no librevprof_model.so installed" >&2; exit 1; }
extra=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^revprof_/ && $3 !~ /^_(init|fini|edata|end|_bss_start)$/ { print $3 }')
if [ -n "$extra" ]; then
  echo "install_check: librevprof_model.so exports more than revprof_*: $extra" >&2
  exit 1
fi
echo "install_check: ok"
