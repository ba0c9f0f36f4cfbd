#!/usr/bin/env bash
# A perf.data cut short inside its feature sections (after the data: the
# table of sections, or a section itself) is read without them, with a
# warning naming the file and the offset, as a file cut inside its data
# is; it was read silently (issue 25).  Inputs: the fuzzing reproducer
# (cut inside the table), and the same file cut where the table starts.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
scratch
src="$SPGO_SRC/fuzz/crashes/perf_data/truncated-in-features"
[ -f "$src" ] || { echo "no $src"; exit 77; }
cp "$src" in-table.data
head -c 2400 "$src" > at-table.data # data_offset + data_size = 0x960

check() { # FILE OFFSET
  "$SPGO" script -i "$1" > out.txt 2> err.txt || { bad "$1: spgo script failed"; cat err.txt; return; }
  grep -q "$1: offset $2: the file is cut short inside the table of its feature sections" err.txt ||
    { bad "$1: no warning naming the file and offset $2"; cat err.txt; }
  [ -s out.txt ] || bad "$1: the samples before the cut were not printed"
}
check in-table.data 0x960
check at-table.data 0x960
"$SPGO" script -i in-table.data 2>&1 >/dev/null | grep -c 'cut short' | grep -qx 1 || bad "not warned exactly once"

[ $fail -eq 0 ] && echo "perf_cut_in_features: ok"
exit $fail
