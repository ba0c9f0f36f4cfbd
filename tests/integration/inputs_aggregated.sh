#!/usr/bin/env bash
# Aggregated perf script input (issue #13, inputs): llvm-profgen reads text
# where a count line precedes a sample (its aggregated inputs, from perf
# script post-processing).  The counts are weights: the profile of the
# aggregated text equals that of the plain text and llvm-profgen-19's of the
# aggregated text, for LBR samples and for stack + LBR samples.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 perf qemu-x86_64
scratch

clang-19 -O2 -g -fdebug-info-for-profiling -fno-pie -no-pie -o prog "$SPGO_SRC/tests/data/perf_prog.c"
"$SPGO" emulate -o e.data -- ./prog 20000 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
perf script -i e.data -F ip,brstack -G > plain.script 2>/dev/null
# identical samples counted: "COUNT\n<sample line>"
grep -v '^$' plain.script | sort | uniq -c | awk '{ c = $1; sub(/^ *[0-9]+ /, ""); print c; print " " $0 }' > agg.script
[ "$(wc -l < agg.script)" -lt "$(wc -l < plain.script)" ] || { echo "FAIL: nothing to aggregate"; exit 1; }
"$SPGO" gen --binary prog --perf-script plain.script -o plain.txt --format text --quiet || bad "plain text"
if "$SPGO" gen --binary prog --perf-script agg.script -o agg.txt --format text 2>err.txt; then
  cmp -s plain.txt agg.txt || { bad "aggregated: another profile than the plain text"; diff plain.txt agg.txt | head; }
  grep -q "LBR mode" err.txt || { bad "aggregated: not LBR mode"; cat err.txt; }
else
  bad "aggregated: spgo gen fails"; cat err.txt
fi
llvm-profgen-19 --binary prog --perfscript agg.script -o pg.txt --format text >/dev/null 2>&1 ||
  bad "llvm-profgen-19 on the aggregated text"
cmp -s pg.txt agg.txt || bad "aggregated: not llvm-profgen-19's profile"

# stack + LBR samples, aggregated: the count before the stack's lines
perf script -i e.data -F ip,brstack > stacks.script 2>/dev/null
awk 'BEGIN { RS = ""; FS = "\n" } { s = $1; for (i = 2; i <= NF; i++) s = s "\n" $i; n[s]++ }
     END { for (s in n) { print n[s]; print s } }' stacks.script > stacks_agg.script
"$SPGO" gen --binary prog --perf-script stacks.script -o stacks.txt --format text --quiet || bad "stack text"
"$SPGO" gen --binary prog --perf-script stacks_agg.script -o stacks_agg.txt --format text --quiet ||
  bad "aggregated stack text"
cmp -s stacks.txt stacks_agg.txt || bad "aggregated stacks: another profile than the plain text"
[ $fail -eq 0 ] && echo "inputs_aggregated: ok"
exit $fail
