#!/usr/bin/env bash
# spgo emulate ground truth (acceptance 2): per-instruction counts of the
# main program equal callgrind's Ir per instruction for the same run, and
# edge counts conserve flow at every instruction.
source "$SPGO_SRC/tests/data/emulate/common.sh"
command -v valgrind >/dev/null || { echo "skip: valgrind not installed"; exit 77; }

# against_callgrind NAME SELF_EDGES ARGS...: ./prog ARGS under spgo emulate
# --ground-truth and under callgrind: the same count at every instruction of
# the main program, SELF_EDGES self-edges ('X': rep iterations; - for any),
# flow conserved.
against_callgrind() {
  local name=$1 self=$2
  shift 2
  read -r lo hi < <(text_range)
  "$SPGO" emulate -o p.data --ground-truth gt.txt -- ./prog "$@" > out.emu
  valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no \
    --compress-strings=no --skip-plt=no --callgrind-out-file=cg.out ./prog "$@" > out.vg 2>/dev/null
  cmp -s out.emu out.vg || fail "$name: program output differs under qemu and valgrind"
  head -1 gt.txt | grep -qx 'spgo-ground-truth 1' || fail "$name: bad ground-truth header"
  awk -v lo="$lo" -v hi="$hi" -f "$data/cgparse.awk" cg.out | sort > cg.txt
  awk '$1 == "dso" { d++ } d == 1 && $1 == "i" { print $2, $4 }' gt.txt | sort > emu.txt
  [ "$(wc -l < emu.txt)" -gt 50 ] || fail "$name: only $(wc -l < emu.txt) instructions in the ground truth"
  if ! diff cg.txt emu.txt > diff.txt; then
    head -20 diff.txt
    fail "$name: ground-truth counts differ from callgrind ($(grep -c '^[<>]' diff.txt) lines)"
  fi
  [ "$self" = - ] || [ "$(grep -c '^e .* X$' gt.txt)" -eq "$self" ] ||
    fail "$name: $(grep -c '^e .* X$' gt.txt) self-edges, not $self"
  awk -f "$data/flow.awk" gt.txt > flow.txt
  grep -q ' 0 violations$' flow.txt || { head flow.txt; fail "$name: flow not conserved"; }
  echo "$name: $(wc -l < emu.txt) instructions equal callgrind's counts; $(tail -1 flow.txt)"
}

for n in 1 700; do
  against_callgrind "n=$n" - $n
done

# rep string instructions (one QEMU block execution per iteration).
gcc -O1 -no-pie -o prog "$data/rep.c"
against_callgrind rep.c 10

# Instructions straddling a page boundary inside a block (QEMU shows the
# plugin a partial one first): counted once, no self-edge, no phantom call.
gcc -O1 -no-pie -o prog "$data/pagecross.c"
against_callgrind pagecross.c 0

# Shared objects on request: libc gets a section with its build-id.
"$SPGO" emulate -o p.data --ground-truth gt.txt --ground-truth-all -- ./prog 3 > /dev/null
grep -q '^dso [0-9a-f]* .*libc.so' gt.txt || fail "--ground-truth-all has no libc section"
echo "emulate_truth: ok"
