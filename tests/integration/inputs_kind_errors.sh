#!/usr/bin/env bash
# Input-kind mistakes: each must fail with an error that names the file,
# says what it is and the right way, not a message that points elsewhere:
#   - a perf.data given as --perf-script ("this is a perf.data file: use
#     --perf-data"; was "bad branch entry" or "no known form"), an ELF
#     program given as --perf-script, text given as --perf-data;
#   - plain `perf script` output (symbols, times): which fields spgo reads
#     (perf script -F ip,brstack --show-mmap-events);
#   - NUL bytes in perf script text: binary data at line N, offset M;
#   - --pid matching no sample: the pids that have samples; a capture with
#     no sample at all: said so (was "pass --binary the program that was
#     recorded" for both); spgo aggregate too (its own --pid; it said "no
#     sample of the data falls in the binaries given");
#   - spgo emulate of a #! script: emulate its interpreter; of a missing
#     file: not found (was "did not run under qemu-x86_64");
#   - spgo show of an unsymbolized profile: how to symbolize it (was "not a
#     sample profile" or "line 8: expected 'name:NUM:NUM'").
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need perf gcc
scratch
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }

gcc -O2 -g -o prog "$SPGO_SRC/tests/data/perf_prog.c"
perf record -q -e cpu-clock -F 4000 -o prog.data -- ./prog 40000 >/dev/null 2>&1
[ -s prog.data ] || { echo "FAIL: perf record"; exit 1; }
pid=$(perf script -i prog.data -F pid 2>/dev/null | awk '{ print $1; exit }')

# expect CMD-NAME PATTERN ARGS...: fails, one 'spgo: ' line matching PATTERN
expect() {
  local name=$1 pat=$2; shift 2
  if "$SPGO" "$@" > out.txt 2> err.txt; then
    bad "$name: succeeded"
  fi
  grep -q "^spgo" err.txt || bad "$name: no spgo error line"
  grep -Eq -- "$pat" err.txt || { bad "$name: error does not match /$pat/:"; cat err.txt; }
  echo "$name: $(head -c 300 err.txt)"
}

expect "perf.data as --perf-script" "^spgo: prog.data: offset 0: this is a perf.data file.*use --perf-data" \
  gen --binary prog --perf-script prog.data -o out.prof
expect "ELF as --perf-script" "^spgo: prog: offset 0: this is an ELF file.*--binary" \
  gen --binary prog --perf-script prog -o out.prof
perf script -i prog.data > plain.txt 2>/dev/null
expect "text as --perf-data" "^spgo: plain.txt: offset 0: not a perf.data file but text.*--perf-script" \
  gen --binary prog --perf-data plain.txt -o out.prof
expect "plain perf script" "plain.txt: no perf script samples.*perf script -F ip,brstack --show-mmap-events.*-F pid,ip" \
  gen --binary prog --perf-script plain.txt -o out.prof
# (the fields it names are enough)
perf script -i prog.data -F pid,ip --show-mmap-events > fields.txt 2>/dev/null
"$SPGO" gen --binary prog --perf-script fields.txt -o out.prof --format text 2> err.txt ||
  { bad "the fields named do not work:"; cat err.txt; }
printf '    5d0\n    5d\0000\n' > nul.txt
expect "NUL bytes" "^spgo: nul.txt: line 2, offset 14: binary data" \
  gen --binary prog --perf-script nul.txt -o out.prof
other=$((pid + 1))
expect "--pid matching nothing" "^spgo: prog.data: no sample of pid $other; the samples are of pid $pid \([0-9]+ samples\)" \
  gen --binary prog --perf-data prog.data --pid "$other" -o out.prof
grep -q "pass --binary" err.txt && bad "--pid: still tells to pass --binary"
"$SPGO" gen --binary prog --perf-data prog.data --pid "$pid" -o out.prof --format text 2> err.txt ||
  { bad "--pid of the recorded process fails:"; cat err.txt; }
perf record -q -e cpu-clock -c 1000000000 -o none.data -- true 2>/dev/null
expect "no samples" "^spgo: none.data: the capture has no samples at all" \
  gen --binary prog --perf-data none.data -o out.prof
grep -q "pass --binary" err.txt && bad "no samples: still tells to pass --binary"
# spgo aggregate reads perf.data its own way: the same two errors
expect "aggregate: no samples" "^spgo: none.data: the capture has no samples at all" \
  aggregate --binary prog -o out.unsym none.data
expect "aggregate --pid matching nothing" "^spgo: prog.data: no sample of pid $other; the samples are of pid $pid \([0-9]+ samples\)" \
  aggregate --binary prog --pid "$other" -o out.unsym prog.data
"$SPGO" aggregate --quiet --binary prog --pid "$pid" -o pid.unsym prog.data 2> err.txt ||
  { bad "aggregate --pid of the recorded process fails:"; cat err.txt; }
"$SPGO" aggregate --quiet --binary prog -o all.unsym prog.data 2>/dev/null && cmp -s pid.unsym all.unsym ||
  bad "aggregate --pid of the only process differs from without it"

# emulate: checked before qemu (and its plugin) is looked for
printf '#!/usr/bin/env python3\nprint(1)\n' > script.py
printf '#!/bin/sh\necho hi\n' > script.sh
chmod +x script.py script.sh
expect "emulate a script (env)" "^spgo: ./script.py: a script \(#!/usr/bin/env python3\).*spgo emulate -- python3 ./script.py x$" \
  emulate -o e.data -- ./script.py x
expect "emulate a script" "^spgo: ./script.sh: a script.*spgo emulate -- /bin/sh ./script.sh$" \
  emulate -o e.data -- ./script.sh
expect "emulate a missing file" "^spgo: ./nosuch: not found" emulate -o e.data -- ./nosuch
[ -e e.data ] && bad "emulate wrote e.data"

# show of unsymbolized profiles, in each form: their sections are shown
# (what they are, said first); asking one for functions names how to
# symbolize it (it was "not a sample profile")
for f in bin text; do
  "$SPGO" aggregate --binary prog --format $f -o p.$f.unsym prog.data 2>/dev/null ||
    { bad "aggregate --format $f"; continue; }
  "$SPGO" show p.$f.unsym > out.txt 2> err.txt || bad "show $f unsym failed: $(cat err.txt)"
  grep -q "^unsymbolized profile" out.txt || bad "show $f unsym does not say what it is: $(head -2 out.txt)"
  expect "show --all-functions $f unsym" \
    "p.$f.unsym is an unsymbolized profile.*spgo gen --binary BIN --unsymbolized p.$f.unsym" \
    show --all-functions p.$f.unsym
done
printf '1\n10-20:5\n1\n20->10:5\n' > profgen.unsym
"$SPGO" show profgen.unsym > out.txt 2>&1 && grep -q "^unsymbolized profile" out.txt ||
  bad "show of llvm-profgen's unsymbolized text: $(head -2 out.txt)"
expect "show --function profgen unsym" "profgen.unsym is an unsymbolized profile" show --function main profgen.unsym
exit $fail
