#!/usr/bin/env bash
# spgo gen --format gcov on a C++ program built by g++-12: the names gcc
# 12's auto-profile looks up (src/gen/gen_gcc.c, gen_gcc_names).
# tests/integration/lib/gcov_names.cpp has two member functions `step` of
# classes in an anonymous namespace and a static `gen`: internal linkage,
# so g++ writes no DW_AT_linkage_name, only DW_AT_name "step" and "gen".
# Named by DW_AT_name, the two `step` were one profile: B::step's lines
# lost, no head samples, no call targets, and gcc 12 annotated B::step
# with count 0.  Named by their ELF symbols (what gcc looks up first, as
# create_gcov names them), each has its own profile, and gcc 12 gives
# both their counts.  Also: the inlined destructor is named by its
# abstract D4 name, which gcc's inline stack carries (the D2 clone's name,
# create_gcov's, makes gcc report "function not found in inline stack").
# And isr, which g++ makes _ZL3isrRK3Bigl.isra.0 beside a .isra.0.cold:
# calls into it are isr's head samples (gcc reads the profile before its
# IPA clones exist; create_gcov counts them so), where llvm-profgen's rule
# (a foo.isra.0 beside other code of foo is not foo's entry) gave none.
# Exact counts and emulated LBR alike.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}" "${SPGO_BUILD:?}"
need g++-12 qemu-x86_64
[ -f "$SPGO_BUILD/emulate/spgo-emulate.so" ] || { echo "skip: the QEMU plugin was not built"; exit 77; }
scratch
g++-12 -O2 -gdwarf-4 -o gn "$SPGO_SRC/tests/integration/lib/gcov_names.cpp" || { bad "g++-12"; exit 1; }
env -i PATH="$PATH" "$SPGO" emulate -o gn.data --ground-truth gn.gt -- ./gn 300000 > /dev/null 2> emu.err ||
  { cat emu.err; bad "spgo emulate"; exit 1; }
"$SPGO" gen --binary gn --ground-truth gn.gt --format gcov -o exact.afdo --quiet || bad "gen --ground-truth"
"$SPGO" gen --binary gn --perf-data gn.data --format gcov -o lbr.afdo --quiet || bad "gen --perf-data"
A=_ZN12_GLOBAL__N_11A4stepEl B=_ZN12_GLOBAL__N_11B4stepEl G=_ZL3genl I=_ZL3isrRK3Bigl
# bbcount DUMP FUNC: the count of FUNC's first block in gcc's afdo dump
# (FUNC returning long: its body starts at "long int FUNC (")
bbcount() {
  awk -v f="long int $2 (" 'index($0, f) == 1 { on = 1; next }
    on && /<bb [0-9]+> \[count: / { sub(/.*count: /, ""); sub(/\].*/, ""); print; exit }' "$1"
}
for p in exact lbr; do
  [ -s $p.afdo ] || continue
  "$SPGO" convert $p.afdo --format text -o $p.txt || { bad "$p: convert"; continue; }
  for f in $A $B $G $I; do
    # NAME:TOTAL:HEAD with samples in the body and at the head
    awk -F: -v f=$f '$1 == f && $2 > 0 && $3 > 0 { ok = 1 } END { exit !ok }' $p.txt ||
      bad "$p: no top-level profile $f with samples and head samples: $(grep -v '^ ' $p.txt | tr '\n' ' ')"
  done
  grep -q "^ *[0-9.]*: [0-9]* .*$B:[0-9]" $p.txt || bad "$p: main has no call target $B"
  grep -qx 'step:.*' $p.txt && bad "$p: a function named by its DWARF name 'step'"
  grep -q '_ZN3AccD4Ev' $p.txt || bad "$p: the inlined destructor is not named _ZN3AccD4Ev"
  # the real consumer: what gcc 12 annotates from it
  mkdir -p gcc.$p
  (cd gcc.$p && g++-12 -O2 -gdwarf-4 -fauto-profile=../$p.afdo -fdump-ipa-afdo -o gn \
     "$SPGO_SRC/tests/integration/lib/gcov_names.cpp") > gcc.$p.err 2>&1 || { cat gcc.$p.err; bad "$p: g++-12 -fauto-profile"; continue; }
  d=$(ls gcc.$p/*.afdo)
  for f in A B; do
    c=$(bbcount "$d" "{anonymous}::$f::step")
    [ "${c:-0}" -gt 0 ] || bad "$p: gcc 12 gives {anonymous}::$f::step's entry block count ${c:-none}"
  done
  # (the inlined destructor's call of puts: looked up through ~Acc's
  # inline instance in main)
  grep -A1 'direct call puts ("w")' "$d" | grep -q 'function not found in inline stack' &&
    bad "$p: gcc 12 did not find the inlined destructor in main's profile"
done
exit $fail
