#!/usr/bin/env bash
# AArch64 binaries in the binary model, cross-built from tests/data with
# clang-19 --target=aarch64-linux-gnu -fuse-ld=lld (PIE, non-PIE, pseudo-
# probes PIE and not, pointer authentication and BTI, a shared library)
# and Debian's aarch64-linux-gnu-gcc (PIE and not), plus the arm64 cross
# libc.so.6 (gcc, SVE, MTE and LSE code capstone 4 does not decode):
#   - `spgo symbolize --all-instructions`: boundaries, classes and direct
#     targets equal to `llvm-objdump-19 -d -z` (every word; zero words are
#     UDF #0 traps; objdump_classes.awk reads the AArch64 mnemonics);
#   - `spgo symbolize` of every instruction address equal to
#     `llvm-symbolizer-19 --inlines` (and --verbose: discriminators, start
#     lines) -- DWARF is ISA-neutral;
#   - `spgo symbolize --probes` equal to llvm-profgen-19
#     --show-pseudo-probe (llvm-profgen-19 reads AArch64 binaries);
#   - calls through PLT stubs to exit/abort/__assert_fail are noreturn, as
#     on x86-64 (the same count of noreturn blocks in switch_prog);
#   - the programs run under qemu-aarch64 with the arm64 cross libc.
# 64 KiB-aligned load segments and a first PT_LOAD at 0 (PIE) are in each.
# Before AArch64 was accepted, every binary was refused ("unsupported
# machine AArch64").
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 ld.lld-19 llvm-objdump-19 llvm-symbolizer-19 llvm-profgen-19 llvm-readelf-19 aarch64-linux-gnu-gcc qemu-aarch64
sysroot=/usr/aarch64-linux-gnu
[ -f "$sysroot/lib/libc.so.6" ] || { echo "skip: no arm64 cross libc (libc6-dev-arm64-cross)"; exit 77; }
scratch
data="$SPGO_SRC/tests/data"
awkf="$SPGO_SRC/tests/integration/objdump_classes.awk"
total_insns=0 total_addrs=0 total_probes=0

compare_insns() {
	local b=$1
	"$SPGO" symbolize --binary "$b" --all-instructions > "$b.insns" 2> "$b.err" || { bad "$b: --all-instructions: $(cat "$b.err")"; return 1; }
	llvm-objdump-19 -d -z --no-show-raw-insn "$b" | awk -f "$awkf" > "$b.objdump"
	awk '{ print $1, $3 (NF > 3 ? " " $4 : "") }' "$b.insns" > "$b.classes"
	local n; n=$(wc -l < "$b.classes")
	[ "$n" -gt 100 ] || { bad "$b: only $n instructions"; return 1; }
	if cmp -s "$b.classes" "$b.objdump"; then
		total_insns=$((total_insns + n))
		echo "$b: $n instructions, boundaries, classes and targets equal to llvm-objdump-19"
	else
		bad "$b: instructions differ from llvm-objdump-19 -d (< spgo, > objdump):"; diff "$b.classes" "$b.objdump" | head -10
	fi
}

compare_frames() {
	local b=$1
	awk '{ print $1 }' "$b.insns" > "$b.addrs"
	"$SPGO" symbolize --binary "$b" < "$b.addrs" > "$b.spgo"
	llvm-symbolizer-19 --inlines --functions=linkage --obj="$b" < "$b.addrs" > "$b.llvm"
	cmp -s "$b.spgo" "$b.llvm" || { bad "$b: frames differ from llvm-symbolizer-19:"; diff "$b.spgo" "$b.llvm" | head; return; }
	"$SPGO" symbolize --verbose --binary "$b" < "$b.addrs" > "$b.spgo-v"
	llvm-symbolizer-19 --verbose --inlines --functions=linkage --obj="$b" < "$b.addrs" |
		grep -v -e '^  Function start filename:' -e '^  Function start address:' > "$b.llvm-v"
	cmp -s "$b.spgo-v" "$b.llvm-v" || { bad "$b: --verbose differs from llvm-symbolizer-19:"; diff "$b.spgo-v" "$b.llvm-v" | head; return; }
	total_addrs=$((total_addrs + $(wc -l < "$b.addrs")))
	echo "$b: $(wc -l < "$b.addrs") addresses, frames equal to llvm-symbolizer-19"
}

compare_probes() {
	local b=$1
	"$SPGO" symbolize --binary "$b" --probes --all-instructions > "$b.probes" 2> "$b.err" || { bad "$b: --probes: $(cat "$b.err")"; return; }
	llvm-profgen-19 --show-disassembly-only --show-pseudo-probe --binary "$b" --output /dev/null 2> "$b.profgen-err" |
		awk '/^ \[Probe\]:/ { sub(/^ \[Probe\]:[ \t]*/, ""); gsub(/[ \t]+/, " "); sub(/ $/, ""); held[n++] = $0; next }
		     /^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); sub(/^0+/, "", a); if (a == "") a = "0"
			for (i = 0; i < n; i++) print "0x" a " " held[i]; n = 0 }' > "$b.profgen"
	[ -s "$b.profgen" ] || { bad "$b: llvm-profgen-19 listed no probes: $(head -c 300 "$b.profgen-err")"; return; }
	cmp -s "$b.probes" "$b.profgen" || { bad "$b: probes differ from llvm-profgen-19:"; diff "$b.probes" "$b.profgen" | head; return; }
	total_probes=$((total_probes + $(wc -l < "$b.probes")))
	echo "$b: $(wc -l < "$b.probes") probes ($(grep -c Inlined "$b.probes") inlined) equal to llvm-profgen-19"
}

clang_a64() { clang-19 --target=aarch64-linux-gnu -fuse-ld=lld -O2 -g "$@"; }
built=()
for p in switch_prog icall_prog inline_demo perf_prog; do
	clang_a64 -o "$p-clang" "$data/$p.c" && built+=("$p-clang") || bad "build $p-clang"
	clang_a64 -no-pie -fno-pie -o "$p-clang-nopie" "$data/$p.c" && built+=("$p-clang-nopie") || bad "build $p-clang-nopie"
	clang_a64 -fpseudo-probe-for-profiling -o "$p-probe" "$data/$p.c" && built+=("$p-probe") || bad "build $p-probe"
	clang_a64 -fpseudo-probe-for-profiling -no-pie -fno-pie -o "$p-probe-nopie" "$data/$p.c" && built+=("$p-probe-nopie") || bad "build $p-probe-nopie"
	aarch64-linux-gnu-gcc -O2 -g -o "$p-gcc" "$data/$p.c" && built+=("$p-gcc") || bad "build $p-gcc"
	aarch64-linux-gnu-gcc -O2 -g -no-pie -o "$p-gcc-nopie" "$data/$p.c" && built+=("$p-gcc-nopie") || bad "build $p-gcc-nopie"
done
clang_a64 -mbranch-protection=standard -o perf_prog-pac "$data/perf_prog.c" && built+=(perf_prog-pac) || bad "build perf_prog-pac"
clang_a64 -fpic -shared -DAS_LIB -o libwork-clang.so "$data/perf_prog.c" && built+=(libwork-clang.so) || bad "build libwork-clang.so"
aarch64-linux-gnu-gcc -O2 -g -fpic -shared -DAS_LIB -o libwork-gcc.so "$data/perf_prog.c" && built+=(libwork-gcc.so) || bad "build libwork-gcc.so"
clang_a64 -DUSE_LIB -o uselib "$data/perf_prog.c" -L. -lwork-clang -Wl,-rpath,'$ORIGIN' || bad "build uselib"

# The layouts this is about: 64 KiB alignment, a first PT_LOAD at 0.
llvm-readelf-19 -lW perf_prog-clang | awk '$1 == "LOAD" { print $3, $NF; exit }' | grep -qx '0x0000000000000000 0x10000' ||
	bad "perf_prog-clang: first PT_LOAD is not at 0 with 64 KiB alignment"

for b in "${built[@]}"; do
	compare_insns "$b" && compare_frames "$b"
	case $b in *probe*) compare_probes "$b" ;; esac
	case $b in *.so) ;; *) qemu-aarch64 -L "$sysroot" "./$b" 3 > /dev/null 2>&1 || bad "$b does not run under qemu-aarch64" ;; esac
done
[ -x uselib ] && { qemu-aarch64 -L "$sysroot" ./uselib 5 > uselib.out || bad "uselib does not run under qemu-aarch64"; }

# The arm64 libc: large, gcc-built, with code capstone 4 does not know.
cp "$sysroot/lib/libc.so.6" libc.so.6
compare_insns libc.so.6

# Noreturn calls through PLT stubs (exit, abort, __assert_fail).
for b in switch_prog-gcc switch_prog-clang-nopie; do
	"$SPGO" infer --binary "$b" --emit-cfg > "$b.cfg" 2> "$b.err" || { bad "$b: infer --emit-cfg: $(cat "$b.err")"; continue; }
	head -1 "$b.cfg" | grep -q ' 4 noreturn blocks' || bad "$b: want 4 noreturn blocks: $(head -1 "$b.cfg")"
done

# The test can fail: a class changed in the listing must differ.
sed '0,/ call /s/ call / jump /' perf_prog-clang.classes > changed
cmp -s changed perf_prog-clang.objdump && bad "a changed class compares equal"

echo "aarch64: ${#built[@]} binaries; $total_insns instructions equal to llvm-objdump-19;" \
	"$total_addrs addresses equal to llvm-symbolizer-19; $total_probes probes equal to llvm-profgen-19"
exit $fail
