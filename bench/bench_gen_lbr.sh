#!/usr/bin/env bash
# Acceptance 2 of spgo gen: LBR profiles from emulated captures against the
# exact execution counts, and the three tools against each other on the
# same perf.data.  Programs: the demo (minivm), sqlite3's speedtest1 and
# bzip2 (both from Debian's source packages, fetched here), built by
# clang-19 -O2 -gdwarf-4 -fdebug-info-for-profiling -fno-omit-frame-pointer
# -no-pie (DWARF 4 for create_llvm_prof 0.19; fixed addresses so that
# llvm-profgen, reading `perf script -F ip,brstack` without mmap events,
# maps addresses right).  The captures have call stacks too, so
# llvm-profgen gets --ignore-stack-samples (else it writes a
# context-sensitive profile: another kind of profile than the others).
#
# `spgo emulate` records LBR samples (32 entries, period ~20011 taken
# branches) and the ground truth; `spgo gen --ground-truth` turns the exact
# instruction counts into the reference profile by the same source-level
# rules.  For each tool's profile: the block overlap with the reference
# (bench/block_overlap.awk: body samples keyed by function, inline call
# sites and line.discriminator, normalized; 1 = the same distribution) and
# llvm-profdata-19 overlap's whole-program similarity.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
source "$SPGO_SRC/bench/gen_programs.sh"
w="$BENCH_WORK/gen_lbr"
mkdir -p "$w"
cd "$w"
CFLAGS="-O2 -gdwarf-4 -fdebug-info-for-profiling -fno-omit-frame-pointer -fno-pie -no-pie"
overlap_awk="$SPGO_SRC/bench/block_overlap.awk"

norm() { llvm-profdata-19 merge --sample --text "$1" -o "$2" 2>/dev/null; }
block() { awk -f "$overlap_awk" "$1" "$2"; }
simil() {
  llvm-profdata-19 overlap --sample "$1" "$2" 2>/dev/null |
    sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'
}

rows=()
# one NAME "SOURCES" "ARGS"
one() {
  local name=$1 srcs=$2 args=$3
  echo "-- $name"
  # shellcheck disable=SC2086
  clang-19 $CFLAGS -o "$name" $srcs
  "$SPGO" emulate -o "$name.data" --ground-truth "$name.gt" -- "./$name" $args >/dev/null 2>&1
  "$SPGO" gen --binary "$name" --ground-truth "$name.gt" -o "$name.truth.txt" --format text --quiet
  "$SPGO" gen --binary "$name" --perf-data "$name.data" -o "$name.spgo.txt" --format text --quiet
  perf script -i "$name.data" -F ip,brstack > "$name.script" 2>/dev/null
  llvm-profgen-19 --binary="$name" --perfscript="$name.script" --format=text --ignore-stack-samples \
    -o "$name.profgen.txt" >/dev/null 2>&1 || true
  "$SPGO" script -i "$name.data" --rewrite "$name.old.data"
  # create_llvm_prof 0.19 garbles some inlinee names (see
  # fix_create_llvm_prof.py): its text output, those callees renamed.
  rm -f "$name.cl.raw" "$name.cl.prof"
  create_llvm_prof --binary="$name" --profile="$name.old.data" --format=text \
    --out="$name.cl.raw" >/dev/null 2>&1 || true
  [ -s "$name.cl.raw" ] && python3 "$SPGO_SRC/bench/fix_create_llvm_prof.py" "$name.cl.raw" "$name.cl.prof"
  local t s p c
  norm "$name.truth.txt" t.txt
  norm "$name.spgo.txt" s.txt
  norm "$name.profgen.txt" p.txt || : > p.txt
  norm "$name.cl.prof" c.txt || : > c.txt
  local fig=()
  for x in s.txt p.txt c.txt; do
    if [ -s "$x" ]; then fig+=("$(block t.txt "$x") / $(simil t.txt "$x")%"); else fig+=("failed"); fi
  done
  local sp="n/a" sc="n/a"
  [ -s p.txt ] && sp="$(block p.txt s.txt) / $(simil p.txt s.txt)%"
  [ -s c.txt ] && sc="$(block c.txt s.txt) / $(simil c.txt s.txt)%"
  local samples
  samples=$(perf report -i "$name.data" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
  rows+=("| $name | ${samples:-?} | ${fig[0]} | ${fig[1]} | ${fig[2]} | $sp | $sc |")
}

one minivm "$SPGO_SRC/examples/minivm/minivm.c" 6
sq="$BENCH_WORK/gen/sqlite"
if gen_fetch_sqlite "$sq"; then
  one speedtest1 "-DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I$sq $sq/speedtest1.c $sq/sqlite3.c -lm" \
    "--size 10 --memdb"
fi
if gen_fetch_bzip2 "$BENCH_WORK/gen"; then
  bz="$BENCH_WORK/gen/bzip2"
  # input: 4 MB of this machine's text (compressible, varied)
  [ -f bzin ] || { cat "$bz"/*.c "$bz"/*.h /usr/include/*.h 2>/dev/null | head -c 4000000 > bzin; }
  one bzip2 "-D_FILE_OFFSET_BITS=64 -I$bz $bz/bzip2.c $bz/blocksort.c $bz/huffman.c $bz/crctable.c $bz/randtable.c $bz/compress.c $bz/decompress.c $bz/bzlib.c" \
    "-kf9c bzin"
fi

out="$SPGO_SRC/bench/results/gen_lbr.md"
{
  echo "# spgo gen, LBR mode: profiles of emulated captures vs the ground truth"
  echo
  echo "$(date -u +%Y-%m-%d). Each cell: block overlap with the reference / llvm-profdata-19"
  echo "overlap whole-program similarity. Reference: \`spgo gen --ground-truth\` (exact counts,"
  echo "same source-level rules). llvm-profgen-19 reads \`perf script -F ip,brstack\`;"
  echo "create_llvm_prof 0.19 reads the perf.data rewritten by \`spgo script --rewrite\`"
  echo "(its garbled inlinee names renamed by bench/fix_create_llvm_prof.py)."
  echo
  echo "| program | samples | spgo vs truth | llvm-profgen vs truth | create_llvm_prof vs truth | spgo vs llvm-profgen | spgo vs create_llvm_prof |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
} | tee "$out"
