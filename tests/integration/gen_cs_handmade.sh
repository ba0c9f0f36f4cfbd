#!/usr/bin/env bash
# Corners of the unwinder and of probe reading, as hand-written perf script
# samples (LBR and call stack) on tests/integration/lib/noreturn.c: each profile byte-identical
# to llvm-profgen-19's on the same text.
#  - the oldest branch is a return: the callee's frame has a branch and no
#    range; llvm-profgen still makes its (empty) context, and infers from it
#    that the call site is live (a call of count 1 in the caller);
#  - the return address of main's last instruction (a call): main stays
#    the caller (gen_cs_noreturn.sh has it on real captures);
#  - non-CS, probes: a function whose only sample is a call it made still
#    has its probe records read, and its profile holds the call;
#  - code under a label that is no function (an assembler's local symbol,
#    NOTYPE) is code of the binary to llvm-profgen, which disassembles
#    every .symtab symbol: a call into it is no call to outside.
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
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary hm --perf-script ret_oldest.script -o sp.txt --format text ||
  bad "spgo gen --cs"
llvm-profgen-19 --binary=hm --perfscript=ret_oldest.script --format=text --csspgo-preinliner=false \
  --gen-cs-nested-profile=false -o pg.txt 2>/dev/null || bad "llvm-profgen-19"
if cmp -s pg.txt sp.txt; then
  echo "ok   oldest branch a return: byte-identical to llvm-profgen-19's"; sed 's/^/     /' sp.txt
else
  bad "oldest branch a return: differs from llvm-profgen-19's"; diff pg.txt sp.txt | head -10
fi
grep -q '^ [0-9.]*: 1 mix:1$' sp.txt || bad "no live call of mix inferred in driver"

# Non-CS, a probe build: driver's only sample is its call to mix (the
# oldest branch; the ranges lie in mix).  llvm-profgen counts a function a
# branch leaves as sampled, so driver's probe records are read and its
# profile holds the call.
clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -fno-pie -no-pie \
  -o hp "$SPGO_SRC/tests/integration/lib/noreturn.c" || { bad "clang-19 (probes)"; exit 1; }
addr_p() {
  llvm-objdump-19 -d --no-show-raw-insn hp --disassemble-symbols="$1" |
    awk -v p="$2" '$0 ~ p { a = $1 } END { sub(/:$/, "", a); print a }'
}
mixsym=$(nm hp | awk '$3 ~ /mix/ { print $3; exit }')  # (_ZL3mixj.__uniq.N with probes)
p_ret=$(addr_p "$mixsym" 'ret'); p_call=$(addr_p driver 'call.*mix')
p_mix=$(nm hp | awk -v m="$mixsym" '$3 == m { sub(/^0+/, "", $1); print $1 }')
[ -n "$p_ret" ] && [ -n "$p_call" ] && [ -n "$p_mix" ] || bad "probe build: the code is not as expected" 
p_after=$(llvm-objdump-19 -d --no-show-raw-insn hp --disassemble-symbols=driver |
  awk -v a="$p_call:" 'f { sub(/:$/, "", $1); print $1; exit } $1 == a { f = 1 }')
for i in 1 2 3 4 5 6 7 8 9 10; do
  printf ' 0x%s/0x%s/P/-/-/0/  0x%s/0x%s/P/-/-/0/\n' "$p_ret" "$p_after" "$p_call" "$p_mix"
done > call_only.script
"$SPGO" gen --quiet --binary hp --perf-script call_only.script -o spn.txt --format text || bad "spgo gen (probes)"
llvm-profgen-19 --binary=hp --perfscript=call_only.script --format=text -o pgn.txt 2>/dev/null ||
  bad "llvm-profgen-19 (probes)"
if cmp -s pgn.txt spn.txt; then
  echo "ok   a function whose only sample is a call: byte-identical to llvm-profgen-19's"
else
  bad "a function whose only sample is a call: differs from llvm-profgen-19's"; diff pgn.txt spn.txt | head -6
fi
grep -q '^driver:0:0' spn.txt || bad "no profile of driver (its call to mix)"
# The same probe build from exact counts (no aggregate behind them).
if command -v qemu-x86_64 >/dev/null; then
  "$SPGO" emulate -o gt.data --ground-truth gt.gt -- ./hp 2000 >/dev/null 2>&1 || bad "spgo emulate --ground-truth"
  "$SPGO" gen --quiet --binary hp --ground-truth gt.gt -o gt.txt --format text ||
    bad "spgo gen --ground-truth on a probe build"
  grep -q '^ *[0-9]*: 2000 _ZL3mixj' gt.txt && echo "ok   exact counts on a probe build: driver calls mix 2000 times" ||
    bad "exact counts on a probe build: no call of mix counted 2000 times: $(head -c 300 gt.txt)"
else
  echo "note: no qemu-x86_64; exact counts on a probe build not checked"
fi

# Code under a label: helper calls tail_code, a local NOTYPE symbol after
# helper's end.  Two samples: the leaf back in helper after tail_code
# returned, and the leaf in tail_code.  spgo took tail_code as external
# (no function of the binary model) and lost its ranges and the call and
# return; llvm-profgen-19 keeps them.
cat > label.c <<'EOF'
__asm__(".text\n.globl helper\n.type helper,@function\n"
	"helper:\n\tpushq %rbp\n\tmovq %rsp,%rbp\n\tnop\n\tnop\n\tcall tail_code\n"
	"\tnop\n\tnop\n\tpopq %rbp\n\tret\n.size helper, .-helper\n"
	"tail_code:\n\tnop\n\tnop\n\tnop\n\tnop\n\tret\n");
void helper(void);
int main(void) { helper(); return 0; }
EOF
clang-19 -O1 -g -fno-pie -no-pie -o lb label.c || { bad "clang-19 (label)"; exit 1; }
lsym() { nm lb | awk -v n="$1" '$3 == n { sub(/^0+/, "", $1); print $1 }'; }
linsn() {  # the address of SYMBOL's instruction N (from 1)
  llvm-objdump-19 -d --no-show-raw-insn lb --disassemble-symbols="$1" |
    awk -v n="$2" '/^ *[0-9a-f]+:/ && ++i == n { sub(/:$/, "", $1); print $1; exit }'
}
tc=$(lsym tail_code) h=$(lsym helper) m=$(lsym main)
h_call=$(linsn helper 5) h_after=$(linsn helper 6) tc_mid=$(linsn tail_code 3) tc_ret=$(linsn tail_code 5)
m_call=$(linsn main 2) m_after=$(linsn main 3)
if [ -n "$tc" ] && [ "$(nm lb | awk '$3 == "tail_code" { print $2 }')" = t ] && [ -n "$tc_ret" ] &&
   [ -n "$m_after" ]; then
  { echo "PERF_RECORD_MMAP2 7/7: [0x401000(0x1000) @ 0x1000 00:00 0 0]: r-xp $PWD/lb"
    echo; printf '\t      %s\n\t      %s\n' "$h_after" "$m_after"
    echo " 0x$tc_ret/0x$h_after/P/-/-/0  0x$h_call/0x$tc/P/-/-/0  0x$m_call/0x$h/P/-/-/0 " \
         " 0x7f0000001234/0x$m/P/-/-/0 "
    echo; printf '\t      %s\n\t      %s\n\t      %s\n' "$tc_mid" "$h_after" "$m_after"
    echo " 0x$h_call/0x$tc/P/-/-/0  0x$m_call/0x$h/P/-/-/0  0x7f0000001234/0x$m/P/-/-/0 "; } > label.script
  llvm-profgen-19 --binary=lb --perfscript=label.script --skip-symbolization -o pgl.txt >/dev/null 2>&1 ||
    bad "llvm-profgen-19 (label)"
  "$SPGO" gen --quiet --cs --binary lb --perf-script label.script --skip-symbolization -o spl.txt ||
    bad "spgo gen (label)"
  if grep -q "^  ${tc_ret#401}->" pgl.txt && cmp -s pgl.txt spl.txt; then
    echo "ok   code under a label: byte-identical to llvm-profgen-19's ($(grep -c -- '-[0-9a-f]*:' pgl.txt) ranges)"
  else
    bad "code under a label: differs from llvm-profgen-19's"; diff pgl.txt spl.txt | head -10
  fi
  llvm-profgen-19 --binary=lb --perfscript=label.script --format=text -o pgls.txt >/dev/null 2>&1 ||
    bad "llvm-profgen-19 (label, CS)"
  "$SPGO" gen --quiet --cs --binary lb --perf-script label.script --format text -o spls.txt ||
    bad "spgo gen (label, CS)"
  cmp -s pgls.txt spls.txt || { bad "code under a label, CS: differs from llvm-profgen-19's"; diff pgls.txt spls.txt | head; }
else
  bad "the label build is not as expected: tail_code '$tc', ret '$tc_ret', main '$m_after'"
fi
[ $fail -eq 0 ] && echo "gen_cs_handmade: ok"
exit $fail
