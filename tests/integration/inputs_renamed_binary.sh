#!/usr/bin/env bash
# A --binary renamed since the recording (issue 25: inputs other projects
# make): perf script text whose mmap events name another file, neither side
# having a build-id.  llvm-profgen falls back to the binary's preferred
# base; spgo refused ("no sample falls in it").  Now spgo takes the
# addresses as the binary's own too, and a warning says so, naming the
# recorded file.  With a build-id on the binary the name still decides
# (refused): the text cannot show that the build is the same.
# Oracle: llvm-profgen-19 on the same text, byte for byte (LBR and --cs).
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/handmade.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19 nm
scratch
hm_build -fno-pie -no-pie -Wl,--build-id=none || { bad "hm_build"; exit 1; }
seg=$(printf '%x' $((0x$mix_entry & ~0xfff)))
{ echo "PERF_RECORD_MMAP2 4321/4321: [0x$seg(0x2000) @ 0x1000 fd:01 77 0]: r-xp /opt/app/recorded"
  for i in 1 2 3; do echo "4321 "; hm_stack '\t'; hm_lbr; echo; done; } > renamed.script
for mode in lbr cs; do
	if [ $mode = cs ]; then a=(--cs --cs-flat --no-preinline); p=(--csspgo-preinliner=false --gen-cs-nested-profile=false)
	else a=(); p=(--ignore-stack-samples); fi
	"$SPGO" gen "${a[@]}" --binary hm --perf-script renamed.script -o "sp.$mode" --format text \
		2>"err.$mode" || { bad "$mode: spgo gen refuses the renamed binary"; cat "err.$mode"; continue; }
	hm_profgen "pg.$mode" --perfscript=renamed.script "${p[@]}" || bad "$mode: llvm-profgen-19"
	if cmp -s "pg.$mode" "sp.$mode"; then
		echo "ok   $mode: byte-identical to llvm-profgen-19's"
	else
		bad "$mode: differs from llvm-profgen-19's"; diff "pg.$mode" "sp.$mode" | head -8
	fi
	grep -q "no mmap event names hm and neither it nor '/opt/app/recorded' .* taken as hm's own addresses, at its preferred base" \
		"err.$mode" || { bad "$mode: no warning saying what was assumed"; cat "err.$mode"; }
done
# the same text, a binary with a build-id: still refused
cp hm hm.nobid
hm_build -fno-pie -no-pie -Wl,--build-id=sha1 || { bad "hm_build (build-id)"; exit 1; }
if "$SPGO" gen --binary hm --perf-script renamed.script -o bid.txt --format text 2>err.bid; then
	bad "a binary with a build-id, recorded under another name, is taken"
else
	grep -q 'no sample falls in it' err.bid || { bad "build-id: unexpected error"; cat err.bid; }
fi
[ $fail -eq 0 ] && echo "inputs_renamed_binary: ok"
exit $fail
