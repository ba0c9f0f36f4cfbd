#!/usr/bin/env bash
# spgo carry on probe (CSSPGO) profiles, and context profiles: a profile of
# the OLD build (lib/stale_probe.c) carried to NEW builds made by one small
# edit each.  The profiles are the exact counts (`spgo emulate
# --ground-truth[-cs]` + `spgo gen`): deterministic.  For each edit:
#  - a block inserted in work between its calls to fa and fb (probe
#    build): work's CFG checksum changes, so clang drops its samples; the
#    call anchors (fa, fb, fc) and the blocks of the same code pair by LCS,
#    the rest move by the nearer pair's delta: carried, work is within 1% of a
#    fresh profile of NEW (spgo overlap), where the profile as it is (or
#    its ids under NEW's checksum, without the anchors) is far off;
#  - a call added to work (probe build): the new anchor fd pairs with
#    nothing, the others pair around it: the same;
#  - a block inserted in the middle of chain's loop, far from its anchors,
#    and two of its blocks swapped: the blocks pair by their code (block
#    hashes), chain within 1% (2%) of a fresh profile;
#  - fe's parameter type and body changed (probe build): a new mangled
#    name and checksum; found renamed by its identifier (_ZL2fe), its
#    samples carried under the new name;
#  - a header's static function in two modules, the NEW build from files
#    of other names (every unique-linkage suffix changed, hx's name and
#    checksum ambiguous): each copy follows its module's new suffix,
#    learnt from the module's renamed functions; all carried;
#  - fa moved to the end of the file (probe and line builds): GUID,
#    checksum and line offsets from the function's start unchanged: 100%
#    matched as it is, nothing moved by carrying;
#  - context profiles (CS; probe and line, block inserted): each caller
#    frame's call site
#    moved through its function's map ("main:N @ work:ID @ fb" takes
#    NEW's call probe (line) of fb), within 1% of a fresh CS profile
#    (probe; line: above 85%: the inserted lines' samples are new);
#  - --min-confidence: work kept as it is (OLD's checksum) when less of
#    its samples than that are placed by its code, carried otherwise;
#    the default (25) keeps fe of the 'sig' edit, 0 carries it;
#  - bad input: a probe profile with an OLD (or NEW) without probes, a
#    stripped NEW: one-line errors, exit 1, no output.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64 strip
scratch
base="$SPGO_SRC/tests/integration/lib/stale_probe.c"
cc() { # OUT SRC FLAGS... (every build compiles V.d/prog.c: static names depend on it)
  local out=$1 src=$2; shift 2
  mkdir -p "$out.d" && cp "$src" "$out.d/prog.c" &&
    (cd "$out.d" && clang-19 -O2 -g -fdebug-info-for-profiling "$@" -fno-pie -no-pie -o ../"$out" prog.c)
}
sed 's|^\t\t/\*BLOCK\*/$|\t\tif ((s \& 15) == 9) {\n\t\t\ts = s * 3 + 1;\n\t\t\tif (s \& 2)\n\t\t\t\ts ^= 0x55;\n\t\t}|' \
  "$base" > block.c
sed 's|^\t\t/\*CALL\*/$|\t\ts += fd(x);|' "$base" > call.c
sed 's|^\t\t/\*INS\*/$|\t\tif ((x \& 0x3000000) == 0x1000000) { sink = x ^ s; s += 3; }|' "$base" > ins.c
awk '/\/\*B2\*\/$/ { b2 = $0; next } /\/\*B6\*\/$/ { print; print b2; next } { print }' "$base" > swap.c
{ grep -v '^/\*MOVE\*/' "$base" | sed 's|^__attribute__((noinline)) unsigned fb|unsigned fa(unsigned x);\n&|'
  grep '^/\*MOVE\*/' "$base" | sed 's|^/\*MOVE\*/||'; } > move.c
sed -e 's|^static __attribute__((noinline)) unsigned fe(unsigned x, int k) /\*SIG\*/$|static __attribute__((noinline)) unsigned fe(unsigned x, unsigned k)|' \
    -e 's|^\tif (k \& 1) /\*SIGBODY\*/$|\tif (k \& 1)\n\t\tr ^= k >> 1;\n\telse|' "$base" > sig.c
for v in block call move sig ins swap; do cmp -s "$v.c" "$base" && bad "edit '$v' changed nothing"; done
cc old "$base" && cc oldp "$base" -fpseudo-probe-for-profiling || { echo "FAIL: clang-19"; exit 1; }
for v in block call move sig ins swap; do
  cc "${v}p" "$v.c" -fpseudo-probe-for-profiling || { echo "FAIL: clang-19 ($v)"; exit 1; }
done
cc block block.c && cc move move.c || { echo "FAIL: clang-19 (line builds)"; exit 1; }
# fresh BIN: the exact profile of BIN in BIN.prof, its CS profile in BIN.cs
fresh() {
  "$SPGO" emulate -c 2000 -o "$1.data" --ground-truth "$1.gt" --ground-truth-cs "$1.gtcs" -- "./$1" 300 \
    >/dev/null 2>>err.txt &&
    "$SPGO" gen --binary "$1" --ground-truth "$1.gt" -o "$1.prof" --format text --quiet &&
    "$SPGO" gen --binary "$1" --ground-truth-cs "$1.gtcs" -o "$1.cs" --format text --quiet ||
    { cat err.txt; echo "FAIL: spgo emulate/gen ($1)"; exit 1; }
}
for b in old oldp blockp callp movep sigp insp swapp block move; do fresh $b; done
grep -q '^\[main:[0-9]* @ work:[0-9]* @ fb\]' oldp.cs || bad "the CS profile has no context main @ work @ fb"
row() { awk -v f="$2" '$4 == f { print; exit }' "$1"; }
matched_of() { row "$1" "$2" | awk '{ print $2 }'; }
similarity() { "$SPGO" overlap "$1" "$2" | awk '/profile similarity/ { sub("%", "", $NF); print $NF }'; }
# overlap_of BASE TEST FUNC: the samples of function FUNC the two share (percent)
overlap_of() {
  "$SPGO" overlap "$1" "$2" --function "$3" | awk -v f="$3" '$NF == f { sub("%", "", $4); print $4; exit }'
}
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# carry PROFILE OLD NEW OUT: carried, all of it, without a warning
carry() {
  "$SPGO" carry --profile "$1" --old-binary "$2" --binary "$3" -o "$4" > "$4.out" 2> "$4.err" ||
    { bad "$4: carry failed: $(cat "$4.err")"; return 1; }
  grep -q '^carried: 100.0% of samples' "$4.out" || bad "$4: not all carried: $(tail -n 1 "$4.out")"
  [ -s "$4.err" ] && bad "$4: warned: $(cat "$4.err")"
  return 0
}
# close FRESH CARRIED ASIS WHAT [FUNC [MIN]]: carried within 1% of fresh (at
# least MIN% similar), as it is not (the whole profile, or FUNC's samples)
close() {
  local after before min=${6:-99}
  if [ -n "${5:-}" ] && [ "$5" != - ]; then
    after=$(overlap_of "$1" "$2" "$5"); before=$(overlap_of "$1" "$3" "$5")
  else
    after=$(similarity "$1" "$2"); before=$(similarity "$1" "$3")
  fi
  echo "$4: similarity to the fresh profile: as it is $before%, carried $after%"
  above "$after" "$min" || bad "$4: carried only $after% similar to a fresh profile"
  above 99 "$before" || bad "$4: the profile as it is is $before% similar already: the edit tests nothing"
}

for v in block call; do
  "$SPGO" stale --profile oldp.prof --binary "${v}p" --top 0 > "s-$v.out"
  row "s-$v.out" work | grep -q 'CFG checksum changed' || bad "$v: work's checksum did not change: $(row "s-$v.out" work)"
  [ "$(matched_of "s-$v.out" work)" = 0.0% ] || bad "$v: work matched as it is: $(row "s-$v.out" work)"
  carry oldp.prof oldp "${v}p" "c-$v.prof" || continue
  grep -Eq 'moved by a call anchor: *[1-9]' "c-$v.prof.out" || bad "$v: no samples moved by a call anchor"
  grep -Eq 'moved by (a block hash|the nearer delta): *[1-9]' "c-$v.prof.out" ||
    bad "$v: no samples moved by a block hash or the delta"
  "$SPGO" stale --profile "c-$v.prof" --binary "${v}p" --top 0 > "sc-$v.out"
  tail -n 1 "sc-$v.out" | grep -qx 'matched: 100.0% of samples; fresh' || bad "$v: carried: $(tail -n 1 "sc-$v.out")"
  # (work only: the new call's callee fd has samples OLD cannot have)
  close "${v}p.prof" "c-$v.prof" oldp.prof "$v: work" work
  # the ids alone under NEW's checksum (no anchors): far from fresh
  ck=$(awk '/^work:/ { w = 1 } w && /CFGChecksum/ { print $2; exit }' "${v}p.prof")
  awk -v ck="$ck" '/^work:/ { w = 1 } /^[^ ]/ && !/^work:/ { w = 0 } w && /CFGChecksum/ { $0 = " !CFGChecksum: " ck } { print }' \
    oldp.prof > "ids-$v.prof"
  s=$(overlap_of "${v}p.prof" "ids-$v.prof" work)
  above 99 "$s" || bad "$v: the same ids under NEW's checksum are $s% similar: the anchors test nothing"
done
# a call added: the new call probe of fd takes no samples of OLD's
fdsite=$(awk '/^work:/ { w = 1 } /^[^ ]/ && !/^work:/ { w = 0 } w && / fd:/ { sub(":", "", $1); print $1 }' callp.prof)
[ -n "$fdsite" ] || bad "call: the fresh profile has no call to fd in work"
awk -v id="$fdsite" '/^work:/ { w = 1 } /^[^ ]/ && !/^work:/ { w = 0 } w && $1 == id ":" && / fd:/' c-call.prof |
  grep -q . && bad "call: OLD samples carried onto the new call to fd"

# chain's loop has its anchors (fb, fc) before and after it, eight blocks
# between them and no call: a block inserted in the middle (ins), blocks
# of two shapes swapped (swap), chain's checksum changed by each.  Its
# blocks pair by their block hashes (the swapped ones out of order, by a
# hash unique to each), the inserted block takes its neighbour's samples:
# carried within 1% (ins) and 2% (swap) of a fresh profile (chain's
# samples shared: 99.6%, 99.75%).  Clang's rule (the anchors' deltas: a
# probe of the first half of the run keeps its id) gave 96.9% and 82.6%.
for v in ins swap; do
  "$SPGO" stale --profile oldp.prof --binary "${v}p" --top 0 > "s-$v.out"
  row "s-$v.out" chain | grep -q 'CFG checksum changed' || bad "$v: chain's checksum did not change: $(row "s-$v.out" chain)"
  carry oldp.prof oldp "${v}p" "c-$v.prof" || continue
  grep -Eq 'moved by a block hash: *[1-9]' "c-$v.prof.out" || bad "$v: no samples moved by a block hash"
  min=99; [ $v = swap ] && min=98
  close "${v}p.prof" "c-$v.prof" oldp.prof "$v: chain" chain $min
done

# --min-confidence: work's samples in the block edit are placed by its
# code (same probe, call anchor, block hash) for 62%: kept as it is
# (OLD's checksum: clang drops it) above that, carried below
ck_of() { awk '/^work:/ { w = 1 } w && /CFGChecksum/ { print $2; exit }' "$1"; }
"$SPGO" carry --profile oldp.prof --old-binary oldp --binary blockp -o keep.prof --min-confidence 70 > keep.out 2>&1 ||
  bad "min-confidence 70: carry failed: $(tail -n 1 keep.out)"
grep -q 'kept as it is (unsure): .* 1 functions' keep.out || bad "min-confidence 70: work not kept: $(grep kept keep.out)"
[ "$(ck_of keep.prof)" = "$(ck_of oldp.prof)" ] || bad "min-confidence 70: work's checksum $(ck_of keep.prof), not OLD's"
"$SPGO" carry --profile oldp.prof --old-binary oldp --binary blockp -o keep50.prof --min-confidence 50 > keep50.out 2>&1 ||
  bad "min-confidence 50: carry failed"
grep -q 'kept as it is' keep50.out && bad "min-confidence 50: work kept"
[ "$(ck_of keep50.prof)" = "$(ck_of blockp.prof)" ] || bad "min-confidence 50: work's checksum not NEW's"

# a function moved: matched as it is, carried in place
for k in l p; do
  old=old new=move; [ $k = p ] && old=oldp new=movep
  "$SPGO" stale --profile $old.prof --binary $new --top 0 > "s-move-$k.out"
  tail -n 1 "s-move-$k.out" | grep -qx 'matched: 100.0% of samples; fresh' ||
    bad "$k: fa moved: $(tail -n 1 "s-move-$k.out")"
  carry $old.prof $old $new "c-move-$k.prof" &&
    { grep -Eq 'at the same location: *100.0%' "c-move-$k.prof.out" || bad "$k: moved fa: samples moved"; }
done

# a static function's parameter type and body changed: its mangled name
# (_ZL2feji.__uniq.N -> _ZL2fejj.__uniq.N) and its checksum differ; found
# renamed by its identifier.  Its blocks' code changed too (the shifts
# of an unsigned k), so few of its samples are placed by code: by
# default (--min-confidence 25) it is kept under OLD's checksum, for
# clang to drop; with --min-confidence 0 it is carried under the new name
# and checksum (fe has no call to anchor its probes: its new blocks get
# nothing)
"$SPGO" stale --profile oldp.prof --binary sigp --top 0 > s-sig.out
awk '$4 ~ /^_ZL2feji/' s-sig.out | grep -q 'renamed to _ZL2fejj' ||
  bad "sig: fe not found renamed: $(awk '$4 ~ /^_ZL2fe/' s-sig.out)"
"$SPGO" carry --profile oldp.prof --old-binary oldp --binary sigp -o d-sig.prof > d-sig.out 2>&1 ||
  bad "sig: carry (default) failed: $(tail -n 1 d-sig.out)"
grep -q 'kept as it is (unsure): .* 1 functions' d-sig.out || bad "sig: fe not kept by default: $(grep kept d-sig.out)"
"$SPGO" carry --profile oldp.prof --old-binary oldp --binary sigp -o c-sig.prof --min-confidence 0 > c-sig.out 2>&1 ||
  bad "sig: carry failed: $(tail -n 1 c-sig.out)"
grep -q 'kept as it is' c-sig.out && bad "sig: fe kept with --min-confidence 0"
feo=$("$SPGO" overlap sigp.prof c-sig.prof --function _ZL2fe | awk '$NF ~ /^_ZL2fejj/ { sub("%", "", $4); print $4; exit }')
echo "sig: fe's samples shared with the fresh profile: ${feo:-none}% (as it is: none)"
above "${feo:-0}" 40 || bad "sig: fe not carried: ${feo:-none}%"

# Two modules with a copy each of a header's static function hx, the NEW
# build from files of other names: every unique-linkage suffix changes and
# hx's identifier and checksum are ambiguous; only_a and only_b (one per
# module) give each old module's new suffix, and each copy of hx follows
# its module.
mkdir -p mo mn
cat > mo/mod.h <<'EOF2'
static __attribute__((noinline)) unsigned hx(unsigned x)
{
	for (int i = 0; i < 8; i++)
		x = x * 2654435761u ^ (x >> 7);
	return x;
}
EOF2
cat > mo/a.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include "mod.h"
unsigned b_entry(unsigned x);
static __attribute__((noinline)) unsigned only_a(unsigned x) { return hx(x) + 3; }
int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 300, s = 0;
	for (unsigned i = 0; i < n * 64; i++)
		s += only_a(s + i) ^ b_entry(s);
	printf("%u\n", s);
	return 0;
}
EOF2
cat > mo/b.c <<'EOF2'
#include "mod.h"
static __attribute__((noinline)) unsigned only_b(unsigned x) { return hx(x ^ 5) * 3; }
__attribute__((noinline)) unsigned b_entry(unsigned x) { return only_b(x) + 1; }
EOF2
cp mo/mod.h mn/ && cp mo/a.c mn/a2.c && cp mo/b.c mn/b2.c
(cd mo && clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-pie -no-pie -o ../modold a.c b.c) &&
  (cd mn && clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-pie -no-pie -o ../modnew a2.c b2.c) ||
  { echo "FAIL: clang-19 (modules)"; exit 1; }
fresh modold
"$SPGO" stale --profile modold.prof --binary modnew --top 0 > s-mod.out
suffix() { awk -v f="$2" '$4 ~ "^" f { sub(/.*renamed to /, ""); sub(/.*\.__uniq\./, ""); print; exit }' "$1"; }
for m in a b; do
  old_sfx=$(nm modold | awk -v f="only_$m" '$3 ~ f { sub(/.*\.__uniq\./, "", $3); print $3 }')
  new_sfx=$(suffix s-mod.out "_ZL6only_${m}j")
  hx_new=$(awk -v s="$old_sfx" '$4 ~ "^_ZL2hxj[.]__uniq[.]" s { sub(/.*\.__uniq\./, ""); print; exit }' s-mod.out)
  [ -n "$new_sfx" ] && [ "$hx_new" = "$new_sfx" ] ||
    bad "modules: module $m's hx renamed to suffix '$hx_new', its module's new suffix is '$new_sfx'"
done
carry modold.prof modold modnew c-mod.prof

# context profiles: the trie's call sites carried
carry oldp.cs oldp blockp c-block.cs && close blockp.cs c-block.cs oldp.cs "CS probe, block"
site() { sed -n 's/^\[main:[0-9]* @ work:\([0-9.]*\) @ fb\].*/\1/p' "$1"; }
[ -n "$(site blockp.cs)" ] && [ "$(site c-block.cs)" = "$(site blockp.cs)" ] ||
  bad "CS probe: work's call to fb at '$(site c-block.cs)', fresh at '$(site blockp.cs)'"
grep -q 'contexts carried: *[1-9]' c-block.cs.out || bad "CS probe: no contexts counted"
# (line profiles: the inserted lines have samples no OLD line had)
carry old.cs old block c-blockl.cs && close block.cs c-blockl.cs old.cs "CS line, block" - 85
[ -n "$(site block.cs)" ] && [ "$(site c-blockl.cs)" = "$(site block.cs)" ] && [ "$(site old.cs)" != "$(site block.cs)" ] ||
  bad "CS line: work's call to fb at '$(site c-blockl.cs)', fresh at '$(site block.cs)', old at '$(site old.cs)'"

# Bad input: one line each, exit 1, no output.
one_error() { # WHAT PATTERN
  [ $rc -eq 1 ] || bad "$1: exit $rc, not 1"
  [ "$(wc -l < err)" -eq 1 ] || { bad "$1: not one line:"; cat err; }
  grep -q "$2" err || bad "$1: '$(cat err)' does not say '$2'"
  [ -e none.prof ] && bad "$1: an output file was left"
  rm -f none.prof
}
"$SPGO" carry --profile oldp.prof --old-binary old --binary blockp -o none.prof > /dev/null 2> err; rc=$?
one_error "probe profile, OLD without probes" "old binary has no pseudo-probes.*-fpseudo-probe-for-profiling"
"$SPGO" carry --profile oldp.prof --old-binary oldp --binary block -o none.prof > /dev/null 2> err; rc=$?
one_error "probe profile, NEW without probes" "new binary has no pseudo-probes.*-fpseudo-probe-for-profiling"
strip -o stripped blockp
"$SPGO" carry --profile oldp.prof --old-binary oldp --binary stripped -o none.prof > /dev/null 2> err; rc=$?
one_error "probe profile, stripped NEW" "new binary is stripped.*unstripped build"
strip -o strippedl block
"$SPGO" carry --profile old.prof --old-binary old --binary strippedl -o none.prof > /dev/null 2> err; rc=$?
one_error "line profile, stripped NEW" "new binary has no usable debug info.*-g"

[ $fail -eq 0 ] && echo "stale_carry_probe: ok"
exit $fail
