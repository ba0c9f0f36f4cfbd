#!/usr/bin/env bash
# Call stacks indented by spaces with no line before them (issue 25: inputs
# other projects make, re-indented or hand-written): llvm-profgen reads any
# run of addresses as a stack, wherever it starts.  spgo reads such a run as
# a stack when an LBR line (or an empty line) ends it, and as IP samples
# otherwise (perf's "%16lx" IP-only form).  Before, the stack at the head of
# the file, and one right after the LBR line of the sample before, were read
# as IP samples: under --cs that sample was lost.
# Oracle: llvm-profgen-19 on the same text, byte for byte (CS and not).
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/handmade.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19 nm
scratch
hm_build || { bad "hm_build"; exit 1; }

# three samples: the first at the head of the file, the second right after
# the first's LBR line, the third after an empty line
{ hm_stack ' '; hm_lbr; hm_stack '   '; hm_lbr; echo; hm_stack ' '; hm_lbr; } > head.script
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary hm --perf-script head.script -o cs.txt --format text ||
	bad "spgo gen --cs"
hm_profgen pg_cs.txt --perfscript=head.script --csspgo-preinliner=false \
	--gen-cs-nested-profile=false || bad "llvm-profgen-19 (CS)"
if cmp -s pg_cs.txt cs.txt; then
	echo "ok   --cs: byte-identical to llvm-profgen-19's"
else
	bad "--cs: differs from llvm-profgen-19's"; diff pg_cs.txt cs.txt | head -10
fi
grep -q '^\[main:2 @ driver:4 @ mix\]:[0-9]*:3$' cs.txt ||
	bad "--cs: mix in its context has not the 3 samples as head count"
"$SPGO" gen --quiet --binary hm --perf-script head.script -o lbr.txt --format text ||
	bad "spgo gen"
hm_profgen pg_lbr.txt --perfscript=head.script --ignore-stack-samples || bad "llvm-profgen-19"
cmp -s pg_lbr.txt lbr.txt && echo "ok   LBR: byte-identical to llvm-profgen-19's" ||
	{ bad "LBR: differs from llvm-profgen-19's"; diff pg_lbr.txt lbr.txt | head -10; }

# the same addresses with nothing after them are IP samples, one a line
hm_stack ' ' > ip.script
"$SPGO" gen --binary hm --perf-script ip.script -o ip.txt --format text 2>err.txt || bad "spgo gen (IP)"
grep -q 'gen: 4 samples, 3 in the binary' err.txt ||
	{ bad "IP-only lines: not 4 IP samples"; cat err.txt; }
[ $fail -eq 0 ] && echo "inputs_space_stack: ok"
exit $fail
