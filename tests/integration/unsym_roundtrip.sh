#!/usr/bin/env bash
# Unsymbolized profiles (spgo aggregate, spgo merge, spgo gen --unsymbolized)
# on an emulated capture of the demo program, and their interoperation with
# llvm-profgen-19.
#  - Round trip: perf.data -> spgo aggregate -> spgo gen --unsymbolized
#    writes the same profile, byte for byte, as spgo gen --perf-data, for
#    LBR, IP (--mode ip) and CS (--cs) data, through the binary and the text
#    form.
#  - Merge: three captures aggregated one by one and merged (any order, by
#    twos or at once) give the bytes of one aggregate of the three, and gen
#    from them the profile of the three read together.
#  - llvm-profgen-19 --unsymbolized-profile reads spgo's profgen form and
#    writes the same profile as from the perf script text; spgo reads
#    llvm-profgen's --skip-symbolization output (plain and CS) and gen
#    writes the profile it makes from the perf.data.
#  - Cold-key trimming at 1% (at most 1% of each map's count dropped, so
#    the normalized counts move by at most 2%) keeps the similarity >= 98%.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64 llvm-profgen-19 llvm-profdata-19
scratch

# minivm (-O2 -g -fdebug-info-for-profiling, frame pointers, no PIE) and
# e1.data..e3.data (spgo emulate -c 4001 --seed S -- ./minivm S): the
# fixture minivm_captures, made once for the tests that read them alike
minivm_captures 3
gen() { "$SPGO" gen --quiet --binary minivm --format text "$@"; }

for kind in lbr ip cs; do
  a=(); g=()
  [ $kind = cs ] && a=(--cs) g=(--cs)
  [ $kind = ip ] && g=(--mode ip)
  gen "${g[@]}" --perf-data e1.data -o direct.$kind 2>/dev/null || bad "gen $kind from perf.data"
  for f in bin text; do
    "$SPGO" aggregate --quiet "${a[@]}" --format $f --binary minivm -o e1.$kind.$f e1.data || bad "aggregate $kind $f"
    gen "${g[@]}" --unsymbolized e1.$kind.$f -o un.$kind.$f 2>/dev/null || bad "gen --unsymbolized $kind $f"
    cmp -s direct.$kind un.$kind.$f || bad "$kind: gen from the $f form differs from gen from perf.data"
  done
done
# Merge: any order and grouping, the bytes of one aggregate over all inputs
"$SPGO" aggregate --quiet --cs --binary minivm -o all.unsym e1.data e2.data e3.data || bad "aggregate all"
for s in 1 2 3; do "$SPGO" aggregate --quiet --cs --binary minivm -o h$s.unsym e$s.data || bad "aggregate $s"; done
"$SPGO" merge -o m1.unsym h3.unsym h1.unsym h2.unsym || bad "merge"
"$SPGO" merge --format text -o m12.txt h2.unsym h1.unsym && "$SPGO" merge -o m2.unsym h3.unsym m12.txt || bad "merge tree"
cmp -s m1.unsym all.unsym || bad "merge of three differs from the aggregate of the three"
cmp -s m2.unsym all.unsym || bad "merge by twos (through text) differs from the aggregate of the three"
gen --cs --unsymbolized h1.unsym h2.unsym h3.unsym -o cs3 2>/dev/null && gen --cs --unsymbolized all.unsym -o cs_all 2>/dev/null &&
  cmp -s cs3 cs_all || bad "gen --cs from three files differs from gen from their merge"
grep -q '^# hosts 3$' <("$SPGO" merge --format text -o - m1.unsym) || bad "the merged header does not count 3 hosts"

# llvm-profgen-19 reads spgo's profgen form: the profile it makes from perf script
"$SPGO" script -i e1.data -F ip,brstack > e1.script || bad "spgo script"
llvm-profgen-19 --binary=minivm --perfscript=e1.script --ignore-stack-samples --format=text -o pg_script.txt >/dev/null 2>&1 ||
  bad "llvm-profgen-19 --perfscript"
"$SPGO" aggregate --quiet --format profgen --binary minivm -o e1.profgen e1.data || bad "aggregate --format profgen"
llvm-profgen-19 --binary=minivm --unsymbolized-profile=e1.profgen --format=text -o pg_unsym.txt >pg.err 2>&1 ||
  { cat pg.err; bad "llvm-profgen-19 --unsymbolized-profile rejects spgo's form"; }
cmp -s pg_script.txt pg_unsym.txt || bad "llvm-profgen-19: the profile from spgo's unsymbolized form differs from perf script's"
# ... and spgo reads llvm-profgen's: gen makes the profile it makes from perf.data
llvm-profgen-19 --binary=minivm --perfscript=e1.script --ignore-stack-samples --skip-symbolization -o pg.unsym >/dev/null 2>&1 &&
  gen --unsymbolized pg.unsym -o from_pg 2>/dev/null || bad "gen from llvm-profgen's unsymbolized profile"
cmp -s from_pg direct.lbr || bad "gen from llvm-profgen's unsymbolized profile differs from gen from perf.data"
llvm-profgen-19 --binary=minivm --perfscript=e1.script --skip-symbolization -o pgcs.unsym >/dev/null 2>&1 &&
  gen --unsymbolized pgcs.unsym -o from_pgcs 2>/dev/null || bad "gen from llvm-profgen's CS unsymbolized profile"
s=$(llvm-profdata-19 overlap --sample direct.lbr from_pgcs | sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p')
echo "llvm-profgen's CS unsymbolized profile, flattened: similarity $s% to gen from perf.data"
awk -v s="$s" 'BEGIN { exit !(s + 0 >= 99) }' || bad "flattened llvm-profgen CS data: similarity $s% < 99%"

# Cold-key trimming at 1%: keys dropped, the profile barely moves
"$SPGO" merge --trim-cold 0.01 -o trim.unsym all.unsym 2>trim.err || bad "merge --trim-cold"
cat trim.err
gen --unsymbolized trim.unsym -o trimmed 2>/dev/null && gen --unsymbolized all.unsym -o untrimmed 2>/dev/null || bad "gen trimmed"
s=$(llvm-profdata-19 overlap --sample untrimmed trimmed | sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p')
echo "trimmed at 1%: $(stat -c %s trim.unsym) of $(stat -c %s all.unsym) bytes, similarity $s%"
awk -v s="$s" 'BEGIN { exit !(s + 0 >= 98) }' || bad "trimmed profile similarity $s% < 98%"

# Errors: the wrong binary, a damaged file
clang-19 -O2 -g -o other "$SPGO_SRC/tests/integration/lib/tailcalls.c"
"$SPGO" gen --binary other --unsymbolized all.unsym -o x 2>err.txt && bad "gen with the wrong binary succeeded"
grep -q "no section of the unsymbolized profile" err.txt || { cat err.txt; bad "no clear error for the wrong binary"; }
head -c 300 all.unsym > cut.unsym
"$SPGO" merge -o x cut.unsym 2>err.txt && bad "a truncated file merged"
grep -q "cut.unsym: offset" err.txt || { cat err.txt; bad "no offset in the error on a truncated file"; }

[ $fail -eq 0 ] && echo "unsym_roundtrip: ok"
exit $fail
