#!/usr/bin/env bash
# Tolerant perf script reading (issue #13, inputs): comment lines, perf's
# own header (--header), a wrapper's banner and the event column of
# multi-event data do not abort the file: what is no sample is skipped with
# one counted warning.  Events are selected by name as perf prints them
# (--event task-clock) as well as by index, for LBR data too; an unknown
# name is an error that lists the events present.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 perf
scratch
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }

clang-19 -O2 -g -fdebug-info-for-profiling -fno-pie -no-pie -o prog "$SPGO_SRC/tests/data/perf_prog.c"
perf record -q -e cpu-clock,task-clock -F 4000 -o two.data -- ./prog 40000 >/dev/null 2>&1
[ -s two.data ] || { echo "FAIL: perf record"; exit 1; }
{ echo "=== bench.sh: run 1 of 1 (perf script of two.data) ==="
  perf script -i two.data --header -F event,ip --show-mmap-events 2>/dev/null
  echo "# end of run"; } > two.script
grep -q '^# ' two.script && grep -q 'task-clock:' two.script || { echo "FAIL: unexpected perf script text"; exit 1; }

for ev in cpu-clock task-clock; do
  "$SPGO" gen --binary prog --perf-data two.data --event $ev -o data.$ev --format text --quiet ||
    bad "perf.data, --event $ev fails"
  if "$SPGO" gen --binary prog --perf-script two.script --event $ev -o text.$ev --format text 2>err.txt; then
    cmp -s data.$ev text.$ev || bad "--event $ev: the text gives another profile than perf.data"
    grep -q "warning: two.script: skipped [0-9]* lines that are no samples (the first at line 1:" err.txt ||
      { bad "--event $ev: no warning about the skipped lines"; cat err.txt; }
  else
    bad "--event $ev on the text fails:"; cat err.txt
  fi
done
"$SPGO" gen --binary prog --perf-script two.script --event 1 -o text.1 --format text --quiet ||
  bad "--event 1 on the text fails"
cmp -s text.1 text.task-clock || bad "--event 1 is not task-clock (the second event named)"
if "$SPGO" gen --binary prog --perf-script two.script --event cycles -o bad.txt --format text 2>err.txt; then
  bad "--event cycles (not in the data) succeeds"
else
  grep -q "no samples of event 'cycles'; the data has: cpu-clock (index 0), task-clock (index 1)" err.txt ||
    { bad "unknown event: the error does not list the events"; cat err.txt; }
fi
# nothing but lines of no known form: an error naming the first
printf 'Samples: 12K of event cycles\nno samples here\n' > junk.script
"$SPGO" gen --binary prog --perf-script junk.script -o junk.txt --format text 2>err.txt &&
  bad "a file without samples succeeds"
grep -q "junk.script: no perf script samples in it.*line 1: 'Samples: 12K" err.txt ||
  { bad "a file without samples: unclear error"; cat err.txt; }

# LBR data with the event column, selected by name
if command -v qemu-x86_64 >/dev/null; then
  "$SPGO" emulate -o e.data -- ./prog 20000 >/dev/null 2>&1 || bad "spgo emulate"
  "$SPGO" gen --binary prog --perf-data e.data -o ref.txt --format text --quiet || bad "gen from perf.data"
  ev=$(perf script -i e.data -F event 2>/dev/null | awk 'NF { sub(/:$/, "", $1); print $1; exit }')
  perf script -i e.data -F event,ip,brstack -G > lbr.script 2>/dev/null
  perf script -i e.data -F event,ip,brstack > lbr_stacks.script 2>/dev/null
  for f in lbr lbr_stacks; do
    "$SPGO" gen --binary prog --perf-script $f.script --event "$ev" -o $f.txt --format text \
      --quiet 2>err.txt || { bad "$f: --event $ev fails"; cat err.txt; }
    cmp -s ref.txt $f.txt || bad "$f: --event $ev gives another profile than perf.data"
  done
  "$SPGO" gen --binary prog --perf-data e.data --event "$ev" -o data_lbr.txt --format text --quiet ||
    bad "perf.data: --event $ev fails"
  cmp -s ref.txt data_lbr.txt || bad "perf.data: --event $ev gives another profile"
  "$SPGO" gen --binary prog --perf-data e.data --event nope -o x.txt --format text 2>err.txt &&
    bad "LBR --event nope succeeds"
  grep -q "no samples of event 'nope'; the data has: $ev (index 0)" err.txt ||
    { bad "LBR unknown event: the error does not list the events"; cat err.txt; }
fi
[ $fail -eq 0 ] && echo "inputs_tolerant: ok"
exit $fail
