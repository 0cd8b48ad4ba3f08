#!/bin/sh
# 'revprof validate' on a synthetic latency.csv of sample mode whose
# median per size class is the shipped model's latency: small errors and
# every class inside against that model; a large error and none inside
# against a copy whose latency constants are 10 times larger; a model
# without a latency row and an extrapolated class said in the first lines;
# --csv; bad inputs rejected with exit 2 naming the file and line; the send
# calls' own time of calls.csv beside the model rows they are costed by;
# the sampled run's flags (a corrected clock drift) said before the table;
# the exact medians of the written samples where a run kept them.
#   validate_cli.sh REVPROF SOURCE_DIR
set -u
rp=$1 src=$2
ship=$src/models/machines/debian12-2core-openmpi.lua
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rp_validate_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "validate_cli: FAIL: $*" >&2; exit 1; }

# Per class (size class, its bytes, the mean size sampled) the model's avg
# latency at that size; two rows per class (other ranks and call sites,
# sizes mean - 1 and mean + 1 at equal counts) whose merged histogram
# puts the median on that latency: 400 of 1000 messages in its bucket, the
# rest below and above in the share that interpolates to it.
mkdir -p "$tmp/run"
while read -r sc lo hi mean; do
  t=$("$rp" model eval "$ship" latency 2 "$mean" | cut -d' ' -f2) \
    || fail "model eval latency 2 $mean failed"
  echo "$sc $lo $hi $mean $t"
done > "$tmp/want" <<EOF
0 0 0 0
4 8 15 12
10 512 1023 700
12 2048 4095 3000
17 65536 131071 100000
20 524288 1048575 1000000
23 4194304 8388607 8000000
EOF
{
  echo "# revprof sample mode: one-way message latencies by class, all ranks (seconds)"
  printf 'src,dst,send_site,recv_site,size_class,bytes_lo,bytes_hi,bytes_mean,count,mean_s,min_s,max_s,sd_s'
  for b in $(seq 0 33); do printf ',b%02d' "$b"; done
  echo
  awk '
    function edge(k) { return 1e-7 * 10 ^ (k / 4) } # upper edge of bucket k
    function row(src, dst, d, nlo, nmid, nhi,   i, s) {
      s = src "," dst ",\"pingpong.c:" 40 + src " main\",\"pingpong.c:57 main, inner\"," \
          $1 "," $2 "," $3 "," d "," nlo + nmid + nhi "," t "," 0.9 * lo "," 1.1 * hi ",1e-07"
      for (i = 0; i < 34; i++)
        s = s "," (i == k - 1 ? nlo : i == k ? nmid : i == k + 1 ? nhi : 0)
      print s
    }
    { t = $5; k = int(4 * log(t / 1e-7) / log(10)) + 1; lo = edge(k - 1); hi = edge(k)
      a = int(500 - 400 * (t - lo) / (hi - lo) + 0.5); a1 = int(a / 2)
      row(0, 1, $4 ? $4 - 1 : 0, a1, 200, 300 - a1)
      row(1, 0, $4 ? $4 + 1 : 0, a - a1, 200, 300 - (a - a1)) }' "$tmp/want"
} > "$tmp/run/latency.csv"

# against the model of the same machine: small errors, all inside
"$rp" validate --model "$ship" --csv "$tmp/v.csv" "$tmp/run" > "$tmp/out" 2> "$tmp/err"; rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || fail "validate against the shipped model: exit $rc: $(cat "$tmp/err")"
grep -q "^validate: 7 classes, median |error| 0\.[0-9] %, 7 of 7 inside the model's bounds$" "$tmp/out" \
  || fail "summary against the shipped model: $(tail -n 1 "$tmp/out")"
for sc in 0 4 10 12 17 20 23; do
  line=$(grep "^ *$sc  " "$tmp/out") || fail "no line for class $sc"
  echo "$line" | grep -q " [+-]0\.[0-9] %  yes" || fail "class $sc not a small error inside: $line"
done
grep -q "^ *4  8\.\.15  *12  *1000 " "$tmp/out" || fail "class 4 not merged from its two rows: $(grep '^ *4  ' "$tmp/out")"
# the class beyond the measured sizes (4 MiB) is said before the table
head -n 3 "$tmp/out" | grep -q "^note: 1 of 7 classes extrapolated beyond the sizes the model was measured on (p 2\.\.2, d 0\.\.4194304): class 23 (8e+06 bytes, 1\.91x outside in d)$" \
  || fail "extrapolated class not said in the first lines: $(head -n 3 "$tmp/out")"
grep -q "^ *23  .* yes  (extrapolated)$" "$tmp/out" || fail "class 23 not marked extrapolated"
# --csv: the same table, and DIR/latency.csv named directly gives the same
[ "$(head -n 1 "$tmp/v.csv")" = "size_class,bytes_lo,bytes_hi,bytes_mean,count,measured_s,measured_from,predicted_min_s,predicted_avg_s,predicted_max_s,error_pct,inside,extrapolated" ] \
  || fail "--csv header: $(head -n 1 "$tmp/v.csv")"
[ "$(grep -c ',median,.*,yes,no$' "$tmp/v.csv")" -eq 6 ] && grep -q '^23,.*,yes,yes$' "$tmp/v.csv" \
  || fail "--csv rows: $(cat "$tmp/v.csv")"
"$rp" validate --model "$ship" "$tmp/run/latency.csv" > "$tmp/out2" || fail "validate of DIR/latency.csv failed"
[ "$(tail -n +2 "$tmp/out2")" = "$(tail -n +2 "$tmp/out")" ] || fail "DIR/latency.csv and DIR differ"

# the sampled run's flags (latency.csv's "# flag: " lines) are said first
mkdir -p "$tmp/flagged"
{ head -n 1 "$tmp/run/latency.csv"
  echo "# flag: clock-drift: the clocks drifted during the run: latencies corrected by up to 0.002 s"
  tail -n +2 "$tmp/run/latency.csv"; } > "$tmp/flagged/latency.csv"
"$rp" validate --model "$ship" "$tmp/flagged" > "$tmp/out3" || fail "validate of a flagged run failed"
sed -n 2p "$tmp/out3" | grep -q "^note: the sampled run is flagged: clock-drift: the clocks drifted during the run" \
  || fail "the run's flag is not said first: $(head -n 3 "$tmp/out3")"

# the written samples (REVPROF_ANALYSIS=write): where they hold the
# class's count, the exact median of their latency_corrected_s (the drift
# corrected) stands for the histogram's: class 4's samples at twice the
# model's latency (their latency_s, as measured, far off); class 10 one
# sample short, the others without any: their histograms' medians, said
mkdir -p "$tmp/written"
cp "$tmp/run/latency.csv" "$tmp/written/"
t4=$(awk '$1 == 4 { print $5 }' "$tmp/want") t10=$(awk '$1 == 10 { print $5 }' "$tmp/want")
{ echo "src,dst,send_site,recv_site,bytes,t_send_s,latency_s,latency_corrected_s"
  awk -v t="$t4" 'BEGIN { for (i = 0; i < 1000; i++) printf "0,1,0x1,0x2,12,%.9f,1.0,%.9e\n", i * 1e-3, t * (1.5 + i / 999) }'
  awk -v t="$t10" 'BEGIN { for (i = 0; i < 999; i++) printf "0,1,0x1,0x2,700,%.9f,1.0,%.9e\n", i * 1e-3, 5 * t }'
} > "$tmp/written/samples.rank1.csv"
echo "src,dst,send_site,recv_site,bytes,t_send_s,latency_s,latency_corrected_s" > "$tmp/written/samples.rank0.csv"
"$rp" validate --model "$ship" --csv "$tmp/w.csv" "$tmp/written" > "$tmp/out4" 2> "$tmp/err" || fail "validate with written samples: $(cat "$tmp/err")"
cat "$tmp/out4"
grep -q "^note: medians of 1 of 7 classes from the 1999 written samples (2 files $tmp/written/samples.rank\*.csv): exact, corrected for the clocks' drift (latency_corrected_s)$" "$tmp/out4" \
  || fail "the written samples not said: $(head -n 4 "$tmp/out4")"
grep -q "^note: the written samples do not hold latency.csv's count in class 0 (0 of 1000), 10 (999 of 1000), 12 (0 of 1000), 17 (0 of 1000), 20 (0 of 1000), 23 (0 of 1000): their medians are the histograms' (or means)$" "$tmp/out4" \
  || fail "the classes the samples do not match not said: $(head -n 4 "$tmp/out4")"
grep -q "^ *4  8\.\.15 .* +100\.0 %  no$" "$tmp/out4" || fail "class 4 not the samples' median: $(grep '^ *4  ' "$tmp/out4")"
grep -q "^ *10  .* [+-]0\.[0-9] %  yes$" "$tmp/out4" || fail "class 10 not the histogram's: $(grep '^ *10  ' "$tmp/out4")"
grep -q "^4,8,15,12,1000,.*,samples," "$tmp/w.csv" && grep -q "^10,512,1023,700,1000,.*,median," "$tmp/w.csv" \
  || fail "--csv measured_from: $(cat "$tmp/w.csv")"
# files from before latency_corrected_s: their latency_s
awk -F, 'NR == 1 { print "src,dst,send_site,recv_site,bytes,t_send_s,latency_s"; next }
  $5 == 12 { print $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $8 }' "$tmp/written/samples.rank1.csv" > "$tmp/written/old"
mv "$tmp/written/old" "$tmp/written/samples.rank1.csv"
"$rp" validate --model "$ship" "$tmp/written" > "$tmp/out4" 2> "$tmp/err" || fail "validate with old written samples: $(cat "$tmp/err")"
grep -q "^note: medians of 1 of 7 classes from the 1000 written samples (2 files .*): exact, as measured (files without latency_corrected_s)$" "$tmp/out4" \
  && grep -q "^ *4  8\.\.15 .* +100\.0 %  no$" "$tmp/out4" || fail "old written samples: $(head -n 5 "$tmp/out4")"

# no calls.csv (an older run): said after the latency table, nothing else
grep -q "^calls: $tmp/run/calls.csv: No such file or directory: send calls not compared" "$tmp/out" \
  || fail "a missing calls.csv not said: $(tail -n 2 "$tmp/out")"

# calls.csv: the send calls' own time, MPI_Send rows (two ranks, class 4)
# whose time is the model's MPI_Send at their size, an MPI_Ssend row
# costed as MPI_Send at 3 times it, and a call the model has no row for;
# every message of a row in the bucket of its time, min = max = that time
# (the histogram's median is then the time itself)
call_row() { # CALL COSTED_AS RANK CLASS LO HI MEAN COUNT FACTOR
  t=$("$rp" model eval "$ship" "$2" 2 "$7" 2> /dev/null | cut -d' ' -f2)
  [ -n "$t" ] || t=1e-6 # no such row
  awk -v c="$1" -v ca="$2" -v r="$3" -v sc="$4" -v lo="$5" -v hi="$6" -v m="$7" -v n="$8" -v t="$t" -v f="$9" 'BEGIN {
    t *= f; k = int(4 * log(t / 1e-7) / log(10)) + 1; s = c "," ca "," r "," sc "," lo "," hi "," m "," n "," t "," t "," t ",0"
    for (i = 0; i < 34; i++) s = s "," (i == k ? n : 0); print s }'
}
{
  echo "# revprof sample mode: the sender's time in the send calls"
  printf 'call,costed_as,rank,size_class,bytes_lo,bytes_hi,bytes_mean,count,mean_s,min_s,max_s,sd_s'
  for b in $(seq 0 33); do printf ',b%02d' "$b"; done
  echo
  call_row MPI_Send MPI_Send 0 4 8 15 8 100 1
  call_row MPI_Send MPI_Send 1 4 8 15 8 50 1
  call_row MPI_Send MPI_Send 0 17 65536 131071 65536 10 1
  call_row MPI_Ssend MPI_Send 0 10 512 1023 512 20 3
  call_row MPI_Nosuch MPI_Nosuch 0 4 8 15 8 5 1
} > "$tmp/run/calls.csv"
"$rp" validate --model "$ship" --calls-csv "$tmp/c.csv" "$tmp/run" > "$tmp/out" 2> "$tmp/err"; rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || fail "validate with calls.csv: exit $rc: $(cat "$tmp/err")"
[ "$(head -n 1 "$tmp/c.csv")" = "call,costed_as,size_class,bytes_lo,bytes_hi,bytes_mean,count,measured_s,measured_from,predicted_min_s,predicted_avg_s,predicted_max_s,error_pct,inside,extrapolated" ] \
  && grep -q '^MPI_Send,MPI_Send,4,8,15,8,150,.*,median,.*,yes,no$' "$tmp/c.csv" \
  && grep -q '^MPI_Ssend,MPI_Send,10,512,1023,512,20,.*,no,no$' "$tmp/c.csv" \
  && [ "$(wc -l < "$tmp/c.csv")" -eq 5 ] || fail "--calls-csv: $(cat "$tmp/c.csv")"
grep -q "^validate: 7 classes, median |error| 0\.[0-9] %, 7 of 7 inside the model's bounds$" "$tmp/out" \
  || fail "calls.csv changed the latency summary"
grep -q "^calls: $tmp/run/calls.csv: 5 rows; " "$tmp/out" || fail "calls.csv not read"
grep -q "^MPI_Send (costed as MPI_Send at p = 2)$" "$tmp/out" || fail "no MPI_Send table"
grep -q "^validate \[MPI_Send\]: 2 classes, median |error| 0\.0 %, 2 of 2 inside the model's bounds$" "$tmp/out" \
  || fail "MPI_Send summary: $(grep '^validate \[MPI_Send\]' "$tmp/out")"
grep -q "^ *4  8\.\.15  *8  *150 " "$tmp/out" || fail "the two ranks' MPI_Send rows not merged"
grep -q "^validate \[MPI_Ssend\]: 1 classes, median |error| 200\.0 %, 0 of 1 inside the model's bounds$" "$tmp/out" \
  || fail "MPI_Ssend at 3x MPI_Send: $(grep '^validate \[MPI_Ssend\]' "$tmp/out")"
grep -q "^note: .* has no MPI_Nosuch row: measured times only, nothing to compare$" "$tmp/out" \
  && grep -q "^validate \[MPI_Nosuch\]: 1 classes, median |error| n/a, 0 of 1 inside" "$tmp/out" \
  || fail "a call without a model row"
# a bad calls.csv: said, the latency table stands, exit 0
sed -i '4s/,1,4,/,x,4,/' "$tmp/run/calls.csv"
"$rp" validate --model "$ship" "$tmp/run" > "$tmp/out" 2> "$tmp/err" || fail "a bad calls.csv: exit $?"
grep -q "^validate: 7 classes, " "$tmp/out" && grep -q "^calls: $tmp/run/calls.csv:4: rank: 'x' is not a whole number >= 0$" "$tmp/out" \
  || fail "a bad calls.csv: $(tail -n 2 "$tmp/out")"
rm "$tmp/run/calls.csv"

# against a model whose latency constants are 10 times larger
sed '/^    latency = {/,/^    },/{/^ *\(avg\|min\|max\) = {/s/\([{,]\) \([0-9]\)/\1 10 * \2/g}' "$ship" > "$tmp/x10.lua"
nlat=$(sed -n '/^    latency = {/,/^    },/p' "$ship" | grep -c '^ *avg = {')
[ "$nlat" -ge 1 ] && [ "$(grep -c '10 \* ' "$tmp/x10.lua")" -eq $((3 * nlat)) ] \
  || fail "sed did not scale the $((3 * nlat)) latency equations ($nlat regimes)"
x1=$("$rp" model eval "$ship" latency 2 700 | cut -d' ' -f2)
x10=$("$rp" model eval "$tmp/x10.lua" latency 2 700 | cut -d' ' -f2) || fail "the x10 model does not load"
awk -v a="$x1" -v b="$x10" 'BEGIN { exit !(b > 9.99 * a && b < 10.01 * a) }' || fail "x10 model: $x10 against $x1"
"$rp" validate --model "$tmp/x10.lua" "$tmp/run" > "$tmp/out" 2> "$tmp/err"; rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || fail "validate against the x10 model: exit $rc: $(cat "$tmp/err")"
grep -q "^validate: 7 classes, median |error| 90\.0 %, 0 of 7 inside the model's bounds$" "$tmp/out" \
  || fail "summary against the x10 model: $(tail -n 1 "$tmp/out")"
[ "$(grep -c " -[5-9][0-9]\.[0-9] %  no" "$tmp/out")" -eq 7 ] || fail "not every class a large error outside"

# a model without a latency row: said first, measured values only
sed '/^    latency = {/,/^    },/d' "$ship" > "$tmp/nolat.lua"
"$rp" validate --model "$tmp/nolat.lua" "$tmp/run" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "validate against a model without latency: exit $rc: $(cat "$tmp/err")"
sed -n 2p "$tmp/out" | grep -q "^note: .*nolat.lua has no latency row: measured latencies only, nothing to compare$" \
  || fail "no latency row not said first: $(head -n 3 "$tmp/out")"
grep -q "^validate: 7 classes, median |error| n/a, 0 of 7 inside the model's bounds$" "$tmp/out" \
  || fail "summary without latency row: $(tail -n 1 "$tmp/out")"

# bad inputs: exit 2, naming the file (and line)
bad() { # NAME WANT: validate $tmp/NAME exits 2 with WANT on stderr
  "$rp" validate --model "$ship" "$tmp/$1" > /dev/null 2> "$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "$1: exit $rc, expected 2"
  grep -qF "revprof validate: $tmp/$2" "$tmp/err" || fail "$1: message: $(cat "$tmp/err")"
}
bad nodir "nodir: cannot open: No such file or directory"
mkdir "$tmp/short" "$tmp/word" "$tmp/header" "$tmp/empty"
sed '7s/.*/0,1,"x.c:1 f","y.c:2 g",4,8,15,12,500,1e-06,1e-06,1e-06/' "$tmp/run/latency.csv" > "$tmp/short/latency.csv"
bad short "short/latency.csv:7: expected 47 fields, found 12"
sed '4s/,1e-07,/,abc,/' "$tmp/run/latency.csv" > "$tmp/word/latency.csv"
bad word "word/latency.csv:4: sd_s: 'abc' is not a number >= 0"
sed '2s/bytes_mean/bytes_avg/' "$tmp/run/latency.csv" > "$tmp/header/latency.csv"
bad header "header/latency.csv:2: not the header of a sample-mode latency.csv: column 8 is 'bytes_avg', expected 'bytes_mean'"
head -n 2 "$tmp/run/latency.csv" > "$tmp/empty/latency.csv"
bad empty "empty/latency.csv: no rows after the header (no message sampled)"
"$rp" validate "$tmp/run" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no machine model: give --model" "$tmp/err" || fail "no --model: exit $rc, $(cat "$tmp/err")"
"$rp" validate --model "$tmp/none.lua" "$tmp/run" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "none.lua" "$tmp/err" || fail "missing model: exit $rc, $(cat "$tmp/err")"
"$rp" validate --model "$ship" --bogus "$tmp/run" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc"

# help
"$rp" validate --help > "$tmp/out" || fail "validate --help failed"
grep -q "^usage: revprof validate --model MODEL.lua \[--csv FILE\] \[--calls-csv FILE\] DIR$" "$tmp/out" || fail "validate --help: $(cat "$tmp/out")"
"$rp" --help | grep -q "^  validate --model M DIR " || fail "revprof --help does not list validate"
echo "validate_cli: ok"
