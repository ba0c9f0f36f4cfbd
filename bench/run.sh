#!/usr/bin/env bash
# make bench: run every bench/bench_*.sh in name order.  Each prints a table
# and writes it to bench/results/NAME.md.  Work files go to bench/work/.
set -uo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
export SPGO_SRC=$(cd "$here/.." && pwd)
export SPGO="$SPGO_SRC/$build/spgo"
export SPGO_BUILD="$SPGO_SRC/$build"
export SPGO_SHARED="$SPGO_SRC/../shared"
export BENCH_WORK="$here/work"
mkdir -p "$BENCH_WORK" "$here/results"
status=0
for b in "$here"/bench_*.sh; do
  [ -e "$b" ] || continue
  # BENCH=NAME: bench_NAME.sh alone when there is one (BENCH=pgo is not
  # csspgo), else every bench whose name contains NAME.
  if [ -n "${BENCH:-}" ]; then
    if [ -e "$here/bench_$BENCH.sh" ]; then
      [ "$(basename "$b")" = "bench_$BENCH.sh" ] || continue
    elif [[ "$(basename "$b")" != *"$BENCH"* ]]; then
      continue
    fi
  fi
  echo "== $(basename "$b")"
  bash "$b" || { echo "bench: $(basename "$b") failed"; status=1; }
done
exit $status
