#!/usr/bin/env bash
# spgo record: probes the events perf accepts here, says which it took and
# why, and records call stacks (fp with branch stacks; without them dwarf,2048:
# user registers and stack, whose unwound callers give spgo gen indirect-call
# targets in -O2 code without frame pointers).  This machine has no PMU, so
# the answer must be cpu-clock (perf falls back from cycles to cpu-clock on its
# own, and spgo must notice rather than claim "cycles") with dwarf stacks.
# The default records enough (issue 28): a sub-second run short of the sample
# target is run again, several times under one perf record, and said on
# stderr; -F (a rate chosen) and --runs 1 record one run.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}"
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }
fail=0
gcc -O2 -fno-omit-frame-pointer -o prog "$SPGO_SRC/tests/data/perf_prog.c"
"$SPGO" record -o rec.data -- ./prog 20000 > out.txt 2> err.txt
echo "     $(grep 'spgo: record:' err.txt)"
hw=no; perf stat -e cycles -x, true 2>&1 | grep -q '^[0-9]' && hw=yes
if [ "$hw" = no ]; then
  grep -q "spgo: record: using cpu-clock --call-graph dwarf,2048" err.txt ||
    { echo "FAIL without a PMU spgo should take cpu-clock with dwarf stacks"; fail=1; }
  # the user registers and stack are in the file (what the unwinding needs)
  perf script -i rec.data --header-only 2>/dev/null | grep -q "sample_type = .*REGS_USER.*STACK_USER" &&
    echo "ok   dwarf call stacks (user registers and stack)" ||
    { echo "FAIL no user registers/stack recorded"; fail=1; }
  # spgo script --rewrite drops them for older readers (create_llvm_prof
  # 0.19 refuses REGS_USER): the same samples, fields and kernel chains
  "$SPGO" script -i rec.data --rewrite old.data 2>/dev/null || { echo "FAIL --rewrite of a dwarf recording"; fail=1; }
  if perf script -i old.data --header-only 2>/dev/null | grep -q "sample_type = .*\(REGS_USER\|STACK_USER\)"; then
    echo "FAIL --rewrite kept the user registers/stack"; fail=1
  fi
  perf script -G -i rec.data -F ip,tid,time,period > a.txt 2>/dev/null
  perf script -G -i old.data -F ip,tid,time,period > b.txt 2>/dev/null
  [ -s a.txt ] && cmp -s a.txt b.txt && echo "ok   --rewrite without registers/stack: the same $(wc -l < a.txt) samples" ||
    { echo "FAIL --rewrite changed the samples"; fail=1; }
fi
grep -q "^1$\|^0$" out.txt || { echo "FAIL the program's output is lost"; fail=1; }
# repeated runs: the first run's samples under the target, k runs recorded
first=$(sed -n 's/^spgo: record: 1 run, \([0-9]*\) samples in .*under the target (\([0-9]*\)): recording \([0-9]*\) runs.*/\1 \2 \3/p' err.txt)
last=$(sed -n 's/^spgo: record: \([0-9]*\) runs, \([0-9]*\) samples in [^:]*: .*/\1 \2/p' err.txt)
read -r n1 target k <<< "${first:-0 0 0}"; read -r k2 n2 <<< "${last:-0 0}"
procs=$("$SPGO" script -i rec.data -F pid 2>/dev/null | sort -u | wc -l)
if [ "$k" -ge 2 ] && [ "$k2" = "$k" ] && [ "$n2" -gt "$n1" ] && [ "$procs" -ge "$k" ] && [ "$(grep -c . out.txt)" -gt "$k" ]; then
  echo "ok   sub-second run: $n1 samples < $target, $k runs recorded: $n2 samples ($procs processes)"
else
  echo "FAIL no repeated runs: first '$first', last '$last', $procs processes"; fail=1
fi
# a rate given (-F) or --runs 1: one run, no repeat
for o in "-F 4000" "--runs 1"; do
  # shellcheck disable=SC2086
  "$SPGO" record $o -o one.data -- ./prog 20000 >/dev/null 2>one.err
  p=$("$SPGO" script -i one.data -F pid 2>/dev/null | sort -u | wc -l)
  if grep -q "runs" one.err || [ "$p" -ne 1 ]; then echo "FAIL $o: repeated ($p processes)"; fail=1
  else echo "ok   $o: one run"; fi
done
"$SPGO" record --runs 3 -o three.data -- ./prog 2000 >/dev/null 2>&1
p=$("$SPGO" script -i three.data -F pid 2>/dev/null | sort -u | wc -l)
[ "$p" -ge 3 ] && echo "ok   --runs 3: $p processes" || { echo "FAIL --runs 3: $p processes"; fail=1; }
# the recording has call stacks and the event chosen
perf script -i rec.data --header-only 2>/dev/null | grep -q "sample_type = .*CALLCHAIN" ||
  { echo "FAIL no call stacks recorded"; fail=1; }
# read back: spgo script sees the samples perf script sees (with dwarf stacks
# it prints no unwound user frames, so count samples by -F tid)
n=$("$SPGO" script -i rec.data -F tid | grep -c . || true)
m=$(perf script -i rec.data -F tid 2>/dev/null | grep -c . || true)
[ "$n" -gt 50 ] && [ "$n" = "$m" ] && echo "ok   recorded and read back ($n samples)" ||
  { echo "FAIL samples read back: spgo $n, perf script $m"; fail=1; }
# --call-graph fp: frame-pointer chains (the program keeps frame pointers)
"$SPGO" record --runs 1 --call-graph fp -o fp.data -- ./prog 20000 >/dev/null 2>&1
n=$("$SPGO" script -i fp.data -F ip | grep -c . || true)
[ "$n" -gt 50 ] && echo "ok   --call-graph fp: read back ($n stack lines)" || { echo "FAIL fp: too few stack lines ($n)"; fail=1; }
# -p: the perf command line it would run
"$SPGO" record --dry-run -o p.data -p $$ 2>/dev/null | grep -q -- "record -e .* --call-graph [a-z,0-9]* -o p.data -p $$" &&
  echo "ok   -p PID" || { echo "FAIL -p"; fail=1; }
# --call-graph none drops the stacks
if "$SPGO" record --dry-run --call-graph none -- true 2>/dev/null | grep -q -- "--call-graph"; then
  echo "FAIL --call-graph none still records stacks"; fail=1
fi
"$SPGO" record --runs 1 --call-graph none -o none.data -- ./prog 2000 >/dev/null 2>&1
if perf script -i none.data --header-only 2>/dev/null | grep -q "sample_type = .*CALLCHAIN"; then
  echo "FAIL --call-graph none recorded call chains"; fail=1
else
  echo "ok   --call-graph none"
fi
if "$SPGO" record --call-graph lbr -- true 2>/dev/null; then echo "FAIL --call-graph lbr accepted"; fail=1; fi
# usage errors
if "$SPGO" record -o x.data 2>/dev/null; then echo "FAIL no command accepted"; fail=1; fi
exit $fail
