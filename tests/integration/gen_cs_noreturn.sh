#!/usr/bin/env bash
# A call that ends its function (to a noreturn function: exit paths, C++
# throws, _Unwind_Resume) pushes a return address past the function's last
# byte.  The unwinder must still take it as that call site, as llvm-profgen
# does (it disassembles each symbol up to the next one): the contexts keep
# main and driver above finish (tests/integration/lib/noreturn.c), for
# DWARF-line and probe-based profiles from LBR + stacks (byte-identical to
# llvm-profgen-19's) and from IP samples with frame-pointer stacks.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64 llvm-profgen-19 perf
scratch
src="$SPGO_SRC/tests/integration/lib/noreturn.c"
F="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
clang-19 $F -o nr-lines "$src" && clang-19 $F -fpseudo-probe-for-profiling -o nr-probe "$src" ||
  { bad "clang-19"; exit 1; }
# The case under test: main's last instruction is the call to driver.
llvm-objdump-19 -d --no-show-raw-insn nr-lines --disassemble-symbols=main | grep -E '^ *[0-9a-f]+:' |
  tail -1 | grep -q 'call.*<driver>' || { bad "main does not end with the call to driver: the test tests nothing"; }
for v in lines probe; do
  "$SPGO" emulate -c 2000 -o $v.data -- ./nr-$v 300000 >/dev/null 2>&1 || { bad "spgo emulate ($v)"; continue; }
  "$SPGO" script -i $v.data -F ip,brstack --raw-stacks --show-mmap-events > $v.script
  "$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary nr-$v --perf-data $v.data -o sp-$v.txt --format text || bad "spgo gen --cs ($v)"
  llvm-profgen-19 --binary=nr-$v --perfscript=$v.script --format=text --csspgo-preinliner=false \
    --gen-cs-nested-profile=false -o pg-$v.txt 2>/dev/null || bad "llvm-profgen-19 ($v)"
  if cmp -s pg-$v.txt sp-$v.txt; then
    echo "ok   $v: CS profile byte-identical to llvm-profgen-19's ($(grep -c '^\[' sp-$v.txt) contexts)"
  else
    bad "$v: CS profile differs from llvm-profgen-19's"; diff pg-$v.txt sp-$v.txt | head -6
  fi
  grep -q '^\[main:[0-9.]* @ driver:[0-9.]* @ finish' sp-$v.txt ||
    bad "$v: no context main @ driver @ finish: $(grep '^\[' sp-$v.txt | cut -d']' -f1 | tr '\n' ' ')"
  grep '^\[' sp-$v.txt | grep -v '^\[main' | grep -q . &&
    bad "$v: contexts cut below main: $(grep '^\[' sp-$v.txt | grep -v '^\[main' | cut -d']' -f1 | tr '\n' ' ')"
done
# IP samples with frame-pointer stacks (no LBR): the same contexts.
if perf record -q -e cpu-clock -F 10000 --call-graph fp -o ip.data -- ./nr-lines 20000000 >/dev/null 2>&1; then
  "$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary nr-lines --perf-data ip.data -o ip.txt --format text || bad "spgo gen --cs (IP)"
  grep -q '^\[main:[0-9.]* @ driver:[0-9.]* @ finish' ip.txt && ! grep '^\[' ip.txt | grep -qv '^\[main' &&
    echo "ok   IP samples: every context below main" ||
    bad "IP samples: contexts cut: $(grep '^\[' ip.txt | cut -d']' -f1 | tr '\n' ' ')"
else
  echo "note: perf cannot record here; the IP-sample case was not checked"
fi
[ $fail -eq 0 ] && echo "gen_cs_noreturn: ok"
exit $fail
