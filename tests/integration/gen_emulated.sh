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

# A pseudo-probe build (clang's probe ids fill the discriminators of calls,
# beyond libdw's 24 bits): spgo's line profile equals llvm-profgen-19's
# --use-dwarf-correlation profile of the same capture, byte for byte.
clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
  -fno-pie -no-pie -o minivm-probe "$SPGO_SRC/examples/minivm/minivm.c"
"$SPGO" emulate -c 2000 -o p.data -- ./minivm-probe 1 >/dev/null 2>err.txt ||
  { cat err.txt; bad "spgo emulate (probe build)"; }
"$SPGO" gen --binary minivm-probe --perf-data p.data -o sp-probe.txt --format text --quiet --use-dwarf-correlation || bad "spgo gen (probe build)"
perf script -i p.data -F ip,brstack > p.script 2>/dev/null
llvm-profgen-19 --binary=minivm-probe --perfscript=p.script --format=text --ignore-stack-samples \
  --use-dwarf-correlation -o pg-probe.txt >/dev/null 2>&1 || bad "llvm-profgen-19 --use-dwarf-correlation"
if cmp -s pg-probe.txt sp-probe.txt; then
  echo "probe build: spgo's line profile is identical to llvm-profgen-19 --use-dwarf-correlation"
else
  bad "probe build: profile differs from llvm-profgen-19 --use-dwarf-correlation:"; diff pg-probe.txt sp-probe.txt | head -10
fi
grep -q '^ [0-9]*: [1-9]' sp-probe.txt || bad "probe build: no body line with samples"

"$SPGO" gen --binary minivm --perf-data e.data -o sp.gcov --format gcov --quiet || bad "spgo gen gcov"
"$SPGO" show sp.gcov >/dev/null || bad "gcov profile does not read back"
[ $fail -eq 0 ] && echo "gen_emulated: ok"
exit $fail
