#!/usr/bin/env bash
# Newer llvm-profgen's build-id-keyed perf script addresses (issue 25;
# llvm-project #190863): any address -- a stack line, either end of an LBR
# entry -- may be "BUILDID:0xADDR".  Those of the binary's build-id (or of
# --filter-build-id's) are its addresses; those of another build-id are
# external.  spgo skipped such lines as no samples.
# Oracle: llvm-profgen-19 (which has not that form) on the same samples
# without the keys, byte for byte; the samples of another build-id change
# nothing.
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/handmade.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19 nm readelf
scratch
hm_build -fno-pie -no-pie -Wl,--build-id=sha1 || { bad "hm_build"; exit 1; }
bid=$(readelf -n hm | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || { bad "no build-id in hm"; exit 1; }
other=0123456789abcdef0123456789abcdef01234567
{ for i in 1 2 3; do hm_stack '\t'; hm_lbr; echo; done; } > plain.script
# key every address of the binary by its build-id, the libc frame by another
# key FILE ID: the address lines and LBR ends of FILE keyed by ID
key() {
	sed -E "s#0x([0-9a-f]+)/#$2:0x\\1/#g; s#^(\t *)(4[0-9a-f]{5})\$#\\1$2:0x\\2#; s#^(\t *)(7f[0-9a-f]+)\$#\\1$other:0x\\2#" "$1"
}
key plain.script "$bid" > keyed.script
grep -q "^ $bid:0x" keyed.script && grep -q "$other:0x7f" keyed.script || bad "the keyed text is not as expected"
# and samples of another build (the same addresses keyed by another id)
{ cat keyed.script; key plain.script "$other"; } > mixed.script
for mode in lbr cs; do
	if [ $mode = cs ]; then a=(--cs --cs-flat --no-preinline); p=(--csspgo-preinliner=false --gen-cs-nested-profile=false)
	else a=(); p=(--ignore-stack-samples); fi
	hm_profgen "pg.$mode" --perfscript=plain.script "${p[@]}" || bad "$mode: llvm-profgen-19"
	for f in keyed mixed; do
		"$SPGO" gen "${a[@]}" --quiet --binary hm --perf-script $f.script -o "sp.$f.$mode" \
			--format text 2>"err.$f.$mode" || { bad "$mode, $f: spgo gen fails: $(cat "err.$f.$mode")"; continue; }
		if cmp -s "pg.$mode" "sp.$f.$mode"; then
			echo "ok   $mode, $f: byte-identical to llvm-profgen-19's on the plain text"
		else
			bad "$mode, $f: differs from llvm-profgen-19's on the plain text"
			diff "pg.$mode" "sp.$f.$mode" | head -6
		fi
	done
done
"$SPGO" gen --quiet --binary hm --perf-script mixed.script --filter-build-id "$other" -o f.txt \
	--format text 2>/dev/null || bad "--filter-build-id of the other build fails"
cmp -s pg.lbr f.txt && echo "ok   --filter-build-id takes the other build's samples" ||
	bad "--filter-build-id: not the other build's samples"
# several captures: the filter holds for each.  The other build has one
# sample where this one has three, so a read that ignores the filter
# shows; two copies must equal the text twice over in one file.
{ hm_stack '\t'; hm_lbr; echo; } > one.script
{ cat keyed.script; key one.script "$other"; } > uneven.script
cat uneven.script uneven.script > twice.script
g() { "$SPGO" gen --quiet --binary hm -o "$1" --format text "${@:2}" 2>/dev/null || bad "gen ${*:2} fails"; }
g f1.txt --perf-script twice.script --filter-build-id "$other"
g f2.txt --perf-script uneven.script --perf-script uneven.script --filter-build-id "$other"
g u2.txt --perf-script uneven.script --perf-script uneven.script
cmp -s f1.txt u2.txt && bad "the uneven text does not tell the builds apart (the test cannot fail)"
cmp -s f1.txt f2.txt && echo "ok   --filter-build-id applies to each of several captures" ||
	{ bad "--filter-build-id: two captures not filtered as one"; diff f1.txt f2.txt | head -5; }
"$SPGO" gen --binary hm --perf-script keyed.script --filter-build-id "$other" -o none.txt \
	--format text 2>err.none && bad "--filter-build-id of a build with no samples succeeds"
grep -q 'no sample falls in it' err.none || { bad "--filter-build-id of no samples: unexpected error"; cat err.none; }
"$SPGO" gen --binary hm --perf-script keyed.script --filter-build-id xyz -o bad.txt 2>err.bad &&
	bad "--filter-build-id xyz is taken"
grep -q 'needs a build-id in hex' err.bad || { bad "--filter-build-id xyz: unexpected error"; cat err.bad; }
[ $fail -eq 0 ] && echo "inputs_build_id_keyed: ok"
exit $fail
