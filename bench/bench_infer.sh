#!/usr/bin/env bash
# Profile inference on real CFGs (docs/design/inference.md):
#  1. quality: exact block and edge counts of real runs from callgrind's
#     instruction and jump counts, sampled inputs (binomial at several rates,
#     with and without 30% of the blocks dangling); vertex/edge overlap and
#     coverage of profi, mcf, fp, quadratic and no inference (spgo infer
#     --eval).  Two sets of programs, all from Debian source, gcc -O2:
#       training: lua5.4 (bench/infer_train.lua), bzip2 (compress and
#         decompress) and minivm (examples/minivm), on which profi's cost
#         coefficients were tuned (coordinate search, two sampling seeds);
#       held out: sqlite3's speedtest1, never used for tuning;
#  2. speed: median time per CFG against |V| (real CFGs binned, and
#     synthetic CFGs up to 10,000 blocks), profi vs mcf vs fp; a plot.
# INFER_SKIP_SPEED=1 skips part 2 (while iterating on quality; the report
# then keeps the speed section of the last full run).  INFER_SKIP_QUALITY=1
# skips part 1 (while iterating on speed, when the flows are unchanged: the
# report keeps the quality section of the last full run, whose truth.txt in
# BENCH_WORK gives the real CFGs' input again).
# Writes bench/results/infer.md and bench/results/infer_speed.png.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
w="$BENCH_WORK/infer"
mkdir -p "$w"
res="$SPGO_SRC/bench/results"
prep="python3 $SPGO_SRC/bench/infer_prep.py"
SIZE=${INFER_SIZE:-10} # speedtest1 --size under callgrind

skipq=${INFER_SKIP_QUALITY:-0}
if [ "$skipq" = 1 ]; then
  [ -s "$w/truth.txt" ] || { echo "bench_infer: INFER_SKIP_QUALITY=1 needs $w/truth.txt of a full run" >&2; exit 1; }
  # the input of the real CFGs' speed runs: the last sample of quality()
  $prep sample "$w/truth.txt" 0.1 0.3 1 > "$w/in.cfg"
  awk '/^## Speed/ { exit } { print }' "$res/infer.md" > "$w/quality_section.md"
else
# ---- sqlite3 speedtest1, -O2, from Debian's source package ---------------
if [ ! -x "$w/speedtest1" ]; then
  src=$("$SPGO_SRC/scripts/debian-source.sh" sqlite3 "$w")
  mkdir -p "$w/bld"
  (cd "$w/bld" && "$src/configure" --disable-tcl >/dev/null && make -j2 sqlite3.c >/dev/null)
  gcc -O2 -g -no-pie -fno-pie -DSQLITE_OMIT_LOAD_EXTENSION -I"$w/bld" \
    "$src/test/speedtest1.c" "$w/bld/sqlite3.c" -o "$w/speedtest1" -lm -lpthread
fi

# ---- ground truth: callgrind ---------------------------------------------
if [ ! -s "$w/cg.out" ]; then
  valgrind --tool=callgrind --dump-instr=yes --dump-line=no --collect-jumps=yes \
    --callgrind-out-file="$w/cg.out" "$w/speedtest1" --size "$SIZE" --memdb >/dev/null 2>&1
fi
# CFGs from spgo's own disassembly: jump tables and noreturn calls from the
# binary model (spgo_cfg_from_binary); the first line counts them.
"$SPGO" infer --binary "$w/speedtest1" --emit-cfg > "$w/cfgs.txt"
"$SPGO" symbolize --binary "$w/speedtest1" --all-instructions > "$w/insns.txt"
$prep truth "$w/cfgs.txt" "$w/insns.txt" "$w/cg.out" > "$w/truth.txt"
nfunc=$(grep -c '^cfg ' "$w/truth.txt")
read -r nexec nblk nedg < <(awk '/^cfg /{if(t>0)e++; t=0} /^block/{for(i=3;i<=NF;i++) if($i ~ /^truth=/){split($i,a,"="); t+=a[2]}; b++} /^edge/{g++} END{if(t>0)e++; print e+0, b+0, g+0}' "$w/truth.txt")
read -r nijmp ntab nnoret ntail < <(awk 'NR == 1 { print $4, $7, $13, $16 }' "$w/cfgs.txt")

# ---- training set: lua, bzip2, minivm ---------------------------------------
t="$w/train"
mkdir -p "$t"
cg="valgrind --tool=callgrind --dump-instr=yes --dump-line=no --collect-jumps=yes"
if [ ! -x "$t/lua" ]; then
  lsrc=$("$SPGO_SRC/scripts/debian-source.sh" lua5.4 "$t")
  mkdir -p "$t/luainc" # Debian's patch includes a generated header
  echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' > "$t/luainc/lua5.4-deb-multiarch.h"
  gcc -O2 -g -no-pie -fno-pie -DLUA_USE_LINUX -I"$t/luainc" -o "$t/lua" \
    $(ls "$lsrc"/src/*.c | grep -v '/luac\.c$') -lm -ldl
fi
if [ ! -x "$t/bzip2" ]; then
  bsrc=$("$SPGO_SRC/scripts/debian-source.sh" bzip2 "$t")
  gcc -O2 -g -no-pie -fno-pie -D_FILE_OFFSET_BITS=64 -o "$t/bzip2" "$bsrc/bzip2.c" "$bsrc/blocksort.c" \
    "$bsrc/huffman.c" "$bsrc/crctable.c" "$bsrc/randtable.c" "$bsrc/compress.c" "$bsrc/decompress.c" "$bsrc/bzlib.c"
  cat "$bsrc"/*.c "$bsrc"/*.h "$t/bzip2" > "$t/in.dat"
fi
[ -x "$t/minivm" ] || gcc -O2 -g -no-pie -fno-pie -o "$t/minivm" "$SPGO_SRC/examples/minivm/minivm.c"
[ -s "$t/cg.lua.out" ] || $cg --callgrind-out-file="$t/cg.lua.out" "$t/lua" "$SPGO_SRC/bench/infer_train.lua" 20000 >/dev/null 2>&1
if [ ! -s "$t/cg.bzd.out" ]; then
  $cg --callgrind-out-file="$t/cg.bzc.out" "$t/bzip2" -c "$t/in.dat" > "$t/in.bz2" 2>/dev/null
  $cg --callgrind-out-file="$t/cg.bzd.out" "$t/bzip2" -dc "$t/in.bz2" > "$t/out.dat" 2>/dev/null
fi
[ -s "$t/cg.vm.out" ] || $cg --callgrind-out-file="$t/cg.vm.out" "$t/minivm" 2 >/dev/null 2>&1
for p in lua:cg.lua.out bzip2:cg.bzc.out,cg.bzd.out minivm:cg.vm.out; do
  b=${p%%:*} runs=$(echo "${p#*:}" | sed "s|[^,]*|$t/&|g")
  "$SPGO" infer --binary "$t/$b" --emit-cfg > "$t/$b.cfgs"
  "$SPGO" symbolize --binary "$t/$b" --all-instructions > "$t/$b.insns"
  $prep truth "$t/$b.cfgs" "$t/$b.insns" "$runs" > "$t/$b.truth"
done
cat "$t/lua.truth" "$t/bzip2.truth" "$t/minivm.truth" > "$t/truth.txt"
read -r tfunc texec < <(awk '/^cfg /{if(t>0)e++; n++; t=0} /^block/{for(i=3;i<=NF;i++) if($i ~ /^truth=/){split($i,a,"="); t+=a[2]}} END{if(t>0)e++; print n, e}' "$t/truth.txt")

# ---- quality ---------------------------------------------------------------
# profi = spgo's defaults (tuned on the training set); profi-paper = the
# paper's k_inc 10, k_dec 20, k_inc0 11 without the entry, floor, dangling
# and layout terms (what profi was before the tuning).
algos="profi profi-paper mcf fp quadratic none"
# quality TRUTH OUT: every rate and dangling share, all and hot functions
quality() {
  local truth=$1 q=$2 rate dang a args line min
  : > "$q"; : > "$q.hot"
  for rate in 0.001 0.01 0.1; do
    for dang in 0 0.3; do
      $prep sample "$truth" "$rate" "$dang" 1 > "$w/in.cfg"
      for a in $algos; do
        case $a in
          profi-paper) args="--algo profi --k-inc 10 --k-dec 20 --k-inc0 11 --k-entry-inc 10 --k-entry-dec 20
                             --dec-floor 0 --k-unknown-inc 0 --k-layout 0" ;;
          *) args="--algo $a" ;;
        esac
        line=$("$SPGO" infer --eval $args --cfg "$w/in.cfg" 2>/dev/null | grep '^mean ')
        echo "$rate $dang ${line/mean profi /mean $a }" >> "$q"
        # hot functions: at least 100 samples (weights are samples / rate)
        min=$(awk -v r="$rate" 'BEGIN { printf "%d", 100 / r }')
        line=$("$SPGO" infer --eval --eval-min "$min" $args --cfg "$w/in.cfg" 2>/dev/null | grep '^mean ')
        echo "$rate $dang ${line/mean profi /mean $a }" >> "$q.hot"
      done
    done
  done
}
quality "$t/truth.txt" "$w/train_quality.txt"
q="$w/quality.txt"
quality "$w/truth.txt" "$q"
# seed sensitivity: hot functions, 30% dangling, sampling seeds 1..3
sd="$w/seeds.txt"; : > "$sd"
for rate in 0.001 0.01 0.1; do
  min=$(awk -v r="$rate" 'BEGIN { printf "%d", 100 / r }')
  for seed in 1 2 3; do
    $prep sample "$w/truth.txt" "$rate" 0.3 "$seed" > "$w/in.seed.cfg"
    for a in profi mcf fp; do
      line=$("$SPGO" infer --eval --eval-min "$min" --algo "$a" --cfg "$w/in.seed.cfg" 2>/dev/null | grep '^mean ')
      echo "$rate $seed $line" >> "$sd"
    done
  done
done

fi # skipq

# ---- speed -------------------------------------------------------------------
# Runs per CFG: many for the small ones (a few microseconds each, where one
# run's median is mostly the machine's noise), few for the large ones;
# synthetic CFGs: 5 seeds per size (3 at 10,000).
sp="$w/speed.txt"
load=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "${INFER_SKIP_SPEED:-0}" != 1 ]; then
: > "$sp"
# The algorithms' runs interleave (--algo A,B,C: a column each), so that
# they meet the machine in the same state: run one after the other, they
# came out up to 1.5x apart on the same code from one run to the next.
three() { # KIND: 'KIND ALGO BLOCKS US' lines from 'time NAME BLOCKS EDGES US US US'
  awk -v k="$1" '{ print k, "profi", $3, $5; print k, "mcf", $3, $6; print k, "fp", $3, $7 }'
}
"$SPGO" infer --time 21 --algo profi,mcf,fp --cfg "$w/in.cfg" | three real >> "$sp"
for n in 10 30 100 300 1000 3000 10000; do
  case $n in 10 | 30) runs=201 ;; 100) runs=51 ;; 300 | 1000) runs=11 ;; *) runs=3 ;; esac
  # (more CFGs where one takes microseconds: a median of 5 is noise there)
  case $n in 10 | 30) seeds=$(seq 1 25) ;; 10000) seeds="1 2 3" ;; *) seeds="1 2 3 4 5" ;; esac
  for seed in $seeds; do
    $prep synth "$n" "$seed" > "$w/synth.cfg"
    "$SPGO" infer --time "$runs" --algo profi,mcf,fp --cfg "$w/synth.cfg" | three synth >> "$sp"
  done
done
load="$load -> $(cut -d' ' -f1-3 /proc/loadavg)"
# Which real CFGs a solver runs on: a CFG without a sampled block takes
# the zero-flow shortcut in every algorithm (nothing to time).
awk '/^cfg /{ n++; s[n] = 0 } /^block / && $3 ~ /^[0-9]+$/ && $3 > 0 { s[n] = 1 } END { for (i = 1; i <= n; i++) print s[i] }' \
  "$w/in.cfg" > "$w/sampled.txt"
# median per (kind, algo, |V| bucket) over those; buckets 10, 30, 100, ...
# 10000, nearest in log scale
awk 'BEGIN { nb = split("10 30 100 300 1000 3000 10000", B, " ") }
NR == FNR { sampled[NR] = $1; next }
{
  c = ++idx[$1, $2]; if ($1 == "real" && !sampled[c]) next
  v = $3; b = B[1]
  for (i = 2; i <= nb; i++) if (log(v) > (log(B[i - 1]) + log(B[i])) / 2) b = B[i]
  k = $1 " " $2 " " b; n[k]++; t[k, n[k]] = $4
} END { for (k in n) { m = n[k]; for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (t[k, j] < t[k, i]) { x = t[k, i]; t[k, i] = t[k, j]; t[k, j] = x }
  print k, m, t[k, int((m + 1) / 2)] } }' "$w/sampled.txt" "$sp" | sort -k1,1 -k3,3n -k2,2 > "$w/speed_med.txt"
# Paired, CFG by CFG (the runs list the CFGs in the same order for every
# algorithm): profi against mcf on the CFGs a solver ran on.
awk 'BEGIN { nb = split("10 30 100 300 1000 3000 10000", B, " ") }
NR == FNR { sampled[NR] = $1; next }
{ i = ++idx[$1, $2]; if ($1 == "real" && !sampled[i]) next
  v = $3; b = B[1]
  for (j = 2; j <= nb; j++) if (log(v) > (log(B[j - 1]) + log(B[j])) / 2) b = B[j]
  t[$1, $2, i] = $4; bk[$1, i] = b }
END { for (k in bk) { split(k, p, SUBSEP); kind = p[1]; i = p[2]; b = bk[k]
        tp = t[kind, "profi", i]; tm = t[kind, "mcf", i]; if (tp == "" || tm == "") continue
        g = kind " " b; n[g]++; sp[g] += tp; sm[g] += tm
        if (tp < tm) fa[g]++; else if (tp > tm) sl[g]++
        if (tp > 0 && tm > 0) { lr[g] += log(tp / tm); nl[g]++ } }
      for (g in n) printf "%s %d %d %d %.1f %.1f %.3f\n", g, n[g], fa[g] + 0, sl[g] + 0, sp[g], sm[g], nl[g] ? exp(lr[g] / nl[g]) : 0 }' \
  "$w/sampled.txt" "$sp" | sort -k1,1 -k2,2n > "$w/speed_pairs.txt"
# Instructions executed inside spgo_infer (callgrind), which the machine's
# load does not change: per bucket of the real CFGs that a solver ran on,
# and per synthetic size up to 1,000 (its 5 CFGs together).
ins="$w/speed_ins.txt"; : > "$ins"
if command -v valgrind >/dev/null; then
  count_ins() { # FILE ALGO -> instructions
    valgrind --tool=callgrind --toggle-collect=spgo_infer --callgrind-out-file="$w/cg.ins" \
      "$SPGO" infer --algo "$2" --cfg "$1" > /dev/null 2>&1
    awk '/^totals:/ { print $2 }' "$w/cg.ins"
  }
  awk -v dir="$w" 'BEGIN { nb = split("10 30 100 300 1000 3000 10000", B, " ") }
    function flush() { if (n && s) { b = B[1]; for (j = 2; j <= nb; j++) if (log(n) > (log(B[j - 1]) + log(B[j])) / 2) b = B[j]
                         printf "%s", text > (dir "/bucket_" b ".cfg"); cnt[b]++ } }
    /^cfg / { flush(); text = ""; n = 0; s = 0 }
    { text = text $0 "\n" } /^block / { n++; if ($3 ~ /^[0-9]+$/ && $3 > 0) s = 1 }
    END { flush(); for (b in cnt) print b, cnt[b] > (dir "/buckets.txt") }' "$w/in.cfg"
  sort -n "$w/buckets.txt" | while read -r b cnt; do
    echo "real $b $cnt $(count_ins "$w/bucket_$b.cfg" profi) $(count_ins "$w/bucket_$b.cfg" mcf)" >> "$ins"
    rm -f "$w/bucket_$b.cfg"
  done
  for n in 10 30 100 300 1000; do
    for seed in 1 2 3 4 5; do $prep synth "$n" "$seed"; done > "$w/synth_all.cfg"
    echo "synth $n 5 $(count_ins "$w/synth_all.cfg" profi) $(count_ins "$w/synth_all.cfg" mcf)" >> "$ins"
  done
fi
else
  # keep the last full run's speed section
  awk '/^## Speed/ { p = 1 } p' "$res/infer.md" > "$w/speed_section.md"
fi

# ---- report ------------------------------------------------------------------
table() {
  echo "| rate | dangling | algorithm | cfgs | vertex overlap | edge overlap | coverage | weighted vertex | weighted edge | invalid flows |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  awk '{ for (i = 4; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
         printf "| %s | %d%% | %s | %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %s |\n", $1, $2 * 100, $4, f["cfgs"],
           f["vertex"] * 100, f["edge"] * 100, f["coverage"] * 100, f["weighted_vertex"] * 100, f["weighted_edge"] * 100, f["invalid"] }' "$1"
}
{
  if [ "$skipq" = 1 ]; then
  cat "$w/quality_section.md"
  else
  echo "# Profile inference (bench/bench_infer.sh)"
  echo
  echo "Run: $(date -u +%Y-%m-%d), $(nproc) cores shared; $(gcc --version | head -1)."
  echo
  echo "## Quality"
  echo
  echo "Ground truth: callgrind's per-instruction execution counts and jump counts of"
  echo "real runs, on CFGs from spgo's own disassembly (\`spgo infer --binary\`)."
  echo "Inputs: every block's count thinned binomially at RATE and scaled back by 1/RATE;"
  echo "with \"30% dangling\", 30% of the blocks (chosen at random) have no weight, as in"
  echo "the paper's O3 setting.  Figures are means over the functions that ran and got"
  echo "at least one sample at that rate (cfgs; the paper's per-CFG overlap, section"
  echo "5.3); \"weighted\" weighs each function by its true block count.  \"Hot\" tables"
  echo "count only the functions with at least 100 samples in the input (the paper"
  echo "evaluates the hot functions of a profile).  none = the sampled weights as they"
  echo "are, edges = weight x static probability (not a flow)."
  echo
  echo "Algorithms: profi = spgo's defaults; profi-paper = profi with the paper's"
  echo "coefficients only (k_inc 10, k_dec 20, k_inc0 11, no entry/floor/dangling/"
  echo "layout terms); mcf = Levin et al. (symmetric costs, one path at a time);"
  echo "fp = AutoFDO's frequency propagation (repaired into a valid flow)."
  echo
  echo "profi's defaults (spgo_infer_defaults, infer.c) were tuned on the TRAINING set"
  echo "below, never on speedtest1: a coordinate search over k_dec, k_inc0, the entry"
  echo "block's k_entry_inc/k_entry_dec (LLVM's profi-cost-block-entry-inc/dec), the"
  echo "decrease floor (dec_floor_pct, k_dec_floor), the dangling cost k_unknown_inc"
  echo "(LLVM's profi-cost-block-unknown-inc), the layout cost k_layout and"
  echo "rebalancing on/off, maximizing the mean of vertex + edge overlap over the six"
  echo "inputs, all and hot functions, of two sampling seeds.  Chosen: $(
    grep -E '^#define PROFI_' "$SPGO_SRC/src/infer/infer.c" | awk '{ printf "%s%s %s", n++ ? ", " : "", tolower(substr($2, 7)), $3 }')."
  echo
  echo "### Training set: lua5.4, bzip2, minivm (gcc -O2, Debian source)"
  echo
  echo "lua5.4 running bench/infer_train.lua, bzip2 compressing and decompressing"
  echo "512 KB, minivm (examples/minivm) at scale 2: $tfunc functions, $texec executed."
  echo
  table "$w/train_quality.txt"
  echo
  echo "Hot functions (at least 100 samples):"
  echo
  table "$w/train_quality.txt.hot"
  echo
  echo "### Held out: sqlite3 speedtest1 (gcc -O2, Debian source)"
  echo
  echo "CFGs from spgo_cfg_from_binary: $nijmp indirect jumps, $ntab of them with a"
  echo "recovered jump table and $ntail tail calls through a pointer, $nnoret blocks"
  echo "ending in a noreturn call or trap; $nfunc functions, $nexec executed in one run"
  echo "of \`speedtest1 --size $SIZE --memdb\` ($nblk blocks, $nedg edges in all)."
  echo
  table "$q"
  echo
  echo "Hot functions (at least 100 samples):"
  echo
  table "$q.hot"
  echo
  echo "Sampling noise: hot functions, 30% dangling, vertex / edge overlap for three"
  echo "sampling seeds (seed 1 is the table above) and their mean."
  echo
  echo "| rate | algorithm | seed 1 | seed 2 | seed 3 | mean |"
  echo "| --- | --- | --- | --- | --- | --- |"
  awk '{ for (i = 5; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
         k = $1 " " $4; if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
         cell[k, $2] = sprintf("%.2f / %.2f", f["vertex"] * 100, f["edge"] * 100)
         sv[k] += f["vertex"] * 100; se[k] += f["edge"] * 100; ns[k]++ }
       END { for (i = 1; i <= n; i++) { k = keys[i]; split(k, p, " ")
         printf "| %s | %s | %s | %s | %s | %.2f / %.2f |\n", p[1], p[2], cell[k, 1], cell[k, 2], cell[k, 3], sv[k] / ns[k], se[k] / ns[k] } }' "$sd"
  echo
  echo "Paper (SPEC17, O3+LTO, 32% dangling): profi 93.85% vertex / 90.1% edge overlap,"
  echo "mcf 90.78% / 83.8%, fp 90.29%; coverage profi 99.18%, mcf 96.98%, fp 90.49%."
  echo
  fi # skipq
  if [ "${INFER_SKIP_SPEED:-0}" = 1 ]; then
    cat "$w/speed_section.md"
  else
  echo "## Speed"
  echo
  echo "Median wall time of one inference in microseconds (the three algorithms' runs"
  echo "interleaved, \`spgo infer --time N --algo profi,mcf,fp\`; 21 runs per real CFG; per"
  echo "synthetic one 201 runs at |V| 10 and 30, 51 at 100, 11 at 300 and 1,000, 3"
  echo "above; 25 synthetic CFGs at |V| 10 and 30, 5 at 100 to 3,000, 3 at 10,000;"
  echo "then the median over the CFGs of a |V| bucket, the bucket being the nearest"
  echo "of 10, 30, 100, ... in log scale).  real = speedtest1's CFGs that got a"
  echo "sample (the rate 0.1, 30% dangling input: $(awk '{ s += $1 } END { print s }' "$w/sampled.txt") of"
  echo "$(wc -l < "$w/sampled.txt"); a function without samples takes the zero-flow shortcut"
  echo "in every algorithm, which times nothing), synth = random structured CFGs (loops,"
  echo "diamonds, switches; 1% sampling, 30% dangling).  Plot: infer_speed.png."
  [ "$skipq" = 1 ] && echo "Speed run: $(date -u +%Y-%m-%d) (the quality section above is from the run it names)."
  echo "The machine ($(nproc) cores) was shared with other jobs: load average $load"
  echo "(1, 5, 15 minutes; before -> after the speed runs)."
  echo
  echo "| CFGs | \|V\| ~ | count | profi us | mcf us | fp us | mcf / profi |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  awk '{ k = $1 " " $3; kind[k] = $1; size[k] = $3; cnt[k] = $4; ms[k, $2] = $5 }
       END { for (k in kind) printf "%s %d %d %.1f %.1f %.1f\n", kind[k], size[k], cnt[k], ms[k, "profi"], ms[k, "mcf"], ms[k, "fp"] }' \
    "$w/speed_med.txt" | sort -k1,1 -k2,2n |
    awk '{ r = $4 > 0 ? sprintf("%.2fx", $5 / $4) : "-"
           printf "| %s | %d | %d | %.1f | %.1f | %.1f | %s |\n", $1, $2, $3, $4, $5, $6, r }'
  echo
  echo "CFG by CFG, profi against mcf, over the CFGs a solver ran on (real CFGs"
  echo "with at least one sampled block; all synthetic ones): how many each was"
  echo "faster on (ties are neither), the bucket's total time, and the geometric"
  echo "mean of profi's time over mcf's."
  echo
  echo "| CFGs | \|V\| ~ | count | profi faster | mcf faster | profi total us | mcf total us | profi / mcf, geometric mean |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  awk '{ printf "| %s | %d | %d | %d | %d | %.1f | %.1f | %.3f |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$w/speed_pairs.txt"
  if [ -s "$w/speed_ins.txt" ]; then
    echo
    echo "Instructions executed in spgo_infer (callgrind, one run), which the load of"
    echo "the machine does not change: the real CFGs a solver ran on, by bucket, and"
    echo "the 5 synthetic CFGs of a size together."
    echo
    echo "| CFGs | \|V\| ~ | count | profi instructions | mcf instructions | mcf / profi |"
    echo "| --- | --- | --- | --- | --- | --- |"
    awk '{ printf "| %s | %d | %d | %d | %d | %.2fx |\n", $1, $2, $3, $4, $5, $4 ? $5 / $4 : 0 }' "$w/speed_ins.txt"
  fi
  fi
} > "$res/infer.md.tmp"
mv "$res/infer.md.tmp" "$res/infer.md"

# plot (gnuplot from Debian: gnuplot-nox)
if [ "${INFER_SKIP_SPEED:-0}" != 1 ] && command -v gnuplot >/dev/null; then
  for a in profi mcf fp; do
    awk -v a="$a" '$2 == a {print $3, $4 / 1000}' "$sp" > "$w/pts_$a.txt"
  done
  gnuplot <<EOF
set terminal pngcairo size 900,600 noenhanced
set output "$res/infer_speed.png"
set logscale xy
set xlabel "|V| (blocks)"
set ylabel "time per inference (ms)"
set title "spgo profile inference: time per CFG (speedtest1 CFGs and synthetic CFGs)"
set key left top
set grid
plot "$w/pts_mcf.txt" using 1:2 with points pt 7 ps 0.4 lc rgb "#d62728" title "mcf", \
     "$w/pts_profi.txt" using 1:2 with points pt 7 ps 0.4 lc rgb "#1f77b4" title "profi", \
     "$w/pts_fp.txt" using 1:2 with points pt 7 ps 0.4 lc rgb "#2ca02c" title "fp"
EOF
fi
cat "$res/infer.md"
