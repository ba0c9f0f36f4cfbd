#!/usr/bin/env bash
# spgo carry: a profile of the OLD build (lib/stale_base.c) carried to NEW
# builds made by one small edit each, as stale_report.sh makes them.  The
# profiles are the exact counts (`spgo emulate --ground-truth` + `spgo gen
# --ground-truth`): deterministic.  For each edit:
#  - a loop changed in loop_sum (lines inserted before the old loop, which
#    has no call to anchor it: its rows are aligned by discriminator and
#    instruction classes): loop_sum 100% matched after carrying, not before;
#  - lines inserted in the middle of old_name (before its call to mix: the
#    call anchor moves): old_name 100% after, 10% before;
#  - old_name renamed new_name: its samples under new_name (line and probe
#    profiles);
#  - each carried profile is closer to a fresh profile of NEW (spgo overlap
#    similarity) than the profile as it is (figures in the commit);
#  - probe profiles: a function whose checksum changed is carried under
#    NEW's checksum, its probes aligned by call anchors
#    (stale_carry_probe.sh); loop_sum has none: its probes pair by their
#    blocks' code (block hashes), closer to a fresh profile than the ids
#    kept (clang's rule);
#  - the output in the input's format unless --format;
#  - bad input: no --old-binary, a profile that is not OLD's: errors, and no
#    output file.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="$SPGO_SRC/tests/integration/lib/stale_base.c"
cc() { # OUT SRC FLAGS... (every build compiles V.d/prog.c, as stale_report.sh)
  local out=$1 src=$2; shift 2
  mkdir -p "$out.d" && cp "$src" "$out.d/prog.c" &&
    (cd "$out.d" && clang-19 -O2 -g -fdebug-info-for-profiling "$@" -fno-pie -no-pie -o ../"$out" prog.c)
}
sed 's|^\t/\*LOOP\*/$|\t/* changed: odd elements\n\t * count twice */\n\tfor (int i = 0; i < n; i++)\n\t\tif (v[i] \& 1)\n\t\t\ts += v[i];|' \
  "$base" > loop.c
awk '{ print } /^\tunsigned r = 0;$/ && !done { print "\t/* three lines\n\t * inserted in\n\t * the middle */"; done = 1 }' \
  "$base" > mid.c
sed 's/old_name/new_name/g' "$base" > rename.c
for v in loop mid rename; do cmp -s "$v.c" "$base" && bad "edit '$v' changed nothing"; done
cc old "$base" && cc oldp "$base" -fpseudo-probe-for-profiling || { echo "FAIL: clang-19"; exit 1; }
for v in loop mid rename; do
  cc "$v" "$v.c" && cc "${v}p" "$v.c" -fpseudo-probe-for-profiling || { echo "FAIL: clang-19 ($v)"; exit 1; }
done
# fresh KIND BIN: the exact profile of BIN in KIND-BIN.prof
fresh() {
  "$SPGO" emulate -c 2000 -o "$2.data" --ground-truth "$2.gt" -- "./$2" 300 >/dev/null 2>>err.txt &&
    "$SPGO" gen --binary "$2" --ground-truth "$2.gt" -o "$1-$2.prof" --format text --quiet ||
    { cat err.txt; echo "FAIL: spgo emulate/gen ($2)"; exit 1; }
}
fresh l old; fresh p oldp
row() { awk -v f="$2" '$4 == f { print; exit }' "$1"; }
matched_of() { row "$1" "$2" | awk '{ print $2 }'; }
similarity() { "$SPGO" overlap "$1" "$2" | awk '/profile similarity/ { sub("%", "", $NF); print $NF }'; }

# carry_line VARIANT FUNC: carry l-old.prof to VARIANT; FUNC (unless -) 100% after, not before
carry_line() {
  local v=$1 f=$2
  "$SPGO" carry --profile l-old.prof --old-binary old --binary "$v" -o "c-$v.prof" > "c-$v.out" 2> "c-$v.err" ||
    { bad "$v: carry failed: $(cat "c-$v.err")"; return; }
  grep -q '^carried: 100.0% of samples' "c-$v.out" || bad "$v: not all carried: $(tail -n 1 "c-$v.out")"
  [ -s "c-$v.err" ] && bad "$v: warned: $(cat "c-$v.err")"
  "$SPGO" stale --profile l-old.prof --binary "$v" --top 0 > "s-$v.out"
  "$SPGO" stale --profile "c-$v.prof" --binary "$v" --top 0 > "sc-$v.out"
  if [ "$f" != - ]; then
    [ "$(matched_of "s-$v.out" "$f")" != 100.0% ] || bad "$v: $f matched 100% before carrying: the edit tests nothing"
    [ "$(matched_of "sc-$v.out" "$f")" = 100.0% ] || bad "$v: carried $f: $(row "sc-$v.out" "$f")"
  fi
  tail -n 1 "sc-$v.out" | grep -qx 'matched: 100.0% of samples; fresh' || bad "$v: carried: $(tail -n 1 "sc-$v.out")"
  # closer to the fresh profile of NEW than the profile as it is
  fresh l "$v"
  local before after
  before=$(similarity "l-$v.prof" l-old.prof); after=$(similarity "l-$v.prof" "c-$v.prof")
  echo "$v: similarity to the fresh profile: as it is $before%, carried $after%"
  awk -v a="$after" -v b="$before" 'BEGIN { exit !(a > b) }' || bad "$v: carried $after% not above $before%"
}
carry_line loop loop_sum
grep -Eq 'moved by an instruction row: *[1-9]' c-loop.out || bad "loop: no samples moved by rows"
carry_line mid old_name
grep -Eq 'moved by a call anchor: *[1-9]' c-mid.out || bad "mid: no samples moved by the call anchor"
carry_line rename -
# main's call to old_name: a call site lost before, carried (to new_name) after
calls() { row "$1" main | awk '{ print $3 }'; }
[ "$(calls s-rename.out)" != 100.0% ] || bad "rename: main's call sites all there before carrying"
[ "$(calls sc-rename.out)" = 100.0% ] || bad "rename: main's call sites after carrying: $(row sc-rename.out main)"
# the renamed function keeps its samples under the new name
[ "$(matched_of sc-rename.out new_name)" = 100.0% ] || bad "rename: new_name: $(row sc-rename.out new_name)"
[ "$(row sc-rename.out new_name | awk '{ print $1 }')" = "$(row s-rename.out old_name | awk '{ print $1 }')" ] ||
  bad "rename: new_name's samples differ from old_name's"
grep -q '^old_name' c-rename.prof && bad "rename: old_name still in the carried profile"

# Probe profiles: a rename carried.
"$SPGO" carry --profile p-oldp.prof --old-binary oldp --binary renamep -o c-renamep.prof > c-renamep.out 2>&1 ||
  bad "probe rename: carry failed"
"$SPGO" stale --profile c-renamep.prof --binary renamep --top 0 > sc-renamep.out
[ "$(matched_of sc-renamep.out new_name)" = 100.0% ] || bad "probe rename: new_name: $(row sc-renamep.out new_name)"
tail -n 1 sc-renamep.out | grep -qx 'matched: 100.0% of samples; fresh' || bad "probe rename: $(tail -n 1 sc-renamep.out)"
# loop_sum's checksum changed and it has no call to anchor its probes:
# its blocks pair by their block hashes (the old loop's are the same
# code), all of it carried under NEW's checksum; loop_sum's samples shared
# with a fresh profile of NEW: 43.8% (the ids kept, clang's rule: 28.9%,
# 20% of the samples dropped; the new loop has samples OLD has not)
"$SPGO" carry --profile p-oldp.prof --old-binary oldp --binary loopp -o c-loopp.prof > c-loopp.out 2> c-loopp.err ||
  bad "probe loop: carry failed"
grep -Eq 'moved by a block hash: *[1-9]' c-loopp.out || bad "probe loop: nothing moved by a block hash"
grep -q '^carried: 100.0% of samples' c-loopp.out || bad "probe loop: not all carried: $(tail -n 1 c-loopp.out)"
"$SPGO" stale --profile c-loopp.prof --binary loopp --top 0 > sc-loopp.out
tail -n 1 sc-loopp.out | grep -qx 'matched: 100.0% of samples; fresh' || bad "probe loop: carried: $(tail -n 1 sc-loopp.out)"
fresh p loopp
lo=$("$SPGO" overlap p-loopp.prof c-loopp.prof --function loop_sum | awk '$NF == "loop_sum" { sub("%", "", $4); print $4; exit }')
echo "probe loop: loop_sum's samples shared with the fresh profile: ${lo:-none}%"
awk -v a="${lo:-0}" 'BEGIN { exit !(a > 40) }' || bad "probe loop: loop_sum carried only ${lo:-0}% like the fresh profile"

# The output: the input's format unless --format.
"$SPGO" show c-loop.prof | head -n 1 | grep -qx 'format: text' || bad "carried text profile: $("$SPGO" show c-loop.prof | head -n 1)"
"$SPGO" carry --profile l-old.prof --old-binary old --binary loop -o c-loop.ext --format extbinary > /dev/null ||
  bad "carry --format extbinary failed"
"$SPGO" show c-loop.ext | head -n 1 | grep -qx 'format: extbinary' || bad "--format extbinary: $("$SPGO" show c-loop.ext | head -n 1)"

# Bad input: errors, no output written.
"$SPGO" carry --profile l-old.prof --binary loop -o none.prof > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "no --old-binary: exit $rc, not 2"
clang-19 -O2 -g -o other "$SPGO_SRC/examples/minivm/minivm.c" || bad "clang-19 minivm"
"$SPGO" carry --profile l-old.prof --old-binary other --binary loop -o none.prof > /dev/null 2> err; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < err)" -eq 1 ] && grep -q 'does not belong to the old binary' err ||
  bad "profile not of OLD: exit $rc, '$(cat err)'"
[ -e none.prof ] && bad "an output file was left after an error"

[ $fail -eq 0 ] && echo "stale_carry: ok"
exit $fail
