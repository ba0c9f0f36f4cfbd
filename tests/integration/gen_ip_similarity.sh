#!/usr/bin/env bash
# IP mode's block shape against the exact profile: the demo program
# (examples/minivm, clang-19 -O2), its exact profile from `spgo emulate
# --ground-truth` + `spgo gen --ground-truth`, and three cpu-clock
# recordings of the same 10 rounds.  spgo gen --confidence (profi with
# each block's confidence from its samples and instructions, IP mode's
# decrease costs: src/gen/gen_ip.c; opt-in, the rebuilt program was not
# faster with it) was closer to the exact profile
# than min-cost flow's (symmetric costs, no confidences) when written:
# profi 83.7 / 87.4 / 83.2%, mcf 78.9 / 81.8 / 77.1%.  Since the emulator
# counts page-straddling instructions once (a new exact reference) that
# lead is gone: over four fresh-clone runs of three recordings each, profi
# led by -1.0 to +3.6 points and trailed on average in one run (+0.4 /
# -0.8 / -0.2, profi 79.8% at the lowest).  What still holds and is
# asserted: each profile at least 78% similar to the exact one
# (llvm-profdata-19 overlap --sample) and profi, on average over the three
# recordings, no more than 1 point behind mcf; its lost lead is an open
# finding, not hidden here.  An older spgo without the emulator plugin
# fails here: SPGO_EMULATE=another spgo emulates for it.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profdata-19 perf qemu-x86_64
scratch
perf record -q -e cpu-clock:u -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

clang-19 -O2 -g -fdebug-info-for-profiling -o minivm "$SPGO_SRC/examples/minivm/minivm.c" ||
  { echo "FAIL: build"; exit 1; }
"${SPGO_EMULATE:-$SPGO}" emulate -c 2000 -o e.data --ground-truth e.gt -- ./minivm 10 >/dev/null 2>err.txt ||
  { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" gen --binary minivm --ground-truth e.gt -o truth.txt --format text --quiet || bad "spgo gen --ground-truth"
margin=0
for run in 1 2 3; do
  perf record -q -e cpu-clock:u -F 20000 -o vm.data -- ./minivm 10 >/dev/null 2>&1
  [ -s vm.data ] || { echo "FAIL: perf record"; exit 1; }
  "$SPGO" gen --binary minivm --perf-data vm.data -o profi.txt --format text --quiet --confidence ||
    bad "spgo gen --confidence"
  "$SPGO" gen --binary minivm --perf-data vm.data -o mcf.txt --format text --quiet --infer mcf ||
    bad "spgo gen --infer mcf"
  p=$(llvm-profdata-19 overlap --sample truth.txt profi.txt | similarity)
  m=$(llvm-profdata-19 overlap --sample truth.txt mcf.txt | similarity)
  echo "run $run: similarity to the exact profile: profi $p%, mcf $m%"
  atleast "$p" 78 || bad "run $run: profi's similarity $p% < 78%"
  atleast "$m" 78 || bad "run $run: mcf's similarity $m% < 78%"
  margin=$(awk -v s="$margin" -v p="$p" -v m="$m" 'BEGIN { print s + p - m }')
done
atleast "$margin" -3 ||
  bad "profi $(awk -v s="$margin" 'BEGIN { printf "%.2f", -s / 3 }') points behind mcf on average (want at most 1)"
exit $fail
