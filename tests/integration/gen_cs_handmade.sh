#!/usr/bin/env bash
# Corners of the CS unwinder, as hand-written perf script samples (LBR and
# call stack) on tests/integration/lib/noreturn.c: each profile byte-identical
# to llvm-profgen-19's on the same text.
#  - the oldest branch is a return: the callee's frame has a branch and no
#    range; llvm-profgen still makes its (empty) context, and infers from it
#    that the call site is live (a call of count 1 in the caller);
#  - the return address of main's last instruction (a call): main stays
#    the caller (gen_cs_noreturn.sh has it on real captures).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19
scratch
clang-19 -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie \
  -o hm "$SPGO_SRC/tests/integration/lib/noreturn.c" || { bad "clang-19"; exit 1; }
# addr SYMBOL PATTERN: the address of SYMBOL's last instruction matching PATTERN
addr() {
  llvm-objdump-19 -d --no-show-raw-insn hm --disassemble-symbols="$1" |
    awk -v p="$2" '$0 ~ p { a = $1 } END { sub(/:$/, "", a); print a }'
}
next_insn() {  # the address after instruction A of SYMBOL
  llvm-objdump-19 -d --no-show-raw-insn hm --disassemble-symbols="$1" |
    awk -v a="$2:" 'f { sub(/:$/, "", $1); print $1; exit } $1 == a { f = 1 }'
}
mix_ret=$(addr mix 'ret')
call_mix=$(addr driver 'call.*<mix>')
call_driver=$(addr main 'call.*<driver>')
after_mix=$(next_insn driver "$call_mix")
main_end=$(printf '%x' $((0x$(nm hm | awk '$3 == "main" { print $1 }') + \
  0x$(nm -S hm | awk '$4 == "main" { print $2 }'))))
[ -n "$mix_ret" ] && [ -n "$call_mix" ] && [ -n "$after_mix" ] && [ -n "$call_driver" ] ||
  { bad "the code is not as expected: mix ret '$mix_ret', call mix '$call_mix', after '$after_mix'"; exit 1; }
# main ends with the call to driver (driver never returns)
[ "$(next_insn main "$call_driver")" = "" ] || [ "$(printf '%x' $((0x$call_driver + 5)))" = "$main_end" ] ||
  echo "note: main does not end with the call to driver here"
# One sample, ten times: the leaf just after the return from mix; stack
# driver <- main <- libc; the LBR holds that return, then a branch inside
# libc (left out by both tools; llvm-profgen takes a line of one entry for
# no LBR).
for i in 1 2 3 4 5 6 7 8 9 10; do
  printf '\t%16s\n\t%16s\n\t%16s\n 0x%s/0x%s/P/-/-/0/  0x7f0000002000/0x7f0000003000/P/-/-/0/\n\n' \
    "$after_mix" "$main_end" 7f0000001234 "$mix_ret" "$after_mix"
done > ret_oldest.script
"$SPGO" gen --cs --quiet --binary hm --perf-script ret_oldest.script -o sp.txt --format text ||
  bad "spgo gen --cs"
llvm-profgen-19 --binary=hm --perfscript=ret_oldest.script --format=text --csspgo-preinliner=false \
  --gen-cs-nested-profile=false -o pg.txt 2>/dev/null || bad "llvm-profgen-19"
if cmp -s pg.txt sp.txt; then
  echo "ok   oldest branch a return: byte-identical to llvm-profgen-19's"; sed 's/^/     /' sp.txt
else
  bad "oldest branch a return: differs from llvm-profgen-19's"; diff pg.txt sp.txt | head -10
fi
grep -q '^ [0-9.]*: 1 mix:1$' sp.txt || bad "no live call of mix inferred in driver"
[ $fail -eq 0 ] && echo "gen_cs_handmade: ok"
exit $fail
