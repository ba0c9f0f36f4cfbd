#!/usr/bin/env bash
# IP mode: indirect calls get their targets from the sampled function's
# caller (perf record --call-graph dwarf: user registers and stack; one
# frame unwound by the binary's .eh_frame).  tests/data/icall_prog.c calls
# three functions through one pointer 6:3:1, each doing the same work per
# call: the call site's targets in spgo's profile must be those three with
# about those shares (cpu-clock samples: +-12 points), as the exact profile
# (`spgo emulate --ground-truth`, when the QEMU plugin is built) has them;
# llvm-profdata-19 must read the profile.  Without registers and stack
# (plain perf record) the site has no targets: IP samples alone cannot say.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need perf clang-19
scratch
perf record -q -e cpu-clock:u --call-graph dwarf,2048 -o probe.data -- true 2>/dev/null ||
  { echo "skip: perf cannot record user stacks"; exit 77; }

clang-19 -O2 -g -fdebug-info-for-profiling -o icall "$SPGO_SRC/tests/data/icall_prog.c" ||
  { echo "FAIL: build"; exit 1; }
perf record -q -e cpu-clock:u -F 20000 --call-graph dwarf,2048 -o dw.data -- ./icall >/dev/null 2>&1
perf record -q -e cpu-clock:u -F 20000 -o ip.data -- ./icall >/dev/null 2>&1
"$SPGO" gen --binary icall --perf-data dw.data -o dw.txt --format text 2>gen.err ||
  { cat gen.err; echo "FAIL: spgo gen"; exit 1; }
cat gen.err
grep -q "indirect calls: .* unwound" gen.err || bad "no unwinding statistics"
"$SPGO" gen --binary icall --perf-data ip.data -o ip.txt --format text --quiet || bad "spgo gen (plain)"
llvm-profdata-19 show --sample dw.txt >/dev/null || bad "llvm-profdata-19 cannot read the profile"

# The call site: the body line of main with call targets op_*.
site=$(grep -E '^ [0-9.]+: [0-9]+ op_' dw.txt)
echo "site: $site"
[ -n "$site" ] || bad "no call targets at the indirect call site"
share() { echo "$site" | tr ' ' '\n' | awk -F: -v f="$1" '/^op_/ {t += $2; if ($1 == f) c = $2} END {printf "%d", t ? 100 * c / t : 0}'; }
for want in op_often:60 op_sometimes:30 op_rarely:10; do
  f=${want%:*} e=${want#*:} got=$(share "${want%:*}")
  echo "$f: ${got}% of the site's calls (exact: ${e}%)"
  [ "$got" -ge $((e - 12)) ] && [ "$got" -le $((e + 12)) ] || bad "$f: ${got}% (exact ${e}%)"
done
if grep -qE '^ [0-9.]+: [0-9]+ op_' ip.txt; then bad "targets without registers and stack?"; fi

# The exact profile, when the emulator is there, has the same site and shares.
if "$SPGO" emulate -o e.data --ground-truth gt -- ./icall 100000 >/dev/null 2>&1; then
  "$SPGO" gen --binary icall --ground-truth gt -o gt.txt --format text --quiet || bad "gen --ground-truth"
  gsite=$(grep -E '^ [0-9.]+: [0-9]+ op_' gt.txt)
  echo "exact: $gsite"
  [ "${gsite%%:*}" = "${site%%:*}" ] || bad "site ${site%%:*} vs exact ${gsite%%:*}"
else
  echo "(no emulator: exact profile not compared)"
fi
exit $fail
