#!/usr/bin/env bash
# spgo gen with several -o: one read of perf.data gives the compiler
# profile and the layout profiles, each -o in the --format given before it.
#  - every output is byte-identical to the one a separate `spgo gen` writes:
#    AutoFDO profile + bolt + propeller (and its .order) + order of a DWARF
#    build; the CS profile (llvm-profgen's default on a probe build, its
#    unwinding thread running while the layouts count) in extbinary and
#    text + bolt-pa; IP mode (--mode ip) profile + order; perf.data on stdin;
#  - the samples are read and aggregated once: stderr says their count once,
#    and the layout counts once, naming the layout outputs;
#  - one -o keeps both spellings (--format F -o OUT, -o OUT --format F);
#  - usage errors, exit 2 and one line: a --format after the last -o, two
#    -o of one file (also as ./NAME, and propeller's OUT.order), layout
#    formats with --kernel, --perf-script, --unsymbolized, --sample-period,
#    gcov with an LLVM format, more than 8 outputs;
#  - all or none: when one output cannot be written (/dev/full), the others
#    keep their old contents and no temporary file is left.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
src="$SPGO_SRC/examples/minivm/minivm.c"
same() { cmp -s "$2" "$3" && echo "ok   $1" || bad "$1: $2 and $3 differ"; }
usage_err() {
  local name=$1 want=$2; shift 2
  "$SPGO" gen --binary minivm --perf-data e.data "$@" > out 2> err
  local rc=$?
  if [ $rc -ne 2 ]; then bad "$name: exit $rc, want 2 ($(head -2 err))"; return; fi
  [ "$(wc -l < err)" -eq 2 ] || { bad "$name: $(wc -l < err) lines on stderr: $(cat err)"; return; }
  head -1 err | grep -Eq -- "^spgo gen: .*$want" || { bad "$name: '$(head -1 err)' does not match /$want/"; return; }
  echo "ok   $name: $(head -1 err)"
}

clang-19 -O2 -g -fno-pie -no-pie -ffunction-sections -fbasic-block-sections=labels -Wl,--emit-relocs \
  -o minivm "$src"
"$SPGO" emulate -c 2000 --seed 7 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate"; exit 1; }
g() { "$SPGO" gen --binary minivm --perf-data e.data "$@"; }

# AutoFDO profile and three layouts, apart and in one run.
g -o s.prof --quiet && g --format bolt -o s.fdata --quiet && g --format propeller -o s.prop --quiet &&
  g --format order -o s.order --quiet || bad "separate runs"
g -o a.prof --format bolt -o a.fdata --format propeller -o a.prop --format order -o a.order 2>a.err ||
  { cat a.err; bad "one run, four outputs"; }
for f in prof fdata prop prop.order order; do same "four outputs: $f" s.$f a.$f; done
[ "$(grep -c 'samples, [0-9]* in the binary' a.err)" = 1 ] || bad "sample counts said $(grep -c 'samples, [0-9]* in the binary' a.err) times"
[ "$(grep -c 'LBR samples' a.err)" = 1 ] || bad "LBR counts said $(grep -c 'LBR samples' a.err) times"
grep -q '^spgo: gen: a.fdata, a.prop, a.order: [0-9]* LBR samples' a.err || bad "the layout line: $(grep 'LBR samples' a.err)"

# One -o: --format before or after it.
g -o y.fdata --format bolt --quiet || bad "-o OUT --format bolt"
same "-o OUT --format F" s.fdata y.fdata

# IP mode: the profile and an order.
g --mode ip -o si.prof --quiet 2>/dev/null && g --mode ip --format order -o si.order --quiet 2>/dev/null ||
  bad "separate IP runs"
g --mode ip -o ai.prof --format order -o ai.order --quiet 2>/dev/null || bad "one IP run"
same "IP mode: profile" si.prof ai.prof
same "IP mode: order" si.order ai.order

# perf.data from a pipe: read once, so two outputs are possible.
"$SPGO" gen --binary minivm --perf-data - -o p.prof --format bolt -o p.fdata --quiet < e.data || bad "stdin"
same "stdin: profile" s.prof p.prof
same "stdin: fdata" s.fdata p.fdata

# A probe build: the CS profile (its unwinding thread) with bolt-pa.
clang-19 -O2 -g -fno-pie -no-pie -fpseudo-probe-for-profiling -Wl,--emit-relocs -o pvm "$src"
"$SPGO" emulate -c 2000 --seed 7 -o p.data -- ./pvm 1 >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate (probes)"; }
h() { "$SPGO" gen --binary pvm --perf-data p.data "$@"; }
h -o cs.prof --quiet && h --format text -o cs.txt --quiet && h --format bolt-pa -o cs.pa --quiet || bad "separate CS runs"
h -o ca.prof --format text -o ca.txt --format bolt-pa -o ca.pa 2>ca.err || { cat ca.err; bad "one CS run"; }
grep -q 'a context-sensitive profile' ca.err || bad "not the CS profile: $(head -2 ca.err)"
for f in prof txt pa; do same "CS: $f" cs.$f ca.$f; done

# Usage errors.
usage_err "--format after the last -o" "--format bolt after the last -o" -o x.prof -o x.fdata --format bolt
usage_err "one file twice" "-o x.prof and -o ./x.prof name one file" -o x.prof --format bolt -o ./x.prof
usage_err "propeller's .order" "\(its .order\)" -o x.prop.order --format propeller -o x.prop
usage_err "--kernel" "one --perf-data read: not with --kernel" --kernel -o x.prof --format bolt -o x.fdata
usage_err "--sample-period" "not with --sample-period" --sample-period 9 -o x.prof --format order -o x.order
usage_err "gcov and text" "two profiles" --format gcov -o x.afdo --format text -o x.txt
usage_err "9 outputs" "9 outputs: at most 8" -o 1 -o 2 -o 3 -o 4 -o 5 -o 6 -o 7 -o 8 -o 9
"$SPGO" gen --binary minivm --perf-script e.data -o x.prof --format bolt -o x.fdata > out 2> err
[ $? = 2 ] && grep -q 'not with --perf-script' err && echo "ok   --perf-script" || bad "--perf-script: $(head -1 err)"
"$SPGO" gen --binary minivm --unsymbolized s.prof --format bolt -o x.fdata > out 2> err
[ $? = 2 ] && grep -q 'not with --unsymbolized' err && echo "ok   --unsymbolized" || bad "--unsymbolized: $(head -1 err)"
ls x.* >/dev/null 2>&1 && bad "a usage error wrote $(ls x.*)"

# All or none: an output that fails leaves the others as they were.
echo old > o.prof; echo old > o.fdata; echo old > o.prop
g -o o.prof --format propeller -o o.prop --format bolt -o /dev/full --quiet 2>err && bad "/dev/full did not fail"
grep -q '/dev/full: write failed' err || bad "no error for /dev/full: $(cat err)"
[ "$(cat o.prof o.prop)" = "$(printf 'old\nold')" ] || bad "the profile or propeller's was replaced though bolt's failed"
[ -e o.prop.order ] && bad "propeller's .order written though bolt's failed"
g -o /dev/full --format bolt -o o.fdata --quiet 2>err && bad "/dev/full (the profile) did not fail"
[ "$(cat o.fdata)" = old ] || bad "the fdata was replaced though the profile failed"
ls ./*.tmp.* >/dev/null 2>&1 && bad "temporary files left: $(ls ./*.tmp.*)"
[ $fail -eq 0 ] && echo "gen_multi_output: ok"
exit $fail
