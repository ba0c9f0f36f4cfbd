#!/usr/bin/env bash
# spgo gen --cs unwinds the samples on a second thread while perf.data is
# read (and disassembles the binary there, at the first batch);
# SPGO_THREADS=1 does it all in one thread.  The profile and the statistics
# must not depend on it: the same batches go to the unwinder in the same
# order.  On the demo program under `spgo emulate`, built with pseudo-probes
# and with DWARF lines only (there the unwinder symbolizes on its thread):
# flat and nested CS profiles, --preinline, --use-dwarf-correlation; both
# runs byte-identical, stderr (the statistics) too.  A binary without
# debug information fails the same way with and without the thread.  (The batch
# hand-over itself, with many batches, is tested in unit/test_aggregate.)
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch
base="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
# shellcheck disable=SC2086
clang-19 $base -fpseudo-probe-for-profiling -o vm-probe "$SPGO_SRC/examples/minivm/minivm.c" &&
  clang-19 $base -fdebug-info-for-profiling -o vm-dwarf "$SPGO_SRC/examples/minivm/minivm.c" ||
  { echo "FAIL: clang-19"; exit 1; }
for b in vm-probe vm-dwarf; do
  "$SPGO" emulate -c 3000 -o $b.data -- ./$b 2 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
done

n=0
same() {  # NAME BIN ARGS...: threaded and one-thread runs give the same output
  local name=$1 bin=$2; shift 2
  "$SPGO" gen --binary $bin --perf-data $bin.data -o "$name.2.txt" --format text "$@" 2>"$name.2.err" ||
    { cat "$name.2.err"; bad "$name: spgo gen failed"; return; }
  SPGO_THREADS=1 "$SPGO" gen --binary $bin --perf-data $bin.data -o "$name.1.txt" --format text "$@" \
    2>"$name.1.err" || { cat "$name.1.err"; bad "$name: spgo gen (SPGO_THREADS=1) failed"; return; }
  [ "$(wc -l < "$name.2.txt")" -gt 100 ] || bad "$name: a profile of under 100 lines"
  cmp -s "$name.1.txt" "$name.2.txt" || { bad "$name: the profiles differ"; diff "$name.1.txt" "$name.2.txt" | head -5; }
  cmp -s "$name.1.err" "$name.2.err" || { bad "$name: the statistics differ"; diff "$name.1.err" "$name.2.err" | head -5; }
  n=$((n + 1))
}
same probe vm-probe --cs
same probe-nested vm-probe --cs-nested
same probe-lines vm-probe --cs --use-dwarf-correlation
same probe-preinline vm-probe --preinline
same dwarf vm-dwarf --cs
same dwarf-nested vm-dwarf --cs-nested --cs-infer-tail-calls
same dwarf-preinline vm-dwarf --preinline
echo "$n profiles identical with and without the unwinding thread"

# An unusable binary: the same error either way.
strip -o vm-stripped vm-dwarf
"$SPGO" gen --binary vm-stripped --perf-data vm-dwarf.data -o x.txt --cs --cs-flat --no-preinline 2>e2.txt && bad "stripped binary accepted"
SPGO_THREADS=1 "$SPGO" gen --binary vm-stripped --perf-data vm-dwarf.data -o x.txt --cs --cs-flat --no-preinline 2>e1.txt &&
  bad "stripped binary accepted (SPGO_THREADS=1)"
cmp -s e1.txt e2.txt || { bad "the errors differ"; diff e1.txt e2.txt; }
[ -s e2.txt ] || bad "no error message"
head -2 e2.txt

[ $fail -eq 0 ] && echo "gen_cs_threads: ok"
exit $fail
