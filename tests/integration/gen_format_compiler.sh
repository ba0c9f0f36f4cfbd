#!/usr/bin/env bash
# The default output format follows the compiler (DW_AT_producer of the
# compile units, weighed by their code): a gcc-built binary gets gcov, said
# on stderr ("binary built by gcc: writing gcov (--format to choose)"); a
# clang-built one extbinary.  A format the compiler does not read is warned
# about with the producer: --format gcov on a clang binary, --format
# extbinary on a gcc binary (text, a form for reading too, is not); the
# options of extbinary alone (--use-md5) keep extbinary the default.  (Before: extbinary for every binary,
# which gcc refuses with "AutoFDO profile magic number does not match", and
# no warning.)  The gcov default is the profile --format gcov writes, and
# gcc -fauto-profile reads it.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc clang-19 perf
scratch
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }
src="$SPGO_SRC/tests/data/perf_prog.c"
gcc -O2 -g -o prog-gcc "$src"
clang-19 -O2 -g -o prog-clang "$src"
for c in gcc clang; do
  perf record -q -e cpu-clock -F 4000 -o $c.data -- ./prog-$c 40000 >/dev/null 2>&1
  [ -s $c.data ] || { echo "FAIL: perf record $c"; exit 1; }
done

# gcc: gcov by default, said; the same bytes as --format gcov
"$SPGO" gen --binary prog-gcc --perf-data gcc.data -o gcc-default.afdo 2> err.txt || { bad "gen gcc"; cat err.txt; }
grep -q "^spgo: gen: binary built by gcc (GNU C.*): writing gcov (--format to choose)" err.txt ||
  { bad "no note of the gcov default:"; cat err.txt; }
"$SPGO" show gcc-default.afdo | grep -qx "format: gcov" || bad "gcc default is not gcov: $("$SPGO" show gcc-default.afdo | head -1)"
"$SPGO" gen --binary prog-gcc --perf-data gcc.data -o gcc-gcov.afdo --format gcov 2> err2.txt
cmp -s gcc-default.afdo gcc-gcov.afdo || bad "the default differs from --format gcov"
grep -q "warning" err2.txt && bad "--format gcov on gcc warned: $(cat err2.txt)"
gcc -O2 -g -fauto-profile=gcc-default.afdo -o prog-fdo "$src" 2> gccerr.txt
grep -qi "magic number" gccerr.txt && bad "gcc refuses the default profile: $(cat gccerr.txt)"
# gcc, an LLVM format asked: a warning naming the producer
"$SPGO" gen --binary prog-gcc --perf-data gcc.data -o gcc.prof --format extbinary 2> err.txt
grep -q "warning: prog-gcc was built by gcc (GNU C.*), which reads gcov profiles (--format gcov), not LLVM's extbinary" err.txt ||
  { bad "no warning for extbinary on a gcc binary:"; cat err.txt; }
"$SPGO" show gcc.prof | grep -qx "format: extbinary" || bad "--format extbinary not kept"

# gcc: text asked, not warned about; --use-md5 implies extbinary
"$SPGO" gen --binary prog-gcc --perf-data gcc.data -o gcc.txt --format text 2> err.txt
grep -q "warning" err.txt && bad "--format text on gcc warned: $(cat err.txt)"
"$SPGO" gen --binary prog-gcc --perf-data gcc.data -o md5.prof --use-md5 2> err.txt
"$SPGO" show md5.prof | grep -q "^format: extbinary, MD5 names" || bad "--use-md5 did not write extbinary"

# clang: extbinary by default, nothing said; --format gcov warned
"$SPGO" gen --binary prog-clang --perf-data clang.data -o clang.prof 2> err.txt || { bad "gen clang"; cat err.txt; }
"$SPGO" show clang.prof | grep -qx "format: extbinary" || bad "clang default is not extbinary"
grep -Eq "warning|built by" err.txt && bad "clang default: $(grep -E 'warning|built by' err.txt)"
"$SPGO" gen --binary prog-clang --perf-data clang.data -o clang.afdo --format gcov 2> err.txt
grep -q "warning: prog-clang was built by clang (.*clang version 19.*), which reads LLVM profiles" err.txt ||
  { bad "no warning for gcov on a clang binary:"; cat err.txt; }
# --quiet: no note, the same choice
"$SPGO" gen --binary prog-gcc --perf-data gcc.data -o q.afdo --quiet 2> err.txt
[ -s err.txt ] && bad "--quiet printed: $(cat err.txt)"
cmp -s q.afdo gcc-default.afdo || bad "--quiet chose another format"
exit $fail
