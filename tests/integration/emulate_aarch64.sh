#!/usr/bin/env bash
# spgo emulate on AArch64 programs (qemu-aarch64, BRBE-shaped records) and
# spgo gen on the captures, against llvm-profgen-19 on the same data
# (issue 26, acceptance 1).  Builds: clang-19 --target=aarch64-linux-gnu
# -fuse-ld=lld (DWARF with -fdebug-info-for-profiling, and pseudo-probes;
# PIE and not), Debian's aarch64-linux-gnu-gcc (PIE and not), and a shared
# library; frame pointers everywhere (perf's arm64 user stacks follow x29).
#  - the capture is an arm64 one: HEADER_ARCH aarch64, 64-entry branch
#    stacks with BRBE's branch types (perf 6.1's brstack shows /COND,
#    /CALL, /RET ...), system calls as records with a zero address;
#  - AutoFDO: spgo gen equals llvm-profgen-19 --ignore-stack-samples on
#    `perf script -F ip,brstack --show-mmap-events` byte for byte;
#  - gcc: the gcov profile (--format gcov) builds with -fauto-profile;
#  - CSSPGO: spgo gen --cs (flat, no pre-inliner) equals llvm-profgen-19 on
#    `spgo script --raw-stacks --show-mmap-events`, line contexts on DWARF
#    builds and probe contexts on probe builds;
#  - the profile is close to the exact counts (>= 97% similarity; the
#    PIE builds);
#  - records with a zero address are counted and said by spgo gen;
#  - a capture given a binary of the other ISA is refused.
# Before AArch64 guests were emulated, spgo emulate refused these programs
# ("spgo emulate runs x86-64 programs").
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 ld.lld-19 llvm-profgen-19 llvm-profdata-19 perf aarch64-linux-gnu-gcc qemu-aarch64 qemu-x86_64
sysroot=/usr/aarch64-linux-gnu
[ -f "$sysroot/lib/libc.so.6" ] || { echo "skip: no arm64 cross libc (libc6-dev-arm64-cross)"; exit 77; }
scratch
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
src="$SPGO_SRC/examples/minivm/minivm.c"
fp="-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
clang_a64() { clang-19 --target=aarch64-linux-gnu -fuse-ld=lld -O2 -g $fp "$@"; }
gcc_a64() { aarch64-linux-gnu-gcc -O2 -g -fno-omit-frame-pointer "$@"; }

# same NAME LLVM SPGO: byte-identical, else the similarity and a diff.
same() {
	if cmp -s "$2" "$3"; then
		echo "$1: identical to llvm-profgen-19 ($(grep -c '^[^ ]' "$3") profiles)"
	else
		local s; s=$(llvm-profdata-19 overlap --sample "$2" "$3" 2>/dev/null | similarity)
		bad "$1: differs from llvm-profgen-19 (similarity ${s:-?}%):"; diff "$2" "$3" | head -8
	fi
}

# check NAME BINARY KIND [ARGS...]: emulate, then compare (KIND dwarf|probe|gcc;
# the exact counts too when $truth is set).
check() {
	local n=$1 b=$2 kind=$3; shift 3
	local gt=(); [ -n "${truth:-}" ] && gt=(--ground-truth "$n.gt")
	"$SPGO" emulate -c 5003 -o "$n.data" "${gt[@]}" -- "./$b" "$@" >/dev/null 2>"$n.err" ||
		{ cat "$n.err"; bad "$n: spgo emulate"; return; }
	perf script -i "$n.data" -F ip,brstack --show-mmap-events > "$n.script" 2>/dev/null
	local dw=""; [ "$kind" = probe ] && dw=--use-dwarf-correlation
	"$SPGO" gen --binary "$b" --perf-data "$n.data" -o "$n.sp.txt" --format text --quiet $dw || { bad "$n: spgo gen"; return; }
	llvm-profgen-19 --binary="$b" --perfscript="$n.script" --format=text --ignore-stack-samples $dw \
		-o "$n.pg.txt" >"$n.pg.err" 2>&1 || { cat "$n.pg.err"; bad "$n: llvm-profgen-19"; return; }
	same "$n AutoFDO" "$n.pg.txt" "$n.sp.txt"
	# spgo reads the same text (BRBE's types after each record) alike.
	"$SPGO" gen --binary "$b" --perf-script "$n.script" -o "$n.spt.txt" --format text --quiet $dw || bad "$n: spgo gen --perf-script"
	cmp -s "$n.spt.txt" "$n.sp.txt" || bad "$n: spgo gen on perf script's text differs from spgo gen on perf.data"
	if [ -n "${truth:-}" ]; then
		"$SPGO" gen --binary "$b" --ground-truth "$n.gt" -o "$n.truth.txt" --format text --quiet $dw ||
			bad "$n: spgo gen --ground-truth"
		local s; s=$(llvm-profdata-19 overlap --sample "$n.truth.txt" "$n.sp.txt" | similarity)
		echo "$n: similarity to the exact counts $s%"
		atleast "$s" 97 || bad "$n: similarity to the exact counts $s% < 97%"
	fi
	# CSSPGO: line contexts (DWARF) or probe contexts.
	"$SPGO" script -i "$n.data" -F ip,brstack --raw-stacks --show-mmap-events > "$n.raw" || bad "$n: spgo script --raw-stacks"
	"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary "$b" --perf-data "$n.data" -o "$n.cs.sp.txt" --format text ||
		{ bad "$n: spgo gen --cs"; return; }
	llvm-profgen-19 --binary="$b" --perfscript="$n.raw" --format=text --csspgo-preinliner=false \
		--gen-cs-nested-profile=false -o "$n.cs.pg.txt" >"$n.cspg.err" 2>&1 || { cat "$n.cspg.err"; bad "$n: llvm-profgen-19 CS"; return; }
	grep -q '^\[main:[0-9.]* @ ' "$n.cs.sp.txt" || bad "$n: no context below main in the CS profile"
	same "$n CSSPGO" "$n.cs.pg.txt" "$n.cs.sp.txt"
}

clang_a64 -fdebug-info-for-profiling -o vm-clang "$src" || exit 1
clang_a64 -fdebug-info-for-profiling -no-pie -fno-pie -o vm-clang-nopie "$src" || exit 1
clang_a64 -fpseudo-probe-for-profiling -o vm-probe "$src" || exit 1
clang_a64 -fpseudo-probe-for-profiling -no-pie -fno-pie -o vm-probe-nopie "$src" || exit 1
gcc_a64 -o vm-gcc "$src" || exit 1
gcc_a64 -no-pie -o vm-gcc-nopie "$src" || exit 1

# The capture is an arm64 BRBE one.
truth=1 check clang vm-clang dwarf 1
perf report -i clang.data --header-only 2>/dev/null | grep -qx '# arch : aarch64' || bad "HEADER_ARCH is not aarch64"
nb=$(awk '/^ 0x[0-9a-f]*\/0x/ && NF > m { m = NF } END { print m + 0 }' clang.script)
[ "$nb" = 64 ] || bad "branch stacks of $nb entries, not 64"
for t in COND CALL RET; do grep -q "/$t " clang.script || bad "no /$t branch type in perf script's brstack"; done
# System calls: BRBE's records with a zero address, counted and said by
# spgo gen (bad input of issue 26), on a program that makes many.
cat > sys.c <<'EOF2'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	long s = 0;
	for (int i = 0; i < 20000; i++) {
		s += getppid();
		for (int j = 0; j < 50; j++)
			s += j ^ i;
	}
	printf("%ld\n", s > 0);
	return 0;
}
EOF2
clang_a64 -o sys sys.c || exit 1
"$SPGO" emulate -c 2003 -o sys.data -- ./sys >/dev/null 2>sys.err || { cat sys.err; bad "sys: spgo emulate"; }
perf script -i sys.data -F ip,brstack --show-mmap-events > sys.script 2>/dev/null
grep -q ' 0x[0-9a-f]*/0x0/P/-/-/0/SYSCALL ' sys.script || bad "no system call record with a zero target"
grep -q ' 0x0/0x[0-9a-f]*/P/-/-/0/ERET ' sys.script || bad "no return record with a zero source"
nz=$(grep -o ' 0x0/0x\| 0x[0-9a-f]*/0x0/' sys.script | wc -l)
"$SPGO" gen --binary sys --perf-data sys.data -o z.txt --format text 2>z.err || bad "spgo gen (stated)"
grep -q "^spgo: gen: $nz branch records with a zero address" z.err ||
	{ grep zero z.err; bad "spgo gen does not state the $nz records with a zero address"; }
echo "sys: $nz records with a zero address, said by spgo gen"
llvm-profgen-19 --binary=sys --perfscript=sys.script --format=text --ignore-stack-samples -o z.pg.txt >/dev/null 2>&1 ||
	bad "sys: llvm-profgen-19"
same "sys AutoFDO (zero addresses)" z.pg.txt z.txt

check clang-nopie vm-clang-nopie dwarf 1
truth=1 check probe vm-probe probe 1
check probe-nopie vm-probe-nopie probe 1
truth=1 check gcc vm-gcc gcc 1
# gcc's AutoFDO: the gcov profile of the gcc build, read back by the cross gcc.
"$SPGO" gen --binary vm-gcc --perf-data gcc.data -o gcc.afdo --format gcov --quiet || bad "gcc: spgo gen --format gcov"
aarch64-linux-gnu-gcc -O2 -g -fauto-profile=gcc.afdo -Werror -c -o vm-gcc-pgo.o "$src" 2>afdo.err ||
	{ cat afdo.err; bad "aarch64-linux-gnu-gcc -fauto-profile does not take spgo's gcov profile"; }
check gcc-nopie vm-gcc-nopie gcc 1

# A shared library: the profile of libwork.so from a program calling it.
clang_a64 -fdebug-info-for-profiling -fpic -shared -DAS_LIB -o libwork.so "$SPGO_SRC/tests/data/perf_prog.c" || exit 1
clang_a64 -DUSE_LIB -o uselib "$SPGO_SRC/tests/data/perf_prog.c" -L. -lwork -Wl,-rpath,'$ORIGIN' || exit 1
"$SPGO" emulate -c 5003 -o lib.data -- ./uselib 40 >/dev/null 2>lib.err || { cat lib.err; bad "uselib: spgo emulate"; }
perf script -i lib.data -F ip,brstack --show-mmap-events > lib.script 2>/dev/null
"$SPGO" gen --binary libwork.so --perf-data lib.data -o lib.sp.txt --format text --quiet || bad "libwork.so: spgo gen"
llvm-profgen-19 --binary=libwork.so --perfscript=lib.script --format=text --ignore-stack-samples \
	-o lib.pg.txt >lib.pg.err 2>&1 || { cat lib.pg.err; bad "libwork.so: llvm-profgen-19"; }
grep -q '^leaf_b:[1-9]' lib.sp.txt || bad "libwork.so: no samples in leaf_b"
same "libwork.so AutoFDO" lib.pg.txt lib.sp.txt

# The other ISA's binary is refused, both ways.
clang-19 -O2 -g -o vm-x86 "$src" || exit 1
"$SPGO" gen --binary vm-x86 --perf-data clang.data -o x.txt --format text 2>x.err && bad "an aarch64 capture given an x86-64 binary was accepted"
grep -q 'recorded on aarch64' x.err || { cat x.err; bad "no clear error for an aarch64 capture given an x86-64 binary"; }
"$SPGO" emulate -c 5003 -o x86.data -- ./vm-x86 1 >/dev/null 2>&1 || bad "spgo emulate vm-x86"
"$SPGO" gen --binary vm-clang --perf-data x86.data -o y.txt --format text 2>y.err && bad "an x86_64 capture given an AArch64 binary was accepted"
grep -q 'recorded on x86_64' y.err || { cat y.err; bad "no clear error for an x86_64 capture given an AArch64 binary"; }
[ -e x.txt ] || [ -e y.txt ] && bad "a refused gen left an output"

# The test can fail: a changed count must differ.
sed '0,/^ [0-9]*: [1-9]/s/^\( [0-9]*: \)[1-9]/\19/' clang.sp.txt > changed
cmp -s changed clang.sp.txt && bad "a changed profile compares equal"
[ $fail -eq 0 ] && echo "emulate_aarch64: ok"
exit $fail
