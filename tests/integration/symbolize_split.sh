#!/usr/bin/env bash
# spgo symbolize on split DWARF (-gsplit-dwarf) against llvm-symbolizer-19.
# One binary of two compile units, tests/data/inline_demo.c and
# tests/data/switch_prog.c (its main renamed), built -O2 -g -gsplit-dwarf by
# clang-19 and gcc in DWARF 5 and DWARF 4 (the GNU extension), each object
# compiled in its own object directory (DW_AT_comp_dir).  On every
# instruction, the inline frames (plain and --verbose, as compare_frames in
# symbolize_llvm.sh) must equal llvm-symbolizer-19's:
#   - with the .dwo files in the object directory;
#   - packaged by llvm-dwp-19 into BINARY.dwp (found by default) and into
#     another file given with --dwp (llvm-symbolizer --dwp=), the object
#     directory moved away;
#   - the object directory moved and given with --dwo-dir (llvm-symbolizer
#     has no such option: the answer must be the one with .dwo in place);
#   - one .dwo missing: one warning naming the skeleton and the path looked
#     for, a zero exit, and for that unit what the skeleton gives (its line
#     table, the symbol names), as llvm-symbolizer prints it;
#   - a relative DW_AT_comp_dir (clang -fdebug-compilation-dir=.), from the
#     object directory as llvm-symbolizer reads it, and from elsewhere with
#     --dwo-dir.
# Bad input: a truncated or corrupt .dwp (index header, tables past the
# section, a contribution outside its section) and a truncated or corrupt
# .dwo, and a .dwo without .debug_str_offsets.dwo: exactly one line on
# stderr naming the file, a zero exit, and the skeleton's answer for the
# units it held.
#
# Known limits: llvm-dwp-19 hangs on gcc 12's DWARF 5 .dwo files (LLVM
# issue #203625, DW_FORM_implicit_const in its abbrev scan) and GNU dwp
# crashes on them, so gcc DWARF 5 is tested without a .dwp.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 gcc llvm-symbolizer-19 llvm-dwp-19 llvm-readelf-19
scratch
data="$SPGO_SRC/tests/data"

# build NAME CC FLAGS...: obj-NAME/{inline_demo,switch_prog}.{o,dwo}, NAME
build() {
	local name=$1 cc=$2; shift 2
	mkdir -p "obj-$name"
	(cd "obj-$name" &&
		$cc -O2 -g -gsplit-dwarf "$@" -c "$data/inline_demo.c" -o inline_demo.o &&
		$cc -O2 -g -gsplit-dwarf "$@" -Dmain=switch_main -c "$data/switch_prog.c" -o switch_prog.o &&
		$cc -o "../$name" inline_demo.o switch_prog.o) || { bad "$name: build failed"; return 1; }
}

SYM="llvm-symbolizer-19 --inlines --functions=linkage"
strip_v() { grep -v -e '^  Function start filename:' -e '^  Function start address:'; }

# compare_frames OBJ NAME SPGO-OPTIONS...: spgo vs llvm-symbolizer-19 (with
# $LLVM_EXTRA) on every instruction address of OBJ; keeps NAME.llvm{,-v}.
compare_frames() {
	local obj=$1 name=$2; shift 2
	"$SPGO" symbolize --binary "$obj" --all-instructions | awk '{print $1}' > "$name.addrs"
	local n; n=$(wc -l < "$name.addrs")
	[ "$n" -gt 100 ] || { bad "$name: only $n instructions"; return; }
	"$SPGO" symbolize --binary "$obj" "$@" < "$name.addrs" > "$name.spgo" 2> "$name.err" ||
		bad "$name: spgo symbolize failed: $(cat "$name.err")"
	$SYM --obj="$obj" ${LLVM_EXTRA:-} < "$name.addrs" > "$name.llvm"
	cmp -s "$name.spgo" "$name.llvm" ||
		{ bad "$name: frames differ from llvm-symbolizer-19:"; diff "$name.spgo" "$name.llvm" | head -20; }
	"$SPGO" symbolize --verbose --binary "$obj" "$@" < "$name.addrs" > "$name.spgo-v" 2>/dev/null
	$SYM --verbose --obj="$obj" ${LLVM_EXTRA:-} < "$name.addrs" | strip_v > "$name.llvm-v"
	cmp -s "$name.spgo-v" "$name.llvm-v" ||
		{ bad "$name: --verbose differs from llvm-symbolizer-19:"; diff "$name.spgo-v" "$name.llvm-v" | head -20; }
	local frames; frames=$(grep -c ':[0-9]*:[0-9]*$' "$name.spgo")
	echo "$name: $n addresses, $frames frames, equal to llvm-symbolizer-19"
}

# compare_ref OBJ REF NAME SPGO-OPTIONS...: spgo's answers on REF's
# addresses must be REF.llvm{,-v} (llvm-symbolizer's, saved earlier).
compare_ref() {
	local obj=$1 ref=$2 name=$3; shift 3
	"$SPGO" symbolize --binary "$obj" "$@" < "$ref.addrs" > "$name.spgo" 2> "$name.err" ||
		bad "$name: spgo symbolize failed: $(cat "$name.err")"
	cmp -s "$name.spgo" "$ref.llvm" ||
		{ bad "$name: frames differ from $ref's:"; diff "$name.spgo" "$ref.llvm" | head -20; }
	"$SPGO" symbolize --verbose --binary "$obj" "$@" < "$ref.addrs" 2>/dev/null > "$name.spgo-v"
	cmp -s "$name.spgo-v" "$ref.llvm-v" ||
		{ bad "$name: --verbose differs from $ref's:"; diff "$name.spgo-v" "$ref.llvm-v" | head -20; }
	[ -s "$name.err" ] && bad "$name: unexpected messages: $(cat "$name.err")"
	echo "$name: equal to llvm-symbolizer-19 with the .dwo files in place"
}

# one_line NAME PATTERN: NAME.err is exactly one line matching PATTERN.
one_line() {
	if [ "$(wc -l < "$1.err")" -ne 1 ] || ! grep -q -- "$2" "$1.err"; then
		bad "$1: want one message matching '$2', got:"; cat "$1.err"
	else
		echo "$1: $(cat "$1.err")"
	fi
}

build clang5 clang-19 -gdwarf-5
build clang4 clang-19 -gdwarf-4
build gcc5 gcc -gdwarf-5
build gcc4 gcc -gdwarf-4
for b in clang5 clang4 gcc5 gcc4; do
	[ -x "$b" ] || continue
	# .dwo files where the skeletons say.
	compare_frames "$b" "$b-dwo"

	# The object directory moved: found with --dwo-dir only.
	mv "obj-$b" "moved-$b"
	compare_ref "$b" "$b-dwo" "$b-dwo-dir" --dwo-dir "$tmp/moved-$b"

	# One .dwo missing: one warning; that unit as the skeleton gives it.
	mkdir "obj-$b" && cp "moved-$b/inline_demo.dwo" "obj-$b/"
	compare_frames "$b" "$b-missing"
	one_line "$b-missing" "skeleton CU .*switch_prog.dwo.*$tmp/obj-$b/switch_prog.dwo (No such file"
	cmp -s "$b-missing.llvm-v" "$b-dwo.llvm-v" && bad "$b-missing: no different from all .dwo files there"
	rm -r "obj-$b"

	# Packaged: BINARY.dwp by default, or --dwp FILE.
	[ "$b" = gcc5 ] && { echo "$b: no .dwp (llvm-dwp-19 hangs on gcc's DWARF 5, LLVM #203625)"; continue; }
	(cd "moved-$b" && timeout 120 llvm-dwp-19 inline_demo.dwo switch_prog.dwo -o "../$b.dwp") ||
		{ bad "$b: llvm-dwp-19 failed"; continue; }
	compare_frames "$b" "$b-dwp"
	cmp -s "$b-dwp.llvm" "$b-dwo.llvm" || bad "$b-dwp: llvm-symbolizer-19 itself differs with the .dwp"
	mv "$b.dwp" "$b-pkg.dwp"
	LLVM_EXTRA="--dwp=$tmp/$b-pkg.dwp" compare_frames "$b" "$b-dwp-opt" --dwp "$b-pkg.dwp"
	cmp -s "$b-dwp-opt.llvm" "$b-dwo.llvm" || bad "$b-dwp-opt: llvm-symbolizer-19 itself differs with --dwp"
done

# The test can fail: inline frames from the header and decl lines of
# switch_prog.c's functions (only the split units have them).
for r in clang5-dwo clang4-dwp gcc5-dwo gcc4-dwp-opt; do
	grep -q 'inline_demo.h:[0-9]*:[0-9]*$' $r.spgo || bad "$r: no frame in inline_demo.h"
	grep -q '^  Function start line: 14$' $r.spgo-v || bad "$r: no decl line of switch_prog.c's dense()"
done

# A relative DW_AT_comp_dir: llvm-symbolizer finds ./inline_demo.dwo from
# the object directory; spgo too, and from elsewhere with --dwo-dir.
build rel clang-19 -gdwarf-5 -fdebug-compilation-dir=.
if [ -x rel ]; then
	(fail=0 && cd obj-rel && compare_frames ../rel rel-dwo && exit $fail) || bad "relative comp_dir"
	mv obj-rel/rel-dwo.* . 2>/dev/null
	compare_ref rel rel-dwo rel-dwo-dir --dwo-dir obj-rel
	grep -q 'inline_demo.h:' rel-dwo.spgo || bad "rel: no frame in inline_demo.h (the .dwo was not read)"
fi

# ---- bad input ----
# The answer without any split unit: what a corrupt package gives.
mv "moved-clang5" "hidden-clang5"
compare_frames clang5 clang5-none
# sect FILE NAME: the file offset and size of section NAME.
sect() {
	local off size
	read -r off size < <(llvm-readelf-19 -S -W "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk -v n="$2" '$1 == n {print $4, $5}')
	echo $((16#$off)) $((16#$size))
}
# expect_bad NAME PATTERN DWP: one message naming DWP and matching PATTERN,
# exit 0, the skeletons' answer.
expect_bad() {
	local name=$1 pat=$2 dwp=$3
	"$SPGO" symbolize --binary clang5 --dwp "$dwp" < clang5-none.addrs > "$name.spgo" 2> "$name.err"
	local rc=$?
	[ $rc -eq 0 ] || bad "$name: exit $rc"
	one_line "$name" "$dwp.*$pat"
	cmp -s "$name.spgo" clang5-none.llvm || { bad "$name: not the skeletons' answer"; diff "$name.spgo" clang5-none.llvm | head; }
}
if [ -f clang5-pkg.dwp ]; then
	read -r ioff isize < <(sect clang5-pkg.dwp .debug_cu_index)
	read -r doff dsize < <(sect clang5-pkg.dwp .debug_info.dwo)
	head -c $((ioff + isize / 2)) clang5-pkg.dwp > trunc.dwp
	expect_bad dwp-truncated "truncated" trunc.dwp
	cp clang5-pkg.dwp version.dwp && printf '\x07\x00' | dd of=version.dwp bs=1 seek="$ioff" conv=notrunc status=none
	expect_bad dwp-version "unknown .debug_cu_index version" version.dwp
	cp clang5-pkg.dwp units.dwp && printf '\xff\xff\xff\x00' | dd of=units.dwp bs=1 seek=$((ioff + 8)) conv=notrunc status=none
	expect_bad dwp-units "tables run past the section" units.dwp
	# The first unit's info offset (the first cell after the hash table and
	# the column ids) pointed past .debug_info.dwo.
	nslots=$(od -An -tu4 -j $((ioff + 12)) -N4 clang5-pkg.dwp | tr -d ' ')
	ncols=$(od -An -tu4 -j $((ioff + 4)) -N4 clang5-pkg.dwp | tr -d ' ')
	cp clang5-pkg.dwp contrib.dwp
	printf '\x00\x00\x00\x7f' | dd of=contrib.dwp bs=1 seek=$((ioff + 16 + nslots * 12 + ncols * 4)) conv=notrunc status=none
	"$SPGO" symbolize --binary clang5 --dwp contrib.dwp < clang5-none.addrs > dwp-contrib.spgo 2> dwp-contrib.err
	one_line dwp-contrib "contrib.dwp: corrupt split DWARF (contribution outside its section"
	# DIEs overwritten with 0xff: a corrupt unit, the other still read.
	cp clang5-pkg.dwp dies.dwp
	head -c 64 /dev/zero | tr '\0' '\377' | dd of=dies.dwp bs=1 seek=$((doff + 40)) conv=notrunc status=none
	"$SPGO" symbolize --verbose --binary clang5 --dwp dies.dwp < clang5-none.addrs > dwp-dies.spgo 2> dwp-dies.err
	one_line dwp-dies "dies.dwp: corrupt split DWARF"
	grep -q '^  Function start line: 14$' dwp-dies.spgo || bad "dwp-dies: the intact unit (switch_prog.c) was not read"
	"$SPGO" symbolize --binary clang5 --dwp /nonexistent.dwp < clang5-none.addrs > dwp-none.spgo 2> dwp-none.err
	one_line dwp-none "/nonexistent.dwp: cannot use the DWARF package: No such file"
fi
# A truncated and a corrupt .dwo.
mkdir -p bad/a bad/b
head -c 1000 hidden-clang5/inline_demo.dwo > bad/a/inline_demo.dwo
cp hidden-clang5/switch_prog.dwo bad/a/
"$SPGO" symbolize --binary clang5 --dwo-dir bad/a < clang5-none.addrs > dwo-trunc.spgo 2> dwo-trunc.err
[ $? -eq 0 ] || bad "dwo-trunc: non-zero exit"
one_line dwo-trunc "bad/a/inline_demo.dwo (truncated"
read -r doff dsize < <(sect hidden-clang5/inline_demo.dwo .debug_info.dwo)
cp hidden-clang5/inline_demo.dwo hidden-clang5/switch_prog.dwo bad/b/
head -c 64 /dev/zero | tr '\0' '\377' | dd of=bad/b/inline_demo.dwo bs=1 seek=$((doff + 30)) conv=notrunc status=none
"$SPGO" symbolize --verbose --binary clang5 --dwo-dir bad/b < clang5-none.addrs > dwo-bad.spgo 2> dwo-bad.err
[ $? -eq 0 ] || bad "dwo-bad: non-zero exit"
one_line dwo-bad "bad/b/inline_demo.dwo: corrupt split DWARF"
grep -q '^  Function start line: 14$' dwo-bad.spgo || bad "dwo-bad: the intact unit (switch_prog.c) was not read"
# A .dwo without .debug_str_offsets.dwo: its string indexes lead nowhere.
# (The reader once did arithmetic on the absent section's NULL pointer,
# which clang's UBSan stops on; the message names what is missing.)
mkdir -p bad/c
cp hidden-clang5/switch_prog.dwo bad/c/
objcopy --remove-section .debug_str_offsets.dwo hidden-clang5/inline_demo.dwo bad/c/inline_demo.dwo ||
	bad "objcopy --remove-section .debug_str_offsets.dwo failed"
"$SPGO" symbolize --verbose --binary clang5 --dwo-dir bad/c < clang5-none.addrs > dwo-nostr.spgo 2> dwo-nostr.err
[ $? -eq 0 ] || bad "dwo-nostr: non-zero exit"
one_line dwo-nostr "bad/c/inline_demo.dwo: corrupt split DWARF (string index but no .debug_str_offsets.dwo"
grep -q '^  Function start line: 14$' dwo-nostr.spgo || bad "dwo-nostr: the intact unit (switch_prog.c) was not read"
exit $fail
