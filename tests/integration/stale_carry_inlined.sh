#!/usr/bin/env bash
# spgo carry on a probe profile whose function NEW inlines everywhere (no
# code of its own, only copies in its callers; zstd's hot
# ZSTD_compressBlock_lazy_generic): the probes the matching leaves open
# get counts from inference on an inlined copy, in its caller's CFG
# (src/stale/flow.c).  lib/stale_inlined.c: hot is inlined into run (hot)
# and once (cold); the profile holds hot as a record of its own (run's
# copy hoisted to the top level, as a profile that outlined it, or
# llvm-profgen's base profile of a context not inlined, has it).  NEW
# inserts a branch in hot's loop right after its call to fc: hot's
# checksum changes, and the block where the branch joins the loop again
# runs every iteration but the matching gives it nothing (the delta rule
# sends it to OLD's call probe of fc, an anchor).  Inference on run's copy
# (the copy holding the carried samples, not once's) gives it the flow of
# its neighbours: within 1% of the fresh profile's count.  Before, a
# function with no symbol in NEW was not inferred and the block had no
# count.  The profiles are exact counts (`spgo emulate --ground-truth` +
# `spgo gen`).
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/stale.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="$SPGO_SRC/tests/integration/lib/stale_inlined.c"
sed 's|^\t\t/\*INS\*/$|\t\tif ((x \& 0x30000) != 0x30000) { sink = x ^ s; s = s * 7 + 1; }|' "$base" > new.c
cmp -s new.c "$base" && bad "the edit changed nothing"
stale_exact_pair "$base" new.c
nm new | grep -q 'hot' && bad "NEW has a symbol of hot: not inlined everywhere"
# hoist V.prof: run's copy of hot made a top-level record (its inlinee
# lines one level up), once's copy left nested
for v in old new; do
  awk '/^[^ ]/ { inrun = ($0 ~ /^run:/) }
    inrun && /^ [0-9]+: [^ ]*hot[^ ]*:[0-9]+$/ { cap = 1; split($2, a, ":"); rec = a[1] ":" a[2] ":0"; next }
    cap && /^  / { sub(/^ /, ""); body = body $0 "\n"; next }
    { cap = 0; print }
    END { if (rec != "") printf "%s\n%s", rec, body }' $v.prof > $v.h.prof
  grep -q '^_ZL3hot[^ ]*:[0-9]*:0$' $v.h.prof || bad "$v.prof: no copy of hot in run to hoist"
done
hc() { awk '/^_ZL3hot/ { w = 1; next } /^[^ ]/ { w = 0 } w && /CFGChecksum/ { print $2; exit }' "$1"; }
[ "$(hc old.h.prof)" != "$(hc new.h.prof)" ] || bad "hot's checksum did not change"
"$SPGO" carry --profile old.h.prof --old-binary old --binary new -o c.prof --format text > c.out 2>&1 ||
  { cat c.out; echo "FAIL: carry"; exit 1; }
[ "$(hc c.prof)" = "$(hc new.h.prof)" ] || bad "hot carried under checksum $(hc c.prof), not NEW's"
# count FILE ID: hot's count at probe ID in its top-level record ("" if none)
count() { awk -v id="$2" '/^_ZL3hot/ { w = 1; next } /^[^ ]/ { w = 0 } w && $1 == id ":" { print $2; exit }' "$1"; }
ids() { awk '/^_ZL3hot/ { w = 1; next } /^[^ ]/ { w = 0 } w && $1 ~ /^[0-9]+:$/ { sub(":", "", $1); print $1 }' "$1"; }
"$SPGO" carry --profile old.h.prof --old-binary old --binary new -o n.prof --format text --no-infer > n.out 2>&1 ||
  bad "carry --no-infer: $(tail -n 1 n.out)"
# the join block: a probe of NEW that runs every iteration (fresh count
# 19000 or more) to which the matching alone gives no count
join=
for id in $(ids new.h.prof); do
  [ -z "$(count n.prof "$id")" ] && [ "$(count new.h.prof "$id")" -ge 19000 ] && join=$id
done
[ -n "$join" ] || bad "no hot probe of NEW without a count from the matching: the test tests nothing"
if [ -n "$join" ]; then
  want=$(count new.h.prof "$join") got=$(count c.prof "$join")
  echo "hot's probe $join (the join block): fresh $want, carried ${got:-none} (without inference: none)"
  awk -v a="${got:-0}" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= b) }' ||
    bad "probe $join carried ${got:-none}, fresh $want: not within 1%"
fi
grep -Eq 'inferred on the new CFG: +[1-9][0-9]* probes in [1-9][0-9]* functions' c.out ||
  bad "no inferred probes reported: $(grep inferred c.out)"
[ $fail -eq 0 ] && echo "stale_carry_inlined: ok"
exit $fail
