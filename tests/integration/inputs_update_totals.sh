#!/usr/bin/env bash
# --update-total-samples (issue #13, inputs), as llvm-profgen has it: each
# profile's total samples recomputed from its body samples (and its
# inlinees').  spgo's LBR profile with the option equals llvm-profgen-19's
# with it: the text byte for byte, the extbinary as llvm-profdata-19 reads
# it back.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 perf qemu-x86_64
scratch

clang-19 -O2 -g -fdebug-info-for-profiling -fno-pie -no-pie -o minivm "$SPGO_SRC/examples/minivm/minivm.c"
"$SPGO" emulate -c 2000 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
perf script -i e.data -F ip,brstack -G > e.script 2>/dev/null
for fmt in text extbinary; do
  llvm-profgen-19 --binary minivm --perfscript e.script --format $fmt --update-total-samples \
    -o pg.$fmt >/dev/null 2>&1 || bad "llvm-profgen-19 --format $fmt"
  "$SPGO" gen --binary minivm --perf-data e.data --format $fmt --update-total-samples -o sp.$fmt \
    --quiet || bad "spgo gen --update-total-samples --format $fmt"
  if [ $fmt = extbinary ]; then
    llvm-profdata-19 merge --sample --text pg.$fmt -o pg.$fmt.txt || bad "llvm-profdata-19 on pg.$fmt"
    llvm-profdata-19 merge --sample --text sp.$fmt -o sp.$fmt.txt || bad "llvm-profdata-19 on sp.$fmt"
    cmp -s pg.$fmt.txt sp.$fmt.txt || bad "--update-total-samples --format $fmt: not llvm-profgen-19's profile"
  else
    cmp -s pg.$fmt sp.$fmt || bad "--update-total-samples --format $fmt: not llvm-profgen-19's profile"
  fi
done
diff pg.text sp.text | head -6
"$SPGO" gen --binary minivm --perf-data e.data --format text -o plain.text --quiet || bad "spgo gen"
cmp -s plain.text sp.text && bad "--update-total-samples changes nothing"
[ $fail -eq 0 ] && echo "inputs_update_totals: ok"
exit $fail
