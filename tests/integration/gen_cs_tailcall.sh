#!/usr/bin/env bash
# Missing frames of tail calls (spgo gen --cs-infer-tail-calls; the CSSPGO
# paper, III-B).  tests/integration/lib/tailcalls.c built twice by clang-19
# -O2: as is (c1 -> c2 -> c3 -> work and p1 -> q1|q2 -> work are jumps, so
# samples in work show main as caller) and with -fno-optimize-sibling-calls
# (every frame on the stack: the reference contexts).  Both run under
# `spgo emulate`.  The share of work's samples whose context is one of the
# reference's: 0% without inference; with it, the unique chain through
# c1, c2, c3 is recovered (about half the samples), the p1 chains are
# ambiguous (q1 or q2) and left alone, and counted as such.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
F="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
src="$SPGO_SRC/tests/integration/lib/tailcalls.c"
clang-19 $F -o tc "$src" && clang-19 $F -fno-optimize-sibling-calls -o tc-ref "$src" || { bad "clang-19"; exit 1; }
"$SPGO" emulate -c 1000 -o t.data -- ./tc 3000 >/dev/null 2>&1 || bad "spgo emulate (tail calls)"
"$SPGO" emulate -c 1000 -o r.data -- ./tc-ref 3000 >/dev/null 2>&1 || bad "spgo emulate (reference)"
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary tc --perf-data t.data -o t0.txt --format text || bad "spgo gen --cs"
"$SPGO" gen --cs-flat --no-preinline --cs-infer-tail-calls --binary tc --perf-data t.data -o t1.txt --format text 2>st.txt ||
  { cat st.txt; bad "spgo gen --cs-infer-tail-calls"; }
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary tc-ref --perf-data r.data -o ref.txt --format text || bad "spgo gen --cs (reference)"
grep 'tail calls' st.txt
# Contexts of work below main, their totals; the share found in the reference.
ctxs() { sed -n 's/^\[\(main:.* @ work\)\]:\([0-9]*\):.*/\1\t\2/p' "$1"; }
share() {
  ctxs ref.txt | cut -f1 > ref.ctx
  ctxs "$1" | awk -F'\t' 'NR == FNR { ok[$1] = 1; next } { all += $2; if ($1 in ok) hit += $2 }
    END { printf "%.1f\n", all ? 100 * hit / all : 0 }' ref.ctx -
}
s0=$(share t0.txt); s1=$(share t1.txt)
echo "work's samples in a reference context: $s0% without inference, $s1% with"
echo "reference contexts:"; ctxs ref.txt | sed 's/^/  /'
echo "inferred contexts:"; ctxs t1.txt | sed 's/^/  /'
awk -v a="$s0" 'BEGIN { exit !(a + 0 == 0) }' || bad "contexts without inference already match the reference ($s0%)"
awk -v a="$s1" 'BEGIN { exit !(a + 0 >= 35) }' || bad "the unique tail-call chain was not recovered ($s1% < 35%)"
grep -q 'main:[0-9.]* @ c1:[0-9.]* @ c2:[0-9.]* @ c3:[0-9.]* @ work' t1.txt || bad "no context main @ c1 @ c2 @ c3 @ work"
grep -q ' [1-9][0-9]* with several chains' st.txt || bad "the ambiguous p1 chains were not counted"
grep -q ' @ q[12]:' t1.txt && bad "an ambiguous chain was filled in"
[ $fail -eq 0 ] && echo "gen_cs_tailcall: ok"
exit $fail
