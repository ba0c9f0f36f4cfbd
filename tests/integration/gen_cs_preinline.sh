#!/usr/bin/env bash
# spgo gen --preinline (the CSSPGO pre-inliner, nested output) against
# llvm-profgen-19's default CS output (pre-inliner on, nested), on the demo
# program captured by `spgo emulate` (llvm-profgen-19 fed `spgo script
# --raw-stacks`, as gen_cs.sh and gen_cs_probe.sh):
#  - a binary with pseudo-probes (clang-19 -O2 -g -fpseudo-probe-for-profiling)
#    and a DWARF one (-fdebug-info-for-profiling), same thresholds on both
#    sides (llvm-profgen 19's defaults: hot 1500, cold 0, growth 12, size
#    limits 100..50000 bytes, the 99.9999% summary entry as the cold count);
#  - the decisions of each (every context of the nested profile with its
#    !Attributes, bench/preinline_decisions.awk), the agreement share
#    printed (required: >= 95%; so far every decision agrees and the
#    profiles are byte-identical), similarity by llvm-profdata-19 overlap
#    (required >= 97%);
#  - classes of difference known (none shows here):
#      * a context whose size lookup falls back to "a sibling" (no size for
#        it or any shorter suffix of it): llvm-profgen takes the first child
#        of its size trie by call-site hash, and spgo the same, but with a
#        name made canonical (.llvm.N) the trie holds the raw name; both
#        sides agree on that here, the class stays for other binaries;
#      * recursive SCCs of the profiled call graph: their member order
#        follows LLVM's maximum-spanning-tree walk; edges of equal weight
#        keep insertion order, which spgo takes from the name order;
#      * (candidates of exactly equal priority, and contexts of functions
#        seen only as call-stack frames in a DWARF build: both handled as
#        llvm-profgen does, gen_cs_preinline_dwarf.sh tests them;)
#      * differences in the CS profile itself (gen_cs.sh, gen_cs_probe.sh).
#  - clang-19 accepts the pre-inlined profile (text, extbinary, and
#    extbinary --llvm 19 with the summary's pre-inlined flag) without a
#    warning (-Wprofile-instr-out-of-date -Wprofile-instr-unprofiled
#    -Werror); clang-14 reads the text and the default extbinary form.
#  - --preinline-params: hot=0 inlines nothing hot (every context merged
#    into its base: no ShouldBeInlined left), a bad list is refused.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 qemu-x86_64
scratch
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
decisions="$SPGO_SRC/bench/preinline_decisions.awk"
src="$SPGO_SRC/examples/minivm/minivm.c"
common="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"

# run KIND EXTRA-FLAGS: build, capture, both profiles, compare.
run() {
	local kind=$1 flags="$common $2" d=$1
	mkdir -p "$d" && cd "$d" || return
	# shellcheck disable=SC2086
	clang-19 $flags -o minivm "$src" || { bad "$kind: clang-19"; cd ..; return; }
	"$SPGO" emulate -c 2000 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; bad "$kind: spgo emulate"; cd ..; return; }
	"$SPGO" script -i e.data -F ip,brstack --raw-stacks > e.script || bad "$kind: spgo script --raw-stacks"
	llvm-profgen-19 --binary=minivm --perfscript=e.script --format=text -o pg.txt >pg.err 2>&1 ||
		{ cat pg.err; bad "$kind: llvm-profgen-19"; }
	"$SPGO" gen --preinline --binary minivm --perf-data e.data -o sp.txt --format text 2>stats.txt ||
		{ cat stats.txt; bad "$kind: spgo gen --preinline"; cd ..; return; }
	grep 'pre-inliner' stats.txt
	awk -f "$decisions" pg.txt | sort > pg.dec
	awk -f "$decisions" sp.txt | sort > sp.dec
	local both all inl share s
	both=$(comm -12 pg.dec sp.dec | wc -l)
	all=$(sort -u pg.dec sp.dec | wc -l)
	inl=$(awk '$NF >= 2' sp.dec | wc -l)
	share=$(awk -v b="$both" -v a="$all" 'BEGIN { printf "%.1f", a ? 100 * b / a : 0 }')
	echo "$kind: decisions: llvm-profgen-19 $(wc -l < pg.dec), spgo $(wc -l < sp.dec) contexts" \
	     "($inl ShouldBeInlined); agreement $both/$all = $share%"
	atleast "$share" 95 || { bad "$kind: decision agreement $share% < 95%"; diff pg.dec sp.dec | head -10; }
	[ "$inl" -gt 0 ] || bad "$kind: no context marked ShouldBeInlined"
	s=$(llvm-profdata-19 overlap --sample pg.txt sp.txt | similarity)
	echo "$kind: similarity $s%"
	atleast "$s" 97 || bad "$kind: similarity to llvm-profgen-19 $s% < 97%"
	if cmp -s pg.txt sp.txt; then echo "$kind: byte-identical to llvm-profgen-19's"; else
		echo "note: $kind: differs from llvm-profgen-19's:"; diff pg.dec sp.dec | head -10; fi
	"$SPGO" gen --preinline --quiet --binary minivm --perf-data e.data -o sp.prof || bad "$kind: extbinary"
	"$SPGO" gen --preinline --quiet --llvm 19 --binary minivm --perf-data e.data -o sp19.prof ||
		bad "$kind: extbinary --llvm 19"
	for p in sp.txt sp.prof sp19.prof; do
		# shellcheck disable=SC2086
		clang-19 $flags -fprofile-sample-use=$p -Wprofile-instr-out-of-date -Wprofile-instr-unprofiled \
			-Werror -o m.out "$src" 2>clang.err || { bad "$kind: clang-19 rejects or warns on $p:"; head -3 clang.err; }
	done
	if command -v clang-14 >/dev/null; then
		for p in sp.txt sp.prof; do
			# shellcheck disable=SC2086
			clang-14 ${flags/-no-pie/} -fprofile-sample-use=$p -c -o m14.o "$src" 2>clang14.err ||
				{ bad "$kind: clang-14 rejects $p:"; head -3 clang14.err; }
		done
	fi
	cd .. || exit 1
}

run probe "-fpseudo-probe-for-profiling"
run dwarf "-fdebug-info-for-profiling"

# thresholds are tunable: with hot=0 only contexts of no code (size 0 <
# threshold 0 + 1) are inlined, as llvm-profgen-19 with the same option
cd probe || exit 1
"$SPGO" gen --preinline --preinline-params hot=0,cold=0 --quiet --binary minivm --perf-data e.data -o none.txt \
	--format text || bad "--preinline-params hot=0"
n0=$(grep -c '!Attributes: [23]' none.txt); n1=$(grep -c '!Attributes: [23]' sp.txt)
# (the option must change the decisions; which way the count of marked
# contexts moves depends on the capture: contexts not inlined at hot=0
# move into base profiles, whose own inlinees are then marked)
[ "$n0" -ne "$n1" ] || bad "hot=0 marked as many contexts ($n0) as the default: the option did nothing"
llvm-profgen-19 --binary=minivm --perfscript=e.script --format=text --sample-profile-hot-inline-threshold=0 \
	-o pg0.txt >/dev/null 2>&1 || bad "llvm-profgen-19 --sample-profile-hot-inline-threshold=0"
awk -f "$decisions" pg0.txt | sort > pg0.dec; awk -f "$decisions" none.txt | sort > none.dec
if cmp -s pg0.dec none.dec; then echo "hot=0: $n0 contexts inlined (size 0), the decisions of llvm-profgen-19's"
else bad "hot=0: decisions differ from llvm-profgen-19 --sample-profile-hot-inline-threshold=0"; diff pg0.dec none.dec | head -5; fi
"$SPGO" gen --preinline --preinline-params hot=x --quiet --binary minivm --perf-data e.data -o bad.txt \
	2>err.txt && bad "--preinline-params hot=x accepted"
grep -q 'preinline-params' err.txt || bad "no message for a bad --preinline-params"
[ $fail -eq 0 ] && echo "gen_cs_preinline: ok"
exit $fail
