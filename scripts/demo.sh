#!/usr/bin/env bash
# make demo: the whole sampling PGO loop on the bundled example program
# (examples/minivm: a lexer, parser and bytecode interpreter), twice:
#
#   clang-19 -O2 -g -fdebug-info-for-profiling  ->  spgo record  ->  spgo gen
#     ->  clang-19 -O2 -fprofile-sample-use=PROFILE
#   gcc -O2 -g  ->  spgo record  ->  spgo gen --format gcov
#     ->  gcc -O2 -fauto-profile=PROFILE
#
# and times each pair of builds in interleaved runs (user CPU time, which
# other load on the machine disturbs less than wall time), printing the
# median of each and the speedup.  spgo record picks the best event the
# machine has: LBR where there is a PMU with branch stacks, else cycles,
# else cpu-clock (then spgo gen works from sampled instruction pointers).
#
# The training runs are 120 rounds (about 4 s): IP samples at perf's
# default 4 kHz are sparse, and more of them make a better profile.
#
# Environment: DEMO_RUNS (timed runs per build, default 7), DEMO_SCALE
# (workload size of a timed run, default 30; about 30 ms per unit).
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
spgo="$src/$build/spgo"
prog="$src/examples/minivm/minivm.c"
out="$src/$build/demo"
runs=${DEMO_RUNS:-7}
scale=${DEMO_SCALE:-30}
mkdir -p "$out"
cd "$out"

# user CPU seconds of one run of "$@"
user_time() {
  local TIMEFORMAT=%U t
  { t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ); } 2>&1
  echo "$t"
}

# compare NAME_A BIN_A NAME_B BIN_B: interleaved runs, medians, speedup
compare() {
  local a=$2 b=$4 ta=() tb=()
  for ((i = 0; i < runs; i++)); do
    ta+=("$(user_time "./$a" "$scale")")
    tb+=("$(user_time "./$b" "$scale")")
  done
  local ma mb
  ma=$(printf '%s\n' "${ta[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  mb=$(printf '%s\n' "${tb[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  printf '   %-34s median %6.3f s  (%d runs)\n' "$1" "$ma" "$runs"
  printf '   %-34s median %6.3f s  (%d runs)\n' "$3" "$mb" "$runs"
  awk -v a="$ma" -v b="$mb" -v n="$5" 'BEGIN {
    if (b <= 0) { print "   speedup: n/a"; exit }
    printf "   %s speedup: %.1f%% (%.3fx)\n", n, (a / b - 1) * 100, a / b }'
}

echo "== clang-19: build minivm -O2 -g -fdebug-info-for-profiling"
clang-19 -O2 -g -fdebug-info-for-profiling -o minivm "$prog"
./minivm 1
echo "== spgo record (the event it picks and why)"
"$spgo" record -o minivm.perf.data -- ./minivm 120 2>&1 | grep -v '^\[ perf record' >&2 || true
echo "== spgo gen"
"$spgo" gen --binary minivm --perf-data minivm.perf.data -o minivm.prof
"$spgo" show minivm.prof | sed -n '1,12p'
echo "== clang-19: rebuild with -fprofile-sample-use"
clang-19 -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=minivm.prof -o minivm.spgo "$prog"
[ "$(./minivm 3)" = "$(./minivm.spgo 3)" ] || { echo "demo: outputs differ"; exit 1; }
echo "== clang-19: time both builds (minivm $scale, interleaved)"
compare "clang-19 -O2" minivm "clang-19 -O2 + spgo profile" minivm.spgo "clang-19 sample PGO"

echo
echo "== gcc: build minivm -O2 -g"
gcc -O2 -g -o gminivm "$prog"
echo "== spgo record"
"$spgo" record -o gminivm.perf.data -- ./gminivm 120 2>&1 | grep -v '^\[ perf record' >&2 || true
echo "== spgo gen --format gcov"
"$spgo" gen --binary gminivm --perf-data gminivm.perf.data -o gminivm.afdo --format gcov
echo "== gcc: rebuild with -fauto-profile"
gcc -O2 -g -fauto-profile=gminivm.afdo -o gminivm.spgo "$prog"
[ "$(./gminivm 3)" = "$(./gminivm.spgo 3)" ] || { echo "demo: outputs differ"; exit 1; }
echo "== gcc: time both builds (minivm $scale, interleaved)"
compare "gcc -O2" gminivm "gcc -O2 + spgo profile" gminivm.spgo "gcc AutoFDO"
echo "== demo: the programs, perf.data files and profiles are in $out"
