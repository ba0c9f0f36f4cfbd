#!/usr/bin/env bash
# spgo gen --format propeller: Propeller's cluster profile and symbol order
# from the LBR of minivm (clang-19 -O2 -fbasic-block-sections=labels) under
# `spgo emulate`, given back to clang-19 and lld:
#  - clang-19 -fbasic-block-sections=list=OUT and lld
#    --symbol-ordering-file=OUT.order with -Werror and --fatal-warnings:
#    neither warns, and the program computes the same;
#  - the file is version 1 (v1, [m FILE,] f NAME, c IDS), each function once, its
#    cluster beginning with the entry block 0; the hot interpreter
#    function `next` is in it;
#  - the rebuilt binary lays out each function's hot blocks in the order
#    asked: the first range of its BB address map (clang-19 also writes the
#    map with -fbasic-block-address-map) lists exactly the cluster's ids,
#    and cold blocks go to NAME.cold;
#  - nm -n follows OUT.order;
#  - static functions of one name in two files: each its cluster after an
#    `m FILE` line, laid out as asked; the name once in the order, no
#    warning from lld;
#  - the inputs Propeller cannot use get one-line errors naming the flag:
#    a binary without the BB address map, and IP samples (--mode ip, and
#    a perf capture without branch stacks);
#    `-o -` is refused (two files).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 ld.lld-19 llvm-readobj-19 qemu-x86_64
scratch
src="$SPGO_SRC/examples/minivm/minivm.c"
clang-19 -O2 -g -fno-pie -no-pie -fbasic-block-sections=labels -o minivm "$src"
"$SPGO" emulate -c 2000 --seed 7 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate"; exit 1; }
"$SPGO" gen --binary minivm --perf-data e.data --format propeller -o prop.txt 2>gen.err ||
  { cat gen.err; bad "spgo gen --format propeller"; exit 1; }
cat gen.err
[ -s prop.txt ] && [ -s prop.txt.order ] || { bad "no cluster profile or no symbol order"; exit 1; }

# The format clang-19 reads.
[ "$(head -1 prop.txt)" = v1 ] || bad "first line is not v1"
[ "$(grep -vcE '^(v1|f [A-Za-z_][A-Za-z0-9_.]*|c 0( [0-9]+)*)$' prop.txt)" = 0 ] ||
  bad "lines clang does not expect: $(grep -vE '^(v1|f [A-Za-z_][A-Za-z0-9_.]*|c 0( [0-9]+)*)$' prop.txt | head -3)"
[ "$(grep '^f ' prop.txt | sort | uniq -d)" = "" ] || bad "a function listed twice"
grep -qx 'f next' prop.txt || bad "the hot function next has no cluster"
[ "$(grep -c '^f ' prop.txt)" = "$(grep -c '^c ' prop.txt)" ] || bad "not one cluster per function"

# Rebuild with both files: no warning from clang or lld, same output.
clang-19 -O2 -g -fno-pie -no-pie -Werror -fbasic-block-sections=list=prop.txt -fbasic-block-address-map \
  -ffunction-sections -fuse-ld=lld -Wl,--symbol-ordering-file=prop.txt.order -Wl,--fatal-warnings \
  -o laid "$src" 2>build.err || { cat build.err; bad "clang-19/lld reject the profile"; }
[ -s build.err ] && { cat build.err; bad "clang-19 or lld printed something"; }
[ "$(./laid 1)" = "$(./minivm 1)" ] || bad "the laid-out build computes something else"

# Each function's hot part (its first range) holds the cluster's blocks in
# the cluster's order.
llvm-readobj-19 --bb-addr-map laid | awk '
  /^ *Name: / { name = $2; r = 0 }
  /Base Address:/ { r++ }
  /^ *ID: / && r == 1 { ids[name] = ids[name] " " $2 }
  END { for (n in ids) print "f " n; for (n in ids) print n ":" ids[n] }' > laid.map
checked=0
while read -r tag name; do
  [ "$tag" = f ] || continue
  want=$(grep -A1 -x "f $name" prop.txt | sed -n 2p | sed 's/^c //')
  got=$(grep "^$name: " laid.map | sed "s/^$name: //")
  [ "$want" = "$got" ] || bad "$name: hot blocks laid out as [$got], asked [$want]"
  checked=$((checked + 1))
done < prop.txt
[ $checked -ge 5 ] || bad "only $checked functions checked"
ncold=$(grep '^f ' prop.txt | sed 's/^f //; s/$/.cold/' | grep -cxFf - <(nm laid | awk '{ print $3 }'))
[ "$ncold" -ge 1 ] || bad "no NAME.cold part (the cold blocks were not split off)"
echo "clusters: $checked functions laid out as asked, $ncold with a cold part"

# nm -n order of the ordered functions = OUT.order.
nm -n laid | awk '$2 ~ /^[tT]$/ { print $3 }' > nm.txt
grep -xFf nm.txt prop.txt.order > want.txt
grep -xFf want.txt nm.txt | awk '!seen[$0]++' > got.txt
[ -s want.txt ] && cmp -s want.txt got.txt && echo "lld: nm -n follows the $(wc -l < want.txt)-function order" ||
  bad "lld's function layout does not follow prop.txt.order"

# Two static functions of one name in two files: each its cluster after an
# `m FILE` line (clang applies `f NAME` in every module otherwise), both
# laid out as asked; the name once in the order (lld warns about a name
# twice).
cat > a.c <<'C'
static int __attribute__((noinline)) helper(int x) { int s = 0; for (int i = 0; i < x; i++) s += (i & 3) ? i : -i; return s; }
int fa(int x) { return helper(x); }
C
cat > b.c <<'C'
static int __attribute__((noinline)) helper(int x) { int s = 1; for (int i = 0; i < x; i++) s ^= (i % 5) ? i * 3 : i; return s; }
int fb(int x) { return helper(x); }
C
cat > m.c <<'C'
#include <stdio.h>
int fa(int), fb(int);
int main(int argc, char **argv) { long t = 0; (void)argv; for (int i = 0; i < 20000; i++) t += fa(i % 300 + argc) + fb(i % 200); printf("%ld\n", t); return 0; }
C
F="-O2 -g -fno-pie -no-pie -ffunction-sections"
clang-19 $F -fbasic-block-sections=labels -o two a.c b.c m.c
"$SPGO" emulate -c 500 --seed 3 -o two.data -- ./two >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate (two files)"; }
"$SPGO" gen --binary two --perf-data two.data --format propeller -o two.prop --quiet || bad "spgo gen (two files)"
[ "$(grep -A1 -x 'm a.c' two.prop | sed -n 2p)" = "f helper" ] &&
  [ "$(grep -A1 -x 'm b.c' two.prop | sed -n 2p)" = "f helper" ] ||
  { cat two.prop; bad "the two helpers do not each have an m line naming their file"; }
grep -qx 'f main' two.prop || bad "main has no cluster (two files)"
[ "$(grep -cx helper two.prop.order)" = 1 ] || bad "helper is not named exactly once in the order: $(tr '\n' ' ' < two.prop.order)"
clang-19 $F -Werror -fbasic-block-sections=list=two.prop -fuse-ld=lld -Wl,--symbol-ordering-file=two.prop.order \
  -Wl,--fatal-warnings -o two-laid a.c b.c m.c 2>build.err || { cat build.err; bad "clang-19/lld reject the two-file profile"; }
[ "$(./two-laid)" = "$(./two)" ] || bad "the two-file laid-out build computes something else"
clang-19 $F -fbasic-block-sections=list=two.prop -fbasic-block-address-map -o two-map a.c b.c m.c
want=$(awk '/^f helper$/ { getline; sub(/^c /, ""); print }' two.prop)
got=$(llvm-readobj-19 --bb-addr-map two-map | awk '
  /^ *Name: / { name = $2; r = 0; if (name == "helper") printf "%s", (n++ ? "\n" : "") }
  /Base Address:/ { r++ }
  /^ *ID: / && r == 1 && name == "helper" { printf "%s%s", (first[n]++ ? " " : ""), $2 }')
[ "$want" = "$got" ] || bad "the helpers are laid out as [$got], asked [$want]"

# Inputs Propeller cannot use.
clang-19 -O2 -g -fno-pie -no-pie -o plain "$src"
if "$SPGO" gen --binary plain --perf-data e.data --format propeller -o p2.txt 2>err.txt; then
  bad "a binary without the BB address map was accepted"
else
  [ "$(wc -l < err.txt)" = 1 ] && grep -q -- '-fbasic-block-sections=labels' err.txt &&
    grep -q -- '-fbasic-block-address-map' err.txt || { cat err.txt; bad "no one-line error naming the flags"; }
fi
[ -e p2.txt ] || [ -e p2.txt.order ] && bad "an output was left after the error"
if "$SPGO" gen --binary minivm --perf-data e.data --mode ip --format propeller -o p3.txt 2>err.txt; then
  bad "IP samples were accepted"
else
  [ "$(wc -l < err.txt)" = 1 ] && grep -q 'Propeller needs LBR' err.txt || { cat err.txt; bad "no error saying LBR is needed"; }
fi
# A capture without branch stacks (perf's IP samples), no --mode given: the
# same one-line error, and no output left.
if command -v perf > /dev/null && perf record -q -e cpu-clock:u -o ip.data -- ./minivm 1 > /dev/null 2>&1 &&
   [ -s ip.data ]; then
  if "$SPGO" gen --binary minivm --perf-data ip.data --format propeller -o p4.txt 2>err.txt; then
    bad "a capture without branch stacks was accepted"
  else
    [ "$(wc -l < err.txt)" = 1 ] && grep -q 'no branch stacks.*Propeller needs LBR.*perf record -b' err.txt ||
      { cat err.txt; bad "no one-line error saying the capture needs LBR"; }
  fi
  [ -e p4.txt ] || [ -e p4.txt.order ] && bad "an output was left after the error on IP samples"
else
  echo "layout_propeller: perf cannot record here: the IP-capture case skipped"
fi
"$SPGO" gen --binary minivm --perf-data e.data --format propeller -o - > out.txt 2>err.txt &&
  bad "-o - accepted (two files are written)"
grep -q 'writes two files' err.txt && [ ! -s out.txt ] || { cat err.txt; bad "no error for -o -"; }
[ $fail -eq 0 ] && echo "layout_propeller: ok"
exit $fail
