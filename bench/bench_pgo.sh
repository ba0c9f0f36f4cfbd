#!/usr/bin/env bash
# PGO effect across a suite of real C programs (#17; #15 acceptance 3).
#
# Each program is described by bench/pgo/NAME.sh (see bench/pgo/README.md):
# its source (a Debian source package fetched at bench time, or the bundled
# demo), a build recipe taking CC, CFLAGS and LDFLAGS, a TRAIN command line
# and a different TIME command line, and whether it belongs to the training
# half (where spgo's defaults may be chosen) or the reporting half.
#
# Variants (each a binary in BENCH_WORK/pgo/NAME/bin/):
#   clang-19 (all with -O2 -g):
#     c-O2         the baseline
#     c-instr      -fprofile-instr-generate, TRAIN, llvm-profdata-19 merge,
#                  -fprofile-instr-use
#     c-exact      spgo emulate --ground-truth of the profiled build
#                  (-fdebug-info-for-profiling) on TRAIN, spgo gen --ground-truth
#     c-lbr        spgo gen from that same emulated LBR capture
#     c-record     spgo gen from `spgo record` (IP mode here: cpu-clock with
#                  --call-graph dwarf,2048)
#     c-perf       spgo gen from plain `perf record -e cpu-clock -F 10000`
#     on the CSSPGO programs (CSSPGO=1; #15 AP3), from an emulated capture
#     (LBR + frame-pointer call stacks) of a probe build
#     (-fpseudo-probe-for-profiling -fno-omit-frame-pointer
#     -mno-omit-leaf-frame-pointer -fno-pie -no-pie):
#     c-cs-spgo    spgo gen --cs --preinline
#     c-cs-profgen llvm-profgen-19 (its defaults: CS pre-inliner, nested
#                  profile) fed `spgo script -F ip,brstack --raw-stacks`
#     c-cs-ip      spgo gen --cs --preinline from IP samples with
#                  frame-pointer call stacks of the probe build (perf record
#                  -e cpu-clock -F 10000 --call-graph fp; #15 AP4: no LBR)
#     (spgo's AutoFDO profile for that comparison is c-lbr.)
#     Sample-PGO builds: -fprofile-sample-use=P with the profiled build's
#     -fdebug-info-for-profiling (CSSPGO: -fpseudo-probe-for-profiling).
#   gcc-12 (all with -O2 -gdwarf-4: create_gcov 0.19 cannot read DWARF 5):
#     g-O2         the baseline, also the profiled binary of AutoFDO
#     g-instr      -fprofile-generate / -fprofile-use
#     g-exact      spgo gen --ground-truth --format gcov (exact counts)
#     g-lbr        spgo gen --format gcov from an emulated LBR capture of g-O2
#     g-create_gcov  create_gcov on the same capture (rewritten by
#                  `spgo script --rewrite` for autofdo 0.19), its gcov file
#                  (gcc < 12 layout) put in gcc 12's by `spgo convert`
#     all -fauto-profile=P.
#
# Timing: every variant's binary on the TIME command, REPEATS rounds
# (default 11) interleaved round-robin over programs and variants (the
# variant order rotated each round), user CPU time of the child
# (bench/pgo/utime.c: wait4's rusage).  Each run executes a fresh copy of
# the binary under one path (W/run.PID.bin): run in place, byte-identical code
# kept a bias of up to 8% per file across interleaved runs (the file's
# pages in the page cache, found with identical pairs; the same path also
# keeps argv and the environment the same size).  Median per variant, speedup =
# median(-O2) / median(variant), the noise band = the -O2 runs' spread
# around their median, geometric means per column for each half.
#
# Builds and profiles are cached in BENCH_WORK/pgo/NAME (a binary is rebuilt
# when its profile is newer), so a re-run only times.  PGO_CLEAN=1 drops a
# program's builds and profiles first.
#
# Options: PGO_ONLY=prog1,prog2  PGO_VARIANTS=c-lbr,g-lbr,...  REPEATS=N
#          (an -O2 baseline comes along with any variant of its compiler)
#          PGO_NO_TIME=1 (build and profile only)
#          PGO_TIME_ONLY=1 (no builds: time the binaries there are)
#          PGO_APPEND=1 (add these rounds to the runs already timed)
#          PGO_TIMES=DIR (time into NAME/DIR, not NAME/times: experiments
#          beside the suite's runs)
#          PGO_BLD_TAG=T (build in NAME/bld.CC.T: two runs building one
#          compiler's variants side by side)
#          experimental variants, built and timed only when PGO_VARIANTS
#          names them: c-rec20k (spgo record -F 20000); c-lbr10, g-lbr10
#          (the emulated LBR capture at 10x the samples: spgo emulate -c 2003);
#          c-probe0 (the probe build, no profile), c-cs-flat (c-cs-spgo's
#          capture, --no-cs), c-cs10 (c-cs-spgo from a capture at -c 2003),
#          c-cs-nocap (c-cs-spgo, the pre-inliner's size cap at 400000),
#          CSSPGO programs only; the layout ones of
#          bench/pgo_layout.sh (c-lay c-prop c-bolt c-ord g-fs g-ord, #29)
#          PGO_REPORT=layout: write the layout tables (bench/pgo_layout.sh)
#          to bench/results/layout.md instead of the suite's
#          the sample-source ones of bench/pgo_sources.sh (c-brs c-spe c-ip
#          c-ip4 g-brs g-spe g-ip g-ip4, issue 26); PGO_REPORT=sources
#          writes their section of bench/results/sources.md to PGO_OUT
#          (bench/bench_sources.sh appends it there)
#          PGO_REPORT_ONLY=1 (no builds, no timing: the report of the runs
#          there are)
# Writes bench/results/pgo.md (PGO_OUT to write elsewhere).
set -uo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
source "$SPGO_SRC/bench/gen_programs.sh"
REPEATS=${REPEATS:-11}
TD=${PGO_TIMES:-times}   # the runs' directory in each program's work dir
W="$BENCH_WORK/pgo"
SRCROOT="$W/src"
mkdir -p "$W" "$SRCROOT"
out=${PGO_OUT:-"$SPGO_SRC/bench/results/pgo.md"}
[ "${PGO_REPORT:-}" = layout ] && out=${PGO_OUT:-"$SPGO_SRC/bench/results/layout.md"}
[ "${PGO_REPORT:-}" = sources ] && out=${PGO_OUT:-"$W/sources-pgo.md"}
here="$SPGO_SRC/bench/pgo"

CLANG_VARIANTS="c-O2 c-instr c-exact c-lbr c-record c-perf c-cs-spgo c-cs-profgen c-cs-ip"
GCC_VARIANTS="g-O2 g-instr g-exact g-lbr g-create_gcov"
CS_VARIANTS="c-cs-spgo c-cs-profgen c-cs-ip"

log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# ---- helpers for the program descriptions (bench/pgo_lib.sh) ------------

source "$SPGO_SRC/bench/pgo_lib.sh"
source "$SPGO_SRC/bench/pgo_layout.sh"
source "$SPGO_SRC/bench/pgo_sources.sh"
# (CSSPGO against AutoFDO, #28: what the probe build costs alone, the same
# capture without contexts, a 10x denser capture)
CS_EXP_VARIANTS="c-probe0 c-cs-flat c-cs10 c-cs-nocap"
OPT_IN_VARIANTS="c-rec20k c-lbr10 g-lbr10 $CS_EXP_VARIANTS $LAYOUT_VARIANTS $SOURCE_VARIANTS"

# ---- variants --------------------------------------------------------------

wanted() {  # VARIANT: in PGO_VARIANTS (an -O2 baseline is with any variant of its compiler)
  case $1 in c-O2|g-O2)
    [ -z "${PGO_VARIANTS:-}" ] || [[ ",$PGO_VARIANTS," == *",${1%%-*}-"* ]]; return ;;
  esac
  # (experiments, and the variants of pgo_layout.sh and pgo_sources.sh:
  # only when named)
  if [[ " $OPT_IN_VARIANTS " == *" $1 "* ]]; then [[ ",${PGO_VARIANTS:-}," == *",$1,"* ]]; return; fi
  [ -z "${PGO_VARIANTS:-}" ] && return 0
  [[ ",$PGO_VARIANTS," == *",$1,"* ]]
}
# stale OUT DEPS...: OUT missing, empty or older than one of DEPS
stale() {
  local o=$1; shift
  [ -s "$o" ] || return 0
  local d
  for d in "$@"; do [ "$d" -nt "$o" ] && return 0; done
  return 1
}

# ---- one program: fetch, inputs, builds, profiles --------------------------

prepare_program() {  # NAME
  local name=$1 pd="$W/$1"
  # (a changed description, bench/pgo/NAME.sh, drops the cache too; but not
  # a change of its CSSPGO line alone: that only adds or leaves the CSSPGO
  # variants, the others' builds stand.  desc.md5 then keeps the sum of the
  # description the builds came from.)
  local sum had
  sum=$(md5sum < "$here/$name.sh")
  had=$(cat "$pd/desc.md5" 2>/dev/null)
  if [ "${PGO_CLEAN:-0}" = 1 ] ||
     { [ "$had" != "$sum" ] && [ "$had" != "$(grep -v '^CSSPGO=' "$here/$name.sh" | md5sum)" ]; }; then
    rm -rf "$pd/bin" "$pd/prof" "$pd/log" "$pd/data/.ready"
    had=""
  fi
  mkdir -p "$pd"
  [ -n "$had" ] || echo "$sum" > "$pd/desc.md5"
  mkdir -p "$pd/bin" "$pd/prof" "$pd/log" "$pd/data"
  # (a run limited by PGO_VARIANTS keeps the errors of the variants it skips)
  [ -n "${PGO_VARIANTS:-}" ] || : > "$pd/log/errors"
  err() { echo "$*" >> "$pd/log/errors"; log "$name: $*"; }
  S=$(pgo_fetch) || { err "fetch failed"; return 1; }
  if [ ! -e "$pd/data/.ready" ]; then
    (cd "$pd/data" && pgo_inputs) || { err "inputs failed"; return 1; }
    touch "$pd/data/.ready"
  fi
  echo "$TIME" > "$pd/time.args"
  echo "$HALF" > "$pd/half"
  echo "${CSSPGO:-0}" > "$pd/cs"
  bin="$pd/bin" prof="$pd/prof"

  # build VARIANT CC "CFLAGS" [DEP]: one compiler command; stderr to the log
  build() {
    local v=$1 cc=$2 flags=$3 dep=${4:-} drv
    drv=$(pgo_driver "$cc")   # (clang++-19 / g++-12 for a C++ program)
    # (rebuilt when its profile is newer or its command changed)
    if stale "$bin/$v" ${dep:+"$dep"} || [ "$(cat "$bin/$v.cmd" 2>/dev/null)" != "$drv $flags" ]; then
      log "$name: build $v"
      rm -f "$bin/$v"
      # (always under one output name: gcc names the .gcda files after it;
      # one directory per compiler)
      # (PGO_BLD_TAG: another directory, for two builds of one compiler
      # side by side; a gcc instrumented build and its use need the same)
      local bd="$pd/bld.$cc${PGO_BLD_TAG:+.$PGO_BLD_TAG}"
      mkdir -p "$bd" && rm -f "$bd/$name"
      (cd "$bd" && CC=$drv CFLAGS="$flags" LDFLAGS="" pgo_build "$bd/$name") > "$pd/log/$v.log" 2>&1 &&
        mv "$bd/$name" "$bin/$v" && echo "$drv $flags" > "$bin/$v.cmd" ||
        { err "$v: build failed: $(grep -m1 -E 'error:|Error ' "$pd/log/$v.log")"; rm -f "$bin/$v"; return 1; }
    fi
  }
  # train [PREFIX...] -- BIN: run TRAIN in the data directory
  train() {
    local pre=()
    while [ "$1" != "--" ]; do pre+=("$1"); shift; done
    shift
    local targs
    read -r -a targs <<< "$TRAIN"   # (split, not globbed: regexes)
    (cd "$pd/data" && "${pre[@]}" "$1" "${targs[@]}" > /dev/null 2> "$pd/log/train.stderr")
  }
  # gen OUT CMD...: make a profile unless cached
  gen() {
    local o=$1; shift
    "$@" > "$pd/log/$(basename "$o").log" 2>&1 && [ -s "$o" ] ||
      { err "$(basename "$o"): $(tail -n1 "$pd/log/$(basename "$o").log")"; rm -f "$o"; return 1; }
  }

  # gcc: DWARF 4, which create_gcov 0.19 reads (not gcc 12's default 5)
  local c="-O2 -g" gc="-O2 -gdwarf-4" dip="-fdebug-info-for-profiling"
  # (a baseline only when a variant of its compiler is wanted: builds of
  # the large programs take minutes)
  wanted c-O2 && build c-O2 clang-19 "$c"
  wanted g-O2 && build g-O2 gcc-12 "$gc"

  # clang instrumentation PGO
  if wanted c-instr; then
    build c-instrgen clang-19 "$c -fprofile-instr-generate" &&
    if stale "$prof/c.profdata" "$bin/c-instrgen"; then
      rm -rf "$prof/raw" && mkdir -p "$prof/raw"
      LLVM_PROFILE_FILE="$prof/raw/%p.profraw" train -- "$bin/c-instrgen"
      gen "$prof/c.profdata" llvm-profdata-19 merge -o "$prof/c.profdata" "$prof"/raw/*.profraw
    fi
    [ -s "$prof/c.profdata" ] && build c-instr clang-19 "$c -fprofile-instr-use=$prof/c.profdata" "$prof/c.profdata"
  fi

  # clang sample PGO from the profiled build (DWARF lines)
  # (only for a variant profiled on it: a gcc-only run of a large program
  # builds no clang binary)
  if wanted c-exact || wanted c-lbr || wanted c-record || wanted c-perf || wanted c-rec20k || wanted c-lbr10 ||
     wanted c-lay || wanted c-prop || wanted c-bolt || wanted c-ord; then
    build c-prof clang-19 "$c $dip"
  fi
  if [ -x "$bin/c-prof" ]; then
    if { wanted c-exact || wanted c-lbr; } && stale "$prof/c.gt" "$bin/c-prof"; then
      log "$name: spgo emulate (c-prof)"
      train "$SPGO" emulate -o "$prof/c.lbr.data" --ground-truth "$prof/c.gt" -- "$bin/c-prof" ||
        err "spgo emulate c-prof failed: $(tail -n1 "$pd/log/train.stderr")"
    fi
    if wanted c-exact && [ -s "$prof/c.gt" ] && stale "$prof/c-exact.prof" "$prof/c.gt"; then
      gen "$prof/c-exact.prof" "$SPGO" gen --binary "$bin/c-prof" --ground-truth "$prof/c.gt" -o "$prof/c-exact.prof"
    fi
    if wanted c-lbr && [ -s "$prof/c.lbr.data" ] && stale "$prof/c-lbr.prof" "$prof/c.lbr.data"; then
      gen "$prof/c-lbr.prof" "$SPGO" gen --binary "$bin/c-prof" --perf-data "$prof/c.lbr.data" -o "$prof/c-lbr.prof"
    fi
    if wanted c-record && stale "$prof/c-record.prof" "$bin/c-prof"; then
      log "$name: spgo record"
      train "$SPGO" record -o "$prof/c.rec.data" -- "$bin/c-prof" ||
        err "spgo record failed: $(tail -n1 "$pd/log/train.stderr")"
      gen "$prof/c-record.prof" "$SPGO" gen --binary "$bin/c-prof" --perf-data "$prof/c.rec.data" -o "$prof/c-record.prof"
    fi
    if wanted c-perf && stale "$prof/c-perf.prof" "$bin/c-prof"; then
      log "$name: perf record -F 10000"
      train perf record -q -e cpu-clock -F 10000 -o "$prof/c.perf.data" -- "$bin/c-prof" ||
        err "perf record failed: $(tail -n1 "$pd/log/train.stderr")"
      gen "$prof/c-perf.prof" "$SPGO" gen --binary "$bin/c-prof" --perf-data "$prof/c.perf.data" -o "$prof/c-perf.prof"
    fi
    local v
    # (opt-in: only when PGO_VARIANTS names it) spgo record at 20 kHz
    if [ -n "${PGO_VARIANTS:-}" ] && wanted c-rec20k && stale "$prof/c-rec20k.prof" "$bin/c-prof"; then
      log "$name: spgo record -F 20000"
      train "$SPGO" record -F 20000 -o "$prof/c.rec20k.data" -- "$bin/c-prof" ||
        err "spgo record -F 20000 failed: $(tail -n1 "$pd/log/train.stderr")"
      gen "$prof/c-rec20k.prof" "$SPGO" gen --binary "$bin/c-prof" --perf-data "$prof/c.rec20k.data" -o "$prof/c-rec20k.prof"
    fi
    # (opt-in) the emulated LBR capture at 10x the samples (period 2003)
    if [ -n "${PGO_VARIANTS:-}" ] && wanted c-lbr10 && stale "$prof/c-lbr10.prof" "$bin/c-prof"; then
      log "$name: spgo emulate -c 2003 (c-prof)"
      train "$SPGO" emulate -c 2003 -o "$prof/c.lbr10.data" -- "$bin/c-prof" ||
        err "spgo emulate -c 2003 c-prof failed: $(tail -n1 "$pd/log/train.stderr")"
      gen "$prof/c-lbr10.prof" "$SPGO" gen --binary "$bin/c-prof" --perf-data "$prof/c.lbr10.data" -o "$prof/c-lbr10.prof"
    fi
    for v in c-exact c-lbr c-record c-perf c-rec20k c-lbr10; do
      wanted $v && [ -s "$prof/$v.prof" ] && build $v clang-19 "$c $dip -fprofile-sample-use=$prof/$v.prof" "$prof/$v.prof"
    done
  fi

  # CSSPGO (#15 AP3)
  if [ "${CSSPGO:-0}" = 1 ] && { wanted c-cs-spgo || wanted c-cs-profgen || wanted c-cs-ip ||
                                  wanted c-probe0 || wanted c-cs-flat || wanted c-cs10 || wanted c-cs-nocap; }; then
    local probe="-fpseudo-probe-for-profiling"
    build c-probe clang-19 "$c $probe -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
    if [ -x "$bin/c-probe" ] && stale "$prof/c.cs.data" "$bin/c-probe"; then
      log "$name: spgo emulate (c-probe)"
      train "$SPGO" emulate -o "$prof/c.cs.data" -- "$bin/c-probe" ||
        err "spgo emulate c-probe failed: $(tail -n1 "$pd/log/train.stderr")"
    fi
    if [ -s "$prof/c.cs.data" ]; then
      if wanted c-cs-spgo && stale "$prof/c-cs-spgo.prof" "$prof/c.cs.data"; then
        gen "$prof/c-cs-spgo.prof" "$SPGO" gen --binary "$bin/c-probe" --perf-data "$prof/c.cs.data" \
          --cs --preinline -o "$prof/c-cs-spgo.prof"
      fi
      if wanted c-cs-profgen && stale "$prof/c-cs-profgen.prof" "$prof/c.cs.data"; then
        "$SPGO" script -i "$prof/c.cs.data" -F ip,brstack --raw-stacks > "$prof/c.cs.script" 2> "$pd/log/cs.script.log"
        gen "$prof/c-cs-profgen.prof" llvm-profgen-19 --binary="$bin/c-probe" \
          --perfscript="$prof/c.cs.script" -o "$prof/c-cs-profgen.prof"
        rm -f "$prof/c.cs.script"
      fi
    fi
    if [ -x "$bin/c-probe" ] && wanted c-cs-ip && stale "$prof/c-cs-ip.prof" "$bin/c-probe"; then
      log "$name: perf record --call-graph fp (c-probe)"
      train perf record -q -e cpu-clock -F 10000 --call-graph fp -o "$prof/c.ipcs.data" -- "$bin/c-probe" ||
        err "perf record --call-graph fp failed: $(tail -n1 "$pd/log/train.stderr")"
      gen "$prof/c-cs-ip.prof" "$SPGO" gen --binary "$bin/c-probe" --perf-data "$prof/c.ipcs.data" \
        --cs --preinline -o "$prof/c-cs-ip.prof"
    fi
    # (opt-in) the same capture, context-insensitive (probe-keyed);
    # the TRAIN run emulated at 10x the samples, as c-cs-spgo
    if wanted c-cs-flat && [ -s "$prof/c.cs.data" ] && stale "$prof/c-cs-flat.prof" "$prof/c.cs.data"; then
      gen "$prof/c-cs-flat.prof" "$SPGO" gen --binary "$bin/c-probe" --perf-data "$prof/c.cs.data" \
        --no-cs -o "$prof/c-cs-flat.prof"
    fi
    if [ -x "$bin/c-probe" ] && wanted c-cs10 && stale "$prof/c.cs10.data" "$bin/c-probe"; then
      log "$name: spgo emulate -c 2003 (c-probe)"
      train "$SPGO" emulate -c 2003 -o "$prof/c.cs10.data" -- "$bin/c-probe" ||
        err "spgo emulate -c 2003 c-probe failed: $(tail -n1 "$pd/log/train.stderr")"
    fi
    if wanted c-cs10 && [ -s "$prof/c.cs10.data" ] && stale "$prof/c-cs10.prof" "$prof/c.cs10.data"; then
      gen "$prof/c-cs10.prof" "$SPGO" gen --binary "$bin/c-probe" --perf-data "$prof/c.cs10.data" \
        --cs --preinline -o "$prof/c-cs10.prof"
    fi
    # (opt-in) c-cs-spgo with the pre-inliner's size cap lifted (max, the
    # budget of one function, 50000 bytes: CPython's eval loop reaches it)
    if wanted c-cs-nocap && [ -s "$prof/c.cs.data" ] && stale "$prof/c-cs-nocap.prof" "$prof/c.cs.data"; then
      gen "$prof/c-cs-nocap.prof" "$SPGO" gen --binary "$bin/c-probe" --perf-data "$prof/c.cs.data" \
        --cs --preinline --preinline-params max=400000 -o "$prof/c-cs-nocap.prof"
    fi
    wanted c-probe0 && build c-probe0 clang-19 "$c $probe"
    for v in $CS_VARIANTS c-cs-flat c-cs10 c-cs-nocap; do
      wanted $v && [ -s "$prof/$v.prof" ] && build $v clang-19 "$c $probe -fprofile-sample-use=$prof/$v.prof" "$prof/$v.prof"
    done
  fi

  # gcc instrumentation PGO (gcda files under prof/gcda, named after the
  # objects of the one compiler command: the same for both builds)
  if wanted g-instr; then
    build g-instrgen gcc-12 "$gc -fprofile-generate -fprofile-update=single -fprofile-dir=$prof/gcda" &&
    if stale "$prof/gcda.stamp" "$bin/g-instrgen"; then
      rm -rf "$prof/gcda"
      train -- "$bin/g-instrgen"
      if [ -n "$(find "$prof/gcda" -name '*.gcda' 2>/dev/null | head -n1)" ]; then touch "$prof/gcda.stamp"
      else err "g-instrgen wrote no .gcda"; fi
    fi
    [ -e "$prof/gcda.stamp" ] && build g-instr gcc-12 "$gc -fprofile-use -fprofile-dir=$prof/gcda -fprofile-correction" "$prof/gcda.stamp"
  fi

  # gcc AutoFDO: emulated capture of g-O2
  if [ -x "$bin/g-O2" ] && { wanted g-exact || wanted g-lbr || wanted g-create_gcov || wanted g-lbr10; }; then
    if stale "$prof/g.gt" "$bin/g-O2"; then
      log "$name: spgo emulate (g-O2)"
      train "$SPGO" emulate -o "$prof/g.lbr.data" --ground-truth "$prof/g.gt" -- "$bin/g-O2" ||
        err "spgo emulate g-O2 failed: $(tail -n1 "$pd/log/train.stderr")"
    fi
    if wanted g-exact && [ -s "$prof/g.gt" ] && stale "$prof/g-exact.afdo" "$prof/g.gt"; then
      gen "$prof/g-exact.afdo" "$SPGO" gen --binary "$bin/g-O2" --ground-truth "$prof/g.gt" --format gcov -o "$prof/g-exact.afdo"
    fi
    if wanted g-lbr && [ -s "$prof/g.lbr.data" ] && stale "$prof/g-lbr.afdo" "$prof/g.lbr.data"; then
      gen "$prof/g-lbr.afdo" "$SPGO" gen --binary "$bin/g-O2" --perf-data "$prof/g.lbr.data" --format gcov -o "$prof/g-lbr.afdo"
    fi
    if wanted g-create_gcov && [ -s "$prof/g.lbr.data" ] && stale "$prof/g-create_gcov.afdo" "$prof/g.lbr.data"; then
      "$SPGO" script -i "$prof/g.lbr.data" --rewrite "$prof/g.old.data" > "$pd/log/rewrite.log" 2>&1
      # create_gcov 0.19 writes the gcov layout of gcc before 12 (string
      # lengths in words): gcc 12 reads lengths in bytes and cannot read
      # it (--gcov_version=2 only changes the version word: gcc segfaults
      # or finds no function).  The counts go to gcc 12 unchanged by
      # `spgo convert --format gcov`.
      gen "$prof/g.cg.raw" create_gcov --binary="$bin/g-O2" --profile="$prof/g.old.data" \
        --gcov="$prof/g.cg.raw"
      rm -f "$prof/g.old.data" "$prof/g.cg.raw.imports"
      [ -s "$prof/g.cg.raw" ] &&
        gen "$prof/g-create_gcov.afdo" "$SPGO" convert "$prof/g.cg.raw" --format gcov -o "$prof/g-create_gcov.afdo"
    fi
    if [ -n "${PGO_VARIANTS:-}" ] && wanted g-lbr10; then
      if stale "$prof/g.lbr10.data" "$bin/g-O2"; then
        log "$name: spgo emulate -c 2003 (g-O2)"
        train "$SPGO" emulate -c 2003 -o "$prof/g.lbr10.data" -- "$bin/g-O2" ||
          err "spgo emulate -c 2003 g-O2 failed: $(tail -n1 "$pd/log/train.stderr")"
      fi
      [ -s "$prof/g.lbr10.data" ] && stale "$prof/g-lbr10.afdo" "$prof/g.lbr10.data" &&
        gen "$prof/g-lbr10.afdo" "$SPGO" gen --binary "$bin/g-O2" --perf-data "$prof/g.lbr10.data" --format gcov -o "$prof/g-lbr10.afdo"
    fi
    for v in g-exact g-lbr g-create_gcov g-lbr10; do
      wanted $v && [ -s "$prof/$v.afdo" ] && build $v gcc-12 "$gc -fauto-profile=$prof/$v.afdo" "$prof/$v.afdo"
    done
  fi
  prepare_layout
  prepare_sources
  return 0
}

# ---- programs ----------------------------------------------------------------

progs=()
for f in "$here"/*.sh; do
  n=$(basename "$f" .sh)
  if [ -n "${PGO_ONLY:-}" ] && [[ ",$PGO_ONLY," != *",$n,"* ]]; then continue; fi
  progs+=("$n")
done
if [ "${PGO_REPORT_ONLY:-0}" = 1 ]; then  # (only the programs timed before)
  kept=()
  for n in "${progs[@]}"; do [ -n "$(ls "$W/$n/$TD" 2>/dev/null)" ] && kept+=("$n"); done
  progs=("${kept[@]}")
fi
[ ${#progs[@]} -gt 0 ] || { echo "pgo: no program selected" >&2; exit 1; }

cc -O2 -o "$W/utime" "$here/utime.c" || exit 1

# Estimate from the cached -O2 time of each program (1.5 s when unknown).
est=$(for n in "${progs[@]}"; do
        t=$(cat "$W/$n/O2.secs" 2>/dev/null || echo 1.5)
        cs=0; grep -q '^CSSPGO=1' "$here/$n.sh" && cs=3
        echo "$t $((11 + cs))"
      done | awk -v r="$REPEATS" '{s += $1 * $2 * r} END {printf "%.0f", s}')
log "programs: ${progs[*]}; REPEATS=$REPEATS; timing estimate ~$((est / 60)) min $((est % 60)) s (from cached -O2 times, else 1.5 s a run), plus builds and profiles where not cached (~1-3 min per program and variant on 2 loaded cores)"

for n in "${progs[@]}"; do
  [ "${PGO_REPORT_ONLY:-0}" = 1 ] && continue
  [ "${PGO_TIME_ONLY:-0}" = 1 ] && [ -s "$W/$n/time.args" ] && continue
  log "== $n"
  (
    HALF="" CSSPGO=0 LANG_CXX=0 TRAIN="" TIME=""
    source "$here/$n.sh"
    prepare_program "$n"
  )
done

[ "${PGO_NO_TIME:-0}" = 1 ] && exit 0

# ---- timing ------------------------------------------------------------------

[[ ",${PGO_VARIANTS:-}," == *",c-rec20k,"* ]] && CLANG_VARIANTS="$CLANG_VARIANTS c-rec20k"
[[ ",${PGO_VARIANTS:-}," == *",c-lbr10,"* ]] && CLANG_VARIANTS="$CLANG_VARIANTS c-lbr10"
[[ ",${PGO_VARIANTS:-}," == *",g-lbr10,"* ]] && GCC_VARIANTS="$GCC_VARIANTS g-lbr10"
for v in $CS_EXP_VARIANTS; do
  [[ ",${PGO_VARIANTS:-}," == *",$v,"* ]] && CLANG_VARIANTS="$CLANG_VARIANTS $v"
done
all_variants="$CLANG_VARIANTS $GCC_VARIANTS"
for v in $LAYOUT_VARIANTS $SOURCE_VARIANTS; do wanted "$v" && all_variants="$all_variants $v"; done
declare -A vlist
[ "${PGO_REPORT_ONLY:-0}" = 1 ] && REPEATS=0 PGO_APPEND=1
for n in "${progs[@]}"; do
  pd="$W/$n"
  # (PGO_APPEND=1: these rounds are added to the runs already there)
  [ "${PGO_APPEND:-0}" = 1 ] || rm -rf "$pd/$TD"
  mkdir -p "$pd/$TD"
  vs=""
  for v in $all_variants; do
    wanted "$v" && [ -x "$pd/bin/$v" ] && vs="$vs $v"
  done
  vlist[$n]=$vs
done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# (PGO_REPORT_ONLY=1: the load of the timing, kept with its runs)
if [ "$REPEATS" -gt 0 ]; then for n in "${progs[@]}"; do echo "$load0" > "$W/$n/$TD.load"; done
else load0=$(for n in "${progs[@]}"; do [ -s "$W/$n/$TD.load" ] && echo "$(cat "$W/$n/$TD.load") ($n)"; done | paste -sd ';' | sed 's/;/; /g')
     [ -n "$load0" ] || load0=$(cut -d' ' -f1-3 /proc/loadavg); fi
log "timing: $REPEATS rounds (load average $load0)"
t0=$(date +%s)
# (one path per timing process: two timings at once, e.g. the suite's and
# bench_sources.sh's, sharing W/run.bin ran each other's binaries on their
# arguments, gzip compressing lua's time.lua away)
runbin="$W/run.$$.bin"
trap 'rm -f "$runbin"' EXIT
for ((r = 0; r < REPEATS; r++)); do
  for n in "${progs[@]}"; do
    pd="$W/$n"
    read -r -a arr <<< "${vlist[$n]}"
    k=${#arr[@]}
    read -r -a targs < "$pd/time.args"
    for ((i = 0; i < k; i++)); do
      v=${arr[$(((i + r) % k))]}
      rm -f "$runbin"
      if cp "$pd/bin/$v" "$runbin" &&
         s=$(cd "$pd/data" && "$W/utime" "$runbin" "${targs[@]}"); then
        echo "$s" >> "$pd/$TD/$v"
      else
        echo "FAIL" >> "$pd/$TD/$v"
      fi
    done
  done
  log "round $((r + 1))/$REPEATS done ($(( $(date +%s) - t0 )) s)"
done

# ---- report ------------------------------------------------------------------

nruns=$(grep -vc FAIL "$W/${progs[0]}/$TD/c-O2" 2>/dev/null ||
        grep -vc FAIL "$W/${progs[0]}/$TD/g-O2" 2>/dev/null || echo 0)

stats() {  # FILE -> "median min max n fails q1 q3"
  awk '$1 == "FAIL" {f++; next} {v[++n] = $1}
       END {
         if (n == 0) {print "NA NA NA 0", f + 0, "NA NA"; exit}
         for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) {t = v[i]; v[i] = v[j]; v[j] = t}
         m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
         # quartiles: the medians of the lower and upper halves
         h = int(n / 2); if (h < 1) h = 1
         q1 = (h % 2) ? v[(h + 1) / 2] : (v[h / 2] + v[h / 2 + 1]) / 2
         o = n - h
         q3 = (h % 2) ? v[o + (h + 1) / 2] : (v[o + h / 2] + v[o + h / 2 + 1]) / 2
         print m, v[1], v[n], n, f + 0, q1, q3
       }' "$1"
}
for n in "${progs[@]}"; do
  # (a run timing gcc only has no c-O2 runs: keep the cached time)
  [ -s "$W/$n/$TD/c-O2" ] || continue
  read -r m _ < <(stats "$W/$n/$TD/c-O2")
  [ "$m" != NA ] && echo "$m" > "$W/$n/O2.secs"
done

warn_note() {  # NAME VARIANT: profile warnings of that build
  local l="$W/$1/log/$2.log"
  [ -f "$l" ] || return 0
  grep -c -i -E 'warning:.*(profile|sample)|-Wprofile|-Wbackend-plugin|Wmissing-profile|coverage-mismatch' "$l" 2>/dev/null
}

table() {  # "VARIANTS" BASELINE median|min
  local vars=$1 base=$2 st=$3 half v n
  printf '| half | program | %s %s (s) | %s |' "$base" "$st" "$([ "$st" = median ] && echo "noise: range, IQR" || echo runs)"
  for v in $vars; do [ "$v" = "$base" ] || printf ' %s |' "$v"; done
  echo
  printf '| --- | --- | ---: | ---: |'
  for v in $vars; do [ "$v" = "$base" ] || printf ' ---: |'; done
  echo
  for half in train report; do
    declare -A prod=() cnt=()
    for n in "${progs[@]}"; do
      [ "$(cat "$W/$n/half")" = "$half" ] || continue
      local bm bmin bmax bn bf bq1 bq3
      read -r bm bmin bmax bn bf bq1 bq3 < <(stats "$W/$n/$TD/$base" 2>/dev/null || echo "NA NA NA 0 0 NA NA")
      local noise="n/a"
      if [ "$bm" != NA ] && [ "$bn" -gt 1 ]; then
        noise=$(awk -v m="$bm" -v a="$bmin" -v b="$bmax" -v c="$bq1" -v d="$bq3" \
          'BEGIN {printf "-%.1f%%/+%.1f%%, -%.1f%%/+%.1f%%", (m - a) / m * 100, (b - m) / m * 100, (m - c) / m * 100, (d - m) / m * 100}')
      fi
      [ "$st" = min ] && { noise=$bn; bm=$bmin; }
      printf '| %s | %s | %s | %s |' "$half" "$n" "$bm" "$noise"
      for v in $vars; do
        [ "$v" = "$base" ] && continue
        local f="$W/$n/$TD/$v" cell="–"
        if [ -s "$f" ] && [ "$bm" != NA ]; then
          local m mn mx k fl
          read -r m mn mx k fl _ < <(stats "$f")
          [ "$st" = min ] && m=$mn
          if [ "$m" = NA ]; then cell="FAIL"
          else
            cell=$(awk -v b="$bm" -v m="$m" 'BEGIN {printf "%.3f", b / m}')
            prod[$v]=$(awk -v p="${prod[$v]:-0}" -v s="$cell" 'BEGIN {printf "%.6f", p + log(s)}')
            cnt[$v]=$((${cnt[$v]:-0} + 1))
            [ "$fl" -gt 0 ] && cell="$cell ($fl fail)"
            local wn
            wn=$(warn_note "$n" "$v")
            [ -n "$wn" ] && [ "$wn" -gt 0 ] && cell="$cell w$wn"
          fi
        elif wanted "$v" && { [ -e "$W/$n/bin/$v" ] || grep -q "^$v" "$W/$n/log/errors" 2>/dev/null; }; then
          cell="FAIL"
        fi
        printf ' %s |' "$cell"
      done
      echo
    done
    printf '| %s | **geomean** | | |' "$half"
    for v in $vars; do
      [ "$v" = "$base" ] && continue
      if [ -n "${cnt[$v]:-}" ]; then
        printf ' **%s** |' "$(awk -v p="${prod[$v]}" -v c="${cnt[$v]}" 'BEGIN {printf "%.3f", exp(p / c)}')"
      else printf ' |'; fi
    done
    echo
    unset prod cnt
  done
}

cs_table() {  # median|min: the CSSPGO comparison of #15 AP3
  local st=$1 n v gap bm bmin m mn
  echo "| program | spgo AutoFDO (c-lbr) | spgo CSSPGO | llvm-profgen CSSPGO | instr PGO | gap closed | spgo CSSPGO from IP + fp stacks (AP4) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for n in "${progs[@]}"; do
    [ "$(cat "$W/$n/cs")" = 1 ] || continue
    read -r bm bmin _ < <(stats "$W/$n/$TD/c-O2")
    [ "$st" = min ] && bm=$bmin
    declare -A sp=()
    for v in c-lbr c-cs-spgo c-cs-profgen c-instr c-cs-ip; do
      sp[$v]=NA
      if [ -s "$W/$n/$TD/$v" ] && [ "$bm" != NA ]; then
        read -r m mn _ < <(stats "$W/$n/$TD/$v")
        [ "$st" = min ] && m=$mn
        [ "$m" != NA ] && sp[$v]=$(awk -v b="$bm" -v m="$m" 'BEGIN {printf "%.3f", b / m}')
      fi
    done
    gap=$(awk -v a="${sp[c-lbr]}" -v c="${sp[c-cs-spgo]}" -v i="${sp[c-instr]}" \
      'BEGIN {if (a == "NA" || c == "NA" || i == "NA") print "n/a"; else if (i - a <= 0.02) print "gap <= 2%"; else printf "%.0f%%", (c - a) / (i - a) * 100}')
    echo "| $n | ${sp[c-lbr]} | ${sp[c-cs-spgo]} | ${sp[c-cs-profgen]} | ${sp[c-instr]} | $gap | ${sp[c-cs-ip]} |"
    unset sp
  done
}

if [ "${PGO_REPORT:-}" = layout ]; then
  layout_report > "$out.tmp"; mv "$out.tmp" "$out" && cat "$out"
  exit 0
fi
if [ "${PGO_REPORT:-}" = sources ]; then
  sources_report > "$out.tmp"; mv "$out.tmp" "$out" && cat "$out"
  exit 0
fi
{
  echo "# PGO effect across a suite of real C programs (#17, #15 AP3)"
  echo
  echo "$(date -u +%Y-%m-%d), \`make bench BENCH=pgo\` (bench/bench_pgo.sh, programs in bench/pgo/)."
  echo "User CPU time of the TIME run (wait4 rusage), $nruns interleaved runs of each binary (each a"
  echo "fresh copy of it under one path: bench_pgo.sh says why); cells are"
  echo "speedups median(-O2) / median(variant) (>1: faster). Noise: the -O2 runs' min and"
  echo "max, and their quartiles, around their median.  The second pair of tables:"
  echo "the same from each binary's fastest run (best of N: this machine's noise only"
  echo "ever adds time). \`wN\`: N profile warnings in that build's compiler"
  echo "output (bench work dir, NAME/log/VARIANT.log). Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Training half: defaults may be tuned on these; reporting half: not."
  if [ "$nruns" -lt 11 ]; then
    echo
    echo "**$nruns runs: a smoke run (every build, profile and run works end to end),"
    echo "not a measurement: no noise band, and the machine may have been loaded**"
    echo "(load average $load0 at the start of the timing)."
  fi
  echo
  echo "Programs (half; TRAIN -> TIME):"
  echo
  for n in "${progs[@]}"; do
    ( CSSPGO=0; source "$here/$n.sh"; cs=""; [ "$CSSPGO" = 1 ] && cs=", CSSPGO"
      echo "- **$n** ($HALF$cs): $DESC" )
  done
  echo
  echo "## clang-19"
  echo
  table "$CLANG_VARIANTS" c-O2 median
  echo
  echo "## gcc-12"
  echo
  table "$GCC_VARIANTS" g-O2 median
  echo
  echo "## clang-19, best of N"
  echo
  table "$CLANG_VARIANTS" c-O2 min
  echo
  echo "## gcc-12, best of N"
  echo
  table "$GCC_VARIANTS" g-O2 min
  echo
  echo "## CSSPGO (#15 acceptance 3), clang-19"
  echo
  echo "Speedups over c-O2 from the tables above; gap closed = (c-cs-spgo - c-lbr) /"
  echo "(c-instr - c-lbr), shown where instrumentation PGO gains over 2% more than"
  echo "spgo AutoFDO (c-lbr)."
  echo
  cs_table median
  echo
  echo "The same from each binary's fastest run:"
  echo
  cs_table min
  echo
  echo "## Variants that compiled to the same code"
  echo
  echo "Variants of one program whose .text and .rodata are byte-identical"
  echo "(objcopy -O binary): their speedups differ only by timing noise."
  echo
  anys=0
  for n in "${progs[@]}"; do
    groups=$(for v in $all_variants; do
        [ -x "$W/$n/bin/$v" ] && [ -s "$W/$n/$TD/$v" ] || continue
        objcopy -O binary -j .text -j .rodata "$W/$n/bin/$v" "$W/$n/code.tmp" 2>/dev/null || continue
        echo "$(md5sum < "$W/$n/code.tmp" | cut -c1-32) $v"
      done | sort | awk '{g[$1] = g[$1] (g[$1] == "" ? "" : " = ") $2; c[$1]++}
                         END {for (k in g) if (c[k] > 1) print g[k]}' | sort)
    rm -f "$W/$n/code.tmp"
    [ -n "$groups" ] || continue
    anys=1
    echo "- $n: $(echo "$groups" | paste -sd ';' | sed 's/;/; /g')"
  done
  [ "$anys" = 0 ] && echo "None."
  echo
  echo "## Profile warnings of the PGO builds"
  echo
  echo "Compiler output of each profile-use build matching profile, sample,"
  echo "-Wprofile-*, -Wbackend-plugin or coverage-mismatch (first lines)."
  echo
  anyw=0
  for n in "${progs[@]}"; do
    for v in c-instr c-exact c-lbr c-record c-perf c-rec20k c-lbr10 c-cs-spgo c-cs-profgen c-cs-ip g-instr g-exact g-lbr g-create_gcov g-lbr10; do
      l="$W/$n/log/$v.log"
      [ -s "$l" ] || continue
      k=$(warn_note "$n" "$v")
      [ -n "$k" ] && [ "$k" -gt 0 ] || continue
      anyw=1
      echo "- $n $v: $k: \`$(grep -m1 -i -E 'warning:.*(profile|sample)|-Wprofile|-Wbackend-plugin|Wmissing-profile|coverage-mismatch' "$l" | sed "s|$SRCROOT/||g; s|$W/||g; s|$BENCH_WORK/||g; s|$SPGO_SRC/||g" | cut -c1-200)\`"
    done
  done
  [ "$anyw" = 0 ] && echo "None."
  echo
  echo "Warnings of the profile generators (spgo gen, llvm-profgen-19, create_gcov; first"
  echo "of each log):"
  echo
  for n in "${progs[@]}"; do
    for l in "$W/$n"/log/*.prof.log "$W/$n"/log/*.afdo.log; do
      [ -s "$l" ] || continue
      k=$(grep -c -i 'warning' "$l")
      [ "$k" -gt 0 ] || continue
      echo "- $n $(basename "$l" .log): $k: \`$(grep -m1 -i 'warning' "$l" | sed "s|$SRCROOT/||g; s|$W/||g; s|$BENCH_WORK/||g; s|$SPGO_SRC/||g" | cut -c1-220)\`"
    done
  done
  echo
  if [ -s "$here/findings.md" ]; then
    cat "$here/findings.md"
    echo
  fi
  # (CPython's runs of #28, timed apart with PGO_TIMES and written by hand)
  if [ -s "$here/cpython-findings.md" ]; then
    cat "$here/cpython-findings.md"
    echo
  fi
  echo "## Errors"
  echo
  pgo_errors "${progs[@]}"
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
