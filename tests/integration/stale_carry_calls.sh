#!/usr/bin/env bash
# spgo carry on a probe profile: call targets go with call anchors only.
# OLD is lib/stale_infer.c with a second callee fd; NEW inserts a branch in
# hot's loop (its checksum changes) and calls fd where OLD's loop called fc
# (fc is still called after the loop, so it is not renamed).  The loop's
# call probe of NEW then has no call anchor in OLD: it takes its block's
# count (19200, every iteration), and no call target, where OLD's probe
# there recorded fc:19200 (a target naming the old callee at a call of
# fd; clang would read it as a call of fc).  The calls that keep their
# callee (fb before the loop, fc after it) keep their targets, at their
# counts.  The profiles are exact counts (`spgo emulate --ground-truth` +
# `spgo gen`).
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/stale.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="$SPGO_SRC/tests/integration/lib/stale_infer.c"
fc='__attribute__((noinline)) unsigned fc(unsigned x) { return x + 17; }'
sed "s|^$fc\$|&\n__attribute__((noinline)) unsigned fd(unsigned x) { return x + 19; }|" "$base" > old.c
sed -e 's|^\t\t/\*INS\*/$|\t\tif ((x \& 0x30000) != 0x30000) { sink = x ^ s; s = s * 7 + 1; }|' \
	-e 's|^\t\ts += fc(x);$|\t\ts += fd(x);|' old.c > new.c
[ "$(diff old.c new.c | grep -c '^>')" = 2 ] && grep -q ' fd(unsigned' old.c ||
	{ echo "FAIL: the edits did not apply"; exit 1; }
stale_exact_pair old.c new.c
[ "$(stale_checksum old.prof)" != "$(stale_checksum new.prof)" ] || bad "hot's checksum did not change"
"$SPGO" carry --profile old.prof --old-binary old --binary new -o c.prof --format text > c.out 2>&1 ||
	{ cat c.out; echo "FAIL: carry"; exit 1; }
[ "$(stale_checksum c.prof)" = "$(stale_checksum new.prof)" ] || bad "hot carried under checksum $(stale_checksum c.prof), not NEW's"
# hot's body records: "ID COUNT [TARGET:N]..." one a line
body() { awk '/^hot:/ { w = 1; next } /^[^ ]/ { w = 0 } w && $1 ~ /^[0-9]+:$/ { sub(":", "", $1); print }' "$1"; }
body new.prof > new.b && body c.prof > c.b && body old.prof > old.b
# the probe of each call: ID of the record with target NAME:COUNT... in FILE
site() { awk -v t="$2" '{ for (i = 3; i <= NF; i++) if (index($i, t ":") == 1) print $1 }' "$1"; }
loop=$(site new.b fd) oldloop=$(awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^fc:/ && $2 > 1000) print $1 }' old.b)
[ -n "$loop" ] && [ -n "$oldloop" ] || { cat new.b old.b; echo "FAIL: no loop call probe (fd in NEW, fc in OLD)"; exit 1; }
want=$(awk -v id="$loop" '$1 == id { print $2 }' new.b) got=$(awk -v id="$loop" '$1 == id { print $2 }' c.b)
echo "hot's call probe $loop (fc -> fd): fresh $(grep "^$loop " new.b | cut -d' ' -f2-), carried $(grep "^$loop " c.b | cut -d' ' -f2-)"
awk -v a="${got:-0}" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= b) }' ||
	bad "call probe $loop carried ${got:-none}, fresh $want: not within 1%"
[ "$(awk -v id="$loop" '$1 == id { print NF }' c.b)" = 2 ] ||
	bad "call probe $loop (a call of fd, no anchor in OLD) carried call targets: $(grep "^$loop " c.b)"
# OLD's loop call samples of fc land nowhere: hot's fc targets are the
# fresh profile's (the call after the loop)
fcsum() { awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^fc:/) { sub("fc:", "", $i); s += $i } } END { print s + 0 }' "$1"; }
[ "$(fcsum c.b)" = "$(fcsum new.b)" ] || bad "hot's fc targets: carried $(fcsum c.b), fresh $(fcsum new.b)"
# the calls whose callee stayed keep their targets, at their counts
for t in fb fc; do
	id=$(site new.b $t)
	[ -n "$id" ] && [ "$(site c.b $t)" = "$id" ] || { bad "the call of $t (probe ${id:-none}) lost its target"; continue; }
	awk -v id="$id" -v t="$t" '$1 == id { for (i = 3; i <= NF; i++) if (index($i, t ":") == 1) { sub(t ":", "", $i); s += $i } ok = (s == $2) }
		END { exit !ok }' c.b || bad "the call of $t: $(grep "^$id " c.b) (targets not at the probe's count)"
done
grep -Eq 'call sites carried: +[0-9.]+% of call samples' c.out &&
	! grep -Eq 'call sites carried: +100.0%' c.out || bad "call samples: $(grep 'call sites carried' c.out)"
[ $fail -eq 0 ] && echo "stale_carry_calls: ok"
exit $fail
