#!/usr/bin/env bash
# AMD's branch records, emulated on x86-64 (spgo emulate --branch-shape):
#  - brs (Zen3 BRS): 16 taken branches per sample, no call stacks, no
#    prediction bits, the raw event RETIRED_TAKEN_BRANCH_INSTRUCTIONS; spgo
#    gen equals llvm-profgen-19 on perf script's text byte for byte and is
#    >= 97% similar to the exact counts;
#  - amd-lbr (Zen4 LbrExtV2): 16 entries with speculation bits, among them
#    records of mispredicted paths (spec WRONG_PATH: a conditional branch
#    that fell through, recorded as taken on the wrong path).  spgo gen
#    leaves them out and says how many (no reversed range remains), and
#    the profile is >= 97% similar to the exact counts; without that, each
#    such record made a reversed range and a false taken branch.  perf 6.1
#    does not print the bits, so a text capture cannot tell them apart
#    (llvm-profgen-19 then reports ranges whose start is after their end).
#    create_llvm_prof (autofdo 0.19: its quipper ignores the bits as
#    "reserved") says "Bogus LBR data" on them: google/autofdo #256's
#    message, shown here, not asserted;
#  - shapes of the other ISA and --wrong-path off amd-lbr are refused.
# Before the shapes, spgo emulate had no --branch-shape.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 perf qemu-x86_64
scratch
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
src="$SPGO_SRC/examples/minivm/minivm.c"
clang-19 -O2 -g -fdebug-info-for-profiling -fno-pie -no-pie -o vm "$src" || exit 1

truth_sim() { # NAME DATA GT
	"$SPGO" gen --binary vm --ground-truth "$3" -o "$1.truth.txt" --format text --quiet || bad "$1: gen --ground-truth"
	local s; s=$(llvm-profdata-19 overlap --sample "$1.truth.txt" "$1.sp.txt" | similarity)
	echo "$1: similarity to the exact counts $s%"
	atleast "$s" 97 || bad "$1: similarity to the exact counts $s% < 97%"
}

# --- BRS ---------------------------------------------------------------------
"$SPGO" emulate --branch-shape brs -c 5003 -o brs.data --ground-truth brs.gt -- ./vm 1 >/dev/null 2>err ||
	{ cat err; bad "spgo emulate --branch-shape brs"; }
perf script -i brs.data -F event,ip,brstack --show-mmap-events > brs.script 2>/dev/null
nb=$(awk '/0x[0-9a-f]*\/0x/ { n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]*\/0x/) n++; if (n > m) m = n } END { print m + 0 }' brs.script)
[ "$nb" = 16 ] || bad "brs: branch stacks of $nb entries, not 16"
grep -q 'RETIRED_TAKEN_BRANCH_INSTRUCTIONS:u:' brs.script || bad "brs: not the taken-branch event"
grep -q '/P/' brs.script && bad "brs: records with a prediction bit"
perf script -i brs.data -F ip 2>/dev/null | awk 'NF > 1 { exit 1 }' || bad "brs: samples with call stacks"
perf script -i brs.data -F ip,brstack --show-mmap-events > brs.t 2>/dev/null
"$SPGO" gen --binary vm --perf-data brs.data -o brs.sp.txt --format text --quiet || bad "brs: spgo gen"
llvm-profgen-19 --binary=vm --perfscript=brs.t --format=text -o brs.pg.txt >pg.err 2>&1 || { cat pg.err; bad "brs: llvm-profgen-19"; }
cmp -s brs.pg.txt brs.sp.txt && echo "brs: spgo gen identical to llvm-profgen-19" ||
	{ bad "brs: spgo gen differs from llvm-profgen-19:"; diff brs.pg.txt brs.sp.txt | head; }
truth_sim brs brs.data brs.gt

# --- LbrExtV2, with records of mispredicted paths --------------------------------
"$SPGO" emulate --branch-shape amd-lbr -c 5003 -o amd.data --ground-truth amd.gt -- ./vm 1 >/dev/null 2>err ||
	{ cat err; bad "spgo emulate --branch-shape amd-lbr"; }
grep -q '/P/' <(perf script -i amd.data -F brstack 2>/dev/null | head -100) || bad "amd-lbr: no prediction bits"
"$SPGO" gen --binary vm --perf-data amd.data -o amd.sp.txt --format text 2>amd.err || { cat amd.err; bad "amd-lbr: spgo gen"; }
wp=$(sed -n 's/^spgo: gen: \([0-9]*\) branch records of mispredicted paths left out.*/\1/p' amd.err)
echo "amd-lbr: ${wp:-no} wrong-path records left out"
[ "${wp:-0}" -gt 100 ] || { cat amd.err; bad "amd-lbr: spgo gen does not say it left wrong-path records out"; }
grep -q 'dropped: 0 reversed' amd.err || { grep 'LBR mode' amd.err; bad "amd-lbr: reversed ranges remain"; }
truth_sim amd amd.data amd.gt
perf script -i amd.data -F ip,brstack --show-mmap-events > amd.t 2>/dev/null
llvm-profgen-19 --binary=vm --perfscript=amd.t --format=text -o amd.pg.txt >pg.err 2>&1 || bad "amd-lbr: llvm-profgen-19"
echo "amd-lbr, llvm-profgen-19 on perf script's text (no speculation bits): $(grep -o '[0-9.]*%([0-9]*/[0-9]*) of samples are from ranges that have range start after' pg.err || echo 'no warning')"
"$SPGO" emulate --branch-shape amd-lbr --wrong-path 0 -c 5003 -o amd0.data -- ./vm 1 >/dev/null 2>&1 || bad "--wrong-path 0"
"$SPGO" gen --binary vm --perf-data amd0.data -o amd0.sp.txt --format text 2>amd0.err || bad "amd-lbr --wrong-path 0: spgo gen"
grep -q 'mispredicted paths' amd0.err && bad "--wrong-path 0 still has wrong-path records"

if command -v create_llvm_prof >/dev/null; then
	# autofdo 0.19 reads DWARF 4 only.
	clang-19 -O2 -gdwarf-4 -fno-pie -no-pie -o vm4 "$src"
	for w in 32 0; do
		"$SPGO" emulate --branch-shape amd-lbr --wrong-path $w -c 5003 -o c$w.data -- ./vm4 1 >/dev/null 2>&1
		create_llvm_prof --binary=vm4 --profile=c$w.data --out=c$w.afdo --format=text --logtostderr >c$w.log 2>&1
		echo "create_llvm_prof, amd-lbr --wrong-path $w: $(grep -c 'Bogus LBR data' c$w.log) 'Bogus LBR data' warnings," \
			"$(grep -c 'Ignoring branch stack entry reserved bits' c$w.log) records' speculation bits ignored"
	done
fi

# --- refused ---------------------------------------------------------------------
"$SPGO" emulate --branch-shape brbe -o x.data -- ./vm 1 >/dev/null 2>x.err && bad "brbe records on an x86-64 program"
grep -q "brbe records are AArch64's" x.err || { cat x.err; bad "no clear error for brbe on x86-64"; }
"$SPGO" emulate --wrong-path 8 -o x.data -- ./vm 1 >/dev/null 2>x.err && bad "--wrong-path with Intel's LBR"
"$SPGO" emulate --branch-shape brs --lbr 32 -o x.data -- ./vm 1 >/dev/null 2>x.err && bad "--lbr 32 with BRS"
grep -q "at most 16" x.err || { cat x.err; bad "no clear error for --lbr 32 with brs"; }
[ -e x.data ] && bad "a refused emulation left its output"
[ $fail -eq 0 ] && echo "emulate_amd: ok"
exit $fail
