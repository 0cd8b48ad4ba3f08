#!/bin/sh
# revprof characterize (the driver) stores librevprof's measured cost per
# instrumentation event in the model's overhead table, and compensate mode
# then uses those values with REVPROF_OVERHEAD=model.
#   rp_overhead_check.sh REVPROF OUTDIR PROGRAM
set -eu
revprof=$1 out=$2 prog=$3
rm -rf "$out"
"$revprof" characterize -n 2 --quick -q --functions latency,MPI_Barrier \
  --no-datasheet -o "$out"
"$revprof" model check "$out/model.lua"
for k in region_enter region_exit mpi_wrapper piggyback cost_compensate_function \
         cost_compensate_skipped cost_predict_mpi cost_sample_mpi cost_sample_sample; do
  grep -q "^    $k = " "$out/model.lua" || { echo "no $k in the overhead table"; exit 1; }
done
mpiexec=${REVPROF_MPIEXEC:-mpiexec}
flags=""
case $mpiexec in *mpich*|*hydra*) ;; *) flags=--oversubscribe ;; esac
REVPROF_MODE=compensate REVPROF_OVERHEAD=model REVPROF_MODEL="$out/model.lua" \
  REVPROF_OUTPUT_DIR="$out/comp" "$mpiexec" $flags -n 2 "$prog" --max 8 --reps 10 >/dev/null
grep -q "overhead per event (model)" "$out/comp/compensate.txt"
# the instrumentation cost model takes its costs from the table too
grep -q "^costs per event: the model's overhead table (characterize)" "$out/comp/cost.txt" \
  || { cat "$out/comp/cost.txt"; echo "compensate: costs per event not the model's"; exit 1; }
REVPROF_MODE=sample REVPROF_MODEL="$out/model.lua" REVPROF_OUTPUT_DIR="$out/smp" \
  "$mpiexec" $flags -n 2 "$prog" --max 8 --reps 10 >/dev/null
grep -q "^costs per event: the model's overhead table (characterize)" "$out/smp/cost.txt" \
  || { cat "$out/smp/cost.txt"; echo "sample: costs per event not the model's"; exit 1; }
echo "overhead check: ok"
