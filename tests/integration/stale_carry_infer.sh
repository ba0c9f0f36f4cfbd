#!/usr/bin/env bash
# spgo carry on a probe profile: the probes the matching leaves without a
# count get one from profile inference on NEW's CFG (src/stale/flow.c).
# OLD is lib/stale_infer.c; NEW inserts a branch in hot's loop right after
# its call to fc: hot's checksum changes, and its new probes are the
# branch's block and the block where it joins the loop again (what was one
# block of OLD, split).  The join block runs every iteration, but the
# matching gives it nothing: the delta rule sends it to OLD's call probe of
# fc, an anchor, which no block takes.  Inference gives it the flow its
# matched neighbours carry: within 1% of the fresh profile's count, and
# hot within 1% of the fresh profile (spgo overlap), where without
# inference (--no-infer, the carry of before) the block has no count.  The
# profiles are exact counts (`spgo emulate --ground-truth` + `spgo gen`).
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/stale.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="$SPGO_SRC/tests/integration/lib/stale_infer.c"
sed 's|^\t\t/\*INS\*/$|\t\tif ((x \& 0x30000) != 0x30000) { sink = x ^ s; s = s * 7 + 1; }|' "$base" > new.c
cmp -s new.c "$base" && bad "the edit changed nothing"
stale_exact_pair "$base" new.c
[ "$(stale_checksum old.prof)" != "$(stale_checksum new.prof)" ] || bad "hot's checksum did not change"
"$SPGO" carry --profile old.prof --old-binary old --binary new -o c.prof --format text > c.out 2>&1 ||
  { cat c.out; echo "FAIL: carry"; exit 1; }
"$SPGO" carry --profile old.prof --old-binary old --binary new -o n.prof --format text --no-infer > n.out 2>&1 ||
  bad "carry --no-infer: $(tail -n 1 n.out)"
[ "$(stale_checksum c.prof)" = "$(stale_checksum new.prof)" ] || bad "hot carried under checksum $(stale_checksum c.prof), not NEW's"
# the probe of NEW the matching gives nothing though it runs at every
# iteration (the join block): found in the carry without inference (when
# that fails, in the carry itself)
join= ref=n.prof
[ -s n.prof ] || ref=c.prof
for id in $(stale_ids new.prof); do
  [ -z "$(stale_count $ref "$id")" ] && [ "$(stale_count new.prof "$id")" -ge 19000 ] && join=$id
done
[ -n "$join" ] || { bad "no hot probe of NEW without a count from the matching: the test tests nothing"; stale_ids n.prof; }
if [ -n "$join" ]; then
  want=$(stale_count new.prof "$join") got=$(stale_count c.prof "$join")
  echo "hot's probe $join (the join block): fresh $want, carried ${got:-none} (without inference: none)"
  awk -v a="${got:-0}" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= b) }' ||
    bad "probe $join carried ${got:-none}, fresh $want: not within 1%"
fi
grep -Eq 'inferred on the new CFG: +[1-9][0-9]* probes in 1 functions' c.out ||
  bad "no inferred probes reported: $(grep inferred c.out)"
grep -Eq 'inferred on the new CFG: +0 probes' n.out || bad "--no-infer inferred: $(grep inferred n.out)"
# hot's samples shared with the fresh profile
shared() { "$SPGO" overlap new.prof "$1" --function hot | awk '$NF == "hot" { sub("%", "", $4); print $4; exit }'; }
with=$(shared c.prof) without=$(shared n.prof)
echo "hot's samples shared with the fresh profile: $with% ($without% without inference)"
awk -v a="$with" 'BEGIN { exit !(a >= 99) }' || bad "hot carried only $with% like the fresh profile"
awk -v a="$with" -v b="$without" 'BEGIN { exit !(a > b) }' || bad "inference did not bring hot closer ($with% vs $without%)"
[ $fail -eq 0 ] && echo "stale_carry_infer: ok"
exit $fail
