#!/usr/bin/env bash
# The binary model's jump tables and noreturn calls, as `spgo infer --binary
# --emit-cfg` turns them into CFG edges, checked on tests/data/switch_prog.c
# built by gcc and clang-19, PIE and non-PIE:
#  - every indirect jump llvm-objdump-19 lists in dense() and bytes() has a
#    recovered table, and its CFG successors are exactly the targets that
#    callgrind --collect-jumps saw it jump to (the program runs every case
#    value, the holes of the table and the default);
#  - the indirect jump of via() (a tail call through a pointer) ends an
#    exit block with no successors;
#  - every call llvm-objdump-19 shows to die(), abort@plt or exit@plt in
#    main ends a block that has no successor (noreturn: by name, through
#    the PLT, and a local function whose paths all end in exit or abort).
set -uo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}"
for tool in valgrind llvm-objdump-19 clang-19 gcc; do
  command -v "$tool" > /dev/null || { echo "skip: $tool not installed"; exit 77; }
done
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# Targets callgrind saw the jump at address $1 (hex, no 0x) go to.
observed() {
  awk -v src="$1" '/^jump=/ { tgt = $2; sub(/^0x/, "", tgt); pend = 1; next }
    pend && /^0x/ { s = $1; sub(/^0x/, "", s); if (s == src) print tgt; pend = 0; next }
    { pend = 0 }' "$2" | sort -u
}

# Successor block addresses of the block holding address $1 in CFG file $2.
successors() {
  awk -v a="$1" '
    function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
      return v }
    BEGIN { x = hex(a) }
    $1 == "block" { lo = 0; sz = 0
      for (i = 4; i <= NF; i++) { if ($i ~ /^addr=/) lo = hex(substr($i, 6)); if ($i ~ /^size=/) sz = substr($i, 6) + 0 }
      if (x >= lo && x < lo + sz) blk = $2 }
    $1 == "edge" { src[NR] = $2; dst[NR] = $3 }
    END { for (k in src) if (src[k] == blk) print dst[k] }' "$2" | sort -u
}

# Address, size and last byte + 1 of the block holding address $1.
block_of() {
  awk -v a="$1" '
    function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
      return v }
    BEGIN { x = hex(a) }
    $1 == "block" { lo = 0; sz = 0
      for (i = 4; i <= NF; i++) { if ($i ~ /^addr=/) lo = hex(substr($i, 6)); if ($i ~ /^size=/) sz = substr($i, 6) + 0 }
      if (x >= lo && x < lo + sz) { print $2, lo + sz; exit } }' "$2"
}

check() {
  local name=$1 cc=$2; shift 2
  local bin="$t/$name" failed_before=$failed
  failed=0
  $cc -O2 -g "$@" "$SPGO_SRC/tests/data/switch_prog.c" -o "$bin" || { fail "$name: build"; return; }
  valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no --compress-strings=no \
    --collect-jumps=yes --callgrind-out-file="$bin.cg" "$bin" a b > /dev/null 2>&1 || { fail "$name: callgrind"; return; }
  llvm-objdump-19 -d --no-show-raw-insn "$bin" > "$bin.dis"
  local fn j n=0
  for fn in dense bytes; do
    "$SPGO" infer --binary "$bin" --function "$fn" --emit-cfg > "$bin.$fn.cfg" || { fail "$name: $fn: spgo infer"; continue; }
    for j in $(awk -v fn="<$fn>:" '/^[0-9a-f]+ </ { infn = ($2 == fn) }
                 infn && $2 == "notrack" { $2 = $3; $3 = $4 }
                 infn && $2 ~ /^jmp/ && $3 ~ /^\*/ { a = $1; sub(":", "", a); print a }' "$bin.dis"); do
      n=$((n + 1))
      local obs rec
      obs=$(observed "$j" "$bin.cg")
      rec=$(successors "$j" "$bin.$fn.cfg")
      [ -n "$obs" ] || fail "$name: $fn: callgrind saw no jump from $j"
      [ "$obs" = "$rec" ] || fail "$name: $fn: jump $j: callgrind targets [$(echo $obs)], CFG successors [$(echo $rec)]"
    done
  done
  [ "$n" -ge 2 ] || fail "$name: expected indirect jumps in dense and bytes, found $n"
  # the tail call through a pointer in via()
  "$SPGO" infer --binary "$bin" --function via --emit-cfg > "$bin.via.cfg" || fail "$name: via: spgo infer"
  j=$(awk '/^[0-9a-f]+ </ { infn = ($2 == "<via>:") }
           infn && $2 ~ /^jmp/ && $3 ~ /^\*/ { a = $1; sub(":", "", a); print a }' "$bin.dis")
  if [ -n "$j" ]; then
    read -r blk end < <(block_of "$j" "$bin.via.cfg")
    grep -q "^edge $blk " "$bin.via.cfg" && fail "$name: via: tail call block $blk has successors"
    grep -q "^block $blk .* exit" "$bin.via.cfg" || fail "$name: via: tail call block $blk is not an exit"
    head -1 "$bin.via.cfg" | grep -q ", 1 indirect tail calls$" || fail "$name: via: not seen as a tail call: $(head -1 "$bin.via.cfg")"
  else
    grep -q "call.*\*" <(awk '/^[0-9a-f]+ </ { infn = ($2 == "<via>:") } infn' "$bin.dis") ||
      fail "$name: via: neither an indirect jump nor an indirect call"
  fi
  # noreturn calls in main (and main.cold)
  "$SPGO" infer --binary "$bin" --function main --emit-cfg > "$bin.main.cfg" || { fail "$name: main: spgo infer"; return; }
  local calls=0 line addr next blk end
  while read -r addr next; do
    calls=$((calls + 1))
    read -r blk end < <(block_of "$addr" "$bin.main.cfg")
    [ -n "${blk:-}" ] || { fail "$name: call at $addr is in no block of main"; continue; }
    [ "$end" = "$((16#$next))" ] || fail "$name: noreturn call at $addr does not end its block"
    grep -q "^edge $blk " "$bin.main.cfg" && fail "$name: block $blk ending in a noreturn call at $addr has successors"
    grep -q "^block $blk .* exit" "$bin.main.cfg" || fail "$name: block $blk (noreturn call) not an exit"
  done < <(awk '/^[0-9a-f]+ </ { infn = ($2 ~ /^<main(\.cold)?>:$/); prev = ""; next }
                infn && /^ *[0-9a-f]+:/ { a = $1; sub(":", "", a)
                  if (prev != "") { print prev, a; prev = "" }
                  if ($2 ~ /^call/ && $0 ~ /<(die[^>]*|abort@plt|exit@plt)>/) prev = a }' "$bin.dis")
  [ "$calls" -ge 2 ] || fail "$name: expected at least 2 noreturn calls in main, found $calls"
  [ "$failed" -eq 0 ] && echo "ok: $name: $n indirect jumps, $calls noreturn calls"
  [ "$failed_before" -eq 0 ] || failed=1
}

check gcc-nopie gcc -no-pie -fno-pie
check gcc-pie gcc -fPIE -pie
check clang-nopie clang-19 -no-pie -fno-pie
check clang-pie clang-19 -fPIE -pie

# Errors of --binary: one line naming the file, non-zero exit, no output.
printf 'not an elf\n' > "$t/notelf"
if "$SPGO" infer --binary "$t/notelf" --emit-cfg > "$t/out" 2> "$t/err"; then fail "--binary on a non-ELF file succeeded"; fi
[ ! -s "$t/out" ] && grep -q "notelf: not an ELF file" "$t/err" || fail "--binary non-ELF: $(cat "$t/err")"
if "$SPGO" infer --binary "$t/gcc-pie" --function no_such_fn > "$t/out" 2> "$t/err"; then fail "--function no_such_fn succeeded"; fi
grep -q "no function named no_such_fn" "$t/err" || fail "--function missing: $(cat "$t/err")"
exit $failed
