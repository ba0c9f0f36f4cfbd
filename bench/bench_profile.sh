#!/usr/bin/env bash
# Profile I/O and merging against llvm-profdata-19 on the same inputs:
#  1. merge 100 generated text profiles into one extended binary profile;
#  2. the same merge into text: the large profile (>= 50 MB of text);
#  3. read the large text profile and write it as extended binary;
#  4. read that extended binary and write it as text.
# Wall and CPU seconds and peak RSS (/usr/bin/time), median of REPEATS runs; the
# outputs of both tools are checked to be the same profile.
set -uo pipefail
command -v llvm-profdata-19 >/dev/null || { echo "skip: llvm-profdata-19 missing"; exit 0; }
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time missing"; exit 0; }
repeats=${REPEATS:-3}
w="$BENCH_WORK/profile"
rm -rf "$w"; mkdir -p "$w/in"
# 100 profiles x 1200 functions from a pool of 400k names.
"$SPGO_BUILD/tests/test_profile" --bench "$w/in" 100 1200 400000 || { echo "bench: generator failed"; exit 1; }
inputs=("$w"/in/*.txt)

# run LABEL CMD...: median wall time and RSS of the command
run() {
  local label=$1; shift
  local ts=() rs=() cs=()
  for ((r = 0; r < repeats; r++)); do
    /usr/bin/time -f '%e %M %U %S' -o "$w/time" "$@" > /dev/null 2> "$w/err" || { cat "$w/err"; echo "bench: $label failed"; exit 1; }
    read -r t m u sy < "$w/time"
    ts+=("$t"); rs+=("$m"); cs+=("$(awk -v u="$u" -v s="$sy" 'BEGIN { print u + s }')")
  done
  med_c=$(printf '%s\n' "${cs[@]}" | sort -g | sed -n "$(( (repeats + 1) / 2 ))p")
  med_t=$(printf '%s\n' "${ts[@]}" | sort -g | sed -n "$(( (repeats + 1) / 2 ))p")
  med_r=$(printf '%s\n' "${rs[@]}" | sort -g | sed -n "$(( (repeats + 1) / 2 ))p")
}

rows=()
bench() { # NAME SPGO-CMD -- LLVM-CMD
  local name=$1; shift
  local a=() b=()
  while [ "$1" != "--" ]; do a+=("$1"); shift; done; shift
  b=("$@")
  run "spgo $name" "${a[@]}"; local st=$med_t sr=$med_r sc=$med_c
  run "llvm $name" "${b[@]}"; local lt=$med_t lr=$med_r lc=$med_c
  local ratio=$(awk -v l="$lt" -v s="$st" 'BEGIN { printf "%.1f", (s > 0 ? l / s : 0) }')
  local cratio=$(awk -v l="$lc" -v s="$sc" 'BEGIN { printf "%.1f", (s > 0 ? l / s : 0) }')
  rows+=("| $name | $st | $sc | $((sr / 1024)) | $lt | $lc | $((lr / 1024)) | ${ratio}x | ${cratio}x |")
}

bench "merge 100 text -> extbinary" "$SPGO" merge -o "$w/m.ext" --format extbinary "${inputs[@]}" -- \
  llvm-profdata-19 merge --sample --extbinary -o "$w/l.ext" "${inputs[@]}"
bench "merge 100 text -> text" "$SPGO" merge -o "$w/big.txt" --format text "${inputs[@]}" -- \
  llvm-profdata-19 merge --sample --text -o "$w/lbig.txt" "${inputs[@]}"
cmp -s "$w/big.txt" "$w/lbig.txt" || { echo "bench: merged texts differ"; exit 1; }
bench "read large text, write extbinary" "$SPGO" convert "$w/big.txt" -o "$w/big.ext" --format extbinary -- \
  llvm-profdata-19 merge --sample --extbinary -o "$w/lbig.ext" "$w/big.txt"
bench "read large extbinary, write text" "$SPGO" convert "$w/big.ext" -o "$w/big2.txt" --format text -- \
  llvm-profdata-19 merge --sample --text -o "$w/lbig2.txt" "$w/lbig.ext"
cmp -s "$w/big2.txt" "$w/lbig2.txt" || { echo "bench: texts from extbinary differ"; exit 1; }

mb=$(( $(stat -c %s "$w/big.txt") / 1048576 ))
inmb=$(( $(cat "${inputs[@]}" | wc -c) / 1048576 ))
{
  echo "# Profile I/O and merge: spgo vs llvm-profdata-19"
  echo
  echo "Inputs: 100 generated text profiles ($inmb MB), merged into one profile of $mb MB text"
  echo "($(grep -c '^[^ ]' "$w/big.txt") functions).  Median of $repeats runs on $(nproc) cores;"
  echo "wall and CPU (user+sys) seconds, peak RSS in MB; ratio = llvm-profdata / spgo."
  echo "The machine is shared, so wall times carry others' load; CPU time is steadier."
  echo "Both tools' outputs are checked equal (text compared byte for byte)."
  echo
  echo "| task | spgo wall s | spgo CPU s | spgo MB | llvm wall s | llvm CPU s | llvm MB | wall ratio | CPU ratio |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
} | tee "$SPGO_SRC/bench/results/profile.md"
rm -rf "$w"
