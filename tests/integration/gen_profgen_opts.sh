#!/usr/bin/env bash
# llvm-profgen's option names on `spgo gen`, with llvm-profgen's meaning:
# each run gives spgo and llvm-profgen-19 the same option on the same input
# and requires the same profile byte for byte (text form), and, where the
# option changes something, a profile that differs from the run without it
# (an option that did nothing would pass vacuously).
#  - Inputs: the demo program (DWARF lines and a pseudo-probe build, frame
#    pointers, fixed addresses) under `spgo emulate` (LBR + call stacks);
#    llvm-profgen reads `spgo script --raw-stacks` of it (perf 6.1's text
#    has stack frames as file offsets), spgo the perf.data itself; the
#    LBR-only runs read the same text without its stack lines, both tools.
#  - Names: --pd, --ps, --up/--unsymbolized-profile, --csspgo-preinliner,
#    --gen-cs-nested-profile (with the pre-inliner: the flat layout of a
#    pre-inlined profile), --ignore-stack-samples, --show-density (its line),
#    booleans as --NAME=false/0; --ignore-stack-samples on the data with
#    call stacks (llvm-profgen's check of hybrid samples).
#  - Options: --compress-recursion=0 and 1, --csprof-max-context-depth,
#    --csprof-max-cold-context-depth, --csprof-merge-cold-context=false,
#    --trim-cold-profile (CS, and non-CS with --profile-summary-cold-count),
#    --profile-summary-hot-count, --profile-summary-cold-count (the
#    pre-inliner's cold count), --profile-summary-cutoff-cold,
#    --fill-zero-for-all-funcs, --populate-profile-symbol-list (compared as
#    llvm-profdata-19 shows the list), --infer-missing-frames=0 (probe build),
#    --skip-symbolization (llvm-profgen's unsymbolized text, compared as is;
#    and on a hand-written sample of the dynamic loader's calls to crt's
#    initialisers, function symbols of size 0 that llvm-profgen decodes).
#  - Flat CS profiles in extbinary too (with and without probes, trimmed,
#    and from --llvm-sample-profile).
#  - --llvm-sample-profile: llvm-profgen's post-passes run again on a flat
#    CS profile (without the pre-inliner, which spgo refuses there).
#  - --sample-period (newer llvm-profgen's; 19 lacks it): each LBR sample
#    counts period / (its entries in the binary - 1); llvm-profgen-19 is
#    given the same weights as aggregated counts before each sample line
#    (lib/period_weigh.py), spgo the plain text and the perf.data.
#  - --ignore-stack-samples with --cs, and a boolean that is none, are usage
#    errors (exit 2).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-profdata-19 qemu-x86_64
scratch

build() { # OUT EXTRA-FLAGS...
  local out=$1; shift
  clang-19 -O2 -g "$@" -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie \
    -o "$out" "$SPGO_SRC/examples/minivm/minivm.c" || { echo "FAIL: clang-19"; exit 1; }
  "$SPGO" emulate -c 4000 -o "$out.data" -- "./$out" 1 >/dev/null 2>err.txt ||
    { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
  "$SPGO" script -i "$out.data" -F ip,brstack --raw-stacks > "$out.script" || { echo "FAIL: spgo script"; exit 1; }
}
build vm -fdebug-info-for-profiling
build vmp -fpseudo-probe-for-profiling
grep '^ 0x' vm.script > lbr.script # the LBR lines alone: no call stacks

# same NAME BIN 'SPGO-INPUT SPGO-OPTIONS' 'PROFGEN-INPUT PROFGEN-OPTIONS' [FORMAT]
same() {
  local n=$1 bin=$2 sa=$3 pa=$4 fmt=${5:-text}
  # shellcheck disable=SC2086 # the options are words
  llvm-profgen-19 --binary=$bin --format=$fmt $pa -o "pg.$n" >"pg.$n.out" 2>"pg.$n.err" ||
    { bad "$n: llvm-profgen-19 failed"; head -3 "pg.$n.err"; return; }
  # shellcheck disable=SC2086
  "$SPGO" gen --quiet --binary $bin --format $fmt $sa -o "sp.$n" >"sp.$n.out" 2>"sp.$n.err" ||
    { bad "$n: spgo gen $sa failed"; head -3 "sp.$n.err"; return; }
  if cmp -s "pg.$n" "sp.$n"; then echo "$n: identical to llvm-profgen-19's"
  else bad "$n: spgo's profile differs from llvm-profgen-19's ($sa)"; diff "pg.$n" "sp.$n" | head -6; fi
}
# changes BASE NAME: the option made a difference
changes() { cmp -s "pg.$1" "pg.$2" && bad "$2: the option changed nothing (vacuous test)"; return 0; }

F="--csspgo-preinliner=false --gen-cs-nested-profile=false"
D="--pd vm.data" P="--perfscript=vm.script"
same def vm "$D --csspgo-preinliner" "$P"
same preflat vm "$D --csspgo-preinliner --gen-cs-nested-profile=false" "$P --gen-cs-nested-profile=false"
changes def preflat
same nopre vm "$D --csspgo-preinliner=0" "$P --csspgo-preinliner=0"
same flat vm "$D $F" "$P $F"
changes nopre flat
same cr0 vm "$D $F --compress-recursion=0" "$P $F --compress-recursion=0"
changes flat cr0
same cr1 vm "$D $F --compress-recursion 1" "$P $F --compress-recursion=1"
changes flat cr1
same depth2 vm "$D $F --csprof-max-context-depth=2" "$P $F --csprof-max-context-depth=2"
changes flat depth2
same colddepth2 vm "$D $F --csprof-max-cold-context-depth=2" "$P $F --csprof-max-cold-context-depth=2"
changes flat colddepth2
same nomerge vm "$D $F --csprof-merge-cold-context=false" "$P $F --csprof-merge-cold-context=false"
changes flat nomerge
same trim vm "$D $F --trim-cold-profile" "$P $F --trim-cold-profile"
changes flat trim
same hot vm "$D $F --profile-summary-hot-count=5000" "$P $F --profile-summary-hot-count=5000"
changes flat hot
same precold vm "$D --csspgo-preinliner --profile-summary-cold-count=100000" "$P --profile-summary-cold-count=100000"
changes def precold
same pretrim vm "$D --csspgo-preinliner --trim-cold-profile --profile-summary-hot-count=100000" \
  "$P --trim-cold-profile --profile-summary-hot-count=100000"
changes def pretrim
same density vm "$D --csspgo-preinliner --show-density" "$P --show-density"
grep -q '^Functions with density >= ' sp.density.out || bad "density: no density line on stdout"
cmp -s pg.density.out sp.density.out || { bad "density: the line differs"; cat pg.density.out sp.density.out; }

# --llvm-sample-profile: the post-passes again on llvm-profgen's unmerged
# flat CS profile (DWARF and probe builds): cold merging, its depth,
# trimming, the hot count, nesting
for b in vm vmp; do
  llvm-profgen-19 --binary=$b --perfscript=$b.script --format=text $F --csprof-merge-cold-context=false \
    -o $b.csflat.prof 2>/dev/null || bad "llvm-profgen-19 (flat CS of $b)"
  R="--llvm-sample-profile=$b.csflat.prof $F"
  same re$b $b "$R" "$R"
  same renest$b $b "$R --gen-cs-nested-profile" "$R --gen-cs-nested-profile=true"
  same retrim$b $b "$R --trim-cold-profile" "$R --trim-cold-profile"
  same rehot$b $b "$R --profile-summary-hot-count=5000" "$R --profile-summary-hot-count=5000"
  same redepth$b $b "$R --csprof-max-cold-context-depth=2" "$R --csprof-max-cold-context-depth=2"
done
changes revm renestvm
changes revm rehotvm
cmp -s vm.csflat.prof pg.revm && bad "--llvm-sample-profile: llvm-profgen changed nothing (vacuous)"
"$SPGO" gen --binary vm --llvm-sample-profile=vm.csflat.prof --csspgo-preinliner -o x.prof 2>err.txt
[ $? = 1 ] && grep -q 'pre-inliner does not run on an existing profile' err.txt ||
  bad "--llvm-sample-profile with the pre-inliner is not refused"

# Probe build: contexts keyed by probes (their own code path)
FP="--pd vmp.data $F" PP="--perfscript=vmp.script $F"
same pflat vmp "$FP" "$PP"
same pcr0 vmp "$FP --compress-recursion=0" "$PP --compress-recursion=0"
changes pflat pcr0
same pdepth2 vmp "$FP --csprof-max-context-depth=2" "$PP --csprof-max-context-depth=2"
changes pflat pdepth2
same pnoinfer vmp "$FP --infer-missing-frames=0" "$PP --infer-missing-frames=0"
changes pflat pnoinfer
# Flat CS in extbinary, byte for byte: contexts sorted frame by frame in
# the CS name and offset tables, metadata in the order of llvm-profgen's
# profile map (context trie, then the cold-context trimmer)
same flatbin vm "$D $F" "$P $F" extbinary
same trimbin vm "$D $F --trim-cold-profile" "$P $F --trim-cold-profile" extbinary
same pflatbin vmp "$FP" "$PP" extbinary
same rebinvm vm "--llvm-sample-profile=vm.csflat.prof $F" "--llvm-sample-profile=vm.csflat.prof $F" extbinary

# LBR only, context-insensitive
L="--ps lbr.script" PL="--perfscript=lbr.script"
same lbr vm "$L --ignore-stack-samples" "$PL --ignore-stack-samples"
# --ignore-stack-samples on hybrid data: llvm-profgen leaves out the samples
# whose stack leaf is in a prologue or epilogue (the LBR-only text has all)
same ignore vm "$D --ignore-stack-samples" "$P --ignore-stack-samples"
same ignoreps vm "--ps vm.script --ignore-stack-samples" "$P --ignore-stack-samples"
changes lbr ignore
same pignore vmp "--pd vmp.data --ignore-stack-samples" "--perfscript=vmp.script --ignore-stack-samples"
same trimcold vm "$L --trim-cold-profile --profile-summary-cold-count=1000000" \
  "$PL --trim-cold-profile --profile-summary-cold-count=1000000"
changes lbr trimcold
same trimcut vm "$L --trim-cold-profile --profile-summary-cutoff-cold=500000" \
  "$PL --trim-cold-profile --profile-summary-cutoff-cold=500000"
changes lbr trimcut
same fillzero vm "$L --fill-zero-for-all-funcs" "$PL --fill-zero-for-all-funcs"
changes lbr fillzero
same ldensity vm "$L --show-density --profile-density-cutoff-hot=500000" \
  "$PL --show-density --profile-density-cutoff-hot=500000"
cmp -s pg.ldensity.out sp.ldensity.out || { bad "ldensity: the line differs"; cat pg.ldensity.out sp.ldensity.out; }
# --sample-period: llvm-profgen-19 reads the weights as aggregated counts
if command -v python3 >/dev/null; then
  python3 "$SPGO_SRC/tests/integration/lib/period_weigh.py" vm 1000003 < lbr.script > wlbr.script
  same period vm "$L --sample-period=1000003" "--perfscript=wlbr.script"
  same pdperiod vm "--pd vm.data --sample-period 1000003" "--perfscript=wlbr.script"
  changes lbr period
else echo "(no python3: --sample-period not compared)"; fi
"$SPGO" gen --binary vm --pd vm.data --cs --sample-period=7 -o x.prof 2>err.txt
[ $? = 2 ] && grep -q 'sample-period' err.txt || bad "--sample-period --cs is not refused"
llvm-profgen-19 --binary=vm --perfscript=lbr.script --skip-symbolization -o pg.unsym 2>/dev/null ||
  bad "llvm-profgen-19 --skip-symbolization"
# --skip-symbolization: llvm-profgen's unsymbolized text, from the text and from perf.data
for in in "$L" "--pd vm.data"; do
  "$SPGO" gen --quiet --binary vm $in --skip-symbolization -o sp.unsym || bad "spgo gen $in --skip-symbolization"
  cmp -s pg.unsym sp.unsym && echo "skip-symbolization ($in): identical to llvm-profgen-19's" ||
    { bad "skip-symbolization ($in): differs from llvm-profgen-19's"; diff pg.unsym sp.unsym | head -5; }
done
# A sample of the dynamic loader's calls to the initialisers (an emulated
# capture holds one or not, by where its environment puts the sampling):
# crt's _init, frame_dummy and register_tm_clones are function symbols of
# size 0, code to llvm-profgen (it disassembles every symbol up to the
# next), so their ranges and the branches into them count.  Hand-written,
# newest first: the loader's code, a call to each one's start and out.
zs=$(readelf -sW vm | awk '$4 == "FUNC" && $3 == 0 && $7 != "UND" &&
  ($8 == "_init" || $8 == "frame_dummy" || $8 == "register_tm_clones") { print $2 }' | sort -u)
if [ -z "$zs" ]; then
  echo "(no crt function of size 0 in vm: the case of its initialisers is not exercised)"
else
  line=""
  for a in $zs; do
    a=$(printf '0x%x' "0x$a")
    line=" $a/0x7f0000001000/P/-/-/0/  0x7f0000000fd0/$a/P/-/-/0/  0x7f0000000fc0/0x7f0000000fc8/P/-/-/0/ $line"
  done
  echo "$line" > zs.script
  llvm-profgen-19 --binary=vm --perfscript=zs.script --skip-symbolization -o pg.zs.unsym 2>/dev/null ||
    bad "llvm-profgen-19 --skip-symbolization (size 0 functions)"
  [ "$(head -1 pg.zs.unsym)" -gt 0 ] 2>/dev/null || bad "size 0 functions: no range in llvm-profgen-19's (vacuous)"
  "$SPGO" gen --quiet --binary vm --ps zs.script --skip-symbolization -o sp.zs.unsym || bad "spgo gen (size 0 functions)"
  cmp -s pg.zs.unsym sp.zs.unsym && echo "skip-symbolization (size 0 functions): identical to llvm-profgen-19's" ||
    { bad "skip-symbolization (size 0 functions): differs from llvm-profgen-19's"; diff pg.zs.unsym sp.zs.unsym | head -5; }
fi
# a stripped binary: llvm-profgen decodes no code of it (it disassembles
# from .symtab symbols), so nothing sampled would be kept: an error naming
# the binary, no file, not an empty profile
strip -o vm.stripped vm
"$SPGO" gen --quiet --binary vm.stripped --pd vm.data --skip-symbolization -o st.unsym 2>err.txt
rc=$?
[ $rc = 1 ] && grep -q 'vm.stripped: --skip-symbolization: .*stripped' err.txt && [ ! -e st.unsym ] ||
  bad "--skip-symbolization of a stripped binary: exit $rc, $(head -c 200 err.txt), file: $(ls st.unsym 2>&1)"
# (with --cs: the unwound contexts, unsym_cs_contexts.sh compares them)
"$SPGO" gen --quiet --binary vm --pd vm.data --cs --skip-symbolization -o cs.unsym 2>err.txt &&
	head -1 cs.unsym | grep -q '^\[' || bad "--skip-symbolization --cs: no contexts: $(cat err.txt)"
same up vm "--up pg.unsym" "--up=pg.unsym"
same up2 vm "--unsymbolized-profile=pg.unsym" "--unsymbolized-profile=pg.unsym"
# (extbinary: spgo's section layout is its own; the list as LLVM reads it)
"$SPGO" gen --quiet --binary vm $L --populate-profile-symbol-list -o sp.sym.prof || bad "symbol list: spgo gen"
llvm-profgen-19 --binary=vm $PL --populate-profile-symbol-list -o pg.sym.prof 2>/dev/null || bad "llvm-profgen-19 (symbols)"
llvm-profdata-19 show --sample --show-prof-sym-list sp.sym.prof > sp.sym.show 2>&1
llvm-profdata-19 show --sample --show-prof-sym-list pg.sym.prof > pg.sym.show 2>&1
grep -q 'profile symbol list' pg.sym.show || bad "symbol list: none in llvm-profgen-19's profile"
cmp -s pg.sym.show sp.sym.show || { bad "symbol list: llvm-profdata-19 shows spgo's differently"; diff pg.sym.show sp.sym.show | head -5; }

# Contradictions and bad values are usage errors
"$SPGO" gen --binary vm --pd vm.data --cs --ignore-stack-samples -o x.prof 2>err.txt
[ $? = 2 ] && grep -q 'ignore-stack-samples' err.txt || bad "--ignore-stack-samples --cs is not refused"
"$SPGO" gen --binary vm $L --trim-cold-profile=maybe -o x.prof 2>err.txt
[ $? = 2 ] && grep -q "'maybe' is not true" err.txt || bad "--trim-cold-profile=maybe is not refused"
[ -e x.prof ] && bad "a profile was written on a usage error"

[ $fail -eq 0 ] && echo "gen_profgen_opts: ok"
exit $fail
