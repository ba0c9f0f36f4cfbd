#!/usr/bin/env bash
# spgo gen --kernel (issue 31): the kernel's profile from a system-wide
# capture.  A kernel-like image (linked at 0xffffffff81000000 from
# lib/kern.c, its first executable segment at a nonzero file offset) and a
# module-like object (lib/kmod.c); captures made by walking their real
# control flow (lib/kwalk.py) and written as perf.data (lib/kperf.c, spgo's
# writer): the kernel mapping [kernel.kallsyms]_text of pid -1 with zero
# protection, a module mapping, user processes, user and kernel samples
# mixed, LBR entries crossing between user and kernel space.
# Oracle: llvm-profgen-19 on the same samples as perf script prints them.
# llvm-profgen 19 has no --kernel (LLVM 20's #92831): it is given the
# capture without KASLR, whose addresses are vmlinux's own, which is what
# --kernel makes of them; spgo must give the same profile for the same
# samples at a KASLR offset.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}" "${SPGO_BUILD:?}"
need clang-19 ld readelf llvm-objdump-19 llvm-profgen-19 llvm-profdata-19 python3
KPERF=$SPGO_BUILD/tests/kperf
[ -x "$KPERF" ] || { echo "skip: $KPERF not built"; exit 77; }
lib=$SPGO_SRC/tests/integration/lib
scratch
clang-19 -O2 -g -ffreestanding -fno-pie -mcmodel=kernel -fno-asynchronous-unwind-tables \
	-c "$lib/kern.c" -o kern.o && ld -static -nostdlib -T "$lib/kern.lds" -e k_syscall --build-id \
	-o vmlinux kern.o || { bad "building the kernel-like image"; exit 1; }
clang-19 -O2 -g -ffreestanding -fPIC -shared -nostdlib -fno-asynchronous-unwind-tables \
	-Wl,--build-id -o ktest_mod.ko "$lib/kmod.c" || { bad "building the module"; exit 1; }
readelf -lW vmlinux | awk '$1 == "LOAD" && / E / { if ($2 == "0x000000") bad = 1 } END { exit bad }' ||
	bad "the kernel-like image's first executable segment is at file offset 0 (the test needs another)"
bid=$(readelf -n vmlinux | awk '/Build ID/ { print $3 }')
walk() { python3 "$lib/kwalk.py" --vmlinux vmlinux --entry k_syscall "$@"; }
capture() {  # capture NAME KWALK-ARGS...: NAME.data (and NAME.spec)
	local n=$1
	shift
	walk "$@" > "$n.spec" && "$KPERF" "$n.data" < "$n.spec" || bad "making capture $n"
}
# perf script -F ip,brstack of a capture (from its spec when perf is not there)
script_of() {
	if command -v perf >/dev/null; then
		perf script -F ip,brstack -i "$1.data" 2>/dev/null
	else
		awk '$1 == "sample" { printf " %s", $4; for (i = 5; i <= NF; i++) printf " %s/-/-/-/0/", $i; print "" }' "$1.spec"
	fi
}
mods=(--module ktest_mod.ko --modname ktest-mod --modentry m_work)

# 1. Intel-shaped (:k, 32 entries, no returns to user recorded), with and without KASLR.
capture k0 "${mods[@]}" --samples 300 --build-id "$bid"
capture kaslr "${mods[@]}" --samples 300 --build-id "$bid" --kaslr 2a00000
script_of k0 > k0.script
llvm-profgen-19 --binary=vmlinux --perfscript=k0.script --format=text -o pg.txt 2>/dev/null ||
	bad "llvm-profgen-19 on the kernel capture"
"$SPGO" gen --kernel --binary vmlinux --perf-data k0.data -o sp0.txt --format text 2>err0.txt ||
	{ bad "spgo gen --kernel"; cat err0.txt; }
"$SPGO" gen --kernel --binary vmlinux --perf-data kaslr.data -o spk.txt --format text 2>errk.txt ||
	{ bad "spgo gen --kernel (KASLR)"; cat errk.txt; }
if [ -s pg.txt ] && cmp -s pg.txt sp0.txt && cmp -s pg.txt spk.txt; then
	echo "ok   --kernel: byte-identical to llvm-profgen-19's, with and without a KASLR offset"
else
	bad "--kernel: differs from llvm-profgen-19's"; diff pg.txt sp0.txt | head; diff pg.txt spk.txt | head
fi
# perf script text of the KASLR'd capture, with its mmap events (as llvm-profgen --kernel reads it)
if command -v perf >/dev/null; then
	perf script --show-mmap-events -F ip,brstack -i kaslr.data > kaslr.script 2>/dev/null
	"$SPGO" gen --kernel --binary vmlinux --perf-script kaslr.script -o spt.txt --format text 2>errt.txt ||
		{ bad "spgo gen --kernel --perf-script"; cat errt.txt; }
	cmp -s pg.txt spt.txt || { bad "--kernel --perf-script: differs from llvm-profgen-19's"; diff pg.txt spt.txt | head; }
	grep -q 'could not be placed' errt.txt && bad "--kernel --perf-script: pidless samples warned about"
fi
grep -q 'matched by kernel image name and build-id' errk.txt || bad "the kernel image was not matched by name and build-id"
grep -Eq -- '--kernel: [0-9]+ of [0-9]+ samples in the kernel; [1-9][0-9]* LBR entries between user and kernel space \(not made ranges: [1-9][0-9]* ranges' errk.txt ||
	{ bad "the statistics do not count the LBR entries between user and kernel space"; grep -- --kernel errk.txt; }

# 2. Modules: attributed with --module (named ktest-mod.ko in the data),
# merged into one profile; llvm-profgen-19 loses them.
"$SPGO" gen --kernel --binary vmlinux --module ktest_mod.ko --perf-data kaslr.data -o spm.txt \
	--format text 2>errm.txt || { bad "spgo gen --kernel --module"; cat errm.txt; }
for f in m_work m_step k_hash k_syscall; do
	grep -Eq "^$f:[1-9][0-9]*:" spm.txt || bad "$f has no samples in the merged profile"
done
grep -Eq '^m_(work|step):' pg.txt && bad "llvm-profgen-19's vmlinux profile has the module's functions (the test shows nothing)"
llvm-profgen-19 --binary=ktest_mod.ko --perfscript=k0.script --format=text -o pgm.txt >pgm.err 2>&1
grep -Eq '^m_(work|step):[1-9]' pgm.txt 2>/dev/null && bad "llvm-profgen-19 attributed the module's samples"
echo "ok   modules: m_work $(grep -E '^m_work:' spm.txt | cut -d: -f2) and m_step $(grep -E '^m_step:' spm.txt | cut -d: -f2) samples in spgo's profile, none in llvm-profgen-19's (vmlinux or the module as --binary)"
grep -q 'module ktest_mod.ko: [1-9][0-9]* samples' errm.txt || bad "the module's statistics line is missing"
# the merged profile, as the kernel build reads it: clang compiles both with it, no warning
"$SPGO" gen --kernel --binary vmlinux --module ktest_mod.ko --perf-data kaslr.data -o k.prof 2>/dev/null ||
	bad "spgo gen --kernel (extbinary)"
llvm-profdata-19 show --sample --all-functions k.prof 2>/dev/null | grep -q 'm_work' || bad "llvm-profdata-19 does not read m_work in the merged profile"
for src in kern.c kmod.c; do
	clang-19 -O2 -g -ffreestanding -fno-pie -mcmodel=kernel -fprofile-sample-use=k.prof -Werror \
		-c "$lib/$src" -o cc.o 2>cc.err || { bad "clang-19 -fprofile-sample-use on $src"; cat cc.err; }
done

# 2b. A module as the kernel build leaves it: a relocatable .ko (laid out
# and relocated as the kernel loads it).  Reference: llvm-profgen-19 on
# the same .ko linked at the module's runtime address, merged with its
# vmlinux profile (both sides normalized by llvm-profdata-19 merge).
clang-19 -O2 -g -ffreestanding -mcmodel=kernel -fno-asynchronous-unwind-tables -c "$lib/kmod.c" -o ktest_rel.ko ||
	bad "building the relocatable module"
ld -Ttext=0xffffffffc0a00000 -e m_work --unresolved-symbols=ignore-all -o rel_linked ktest_rel.ko ||
	bad "linking the relocatable module at its address"
capture rel --module ktest_rel.ko --modname ktest-rel --modentry m_work --samples 300 --build-id "$bid"
script_of rel > rel.script
llvm-profgen-19 --binary=vmlinux --perfscript=rel.script --format=text -o pgv.txt 2>/dev/null
llvm-profgen-19 --binary=rel_linked --perfscript=rel.script --format=text -o pgr.txt 2>/dev/null
"$SPGO" gen --kernel --binary vmlinux --module ktest_rel.ko --perf-data rel.data -o sprel.txt --format text 2>errr.txt ||
	{ bad "spgo gen --kernel --module (relocatable)"; cat errr.txt; }
llvm-profdata-19 merge --sample --text pgv.txt pgr.txt -o ref.txt 2>/dev/null
llvm-profdata-19 merge --sample --text sprel.txt -o sprel.n.txt 2>/dev/null
if grep -q '^m_step:' pgr.txt && cmp -s ref.txt sprel.n.txt; then
	echo "ok   a relocatable .ko: the same profile as llvm-profgen-19's of the module linked at its address"
else
	bad "a relocatable .ko: differs from llvm-profgen-19's of the linked module"; diff ref.txt sprel.n.txt | head
fi

# 4. AMD-shaped (LbrExtV2: 16 entries, returns to user space recorded): a profile.
capture amd "${mods[@]}" --samples 300 --amd --seed 7 --build-id "$bid"
script_of amd > amd.script
llvm-profgen-19 --binary=vmlinux --perfscript=amd.script --format=text -o pga.txt 2>/dev/null
"$SPGO" gen --kernel --binary vmlinux --module ktest_mod.ko --perf-data amd.data -o spa.txt --format text 2>erra.txt ||
	{ bad "spgo gen --kernel on the AMD-shaped capture"; cat erra.txt; }
"$SPGO" gen --kernel --binary vmlinux --perf-data amd.data -o spa0.txt --format text 2>/dev/null
if [ -s pga.txt ] && cmp -s pga.txt spa0.txt && grep -q '^m_work:' spa.txt; then
	echo "ok   AMD-shaped capture: a profile, vmlinux's byte-identical to llvm-profgen-19's"
else
	bad "AMD-shaped capture"; diff pga.txt spa0.txt | head
fi

# 3. What spgo says: never a silently empty profile.
expect_err() {  # expect_err WHAT PATTERN ARGS...
	local what=$1 pat=$2
	shift 2
	rm -f x.txt
	if "$SPGO" gen "$@" -o x.txt --format text 2>e.txt; then
		bad "$what: spgo gen succeeded"
	elif ! grep -q -- "$pat" e.txt; then
		bad "$what: the error does not say '$pat'"; cat e.txt
	fi
	[ -e x.txt ] && bad "$what: an output was left"
}
capture user --samples 40 --user-only
capture nok --samples 40 --user-only --exclude-kernel
capture nomap --samples 40 --no-kernel-map
capture otherid --samples 40 --build-id 0123456789abcdef0123456789abcdef01234567
expect_err "user-only capture" "user space only" --kernel --binary vmlinux --perf-data user.data
expect_err "recorded without :k" "recorded without the kernel" --kernel --binary vmlinux --perf-data nok.data
expect_err "no kernel mapping" "no mapping of the kernel" --kernel --binary vmlinux --perf-data nomap.data
expect_err "another kernel's build-id" "build-id is not that of the kernel" --kernel --binary vmlinux --perf-data otherid.data
expect_err "a kernel capture without --kernel" "give --kernel" --binary vmlinux --perf-data k0.data
expect_err "--module without --kernel" "goes with --kernel" --binary vmlinux --module ktest_mod.ko --perf-data k0.data
echo "ok   errors: user-only, without :k, no kernel mapping, another build, no --kernel"
# 6. A gcc-built vmlinux: without --format, --kernel still writes extbinary
# (kernel AutoFDO is clang's; --kernel refuses gcov) and says so.  It wrote
# gcov, the gcc rule for user programs, which clang's kernel build cannot read.
mkdir g
if (cd g && gcc -O2 -g -ffreestanding -fno-pie -mcmodel=kernel -fno-asynchronous-unwind-tables \
	-c "$lib/kern.c" -o kern.o && ld -static -nostdlib -T "$lib/kern.lds" -e k_syscall --build-id \
	-o vmlinux kern.o && capture kg --samples 300 --build-id "$(readelf -n vmlinux | awk '/Build ID/ { print $3 }')" &&
	"$SPGO" gen --kernel --binary vmlinux --perf-data kg.data -o kg.prof 2> kg.err); then
	grep -q 'writing extbinary for clang' g/kg.err && llvm-profdata-19 show --sample g/kg.prof > /dev/null 2>&1 &&
		echo "ok   gcc-built vmlinux: extbinary by default, and said" ||
		{ bad "gcc-built vmlinux: not extbinary by default"; cat g/kg.err; }
else
	bad "gcc-built vmlinux: build, capture or gen failed"; cat g/kg.err 2>/dev/null
fi
[ $fail -eq 0 ] && echo "gen_kernel: ok"
exit $fail
