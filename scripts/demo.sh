#!/usr/bin/env bash
# make demo: for now, the binary model on the bundled example program.
# Builds tests/data/inline_demo.c with clang-19 -O2 -g
# -fdebug-info-for-profiling, runs it, and symbolizes a few of its
# instructions: the deepest inline stacks, with discriminators.  (Later
# issues grow this into the whole record -> profile -> rebuild loop.)
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
spgo="$src/$build/spgo"
out="$src/$build/demo"
mkdir -p "$out"
cd "$out"

echo "== build the example: clang-19 -O2 -g -fdebug-info-for-profiling"
clang-19 -O2 -g -fdebug-info-for-profiling -o inline_demo "$src/tests/data/inline_demo.c"
./inline_demo 100

echo "== the first branches and calls in work() ($(nm inline_demo | awk '$3 == "work" {print "0x" $1}')): address size class target"
"$spgo" symbolize --binary inline_demo --all-instructions > insns.txt
start=$(nm inline_demo | awk '$3 == "work" {print $1}' | sed 's/^0*//')
grep -A200 "^0x$start " insns.txt | grep -v " other$" | head -6

echo "== the three deepest inline stacks (spgo symbolize --discriminators)"
awk '{print $1}' insns.txt > addrs.txt
"$spgo" symbolize --binary inline_demo < addrs.txt > frames.txt
picked=$(paste -d' ' addrs.txt <(awk 'BEGIN {RS = ""; FS = "\n"} {print NF / 2}' frames.txt) |
  sort -k2,2nr -s | head -3 | awk '{print $1}')
for a in $picked; do
  echo "-- $a"
  "$spgo" symbolize --binary inline_demo --discriminators "$a" | sed '/^$/d'
done

echo "== same as llvm-symbolizer-19 for all $(wc -l < addrs.txt) instructions?"
if llvm-symbolizer-19 --inlines --functions=linkage --obj=inline_demo < addrs.txt | cmp -s - frames.txt; then
  echo "yes: identical output"
else
  echo "NO: outputs differ"; exit 1
fi
