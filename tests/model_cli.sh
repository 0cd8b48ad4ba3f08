#!/bin/sh
# The 'revprof fit' and 'revprof model' subcommands on the shipped data:
# ranges written by fit, 'extrapolated' marked by model eval, a refit that
# keeps the machine and overhead (--like) and names the file system of the
# MPI-IO rows, the machine description carried by raw.csv (or 'unknown'),
# and bad inputs rejected.
#   model_cli.sh REVPROF SOURCE_DIR
set -u
rp=$1 src=$2
ship=$src/models/machines/debian12-2core-openmpi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rp_model_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "model_cli: FAIL: $*" >&2; exit 1; }

# the shipped model records its measured ranges; p = 64 is extrapolated
"$rp" model show "$ship.lua" | grep -q "^MPI_Allreduce  (measured p 2..2, d 0..4194304" \
  || fail "model show: no measured range for MPI_Allreduce"
# a last regime of the fit's top of the range is named, with its factor
"$rp" model show "$ship.lua" | sed -n '/^gap  (/,/^$/p' | grep -q "^      3 points, top of the range: the regime above times 1.89 (not cross-validated)$" \
  || fail "model show: gap's top of the range not named: $("$rp" model show "$ship.lua" | sed -n '/^gap  (/,/^$/p' | tail -n 3)"
out=$("$rp" model eval "$ship.lua" MPI_Allreduce 64 1024) || fail "model eval failed"
echo "$out" | grep -q "extrapolated: 32x outside in p, 1x in d (measured p 2..2, d 0..4194304)" \
  || fail "model eval at p = 64 not marked extrapolated: $out"
out=$("$rp" model eval "$ship.lua" MPI_Allreduce 2 1024) || fail "model eval failed"
case $out in *extrapolated*|*unknown*) fail "in-range eval marked: $out" ;; esac
[ "$(echo "$out" | wc -w)" -eq 3 ] || fail "in-range eval is not 'min avg max': $out"
# a function without its own row is costed by its fallback, as librevprof does
out=$("$rp" model eval "$src/tests/mpi/rp_exact_model.lua" MPI_Ialltoall 2 8 2> "$tmp/err") \
  || fail "model eval of a fallback failed: $(cat "$tmp/err")"
want=$("$rp" model eval "$src/tests/mpi/rp_exact_model.lua" MPI_Alltoall 2 8 2>/dev/null)
[ "$out" = "$want" ] || fail "MPI_Ialltoall is not costed as MPI_Alltoall: '$out' against '$want'"
grep -q "no MPI_Ialltoall row; costed by its fallback, the MPI_Alltoall row" "$tmp/err" \
  || fail "model eval does not say it used a fallback: $(cat "$tmp/err")"
# a mistyped name is refused with the nearest one
"$rp" model eval "$ship.lua" allreduce 2 8 2> "$tmp/err" \
  && fail "model eval of an unknown name succeeded"
grep -q "unknown function 'allreduce' (did you mean MPI_Allreduce?" "$tmp/err" \
  || fail "model eval of a mistyped name: $(cat "$tmp/err")"
"$rp" model eval "$src/examples/toy_model.lua" MPI_Scatter 2 8 2> "$tmp/err" \
  && fail "model eval of a function with no row and no fallback succeeded"
grep -q "no equation for MPI_Scatter (nor for any function it falls back on)" "$tmp/err" \
  || fail "model eval without any row: $(cat "$tmp/err")"
# a model without ranges says so
out=$("$rp" model eval "$src/examples/toy_model.lua" MPI_Allreduce 64 1024) || fail "toy eval failed"
echo "$out" | grep -q "(range unknown" || fail "no 'range unknown' for an old model: $out"

# refit keeping machine and overhead
"$rp" fit "$ship.csv" --like "$ship.lua" -o "$tmp/m.lua" 2> "$tmp/err" || { cat "$tmp/err"; fail "fit --like failed"; }
grep -q 'name = "debian12-2core-vm"' "$tmp/m.lua" || fail "fit --like lost the machine name"
grep -q 'mpi_wrapper = ' "$tmp/m.lua" || fail "fit --like lost the overhead table"
grep -q 'range = { p = { 2, 2 }, d = { 0, 4194304 } }' "$tmp/m.lua" || fail "fit wrote no range"
grep -q 'compute_spread = 0.15,' "$tmp/m.lua" || fail "fit --like did not keep compute_spread = 0.15: $(grep compute_spread "$tmp/m.lua")"
# the MPI-IO rows' file system comes from the raw data's '# machine.filesystem'
grep -q 'filesystem = "ext2/3/4 at /tmp",' "$tmp/m.lua" || fail "fit --like did not name the file system: $(grep filesystem "$tmp/m.lua")"
"$rp" model show "$tmp/m.lua" | grep -q "^file system: ext2/3/4 at /tmp" || fail "model show does not name the file system"
# a refit of a refit says 'fitted by' once
"$rp" fit "$ship.csv" --like "$tmp/m.lua" -o "$tmp/m1.lua" 2> "$tmp/err" || { cat "$tmp/err"; fail "second fit --like failed"; }
"$rp" fit "$ship.csv" --like "$tmp/m1.lua" -o "$tmp/m1.lua" 2> "$tmp/err" || { cat "$tmp/err"; fail "third fit --like failed"; }
[ "$(grep -o "fitted by 'revprof fit' from $ship.csv" "$tmp/m1.lua" | wc -l)" -eq 1 ] \
  || fail "refits repeat 'fitted by' in the notes: $(grep notes "$tmp/m1.lua")"
# machine lines at the top of raw.csv are used
{ head -n 1 "$ship.csv"; echo "# machine.name: lab-node"; echo "# machine.mpi: MPICH 4.1.2"
  echo "# machine.date: 2026-11-20"; echo "# machine.ranks: 2"; echo "# machine.notes: preset quick"
  tail -n +2 "$ship.csv"; } > "$tmp/raw.csv"
"$rp" fit "$tmp/raw.csv" -o "$tmp/m2.lua" 2> "$tmp/err" || { cat "$tmp/err"; fail "fit failed"; }
"$rp" model show "$tmp/m2.lua" | grep -q "^machine: lab-node" || fail "fit ignored '# machine.name'"
for want in 'name = "lab-node",' 'mpi = "MPICH 4.1.2",' 'date = "2026-11-20",' 'ranks = 2,' \
            'filesystem = "ext2/3/4 at /tmp",' "notes = \"preset quick; fitted by 'revprof fit' from $tmp/raw.csv\","; do
  grep -qF "$want" "$tmp/m2.lua" || fail "fitted model lacks '$want': $(sed -n '/machine = {/,/}/p' "$tmp/m2.lua")"
done
# ... and win over --like's model, which fills in only what they leave out
"$rp" fit "$tmp/raw.csv" --like "$ship.lua" -o "$tmp/m3.lua" 2> "$tmp/err" || { cat "$tmp/err"; fail "fit --like of a described raw.csv failed"; }
grep -q 'name = "lab-node",' "$tmp/m3.lua" || fail "fit --like overrode '# machine.name'"
grep -q 'compute_spread = 0.15,' "$tmp/m3.lua" || fail "fit --like of a described raw.csv lost compute_spread"
grep -q 'mpi_wrapper = ' "$tmp/m3.lua" || fail "fit --like of a described raw.csv lost the overhead table"
# a raw.csv without machine lines still fits, and the model says the machine is unknown
"$rp" fit "$ship.csv" -o "$tmp/m4.lua" 2> "$tmp/err" || { cat "$tmp/err"; fail "fit of a raw.csv without machine lines failed"; }
grep -qF "name = \"unknown (fitted from $ship.csv, which records no machine)\"," "$tmp/m4.lua" \
  || fail "no 'unknown' machine name: $(grep 'name = ' "$tmp/m4.lua")"
# its '# machine.eager_limit' line goes into the model (format 3)
grep -q '^    eager_limit = 257,$' "$tmp/m4.lua" || fail "fit lost the raw file's eager limit"
grep -q 'format = "revprof-model 3"' "$tmp/m4.lua" || fail "fit did not write format 3"
grep -q 'mpi = "unknown",' "$tmp/m4.lua" && grep -q 'date = "unknown",' "$tmp/m4.lua" \
  || fail "mpi or date not 'unknown': $(sed -n '/machine = {/,/}/p' "$tmp/m4.lua")"
"$rp" fit "$ship.csv" --name lab-node -o "$tmp/m5.lua" 2> "$tmp/err" || { cat "$tmp/err"; fail "fit --name failed"; }
grep -q 'name = "lab-node",' "$tmp/m5.lua" || fail "fit --name ignored"
# a malformed machine line stops the fit, naming the file and line
{ head -n 1 "$ship.csv"; echo "# machine.ranks: two"; tail -n +2 "$ship.csv"; } > "$tmp/badm.csv"
"$rp" fit "$tmp/badm.csv" -o "$tmp/badm.lua" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "fit of a malformed machine line: exit $rc"
grep -q "badm.csv:2: machine.ranks: \"two\" is not a whole number" "$tmp/err" || fail "malformed machine line message: $(cat "$tmp/err")"
[ -e "$tmp/badm.lua" ] && fail "a model was written from a malformed machine line"

# bad inputs: duplicate raw rows, equations that reach infinity
{ cat "$ship.csv"; grep -m1 "^MPI_Bcast,2,64," "$ship.csv"; } > "$tmp/dup.csv"
"$rp" fit "$tmp/dup.csv" -o "$tmp/d.lua" 2> "$tmp/err" && fail "duplicate row accepted"
grep -q "dup.csv:[0-9]*: duplicate row MPI_Bcast, p = 2, 64 bytes (first at line [0-9]*)" "$tmp/err" \
  || fail "duplicate row message: $(cat "$tmp/err")"
[ -e "$tmp/d.lua" ] && fail "a model was written from a bad raw file"
printf 'return { format = "revprof-model 1", functions = { MPI_Bcast = {\n  { form = { "1", "d" }, avg = { 1e-6, 1e308 } } } } }\n' > "$tmp/inf.lua"
"$rp" model check "$tmp/inf.lua" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "model check of an infinite model: exit $rc"
grep -q "inf.lua: functions.MPI_Bcast\[1\].avg: predicts [0-9e+.inf]* s at p = " "$tmp/err" || fail "inf message: $(cat "$tmp/err")"
# a directory given as a model or as raw data
"$rp" model check "$tmp" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "model check of a directory: exit $rc"
grep -q "cannot read model file: Is a directory" "$tmp/err" || fail "directory model message: $(cat "$tmp/err")"
"$rp" fit "$tmp" -o "$tmp/dir.lua" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "fit of a directory: exit $rc"
grep -q "cannot read raw data: Is a directory" "$tmp/err" || fail "directory raw message: $(cat "$tmp/err")"
# bad option values of run and sweep: exit 2 before any rank starts
for sub in run sweep; do
  "$rp" $sub --compute bogus --model "$src/examples/toy_model.lua" -np 1 -- true 2> "$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "$sub --compute bogus: exit $rc"
  grep -q "revprof $sub: --compute needs auto, zero, annotate or measure, not 'bogus'" "$tmp/err" \
    || fail "$sub --compute message: $(cat "$tmp/err")"
done
echo "model_cli: ok"
