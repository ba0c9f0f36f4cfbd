#!/usr/bin/env bash
# Address mapping: the same program as non-PIE, PIE, shared library, and
# linked by lld with its default layout (an executable segment whose p_vaddr
# differs from its p_offset), recorded with cpu-clock.  Every sample perf
# attributes to the binary must map (spgo script --map-to) to an address that
# llvm-symbolizer puts in the function perf report/script names; samples perf
# puts elsewhere must map to nothing.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}"
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }
command -v llvm-symbolizer-19 >/dev/null || { echo "skip: no llvm-symbolizer-19"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }
src="$SPGO_SRC/tests/data/perf_prog.c"
fail=0
lld=$(command -v ld.lld-19 || command -v ld.lld || true)

gcc -O2 -g -fno-pie -no-pie -o nopie "$src"
gcc -O2 -g -fpie -pie -o pie "$src"
gcc -O2 -g -fpic -shared -DAS_LIB -o libwork.so "$src"
gcc -O2 -g -DUSE_LIB -o uselib "$src" -L. -lwork -Wl,-rpath,"$tmp"
if [ -n "$lld" ]; then clang-19 -O2 -g --ld-path="$lld" -o lldbin "$src"; fi

check() {  # check NAME BINARY CMD...
  local name=$1 bin=$2; shift 2
  perf record -q -e cpu-clock -o "$name.data" "$@" >/dev/null 2>&1
  # perf's view: ip, symbol, dso per sample, in perf script order
  perf script -i "$name.data" -F ip,sym,dso 2>/dev/null |
    awk '{ d=$NF; gsub(/[()]/, "", d); print $2, d }' > "$name.perf"
  "$SPGO" script -i "$name.data" --map-to "$bin" > "$name.map"
  local full; full=$(readlink -f "$bin")
  paste -d' ' "$name.perf" "$name.map" > "$name.pair"
  # samples perf puts in the binary: symbolize spgo's address
  awk -v b="$full" '$2 == b { print "0x" $3 }' "$name.pair" > "$name.addrs"
  llvm-symbolizer-19 --obj="$bin" --no-inlines --functions=linkage --output-style=GNU \
    < "$name.addrs" | awk 'NR % 2 == 1' > "$name.syms"
  awk -v b="$full" '$2 == b { print $1 }' "$name.pair" > "$name.perfsyms"
  # perf names a PLT stub "f@plt", a symbol no ELF table has (llvm-symbolizer
  # names the symbol before it): those samples must map into a .plt section.
  # (readelf prints "[ 8]" below index 10: drop the index column first)
  readelf -SW "$bin" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
    awk '$1 ~ /^\.plt/ { print $3, $5 }' > "$name.plt"
  [ -s "$name.plt" ] || { echo "FAIL $name: no .plt section found in $bin"; fail=1; }
  local n_in n_out bad_in bad_out
  n_in=$(wc -l < "$name.perfsyms")
  bad_in=$(paste -d' ' "$name.perfsyms" "$name.syms" "$name.addrs" |
    awk -v plt="$name.plt" '
      function hex(s,   v, i, c) { sub(/^0x/, "", s); v = 0
        for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1; v = v * 16 + c }
        return v }
      BEGIN { while ((getline l < plt) > 0) { split(l, f, " "); lo[++n] = hex(f[1]); hi[n] = lo[n] + hex(f[2]) } }
      $1 ~ /@plt$/ { a = hex($3); ok = 0; for (i = 1; i <= n; i++) if (a >= lo[i] && a < hi[i]) ok = 1; if (!ok) print; next }
      $1 != $2' | wc -l)
  n_out=$(awk -v b="$full" '$2 != b' "$name.pair" | wc -l)
  bad_out=$(awk -v b="$full" '$2 != b && $3 != "-"' "$name.pair" | wc -l)
  if [ "$n_in" -ge 20 ] && [ "$bad_in" -eq 0 ] && [ "$bad_out" -eq 0 ] &&
     [ "$(wc -l < "$name.map")" -eq "$(wc -l < "$name.perf")" ]; then
    echo "ok   $name: $n_in samples in $bin map to perf's function, $n_out elsewhere map to nothing"
  else
    echo "FAIL $name: $n_in in binary ($bad_in wrong), $n_out elsewhere ($bad_out wrongly mapped)"
    paste -d' ' "$name.perfsyms" "$name.syms" | awk '$1 != $2' | head -3
    fail=1
  fi
}
check nopie nopie ./nopie 30000
check pie pie ./pie 30000
check shlib libwork.so ./uselib 30000
# two processes of the same PIE at different (randomized) bases
check pie2 pie sh -c './pie 15000 & ./pie 15000; wait'
bases=$(perf script -i pie2.data -F pid,ip --show-mmap-events 2>/dev/null |
  awk '/PERF_RECORD_MMAP2/ && / r-xp / && /\/pie$/ { for (i = 1; i <= NF; i++) if ($i ~ /^\[0x/) print $i }' |
  sort -u | wc -l)
[ "$bases" -ge 2 ] && echo "     pie2: the binary ran at $bases different bases" ||
  { echo "FAIL pie2: want 2 bases, saw $bases"; fail=1; }
if [ -n "$lld" ]; then
  # lld's default layout puts .text at a p_vaddr that differs from p_offset
  read -r off va < <(readelf -lW lldbin | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
  if [ $((off)) -ne $((va)) ]; then
    echo "     lldbin: executable PT_LOAD at offset $off has p_vaddr $va"
  else
    echo "FAIL lld layout: p_vaddr == p_offset, the test would not test it"; fail=1
  fi
  check lld lldbin ./lldbin 30000
else
  echo "note: no ld.lld; the lld layout was not checked"
fi
exit $fail
