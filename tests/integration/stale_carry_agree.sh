#!/usr/bin/env bash
# spgo carry on a probe profile: a block paired by its code alone, far from
# where the pairs around it say (src/stale/align.c, neighbours_agree()),
# is not taken.  OLD is lib/stale_agree.c; NEW inserts a block early in
# hot's loop, gives the hot block A the code of the cold block B and
# deletes B: NEW's A and OLD's B are then the only blocks of that code left
# unpaired, and pairing them carried B's count (0) to A, which the fresh
# profile has at about 4800.  The profiles are exact counts (`spgo emulate
# --ground-truth` + `spgo gen`); hot places few samples by code, so the
# carry takes --min-confidence 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/stale.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="$SPGO_SRC/tests/integration/lib/stale_agree.c"
sed -e 's|^\t\t/\*INS\*/$|\t\tif (x \& 0x8u) { sink = x + 5u; s += fb(s); }|' \
    -e 's|/\*A\*/T(0x00c00000u, 2)|if ((x \& 0x00c00000u) == 0x00c00000u) { sink = x * 3u; s -= x >> 5; }|' \
    -e '/\/\*B\*\//d' "$base" > new.c
[ "$(grep -c 'sink = x \* 3u' new.c)" = 1 ] && ! grep -q '/\*\(INS\|A\|B\)\*/' new.c || bad "the edit did not apply"
stale_exact_pair "$base" new.c
[ "$(stale_checksum old.prof)" != "$(stale_checksum new.prof)" ] || bad "hot's checksum did not change"
stale_carry_cn
# low FILE MAX: the probes the fresh profile runs 1000-MAX times that FILE
# carries at less than a quarter of that: hot weight carried to zero.
# (The block inserted, of no code in OLD, takes half its count.)
low() {
  local list= id want got
  for id in $(stale_ids new.prof); do
    want=$(stale_count new.prof "$id")
    [ "$want" -ge 1000 ] && [ "$want" -le "$2" ] || continue
    got=$(stale_count "$1" "$id")
    [ "${got:-0}" -lt $((want / 4)) ] && list="$list $id:$want/${got:-none}"
  done
  echo "$list"
}
rows=$(for id in $(stale_ids new.prof); do [ "$(stale_count new.prof "$id")" -ge 1000 ] && echo; done | wc -l)
[ "$rows" -ge 15 ] || bad "only $rows hot probes: the test tests nothing"
l=$(low c.prof 1000000)
echo "c.prof: hot probes carried to less than a quarter (fresh/carried):${l:- none}"
[ -z "$l" ] || bad "c.prof: hot probes carried to about zero:$l"
# spgo overlap's measure of the same: the fresh samples where carried has zero
z=$("$SPGO" overlap new.prof c.prof --function hot | awk '/^Function-level samples/ { on = 1 } on && $NF == "hot" { print $1 }')
echo "c.prof: hot's fresh samples where the carried profile has zero: $z"
[ "$z" = "0.00%" ] || bad "c.prof: $z of hot's fresh samples where the carried profile has zero"
# --no-infer: the blocks taken one time in four or two (A among them;
# fresh 1000-15000) are not at about zero.  (Not the loop's latch: with B
# left unpaired, the probes next to an in-place pair of the code alone
# pair with their neighbours of OLD, B among them, and inference mends
# that.)
l=$(low n.prof 15000)
echo "n.prof (--no-infer): taken blocks carried to less than a quarter:${l:- none}"
[ -z "$l" ] || bad "n.prof: taken blocks carried to about zero:$l"
[ $fail -eq 0 ] && echo "stale_carry_agree: ok"
exit $fail
