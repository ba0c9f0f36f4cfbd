#!/usr/bin/env bash
# AArch64 jump tables in the binary model (src/binary/arch_aarch64.c), as
# `spgo infer --binary --emit-cfg` turns them into CFG edges, against the
# targets the program really jumped to (spgo emulate --ground-truth under
# qemu-aarch64):
#  - tests/data/switch_prog.c (every case value, the holes and the
#    default run), cross-built by clang-19 and aarch64-linux-gnu-gcc, PIE
#    and not: each `br` of dense() has a recovered table whose CFG
#    successors are exactly the targets seen;
#  - minivm's dispatch (clang's table register hoisted out of the loop and
#    relaxed to `adr`; gcc's bound on a `b.ls` to the table code and its
#    signed entries): recovered, and every target seen is a successor;
#  - via()'s `br` through a loaded pointer is no table.
# Before, no AArch64 table was recovered ("0 with a recovered jump table").
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 ld.lld-19 llvm-objdump-19 aarch64-linux-gnu-gcc qemu-aarch64 qemu-x86_64
[ -f /usr/aarch64-linux-gnu/lib/libc.so.6 ] || { echo "skip: no arm64 cross libc (libc6-dev-arm64-cross)"; exit 77; }
scratch

# Targets the ground truth $2 saw the instruction at $1 (hex) go to.
observed() { awk -v a="$1" '$1 == "dso" { d++ } d == 1 && $1 == "e" && $2 == a { print $3 }' "$2" | sort -u; }
# Successor blocks (hex addresses) of the block holding address $1 in CFG $2.
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
# The `br` instructions of function $1 in binary $2 (hex, no 0x).
brs() { llvm-objdump-19 -d --no-show-raw-insn "$2" | awk -v fn="<$1>:" '/^[0-9a-f]+ </ { infn = ($2 == fn) }
	infn && $2 == "br" { a = $1; sub(":", "", a); print a }'; }

# check NAME BINARY FUNCTION MODE [ARGS]: MODE exact (successors equal to
# the targets seen) or cover (the targets seen among the successors).
check() {
	local name=$1 b=$2 fn=$3 mode=$4; shift 4
	[ -f "$b.gt" ] || "$SPGO" emulate -c 100003 -o "$b.data" --ground-truth "$b.gt" -- "./$b" "$@" >/dev/null 2>"$b.err" ||
		{ cat "$b.err"; bad "$name: spgo emulate"; return; }
	"$SPGO" infer --binary "$b" --function "$fn" --emit-cfg > "$b.$fn.cfg" || { bad "$name: spgo infer"; return; }
	local j n=0 obs rec
	for j in $(brs "$fn" "$b"); do
		n=$((n + 1))
		obs=$(observed "$j" "$b.gt")
		rec=$(successors "$j" "$b.$fn.cfg")
		[ -n "$obs" ] || { bad "$name: $fn: no jump from $j ran"; continue; }
		if [ "$mode" = exact ]; then
			[ "$obs" = "$rec" ] || bad "$name: $fn: br at $j: targets seen [$(echo $obs)], CFG successors [$(echo $rec)]"
		else
			local missing; missing=$(comm -23 <(echo "$obs") <(echo "$rec"))
			[ -z "$missing" ] || bad "$name: $fn: br at $j: targets seen but not successors: $(echo $missing)"
		fi
		echo "$name: $fn: br at $j: $(echo "$rec" | wc -l) successors, $(echo "$obs" | wc -l) targets seen"
	done
	[ "$n" -ge 1 ] || bad "$name: $fn: no br"
	head -1 "$b.$fn.cfg" | grep -q " $n with a recovered jump table" || bad "$name: $fn: $(head -1 "$b.$fn.cfg")"
}

clang_a64() { clang-19 --target=aarch64-linux-gnu -fuse-ld=lld -O2 -g "$@"; }
sw="$SPGO_SRC/tests/data/switch_prog.c"
clang_a64 -o sw-clang "$sw" && clang_a64 -no-pie -fno-pie -o sw-clang-nopie "$sw" &&
	aarch64-linux-gnu-gcc -O2 -g -o sw-gcc "$sw" && aarch64-linux-gnu-gcc -O2 -g -no-pie -o sw-gcc-nopie "$sw" || exit 1
for b in sw-gcc sw-gcc-nopie; do check "$b" "$b" dense exact a b; done
# clang lowers dense() to compares; its table, if any, is checked the same way
for b in sw-clang sw-clang-nopie; do
	[ -n "$(brs dense "$b")" ] && check "$b" "$b" dense exact a b
done
# via(): a br through a loaded pointer, no table
"$SPGO" infer --binary sw-gcc --function via --emit-cfg > via.cfg || bad "via: spgo infer"
head -1 via.cfg | grep -q " 0 with a recovered jump table" || bad "via: $(head -1 via.cfg)"

vm="$SPGO_SRC/examples/minivm/minivm.c"
clang_a64 -o vm-clang "$vm" && aarch64-linux-gnu-gcc -O2 -g -o vm-gcc "$vm" || exit 1
check vm-clang vm-clang main cover 1
check vm-gcc vm-gcc main cover 1
[ $fail -eq 0 ] && echo "aarch64_jump_tables: ok"
exit $fail
