#!/usr/bin/env bash
# make fuzz: build the libFuzzer harnesses of fuzz/ with clang-19
# (ASan+UBSan, coverage) in BUILD_FUZZ, then run each for FUZZ_SECONDS
# (default 60) on one core, one after another, from its seeds (fuzz/corpus,
# the made seeds and what earlier runs found, kept in BUILD_FUZZ/corpus).
# Prints per harness the executions, coverage (edges) and findings; a
# finding is a crash-/leak-/timeout-/oom- file in BUILD_FUZZ/findings/NAME,
# to be fixed and then copied into fuzz/crashes/NAME (replayed by make
# check).  FUZZ_ONLY=NAME[,NAME...] runs those harnesses; FUZZ_JOBS=N runs N harnesses
# at a time (each still on one core; default 1).  Exit status 1 if
# anything was found.
set -uo pipefail
build=${BUILD_FUZZ:-build-fuzz}
secs=${FUZZ_SECONDS:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
CC=clang-19 cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPGO_FUZZ=ON \
  -DSPGO_EMULATOR=OFF >/dev/null || exit 1
cmake --build "$build" -j "$(nproc)" >/dev/null || { cmake --build "$build" 2>&1 | tail -20; exit 1; }
# The made seeds need the normal spgo (gcov seeds); the fuzz build has one too.
SPGO_SRC=$src "$src/fuzz/make-seeds.sh" "$build/seeds" "$build/spgo" >/dev/null 2>&1
jobs=${FUZZ_JOBS:-1}
# run_one NAME: fuzz one harness; its log and findings in BUILD_FUZZ/findings.
run_one() {
  local short=$1 h="$build/fuzz/fuzz_$1"
  local corpus="$build/corpus/$short" findings="$build/findings/$short"
  rm -rf "$findings"; mkdir -p "$corpus" "$findings" # this run's findings only
  local dict=(); [ -f "$src/fuzz/dict/$short.dict" ] && dict=(-dict="$src/fuzz/dict/$short.dict")
  local seeds=() d
  for d in "$src/fuzz/corpus/$short" "$build/seeds/$short" "$src/fuzz/crashes/$short"; do
    [ -d "$d" ] && seeds+=("$d")
  done
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$h" "$corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 \
    -max_len=1048576 -print_final_stats=1 -artifact_prefix="$findings/" -close_fd_mask=3 \
    > "$build/findings/$short.log" 2>&1
}
names=()
for h in "$build"/fuzz/fuzz_*; do
  short=$(basename "$h"); short=${short#fuzz_}
  [ -n "${FUZZ_ONLY:-}" ] && [[ ",$FUZZ_ONLY," != *",$short,"* ]] && continue
  names+=("$short")
done
mkdir -p "$build/findings"
running=0
for short in "${names[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  run_one "$short" & running=$((running + 1))
done
wait
found=0
printf '%-14s %12s %8s %8s  %s\n' harness executions "cov" "ft" findings
for short in "${names[@]}"; do
  findings="$build/findings/$short"; log="$build/findings/$short.log"
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  n=$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  [ "$n" -gt 0 ] && found=1
  printf '%-14s %12s %8s %8s  %s\n' "$short" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
    "$([ "$n" -gt 0 ] && echo "$n in $findings (log: $log)" || echo none)"
done
exit $found
