#!/usr/bin/env bash
# llvm-profgen's unsymbolized text in the forms other projects feed
# (issue 25): spgo gen --unsymbolized reads them as llvm-profgen-19
# --unsymbolized-profile does, byte for byte.
#  - ranges and no branch (the branch section "0"): ranges alone are
#    samples (spgo said "no samples in any known file");
#  - --use-offset=0: virtual addresses instead of offsets from the
#    preferred base (spgo read them as offsets: "does not match"); told
#    from the offsets by which reading puts the ends on instructions, and
#    said in a warning; non-PIE and PIE.
. "$(dirname "$0")/lib/common.sh" || exit 1
. "$(dirname "$0")/lib/handmade.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19 nm
scratch
# same NAME SPGO-ARGS -- PROFGEN-ARGS: both profiles of ./hm, compared
same() {
	local name=$1 a=() b=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	"$SPGO" gen --binary hm "${a[@]}" -o "sp.$name" --format text 2>"err.$name" ||
		{ bad "$name: spgo gen fails: $(cat "err.$name")"; return; }
	hm_profgen "pg.$name" "$@" || { bad "$name: llvm-profgen-19 fails"; return; }
	if cmp -s "pg.$name" "sp.$name"; then
		echo "ok   $name: byte-identical to llvm-profgen-19's"
	else
		bad "$name: differs from llvm-profgen-19's"; diff "pg.$name" "sp.$name" | head -8
	fi
}
for pie in no yes; do
	if [ $pie = no ]; then hm_build || { bad "hm_build"; exit 1; }
	else hm_build -fpie -pie || { bad "hm_build (PIE)"; exit 1; }; fi
	{ for i in 1 2 3; do hm_stack '\t'; hm_lbr; echo; done; } > lbr.script
	hm_profgen off.unsym --perfscript=lbr.script --ignore-stack-samples --skip-symbolization ||
		bad "llvm-profgen-19 --skip-symbolization"
	hm_profgen abs.unsym --perfscript=lbr.script --ignore-stack-samples --skip-symbolization \
		--use-offset=0 || bad "llvm-profgen-19 --skip-symbolization --use-offset=0"
	# the ranges alone: the branch count made 0, the branches dropped
	awk 'NR == 1 { n = $1 } NR <= n + 1 { print } NR == n + 2 { print 0; exit }' off.unsym > ranges.unsym
	same "offsets (PIE $pie)" --unsymbolized off.unsym -- --unsymbolized-profile=off.unsym
	same "ranges only (PIE $pie)" --unsymbolized ranges.unsym -- --unsymbolized-profile=ranges.unsym
	same "--use-offset=0 (PIE $pie)" --unsymbolized abs.unsym -- --unsymbolized-profile=abs.unsym \
		--use-offset=0
	grep -q 'read as virtual addresses, not offsets' "err.--use-offset=0 (PIE $pie)" ||
		bad "--use-offset=0 (PIE $pie): no warning that the addresses were read as virtual"
	grep -q 'read as virtual addresses' "err.offsets (PIE $pie)" &&
		bad "offsets (PIE $pie): read as virtual addresses"
done
[ $fail -eq 0 ] && echo "unsym_profgen_forms: ok"
exit $fail
