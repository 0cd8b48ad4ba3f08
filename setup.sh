#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build
# revprof, characterize this machine with its cores (raw data, model,
# datasheet; MPI-IO on the output folder's file system), then predict the Cowichan `outer` example at 1, 2, 4 and 8 ranks
# from the new model (computation: measured CPU time) and plot predicted
# against measured speedup.
#   ./setup.sh [--quick | --full] [other revprof characterize options]
# Outputs go to revprof-out/<hostname>/ (REVPROF_SETUP_OUT overrides).
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

bash scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"

if [ "$(id -u)" -eq 0 ]; then # Open MPI refuses root unless told
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
revprof=build/tools/revprof
out=${REVPROF_SETUP_OUT:-revprof-out/$(hostname)}
mkdir -p "$out"

# MPI-IO is measured on the file system of the output folder, unless the
# options name another (--io-dir DIR)
io=(--io-dir "$out/io-scratch")
case " $* " in *" --io-dir"*) io=() ;; esac
[ ${#io[@]} -eq 0 ] || mkdir -p "$out/io-scratch"
echo "== characterizing this machine with $jobs ranks (output: $out)"
"$revprof" characterize -n "$jobs" -o "$out" "${io[@]}" "$@"

echo "== predicting Cowichan outer (n = 2000) from $out/model.lua"
"$revprof" sweep --np 1,2,4,8 --measure --reps 3 --time-key elapsed \
  --model "$out/model.lua" --compute measure \
  -o "$out/outer-sweep" -- build/examples/outer_rp --n 2000

cat <<MSG

== done
  raw measurements   $out/raw.csv
  machine model      $out/model.lua     (revprof model show $out/model.lua)
  datasheet          $out/datasheet/    (datasheet.pdf when pdflatex is installed)
  outer prediction   $out/outer-sweep/sweep.csv and sweep.png
Try: $revprof model eval $out/model.lua MPI_Allreduce 2 1024
MSG
