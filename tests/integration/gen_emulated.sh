#!/usr/bin/env bash
# spgo gen on a modern LBR capture: the demo program (clang-19 -O2 -g
# -fdebug-info-for-profiling, fixed addresses) under `spgo emulate` with
# ground truth (32-entry LBR and call stacks, perf 6 style perf.data).
#  - spgo's profile equals llvm-profgen-19's on `perf script -F ip,brstack`
#    of the same file (--ignore-stack-samples: the non-CS profile);
#  - it is close to the reference made from the exact counts
#    (`spgo gen --ground-truth`): llvm-profdata-19 similarity >= 97%;
#  - the reference itself is sane: its hottest function is the
#    interpreter's, and a gcov profile of the same data reads back.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 perf qemu-x86_64
scratch
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

clang-19 -O2 -g -fdebug-info-for-profiling -fno-pie -no-pie -o minivm "$SPGO_SRC/examples/minivm/minivm.c"
"$SPGO" emulate -c 2000 -o e.data --ground-truth e.gt -- ./minivm 1 >/dev/null 2>err.txt ||
  { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" gen --binary minivm --perf-data e.data -o sp.txt --format text --quiet || bad "spgo gen"
"$SPGO" gen --binary minivm --ground-truth e.gt -o truth.txt --format text --quiet || bad "spgo gen --ground-truth"
perf script -i e.data -F ip,brstack > e.script 2>/dev/null
llvm-profgen-19 --binary=minivm --perfscript=e.script --format=text --ignore-stack-samples \
  -o pg.txt >/dev/null 2>&1 || bad "llvm-profgen-19"

s=$(llvm-profdata-19 overlap --sample pg.txt sp.txt | similarity)
echo "llvm-profgen-19 vs spgo: similarity $s%"
atleast "$s" 99.9 || bad "similarity to llvm-profgen-19 $s% < 99.9%"
cmp -s pg.txt sp.txt || { echo "note: text differs from llvm-profgen-19's:"; diff pg.txt sp.txt | head -10; }

s=$(llvm-profdata-19 overlap --sample truth.txt sp.txt | similarity)
echo "ground truth vs spgo: similarity $s%"
atleast "$s" 97 || bad "similarity to the ground truth $s% < 97%"
hot=$("$SPGO" show truth.txt | awk 'NR > 6 && NF == 3 { print $3; exit }')
[ "$hot" = main ] || bad "hottest function of the reference is '$hot', not main (the interpreter loop)"

"$SPGO" gen --binary minivm --perf-data e.data -o sp.gcov --format gcov --quiet || bad "spgo gen gcov"
"$SPGO" show sp.gcov >/dev/null || bad "gcov profile does not read back"
[ $fail -eq 0 ] && echo "gen_emulated: ok"
exit $fail
