#!/usr/bin/env bash
# Missing tail-call frames in probe-based CS profiles (acceptance 4): the
# inference llvm-profgen 19 runs by default for probe profiles, measured
# against exact call chains.
#  - tests/integration/lib/tailcalls.c built by clang-19 with pseudo-probes:
#    as is (c1 -> c2 -> c3 -> work and p1 -> q1|q2 -> work are jumps: samples
#    in work show main as caller) and with -fno-optimize-sibling-calls (every
#    frame on the stack).  Call-site probe ids do not depend on the sibling-
#    call optimization, so the second build's contexts are the exact ones of
#    the first.
#  - The truth from `spgo emulate --ground-truth`: how often work was entered
#    through each tail call (c3's jump: the unique chain; q1's and q2's: the
#    ambiguous one), i.e. the share of work's executions whose missing frames
#    can be recovered.
#  - Reported: the share of work's samples whose context is exact (0% without
#    inference; with it the c-chain, about the truth's share), and the share of
#    missing frames recovered (c1, c2, c3 for the unique chain; p1 and q1|q2
#    are left out, ambiguous, and counted as such).
#  - spgo's profile equals llvm-profgen-19's on this capture too.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 qemu-x86_64
scratch
F="-O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
src="$SPGO_SRC/tests/integration/lib/tailcalls.c"
# shellcheck disable=SC2086
{ clang-19 $F -o tc "$src" && clang-19 $F -fno-optimize-sibling-calls -o tc-ref "$src"; } || { bad "clang-19"; exit 1; }
"$SPGO" emulate -c 1000 --ground-truth gt.txt -o t.data -- ./tc 3000 >/dev/null 2>&1 || bad "spgo emulate (tail calls)"
"$SPGO" emulate -c 1000 -o r.data -- ./tc-ref 3000 >/dev/null 2>&1 || bad "spgo emulate (reference)"
"$SPGO" gen --cs-flat --no-preinline --cs-no-infer-tail-calls --quiet --binary tc --perf-data t.data -o t0.txt --format text ||
  bad "spgo gen --cs-no-infer-tail-calls"
"$SPGO" gen --cs --cs-flat --no-preinline --binary tc --perf-data t.data -o t1.txt --format text 2>st.txt || { cat st.txt; bad "spgo gen --cs"; }
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary tc-ref --perf-data r.data -o ref.txt --format text || bad "spgo gen --cs (reference)"
grep 'tail calls' st.txt || bad "no tail-call statistics"

# The truth: entries into work by the jump of each function.
addr() { nm tc | awk -v f="$1" '$3 == f { sub(/^0+/, "", $1); print $1 }'; }
w=$(addr work)
entries() { # entries of work from a jump inside function $1
  local lo hi n=0 e from to cnt kind
  lo=$((16#$(addr "$1"))); hi=$((16#$(nm -n tc | awk -v f="$1" 'p { print $1; exit } $3 == f { p = 1 }')))
  while read -r e from to cnt kind; do
    [ "$e" = e ] && [ "$to" = "$w" ] && [ "$from" != - ] || continue
    (( 16#$from >= lo && 16#$from < hi )) && n=$((n + cnt))
  done < gt.txt
  echo "$n"
}
ec=$(entries c3); eq=$(( $(entries q1) + $(entries q2) ))
truth=$(awk -v a="$ec" -v b="$eq" 'BEGIN { printf "%.1f", a + b ? 100 * a / (a + b) : 0 }')
echo "ground truth: work entered $ec times through the unique chain (c3), $eq through the ambiguous one (q1|q2): $truth% recoverable"
[ "$ec" -gt 0 ] && [ "$eq" -gt 0 ] || bad "the ground truth has no tail-call entries into work"

# Contexts of work below main and their totals, in the reference and inferred.
ctxs() { sed -n 's/^\[\(main:.* @ work\)\]:\([0-9]*\):.*/\1\t\2/p' "$1"; }
ctxs ref.txt | cut -f1 > ref.ctx
share() { ctxs "$1" | awk -F'\t' 'NR == FNR { ok[$1] = 1; next } { all += $2; if ($1 in ok) hit += $2 }
    END { printf "%.1f\n", all ? 100 * hit / all : 0 }' ref.ctx -; }
# Missing frames recovered, weighted by samples: per context of work, the
# frames the reference has between main's call site and work, and those the
# inferred context has (contexts keyed by main's call-site probe).
frames() { ctxs ref.txt | awk -F'\t' '{ split($1, a, " @ "); miss[a[1]] = length(a) - 2 }
    END { for (k in miss) print k "\t" miss[k] }' > miss.txt
  ctxs "$1" | awk -F'\t' 'NR == FNR { miss[$1] = $2; next }
    { split($1, a, " @ "); m = miss[a[1]]; got = length(a) - 2; if (got > m) got = m
      all += $2 * m; hit += $2 * got } END { printf "%.1f\n", all ? 100 * hit / all : 0 }' miss.txt -; }
s0=$(share t0.txt); s1=$(share t1.txt); f0=$(frames t0.txt); f1=$(frames t1.txt)
echo "work's samples in an exact context: $s0% without inference, $s1% with (truth: $truth% recoverable)"
echo "missing tail-call frames recovered: $f0% without inference, $f1% with"
echo "reference contexts:"; ctxs ref.txt | sed 's/^/  /'
echo "inferred contexts:"; ctxs t1.txt | sed 's/^/  /'
awk -v a="$s0" 'BEGIN { exit !(a + 0 == 0) }' || bad "contexts without inference already exact ($s0%)"
awk -v a="$s1" -v t="$truth" 'BEGIN { d = a - t; exit !(d < 12 && d > -12) }' ||
  bad "recovered share $s1% far from the recoverable share $truth%"
awk -v a="$f1" 'BEGIN { exit !(a + 0 >= 40) }' || bad "only $f1% of the missing frames recovered"
grep -q '^\[main:[0-9]* @ c1:[0-9]* @ c2:[0-9]* @ c3:[0-9]* @ work\]' t1.txt || bad "no context main @ c1 @ c2 @ c3 @ work"
grep -q ' [1-9][0-9]* with several chains' st.txt || bad "the ambiguous p1 chains were not counted"
grep -q ' @ q[12]:' t1.txt && bad "an ambiguous chain was filled in"

"$SPGO" script -i t.data -F ip,brstack --raw-stacks > t.script || bad "spgo script"
llvm-profgen-19 --binary=tc --perfscript=t.script --format=text --csspgo-preinliner=false \
  --gen-cs-nested-profile=false -o pg.txt >/dev/null 2>&1 || bad "llvm-profgen-19"
cmp -s pg.txt t1.txt && echo "the profile with inferred frames is byte-identical to llvm-profgen-19's" ||
  { bad "tail-call profile differs from llvm-profgen-19's"; diff pg.txt t1.txt | head; }
[ $fail -eq 0 ] && echo "gen_cs_probe_tailcall: ok"
exit $fail
