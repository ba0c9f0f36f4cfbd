#!/usr/bin/env bash
# Fleet aggregation by simulation (issue #18): 1,000 hosts' captures of one
# binary, their unsymbolized profiles merged, against the symbolized route.
#  - Captures: CAPTURES (8) emulated runs of the demo program (minivm, clang-19
#    -O2, LBR) with different seeds and inputs, resampled into HOSTS (1000)
#    host captures: each host gets a random share of one run's samples
#    (perf script text with the mmap events), about what a 10-second
#    per-machine profile of a fleet gives.
#  - Map: `spgo aggregate` per host (unsymbolized, compact binary form).
#  - Reduce: `spgo merge` of the 1,000 files at once (binary and text forms);
#    throughput in MB/s of input and files/s, peak RSS; median of REPEATS.
#  - Symbolized route: each host's profile (`spgo gen --unsymbolized`,
#    extbinary), merged by `llvm-profdata-19 merge --sample` and by `spgo merge`.
#  - Convergence: the profile of the first k hosts (random order) against the
#    all-hosts profile, llvm-profdata-19 overlap --sample similarity, plotted
#    (bench/results/fleet_convergence.png, gnuplot).
# Results: bench/results/fleet.md.
set -uo pipefail
for t in clang-19 qemu-x86_64 llvm-profdata-19 /usr/bin/time; do
  command -v $t >/dev/null || { echo "skip: $t missing"; exit 0; }
done
hosts=${HOSTS:-1000} caps=${CAPTURES:-8} repeats=${REPEATS:-3}
w="$BENCH_WORK/fleet"; res="$SPGO_SRC/bench/results"
rm -rf "$w"; mkdir -p "$w/txt" "$w/unsym" "$w/sym" "$w/conv" "$res"
cd "$w" || exit 1
clang-19 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -fno-pie -no-pie \
  -o minivm "$SPGO_SRC/examples/minivm/minivm.c" || exit 1

# median of the repeats of a command: sets t (wall s, from date: ms), r (peak RSS KB)
run() {
  local ts=() rs=() s0 s1
  for ((k = 0; k < repeats; k++)); do
    s0=$(date +%s%N)
    /usr/bin/time -f '%M' -o time.txt "$@" >/dev/null 2>err.txt || { cat err.txt; echo "bench: $* failed"; exit 1; }
    s1=$(date +%s%N)
    ts+=("$(awk -v a=$s0 -v b=$s1 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"); rs+=("$(cat time.txt)")
  done
  t=$(printf '%s\n' "${ts[@]}" | sort -g | sed -n "$(( (repeats + 1) / 2 ))p")
  r=$(printf '%s\n' "${rs[@]}" | sort -g | sed -n "$(( (repeats + 1) / 2 ))p")
}
mb() { du -cb "$@" | tail -1 | awk '{ printf "%.1f", $1 / 1e6 }'; }

# 1. Captures, resampled into hosts
t0=$(date +%s)
per=$(( (hosts + caps - 1) / caps ))
for ((c = 0; c < caps; c++)); do
  "$SPGO" emulate -c 2003 --seed $((c + 1)) -o run$c.data -- ./minivm $((c % 3 + 1)) >/dev/null 2>&1 || exit 1
  "$SPGO" script -i run$c.data -F pid,ip,brstack --show-mmap-events > run$c.txt || exit 1
  # a sample: "PID" line, its stack (tab-indented, leaf = ip first), the
  # LBR line; each host keeps the ip line of the stack (no call stacks)
  awk -v first=$((c * per)) -v per=$per -v max=$hosts -v seed=$((c + 7)) '
    BEGIN { srand(seed); n = first + per > max ? max - first : per }
    /PERF_RECORD_MMAP/ { mm = mm $0 "\n"; next }
    /^ *[0-9]+ *$/ { h = first + int(rand() * n); f = sprintf("txt/h%04d.txt", h); ip = 0
      if (!(f in seen)) { seen[f] = 1; printf "%s", mm > f }
      print > f; next }
    /^\t/ { if (!ip++) print > f; next }
    { print > f }' run$c.txt
  rm -f run$c.data
done
nh=$(ls txt | wc -l)
t1=$(date +%s)
echo "fleet: $nh hosts from $caps runs in $((t1 - t0)) s"

# 2. Map
t0=$(date +%s.%N)
ls txt | sed 's/\.txt$//' | xargs -P 2 -I{} "$SPGO" aggregate --quiet --perf-script --binary minivm \
  -o unsym/{}.unsym txt/{}.txt || exit 1
t1=$(date +%s.%N)
map_s=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }')
txt_in=$(mb txt/*.txt)
mkdir -p utext; for f in unsym/*.unsym; do b=$(basename "$f" .unsym); "$SPGO" merge --format text -o utext/$b.txt "$f"; done

# 3. Reduce: spgo merge of all hosts, binary and text forms
in_mb=$(mb unsym/*.unsym); txt_mb=$(mb utext/*.txt)
run "$SPGO" merge -o all.unsym unsym/*.unsym; bin_t=$t bin_r=$r
run "$SPGO" merge --format text -o all.txt utext/*.txt; txt_t=$t txt_r=$r
# the same through a tree of fan-in 10 (what the Dask pipeline does), timed once
t0=$(date +%s.%N)
ls unsym/*.unsym | xargs -n 10 | awk '{ print NR " " $0 }' | while read -r k files; do
  "$SPGO" merge -o tree1_$k.unsym $files; done
"$SPGO" merge -o tree.unsym tree1_*.unsym
t1=$(date +%s.%N)
tree_s=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')
cmp -s tree.unsym all.unsym && tree_same=yes || tree_same=NO
samples=$("$SPGO" merge --format text -o - all.unsym | sed -n 's/^# samples \([0-9]*\) .*/\1/p')
keys=$("$SPGO" merge --format text -o - all.unsym | awk '/^[0-9]+$/ { n += $1 } /^# ips/ { n += $4 } END { print n }')

# 4. Symbolized route: a profile per host, merged by llvm-profdata and spgo
t0=$(date +%s.%N)
ls unsym | sed 's/\.unsym$//' | xargs -P 2 -I{} "$SPGO" gen --quiet --binary minivm \
  --unsymbolized unsym/{}.unsym -o sym/{}.prof 2>/dev/null
t1=$(date +%s.%N)
gen_s=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }')
nsym=$(ls sym | wc -l); sym_mb=$(mb sym/*.prof)
run llvm-profdata-19 merge --sample --extbinary -o llvm_all.prof sym/*.prof; lp_t=$t lp_r=$r
run "$SPGO" merge --format extbinary -o spgo_all.prof sym/*.prof; sp_t=$t sp_r=$r
"$SPGO" gen --quiet --binary minivm --unsymbolized all.unsym -o all.prof || exit 1
sim() { llvm-profdata-19 overlap --sample "$1" "$2" | sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'; }
sym_vs_unsym=$(sim all.prof llvm_all.prof)

# 5. Convergence: first k hosts in a random order
ls unsym/*.unsym | awk 'BEGIN { srand(42) } { print rand() " " $0 }' | sort -g | cut -d' ' -f2 > order.txt
: > conv.dat
for k in $(printf '%s\n' 1 2 5 10 20 50 100 200 500 $nh | sort -nu); do
  [ $k -le $nh ] || continue
  "$SPGO" merge -o conv/$k.unsym $(head -n $k order.txt) &&
    "$SPGO" gen --quiet --binary minivm --unsymbolized conv/$k.unsym -o conv/$k.prof 2>/dev/null || exit 1
  echo "$k $(sim all.prof conv/$k.prof)" >> conv.dat
done
cat conv.dat

rate() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
{
  echo "# Fleet aggregation by simulation (bench/bench_fleet.sh)"
  echo
  echo "$nh hosts, $samples LBR samples ($(( samples / nh )) per host), resampled from $caps emulated"
  echo "runs of minivm (clang-19 -O2, 32-entry LBR, spgo emulate -c 2003, seeds 1-$caps)."
  echo "Map (spgo aggregate per host from its perf script text, 2 processes): $map_s s for"
  echo "$nh hosts, $txt_in MB of text."
  echo "Merged: $keys distinct keys; one host's file is $(awk -v a=$in_mb -v n=$nh 'BEGIN { printf "%.1f", a * 1000 / n }') KB on average (binary form)."
  echo "Machine: $(nproc) shared cores; medians of $repeats runs (wall time includes process start); /usr/bin/time's peak RSS."
  echo
  echo "## Merge of all hosts"
  echo
  echo "| merge | inputs | input MB | wall s | MB/s | files/s | peak RSS MB |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  echo "| spgo merge, unsymbolized (binary form) | $nh | $in_mb | $bin_t | $(rate $in_mb $bin_t) | $(rate $nh $bin_t) | $(( bin_r / 1024 )) |"
  echo "| spgo merge, unsymbolized (text form) | $nh | $txt_mb | $txt_t | $(rate $txt_mb $txt_t) | $(rate $nh $txt_t) | $(( txt_r / 1024 )) |"
  echo "| llvm-profdata-19 merge --sample, symbolized (extbinary) | $nsym | $sym_mb | $lp_t | $(rate $sym_mb $lp_t) | $(rate $nsym $lp_t) | $(( lp_r / 1024 )) |"
  echo "| spgo merge, symbolized (extbinary) | $nsym | $sym_mb | $sp_t | $(rate $sym_mb $sp_t) | $(rate $nsym $sp_t) | $(( sp_r / 1024 )) |"
  echo
  echo "minivm is small ($keys keys in all): the merge times are per-file costs (process"
  echo "start, open, map, parse), not per-byte ones; a larger binary has more keys per file."
  echo "Merging symbolized profiles is not exact: a body sample is the maximum over its"
  echo "instructions, and a sum of maxima is not the maximum of sums (similarity below)."
  echo
  echo "A tree of fan-in 10 (101 spgo merge processes, one after another): $tree_s s;"
  echo "byte-identical to the flat merge: $tree_same."
  echo "The symbolized route first needs a profile per host (spgo gen, 2 processes): $gen_s s."
  echo "Symbolizing once after the unsymbolized merge vs merging $nsym symbolized profiles:"
  echo "similarity $sym_vs_unsym% (llvm-profdata-19 overlap --sample)."
  echo
  echo "## Convergence"
  echo
  echo "The profile of the first k hosts (random order) against the all-hosts profile"
  echo "(llvm-profdata-19 overlap --sample, whole-program similarity); plot:"
  echo "fleet_convergence.png."
  echo
  echo "| hosts | similarity % |"
  echo "| ---: | ---: |"
  awk '{ print "| " $1 " | " $2 " |" }' conv.dat
} > "$res/fleet.md"
if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 800,500 noenhanced
set output "$res/fleet_convergence.png"
set logscale x
set xlabel "hosts merged"
set ylabel "similarity to the all-hosts profile (%)"
set title "Profile convergence: minivm, $nh simulated hosts"
set grid
set key bottom right
plot "conv.dat" using 1:2 with linespoints lw 2 pt 7 title "spgo merge (unsymbolized) + spgo gen"
GP
else
  echo "bench: gnuplot missing: no plot"
fi
cat "$res/fleet.md"
