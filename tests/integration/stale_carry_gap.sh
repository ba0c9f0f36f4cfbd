#!/usr/bin/env bash
# spgo carry on a probe profile: the block probes between two pairs that
# no hash tells apart are aligned in order by their code (src/stale/align.c,
# align_gaps_code()), not sent by the nearer pair's delta.  OLD is
# lib/stale_gap.c, a row of 22 look-alike blocks (the same code, taken one
# time in four or in eight) between hot's calls of fb and fc; NEW inserts
# one block of other code near the start of the row.  The blocks after it
# move by one block; the delta of fb (the nearer pair) sends each of those
# nearer fb than fc to its neighbour of OLD, of other odds (four of them,
# off by half or by double), where the code's order pairs each with itself.
# hot places few of its samples by code (the row is a guess either way),
# so the carry takes --min-confidence 0.  The profiles are exact counts
# (`spgo emulate --ground-truth` + `spgo gen`).
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/stale.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="$SPGO_SRC/tests/integration/lib/stale_gap.c"
sed 's|^\t\t/\*INS\*/$|\t\tif (x \& 0x8u) { sink = x * 3u; s += x >> 5; }|' "$base" > new.c
cmp -s new.c "$base" && bad "the edit changed nothing"
stale_exact_pair "$base" new.c
[ "$(stale_checksum old.prof)" != "$(stale_checksum new.prof)" ] || bad "hot's checksum did not change"
stale_carry_cn
grep -Eq 'in order by code \(a guess\): *[1-9]' c.out || bad "nothing placed in order by code: $(grep 'in order' c.out)"
# the row's taken blocks (and the inserted one): fresh counts 1000-15000;
# a block carried more than 25% off its fresh count is misplaced.  Only
# the inserted block, which has no code in OLD, may be.
for v in c n; do
  rows=0 off=0 list=
  for id in $(stale_ids new.prof); do
    want=$(stale_count new.prof "$id")
    [ "$want" -ge 1000 ] && [ "$want" -le 15000 ] || continue
    got=$(stale_count $v.prof "$id")
    rows=$((rows + 1))
    awk -v a="${got:-0}" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 4 > b) }' &&
      { off=$((off + 1)); list="$list $id:$want/${got:-none}"; }
  done
  echo "$v.prof: $off of the row's $rows blocks off their fresh count by more than 25%:${list:- none}"
  [ $rows -ge 20 ] || bad "$v.prof: only $rows blocks in the row: the test tests nothing"
  [ $off -le 1 ] || bad "$v.prof: $off blocks misplaced (fresh/carried):$list"
done
[ $fail -eq 0 ] && echo "stale_carry_gap: ok"
exit $fail
