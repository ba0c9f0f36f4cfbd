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
    "$SPGO_SRC/emulate/fetch-qemu-header.sh" --deb-src-only
    rm -rf src && mkdir src
    (cd src && apt-get source --download-only -qq sqlite3 > /dev/null 2>&1)
    tar -xJf src/sqlite3_*.orig.tar.xz -C src
    d=$(ls -d src/sqlite3-*/ | head -n1)
    (cd "$d" && ./configure -q --disable-tcl > /dev/null && make -s sqlite3.c > /dev/null)
    cp "$d/sqlite3.c" "$d/sqlite3.h" "$d/test/speedtest1.c" .
  fi
  gcc -O2 -g -fno-omit-frame-pointer -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 \
    -I. -o speedtest1 speedtest1.c sqlite3.c -lm
fi

# median of REPEATS runs: "seconds peak_rss_kb"
measure() {
  local i
  for ((i = 0; i < REPEATS; i++)); do
    /usr/bin/time -f '%e %M' -o t.txt "$@" > /dev/null 2> /dev/null
    cat t.txt
  done | sort -n | awk '{ t[NR] = $1; m[NR] = $2 } END { i = int((NR + 1) / 2); print t[i], m[i] }'
}

run=(./speedtest1 --size "$SIZE" --memdb)
read -r t_nat m_nat < <(measure "${run[@]}")
read -r t_qemu m_qemu < <(measure qemu-x86_64 "${run[@]}")
read -r t_emu m_emu < <(measure "$SPGO" emulate -o perf.data -- "${run[@]}")
read -r t_gt m_gt < <(measure "$SPGO" emulate -o perf.data --ground-truth gt.txt -- "${run[@]}")
samples=$(perf report -i perf.data --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
out="$SPGO_SRC/bench/results/emulate.md"
{
  echo "# spgo emulate: sqlite3 speedtest1 --size $SIZE --memdb"
  echo
  echo "Median of $REPEATS runs; $(nproc) cores; $(date -u +%Y-%m-%d). Samples in perf.data: ${samples:-?} (default period 20011 taken branches, 32-entry LBR)."
  echo
  echo "| run | wall s | peak RSS KiB | slowdown vs native |"
  echo "| --- | ---: | ---: | ---: |"
  echo "| native | $t_nat | $m_nat | 1.0x |"
  echo "| qemu-x86_64, no plugin | $t_qemu | $m_qemu | $(ratio "$t_qemu" "$t_nat") |"
  echo "| spgo emulate (perf.data) | $t_emu | $m_emu | $(ratio "$t_emu" "$t_nat") |"
  echo "| spgo emulate + ground truth | $t_gt | $m_gt | $(ratio "$t_gt" "$t_nat") |"
  echo
  echo "Target: spgo emulate under 20x native."
} | tee "$out"
