#!/usr/bin/env bash
# The figures spgo record's default was chosen by (#28): for one program of
# the PGO suite, its training run recorded at several rates and run counts,
# each recording's profile density (spgo gen's) and its overlap with the
# exact counts of the same run (spgo emulate's ground truth), and perf's
# cost at each rate.
#
#   bench/pgo_record_density.sh NAME ["RATE:RUNS ..."]
#
# Needs the suite's profiled build and ground truth of NAME
# (BENCH_WORK/pgo/NAME/bin/c-prof, prof/c.gt: bench/bench_pgo.sh with
# c-exact or c-lbr).  Default configurations: 4000:1 10000:1 20000:1
# 40000:1 20000:3 20000:10.  Prints one line per configuration: wall time,
# perf.data size, samples in the binary, density, similarity and hot-block
# overlap (spgo overlap against the exact profile); then the wall time of
# 5 runs without perf and under perf at 4, 10, 20 and 40 kHz, and of
# `spgo record -- true` (perf's start).  The recordings are removed.
set -uo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
name=${1:?usage: pgo_record_density.sh NAME [\"RATE:RUNS ...\"]}
cfgs=${2:-4000:1 10000:1 20000:1 40000:1 20000:3 20000:10}
pd="$BENCH_WORK/pgo/$name" bin="$BENCH_WORK/pgo/$name/bin/c-prof"
[ -x "$bin" ] && [ -s "$pd/prof/c.gt" ] || { echo "pgo_record_density: $name: no c-prof or c.gt in $pd" >&2; exit 1; }
TRAIN=$(sed -n 's/^TRAIN="\(.*\)"$/\1/p' "$SPGO_SRC/bench/pgo/$name.sh")
read -r -a targs <<< "$TRAIN"   # (split, not globbed, as bench_pgo.sh)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
exact="$tmp/exact.prof"
"$SPGO" gen --binary "$bin" --ground-truth "$pd/prof/c.gt" -o "$exact" 2>/dev/null ||
  { echo "pgo_record_density: $name: spgo gen --ground-truth failed" >&2; exit 1; }
cd "$pd/data" || exit 1
for c in $cfgs; do
  r=${c%:*} n=${c#*:}
  /usr/bin/time -o "$tmp/t" -f %e "$SPGO" record --runs "$n" -F "$r" -o "$tmp/rec.data" -- "$bin" "${targs[@]}" \
    > /dev/null 2> "$tmp/rec.err"
  mb=$(du -m "$tmp/rec.data" | cut -f1)
  "$SPGO" gen --binary "$bin" --perf-data "$tmp/rec.data" -o "$tmp/rec.prof" 2> "$tmp/gen.err"
  s=$(sed -n 's/^spgo: gen: IP mode: \([0-9]*\) samples.*/\1/p' "$tmp/gen.err")
  d=$(sed -n 's/^spgo: gen: profile density \([0-9.e+-]*\) .*/\1/p' "$tmp/gen.err")
  ov=$("$SPGO" overlap "$exact" "$tmp/rec.prof" |
       sed -n 's/.*profile similarity: \(.*\)%/\1/p;s/.*Hot-block overlap: \(.*\)%/\1/p' | tr '\n' ' ')
  echo "$name -F $r x $n: wall $(cat "$tmp/t") s, $mb MB, samples ${s:-?}, density ${d:-?}, similarity/hot-block ${ov:-?}"
  rm -f "$tmp/rec.data" "$tmp/rec.data.old"
done
loop='n=$1; shift; while [ "$n" -gt 0 ]; do "$@" > /dev/null || exit; n=$((n - 1)); done'
out="$name 5 runs, wall s:"
for r in 0 4000 10000 20000 40000; do
  if [ "$r" = 0 ]; then
    /usr/bin/time -o "$tmp/t" -f %e sh -c "$loop" sh 5 "$bin" "${targs[@]}"
  else
    /usr/bin/time -o "$tmp/t" -f %e "$SPGO" record --runs 5 -F "$r" -o "$tmp/oh.data" -- "$bin" "${targs[@]}" \
      > /dev/null 2>&1
    rm -f "$tmp/oh.data"
  fi
  out="$out ${r/#0/no perf}=$(cat "$tmp/t")"
done
/usr/bin/time -o "$tmp/t" -f %e "$SPGO" record --runs 1 -o "$tmp/oh.data" -- true > /dev/null 2>&1
echo "$out; start $(cat "$tmp/t")"
