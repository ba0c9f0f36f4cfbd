#!/usr/bin/env bash
# spgo gen with no options on LBR with call stacks of a C++ probe build
# writes llvm-profgen-19's default profile byte for byte (issue 28 AP4), in
# the extbinary form too, whose function metadata LLVM writes in the order
# of its profile map (a libstdc++ unordered_map keyed by context hashes:
# src/profile/llvm_map.c).
#  - lib/cs_cxx.cpp: templates, inlined constructors and operators, virtual
#    calls, std::map and std::string; clang++-19 -O2 -g
#    -fpseudo-probe-for-profiling with frame pointers; `spgo emulate`.
#  - Hundreds of contexts (past the map's first rehash at 14) and
#    contexts of more than 8 frames (LLVM's hash of more than 64 bytes):
#    the sorted order of the profiles, which spgo wrote before, is not the
#    map's, and the extbinary files differed in the metadata section.
#  - The flat CS forms too (--gen-cs-nested-profile=0), and the nested
#    one without the pre-inliner, in extbinary.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang++-19 llvm-profgen-19 llvm-profdata-19 qemu-x86_64
scratch
fp="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fpseudo-probe-for-profiling"
# shellcheck disable=SC2086
clang++-19 $fp -o prog "$SPGO_SRC/tests/integration/lib/cs_cxx.cpp" || exit 1
"$SPGO" emulate -c 2000 -o e.data -- ./prog 200 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" script -i e.data -F ip,brstack --raw-stacks --show-mmap-events > e.script || bad "spgo script"
llvm-profgen-19 --binary prog --perfscript e.script --format=text -o pg.txt >/dev/null 2>&1 || bad "llvm-profgen-19 (text)"
llvm-profgen-19 --binary prog --perfscript e.script -o pg.prof >/dev/null 2>&1 || bad "llvm-profgen-19 (extbinary)"

n=$(grep -c '^[^ ]' pg.txt)
# (llvm-profgen's map holds every context before nesting, whatever the
# pre-inliner leaves at the top: how many there are varies with where the
# emulated samples land, 12-47 here; the contexts, hundreds, do not)
llvm-profgen-19 --binary prog --perfscript e.script --format=text --gen-cs-nested-profile=0 \
  --csspgo-preinliner=0 -o pgflat.txt >/dev/null 2>&1 || bad "llvm-profgen-19 (flat text)"
nc=$(grep -c '^\[' pgflat.txt)
[ "$nc" -ge 14 ] || bad "only $nc contexts: the map would not be rehashed"
deep=$(awk '{ match($0, /^ */); if (RLENGTH > m) m = RLENGTH } END { print m + 0 }' pg.txt)
[ "$deep" -ge 9 ] || bad "contexts of at most $deep frames: LLVM's long hash not reached"
"$SPGO" gen --quiet --binary prog --perf-data e.data --format text -o sp.txt || bad "spgo gen (text)"
cmp -s pg.txt sp.txt && echo "ok   text byte-identical to llvm-profgen-19's ($n profiles)" ||
  { bad "text differs from llvm-profgen-19's"; diff pg.txt sp.txt | head -5; }
"$SPGO" gen --quiet --binary prog --perf-data e.data -o sp.prof || bad "spgo gen (extbinary)"
cmp -s pg.prof sp.prof && echo "ok   extbinary byte-identical to llvm-profgen-19's" ||
  bad "extbinary differs from llvm-profgen-19's: $(cmp pg.prof sp.prof)"
llvm-profdata-19 show --sample sp.prof > sp.show 2>&1 && llvm-profdata-19 show --sample pg.prof > pg.show &&
  cmp -s pg.show sp.show || bad "llvm-profdata-19 show differs"
# The flat forms (--gen-cs-nested-profile=0), whose map order comes from
# the context trie and the cold-context trimmer, and whose CS name table
# and offset table LLVM sorts frame by frame (call sites as numbers):
# without the pre-inliner (cold contexts merged, or trimmed), and with it
# (spgo's --target-llvm 19: its preinlined flag); and the nested form
# without the pre-inliner, whose map the trimmer has changed before nesting
F="--gen-cs-nested-profile=0"
for v in "flat:$F --csspgo-preinliner=0" "flattrim:$F --csspgo-preinliner=0 --trim-cold-profile" \
  "preflat:$F" "nopre:--csspgo-preinliner=0"; do
  n=${v%%:*} o=${v#*:} t=
  [ "$n" = preflat ] && t="--target-llvm 19"
  # shellcheck disable=SC2086
  llvm-profgen-19 --binary prog --perfscript e.script $o -o pg.$n.prof >/dev/null 2>&1 ||
    bad "llvm-profgen-19 ($n)"
  # shellcheck disable=SC2086
  "$SPGO" gen --quiet --binary prog --perf-data e.data $o $t -o sp.$n.prof || bad "spgo gen ($n)"
  cmp -s pg.$n.prof sp.$n.prof && echo "ok   $n: extbinary byte-identical to llvm-profgen-19's" ||
    bad "$n: extbinary differs from llvm-profgen-19's: $(cmp pg.$n.prof sp.$n.prof)"
done
[ $fail -eq 0 ] && echo "gen_cs_cxx: ok"
exit $fail
