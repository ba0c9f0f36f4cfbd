#!/usr/bin/env bash
# Damaged .debug_line tables (spgo reads them itself, src/binary/debug_line.c).
# A copy of a clang-19 build has bytes of its line table changed in place
# (so the build-id still matches the perf data) in the ways a file gets
# damaged: a reserved unit length, an unknown version, a header longer than
# the table, a table longer than the section, a program cut short, a last
# sequence left open.  For each:
#   - spgo symbolize warns once, naming the file, the compile unit's offset,
#     the table's offset and what is wrong, prints "??" lines for what it
#     cannot place, and exits 0 (as llvm-symbolizer does);
#   - spgo gen refuses to write a profile from samples in that CU, with a
#     clear error and no output file, never a profile with line 0.
# The intact binary works in both (so the test can fail).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 perf readelf
scratch
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }

clang-19 -O2 -g -fdebug-info-for-profiling -o prog "$SPGO_SRC/tests/data/perf_prog.c" || exit 1
perf record -q -e cpu-clock -F 4000 -o prog.data -- ./prog 40000 >/dev/null 2>&1
# One CU (the program), its table at offset 0 of .debug_line.
line_off=$((16#$(readelf -SW prog | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".debug_line" {print $4}')))
line_len=$((16#$(readelf -SW prog | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".debug_line" {print $5}')))
main=0x$(nm prog | awk '$3 == "main" {print $1}')

# The intact binary: a line for main, a profile.
"$SPGO" symbolize --binary prog "$main" > ok.txt 2> ok.err
grep -q 'perf_prog.c:[1-9]' ok.txt && [ ! -s ok.err ] || { bad "intact: no line for main:"; cat ok.txt ok.err; }
"$SPGO" gen --binary prog --perf-data prog.data -o ok.prof --format text 2> gen.err ||
  { bad "intact: gen failed:"; cat gen.err; }

# patch NAME OFFSET HEXBYTES: a copy of prog with bytes at .debug_line+OFFSET replaced
patch() {
  cp prog "$1"
  printf "$3" | dd of="$1" bs=1 seek=$((line_off + $2)) conv=notrunc status=none
}
# DWARF 5 header: unit_length(4) version(2) address_size(1) seg_sel(1) header_length(4)
patch reserved 0 '\xf0\xff\xff\xff'
patch version 4 '\x07\x00'
patch header 8 '\xff\xff\x00\x00'
patch toolong 0 '\xff\xff\xff\x7f'
# The last opcodes of the program are DW_LNE_end_sequence (00 01 01):
# a table one byte shorter ends inside it; three shorter, before it.
len=$(od -An -tu4 -j "$line_off" -N4 prog | tr -d ' ')
patch cut 0 "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(((len - 1) & 255)) $(((len - 1) >> 8 & 255)) $(((len - 1) >> 16 & 255)) 0)"
patch open 0 "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(((len - 3) & 255)) $(((len - 3) >> 8 & 255)) $(((len - 3) >> 16 & 255)) 0)"
[ $((len + 4)) -eq "$line_len" ] || echo "note: .debug_line holds more than one table ($line_len bytes, first $((len + 4)))"

check() {  # NAME PATTERN
  local name=$1 pat=$2
  "$SPGO" symbolize --binary "$name" "$main" > "$name.txt" 2> "$name.err"
  local rc=$?
  if [ $rc -ne 0 ] || [ "$(wc -l < "$name.err")" -ne 1 ] ||
     ! grep -q "$name: compile unit at 0x0: .debug_line table at 0x0: " "$name.err" ||
     ! grep -q -- "$pat" "$name.err"; then
    bad "$name: symbolize (rc $rc) should warn once with '$pat':"; cat "$name.err"
  else
    echo "$name: $(cat "$name.err")"
  fi
  grep -q 'perf_prog.c:[1-9]' "$name.txt" && bad "$name: a line was read from the damaged table"
  rm -f "$name.prof"
  if "$SPGO" gen --binary "$name" --perf-data prog.data -o "$name.prof" --format text 2> "$name.gen" >/dev/null; then
    bad "$name: gen wrote a profile"
  fi
  [ -e "$name.prof" ] && bad "$name: gen left an output file"
  grep -q "could not be read" "$name.gen" || { bad "$name: gen error:"; cat "$name.gen"; }
}
check reserved "reserved unit length"
check version "line table version 7"
check header "the header claims"
check toolong "the table claims"
check cut "runs past the table\|cut short"
check open "not terminated"
exit $fail
