#!/usr/bin/env bash
# Probe-based profiles (CSSPGO's pseudo-probes, no contexts) of the demo
# program built by clang-19 with -fpseudo-probe-for-profiling:
#  - from an emulated LBR capture, spgo's profile equals llvm-profgen-19's
#    --ignore-stack-samples profile of the same data, byte for byte (probe
#    counts added over duplicated probes, call targets at call probes, head
#    samples from entry probes, CFG checksums, contexts cut at unknown call
#    sites as llvm-profgen cuts them);
#  - from plain cpu-clock IP samples (which llvm-profgen cannot use for probe
#    profiles) spgo makes one too, close to the LBR one;
#  - clang-19 builds with each profile without a warning, and
#    llvm-profdata-19 shows the text and extbinary forms identically;
#  - --use-dwarf-correlation gives the line-based profile instead.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 perf qemu-x86_64
scratch
similarity() { sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
flags="-O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
src="$SPGO_SRC/examples/minivm/minivm.c"
# shellcheck disable=SC2086
clang-19 $flags -o minivm "$src" || exit 1

"$SPGO" emulate -c 2000 -o e.data -- ./minivm 1 >/dev/null 2>err.txt || { cat err.txt; bad "spgo emulate"; }
"$SPGO" gen --no-cs --binary minivm --perf-data e.data -o sp.txt --format text 2> gen.err || { cat gen.err; bad "spgo gen"; }
grep -q "functions (probe-based)" gen.err || bad "gen did not say the profile is probe-based"
perf script -i e.data -F ip,brstack > e.script 2>/dev/null
llvm-profgen-19 --binary=minivm --perfscript=e.script --format=text --ignore-stack-samples -o pg.txt \
  >/dev/null 2>&1 || bad "llvm-profgen-19"
if cmp -s pg.txt sp.txt; then
  echo "LBR: spgo's probe profile is identical to llvm-profgen-19's ($(grep -c '^[^ ]' sp.txt) functions)"
else
  bad "LBR: probe profile differs from llvm-profgen-19's:"; diff pg.txt sp.txt | head -20
  llvm-profdata-19 overlap --sample pg.txt sp.txt | grep -i similarity
fi
# The test must be able to fail: probe ids, checksums and call targets are there.
grep -q '^ !CFGChecksum: [0-9]' sp.txt || bad "no checksum"
grep -Eq '^ [0-9]+: [1-9][0-9]* _Z' sp.txt || bad "no call target at a call probe"

# IP samples (cpu-clock): a probe profile that llvm-profgen cannot make.
perf record -q -e cpu-clock -F 10000 -o ip.data -- ./minivm 3 >/dev/null 2>&1 || bad "perf record"
"$SPGO" gen --binary minivm --perf-data ip.data -o ip.txt --format text --quiet || bad "spgo gen (IP)"
s=$(llvm-profdata-19 overlap --sample sp.txt ip.txt | similarity)
echo "IP-mode probe profile vs the LBR one: similarity $s%"
atleast "$s" 60 || bad "IP-mode probe profile only $s% similar to the LBR one"

# clang reads every form without a warning; text and extbinary read the same.
"$SPGO" gen --no-cs --binary minivm --perf-data e.data -o sp.extbin --quiet || bad "spgo gen extbinary"
llvm-profdata-19 show --sample sp.txt > show.txt && llvm-profdata-19 show --sample sp.extbin > show.ext &&
  cmp -s show.txt show.ext || bad "llvm-profdata-19 show differs between text and extbinary"
for p in sp.txt sp.extbin ip.txt; do
  # shellcheck disable=SC2086
  clang-19 $flags -fprofile-sample-use="$p" -Wprofile-instr-out-of-date -Wprofile-instr-unprofiled \
    -Werror -o "minivm-$p" "$src" 2> cc.err || { bad "clang-19 with $p:"; head -5 cc.err; }
done

# --use-dwarf-correlation: a line-based profile (no probe ids, no checksums).
"$SPGO" gen --binary minivm --perf-data e.data -o lines.txt --format text --quiet --use-dwarf-correlation ||
  bad "spgo gen --use-dwarf-correlation"
grep -q 'CFGChecksum' lines.txt && bad "--use-dwarf-correlation still wrote checksums"
[ $fail -eq 0 ] && echo "gen_probe: ok"
exit $fail
