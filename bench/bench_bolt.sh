#!/usr/bin/env bash
# BOLT's profile from one LBR capture: spgo gen --format bolt against
# perf2bolt-19 (which runs `perf script` over the whole capture), on the same
# file: minivm (clang-19 -O2, --emit-relocs) under `spgo emulate` with a
# short period until the capture is at least BOLT_MB megabytes (default 200).
# Wall time and peak RSS from /usr/bin/time -v (perf2bolt's own process; the
# `perf script` children it spawns are not counted).  Both fdata files are
# compared after sorting (they must be the same lines).  ROUNDS (default 5)
# interleaved runs of each; medians.  Target (issue 29):
# at least 20x faster at a fraction of the memory.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
command -v perf2bolt-19 >/dev/null || { echo "bench_bolt: perf2bolt-19 missing (bolt-19)"; exit 0; }
MB=${BOLT_MB:-200}
w="$BENCH_WORK/bolt"
mkdir -p "$w/shim"
cd "$w"
[ -x minivm ] && [ -f big.data ] || { rm -f big.data; clang-19 -O2 -g -fno-pie -no-pie -Wl,--emit-relocs -o minivm "$SPGO_SRC/examples/minivm/minivm.c"; }
# perf2bolt reads `perf script -F pid,ip,brstack`: hide the emulator's call stacks
printf '#!/bin/sh\n[ "$1" = script ] && { shift; exec %s script --hide-call-graph "$@"; }\nexec %s "$@"\n' \
  "$(command -v perf)" "$(command -v perf)" > shim/perf
chmod +x shim/perf
scale=9
while [ ! -f big.data ] || [ "$(stat -L -c %s big.data)" -lt $((MB * 1000 * 1000)) ]; do
  echo "emulating minivm $scale ..."
  "$SPGO" emulate -c 2000 --seed 1 -o big.data -- ./minivm "$scale" > /dev/null 2>&1
  scale=$((scale * 2))
done
size=$(( $(stat -L -c %s big.data) / 1000 / 1000 ))

measure() { # OUT CMD...: "wall_s rss_mb"
  local out=$1; shift
  /usr/bin/time -v -o "$out.time" "$@" > "$out.log" 2>&1
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
              /Maximum resident set size/ { m = $2 / 1024 } END { printf "%.2f %.1f\n", s, m }' "$out.time"
}
# ROUNDS rounds, the two tools interleaved: one run of either is at the
# mercy of this machine's noise (page cache, other load); the table gives
# the median wall time, the range and the largest peak RSS.
ROUNDS=${ROUNDS:-5}
: > spgo.runs; : > p2b.runs
for r in $(seq "$ROUNDS"); do
  measure spgo "$SPGO" gen --binary minivm --perf-data big.data --format bolt -o spgo.fdata --quiet >> spgo.runs
  PATH="$w/shim:$PATH" measure p2b perf2bolt-19 --aggregate-only -p big.data -o p2b.fdata minivm >> p2b.runs
done
stats() { # FILE: "median min max rss_max"
  sort -n "$1" | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
    END { printf "%.2f %.2f %.2f %.1f\n", (NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2), t[1], t[NR], m }'
}
read -r t_spgo lo_spgo hi_spgo m_spgo < <(stats spgo.runs)
read -r t_p2b lo_p2b hi_p2b m_p2b < <(stats p2b.runs)
same=no
cmp -s <(sort spgo.fdata) <(sort p2b.fdata) && same=yes
ratio=$(awk -v a="$t_p2b" -v b="$t_spgo" 'BEGIN { printf "%.1f", a / b }')
mem=$(awk -v a="$m_p2b" -v b="$m_spgo" 'BEGIN { printf "%.1f", a / b }')
res="$SPGO_SRC/bench/results/bolt.md"
{
  echo "# BOLT profile: spgo gen --format bolt vs perf2bolt-19"
  echo
  echo "Capture: minivm (clang-19 -O2, -Wl,--emit-relocs) under spgo emulate, $size MB,"
  echo "$(wc -l < spgo.fdata) fdata lines.  Same lines as perf2bolt-19's (sorted): $same."
  echo
  echo "| tool | wall (s), median of $ROUNDS | range | peak RSS (MB) |"
  echo "| --- | ---: | ---: | ---: |"
  echo "| spgo gen --format bolt | $t_spgo | $lo_spgo-$hi_spgo | $m_spgo |"
  echo "| perf2bolt-19 --aggregate-only | $t_p2b | $lo_p2b-$hi_p2b | $m_p2b |"
  echo
  echo "$ROUNDS interleaved rounds; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "spgo is ${ratio}x faster (medians) with 1/${mem} of the memory (perf2bolt's own process;"
  echo "its perf script children are not counted).  $(date -u +%Y-%m-%d), $(nproc) cores."
} > "$res"
cat "$res"
[ "$same" = yes ]
