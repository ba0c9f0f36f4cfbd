#!/usr/bin/env bash
# spgo emulate speed on a real workload: Debian's sqlite3 speedtest1 (built
# here from the sqlite3 source package: amalgamation + test/speedtest1.c,
# -O2 -fno-omit-frame-pointer), native vs under `spgo emulate` (QEMU + the
# plugin, perf.data written), with and without ground truth, and plain
# qemu-x86_64 for reference.  Median wall time of REPEATS runs and peak RSS.
# Target: emulation under 20x native.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
w="$BENCH_WORK/emulate"
mkdir -p "$w"
cd "$w"
SIZE=${SPEEDTEST_SIZE:-25}
REPEATS=${REPEATS:-3}

# --- build speedtest1 ----------------------------------------------------------
if [ ! -x speedtest1 ]; then
  if [ ! -f sqlite3.c ]; then
    d=$("$SPGO_SRC/scripts/debian-source.sh" sqlite3 src)
    (cd "$d" && ./configure -q --disable-tcl > /dev/null && make -s sqlite3.c > /dev/null)
    cp "$d/sqlite3.c" "$d/sqlite3.h" "$d/test/speedtest1.c" .
  fi
  gcc -O2 -g -fno-omit-frame-pointer -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 \
    -I. -o speedtest1 speedtest1.c sqlite3.c -lm
fi

run="./speedtest1 --size $SIZE --memdb"
# The configurations run round-robin, REPEATS times, so that load from other
# jobs on the machine falls on all of them alike; medians are reported.
# Each run: wall seconds, CPU seconds (user + sys), peak RSS KiB.
names=(native qemu emu gt)
cmds=("$run" "qemu-x86_64 $run" "$SPGO emulate -o perf.data -- $run"
      "$SPGO emulate -o perf.data --ground-truth gt.txt -- $run")
rm -f times.txt
for ((r = 0; r < REPEATS; r++)); do
  for i in "${!names[@]}"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "${names[$i]} %e %U %S %M" -a -o times.txt ${cmds[$i]} > /dev/null 2> /dev/null
  done
done
med() {  # med NAME FIELD: median of a column (2 wall, 3 cpu, 4 rss)
  awk -v n="$1" -v f="$2" '$1 == n { v = f == 3 ? $3 + $4 : (f == 4 ? $5 : $2); print v }' times.txt |
    sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
samples=$(perf report -i perf.data --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
row() {  # row LABEL NAME
  local w c m
  w=$(med "$2" 2); c=$(med "$2" 3); m=$(med "$2" 4)
  echo "| $1 | $w | $c | $m | $(ratio "$w" "$(med native 2)") | $(ratio "$c" "$(med native 3)") |"
}
out="$SPGO_SRC/bench/results/emulate.md"
{
  echo "# spgo emulate: sqlite3 speedtest1 --size $SIZE --memdb"
  echo
  echo "Median of $REPEATS round-robin runs; $(nproc) cores shared with other jobs (load average $(cut -d' ' -f1 /proc/loadavg) at the end); $(date -u +%Y-%m-%d)."
  echo "Samples in perf.data: ${samples:-?} (default period 20011 taken branches, 32-entry LBR)."
  echo
  echo "| run | wall s | CPU s | peak RSS KiB | wall slowdown | CPU slowdown |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  row native native
  row "qemu-x86_64, no plugin" qemu
  row "spgo emulate (perf.data)" emu
  row "spgo emulate + ground truth" gt
  echo
  echo "Target: spgo emulate under 20x native.  CPU time is the steadier figure on a loaded machine."
} | tee "$out"
