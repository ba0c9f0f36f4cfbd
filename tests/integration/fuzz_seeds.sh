#!/usr/bin/env bash
# The made seeds of fuzz/make-seeds.sh are real inputs: each .debug_line
# seed (one comp_dir byte, then an ELF's .debug_line) holds a whole line
# table -- a unit length that fits the file and a DWARF version 2 to 5 --
# not the 1-byte file objcopy -O binary made of a section that is not
# loaded.  A fuzzer started from those never saw a real table.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc objcopy od
scratch
SPGO_SRC=$SPGO_SRC "$SPGO_SRC/fuzz/make-seeds.sh" seeds "$SPGO" > make.log 2>&1
n=0
for s in seeds/debug_line/*; do
  [ -f "$s" ] || continue
  size=$(stat -c %s "$s")
  len=$(od -An -tu4 -j1 -N4 "$s" 2>/dev/null | tr -d " ")
  ver=$(od -An -tu2 -j5 -N2 "$s" 2>/dev/null | tr -d " ")
  if [ "$size" -lt 16 ] || [ -z "$len" ] || [ "$len" -lt 10 ] || [ $((len + 5)) -gt "$size" ] ||
    [ "$ver" -lt 2 ] || [ "$ver" -gt 5 ]; then
    bad "$(basename "$s"): not a line table ($size bytes, unit length ${len:-none}, version ${ver:-none})"
  else
    n=$((n + 1))
    echo "$(basename "$s"): $size bytes, first unit $len bytes, DWARF $ver"
  fi
done
[ "$n" -ge 2 ] || bad "only $n .debug_line seeds made (gcc builds two): $(cat make.log)"
exit $fail
