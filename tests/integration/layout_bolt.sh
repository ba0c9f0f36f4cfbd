#!/usr/bin/env bash
# spgo gen --format bolt / bolt-pa: BOLT's profile from the perf.data spgo
# reads, checked against perf2bolt-19 on the same capture (minivm, clang-19
# -O2 linked with --emit-relocs, under `spgo emulate`: 32-entry LBR).
#  - fdata: the same lines as perf2bolt-19's once both are sorted
#    (perf2bolt writes in hash order);
#  - pre-aggregated: perf2bolt-19 --pa turns spgo's file into that same
#    fdata (the B/F/f lines carry everything perf2bolt takes from perf.data);
#  - llvm-bolt-19 given either fdata writes the same optimized binary;
#  - IP samples (--mode ip): the no_lbr form, equal to perf2bolt -nl's;
#  - a binary without relocations gets a warning naming -Wl,--emit-relocs;
#  - jump tables whose bound check is not in the code before the jump
#    (tests/data/jt_far_bound.s, clang's form in sqlite3VdbeExec and
#    luaV_execute): the function's fall-throughs are there, as perf2bolt's.
# perf2bolt reads `perf script -F pid,ip,brstack`, which prints the call
# stack too when samples have one (spgo emulate records them): a `perf`
# wrapper first on PATH adds --hide-call-graph.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-bolt-19 perf2bolt-19 perf qemu-x86_64
scratch
mkdir shim
printf '#!/bin/sh\n[ "$1" = script ] && { shift; exec %s script --hide-call-graph "$@"; }\nexec %s "$@"\n' \
  "$(command -v perf)" "$(command -v perf)" > shim/perf
chmod +x shim/perf
p2b() { PATH="$tmp/shim:$PATH" perf2bolt-19 --aggregate-only "$@" > p2b.log 2>&1 || { cat p2b.log; bad "perf2bolt-19 $*"; }; }

clang-19 -O2 -g -fno-pie -no-pie -Wl,--emit-relocs -o minivm "$SPGO_SRC/examples/minivm/minivm.c"
"$SPGO" emulate -c 2000 --seed 7 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate"; exit 1; }

"$SPGO" gen --binary minivm --perf-data e.data --format bolt -o sp.fdata --quiet 2>err.txt || { cat err.txt; bad "spgo gen --format bolt"; }
p2b -p e.data -o pb.fdata minivm
n=$(wc -l < pb.fdata)
[ "$n" -gt 100 ] || bad "perf2bolt-19 wrote only $n lines"
if cmp -s <(sort sp.fdata) <(sort pb.fdata); then
  echo "fdata: the same $n lines as perf2bolt-19's"
else
  bad "fdata differs from perf2bolt-19's:"; diff <(sort sp.fdata) <(sort pb.fdata) | head -20
fi
[ ! -s err.txt ] || { cat err.txt; bad "spgo warned on a binary with relocations"; }

"$SPGO" gen --binary minivm --perf-data e.data --format bolt-pa -o sp.pa --quiet || bad "spgo gen --format bolt-pa"
grep -q '^B [0-9a-f]* [0-9a-f]* [0-9]* [0-9]*$' sp.pa || bad "no B line in the pre-aggregated profile"
grep -q '^F [0-9a-f]* [0-9a-f]* [0-9]*$' sp.pa || bad "no F line in the pre-aggregated profile"
p2b --pa -p sp.pa -o pa.fdata minivm
cmp -s <(sort pa.fdata) <(sort pb.fdata) && echo "bolt-pa: perf2bolt-19 --pa makes the same fdata" ||
  { bad "perf2bolt-19 --pa on spgo's file differs:"; diff <(sort pa.fdata) <(sort pb.fdata) | head; }

# llvm-bolt-19 on each: the binaries are the same (the profile's file name
# is in .note.bolt_info: the same name, in two directories).
mkdir a b
cp sp.fdata a/prof.fdata; cp pb.fdata b/prof.fdata
for d in a b; do
  (cd $d && llvm-bolt-19 ../minivm -o minivm.bolt --data prof.fdata --reorder-blocks=ext-tsp \
     --reorder-functions=hfsort --split-functions --dyno-stats > bolt.log 2>&1) || { cat $d/bolt.log; bad "llvm-bolt-19 ($d)"; }
done
grep -q 'BOLT-INFO: 1[0-9]* out of [0-9]* functions in the binary .* have non-empty execution profile' a/bolt.log ||
  bad "llvm-bolt-19 found no profiled functions in spgo's fdata"
cmp -s a/minivm.bolt b/minivm.bolt && echo "llvm-bolt-19: the same binary from spgo's and perf2bolt-19's fdata" ||
  bad "llvm-bolt-19 makes different binaries from spgo's and perf2bolt-19's fdata"
[ "$(./a/minivm.bolt 1)" = "$(./minivm 1)" ] || bad "the BOLTed binary computes something else"

# IP samples: BOLT's basic-sample form.
"$SPGO" gen --binary minivm --perf-data e.data --mode ip --format bolt -o ip.fdata --quiet 2>err.txt ||
  bad "spgo gen --mode ip --format bolt"
grep -q 'no branch stacks.*basic-sample' err.txt || bad "IP mode did not say it writes the no_lbr form"
head -1 ip.fdata | grep -q '^no_lbr branches' || bad "no no_lbr header: $(head -1 ip.fdata)"
p2b -nl -p e.data -o pb-ip.fdata minivm
cmp -s <(sort ip.fdata) <(sort pb-ip.fdata) && echo "no_lbr: the same as perf2bolt-19 -nl" ||
  { bad "no_lbr fdata differs from perf2bolt-19 -nl's:"; diff <(sort ip.fdata) <(sort pb-ip.fdata) | head; }

# Without relocations BOLT cannot reorder functions: a warning naming the flag.
clang-19 -O2 -g -fno-pie -no-pie -o minivm-norel "$SPGO_SRC/examples/minivm/minivm.c"
"$SPGO" gen --binary minivm-norel --perf-data e.data --format bolt -o norel.fdata --quiet 2>err.txt ||
  true
grep -q -- '-Wl,--emit-relocs' err.txt || bad "no warning naming -Wl,--emit-relocs for a binary without relocations"
[ "$(grep -c . err.txt)" -le 2 ] || { cat err.txt; bad "more than the one-line warning"; }

# Tables bounded by their contents: spgo once called such a function not
# simple and wrote no fall-through of it (BOLT then laid out the hot
# interpreter loops of speedtest1 and lua5.4 as cold).
clang-19 -O2 -g -fno-pie -no-pie -Wl,--emit-relocs -o jt "$SPGO_SRC/tests/data/jt_far_bound.s"
"$SPGO" emulate -c 2000 --seed 7 -o jt.data -- ./jt >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate jt"; }
"$SPGO" gen --binary jt --perf-data jt.data --format bolt -o jt.fdata --quiet || bad "spgo gen --format bolt (jt)"
p2b -p jt.data -o jt-pb.fdata jt
n=$(awk '$2 == "run" && $5 == "run" && $7 == 0' jt-pb.fdata | wc -l)
[ "$n" -gt 10 ] || bad "perf2bolt-19 wrote only $n edges inside run"
cmp -s <(sort jt.fdata) <(sort jt-pb.fdata) && echo "far-bound jump tables: the same $n edges in run as perf2bolt-19" ||
  { bad "far-bound jump tables: fdata differs from perf2bolt-19's:"; diff <(sort jt.fdata) <(sort jt-pb.fdata) | head; }
[ $fail -eq 0 ] && echo "layout_bolt: ok"
exit $fail
