#!/usr/bin/env bash
# Coroutine and other outlined parts (issue #13, inputs): clang splits a
# coroutine f into f (the ramp), f.resume, f.destroy, all named f in DWARF;
# a call into f.resume is not a head sample of f nor a call target f, as
# llvm-profgen-19 decides (a part is its function's entry when it is the
# only part of its DWARF name or its canonical symbol is that name).  The
# LBR profile of a coroutine program equals llvm-profgen-19's.  (The rules
# for .cold, .part.N, .isra, .constprop, .llvm.N, .__uniq are unit-tested:
# tests/unit/test_gen.c.)
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang++-19 llvm-profgen-19 perf qemu-x86_64
scratch

clang++-19 -std=c++20 -O2 -g -fdebug-info-for-profiling -o coro "$SPGO_SRC/tests/data/coro.cpp" ||
  { echo "skip: clang++-19 cannot build a coroutine"; exit 77; }
nm coro | grep -q '_Z7counteri\.resume' || { echo "skip: no counter.resume part"; exit 77; }
"$SPGO" emulate -o e.data -- ./coro 300000 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
perf script -i e.data -F ip,brstack -G --show-mmap-events > e.script 2>/dev/null
llvm-profgen-19 --binary coro --perfscript e.script -o pg.txt --format text >/dev/null 2>&1 ||
  bad "llvm-profgen-19"
"$SPGO" gen --binary coro --perf-data e.data -o sp.txt --format text --quiet || bad "spgo gen"
cmp -s pg.txt sp.txt || { bad "coroutine: not llvm-profgen-19's profile"; diff pg.txt sp.txt | head; }
head=$(awk -F: '/^_Z7counteri:/ { print $3 }' sp.txt)
[ "$head" = 0 ] || bad "calls into counter.resume taken as head samples of counter ($head)"
grep -q ' _Z7counteri:[0-9]' sp.txt && bad "a call into counter.resume is a call target counter"
[ $fail -eq 0 ] && echo "inputs_outlined: ok"
exit $fail
