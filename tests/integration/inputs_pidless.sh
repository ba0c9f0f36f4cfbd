#!/usr/bin/env bash
# perf script text without the pid field (issue #13, inputs):
# `perf script -F ip,brstack --show-mmap-events`, the form llvm-profgen's
# users feed for a PIE.  The mmap events place the pid-less samples (one
# process; or, with several, the only one that maps the binary): the
# profile equals the one from perf.data and llvm-profgen-19's, and the
# statistics count the samples in the binary, not "in no mapping".
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 perf qemu-x86_64
scratch

clang-19 -O2 -g -fdebug-info-for-profiling -fpie -pie -o prog "$SPGO_SRC/tests/data/perf_prog.c"
"$SPGO" emulate -o e.data -- ./prog 20000 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" gen --binary prog --perf-data e.data -o ref.txt --format text --quiet || bad "gen from perf.data"
perf script -i e.data -F ip,brstack --show-mmap-events -G > nopid.script 2>/dev/null
grep -q PERF_RECORD_MMAP2 nopid.script || { echo "FAIL: no mmap events in perf script's text"; exit 1; }
head -c 200 nopid.script | grep -q '0x[0-9a-f]*/0x' || true

if "$SPGO" gen --binary prog --perf-script nopid.script -o nopid.txt --format text 2>err.txt; then
  cmp -s ref.txt nopid.txt || { bad "pid-less text: another profile than from perf.data"; diff ref.txt nopid.txt | head; }
  grep -q "LBR mode" err.txt || bad "pid-less text: not LBR mode"
  grep -q "(0 in no mapping)" err.txt || { bad "pid-less text: samples said to be in no mapping"; cat err.txt; }
else
  bad "pid-less text: spgo gen fails:"; cat err.txt
fi
llvm-profgen-19 --binary prog --perfscript nopid.script -o pg.txt --format text >/dev/null 2>&1 &&
  { cmp -s pg.txt nopid.txt || bad "pid-less text: not llvm-profgen-19's profile"; }

# Two processes, only one of them maps the binary: its samples are placed
# there (the other process's mmap events come first).
{ echo "PERF_RECORD_MMAP2 99/99: [0x7f0000001000(0x1000) @ 0x1000 fe:00 1 0]: r-xp /usr/bin/other"
  cat nopid.script; } > two.script
"$SPGO" gen --binary prog --perf-script two.script -o two.txt --format text --quiet 2>err.txt ||
  { bad "two processes: spgo gen fails"; cat err.txt; }
cmp -s ref.txt two.txt || bad "two processes: another profile"
[ $fail -eq 0 ] && echo "inputs_pidless: ok"
exit $fail
