#!/usr/bin/env bash
# spgo gen --cs on a binary with pseudo-probes (probe-based CSSPGO profiles)
# against llvm-profgen-19 on the same emulated capture.
#  - The demo program built by clang-19 -O2 -g -fpseudo-probe-for-profiling
#    (frame pointers, fixed addresses) under `spgo emulate` (32-entry LBR + fp
#    call stacks); llvm-profgen-19 is fed `spgo script --raw-stacks`, as in
#    gen_cs.sh.
#  - Flat form: llvm-profgen-19 --csspgo-preinliner=false
#    --gen-cs-nested-profile=false (its defaults otherwise: missing-frame
#    inference on for probe profiles, recursion compressed, cold contexts
#    merged at the 99% threshold) and `spgo gen --cs`.  Required: similarity
#    >= 97% by llvm-profdata-19 overlap; so far byte-identical.  The same
#    without the inference (--infer-missing-frames=false and
#    --cs-no-infer-tail-calls).  The nested form too.
#  - Classes of difference known on other data (none shows here):
#      * samples whose whole stack lies outside the binary (a stack cut to a
#        libc leaf): llvm-profgen unwinds their LBR without context, the
#        aggregate keeps only stacks with a frame in the binary, so spgo
#        skips them (gen_cs_probe_errors.sh: 99.9% on a --truncate capture);
#      * the classes of gen_cs.sh that concern the unwinder.
#  - clang-19 builds with the flat and the nested profile without a warning
#    (-Wprofile-instr-out-of-date -Wprofile-instr-unprofiled -Werror: the
#    CFG checksums match); llvm-profdata-19 shows text and extbinary alike.
#  - --cs --use-dwarf-correlation keeps the line-based contexts (no probe
#    ids, no checksums), >= 97% similar to llvm-profgen-19
#    --use-dwarf-correlation (99.997% here: a few call-target counts in the
#    recursive expr_level differ by 0.02%, not yet explained; on the DWARF
#    build of gen_cs.sh the two are byte-identical).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 qemu-x86_64
scratch
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
flags="-O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
src="$SPGO_SRC/examples/minivm/minivm.c"
# shellcheck disable=SC2086
clang-19 $flags -o minivm "$src" || exit 1
"$SPGO" emulate -c 2000 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" script -i e.data -F ip,brstack --raw-stacks > e.script || bad "spgo script --raw-stacks"
pg() { llvm-profgen-19 --binary=minivm --perfscript=e.script --format=text --csspgo-preinliner=false "$@" \
         >pg.err 2>&1 || { cat pg.err; bad "llvm-profgen-19 $*"; }; }

# compare NAME LLVM-PROFILE SPGO-PROFILE: similarity >= 97%, identical noted,
# else the contexts of each function where they differ.
compare() {
  local s
  s=$(llvm-profdata-19 overlap --sample "$2" "$3" | similarity)
  echo "llvm-profgen-19 vs spgo ($1): similarity $s%, $(grep -c '^[^ ]' "$3") profiles"
  atleast "$s" 97 || bad "$1: similarity to llvm-profgen-19 $s% < 97%"
  if cmp -s "$2" "$3"; then
    echo "$1: byte-identical to llvm-profgen-19's"
  else
    echo "note: $1 differs from llvm-profgen-19's:"; diff "$2" "$3" | head -10
  fi
}

"$SPGO" gen --cs --cs-flat --no-preinline --binary minivm --perf-data e.data -o sp.txt --format text 2>stats.txt ||
  { cat stats.txt; bad "spgo gen --cs"; }
cat stats.txt
grep -q 'probe-based' stats.txt || bad "gen --cs did not say the profile is probe-based"
grep -q '^\[main:[0-9]* @ ' sp.txt || bad "no probe context below main (main:PROBE @ ...)"
grep -q '^ !CFGChecksum: [0-9]' sp.txt || bad "no CFG checksum in the CS profile"
grep -Eq '^\[.*:[0-9]+\.[0-9]+ @ ' sp.txt && bad "a line.discriminator location in a probe context"
pg --gen-cs-nested-profile=false -o pg.txt
compare "flat CS" pg.txt sp.txt

"$SPGO" gen --cs-flat --no-preinline --cs-no-infer-tail-calls --quiet --binary minivm --perf-data e.data -o sp0.txt --format text ||
  bad "spgo gen --cs-no-infer-tail-calls"
pg --gen-cs-nested-profile=false --infer-missing-frames=false -o pg0.txt
compare "flat CS, no missing-frame inference" pg0.txt sp0.txt

"$SPGO" gen --no-preinline --cs-nested --quiet --binary minivm --perf-data e.data -o spn.txt --format text || bad "spgo gen --cs-nested"
pg -o pgn.txt
compare "nested CS" pgn.txt spn.txt

"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary minivm --perf-data e.data -o sp.prof || bad "spgo gen --cs (extbinary)"
llvm-profdata-19 show --sample sp.txt > a.show && llvm-profdata-19 show --sample sp.prof > b.show ||
  bad "llvm-profdata-19 show"
cmp -s a.show b.show || { bad "text and extbinary show differently"; diff a.show b.show | head -5; }
"$SPGO" gen --no-preinline --cs-nested --quiet --binary minivm --perf-data e.data -o spn.prof || bad "spgo gen --cs-nested (extbinary)"
for p in sp.prof sp.txt spn.txt spn.prof; do
  # shellcheck disable=SC2086
  clang-19 $flags -fprofile-sample-use=$p -Wprofile-instr-out-of-date -Wprofile-instr-unprofiled -Werror \
    -o m.out "$src" 2>clang.err || { bad "clang-19 rejects or warns on $p:"; head -3 clang.err; }
done

# --use-dwarf-correlation: contexts by DWARF lines, as llvm-profgen's option.
"$SPGO" gen --cs --cs-flat --no-preinline --use-dwarf-correlation --quiet --binary minivm --perf-data e.data -o lines.txt --format text ||
  bad "spgo gen --cs --use-dwarf-correlation"
grep -q 'CFGChecksum' lines.txt && bad "--use-dwarf-correlation still wrote checksums"
pg --gen-cs-nested-profile=false --use-dwarf-correlation -o pgl.txt
compare "flat CS, DWARF correlation" pgl.txt lines.txt
[ $fail -eq 0 ] && echo "gen_cs_probe: ok"
exit $fail
