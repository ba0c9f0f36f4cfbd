#!/usr/bin/env bash
# spgo gen --cs from IP samples with frame-pointer call stacks (no LBR):
# perf record -e cpu-clock --call-graph fp of the demo program's probe build
# (clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer
# -mno-omit-leaf-frame-pointer), as on a machine without a PMU.
#  - spgo gen --cs says on stderr that it runs in IP mode; the profile has
#    contexts: the compiler's call chain main -> compile -> function ->
#    block -> statement with samples, the interpreter loop (run, inlined in
#    main) the hottest context, CFG checksums; llvm-profdata-19 reads it
#    (text and extbinary), clang-19 builds with it without a warning
#    (-Wprofile-instr-out-of-date -Wprofile-instr-unprofiled -Werror), and
#    with --preinline too;
#  - quality: the line-keyed profile of the same samples
#    (--use-dwarf-correlation) against the exact per-context counts of the
#    same input (spgo emulate --ground-truth-cs, spgo gen --ground-truth-cs)
#    by spgo overlap --cs-truth: at least 70% in the context view and 72% in
#    the post-inline view (--inline all).  Measured when written (minivm 5,
#    about 2000 samples, a loaded machine): 79-82% and 80-83%; the LBR CS
#    profile of an emulated run scores about 91%, the non-CS IP profile 76%
#    (context view) and 86% (post-inline) -- bench/results/cs_ip.md;
#  - without --cs the same data gives today's profile (no contexts, no note);
#  - spgo record --call-graph fp records such data (cpu-clock, no PMU here);
#  - a --call-graph dwarf recording (no user frame in the callchain) is
#    refused with an error naming --call-graph fp, and no profile written.
# Skipped when perf cannot record cpu-clock with fp call stacks here.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profdata-19 perf qemu-x86_64
scratch
perf record -q -e cpu-clock --call-graph fp -o probe.data -- true >/dev/null 2>&1 ||
  { echo "skip: perf cannot record cpu-clock with --call-graph fp here"; exit 77; }
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
figure() { sed -n 's/^CS block overlap: \([0-9.]*\)%.*/\1/p'; }
flags="-O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
src="$SPGO_SRC/examples/minivm/minivm.c"
# shellcheck disable=SC2086
clang-19 $flags -o minivm "$src" || exit 1
perf record -q -e cpu-clock -F 10000 --call-graph fp -o fp.data -- ./minivm 5 >/dev/null 2>&1 ||
  { echo "FAIL: perf record"; exit 1; }

# The CS profile, probe-based.
"$SPGO" gen --cs --cs-flat --no-preinline --binary minivm --perf-data fp.data -o cs.txt --format text 2>err.txt ||
  { cat err.txt; bad "spgo gen --cs"; }
cat err.txt
grep -q '^spgo: gen --cs: IP mode: no branch stacks' err.txt || bad "no note of the IP mode on stderr"
n=$(sed -n 's/.* IP samples with call stacks, \([0-9]*\) counted.*/\1/p' err.txt)
echo "samples counted: $n"
atleast "${n:-0}" 500 || bad "only ${n:-0} samples counted"
u='[A-Za-z0-9_.]*'
grep -Eq "^\[main:[0-9]+ @ _ZL7compilePKc$u:[0-9]+ @ _ZL8functionv$u:[0-9]+ @ _ZL5blockv$u:[0-9]+ @ _ZL9statementv$u( @ [^]]*)?\]:[1-9]" cs.txt ||
  bad "no context main -> compile -> function -> block -> statement with samples"
hot=$(grep '^\[' cs.txt | sort -t']' -k2 | awk -F']:' '{ split($2, a, ":"); if (a[1] + 0 > best) { best = a[1] + 0; ctx = $1 } } END { print ctx }')
echo "hottest context: $hot"
[[ "$hot" =~ ^\[main:[0-9]+\ @\ _ZL3runi$u$ ]] || bad "the hottest context is not the interpreter loop (main @ run): $hot"
grep -q '^ !CFGChecksum: [1-9]' cs.txt || bad "no CFG checksums"
llvm-profdata-19 show --sample cs.txt > show.txt 2>&1 || { head show.txt; bad "llvm-profdata-19 show (text)"; }
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary minivm --perf-data fp.data -o cs.prof || bad "spgo gen --cs (extbinary)"
llvm-profdata-19 show --sample cs.prof > show2.txt 2>&1 || { head show2.txt; bad "llvm-profdata-19 show (extbinary)"; }
"$SPGO" gen --preinline --quiet --binary minivm --perf-data fp.data -o pre.prof || bad "spgo gen --preinline"
for p in cs.prof pre.prof; do
  # shellcheck disable=SC2086
  clang-19 $flags -fprofile-sample-use=$p -Wprofile-instr-out-of-date -Wprofile-instr-unprofiled -Werror \
    -o minivm.pgo "$src" 2>cc.err || { cat cc.err; bad "clang-19 -fprofile-sample-use=$p"; }
  [ -s cc.err ] && { cat cc.err; bad "clang-19 warned on $p"; }
done

# Without --cs: today's profile.
"$SPGO" gen --binary minivm --perf-data fp.data -o flat.txt --format text 2>flat.err || bad "spgo gen"
grep -q '^\[' flat.txt && bad "spgo gen without --cs wrote contexts"
grep -q 'IP mode: no branch stacks' flat.err && bad "spgo gen without --cs noted the CS IP mode"

# Quality against the exact per-context counts of the same input.
"$SPGO" emulate -c 2000 -o e.data --ground-truth-cs t.cs -- ./minivm 5 >/dev/null 2>emu.err ||
  { cat emu.err; bad "spgo emulate"; }
"$SPGO" gen --binary minivm --ground-truth-cs t.cs --use-dwarf-correlation -o ref.txt --format text ||
  bad "spgo gen --ground-truth-cs"
"$SPGO" gen --binary minivm --ground-truth-cs t.cs -o ref-probe.txt --format text ||
  bad "spgo gen --ground-truth-cs (probes)"
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --use-dwarf-correlation --binary minivm --perf-data fp.data -o lines.txt --format text ||
  bad "spgo gen --cs --use-dwarf-correlation"
c=$("$SPGO" overlap --cs-truth ref.txt lines.txt | figure)
i=$("$SPGO" overlap --cs-truth ref.txt lines.txt --view inline --inline all | figure)
echo "quality against the exact CS counts: $c% (context view), $i% (post-inline)"
atleast "${c:-0}" 70 || bad "context view $c% < 70%"
atleast "${i:-0}" 72 || bad "post-inline view $i% < 72%"
pc=$("$SPGO" overlap --cs-truth ref-probe.txt cs.txt | figure)
pi=$("$SPGO" overlap --cs-truth ref-probe.txt cs.txt --view inline --inline all | figure)
echo "probe-keyed profile against the probe-keyed exact counts: $pc% (context view), $pi% (post-inline)"
# (lower than the line-keyed figures: measured 52% and 61%; floors with margin)
atleast "${pc:-0}" 40 || bad "probe-keyed context view $pc% < 40%"
atleast "${pi:-0}" 50 || bad "probe-keyed post-inline view $pi% < 50%"

# --mode ip on data with branch stacks too (the emulated capture): the IP
# path, from the call stacks alone, not the LBR unwinder.
"$SPGO" gen --cs --cs-flat --no-preinline --mode ip --use-dwarf-correlation --binary minivm --perf-data e.data \
  -o emu-ip.txt --format text 2>emu-ip.err || { cat emu-ip.err; bad "spgo gen --cs --mode ip"; }
grep -q 'IP mode: no branch stacks' emu-ip.err || { cat emu-ip.err; bad "--cs --mode ip: no IP-mode note"; }
grep -q 'IP samples with call stacks, [1-9]' emu-ip.err || bad "--cs --mode ip: no IP samples counted"
grep -q 'LBR entries' emu-ip.err && bad "--cs --mode ip unwound the LBR"
grep -q '^\[main' emu-ip.txt || bad "--cs --mode ip: no contexts"

# spgo record --call-graph fp gives such data (cpu-clock here).
"$SPGO" record --call-graph fp -F 10000 -o rec.data -- ./minivm 1 >/dev/null 2>rec.err ||
  { cat rec.err; bad "spgo record --call-graph fp"; }
if grep -q 'using [^ ]* -b ' rec.err; then
  echo "note: spgo record chose LBR here; the IP-mode check of its data is skipped"
else
  grep -q 'using [^ ]* --call-graph fp' rec.err || { cat rec.err; bad "spgo record did not record fp stacks"; }
  "$SPGO" gen --cs --cs-flat --no-preinline --binary minivm --perf-data rec.data -o rec.txt --format text 2>rec2.err ||
    { cat rec2.err; bad "spgo gen --cs on spgo record's data"; }
  grep -q 'IP mode: no branch stacks' rec2.err || bad "spgo record's data: no IP-mode note"
fi

# A --call-graph dwarf recording: no user frame in the callchain.
perf record -q -e cpu-clock -F 2000 --call-graph dwarf,2048 -o dw.data -- ./minivm 1 >/dev/null 2>&1 ||
  { echo "FAIL: perf record --call-graph dwarf"; exit 1; }
if "$SPGO" gen --cs --cs-flat --no-preinline --binary minivm --perf-data dw.data -o dw.txt --format text 2>dw.err; then
  bad "spgo gen --cs accepted a --call-graph dwarf recording"
fi
cat dw.err
grep -q -- '--call-graph fp' dw.err || bad "the error does not say to record with --call-graph fp"
[ -e dw.txt ] && bad "a profile was written for the dwarf recording"
exit $fail
