#!/usr/bin/env bash
# spgo emulate ground truth (acceptance 2): per-instruction counts of the
# main program equal callgrind's Ir per instruction for the same run, and
# edge counts conserve flow at every instruction.
source "$SPGO_SRC/tests/data/emulate/common.sh"
command -v valgrind >/dev/null || { echo "skip: valgrind not installed"; exit 77; }
read -r lo hi < <(text_range)

for n in 1 700; do
  "$SPGO" emulate -o p.data --ground-truth gt.txt -- ./prog $n > out.emu
  valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no \
    --compress-strings=no --skip-plt=no --callgrind-out-file=cg.out ./prog $n > out.vg 2>/dev/null
  cmp -s out.emu out.vg || fail "program output differs under qemu and valgrind"
  head -1 gt.txt | grep -qx 'spgo-ground-truth 1' || fail "bad ground-truth header"
  awk -v lo="$lo" -v hi="$hi" -f "$data/cgparse.awk" cg.out | sort > cg.txt
  awk '$1 == "dso" { d++ } d == 1 && $1 == "i" { print $2, $4 }' gt.txt | sort > emu.txt
  [ "$(wc -l < emu.txt)" -gt 100 ] || fail "n=$n: only $(wc -l < emu.txt) instructions in the ground truth"
  if ! diff cg.txt emu.txt > diff.txt; then
    head -20 diff.txt
    fail "n=$n: ground-truth counts differ from callgrind ($(grep -c '^[<>]' diff.txt) lines)"
  fi
  awk -f "$data/flow.awk" gt.txt > flow.txt
  grep -q ' 0 violations$' flow.txt || { head flow.txt; fail "n=$n: flow not conserved"; }
  echo "n=$n: $(wc -l < emu.txt) instructions equal callgrind's counts; $(tail -1 flow.txt)"
done

# rep string instructions (one QEMU block execution per iteration).
gcc -O1 -no-pie -o prog "$data/rep.c"
read -r lo hi < <(text_range)
"$SPGO" emulate -o p.data --ground-truth gt.txt -- ./prog > /dev/null
valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no \
  --compress-strings=no --skip-plt=no --callgrind-out-file=cg.out ./prog > /dev/null 2>&1
awk -v lo="$lo" -v hi="$hi" -f "$data/cgparse.awk" cg.out | sort > cg.txt
awk '$1 == "dso" { d++ } d == 1 && $1 == "i" { print $2, $4 }' gt.txt | sort > emu.txt
diff cg.txt emu.txt > /dev/null || fail "rep.c: ground-truth counts differ from callgrind"
[ "$(grep -c '^e .* X$' gt.txt)" -eq 10 ] || fail "rep.c: expected 10 rep self-edges"
awk -f "$data/flow.awk" gt.txt > flow.txt
grep -q ' 0 violations$' flow.txt || { head flow.txt; fail "rep.c: flow not conserved"; }
echo "rep.c: $(wc -l < emu.txt) instructions equal callgrind's counts; $(tail -1 flow.txt)"

# Instructions straddling a page boundary inside a block (QEMU shows the
# plugin a partial one first; counted once, no self-edge, no phantom call).
gcc -O1 -no-pie -o prog "$data/pagecross.c"
read -r lo hi < <(text_range)
"$SPGO" emulate -o p.data --ground-truth gt.txt -- ./prog > /dev/null
valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no \
  --compress-strings=no --skip-plt=no --callgrind-out-file=cg.out ./prog > /dev/null 2>&1
awk -v lo="$lo" -v hi="$hi" -f "$data/cgparse.awk" cg.out | sort > cg.txt
awk '$1 == "dso" { d++ } d == 1 && $1 == "i" { print $2, $4 }' gt.txt | sort > emu.txt
if ! diff cg.txt emu.txt > diff.txt; then
  head -20 diff.txt
  fail "pagecross.c: ground-truth counts differ from callgrind"
fi
[ "$(grep -c '^e .* X$' gt.txt)" -eq 0 ] || fail "pagecross.c: self-edges at page-straddling instructions"
awk -f "$data/flow.awk" gt.txt > flow.txt
grep -q ' 0 violations$' flow.txt || { head flow.txt; fail "pagecross.c: flow not conserved"; }
echo "pagecross.c: $(wc -l < emu.txt) instructions equal callgrind's counts; $(tail -1 flow.txt)"

# Shared objects on request: libc gets a section with its build-id.
"$SPGO" emulate -o p.data --ground-truth gt.txt --ground-truth-all -- ./prog 3 > /dev/null
grep -q '^dso [0-9a-f]* .*libc.so' gt.txt || fail "--ground-truth-all has no libc section"
echo "emulate_truth: ok"
