#!/usr/bin/env bash
# spgo record: probes the events perf accepts here, says which it took and
# why, and records with frame-pointer call stacks.  This machine has no PMU,
# so the answer must be cpu-clock (perf falls back from cycles to cpu-clock
# on its own, and spgo must notice rather than claim "cycles").
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
  grep -q "spgo: record: using cpu-clock --call-graph fp" err.txt ||
    { echo "FAIL without a PMU spgo should take cpu-clock"; fail=1; }
fi
grep -q "^1$\|^0$" out.txt || { echo "FAIL the program's output is lost"; fail=1; }
# the recording has call stacks and the event chosen
perf script -i rec.data --header-only 2>/dev/null | grep -q "sample_type = .*CALLCHAIN" ||
  { echo "FAIL no call stacks recorded"; fail=1; }
n=$("$SPGO" script -i rec.data -F ip | grep -c . || true)
[ "$n" -gt 50 ] && echo "ok   recorded and read back ($n stack lines)" || { echo "FAIL too few samples ($n)"; fail=1; }
# -p: the perf command line it would run
"$SPGO" record --dry-run -o p.data -p $$ 2>/dev/null | grep -q -- "record -e .* --call-graph fp -o p.data -p $$" &&
  echo "ok   -p PID" || { echo "FAIL -p"; fail=1; }
# usage errors
if "$SPGO" record -o x.data 2>/dev/null; then echo "FAIL no command accepted"; fail=1; fi
exit $fail
