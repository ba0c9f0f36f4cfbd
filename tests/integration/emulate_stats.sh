#!/usr/bin/env bash
# spgo emulate statistical faithfulness (acceptance 3): execution counts
# estimated from the emulated LBR ranges overlap the exact counts at block
# level by at least 0.98 on a loop-heavy program.
source "$SPGO_SRC/tests/data/emulate/common.sh"
command -v perf >/dev/null || { echo "skip: perf not installed"; exit 77; }

"$SPGO" emulate -c 997 -o p.data --ground-truth gt.txt -- ./prog 3000 > /dev/null
perf script -i p.data -F brstack > br.txt 2> err.txt
[ ! -s err.txt ] || { cat err.txt; fail "perf script complained"; }
read -r _ blocks ranges ov < <(awk -f "$data/overlap.awk" gt.txt br.txt)
echo "blocks=$blocks ranges=$ranges overlap=$ov"
[ "$blocks" -gt 20 ] && [ "$ranges" -gt 10000 ] || fail "too little data: $blocks blocks, $ranges ranges"
awk -v o="$ov" 'BEGIN { exit !(o >= 0.98) }' || fail "block overlap $ov < 0.98"

# The period is randomized: uniform in [P/2, 3P/2], mean P (997), many values.
perf script -i p.data -F period > periods.txt
awk '{ n++; s += $1; if ($1 < 498 || $1 > 1496) bad++; v[$1] = 1 } END {
  for (k in v) d++; m = s / n; printf "periods: %d samples, mean %.1f, %d distinct\n", n, m, d
  exit !(bad == 0 && m > 960 && m < 1035 && d > 500) }' periods.txt || fail "sampling periods not randomized as documented"

# Every seed its own sampling: seeds 2 and 3 once drew the same periods
# (xorshift's state had its low bit forced to 1).
for sd in 2 3; do
  "$SPGO" emulate -c 997 --seed $sd -o s$sd.data -- ./prog 300 > /dev/null
  perf script -i s$sd.data -F period > s$sd.txt
done
! cmp -s s2.txt s3.txt || fail "--seed 2 and --seed 3 sample the same periods"

# A 16-entry LBR gives half the ranges per sample and still a faithful estimate.
"$SPGO" emulate -c 997 --lbr 16 --seed 7 -o p16.data -- ./prog 3000 > /dev/null
perf script -i p16.data -F brstack > br16.txt
awk '{ n = 0; for (f = 1; f <= NF; f++) if ($f ~ /^0x/) n++; if (n != 16) bad++ }
     END { exit bad > 5 }' br16.txt || fail "--lbr 16 samples do not hold 16 entries"
read -r _ _ _ ov16 < <(awk -f "$data/overlap.awk" gt.txt br16.txt)
echo "lbr16 overlap=$ov16"
awk -v o="$ov16" 'BEGIN { exit !(o >= 0.97) }' || fail "16-entry block overlap $ov16 < 0.97"
echo "emulate_stats: ok"
