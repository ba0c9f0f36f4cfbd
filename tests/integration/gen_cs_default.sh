#!/usr/bin/env bash
# spgo gen with no mode option, on LBR with call stacks of a binary with
# pseudo-probes, writes what llvm-profgen-19 writes by default from the same
# data: the context-sensitive profile, nested and pre-inlined (issue 28).
#  - A small program (lib/cs_default.c) built by clang-19 -O2 -g
#    -fpseudo-probe-for-profiling with frame pointers (a PIE), captured by
#    `spgo emulate` (LBR + fp call stacks); llvm-profgen-19 fed `spgo script
#    -F ip,brstack --raw-stacks --show-mmap-events`.
#  - Text and the default extbinary byte-identical to llvm-profgen-19's
#    (and llvm-profdata-19 show alike); the choice said on stderr.
#  - --cs alone: the same profile; --no-cs (and llvm-profgen's
#    --ignore-stack-samples): the probe-based profile without contexts;
#    --cs --cs-flat --no-preinline: llvm-profgen-19 --csspgo-preinliner=false
#    --gen-cs-nested-profile=false.
#  - A DWARF build (-fdebug-info-for-profiling) keeps the AutoFDO profile by
#    default (llvm-profgen makes a line-based CS one: spgo follows it with
#    --cs; spgo emulate always records stacks, and that is the AutoFDO build).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 qemu-x86_64
scratch
src="$SPGO_SRC/tests/integration/lib/cs_default.c"
fp="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
# shellcheck disable=SC2086
clang-19 $fp -fpseudo-probe-for-profiling -o prog "$src" || exit 1
"$SPGO" emulate -c 2000 -o e.data -- ./prog 100000 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" script -i e.data -F ip,brstack --raw-stacks --show-mmap-events > e.script || bad "spgo script"
llvm-profgen-19 --binary prog --perfscript e.script --format=text -o pg.txt >/dev/null 2>&1 || bad "llvm-profgen-19 (text)"
llvm-profgen-19 --binary prog --perfscript e.script -o pg.prof >/dev/null 2>&1 || bad "llvm-profgen-19 (extbinary)"

"$SPGO" gen --binary prog --perf-data e.data --format text -o sp.txt 2>stats.txt || { cat stats.txt; bad "spgo gen"; }
grep "llvm-profgen's default" stats.txt || bad "the choice of a CS profile not said on stderr"
grep -q '^\[' sp.txt && bad "flat contexts, not nested"
grep -q '!Attributes: [23]' sp.txt || bad "no context marked ShouldBeInlined: not pre-inlined"
cmp -s pg.txt sp.txt && echo "ok   default text byte-identical to llvm-profgen-19's" ||
  { bad "default text differs from llvm-profgen-19's"; diff pg.txt sp.txt | head -10; }
"$SPGO" gen --quiet --binary prog --perf-data e.data -o sp.prof || bad "spgo gen (extbinary)"
cmp -s pg.prof sp.prof && echo "ok   default extbinary byte-identical to llvm-profgen-19's" ||
  bad "default extbinary differs from llvm-profgen-19's"
llvm-profdata-19 show --sample pg.prof > pg.show && llvm-profdata-19 show --sample sp.prof > sp.show &&
  cmp -s pg.show sp.show || bad "llvm-profdata-19 show differs"
"$SPGO" gen --quiet --binary prog --perf-script e.script --format text -o sps.txt || bad "spgo gen --perf-script"
cmp -s pg.txt sps.txt || bad "from perf script text: differs from llvm-profgen-19's"

"$SPGO" gen --cs --quiet --binary prog --perf-data e.data --format text -o cs.txt || bad "spgo gen --cs"
cmp -s pg.txt cs.txt || bad "--cs: not llvm-profgen-19's default CS profile"
llvm-profgen-19 --binary prog --perfscript e.script --format=text --ignore-stack-samples -o pgn.txt >/dev/null 2>&1
for o in --no-cs --ignore-stack-samples; do
  "$SPGO" gen $o --binary prog --perf-data e.data --format text -o n.txt 2>n.err || bad "spgo gen $o"
  grep -q '^\[\|!Attributes' n.txt && bad "$o: contexts or attributes in the profile"
  grep -q "llvm-profgen's default" n.err && bad "$o: says it chose CS"
  s=$(llvm-profdata-19 overlap --sample pgn.txt n.txt | sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p')
  awk -v s="$s" 'BEGIN { exit !(s >= 97) }' || bad "$o: similarity to --ignore-stack-samples $s% < 97%"
done
echo "ok   --no-cs, --ignore-stack-samples: the probe profile without contexts"
llvm-profgen-19 --binary prog --perfscript e.script --format=text --csspgo-preinliner=false \
  --gen-cs-nested-profile=false -o pgf.txt >/dev/null 2>&1
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary prog --perf-data e.data --format text -o f.txt ||
  bad "--cs-flat --no-preinline"
cmp -s pgf.txt f.txt && echo "ok   --cs-flat --no-preinline: llvm-profgen-19's flat form" || bad "flat CS differs"
"$SPGO" gen --csspgo-preinliner=false --gen-cs-nested-profile=false --quiet --binary prog --perf-data e.data \
  --format text -o f2.txt || bad "llvm-profgen's names for the flat form"
cmp -s f.txt f2.txt || bad "--csspgo-preinliner=false --gen-cs-nested-profile=false differs from --cs-flat --no-preinline"

# A DWARF build: AutoFDO by default, with the note that --cs is there.
# shellcheck disable=SC2086
clang-19 $fp -fdebug-info-for-profiling -o dwarf "$src" || exit 1
"$SPGO" emulate -c 2000 -o d.data -- ./dwarf 20000 >/dev/null 2>&1 || bad "spgo emulate (DWARF)"
"$SPGO" gen --binary dwarf --perf-data d.data --format text -o d.txt 2>d.err || bad "spgo gen (DWARF)"
grep -q '^\[' d.txt && bad "DWARF build: a CS profile by default"
grep -q "available with --cs" d.err || bad "DWARF build: no note that --cs is available"
[ $fail -eq 0 ] && echo "gen_cs_default: ok"
# a pipe cannot be looked at before it is read: the default there is said
"$SPGO" gen --binary prog --perf-data - --format text -o pipe.txt < e.data 2>pipe.err ||
  { bad "spgo gen from a pipe"; cat pipe.err; }
grep -q "the input is a pipe" pipe.err || bad "no word that a pipe keeps the profile without contexts: $(head -3 pipe.err)"
grep -q '^\[' pipe.txt && bad "a pipe gave contexts without --cs"
exit $fail
