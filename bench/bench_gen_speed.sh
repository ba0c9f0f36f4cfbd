#!/usr/bin/env bash
# Acceptance 4 of spgo gen: speed and memory on an emulated LBR capture of
# at least 1 GiB (sqlite3's speedtest1 under `spgo emulate` with a short
# sampling period; 32-entry branch stacks and call stacks), the same file
# for every tool:
#
#   spgo gen --perf-data                      (read + aggregate + generate)
#   perf script -F ip,brstack | llvm-profgen-19 (two steps; wall times add,
#                                              peak RSS is the larger)
#   create_llvm_prof                          (autofdo 0.19, on the copy
#                                              `spgo script --rewrite` makes)
#
# Wall time and peak RSS from /usr/bin/time, median of REPEATS runs for spgo
# (1 for the peers: they take minutes).  Targets: 10x faster than perf
# script + llvm-profgen, 5x faster than create_llvm_prof, peak RSS at most a
# fifth of either.  The binary is built -no-pie -gdwarf-4 so that every
# tool maps and reads it.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
source "$SPGO_SRC/bench/gen_programs.sh"
REPEATS=${REPEATS:-3}
GIB=${BENCH_GIB:-1}
w="$BENCH_WORK/gen_speed"
mkdir -p "$w"
cd "$w"
sq="$BENCH_WORK/gen/sqlite"
gen_fetch_sqlite "$sq"
if [ ! -x speedtest1 ]; then
  clang-19 -O2 -gdwarf-4 -fdebug-info-for-profiling -fno-omit-frame-pointer -fno-pie -no-pie \
    -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I"$sq" -o speedtest1 \
    "$sq/speedtest1.c" "$sq/sqlite3.c" -lm
fi
want=$((GIB * 1024 * 1024 * 1024))
size=10
while [ ! -f big.data ] || [ "$(stat -c %s big.data)" -lt "$want" ]; do
  echo "emulating speedtest1 --size $size (period 400) ..."
  "$SPGO" emulate -c 400 -o big.data -- ./speedtest1 --size "$size" --memdb > /dev/null 2>&1
  size=$((size * 2))
done
mb=$(( $(stat -c %s big.data) / 1024 / 1024 ))

measure() {  # measure N CMD...: median "wall rss_kb" of N runs
  local n=$1 i; shift
  for ((i = 0; i < n; i++)); do
    /usr/bin/time -f '%e %M' -o t.txt "$@" > /dev/null 2> /dev/null || true
    tail -n1 t.txt
  done | sort -n | awk '{ t[NR] = $1; m[NR] = $2 } END { i = int((NR + 1) / 2); print t[i], m[i] }'
}

read -r t_spgo m_spgo < <(measure "$REPEATS" "$SPGO" gen --binary speedtest1 --perf-data big.data -o spgo.prof --quiet)
read -r t_ps m_ps < <(measure 1 sh -c 'perf script -i big.data -F ip,brstack > big.script')
read -r t_pg m_pg < <(measure 1 llvm-profgen-19 --binary=speedtest1 --perfscript=big.script --ignore-stack-samples -o profgen.prof)
rm -f big.script
"$SPGO" script -i big.data --rewrite big.old.data
read -r t_cl m_cl < <(measure 1 create_llvm_prof --binary=speedtest1 --profile=big.old.data --out=cl.prof --format=text)
rm -f big.old.data
sim=$(llvm-profdata-19 overlap --sample profgen.prof spgo.prof 2>/dev/null |
  sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p')

t_peer=$(awk -v a="$t_ps" -v b="$t_pg" 'BEGIN { print a + b }')
m_peer=$(( m_ps > m_pg ? m_ps : m_pg ))
x() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }
x2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3fx", a / b; else print "n/a" }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
out="$SPGO_SRC/bench/results/gen_speed.md"
{
  echo "# spgo gen: speed and memory on a ${mb} MiB emulated LBR capture"
  echo
  echo "speedtest1 --memdb under \`spgo emulate -c 400\` (32-entry LBR + call stacks); $(nproc) cores"
  echo "shared with other work; $(date -u +%Y-%m-%d). spgo: median of $REPEATS runs; peers: 1 run."
  echo "spgo's profile vs llvm-profgen-19's: similarity ${sim:-?}% (llvm-profdata-19 overlap)."
  echo
  echo "| tool | wall s | peak RSS MiB | spgo faster by | spgo RSS share |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  echo "| spgo gen --perf-data | $t_spgo | $(mib "$m_spgo") | | |"
  echo "| perf script -F ip,brstack | $t_ps | $(mib "$m_ps") | | |"
  echo "| llvm-profgen-19 (on that text) | $t_pg | $(mib "$m_pg") | | |"
  echo "| perf script + llvm-profgen-19 | $t_peer | $(mib "$m_peer") | $(x "$t_peer" "$t_spgo") | $(x2 "$m_spgo" "$m_peer") |"
  echo "| create_llvm_prof | $t_cl | $(mib "$m_cl") | $(x "$t_cl" "$t_spgo") | $(x2 "$m_spgo" "$m_cl") |"
  echo
  echo "Targets: 10x faster than perf script + llvm-profgen-19, 5x faster than create_llvm_prof,"
  echo "peak RSS at most a fifth (0.2x) of either."
} | tee "$out"
