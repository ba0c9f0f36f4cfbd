#!/usr/bin/env bash
# The emulator's perf.data, read by spgo's own reader: `spgo script` prints
# exactly what `perf script` prints for the LBR and the callchain fields, so
# the writer (src/perf/writer.c) and the reader (src/perf/reader.c) agree
# with perf and with each other on every record the emulator writes.
source "$SPGO_SRC/tests/data/emulate/common.sh"
command -v perf >/dev/null || { echo "skip: perf not installed"; exit 77; }

"$SPGO" emulate -c 1999 -o p.data -- ./prog 500 > /dev/null
for fields in ip,brstack ip; do
  perf script -i p.data -F "$fields" > perf.txt 2> perf.err
  "$SPGO" script -i p.data -F "$fields" > spgo.txt
  [ -s perf.txt ] || fail "perf script printed nothing for -F $fields"
  cmp -s perf.txt spgo.txt || { diff perf.txt spgo.txt | head -5; fail "-F $fields differs from perf script"; }
done
# -F ip on a capture with callchains prints every sample's stack.
grep -q $'^\t *[0-9a-f]\+$' perf.txt || fail "no callchain lines in perf script -F ip"
n=$(grep -c '^$' perf.txt)
echo "ok: spgo script == perf script on an emulated capture ($n samples)"
