#!/usr/bin/env bash
# Probe-based CS profiles where llvm-profgen's output depends on more than
# the samples (tests/integration/lib/probe_merged.cpp), byte-identical to
# llvm-profgen-19's, flat, nested and pre-inlined:
#  - a top-level probe record of a function with no body of its own (bump,
#    whose probe lost its inline chain when the code generator merged two
#    identical tails) amid step's code: llvm-profgen decodes the records of
#    the profiled functions only, so the probe counts nowhere (no context
#    [main:14 @ bump]);
#  - nested: the top-level profile of work, made of its cold contexts'
#    base profile (no attributes) and of a hot inlined context whose caller
#    context was merged away (!Attributes: 1), takes the attributes of the
#    first merged into it in ProfileConverter's order: none.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang++-19 qemu-x86_64 llvm-profgen-19
scratch
clang++-19 -O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
  -o pm "$SPGO_SRC/tests/integration/lib/probe_merged.cpp" || { bad "clang++-19"; exit 1; }
# The cases under test are there (else the test tests nothing).
llvm-profgen-19 --binary=pm --show-disassembly-only --show-pseudo-probe -o /dev/null > dis.txt 2>/dev/null
grep -q 'FUNC: _Z4bumpl Index: 1  Type: Block *$' dis.txt ||
  bad "no top-level probe record of bump: the compiler kept the inline chains"
"$SPGO" emulate -c 2000 -o pm.data -- ./pm 200000 >/dev/null 2>&1 || { bad "spgo emulate"; exit 1; }
"$SPGO" script -i pm.data -F ip,brstack --raw-stacks --show-mmap-events > pm.script
for mode in flat nested pre; do
  case $mode in
    flat) sp="--cs --cs-flat --no-preinline"; pg="--csspgo-preinliner=false --gen-cs-nested-profile=false";;
    nested) sp="--cs-nested --no-preinline"; pg="--csspgo-preinliner=false";;
    pre) sp="--cs --preinline"; pg="";;
  esac
  "$SPGO" gen $sp --quiet --binary pm --perf-data pm.data -o sp-$mode.txt --format text ||
    bad "spgo gen $sp"
  llvm-profgen-19 --binary=pm --perfscript=pm.script --format=text $pg -o pg-$mode.txt 2>/dev/null ||
    bad "llvm-profgen-19 $pg"
  if cmp -s pg-$mode.txt sp-$mode.txt; then
    echo "ok   $mode: byte-identical to llvm-profgen-19's ($(wc -l < sp-$mode.txt) lines)"
  else
    bad "$mode: differs from llvm-profgen-19's"; diff pg-$mode.txt sp-$mode.txt | head -8
  fi
done
grep -q '@ _Z4bumpl\]' sp-flat.txt && bad "flat: a context of bump's top-level probe record"
# The non-CS probe profile reads the same records: no top-level profile of
# bump from its merged record, and the profile of llvm-profgen-19 on the LBR
# alone, byte for byte.  (Given the hybrid text with --ignore-stack-samples,
# llvm-profgen-19 counts about a third less in step, a, b and main here.)
"$SPGO" gen --no-cs --binary pm --perf-data pm.data -o sp-noncs.txt --format text 2> noncs.err || bad "spgo gen (non-CS)"
grep -q '[1-9][0-9]* instruction counts at probes of records llvm-profgen does not read' noncs.err ||
  bad "non-CS: the counts left out at bump's merged record not said: $(cat noncs.err)"
"$SPGO" gen --cs --cs-flat --no-preinline --binary pm --perf-data pm.data -o /dev/null --format text 2> cs.err || bad "spgo gen --cs"
grep -q '; [1-9][0-9]* instruction counts at probes of records llvm-profgen does not read' cs.err ||
  bad "CS: the counts left out at bump's merged record not said: $(grep probe-based cs.err)"
grep -v $'^\t' pm.script | grep -v '^$' > lbr.script
llvm-profgen-19 --binary=pm --perfscript=lbr.script --format=text -o pg-noncs.txt 2>/dev/null ||
  bad "llvm-profgen-19 (LBR alone)"
cmp -s pg-noncs.txt sp-noncs.txt && echo "ok   non-CS: byte-identical to llvm-profgen-19's" ||
  { bad "non-CS: differs from llvm-profgen-19's"; diff pg-noncs.txt sp-noncs.txt | head -6; }
grep -q '^_Z4bumpl:' pg-noncs.txt && bad "llvm-profgen-19 made a top-level profile of bump: the case is gone"
grep -q '^_Z4bumpl:' sp-noncs.txt && bad "non-CS: a top-level profile of bump's merged probe record"
# The nested case is there: work's contexts in llvm-profgen's flat profile.
grep -A12 '^\[main:[0-9]* @ _Z3runPKli:[0-9]* @ _Z4workPKli\]' pg-flat.txt > work.txt
grep -q '^ !Attributes: 1' work.txt && grep -q '^\[_Z4workPKli\]' pg-flat.txt &&
  ! grep -q '^\[main:[0-9]* @ _Z3runPKli\]' pg-flat.txt ||
  bad "not the contexts of work the nested case needs: $(grep '^\[' pg-flat.txt | cut -d']' -f1 | tr '\n' ' ')"
top_attrs() { awk '/^[^ ]/ { f = $0 } f ~ /^_Z4workPKli:/ && /^ !Attributes/ { n++ } END { print n + 0 }' "$1"; }
[ "$(top_attrs sp-nested.txt)" = 0 ] || bad "nested: attributes on the top-level profile of work"
[ $fail -eq 0 ] && echo "gen_cs_probe_merged: ok"
exit $fail
