#!/usr/bin/env bash
# spgo emulate --ground-truth-cs and the CS quality metric.
#  - tests/data/cs_truth/calls.c (gcc -O2): the counts of leaf's and rec's
#    entries per context, frame-pointer and true views, equal the ones
#    computed by hand (see the program's comment); per view, the counts and
#    edges summed over contexts equal the plain ground truth's.
#  - spgo gen --ground-truth-cs: the reference CS profile; spgo overlap
#    --cs-truth scores it 100% against itself (context and post-inline
#    views) and lower once a count is perturbed.
#  - On a probe build of calls.c (clang-19), the reference is keyed by
#    pseudo-probes with the same per-context counts.
#  - The post-inline view on a hand-made nested profile with a
#    ShouldBeInlined inlinee (tests/data/cs_truth/{ref,nested}.txt):
#    context view 85.71% (120/140 by hand), post-inline 100% (the
#    not-inlined copy folds into foo's base, as the truth does).
#  - The context view matches a reference context to the longest suffix of
#    it the profile has (tests/data/cs_truth/suffix_*.txt: 100%).
#  - The demo program: spgo gen --cs of the same emulated run scored
#    against its truth (the figure is printed; >= 80% required); with
#    --cs-call-estimate entry, main's call count of run (inlined, its
#    entry never sampled) is small (< 10; the default rule gives the
#    loop's count) and the overlap higher.
source "$SPGO_SRC/tests/data/emulate/common.sh"
cs="$SPGO_SRC/tests/data/cs_truth"
gcc -O2 -g -fno-omit-frame-pointer -no-pie -o calls "$cs/calls.c"
"$SPGO" emulate -o p.data --ground-truth gt.txt --ground-truth-cs cs.txt -- ./calls
head -1 cs.txt | grep -qx 'spgo-ground-truth-cs 1' || fail "bad header"

# Addresses: entries of leaf and rec, call sites in main, mid, rec; tailer's jump.
objdump -d --no-show-raw-insn calls > dis.txt
sym() { awk -v f="<$1>:" '$2 == f { sub(/^0+/, "", $1); print $1 }' dis.txt; }
site() { awk -v f="<$1>:" -v t="<$2>" '$2 == f { on = 1; next } /^$/ { on = 0 }
  on && $NF == t && ($2 == "call" || $2 == "jmp") { sub(":", "", $1); print $1; exit }' dis.txt; }
leaf=$(sym leaf); rec=$(sym rec)
A=$(site main leaf); M=$(site main mid); B=$(site mid leaf); T=$(site main tailer)
J=$(site tailer leaf); R=$(site main rec); L=$(site rec leaf); S=$(site rec rec)
for x in "$leaf" "$rec" "$A" "$M" "$B" "$T" "$J" "$R" "$L" "$S"; do
  [ -n "$x" ] || fail "calls.c did not compile to the expected calls and jump"
done
# count VIEW ADDR SITES...: the count of ADDR in the context SITES.
count() {
  local v=$1 a=$2; shift 2
  awk -v V="$v" -v A="$a" -v C="$*" '$1 == "view" { w = $2; next } w != V { next }
    $1 == "c" { s = ""; for (i = 3; i <= NF; i++) s = s (i > 3 ? " " : "") $i; if (s == C) id = $2 }
    $1 == "i" && $2 == id && $3 == A { print $4; n = 1 } END { if (!n) print 0 }' cs.txt
}
expect() { local got; got=$(count "${@:2}"); [ "$got" = "$1" ] || fail "view $2 at $3 in [${*:4}]: $got, expected $1"; }
for v in fp true; do
  expect 10 $v "$leaf" "$A"
  expect 10 $v "$leaf" "$M" "$B"
  expect 10 $v "$rec" "$R"
  expect 30 $v "$rec" "$R" "$S"
  expect 10 $v "$leaf" "$R" "$L"
  expect 20 $v "$leaf" "$R" "$S" "$L"
done
expect 10 fp "$leaf" "$T"
expect 0 fp "$leaf" "$T" "$J"
expect 10 true "$leaf" "$T" "$J"
expect 0 true "$leaf" "$T"
awk '$1 == "dso" { d++ } d == 1 && $1 == "i" { print $2, $4 }' gt.txt | sort > plain_i.txt
awk '$1 == "dso" { d++ } d == 1 && $1 == "e" { print $2, $3, $5, $4 }' gt.txt | sort > plain_e.txt
for v in fp true; do
  awk -v V=$v '$1 == "view" { w = $2 } w == V && $1 == "i" { c[$3] += $4 } END { for (a in c) print a, c[a] }' cs.txt | sort > i.txt
  awk -v V=$v '$1 == "view" { w = $2 } w == V && $1 == "e" { c[$3 " " $4 " " $6] += $5 } END { for (a in c) print a, c[a] }' cs.txt | sort > e.txt
  cmp -s i.txt plain_i.txt || fail "view $v: instruction counts do not sum to the plain ground truth"
  cmp -s e.txt plain_e.txt || fail "view $v: edge counts do not sum to the plain ground truth"
done
echo "calls.c: per-context counts as computed by hand; both views sum to the plain truth"

# The reference profile and the metric.
"$SPGO" gen --binary calls --ground-truth-cs cs.txt -o ref.txt --format text
"$SPGO" gen --binary calls --ground-truth-cs cs.txt --truth-view true -o ref-true.txt --format text
# leaf's body under tailer: only in the true view (the fp view has the
# jump's head samples there, as spgo gen --cs has).
grep -q '^\[main:[0-9]* @ tailer:[0-9]* @ leaf\]:[1-9]' ref-true.txt || fail "true view: no body of main @ tailer @ leaf"
grep -q '^\[main:[0-9]* @ tailer:[0-9]* @ leaf\]:[1-9]' ref.txt && fail "fp view: tailer's frame kept under a tail call"
grep -q '^\[main:[0-9]* @ rec:[0-9]* @ rec:[0-9]* @ leaf\]:80:20$' ref.txt || fail "no compressed recursive context of leaf with 20 calls"
figure() { sed -n 's/^CS block overlap: \([0-9.]*\)%.*/\1/p'; }
for view in context inline; do
  f=$("$SPGO" overlap --cs-truth ref.txt ref.txt --view $view | figure)
  [ "$f" = 100.00 ] || fail "reference against itself ($view view): $f%"
done
sed 's/^ 1: 30$/ 1: 3/' ref.txt > perturbed.txt
f=$("$SPGO" overlap --cs-truth ref.txt perturbed.txt | figure)
awk -v f="$f" 'BEGIN { exit !(f < 99) }' || fail "perturbed profile scores $f%"
echo "reference: 100% against itself; perturbed: $f%"
f=$("$SPGO" overlap --cs-truth "$cs/ref.txt" "$cs/nested.txt" --view context | figure)
[ "$f" = 85.71 ] || fail "hand-made nested profile, context view: $f%, expected 85.71%"
f=$("$SPGO" overlap --cs-truth "$cs/ref.txt" "$cs/nested.txt" --view inline | figure)
[ "$f" = 100.00 ] || fail "hand-made nested profile, post-inline view: $f%, expected 100%"
f=$("$SPGO" overlap --cs-truth "$cs/ref.txt" "$cs/nested.txt" --view inline --inline all | figure)
[ "$f" = 85.71 ] || fail "hand-made nested profile, --inline all: $f%, expected 85.71%"
# Context view of a nested profile whose inlinee sits under an out-of-line
# function (mid:3 @ leaf): the reference's [main:2 @ mid:3 @ leaf] is
# counted there (its longest suffix the profile has), not in leaf's base
# (which the profile lacks: 50% before).
f=$("$SPGO" overlap --cs-truth "$cs/suffix_ref.txt" "$cs/suffix_nested.txt" --view context | figure)
[ "$f" = 100.00 ] || fail "nested profile rooted below main, context view: $f%, expected 100%"

# A probe build (clang-19 -fpseudo-probe-for-profiling; noinline for gcc's
# noipa): the reference is keyed by probes, with the counts of calls.c's
# comment per context, tailer's frame kept by the true view only.
if command -v clang-19 >/dev/null; then
  sed 's/noipa/noinline/' "$cs/calls.c" > calls_probe.c
  clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
    -fno-pie -no-pie -o calls_probe calls_probe.c
  "$SPGO" emulate -o pp.data --ground-truth-cs pcs.txt -- ./calls_probe
  "$SPGO" gen --binary calls_probe --ground-truth-cs pcs.txt -o pref.txt --format text
  "$SPGO" gen --binary calls_probe --ground-truth-cs pcs.txt --truth-view true -o pref-true.txt --format text
  grep -q '^ !CFGChecksum: ' pref.txt || fail "probe build: the reference is not probe-keyed"
  grep -q '^\[main:[0-9]* @ rec:[0-9]* @ rec:[0-9]* @ leaf\]:20:20$' pref.txt ||
    fail "probe build: no compressed recursive context of leaf with 20 calls"
  grep -q '^\[main:[0-9]* @ rec\]:[0-9]*:10$' pref.txt || fail "probe build: rec under main not entered 10 times"
  grep -q '^\[main:[0-9]* @ tailer:[0-9]* @ leaf\]:10:10$' pref-true.txt || fail "probe build, true view: no main @ tailer @ leaf"
  grep -q '^\[main:[0-9]* @ tailer:[0-9]* @ leaf\]' pref.txt && fail "probe build, fp view: tailer's frame kept under a tail call"
  f=$("$SPGO" overlap --cs-truth pref.txt pref.txt | figure)
  [ "$f" = 100.00 ] || fail "probe reference against itself: $f%"
  echo "probe build: reference keyed by probes, counts per context as by hand"
fi

# The demo program: a sampled CS profile against the truth of the same run.
if command -v clang-19 >/dev/null; then
  clang-19 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
    -fno-pie -no-pie -o minivm "$SPGO_SRC/examples/minivm/minivm.c"
  "$SPGO" emulate -c 2000 -o m.data --ground-truth-cs m.cs -- ./minivm 1 > /dev/null
  "$SPGO" gen --cs-flat --no-preinline --quiet --binary minivm --perf-data m.data -o m-cs.txt --format text
  "$SPGO" gen --quiet --binary minivm --perf-data m.data -o m-afdo.txt --format text
  "$SPGO" gen --binary minivm --ground-truth-cs m.cs -o m-ref.txt --format text
  c=$("$SPGO" overlap --cs-truth m-ref.txt m-cs.txt | figure)
  i=$("$SPGO" overlap --cs-truth m-ref.txt m-cs.txt --view inline --inline all | figure)
  a=$("$SPGO" overlap --cs-truth m-ref.txt m-afdo.txt --view inline --inline all | figure)
  echo "minivm: CS profile $c% (context view), $i% (post-inline, every context inlined); AutoFDO $a%"
  awk -v f="$c" 'BEGIN { exit !(f >= 80) }' || fail "minivm: CS block overlap $c% < 80%"
  # --cs-call-estimate entry: run (inlined into main, entered once a
  # round, its entry never sampled) no longer gives main's call site its
  # loop's count (llvm-profgen's rule, the default, does).
  "$SPGO" gen --cs-flat --no-preinline --cs-call-estimate entry --quiet --binary minivm --perf-data m.data -o m-cse.txt --format text
  runs() { awk '/^\[main\]/ { on = 1; next } /^\[/ { on = 0 } on && / run:/ { sub(/.* run:/, ""); print; exit }' "$1"; }
  r0=$(runs m-cs.txt); r1=$(runs m-cse.txt); rt=$(runs m-ref.txt)
  e=$("$SPGO" overlap --cs-truth m-ref.txt m-cse.txt | figure)
  echo "minivm: main's calls of run: truth $rt, first-line estimate $r0, entry estimate $r1; overlap $c% -> $e%"
  [ -n "$r0" ] && [ -n "$r1" ] && [ "$r1" -lt 10 ] && [ "$r0" -gt 100 ] ||
    fail "minivm: main's call-site count of run: $r0 (first), $r1 (entry)"
  awk -v a="$e" -v b="$c" 'BEGIN { exit !(a > b) }' || fail "minivm: --cs-call-estimate entry $e% <= $c%"
fi
echo "emulate_truth_cs: ok"
