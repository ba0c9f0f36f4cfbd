#!/usr/bin/env bash
# spgo gen --format order / order-ld: a function order by call-chain
# clustering from the LBR calls of minivm under `spgo emulate`.
#  - every line is a function of the binary, each once; the interpreter's
#    hot chain (next, called from every parser function) is in it;
#  - lld (clang-19 -ffunction-sections -fuse-ld=lld, --symbol-ordering-file
#    with --fatal-warnings: no warning) lays the functions out in that order
#    (nm -n);
#  - GNU ld (gcc -ffunction-sections, -Wl,-T,order.ld: the script INSERTs an
#    output section before .text) does too, for the functions gcc's build
#    has, and the program computes the same;
#  - IP samples give an order too (by density; no call edges).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 ld.lld-19 gcc qemu-x86_64
scratch
src="$SPGO_SRC/examples/minivm/minivm.c"
clang-19 -O2 -g -fno-pie -no-pie -ffunction-sections -o minivm "$src"
"$SPGO" emulate -c 2000 --seed 7 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate"; exit 1; }
"$SPGO" gen --binary minivm --perf-data e.data --format order -o order.txt --quiet || bad "spgo gen --format order"
"$SPGO" gen --binary minivm --perf-data e.data --format order-ld -o order.ld --quiet || bad "spgo gen --format order-ld"
n=$(wc -l < order.txt)
[ "$n" -ge 5 ] || bad "only $n functions ordered"
[ "$(sort order.txt | uniq -d)" = "" ] || bad "a function listed twice"
nm minivm | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u > funcs.txt
[ "$(sort order.txt | comm -23 - funcs.txt)" = "" ] || bad "not functions of the binary: $(sort order.txt | comm -23 - funcs.txt)"
grep -qx next order.txt || bad "the hot function next is not in the order"
grep -q 'INSERT BEFORE .text;' order.ld || bad "no INSERT in the GNU ld script"

# nm -n order of the listed functions present in a binary = the file's order.
follows() { # BINARY ORDER-FILE
  nm -n "$1" | awk '$2 ~ /^[tT]$/ { print $3 }' > nm.txt
  grep -xFf nm.txt "$2" > want.txt
  grep -xFf want.txt nm.txt | awk '!seen[$0]++' > got.txt
  [ -s want.txt ] && cmp -s want.txt got.txt
}
clang-19 -O2 -ffunction-sections -fuse-ld=lld -Wl,--symbol-ordering-file=order.txt -Wl,--fatal-warnings \
  -o m-lld "$src" 2>lld.err || { cat lld.err; bad "lld rejects the order (or warns)"; }
follows m-lld order.txt && echo "lld: nm -n follows the $n-function order" || bad "lld's layout does not follow the order"
gcc -O2 -ffunction-sections -o m-ld "$src" -Wl,-T,order.ld -Wl,--fatal-warnings 2>ld.err ||
  { cat ld.err; bad "GNU ld rejects the script"; }
follows m-ld order.txt && echo "GNU ld: nm -n follows the order ($(wc -l < want.txt) of gcc's functions)" ||
  bad "GNU ld's layout does not follow the order"
[ "$(./m-ld 1)" = "$(./minivm 1)" ] || bad "the GNU ld build computes something else"

"$SPGO" gen --binary minivm --perf-data e.data --mode ip --format order -o ip.txt --quiet || bad "spgo gen --mode ip --format order"
grep -qx next ip.txt || bad "IP order misses next"
[ $fail -eq 0 ] && echo "layout_order: ok"
exit $fail
