#!/usr/bin/env bash
# Non-CS LBR mode drops a range that crosses an unconditional branch --
# a direct jump, a call or a return before its end -- as llvm-profgen
# does (rangeCrossUncondBranch; issue 25: inputs other projects make).
# spgo dropped only ranges across a jump, so a range across a call (a
# duplicate LBR entry, as some Intel parts write) or a return was counted.
# Oracle: llvm-profgen-19 on the same text, byte for byte.
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/handmade.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19 nm
scratch
hm_build || { bad "hm_build"; exit 1; }
drv_entry=$(nm hm | awk '$3 == "driver" { sub(/^0+/, "", $1); print $1 }')
drv_end=$(hm_addr driver 'push.*%rbx')  # driver's prologue, past mix's ret
# Per sample (newest first): driver's loop branch twice (the range between
# the two crosses the call of mix), mix's loop branch, a branch from
# driver's prologue to mix's loop (the range from mix's loop to there
# crosses mix's return), mix's loop branch again (a range inside mix).
for i in 1 2 3; do
	printf ' 0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0\n' \
		"$drv_jne" "$drv_loop" "$drv_jne" "$drv_loop" "$mix_jne" "$mix_loop" \
		"$drv_end" "$mix_loop" "$mix_jne" "$mix_loop"
done > cross.script
"$SPGO" gen --binary hm --perf-script cross.script -o sp.txt --format text 2>err.txt ||
	{ bad "spgo gen"; cat err.txt; }
hm_profgen pg.txt --perfscript=cross.script || bad "llvm-profgen-19"
if cmp -s pg.txt sp.txt; then
	echo "ok   ranges across a call or a return: byte-identical to llvm-profgen-19's"
else
	bad "ranges across a call or a return: differ from llvm-profgen-19's"; diff pg.txt sp.txt | head -10
fi
grep -q 'LBR mode: 1 ranges used (count 3); .* 9 across a jump, call or return' err.txt ||
	{ bad "the statistics do not count 9 ranges dropped across a call or return"; grep 'LBR mode' err.txt; }
grep -q '^driver:' sp.txt && bad "driver has a profile (the range across the call was counted)"
[ $fail -eq 0 ] && echo "gen_lbr_crossing: ok"
exit $fail
