# The PGO effect of each sample source (issue 26 acceptance 3, its second
# half), sourced by bench/bench_pgo.sh.  Opt-in variants, built and timed
# only when PGO_VARIANTS names them; bench/bench_sources.sh runs them on the
# reporting half (PGO_TIMES=sources keeps their runs apart from the suite's)
# and appends the PGO-effect section (PGO_REPORT=sources) to
# bench/results/sources.md.  Each is an AutoFDO profile made by spgo gen
# from one emulated capture of TRAIN (spgo emulate, seed 1) of the profiled
# build, the same build and training run as c-lbr / g-lbr, only the sample
# source changed:
#   c-brs  g-brs   AMD BRS shape: --branch-shape brs (16 entries, no stacks),
#                  the default period (20011 taken branches)
#   c-spe  g-spe   Arm SPE shape: --spe --spe-pbt -c SRC_SPE_PERIOD (every
#                  executed branch recorded with probability 1/1000, with
#                  the previous-branch-target packet; the recording
#                  bench/results/sources.md recommends)
#   c-ip   g-ip    IP only: -e instructions -c 750000 (perf's default 4000 Hz
#                  on a 3 GHz IPC-1 machine), spgo gen --mode ip
#   c-ip4  g-ip4   IP at 4x that density (-c 187500)
# clang-19 from the profiled build c-prof (-fdebug-info-for-profiling),
# -fprofile-sample-use; gcc-12 from g-O2, spgo gen --format gcov,
# -fauto-profile.
SOURCE_VARIANTS="c-brs c-spe c-ip c-ip4 g-brs g-spe g-ip g-ip4"
SRC_SPE_PERIOD=${SRC_SPE_PERIOD:-1000}
SRC_IP_PERIOD=750000

src_emu_opts() {  # KEY: spgo emulate's options for that source
  case $1 in
    brs) echo "--branch-shape brs" ;;
    spe) echo "--spe --spe-pbt -c $SRC_SPE_PERIOD" ;;
    ip) echo "-e instructions -c $SRC_IP_PERIOD" ;;
    ip4) echo "-e instructions -c $((SRC_IP_PERIOD / 4))" ;;
  esac
}

prepare_sources() {  # in prepare_program: uses build, train, gen, err, bin, prof
  local cc k v pbin flags use ext fmt comp data p mode
  for cc in c g; do
    if [ $cc = c ]; then
      pbin=$bin/c-prof flags="-O2 -g -fdebug-info-for-profiling" use=-fprofile-sample-use= ext=prof fmt="" comp=clang-19
    else
      pbin=$bin/g-O2 flags="-O2 -gdwarf-4" use=-fauto-profile= ext=afdo fmt="--format gcov" comp=gcc-12
    fi
    for k in brs spe ip ip4; do
      v=$cc-$k
      wanted $v && [ -x "$pbin" ] || continue
      data="$prof/$cc.$k.data" p="$prof/$v.$ext" mode=""
      case $k in ip*) mode="--mode ip" ;; esac
      if stale "$data" "$pbin"; then
        log "$name: spgo emulate $(src_emu_opts $k) ($(basename "$pbin"))"
        # shellcheck disable=SC2046  # the options split on purpose
        train "$SPGO" emulate $(src_emu_opts $k) -o "$data" -- "$pbin" ||
          err "spgo emulate $v failed: $(tail -n1 "$pd/log/train.stderr")"
        sed -n 's/.*: \([0-9]*\) \(samples\|records\).*/\1/p' "$pd/log/train.stderr" | tail -n1 > "$prof/$cc.$k.samples"
      fi
      # shellcheck disable=SC2086
      [ -s "$data" ] && stale "$p" "$data" &&
        gen "$p" "$SPGO" gen --binary "$pbin" --perf-data "$data" $mode $fmt -o "$p"
      [ -s "$p" ] && build $v $comp "$flags $use$p" "$p"
    done
  done
  # (the LBR capture's samples: one paragraph each, with its call stack, in
  # spgo script -F ip)
  for cc in c g; do
    [ -s "$prof/$cc.lbr.data" ] && stale "$prof/$cc.lbr.samples" "$prof/$cc.lbr.data" &&
      "$SPGO" script -i "$prof/$cc.lbr.data" -F ip 2> /dev/null | awk 'BEGIN {RS = ""} END {print NR}' > "$prof/$cc.lbr.samples"
  done
  # The profiles' similarity to the exact counts of the training run
  # (clang-19: c.gt, from c-lbr's capture; flat line profiles, as
  # bench/bench_sources.sh measures them)
  if [ -s "$prof/c.gt" ] && [ -x "$bin/c-prof" ] && { wanted c-brs || wanted c-spe || wanted c-ip || wanted c-ip4; }; then
    : > "$pd/log/sources.sim"
    "$SPGO" gen --binary "$bin/c-prof" --ground-truth "$prof/c.gt" --use-dwarf-correlation \
      --format text -o "$prof/c.truth.txt" --quiet 2> /dev/null || return 0
    for k in lbr brs spe ip ip4; do
      data="$prof/c.$k.data" mode=""
      [ $k = lbr ] && data="$prof/c.lbr.data"
      case $k in ip*) mode="--mode ip" ;; esac
      [ -s "$data" ] || continue
      # shellcheck disable=SC2086
      "$SPGO" gen --binary "$bin/c-prof" --perf-data "$data" $mode --use-dwarf-correlation \
        --format text -o "$prof/c.$k.txt" --quiet 2> /dev/null || continue
      echo "c-$k $("$SPGO" overlap "$prof/c.truth.txt" "$prof/c.$k.txt" |
        sed -n 's/.*profile similarity: \([0-9.]*\)%.*/\1/p')" >> "$pd/log/sources.sim"
      rm -f "$prof/c.$k.txt"
    done
  fi
  return 0
}

# The PGO-effect section of bench/results/sources.md.
src_speedup() {  # NAME VARIANT median|min -> speedup over its compiler's -O2, or NA
  local base=${2%%-*}-O2 bm bmin m mn
  read -r bm bmin _ < <(stats "$W/$1/$TD/$base")
  [ -s "$W/$1/$TD/$2" ] || { echo NA; return; }
  read -r m mn _ < <(stats "$W/$1/$TD/$2")
  [ "$3" = min ] && { bm=$bmin; m=$mn; }
  if [ "$bm" = NA ] || [ "$m" = NA ]; then echo NA
  else awk -v b="$bm" -v m="$m" 'BEGIN {printf "%.3f", b / m}'; fi
}

src_shares() {  # CC(c|g) median|min: share of LBR's and of instr's gain
  local cc=$1 st=$2 n v k
  printf '| program |'
  for k in brs spe ip ip4; do printf ' %s / lbr | %s / instr |' "$cc-$k" "$cc-$k"; done
  echo " $cc-lbr / instr |"
  printf '| --- |'; for k in brs spe ip ip4; do printf ' ---: | ---: |'; done; echo ' ---: |'
  declare -A lg=()
  local nz nzmax=0
  for n in "${progs[@]}" geomean; do
    declare -A s=()
    # (the noise: half the -O2 runs' interquartile range, relative to their
    # median; the geomean row takes the largest of the programs')
    if [ $n = geomean ]; then nz=$nzmax
    else
      nz=$(stats "$W/$n/$TD/$cc-O2" | awk '$1 == "NA" {print 0; exit} {printf "%.4f", ($7 - $6) / 2 / $1}')
      nzmax=$(awk -v a="$nz" -v b="$nzmax" 'BEGIN {print (a > b) ? a : b}')
    fi
    for v in lbr instr brs spe ip ip4; do
      if [ $n = geomean ]; then
        s[$v]=$(printf '%s\n' ${lg[$v]:-} | awk '$1 != "NA" {p += log($1); c++} END {if (c) printf "%.3f", exp(p / c); else print "NA"}')
      else
        s[$v]=$(src_speedup "$n" "$cc-$v" "$st")
        lg[$v]="${lg[$v]:-} ${s[$v]}"
      fi
    done
    [ $n = geomean ] && printf '| **geomean** |' || printf '| %s |' "$n"
    for k in brs spe ip ip4 lbr; do
      for v in lbr instr; do
        [ $k = lbr ] && [ $v = lbr ] && continue
        awk -v a="${s[$k]}" -v b="${s[$v]}" -v z="$nz" 'BEGIN {
          if (a == "NA" || b == "NA") {printf " – |"; exit}
          if (b - 1 < 0.01 || b - 1 <= z) {printf " (gain %+.1f%%) |", (b - 1) * 100; exit}
          printf " %.0f%% |", (a - 1) / (b - 1) * 100 }'
      done
    done
    echo
    unset s
  done
}

src_slower() {  # CC: the variants whose median is slower than every -O2 run
  local cc=$1 n v bm bmin bmax m any=0
  for n in "${progs[@]}"; do
    read -r bm bmin bmax _ < <(stats "$W/$n/$TD/$cc-O2")
    for v in lbr brs spe ip ip4 instr; do
      [ -s "$W/$n/$TD/$cc-$v" ] || continue
      read -r m _ < <(stats "$W/$n/$TD/$cc-$v")
      [ "$m" != NA ] && [ "$bmax" != NA ] || continue
      if awk -v m="$m" -v x="$bmax" 'BEGIN {exit !(m > x)}'; then
        any=1
        echo "- $n $cc-$v: median $m s, slower than the slowest of the $cc-O2 runs ($bmax s; median $bm s)"
      fi
    done
  done
  [ $any = 0 ] && echo "- none: no variant's median is above the slowest $cc-O2 run"
}

sources_report() {
  local cv="c-O2 c-instr c-lbr c-brs c-spe c-ip c-ip4" gv="g-O2 g-instr g-lbr g-brs g-spe g-ip g-ip4" n
  echo "## PGO effect by sample source (x86: clang-19 and gcc-12)"
  echo
  echo "$(date -u +%Y-%m-%d), \`make bench BENCH=sources\` (bench/bench_sources.sh runs"
  echo "bench/bench_pgo.sh with bench/pgo_sources.sh: PGO_TIMES=sources PGO_REPORT=sources) on the"
  echo "PGO suite's reporting half without cpython (${progs[*]}; bench/pgo/README.md:"
  echo "nothing was tuned on these).  Each source's profile is made by \`spgo gen\` from one"
  echo "emulated capture (\`spgo emulate\`, seed 1) of the suite's TRAIN run of the profiled"
  echo "build, the same run c-lbr / g-lbr are made from; only the sample source changes:"
  echo "lbr LBR 32 (the suite's c-lbr, g-lbr), brs the BRS shape (\`--branch-shape brs\`),"
  echo "spe the SPE shape at 1 in $SRC_SPE_PERIOD branches with the previous-branch-target packet"
  echo "(\`--spe --spe-pbt -c $SRC_SPE_PERIOD\`), ip IP only at the modelled perf default"
  echo "(\`-e instructions -c $SRC_IP_PERIOD\`, \`spgo gen --mode ip\`), ip4 the same at 4x the density"
  echo "(\`-c $((SRC_IP_PERIOD / 4))\`); instr is instrumentation PGO.  clang-19 -O2 -g"
  echo "(-fdebug-info-for-profiling, -fprofile-sample-use), gcc-12 -O2 -gdwarf-4 (spgo gen --format"
  echo "gcov, -fauto-profile)."
  echo
  echo "User CPU time of the TIME run (a different input from TRAIN), $nruns interleaved rounds"
  echo "(variant order rotated each round, each run a fresh copy of the binary under one"
  echo "path, as bench_pgo.sh does).  Cells: speedup median(-O2) / median(variant); noise:"
  echo "the -O2 runs' min and max, and quartiles, around their median.  The machine (2 cores,"
  echo "shared with other engineers' jobs): load average $load0 at the start"
  echo "of the timing, $(cut -d' ' -f1-3 /proc/loadavg) $([ "${PGO_REPORT_ONLY:-0}" = 1 ] && echo "when this report was written" || echo "at the end"); the best-of-N tables (each binary's"
  echo "fastest run: load only ever adds time) are the steadier figures."
  echo
  echo "### Speedups, medians"
  echo
  table "$cv" c-O2 median | grep -v '^| train |'
  echo
  table "$gv" g-O2 median | grep -v '^| train |'
  echo
  echo "### Speedups, best of N"
  echo
  table "$cv" c-O2 min | grep -v '^| train |'
  echo
  table "$gv" g-O2 min | grep -v '^| train |'
  echo
  echo "### Share of the gain"
  echo
  echo "(speedup(source) - 1) / (speedup(lbr or instr) - 1); \"(gain x%)\": the reference's"
  echo "own gain, where it is under 1% or within the noise (half the -O2 runs' interquartile"
  echo "range; the geomean row: the largest of the programs'), too little to share.  From the"
  echo "best-of-N speedups:"
  echo
  src_shares c min
  echo
  src_shares g min
  echo
  echo "From the medians:"
  echo
  src_shares c median
  echo
  src_shares g median
  echo
  echo "### Slower than -O2 beyond the noise band"
  echo
  echo "A variant whose median is above the slowest -O2 run of the program:"
  echo
  src_slower c
  src_slower g
  echo
  echo "### Similarity of the same captures"
  echo
  echo "\`spgo overlap\` profile similarity (flat line profiles, as in the table above) of each"
  echo "clang-19 capture's profile against the exact counts of the LBR training run"
  echo "(\`spgo emulate --ground-truth\`; the runs execute the same code up to the"
  echo "programs' own nondeterminism):"
  echo
  echo "| program | lbr | brs | spe | ip | ip4 |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  for n in "${progs[@]}"; do
    printf '| %s |' "$n"
    for v in lbr brs spe ip ip4; do
      printf ' %s |' "$(awk -v v="c-$v" '$1 == v && $2 != "" {printf "%.1f%%\n", $2; f = 1} END {if (!f) print "–"}' "$W/$n/log/sources.sim" 2>/dev/null || echo –)"
    done
    echo
  done
  echo
  echo "Samples in each capture (spgo emulate's count):"
  echo
  echo "| program | c-lbr | c-brs | c-spe | c-ip | c-ip4 | g-lbr | g-brs | g-spe | g-ip | g-ip4 |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for n in "${progs[@]}"; do
    printf '| %s |' "$n"
    for v in c.lbr c.brs c.spe c.ip c.ip4 g.lbr g.brs g.spe g.ip g.ip4; do
      printf ' %s |' "$(cat "$W/$n/prof/$v.samples" 2>/dev/null || echo –)"
    done
    echo
  done
  echo
  if [ -s "$here/sources-findings.md" ]; then cat "$here/sources-findings.md"; echo; fi
  echo "### Errors"
  echo
  pgo_errors "${progs[@]}"
}
