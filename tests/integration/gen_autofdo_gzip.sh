#!/usr/bin/env bash
# spgo gen on the shared real LBR capture (gzip by GCC 4.6, perf 3.3 data)
# against the tools everyone uses, on the same input:
#  - LLVM: `spgo gen --perf-data test.lbr` (straight from perf.data) and
#    `spgo gen --perf-script` (from the text) vs llvm-profgen-19 fed
#    `perf script -F ip,brstack`: llvm-profdata-19 overlap --sample must
#    report a whole-program similarity of at least 99.9% (we expect 100%:
#    the text profiles are compared line for line and are identical today;
#    a difference is reported with the diff).
#  - extbinary: the same profile through llvm-profdata-19 merge --text.
#  - GCC: `spgo gen --format gcov` vs create_gcov: spgo overlap >= 99.9%,
#    and the same profile line for line (as text): the same functions (a
#    part of code at or below create_gcov's noise floor gets no profile,
#    src/gen/gen_gcc.c: here `inflate`, one range of count 1, and its call
#    into inflate_block), lines, zero lines, head counts and call targets.
#    Only call-target counts may differ: where several call instructions
#    at one source line call the same function, create_gcov keeps the
#    last one's count and spgo their sum (send_bits inlined into
#    compress_block: 6 vs 14).  Neither raises a body sample to the sum of
#    its call targets in GCC mode.
. "$(dirname "$0")/lib/common.sh" || exit 1
data="$SPGO_SHARED/data/autofdo-gzip"
[ -r "$data/test.binary" ] && [ -r "$data/test.lbr" ] || { echo "skip: no shared gzip capture"; exit 77; }
need perf llvm-profgen-19 llvm-profdata-19 create_gcov
scratch
cp "$data/test.binary" "$data/test.lbr" . && chmod u+w test.binary test.lbr
perf script -i test.lbr -F ip,brstack > x.perfscript 2>/dev/null || { echo "FAIL: perf script"; exit 1; }
llvm-profgen-19 --binary=test.binary --perfscript=x.perfscript --format=text -o pg.txt 2>/dev/null
[ -s pg.txt ] || { echo "FAIL: llvm-profgen-19 wrote nothing"; exit 1; }

# similarity in percent from llvm-profdata-19 overlap --sample / spgo overlap
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

"$SPGO" gen --binary test.binary --perf-data test.lbr -o sp.txt --format text 2>gen.err ||
  { cat gen.err; echo "FAIL: spgo gen"; exit 1; }
grep -q "matched by file name" gen.err || bad "statistics do not say how the binary was matched"
s=$(llvm-profdata-19 overlap --sample pg.txt sp.txt | similarity)
echo "llvm-profgen-19 vs spgo gen --perf-data: similarity $s%"
atleast "$s" 99.9 || bad "similarity $s% < 99.9%"
cmp -s pg.txt sp.txt || { bad "text differs from llvm-profgen-19's"; diff pg.txt sp.txt | head -20; }

"$SPGO" gen --binary test.binary --perf-script x.perfscript -o sps.txt --format text --quiet ||
  bad "spgo gen --perf-script"
s=$(llvm-profdata-19 overlap --sample pg.txt sps.txt | similarity)
echo "llvm-profgen-19 vs spgo gen --perf-script: similarity $s%"
atleast "$s" 99.9 || bad "perf-script input: similarity $s% < 99.9%"

"$SPGO" gen --binary test.binary --perf-data test.lbr -o sp.ext --format extbinary --quiet || bad "spgo gen extbinary"
llvm-profdata-19 merge --sample --text sp.ext -o sp.ext.txt || bad "llvm-profdata-19 cannot read the extbinary"
llvm-profdata-19 merge --sample --text pg.txt -o pg.norm.txt
cmp -s pg.norm.txt sp.ext.txt || bad "extbinary reads back differently from llvm-profgen-19's profile"

create_gcov --binary=test.binary --profile=test.lbr --gcov=cg.gcov >/dev/null 2>&1
[ -s cg.gcov ] || { echo "FAIL: create_gcov wrote nothing"; exit 1; }
"$SPGO" gen --binary test.binary --perf-data test.lbr -o sp.gcov --format gcov --quiet || bad "spgo gen gcov"
s=$("$SPGO" overlap cg.gcov sp.gcov | similarity)
echo "create_gcov vs spgo gen --format gcov: similarity $s%"
atleast "$s" 99.9 || bad "gcov similarity $s% < 99.9%"
# line for line, call-target counts left out (see above)
"$SPGO" convert cg.gcov --format text -o cg.txt && "$SPGO" convert sp.gcov --format text -o spg.txt ||
  bad "spgo convert gcov to text"
no_target_counts() { sed -E '/^ +[0-9.]+: [0-9]+ /s/ ([^ :]+):[0-9]+/ \1/g' "$1"; }
if ! cmp -s <(no_target_counts cg.txt) <(no_target_counts spg.txt); then
  bad "gcov differs from create_gcov's beyond call-target counts"
  diff <(no_target_counts cg.txt) <(no_target_counts spg.txt) | head -20
fi
if command -v dump_gcov >/dev/null; then
  "$SPGO" gen --binary test.binary --perf-data test.lbr -o sp1.gcov --format gcov --gcov-version 1 --quiet
  dump_gcov sp1.gcov >/dev/null 2>&1 || bad "dump_gcov cannot read spgo's gcov (version 1)"
fi
[ $fail -eq 0 ] && echo "gen_autofdo_gzip: ok"
exit $fail
