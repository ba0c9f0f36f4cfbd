#!/usr/bin/env bash
# spgo reads what the other tools write, and agrees with them about it.  On
# the shared gzip LBR capture: llvm-profgen-19 (text and extbinary),
# llvm-profdata-19 merge (weighted, zlib, MD5) and create_gcov write
# profiles; spgo must
#  - convert each to the same text llvm-profdata-19 merge --text prints;
#  - keep the profile symbol list and the partial flag when rewriting;
#  - show the same per-function totals and heads as llvm-profdata-19 show
#    and dump_gcov;
#  - merge with weights like llvm-profdata-19 merge;
#  - trim to the functions at or above the summary's 60% hot count;
#  - rewrite the create_gcov file so that dump_gcov prints it identically;
#  - print the program-level figures of llvm-profdata-19 overlap --sample
#    (identical to the printed three decimals, i.e. within 0.001%), and its
#    function-level figures (to two decimals).
. "$(dirname "$0")/lib/common.sh" || exit 1
data="$SPGO_SHARED/data/autofdo-gzip"
[ -r "$data/test.binary" ] && [ -r "$data/test.lbr" ] || { echo "skip: no shared gzip capture"; exit 77; }
need perf llvm-profgen-19 llvm-profdata-19 create_gcov dump_gcov
scratch
cp "$data/test.binary" "$data/test.lbr" . && chmod u+w test.binary test.lbr
perf script -i test.lbr -F ip,brstack > x.perfscript 2>/dev/null || { echo "FAIL: perf script"; exit 1; }
llvm-profgen-19 --binary=test.binary --perfscript=x.perfscript --format=text -o pg.txt 2>/dev/null
llvm-profgen-19 --binary=test.binary --perfscript=x.perfscript --format=extbinary -o pg.ext 2>/dev/null
[ -s pg.txt ] && [ -s pg.ext ] || { echo "FAIL: llvm-profgen-19 wrote nothing"; exit 1; }
llvm-profdata-19 merge --sample --extbinary --weighted-input=2,pg.txt pg.ext -o lm.ext
llvm-profdata-19 merge --sample --extbinary --compress-all-sections --use-md5 pg.txt -o lmz.ext
create_gcov --binary=test.binary --profile=test.lbr --gcov=cg.gcov >/dev/null 2>&1
[ -s cg.gcov ] || { echo "FAIL: create_gcov wrote nothing"; exit 1; }

# the same text
for f in pg.txt pg.ext lm.ext lmz.ext; do
  llvm-profdata-19 merge --sample --text "$f" -o want.txt
  "$SPGO" convert "$f" -o got.txt --format text || bad "$f: spgo cannot read it"
  cmp -s want.txt got.txt || bad "$f: text differs from llvm-profdata merge --text"
done

# the profile symbol list and the partial flag survive a rewrite
printf 'main\nunused_sym\nlongest_match\n' > syms
llvm-profdata-19 merge --sample --extbinary --gen-partial-profile --prof-sym-list=syms pg.txt -o sym.ext
"$SPGO" convert sym.ext -o sym2.ext --format extbinary --compress || bad "sym.ext: rewrite"
llvm-profdata-19 show --sample --show-prof-sym-list sym.ext > want
llvm-profdata-19 show --sample --show-prof-sym-list sym2.ext > got
grep -q unused_sym got && cmp -s want got || bad "symbol list lost in a rewrite"
llvm-profdata-19 show --sample --show-sec-info-only sym2.ext | grep -q '^ProfileSummarySection.*partial' ||
  bad "partial flag lost in a rewrite"

# the same totals and heads per function
for f in pg.txt pg.ext lm.ext; do
  llvm-profdata-19 show --sample "$f" | sed -n 's/^Function: \(.*\): \([0-9]*\), \([0-9]*\), .*/\2 \3 \1/p' |
    sort > want
  "$SPGO" show "$f" --top 0 | awk 'f { print $1, $2, $3 } /^total +head/ { f = 1 }' | sort > got
  [ -s want ] && cmp -s want got || bad "$f: spgo show disagrees with llvm-profdata show"
done
dump_gcov cg.gcov > want.dump 2>/dev/null
sed -n 's/^\([^ ].*\) total:\([0-9]*\) head:\([0-9]*\)$/\2 \3 \1/p' want.dump | sort > want
"$SPGO" show cg.gcov --top 0 | awk 'f { print $1, $2, $3 } /^total +head/ { f = 1 }' | sort > got
[ -s want ] && cmp -s want got || bad "cg.gcov: spgo show disagrees with dump_gcov"
"$SPGO" convert cg.gcov -o rw.gcov --gcov-version 1 || bad "cg.gcov: rewrite"
dump_gcov rw.gcov > got.dump 2>&1
cmp -s want.dump got.dump || bad "cg.gcov: dump_gcov prints our rewrite differently"

# weighted merge of mixed formats
llvm-profdata-19 merge --sample --text --weighted-input=3,pg.ext pg.txt -o want.txt
"$SPGO" merge --weight 3:pg.ext pg.txt -o got.txt --format text || bad "merge failed"
cmp -s want.txt got.txt || bad "weighted merge differs from llvm-profdata merge"
"$SPGO" merge pg.txt cg.gcov -o mix.ext --format extbinary || bad "merge text+gcov failed"

# trim at the 60% hot count: exactly the functions LLVM's summary calls hot stay
thr=$(llvm-profdata-19 show --sample --detailed-summary pg.txt |
  sed -n 's/.* with count >= \([0-9]*\) account for 60 percentage.*/\1/p')
"$SPGO" trim pg.txt -o trimmed.txt --percentile 60 2>/dev/null || bad "trim failed"
want=$(llvm-profdata-19 show --sample pg.txt | sed -n 's/^Function: .*: \([0-9]*\), [0-9]*, .*/\1/p' |
  awk -v t="$thr" '$1 >= t' | wc -l)
got=$(grep -c '^[^ ]' trimmed.txt)
[ -n "$thr" ] && [ "$want" -gt 0 ] && [ "$want" -eq "$got" ] || bad "trim kept $got functions, want $want (threshold $thr)"

# overlap: perturbed counts, a dropped function, a doubled profile
awk 'NR % 7 == 0 { sub(/: [0-9]+/, ": 77") } 1' pg.txt > p1.txt
awk '/^[^ ]/ { skip = (++n == 3) } !skip' pg.txt > p2.txt
awk 'NR % 5 == 0 && /^ / && !/^  / { next } 1' pg.txt > p3.txt
for pair in "pg.txt p1.txt" "pg.txt p2.txt" "p2.txt p1.txt" "pg.txt lm.ext" "p3.txt pg.ext"; do
  set -- $pair
  llvm-profdata-19 overlap --sample "$1" "$2" | sed -n '2,/hot blocks unique in test/p' > want
  "$SPGO" overlap "$1" "$2" | sed -n '2,/hot blocks unique in test/p' > got
  [ -s want ] && cmp -s want got || { bad "overlap $1 $2 differs"; diff want got; }
done
# function level: the figures of llvm-profdata-19 overlap --function F
for fn in deflate longest_match fill_window; do
  want=$(llvm-profdata-19 overlap --sample --function=$fn pg.txt p1.txt | awk -v f=$fn '$NF == f { $NF = ""; print }')
  got=$("$SPGO" overlap pg.txt p1.txt --top 100 | awk -v f=$fn '/^Samples where/ { exit } $NF == f { $NF = ""; print }')
  [ -n "$want" ] && [ "$want" = "$got" ] || bad "overlap of $fn: '$got', want '$want'"
done
exit $fail
