#!/usr/bin/env bash
# Two answers about code or samples outside what the debug information
# covers:
#  1. spgo symbolize of an address in a local function outside any compile
#     unit whose symbol follows an STT_FILE with an empty name (what ld and
#     `.file ""` in assembly emit) must print "??:0:0" as
#     llvm-symbolizer-19 --inlines --functions=linkage does, not ":0:0";
#     the file of a named STT_FILE (crtstuff.c) is still printed.
#  2. spgo gen --unsymbolized of an llvm-profgen unsymbolized profile (ranges
#     and branches, no sample counts) must not say "0.0% of the samples fell
#     in the binary": there are no samples to count; a perf.data input keeps
#     its share.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}"
need gcc llvm-symbolizer-19 readelf
scratch

# 1. symbolize
printf 'int g(int x) { return x * 3 + 1; }\n' > g.c
printf 'int g(int); void h(void);\nint main(int c, char **v) { (void)v; h(); return g(c); }\n' > m.c
printf '\t.file ""\n\t.text\n\t.type hl,@function\nhl:\n\tret\n\t.size hl,1\n' > h.s
printf '\t.globl h\n\t.type h,@function\nh:\n\tjmp hl\n\t.size h,2\n' >> h.s
printf '\t.section .note.GNU-stack,"",@progbits\n' >> h.s
gcc -O2 -c g.c -o g.o && gcc -O2 -g -c m.c -o m.o && gcc -c h.s -o h.o &&
  gcc -o prog m.o g.o h.o || { echo "FAIL: build"; exit 1; }
hl=0x$(readelf -sW prog | awk '$8 == "hl" { print $2 }')
dtc=0x$(readelf -sW prog | awk '$8 == "deregister_tm_clones" { print $2 }')
"$SPGO" symbolize --binary prog "$hl" "$dtc" > spgo.txt 2> err.txt || bad "symbolize failed: $(cat err.txt)"
llvm-symbolizer-19 --obj=prog --inlines --functions=linkage "$hl" "$dtc" > llvm.txt
diff spgo.txt llvm.txt > diff.txt || { bad "symbolize differs from llvm-symbolizer-19:"; cat diff.txt; }
grep -qx '??:0:0' spgo.txt || bad "no ??:0:0 for hl: $(cat spgo.txt)"
grep -q '^:0:0' spgo.txt && bad "an empty file name printed"
echo "symbolize: $(tr '\n' ' ' < spgo.txt)"

# 2. statistics of an llvm-profgen unsymbolized profile: the ranges and
#    branches of a small program (hand-made; offsets from the preferred base)
main=$(( 0x$(readelf -sW prog | awk '$8 == "main" { print $2 }') ))
msize=$(readelf -sW prog | awk '$8 == "main" { print $3 }')
last=$(objdump -d --start-address=$main --stop-address=$((main + msize)) prog |
  awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); a = $1 } END { print a }')
h=$(( 0x$(readelf -sW prog | awk '$8 == "h" { print $2 }') ))
# the range starts after main's call of h: a range across a call is
# dropped (llvm-profgen's rule), which would leave no sample at all
after=$(objdump -d --start-address=$main --stop-address=$((main + msize)) prog |
  awk '/^ +[0-9a-f]+:/ && seen { sub(":", "", $1); print $1; exit } /call/ { seen = 1 }')
main=$((0x$after))
# llvm-profgen's offsets: from the page of the first executable segment
base=$(( $(readelf -lW prog | awk '$1 == "LOAD" && / E / { print $3; exit }') & ~0xfff ))
main=$((main - base)) last=$(printf '%x' $((0x$last - base))) h=$((h - base))
# (a branch too: a file without any is refused, a matter of its own)
{ echo 1; printf '%x-%x:1000\n' "$main" $((0x$last)); echo 1; printf '%x->%x:10\n' $((0x$last)) "$h"; } > profgen.unsym
"$SPGO" gen --binary prog --unsymbolized profgen.unsym -o out.prof --format text 2> err.txt ||
  { bad "gen --unsymbolized failed:"; cat err.txt; }
grep -q "of the samples fell in the binary" err.txt &&
  bad "a share of samples said on input without sample counts: $(grep 'fell in' err.txt)"
grep -q "0 samples, 0 in the binary" err.txt && bad "'0 samples' said on input without sample counts"
grep -q "no sample counts" err.txt || { bad "no word that the input has no sample counts:"; cat err.txt; }
grep "spgo: gen:" err.txt | head -2
exit $fail
