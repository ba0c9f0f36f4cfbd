#!/usr/bin/env bash
# Reading Arm SPE: spgo against perf script on the same SPE perf.data.  The
# capture is emulated (spgo emulate --spe, every branch recorded with
# probability 1/2) from tests/data/emulate/branchy.c; perf 6.1 decodes it
# with --itrace=i1i (one sample per SPE record; it has no branch samples for
# SPE, see docs/formats/arm-spe.md).  Compared: perf script --itrace=i1i -F
# ip (decode, print each record's PC), spgo script -F ip (the same text), and
# spgo's aggregation of the capture (decode, infer ranges, count: what spgo
# gen reads).  Wall time, CPU time and peak RSS from /usr/bin/time; medians
# of BENCH_REPEAT runs (default 3; perf BENCH_PERF_REPEAT, default 1).
set -euo pipefail
: "${SPGO:?}" "${BENCH_WORK:?}" "${SPGO_SRC:?}"
command -v perf > /dev/null || { echo "bench_spe: perf not installed"; exit 1; }
reps=${BENCH_REPEAT:-3}; preps=${BENCH_PERF_REPEAT:-1}
iters=${BENCH_SPE_ITERS:-3000000}
w="$BENCH_WORK/spe"; mkdir -p "$w"
gcc -O2 -g -o "$w/br" "$SPGO_SRC/tests/data/emulate/branchy.c"
data="$w/spe-$iters.data"
[ -f "$data" ] || "$SPGO" emulate --spe -c 2 -o "$data" -- "$w/br" "$iters" > /dev/null
size=$(stat -c %s "$data")
mb=$(awk -v s="$size" 'BEGIN { printf "%.0f", s / 1e6 }')

source "$SPGO_SRC/bench/measure_lib.sh"
MEASURE_DIR=$w

# The same records?  (perf 6.1 hands out one empty record, ip 0, first.)
h1=$(perf script -i "$data" --itrace=i1i -F ip 2> /dev/null | awk '$1 != "0"' | md5sum | cut -c1-32)
h2=$("$SPGO" script -i "$data" -F ip | md5sum | cut -c1-32)
n=$("$SPGO" script -i "$data" -F ip | wc -l)
same=$([ "$h1" = "$h2" ] && echo "identical" || echo "DIFFERENT")

read -r ps prss pc < <(measure "$preps" perf script -i "$data" --itrace=i1i -F ip)
read -r ss srss sc < <(measure "$reps" "$SPGO" script -i "$data" -F ip)
read -r as arss ac < <(measure "$reps" "$SPGO" script -i "$data" --aggregate "$w/br")

out="$SPGO_SRC/bench/results/spe.md"
{
  echo "# Reading Arm SPE ($(date -u +%Y-%m-%d), $(nproc) cores, one used)"
  echo
  echo "Input: $mb MB perf.data of $n emulated SPE branch records (\`spgo emulate"
  echo "--spe -c 2\`, branchy.c, $iters iterations), in the layout of \`perf record -e"
  echo "arm_spe_0/branch_filter=1/u --per-thread\`. The PCs of the records as perf"
  echo "6.1 synthesizes them and as spgo reads them are $same (md5 over all)."
  echo
  echo "| what | wall s (median) | MB/s (wall) | CPU s (user+sys) | peak RSS MiB | vs perf script (wall / CPU) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  row() { awk -v n="$1" -v s="$size" -v t="$2" -v r="$3" -v c="$4" -v p="$ps" -v pc="$pc" \
    'BEGIN { printf "| %s | %.2f | %.0f | %.2f | %.0f | %.1fx / %.1fx |\n", n, t, s/1e6/t, c, r/1024, p/t, pc/c }'; }
  row "perf script --itrace=i1i -F ip" "$ps" "$prss" "$pc"
  row "spgo script -F ip" "$ss" "$srss" "$sc"
  row "spgo aggregation (ranges inferred, branches, ips)" "$as" "$arss" "$ac"
  echo
  echo "The machine is shared (load average $(cut -d' ' -f1 /proc/loadavg) at the end), so wall"
  echo "times carry other jobs' load; CPU seconds are the steadier figure."
  echo
  echo "The aggregation does more than perf script: per record two address"
  echo "translations, the range-end lookup and three counting-table updates (ip,"
  echo "branch, range); about half of its CPU time is the decoding \`spgo script\`"
  echo "does too (profile: the decoder's jump on each packet's header, then the"
  echo "counting tables' probes)."
  echo
  echo "Target: spgo >= 10x perf script.  Runs: spgo $reps, perf script $preps"
  echo "(BENCH_REPEAT, BENCH_PERF_REPEAT); BENCH_SPE_ITERS sets the capture's size."
} | tee "$out"
