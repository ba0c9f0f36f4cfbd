#!/usr/bin/env bash
# The advice for more samples fits the capture it is given on:
#   - LBR data (here an emulated capture printed as perf script text) is
#     told to record longer or with a smaller period, not to "use branch
#     stacks (perf record -b)" it already has;
#   - an emulated perf.data (spgo emulate's command line in its header) is
#     told spgo emulate's own knob (-c), not perf record -F;
#   - IP samples are told a higher rate and branch stacks (-b);
# and spgo record states the data rate it will write before a heavy
# recording ("about N MB/s": 2304 bytes per sample for cpu-clock with
# dwarf,2048 stacks, measured 2297 with perf 6.1) and warns above 25 MB/s
# per busy thread (-F 20000 with dwarf stacks wrote 540 MB in 4 s unsaid).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}" "${SPGO_BUILD:?}"
need gcc
scratch
src="$SPGO_SRC/tests/data/perf_prog.c"

# 1. spgo record's estimate (--dry-run with -e: no perf needed)
"$SPGO" record --dry-run -e cpu-clock --call-graph dwarf -F 20000 -o x.data -- true > cmd.txt 2> err.txt ||
  bad "record --dry-run failed: $(cat err.txt)"
grep -q "about 46.1 MB/s of perf.data per busy thread (2304 bytes per sample x 20000 samples/s" err.txt ||
  { bad "no data rate for -F 20000 with dwarf stacks:"; cat err.txt; }
grep -q "warning: a heavy recording.*--call-graph fp or none" err.txt || bad "no warning of a heavy recording"
"$SPGO" record --dry-run -e cpu-clock --call-graph none -o x.data -- true > cmd.txt 2> err.txt
grep -q "about 0.2 MB/s" err.txt || { bad "no data rate for the light recording:"; cat err.txt; }
grep -q "warning" err.txt && bad "a light recording warned: $(cat err.txt)"
"$SPGO" record --dry-run -e cpu-clock --call-graph fp -c 100000 -a -o x.data > cmd.txt 2> err.txt
grep -Eq "about [0-9.]+ MB/s of perf.data \(192 bytes per sample x 10000 samples/s x [0-9]+ CPUs\)" err.txt ||
  { bad "no data rate for -a:"; cat err.txt; }

# 2. the advice (each warning that asks for more samples)
advice() { grep -E "warning: the profile is (sparse|tiny)" "$1"; }
if command -v perf >/dev/null && perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null; then
  gcc -O2 -g -o prog "$src"
  perf record -q -e cpu-clock -F 500 -o ip.data -- ./prog 40000 >/dev/null 2>&1
  "$SPGO" gen --binary prog --perf-data ip.data -o ip.prof 2> err.txt || { bad "gen ip"; cat err.txt; }
  advice err.txt > a.txt || bad "IP: no advice (the test needs a sparse profile)"
  grep -q "perf record -b" a.txt || bad "IP: no word of branch stacks: $(cat a.txt)"
  grep -q "higher rate (perf record -F" a.txt || bad "IP: no word of the rate: $(cat a.txt)"
  echo "IP: $(cat a.txt)"
else
  echo "note: perf cannot record; the IP advice is not checked"
fi
if [ -f "$SPGO_BUILD/emulate/spgo-emulate.so" ] && command -v qemu-x86_64 >/dev/null; then
  gcc -O2 -g -no-pie -o prognp "$src"
  "$SPGO" emulate -c 2000000 --seed 7 -o emu.data -- ./prognp 3000 >/dev/null 2>&1
  # (a few samples: "tiny" for certain; at -c 300000 the density came out
  # near the sparse threshold of 50, either side of it from run to run)
  "$SPGO" gen --binary prognp --perf-data emu.data -o emu.prof 2> err.txt || { bad "gen emu"; cat err.txt; }
  advice err.txt > a.txt || bad "emulated: no advice (the test needs a sparse profile)"
  grep -q "spgo emulate -c" a.txt || bad "emulated: spgo emulate's period not named: $(cat a.txt)"
  grep -q "perf record" a.txt && bad "emulated: perf record named: $(cat a.txt)"
  echo "emulated: $(cat a.txt)"
  "$SPGO" script -i emu.data -F ip,brstack > lbr.txt
  "$SPGO" gen --binary prognp --perf-script lbr.txt -o lbr.prof 2> err.txt || { bad "gen lbr"; cat err.txt; }
  advice err.txt > a.txt || bad "LBR: no advice (the test needs a sparse profile)"
  grep -Eq "use branch stacks|record branch stacks" a.txt && bad "LBR: told to use branch stacks: $(cat a.txt)"
  grep -q "smaller period" a.txt || bad "LBR: no word of a smaller period: $(cat a.txt)"
  echo "LBR: $(cat a.txt)"
else
  echo "note: no emulator; the emulated and LBR advice are not checked"
fi
exit $fail
