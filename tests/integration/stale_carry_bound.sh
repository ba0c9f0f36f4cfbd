#!/usr/bin/env bash
# spgo carry on a probe profile: a carried call's count is a lower bound on
# its block's count in the inference on NEW's CFG (src/stale/flow.c), so
# the blocks on the way to a hot call get its flow, and a block probe
# placed by code that the flow outvotes (over twice or under half) takes
# the flow's count.  OLD is lib/stale_bound.c: a region of hot's loop that
# never runs, then a call of fc at every iteration; NEW inverts the
# region's condition and moves the call into it.  The call is carried by
# its anchor (19200 calls); the only way to it is through three blocks
# carried at 0, OLD's counts:
#  - guess: NEW also changes the three blocks' code, so they are placed by
#    a guess.  Without the bound profi found it cheaper to take the call's
#    block to 0 (one block) than to raise three guesses, and wrote 0 for
#    them beside a call of 19200 (clang then sees a cold call);
#  - code: the three blocks keep their code and are placed by it.  With
#    the bound the flow raises them to 19200, but a probe placed by code
#    kept its 0 unless outvoted.
# Either way they must carry the fresh profile's count.  The profiles are
# exact counts (`spgo emulate --ground-truth` + `spgo gen`).
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/stale.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="$SPGO_SRC/tests/integration/lib/stale_bound.c"
edit=(-e 's|(x \& 0xffff0000) == 0xffff0000) {$|(x \& 0xffff0000) != 0xffff0000) {|'
	-e 's|^\t\t\t/\*CALL\*/$|\t\t\ts += fc(x) * 3u;|' -e '/\/\*OUT\*\/$/d')
recode=(-e 's|^\t\t\tsink = s;$|\t\t\tsink = s * 5u;|' -e 's|^\t\t\tsink2 = s ^ x;$|\t\t\tsink2 = (s ^ x) * 9u;|'
	-e 's|^\t\t\tsink = s - x;$|\t\t\tsink = (s - x) << 3;|')
# hot's body records of FILE: "ID COUNT [TARGET:N]..." one a line
body() { awk '/^hot:/ { w = 1; next } /^[^ ]/ { w = 0 } w && $1 ~ /^[0-9]+:$/ { sub(":", "", $1); print }' "$1"; }
for v in guess code; do
	mkdir -p $v && cd $v || exit 1
	if [ $v = guess ]; then
		sed "${edit[@]}" "${recode[@]}" "$base" > new.c
		want=5
	else
		sed "${edit[@]}" "$base" > new.c
		want=2
	fi
	[ "$(diff "$base" new.c | grep -c '^>')" = $want ] || { diff "$base" new.c; echo "FAIL: the edits did not apply ($v)"; exit 1; }
	stale_exact_pair "$base" new.c
	[ "$(stale_checksum old.prof)" != "$(stale_checksum new.prof)" ] || bad "$v: hot's checksum did not change"
	"$SPGO" carry --profile old.prof --old-binary old --binary new -o c.prof --format text > c.out 2>&1 ||
		{ cat c.out; echo "FAIL: carry ($v)"; exit 1; }
	[ "$(stale_checksum c.prof)" = "$(stale_checksum new.prof)" ] ||
		bad "$v: hot carried under checksum $(stale_checksum c.prof), not NEW's"
	body new.prof > new.b && body c.prof > c.b
	# the call of fc in the loop, as fresh and carried have it
	call=$(awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^fc:/ && $2 > 19000) print $1 }' new.b)
	[ -n "$call" ] || { cat new.b; echo "FAIL: no call of fc at every iteration in NEW ($v)"; exit 1; }
	echo "$v: hot's call probe $call: fresh $(grep "^$call " new.b | cut -d' ' -f2-), carried $(grep "^$call " c.b | cut -d' ' -f2-)"
	awk -v id="$call" '$1 == id { exit !($2 >= 19000) } END { if (NR == 0) exit 1 }' c.b ||
		bad "$v: the call of fc (probe $call) not carried at its count: $(grep "^$call " c.b)"
	# every probe of hot that runs at every iteration in NEW (the three
	# blocks before the call among them) carries that count, within 1%
	n=0 off=0 list=
	while read -r id cnt _; do
		[ "$cnt" -ge 19000 ] || continue
		got=$(awk -v id="$id" '$1 == id { print $2 }' c.b)
		n=$((n + 1))
		awk -v a="${got:-0}" -v b="$cnt" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 > b) }' &&
			{ off=$((off + 1)); list="$list $id:$cnt/${got:-none}"; }
	done < new.b
	echo "$v: hot's probes run at every iteration: $n, carried more than 1% off: $off${list:+ (fresh/carried:$list)}"
	[ $n -ge 10 ] || bad "$v: only $n probes run at every iteration: the test tests nothing"
	[ $off -eq 0 ] || bad "$v: $off probes on the way to the call carried off their count (fresh/carried):$list"
	with=$("$SPGO" overlap new.prof c.prof --function hot | awk '$NF == "hot" { sub("%", "", $3); print $3; exit }')
	echo "$v: hot's similarity to the fresh profile: $with%"
	awk -v a="${with:-0}" 'BEGIN { exit !(a >= 95) }' || bad "$v: hot carried only ${with:-?}% similar to the fresh profile"
	cd ..
done
# Counts no sampler makes: the call's targets sum past 2^64 (the sum would
# wrap to the "unknown" weight and the bound be lost, probes written 0).
# carry leaves hot as matched and says so; it infers nothing from them.
cd guess || exit 1
sed 's/^\( [0-9]*: [0-9]*\) fc:[0-9]*$/\1 fc:9223372036854775807 fb:9223372036854775808/' old.prof > huge.prof
grep -q 'fb:9223372036854775808$' huge.prof || bad "huge counts: the edit did not apply"
"$SPGO" carry --profile huge.prof --old-binary old --binary new -o h.prof --format text > h.out 2>&1 ||
	bad "huge counts: carry failed: $(tail -n 1 h.out)"
grep -Eq 'inferred on the new CFG: +0 probes' h.out && grep -q 'not inferred: *1 functions' h.out ||
	bad "huge counts: hot inferred from wrapped counts: $(grep -i inferred h.out | tr '\n' ' ')"
cd ..
[ $fail -eq 0 ] && echo "stale_carry_bound: ok"
exit $fail
