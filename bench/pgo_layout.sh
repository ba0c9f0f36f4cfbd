# Post-link and link-time layout on top of the PGO suite (#29 acceptance 2
# and 3), sourced by bench/bench_pgo.sh.  Opt-in variants, built and timed
# only when PGO_VARIANTS names them (PGO_VARIANTS=c-lay,c-prop,c-bolt,c-ord
# and/or g-fs,g-ord; PGO_REPORT=layout writes the layout tables instead of
# the suite's, PGO_TIMES=layout keeps their runs apart):
#   clang-19, all on spgo's emulated-LBR AutoFDO profile (c-lbr.prof):
#     c-lay   sample PGO alone, built ready for layout: not PIE,
#             -ffunction-sections, -fbasic-block-sections=labels (the BB
#             address map), lld with --emit-relocs.  One emulated LBR capture of it on TRAIN
#             (prof/c.lay.data) gives the three layout profiles:
#     c-prop  + Propeller: spgo gen --format propeller, rebuilt with
#             -fbasic-block-sections=list=CLUSTERS and lld
#             --symbol-ordering-file=CLUSTERS.order
#     c-bolt  + BOLT: spgo gen --format bolt, llvm-bolt-19 on c-lay
#             (-reorder-blocks=ext-tsp -reorder-functions=cdsort
#             -split-functions -split-all-cold)
#     c-ord   + function order alone: spgo gen --format order, rebuilt with
#             lld --symbol-ordering-file
#   The layout captures (c-lay's, g-fs's) take a sample per LAYOUT_PERIOD events
#   (spgo emulate -c; default 2003, 10x denser than the
#   compiler profile's capture at the emulator's default).  Block and function order need the hot
#   paths of every profiled function (BOLT's guide asks for a long, dense
#   capture); the 2026-11-29 run at the default period gave CPython 6394
#   LBR samples for 546 profiled functions.
#   gcc-12:
#     g-fs    -O2 -ffunction-sections (the baseline of the order; GNU ld)
#     g-ord   + spgo gen --format order-ld of an emulated capture of g-fs,
#             linked with -Wl,-T,ORDER.ld
LAYOUT_VARIANTS="c-lay c-prop c-bolt c-ord g-fs g-ord"

# The layout profiles of c-lay's capture that are wanted: one spgo gen
# writes them all (each -o takes the --format before it; the files are
# the same bytes as one gen per format).  Stale also when spgo is newer
# (a fixed profile writer), but a file whose bytes did not change keeps
# its date, so the variant built from it is not rebuilt.
layout_profiles() {  # in prepare_layout
  local outs=() f new="$prof/layout.new"
  wanted c-prop && stale "$prof/c-lay.prop" "$prof/c.lay.data" "$SPGO" && outs+=(--format propeller -o "$new/c-lay.prop")
  wanted c-bolt && stale "$prof/c-lay.fdata" "$prof/c.lay.data" "$SPGO" && outs+=(--format bolt -o "$new/c-lay.fdata")
  wanted c-ord && stale "$prof/c-lay.order" "$prof/c.lay.data" "$SPGO" && outs+=(--format order -o "$new/c-lay.order")
  [ ${#outs[@]} -gt 0 ] || return 0
  rm -rf "$new"; mkdir -p "$new"
  if gen "$new/${outs[3]##*/}" "$SPGO" gen --binary "$bin/c-lay" --perf-data "$prof/c.lay.data" "${outs[@]}"; then
    for f in "$new"/*; do cmp -s "$f" "$prof/${f##*/}" || mv -f "$f" "$prof/${f##*/}"; done
    for ((f = 7; f < ${#outs[@]}; f += 4)); do  # (the report reads one log per profile)
      cp "$pd/log/${outs[3]##*/}.log" "$pd/log/${outs[f]##*/}.log"
    done
  fi
  rm -rf "$new"
}

prepare_layout() {  # in prepare_program: uses build, train, gen, err, bin, prof
  local c="-O2 -g -fdebug-info-for-profiling" v
  # (not PIE: llvm-bolt-19 leaves the functions with jump tables of a PIE
  # unoptimized, "failed to post-process indirect branches", with spgo's
  # profile and with perf2bolt's alike: measured on minivm)
  local lay="-fno-pie -no-pie -ffunction-sections -fuse-ld=lld"
  if { wanted c-lay || wanted c-prop || wanted c-bolt || wanted c-ord; } && [ -s "$prof/c-lbr.prof" ]; then
    c="$c -fprofile-sample-use=$prof/c-lbr.prof"
    build c-lay clang-19 "$c $lay -fbasic-block-sections=labels -Wl,--emit-relocs" "$prof/c-lbr.prof"
    if [ -x "$bin/c-lay" ] && stale "$prof/c.lay.data" "$bin/c-lay"; then
      log "$name: spgo emulate (c-lay)"
      train "$SPGO" emulate -c "${LAYOUT_PERIOD:-2003}" -o "$prof/c.lay.data" -- "$bin/c-lay" ||
        err "spgo emulate c-lay failed: $(tail -n1 "$pd/log/train.stderr")"
    fi
    [ -s "$prof/c.lay.data" ] && layout_profiles
    # (c-ord first, with c-lay's compile flags, the map included: it only
    # adds a section; a program built by make relinks c-lay's objects)
    wanted c-ord && [ -s "$prof/c-lay.order" ] &&
      build c-ord clang-19 "$c $lay -fbasic-block-sections=labels -Wl,--symbol-ordering-file=$prof/c-lay.order" "$prof/c-lay.order"
    wanted c-prop && [ -s "$prof/c-lay.prop" ] &&
      build c-prop clang-19 "$c $lay -fbasic-block-sections=list=$prof/c-lay.prop -Wl,--symbol-ordering-file=$prof/c-lay.prop.order" "$prof/c-lay.prop"
    if wanted c-bolt && [ -s "$prof/c-lay.fdata" ] && stale "$bin/c-bolt" "$prof/c-lay.fdata" "$bin/c-lay"; then
      log "$name: llvm-bolt-19 (c-bolt)"
      rm -f "$bin/c-bolt"
      llvm-bolt-19 "$bin/c-lay" -o "$bin/c-bolt" --data "$prof/c-lay.fdata" -reorder-blocks=ext-tsp \
        -reorder-functions=cdsort -split-functions -split-all-cold -dyno-stats > "$pd/log/c-bolt.log" 2>&1 ||
        { err "c-bolt: llvm-bolt-19 failed: $(grep -m1 -i error "$pd/log/c-bolt.log")"; rm -f "$bin/c-bolt"; }
    fi
  fi
  if wanted g-fs || wanted g-ord; then
    build g-fs gcc-12 "-O2 -gdwarf-4 -ffunction-sections"
    if wanted g-ord && [ -x "$bin/g-fs" ]; then
      if stale "$prof/g.fs.data" "$bin/g-fs"; then
        log "$name: spgo emulate (g-fs)"
        train "$SPGO" emulate -c "${LAYOUT_PERIOD:-2003}" -o "$prof/g.fs.data" -- "$bin/g-fs" ||
          err "spgo emulate g-fs failed: $(tail -n1 "$pd/log/train.stderr")"
      fi
      [ -s "$prof/g.fs.data" ] && stale "$prof/g-fs.ld" "$prof/g.fs.data" &&
        gen "$prof/g-fs.ld" "$SPGO" gen --binary "$bin/g-fs" --perf-data "$prof/g.fs.data" \
          --format order-ld -o "$prof/g-fs.ld"
      [ -s "$prof/g-fs.ld" ] &&
        build g-ord gcc-12 "-O2 -gdwarf-4 -ffunction-sections -Wl,-T,$prof/g-fs.ld" "$prof/g-fs.ld"
    fi
  fi
  return 0
}

# paired BASE VARIANT FILEDIR: per-round ratios time(BASE)/time(VARIANT) of
# the runs of the same round (runs of one round share the machine's state:
# wave3 notes, whole runs land in a fast or a slow state) -> "median min max n"
paired() {
  paste "$3/$1" "$3/$2" 2>/dev/null | awk '$1 != "FAIL" && $2 != "FAIL" && $2 > 0 {v[++n] = $1 / $2}
    END {
      if (n == 0) {print "NA NA NA 0"; exit}
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) {t = v[i]; v[i] = v[j]; v[j] = t}
      m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%.3f %.3f %.3f %d\n", m, v[1], v[n], n
    }'
}

layout_pairs() {  # the paired-ratio table: "BASE:VARIANT ..."
  local pairs=$1 n p
  printf '| program |'; for p in $pairs; do printf ' %s / %s |' "${p#*:}" "${p%%:*}"; done; echo
  printf '| --- |'; for p in $pairs; do printf ' ---: |'; done; echo
  for n in "${progs[@]}"; do
    printf '| %s |' "$n"
    for p in $pairs; do
      local m mn mx k
      read -r m mn mx k < <(paired "${p%%:*}" "${p#*:}" "$W/$n/$TD")
      if [ "$m" = NA ]; then printf ' – |'; else printf ' %s (%s-%s, n=%s) |' "$m" "$mn" "$mx" "$k"; fi
    done
    echo
  done
}

layout_report() {
  echo "# Layout on top of sample PGO: Propeller, BOLT, function order (#29)"
  echo
  echo "$(date -u +%Y-%m-%d), \`PGO_REPORT=layout PGO_TIMES=$TD PGO_VARIANTS=$PGO_VARIANTS make bench BENCH=pgo\`"
  echo "(bench/bench_pgo.sh with bench/pgo_layout.sh; programs in bench/pgo/).  User CPU"
  echo "time of the TIME run, interleaved rounds (REPEATS=$nruns in the last run; each table"
  echo "gives its number of runs; variant order rotated each round; each"
  echo "run a fresh copy of the binary under one path).  Load average at the start"
  echo "of the timing $load0, at the end $(cut -d' ' -f1-3 /proc/loadavg); the findings"
  echo "say what else ran."
  echo
  echo "Variants (bench/pgo_layout.sh): c-O2 clang-19 -O2; c-lbr sample PGO (spgo's emulated-LBR"
  echo "AutoFDO profile) with the default linker; c-lay the same profile built for layout"
  echo "(-fno-pie -no-pie, -ffunction-sections, -fbasic-block-sections=labels, lld, --emit-relocs): the base of the"
  echo "layout variants; c-prop + Propeller (spgo --format propeller), c-bolt + BOLT (spgo --format"
  echo "bolt, llvm-bolt-19 ext-tsp/cdsort/split), c-ord + function order (spgo --format order,"
  echo "lld); g-fs gcc-12 -O2 -ffunction-sections, g-ord + spgo --format order-ld (GNU ld script)."
  echo
  echo "## Medians against the layout base (speedup = median(base) / median(variant))"
  echo
  local cv="c-lay" gv="g-fs" v
  for v in c-prop c-bolt c-ord c-lbr c-O2; do wanted "$v" && cv="$cv $v"; done
  for v in g-ord g-O2; do wanted "$v" && gv="$gv $v"; done
  case ",$PGO_VARIANTS," in *,c-lay,*|*,c-prop,*|*,c-bolt,*|*,c-ord,*) table "$cv" c-lay median; echo ;; esac
  case ",$PGO_VARIANTS," in *,g-fs,*|*,g-ord,*) table "$gv" g-fs median; echo ;; esac
  echo "## Best of N against the layout base"
  echo
  case ",$PGO_VARIANTS," in *,c-lay,*|*,c-prop,*|*,c-bolt,*|*,c-ord,*) table "$cv" c-lay min; echo ;; esac
  case ",$PGO_VARIANTS," in *,g-fs,*|*,g-ord,*) table "$gv" g-fs min; echo ;; esac
  echo "## Paired per round"
  echo
  echo "Median of the per-round ratios time(base) / time(variant) of the runs of one"
  echo "round (>1: the variant is faster), their range and the number of rounds."
  echo
  local pairs=""
  for v in c-prop c-bolt c-ord c-lbr; do wanted "$v" && [ "$v" != c-lay ] && pairs="$pairs c-lay:$v"; done
  for v in c-instr c-lbr c-record c-lay; do wanted "$v" && pairs="$pairs c-O2:$v"; done
  wanted g-ord && pairs="$pairs g-fs:g-ord"
  layout_pairs "$pairs"
  echo
  echo "## Layout tools' output"
  echo
  local n l
  for n in "${progs[@]}"; do
    for l in c-lay.prop c-lay.fdata c-lay.order g-fs.ld; do
      [ -s "$W/$n/log/$l.log" ] || continue
      echo "- $n spgo gen $l: \`$(grep -v '^$' "$W/$n/log/$l.log" | tail -n 2 | paste -sd ' ' | sed "s|$W/||g; s|$BENCH_WORK/||g" | cut -c1-300)\`"
    done
    for v in c-prop c-ord g-ord; do
      [ -e "$W/$n/log/$v.log" ] || continue
      echo "- $n $v build: $(grep -c -i 'warning:' "$W/$n/log/$v.log") warnings$(grep -m1 -i 'warning:' "$W/$n/log/$v.log" | sed "s|$W/||g; s|$BENCH_WORK/||g; s|^|: \`|; s|$|\`|" | cut -c1-240)"
    done
    [ -s "$W/$n/log/c-bolt.log" ] &&
      echo "- $n llvm-bolt-19: \`$(grep -E 'have non-empty execution profile|could not be optimized|basic block reordering modified|functions were reordered' "$W/$n/log/c-bolt.log" | paste -sd ' ' | cut -c1-300)\`"
  done
  echo
  if [ -s "$here/layout-findings.md" ]; then cat "$here/layout-findings.md"; echo; fi
  echo "## Errors"
  echo
  pgo_errors "${progs[@]}"
}
