#!/usr/bin/env bash
# --cs, a sample whose call stack has no frame inside the binary (issue 25:
# inputs other projects make): its leaf is in a library and the frame
# chain broke there, before reaching the program.  llvm-profgen still
# unwinds its LBR from an external root and keeps the contexts inside the
# binary (here [finish] and [finish:N @ mix]); spgo dropped the sample,
# LBR and all, uncounted (alone: "the samples have no call stacks").
# Oracle: llvm-profgen-19 on the same text, byte for byte.
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/handmade.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19 nm
scratch
hm_build || { bad "hm_build"; exit 1; }

# two samples in printf (stack: two libc frames) and one in mix (a stack
# through driver and main)
{ for i in 1 2; do
	printf '\t%16s\n\t%16s\n' 7f0000005000 7f0000006000; hm_lbr_printf; echo
  done
  hm_stack '\t'; hm_lbr; echo; } > ext.script
"$SPGO" gen --cs --cs-flat --no-preinline --binary hm --perf-script ext.script -o cs.txt --format text 2>err.txt ||
	{ bad "spgo gen --cs"; cat err.txt; }
hm_profgen pg.txt --perfscript=ext.script --csspgo-preinliner=false \
	--gen-cs-nested-profile=false || bad "llvm-profgen-19"
if cmp -s pg.txt cs.txt; then
	echo "ok   stacks without a frame in the binary: byte-identical to llvm-profgen-19's"
else
	bad "stacks without a frame in the binary: differ from llvm-profgen-19's"
	diff pg.txt cs.txt | head -10
fi
grep -q '^\[finish:[0-9]* @ mix\]:[0-9]*:2$' cs.txt ||
	bad "no context of mix called by finish with the 2 samples' head count"
grep -q 'gen --cs: 3 stack samples, 3 unwound' err.txt ||
	{ bad "the statistics do not count the 3 samples unwound"; grep 'stack samples' err.txt; }
[ $fail -eq 0 ] && echo "gen_cs_external_root: ok"
exit $fail
