#!/usr/bin/env bash
# spgo stale: each matching rule at work on one small edit of one program
# (lib/stale_base.c, clang-19 -O2 -g -fdebug-info-for-profiling, and
# -fpseudo-probe-for-profiling for the probe builds).  The profiles are the
# exact counts of the OLD build (`spgo emulate --ground-truth` + `spgo gen
# --ground-truth`): deterministic.
#  - the same build: 100%, "fresh", exit 0 (line and probe profiles);
#  - a function added: everything still matches;
#  - a loop changed in loop_sum: only loop_sum is stale (probe: its CFG
#    checksum changed, clang drops it; line: its offsets moved), the rest
#    matches; --old-binary names it as changed;
#  - 5 lines inserted at the top of the file: line offsets from the
#    function start still match (absolute lines all moved);
#  - old_name renamed new_name: gone, found as renamed (same checksum;
#    same call anchors);
#  - doomed removed: gone, main's call site to it changed;
#  - inlining changed (small_step no longer inlined, mix inlined
#    everywhere): reported as inlined differently, nothing lost;
#  - an unrelated program: "no match", exit 1; --threshold sets the gate;
#  - bad input: probe profile and a build without probes (NEW or OLD), a
#    stripped NEW for a line profile, a profile that is not OLD's: one-line
#    errors, exit 1.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64 strip
scratch
base="$SPGO_SRC/tests/integration/lib/stale_base.c"
# Every build compiles a file of the same name (V/prog.c): clang names
# static functions after the file (_ZL3mixj.__uniq.HASH in probe builds).
cc() { # OUT SRC FLAGS...
  local out=$1 src=$2; shift 2
  mkdir -p "$out.d" && cp "$src" "$out.d/prog.c" &&
    (cd "$out.d" && clang-19 -O2 -g -fdebug-info-for-profiling "$@" -fno-pie -no-pie -o ../"$out" prog.c)
}
cc_line() { cc "$1" "$2"; }
cc_probe() { cc "$1" "$2" -fpseudo-probe-for-profiling; }

# The edits (each at the marker comments of stale_base.c).
sed 's|^/\*ADDED\*/$|__attribute__((used, noinline)) unsigned added_fn(unsigned x) { return x * 5 + 1; }|' \
  "$base" > added.c
sed 's|^\t/\*LOOP\*/$|\t/* changed: odd elements\n\t * count twice */\n\tfor (int i = 0; i < n; i++)\n\t\tif (v[i] \& 1)\n\t\t\ts += v[i];|' \
  "$base" > loop.c
{ printf '/* five\n * lines\n * inserted\n * at the\n * top */\n'; cat "$base"; } > top.c
sed 's/old_name/new_name/g' "$base" > rename.c
sed -e '/^\/\*DOOMED\*\//d' -e 's|acc += doomed(acc); /\*CALLDOOMED\*/|acc += 1;|' "$base" > remove.c
sed -e 's|^/\*INLINE\*/static |static __attribute__((noinline)) |' \
    -e 's|^/\*MIXATTR\*/ static __attribute__((noinline))|static inline __attribute__((always_inline))|' "$base" > inline.c
for v in added loop top rename remove inline; do
  cmp -s "$v.c" "$base" && bad "edit '$v' changed nothing"
done
cc_line old "$base" && cc_probe oldp "$base" || { echo "FAIL: clang-19"; exit 1; }
for v in added loop top rename remove inline; do
  cc_line "$v" "$v.c" && cc_probe "${v}p" "$v.c" || { echo "FAIL: clang-19 ($v)"; exit 1; }
done
"$SPGO" emulate -c 2000 -o l.data --ground-truth l.gt -- ./old 300 >/dev/null 2>err.txt &&
"$SPGO" emulate -c 2000 -o p.data --ground-truth p.gt -- ./oldp 300 >/dev/null 2>>err.txt ||
  { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" gen --binary old --ground-truth l.gt -o l.prof --format text --quiet &&
"$SPGO" gen --binary oldp --ground-truth p.gt -o p.prof --format text --quiet ||
  { echo "FAIL: spgo gen --ground-truth"; exit 1; }
grep -q CFGChecksum p.prof || bad "the probe profile has no checksums"

# stale KIND VARIANT [options]: the report in KIND-VARIANT.out, its status in $rc
stale() {
  local k=$1 v=$2 bin; shift 2
  bin=$v; [ "$k" = p ] && bin=${v}p
  "$SPGO" stale --profile $k.prof --binary "$bin" --top 0 "$@" > "$k-$v.out" 2> "$k-$v.err"
  rc=$?
}
verdict() { tail -n 1 "$1"; }
# row FILE FUNC: the function's row "samples matched calls name what..."
row() { awk -v f="$2" '$4 == f { print; exit }' "$1"; }
matched_of() { row "$1" "$2" | awk '{ print $2 }'; }
expect_fresh_all() { # FILE: every function matches, 100% and fresh
  verdict "$1" | grep -qx 'matched: 100.0% of samples; fresh' || bad "$1: not 100% fresh: $(verdict "$1")"
  grep -q 'of which 0 stale' "$1" || bad "$1: functions reported stale: $(grep 'of which' "$1")"
}

for k in l p; do
  ref=old; [ $k = p ] && ref=oldp
  "$SPGO" stale --profile $k.prof --binary $ref --top 0 > $k-same.out; rc=$?
  [ $rc -eq 0 ] || bad "$k: same build: exit $rc, not 0"
  expect_fresh_all $k-same.out
  grep -q 'call sites still there: *100.0%' $k-same.out || bad "$k: same build: call sites not all there"

  stale $k added
  [ $rc -eq 0 ] || bad "$k: function added: exit $rc"
  expect_fresh_all $k-added.out

  stale $k top
  [ $rc -eq 0 ] || bad "$k: lines at the top: exit $rc"
  expect_fresh_all $k-top.out

  stale $k loop --old-binary $ref
  m=$(matched_of $k-loop.out loop_sum)
  [ -n "$m" ] && [ "$m" != 100.0% ] || bad "$k: loop changed: loop_sum matched '$m'"
  for f in main old_name doomed; do
    [ "$(matched_of $k-loop.out $f)" = 100.0% ] || bad "$k: loop changed: $f not 100%: $(row $k-loop.out $f)"
  done
  grep -q 'of which 1 stale' $k-loop.out || bad "$k: loop changed: not exactly 1 stale function"
  grep -Eq '^  loop_sum +(CFG checksum 0x|[0-9]+ -> [0-9]+ bytes)' $k-loop.out ||
    bad "$k: loop changed: --old-binary does not name loop_sum as changed"
  if [ $k = p ]; then
    row $k-loop.out loop_sum | grep -q 'CFG checksum changed (clang drops it)' || bad "p: loop_sum checksum not reported"
    m=$(matched_of $k-loop.out loop_sum); [ "$m" = 0.0% ] || bad "p: loop_sum with a new checksum matched $m, not 0"
  else
    row $k-loop.out loop_sum | grep -q 'line offsets moved' || bad "l: loop_sum's moved lines not reported"
  fi

  stale $k rename
  row $k-rename.out old_name | grep -q 'renamed to new_name' || bad "$k: rename not found: $(row $k-rename.out old_name)"
  [ "$(matched_of $k-rename.out old_name)" = 0.0% ] || bad "$k: renamed function counted as matched"
  grep -q 'in renamed functions: *0.0%' $k-rename.out && bad "$k: renamed samples not counted"

  stale $k remove
  row $k-remove.out doomed | grep -Eq ' gone$' || bad "$k: removed function not gone: $(row $k-remove.out doomed)"
  row $k-remove.out main | grep -q 'call sites changed' || bad "$k: main's call to doomed not reported"
  [ "$(matched_of $k-remove.out old_name)" = 100.0% ] || bad "$k: remove: old_name not 100%"
done

# Inlining (line profiles: the DWARF inline tree; probe: the probe tree).
for k in l p; do
  stale $k inline
  grep -E '^ +[0-9]+ .*small_step' $k-inline.out | grep -q 'no longer inlined at a call site' ||
    bad "$k: small_step no longer inlined: not reported"
  grep -E '^ +[0-9]+ .*mix' $k-inline.out | grep -q 'now inlined everywhere' ||
    bad "$k: mix now inlined everywhere: not reported"
  grep -q 'inlined differently: *0.0%' $k-inline.out && bad "$k: inlined differently: no samples"
done

# An unrelated program: no match, exit 1; the threshold gates.
clang-19 -O2 -g -fdebug-info-for-profiling -o minivm "$SPGO_SRC/examples/minivm/minivm.c" || bad "clang-19 minivm"
"$SPGO" stale --profile l.prof --binary minivm > unrel.out; rc=$?
[ $rc -eq 1 ] || bad "unrelated program: exit $rc, not 1"
verdict unrel.out | grep -q '^matched: [0-9.]*% of samples; no match' || bad "unrelated: $(verdict unrel.out)"
stale l loop --threshold 99.99; [ $rc -eq 1 ] || bad "--threshold 99.99 on a stale profile: exit $rc"
verdict l-loop.out | grep -q '; stale$' || bad "stale verdict: $(verdict l-loop.out)"
stale l loop --threshold 1; [ $rc -eq 0 ] || bad "--threshold 1: exit $rc"
"$SPGO" stale --profile l.prof > /dev/null 2>&1; [ $? -eq 2 ] || bad "no --binary: not a usage error"

# Bad input: one line each, saying what is needed.
one_error() { # WHAT PATTERN: exit 1, one line on stderr matching PATTERN
  [ $rc -eq 1 ] || bad "$1: exit $rc, not 1"
  [ "$(wc -l < err)" -eq 1 ] || { bad "$1: not one line:"; cat err; }
  grep -q "$2" err || bad "$1: '$(cat err)' does not say '$2'"
}
"$SPGO" stale --profile p.prof --binary old > /dev/null 2> err; rc=$?
one_error "probe profile, NEW without probes" "new binary has no pseudo-probes.*-fpseudo-probe-for-profiling"
"$SPGO" stale --profile p.prof --binary loopp --old-binary old > /dev/null 2> err; rc=$?
one_error "probe profile, OLD without probes" "old binary has no pseudo-probes.*-fpseudo-probe-for-profiling"
strip -o stripped loop
"$SPGO" stale --profile l.prof --binary stripped > /dev/null 2> err; rc=$?
one_error "stripped NEW" "new binary has no usable debug info.*-g"
"$SPGO" stale --profile l.prof --binary loop --old-binary minivm > /dev/null 2> err; rc=$?
one_error "profile of another program as OLD" "does not belong to the old binary"

[ $fail -eq 0 ] && echo "stale_report: ok"
exit $fail
