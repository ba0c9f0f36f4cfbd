#!/usr/bin/env bash
# spgo gen on wrong input: the wrong binary (another program; another build
# under the recorded file name), a stripped binary, a perf.data of another
# program, data without branch stacks in LBR mode.  Each must fail with a
# one-line error that says what to do, exit non-zero, and leave no output
# file.  Then the good cases around them work: the stripped binary with its
# debug file (--debug-binary), IP mode from cpu-clock samples, --pid.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need perf
scratch
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }

src="$SPGO_SRC/tests/data/perf_prog.c"
gcc -O2 -g -o prog "$src"
gcc -O2 -g -DOTHER=1 -o other "$SPGO_SRC/tests/data/inline_demo.c" 2>/dev/null ||
  gcc -O2 -g -o other "$SPGO_SRC/tests/data/profile_prog.c"
perf record -q -e cpu-clock -F 4000 -o prog.data -- ./prog 40000 >/dev/null 2>&1
perf record -q -e cpu-clock -F 4000 -o other.data -- ./other 100 >/dev/null 2>&1
[ -s prog.data ] || { echo "FAIL: perf record"; exit 1; }

# expect_fail NAME PATTERN ARGS...: fails, one line naming what to do, no OUT
expect_fail() {
  local name=$1 pat=$2; shift 2
  rm -f out.prof
  if "$SPGO" gen "$@" -o out.prof --format text 2>err.txt >/dev/null; then
    bad "$name: succeeded"
  fi
  [ -e out.prof ] && bad "$name: wrote an output file"
  ls out.prof.tmp.* >/dev/null 2>&1 && bad "$name: left a temporary file"
  grep -q "^spgo: " err.txt || bad "$name: no 'spgo: ' error line"
  grep -Eq -- "$pat" err.txt || { bad "$name: error does not match /$pat/:"; cat err.txt; }
  echo "$name: $(head -c 300 err.txt)"
}

# 1. the wrong binary: another program
expect_fail "wrong binary" "pass --binary the program that was recorded" \
  --binary other --perf-data prog.data
# 2. another build under the recorded name: the build-id tells (perf 6
#    records build-ids) ...
mkdir -p wrong && gcc -O0 -g -o wrong/prog "$src" -DNOISE
expect_fail "another build" "pass --binary the program that was recorded \(the same build" \
  --binary wrong/prog --perf-data prog.data
#    ... and without build-ids in the data (perf 3.3's test.lbr), the LBR
#    ranges falling between instructions do.
data="${SPGO_SHARED:-}/data/autofdo-gzip"
if [ -r "$data/test.lbr" ]; then
  mkdir -p gz && cp prog gz/test.binary
  expect_fail "another build, no build-ids" "does not match the perf data.*exact build" \
    --binary gz/test.binary --perf-data "$data/test.lbr"
fi
# 3. stripped binary
mkdir -p stripped && strip -o stripped/prog prog
expect_fail "stripped binary" "no debug information.*--debug-binary" \
  --binary stripped/prog --perf-data prog.data
# 4. perf.data of another program
expect_fail "perf.data of another program" "no sample falls in it.*pass --binary" \
  --binary prog --perf-data other.data
# 5. LBR mode on data without branch stacks
expect_fail "lbr mode without LBR" "no branch stacks.*--mode ip" \
  --binary prog --perf-data prog.data --mode lbr
# 6. not a perf.data at all
expect_fail "not perf data" "prog.c" --binary prog --perf-data "$src"

# The good cases next to them.
objcopy --only-keep-debug prog prog.debug
"$SPGO" gen --binary stripped/prog --debug-binary prog.debug --perf-data prog.data -o dbg.txt \
  --format text --quiet || bad "stripped binary + --debug-binary fails"
"$SPGO" gen --binary prog --perf-data prog.data -o ip.txt --format text --quiet ||
  bad "IP mode fails"
for f in leaf_a leaf_b; do grep -q "^$f:" ip.txt || bad "IP mode: no profile of $f"; done
cmp -s dbg.txt ip.txt || bad "--debug-binary gives another profile"
# two events (section 3.3 of the Taming paper: they classify blocks)
perf record -q -e cpu-clock,task-clock -F 4000 -o two.data -- ./prog 40000 >/dev/null 2>&1
"$SPGO" gen --binary prog --perf-data two.data -o two.txt --format text 2>two.err ||
  { cat two.err; bad "IP mode with two events fails"; }
grep -q "where events disagree" two.err || bad "two events: no classification figure"
for f in leaf_a leaf_b; do grep -q "^$f:" two.txt || bad "two events: no profile of $f"; done
pid=$(perf script -i prog.data -F pid 2>/dev/null | awk 'NF {print $1; exit}')
"$SPGO" gen --binary prog --perf-data prog.data --pid "$pid" -o pid.txt --format text --quiet ||
  bad "--pid $pid fails"
expect_fail "--pid of no process" "no sample of pid 1; the samples are of pid $pid" \
  --binary prog --perf-data prog.data --pid 1
[ $fail -eq 0 ] && echo "gen_errors: ok"
exit $fail
