#!/usr/bin/env bash
# The layering of the stages (CONTRIBUTING.md, "The stages and what each
# may include"): scripts/check-layering.sh finds no #include in src/ or
# include/spgo/ that goes against the table, no library header outside the
# stages the table gives it to (no libelf outside src/binary), and no
# private *_impl.h header used by another stage.  The check itself is
# checked on a copy of the tree with planted includes (an upward one, a
# library one, another stage's private header, a folder with no row): each
# must be named with its file and line, and the check must fail.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO_SRC:?}"
need awk
check="$SPGO_SRC/scripts/check-layering.sh"
scratch

"$check" "$SPGO_SRC" > tree.txt 2>&1 || { cat tree.txt; bad "the tree goes against the layering table"; }
cat tree.txt

mkdir plant
cp -r "$SPGO_SRC/src" "$SPGO_SRC/include" "$SPGO_SRC/CONTRIBUTING.md" plant/
printf '#include "spgo/gen.h"\n' >> plant/src/binary/elf.c
line=$(wc -l < plant/src/binary/elf.c)
printf '#include <libelf.h>\n' >> plant/src/infer/cfg.c
lib_line=$(wc -l < plant/src/infer/cfg.c)
printf '#include "binary/binary_impl.h"\n' >> plant/src/gen/gen.c
mkdir plant/src/planted_stage   # a folder no row of the table names
if "$check" plant > planted.txt 2>&1; then
	bad "the check passed a tree with planted includes"
fi
cat planted.txt
grep -q "^src/binary/elf.c:$line: binary may not include \"spgo/gen.h\" (stage gen)" planted.txt ||
	bad "the upward include binary -> gen is not named with its file and line"
grep -q "^src/infer/cfg.c:$lib_line: infer may not include <libelf.h>" planted.txt ||
	bad "libelf outside src/binary is not named"
grep -q "^src/gen/gen.c:[0-9]*: gen may not include \"binary/binary_impl.h\"" planted.txt ||
	bad "another stage's private header is not named"
grep -q "^src/planted_stage: a folder of src/ with no row" planted.txt || bad "a folder with no row is not named"
exit $fail
