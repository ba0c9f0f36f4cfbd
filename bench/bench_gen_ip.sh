#!/usr/bin/env bash
# Acceptance 3 of spgo gen: IP mode on this machine (cpu-clock, no PMU).
# For the demo program (minivm) and sqlite3's speedtest1, all built by
# clang-19 -O2 -gdwarf-4 -fdebug-info-for-profiling (DWARF 4: the
# create_llvm_prof 0.19 here cannot read DWARF 5):
#
#   -O2               the baseline
#   + spgo            spgo gen from `perf record -e cpu-clock:u -F 20000` of a
#                     training run (20 kHz: IP samples are sparse; 4 kHz gave
#                     visibly noisier profiles)
#   + create_llvm_prof  create_llvm_prof --use_lbr=false on the SAME perf.data
#                     (rewritten by `spgo script --rewrite`: it stops at perf
#                     6's FINISHED_INIT record otherwise; its garbled inlinee
#                     names renamed so that clang reads the profile)
#   + instr PGO       -fprofile-instr-generate / -fprofile-instr-use, same run
#   + empty profile   -fprofile-sample-use with a profile naming no function
#                     of the program: what sample-PGO mode alone does (a
#                     control: clang's and the program's layout react to it)
#
#   + spgo, -g dwarf  spgo gen from a second training run recorded with
#                     --call-graph dwarf,2048 as well (user registers and the
#                     top 2 KB of the stack per sample): the sampled function's
#                     caller, unwound one frame by .eh_frame, gives indirect
#                     calls their targets.  This row is what a user gets from
#                     `spgo record` (cpu-clock with --call-graph dwarf,2048).
#   + create_llvm_prof, dwarf recording  the same perf.data, rewritten by
#                     `spgo script --rewrite` without the user registers and
#                     stack (create_llvm_prof 0.19: "PERF_SAMPLE_REGS_USER is
#                     not yet supported"): the AP3 comparison for that row.
#   + spgo --infer mcf  the same with min-cost flow instead of profi
#   + spgo --no-infer the same without profile inference (block averages)
#
#   + spgo (before)   only with SPGO_BEFORE=path to another spgo program (e.g.
#                     one built from the previous commit): its default profile
#                     of the same perf.data, timed in the same interleaving
#
# Each build's median user CPU time over RUNS interleaved runs; speedup =
# baseline median / build median - 1.  Targets: spgo >= create_llvm_prof,
# spgo >= 80% of instrumentation PGO.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
source "$SPGO_SRC/bench/gen_programs.sh"
RUNS=${RUNS:-11}
w="$BENCH_WORK/gen_ip"
mkdir -p "$w"
cd "$w"
CFLAGS="-O2 -gdwarf-4 -fdebug-info-for-profiling"

user_time() {  # user CPU seconds of one run of "$@"
  local TIMEFORMAT=%U t
  { t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ); } 2>&1
  echo "$t"
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

rows=()
# bench_program NAME "SOURCES/FLAGS" "TRAIN ARGS" "TIMED ARGS"
bench_program() {
  local name=$1 srcs=$2 train=$3 timed=$4
  echo "-- $name: builds"
  # shellcheck disable=SC2086
  clang-19 $CFLAGS -o "$name.O2" $srcs
  perf record -q -e cpu-clock:u -F 20000 -o "$name.data" -- "./$name.O2" $train >/dev/null 2>&1
  perf record -q -e cpu-clock:u -F 20000 --call-graph dwarf,2048 -o "$name.dw.data" -- "./$name.O2" $train >/dev/null 2>&1
  "$SPGO" gen --binary "$name.O2" --perf-data "$name.data" -o "$name.spgo.prof" --quiet
  "$SPGO" gen --binary "$name.O2" --perf-data "$name.dw.data" -o "$name.dw.prof" --quiet
  "$SPGO" gen --binary "$name.O2" --perf-data "$name.data" -o "$name.avg.prof" --quiet --no-infer
  "$SPGO" gen --binary "$name.O2" --perf-data "$name.data" -o "$name.mcf.prof" --quiet --infer mcf
  if [ -n "${SPGO_BEFORE:-}" ]; then
    "$SPGO_BEFORE" gen --binary "$name.O2" --perf-data "$name.data" -o "$name.before.prof" --quiet
  fi
  "$SPGO" script -i "$name.data" --rewrite "$name.old.data"
  rm -f "$name.cl.prof" "$name.cl.raw"
  # create_llvm_prof 0.19 writes some inlinee names as garbage bytes here
  # (its binary writer then fails with "Truncated function name table"):
  # take its text output with those callees renamed, so that clang reads it.
  create_llvm_prof --binary="$name.O2" --profile="$name.old.data" --use_lbr=false \
    --format=text --out="$name.cl.raw" >/dev/null 2>&1 || true
  [ -s "$name.cl.raw" ] && python3 "$SPGO_SRC/bench/fix_create_llvm_prof.py" "$name.cl.raw" "$name.cl.prof"
  # the same for the dwarf recording, its user registers and stack dropped
  # by the rewrite (create_llvm_prof refuses PERF_SAMPLE_REGS_USER)
  "$SPGO" script -i "$name.dw.data" --rewrite "$name.dw.old.data"
  rm -f "$name.cldw.prof" "$name.cldw.raw"
  create_llvm_prof --binary="$name.O2" --profile="$name.dw.old.data" --use_lbr=false \
    --format=text --out="$name.cldw.raw" >/dev/null 2>&1 || true
  [ -s "$name.cldw.raw" ] && python3 "$SPGO_SRC/bench/fix_create_llvm_prof.py" "$name.cldw.raw" "$name.cldw.prof"
  clang-19 $CFLAGS -fprofile-instr-generate -o "$name.instr-gen" $srcs
  rm -f "$name".profraw
  LLVM_PROFILE_FILE="$name.profraw" "./$name.instr-gen" $train >/dev/null 2>&1
  llvm-profdata-19 merge -o "$name.profdata" "$name.profraw"
  printf 'no_such_function_in_the_program:1:0\n 1: 1\n' > "$name.empty.prof"
  clang-19 $CFLAGS -fprofile-sample-use="$name.spgo.prof" -o "$name.spgo" $srcs
  clang-19 $CFLAGS -fprofile-sample-use="$name.dw.prof" -o "$name.dw" $srcs
  clang-19 $CFLAGS -fprofile-sample-use="$name.avg.prof" -o "$name.avg" $srcs
  clang-19 $CFLAGS -fprofile-sample-use="$name.mcf.prof" -o "$name.mcf" $srcs
  local builds=("$name.O2" "$name.spgo" "$name.dw" "$name.mcf" "$name.avg")
  if [ -n "${SPGO_BEFORE:-}" ]; then
    clang-19 $CFLAGS -fprofile-sample-use="$name.before.prof" -o "$name.before" $srcs
    builds+=("$name.before")
  fi
  if [ -s "$name.cl.prof" ] && llvm-profdata-19 show --sample "$name.cl.prof" >/dev/null 2>&1; then
    clang-19 $CFLAGS -fprofile-sample-use="$name.cl.prof" -o "$name.cl" $srcs
    builds+=("$name.cl")
  fi
  if [ -s "$name.cldw.prof" ] && llvm-profdata-19 show --sample "$name.cldw.prof" >/dev/null 2>&1; then
    clang-19 $CFLAGS -fprofile-sample-use="$name.cldw.prof" -o "$name.cldw" $srcs
    builds+=("$name.cldw")
  fi
  clang-19 $CFLAGS -fprofile-instr-use="$name.profdata" -o "$name.instr" $srcs
  clang-19 $CFLAGS -fprofile-sample-use="$name.empty.prof" -o "$name.empty" $srcs
  builds+=("$name.instr" "$name.empty")
  echo "-- $name: $RUNS interleaved runs of ${builds[*]}"
  local b r
  for b in "${builds[@]}"; do : > "$b.times"; done
  for ((r = 0; r < RUNS; r++)); do
    for b in "${builds[@]}"; do user_time "./$b" $timed >> "$b.times"; done
  done
  local base; base=$(median < "$name.O2.times")
  for b in "${builds[@]}"; do
    local m; m=$(median < "$b.times")
    rows+=("$name|${b#"$name".}|$m|$(awk -v a="$base" -v b="$m" 'BEGIN {printf "%+.1f%%", (a / b - 1) * 100}')")
  done
  [ -e "$name.cl" ] || rows+=("$name|cl|n/a|create_llvm_prof wrote no usable profile")
}

bench_program minivm "$SPGO_SRC/examples/minivm/minivm.c" 60 30
sq="$BENCH_WORK/gen/sqlite"
if gen_fetch_sqlite "$sq"; then
  bench_program speedtest1 "-DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I$sq $sq/speedtest1.c $sq/sqlite3.c -lm" \
    "--size 40 --memdb" "--size 40 --memdb"
else
  echo "bench_gen_ip: could not fetch sqlite3's sources; speedtest1 skipped"
fi

name_of() {
  case $1 in
    O2) echo "clang-19 -O2 (baseline)" ;; spgo) echo "+ spgo gen (IP mode, default: profi inference)" ;;
    dw) echo "+ spgo gen, training run with --call-graph dwarf (indirect-call targets)" ;;
    avg) echo "+ spgo gen --no-infer (block averages only)" ;;
    mcf) echo "+ spgo gen --infer mcf" ;;
    before) echo "+ spgo gen before this change (SPGO_BEFORE, default options)" ;;
    cl) echo "+ create_llvm_prof --use_lbr=false" ;;
    cldw) echo "+ create_llvm_prof --use_lbr=false, the dwarf recording (rewritten)" ;; instr) echo "+ instrumentation PGO" ;;
    empty) echo "+ empty sample profile (control)" ;; *) echo "$1" ;;
  esac
}
out="$SPGO_SRC/bench/results/gen_ip.md"
{
  echo "# spgo gen, IP mode (cpu-clock:u): speedup of the rebuilt program"
  echo
  echo "Median user CPU time of $RUNS interleaved runs; $(nproc) cores shared with other work; $(date -u +%Y-%m-%d)."
  echo "Training runs recorded with perf record -e cpu-clock:u -F 20000 (the same perf.data for"
  echo "spgo and create_llvm_prof; the -g dwarf row from a second training run with"
  echo "--call-graph dwarf,2048 added). Training and timed runs: minivm 60 / 30, speedtest1 --size 40 --memdb."
  echo
  echo "| program | build | median s | speedup vs -O2 |"
  echo "| --- | --- | ---: | ---: |"
  for r in "${rows[@]}"; do
    IFS='|' read -r p b m s <<< "$r"
    echo "| $p | $(name_of "$b") | $m | $s |"
  done
  echo
  echo "Targets: spgo >= create_llvm_prof; spgo >= 80% of instrumentation PGO's speedup."
  echo "The control row shows how much of a sample-PGO speedup on this program comes"
  echo "from compiling in sample-PGO mode at all rather than from the profile's content."
} | tee "$out"
