#!/usr/bin/env bash
# spgo gen given several captures (issue 25): every --perf-data and
# --perf-script is used, not the last one alone.
#  - Two different emulated captures of one program, given as --perf-data
#    twice, write the profile `spgo aggregate A B` then `spgo gen
#    --unsymbolized` writes, byte for byte (LBR, IP and CS); the same with
#    --perf-script twice (text) and with one of each.
#  - Two different --binary values (or --debug-binary) are a usage error
#    naming both; the same value twice is harmless.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch

# minivm (-O2 -g -fdebug-info-for-profiling, frame pointers, no PIE) and
# e1.data..e2.data (spgo emulate -c 4001 --seed S -- ./minivm S): the
# fixture minivm_captures, made once for the tests that read them alike
minivm_captures 2
gen() { "$SPGO" gen --quiet --binary minivm --format text "$@"; }

for kind in lbr ip cs; do
  a=(); g=()
  [ $kind = cs ] && a=(--cs) g=(--cs)
  [ $kind = ip ] && g=(--mode ip)
  "$SPGO" aggregate --quiet "${a[@]}" --binary minivm -o both.$kind.unsym e1.data e2.data || bad "aggregate $kind"
  gen "${g[@]}" --unsymbolized both.$kind.unsym -o via_unsym.$kind 2>/dev/null || bad "gen --unsymbolized $kind"
  gen "${g[@]}" --perf-data e1.data --perf-data e2.data -o two.$kind 2>err.$kind || { cat err.$kind; bad "gen $kind, two --perf-data"; }
  cmp -s two.$kind via_unsym.$kind || bad "$kind: gen --perf-data A --perf-data B differs from aggregate A B + gen --unsymbolized"
  gen "${g[@]}" --perf-data e1.data -o one.$kind 2>/dev/null
  cmp -s two.$kind one.$kind && bad "$kind: the second capture changed nothing"
done

# perf script text, twice and mixed with perf.data
for s in 1 2; do "$SPGO" script -i e$s.data -F ip,brstack > e$s.script || bad "spgo script $s"; done
"$SPGO" aggregate --quiet --perf-script --binary minivm -o both.script.unsym e1.script e2.script || bad "aggregate --perf-script"
gen --unsymbolized both.script.unsym -o via_unsym.script 2>/dev/null || bad "gen --unsymbolized (script)"
gen --perf-script e1.script --perf-script e2.script -o two.script 2>/dev/null || bad "gen, two --perf-script"
cmp -s two.script via_unsym.script || bad "gen --perf-script A --perf-script B differs from aggregate --perf-script A B + gen"
gen --perf-data e1.data --perf-script e2.script -o mixed 2>/dev/null || bad "gen, --perf-data and --perf-script"
cmp -s mixed two.lbr || bad "gen --perf-data A --perf-script B(text of e2) differs from the two perf.data"

# one capture with nothing of the binary: left out, named
clang-19 -O2 -g -o other "$SPGO_SRC/tests/integration/lib/tailcalls.c"
"$SPGO" emulate -c 4001 -o o.data -- ./other >/dev/null 2>&1 || bad "spgo emulate other"
gen --perf-data e1.data --perf-data o.data -o part 2>err.txt || { cat err.txt; bad "gen with one capture of another program"; }
grep -q "o.data: no sample falls in minivm" err.txt || { cat err.txt; bad "no warning naming the capture left out"; }

# two binaries: an error naming both; the same one twice is fine
"$SPGO" gen --binary minivm --binary other --perf-data e1.data -o x 2>err.txt; rc=$?
[ $rc -eq 2 ] || bad "--binary twice: exit $rc, not 2"
grep -q "'minivm' and 'other'" err.txt || { cat err.txt; bad "--binary twice: no error naming both"; }
[ -e x ] && bad "--binary twice wrote an output"
gen --binary minivm --perf-data e1.data -o same 2>/dev/null && cmp -s same one.lbr ||
  bad "the same --binary twice is not harmless"

[ $fail -eq 0 ] && echo "gen_repeated_inputs: ok"
exit $fail
