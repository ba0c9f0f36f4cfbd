#!/usr/bin/env bash
# Stale profiles across real version pairs (#30): how much of a profile of
# the OLD release still matches the NEW one, as it is and after `spgo
# carry`, and what each does for the PGO build of NEW.
#
# Pairs: Debian 12 (bookworm) -> Debian 13 (trixie) source packages of
# programs of the PGO suite (bench/pgo/NAME.sh: the build recipe, TRAIN and
# TIME command lines; the corpora of zstd and pcre2grep are made here from
# the unpacked trees; speedtest1 is sqlite3's, over the amalgamation that
# each tree's configure and make make once, in the tree).  The trees are fetched once into
# STALE_CACHE (default BENCH_WORK/stale/src; point it at a cache shared
# between work trees): bookworm's by the machine's apt, trixie's by apt-get
# with a sources list and state directory of its own under STALE_CACHE
# (nothing under /etc/apt changes).
#
# TRAIN here is a run of the TIME workload (the same script or regexes, at
# a size of its own: what a release process does when it profiles its
# production load; set in prepare below), not the
# suite's TRAIN: the question is how much of the profile's value survives
# the version change, and the suite's lua5.4 TRAIN does not carry to TIME
# at all (bench/pgo/findings.md), which leaves no gain to recover.
# Two kinds of profile, each from `spgo emulate` of TRAIN (LBR, QEMU):
#   line:  clang-19 -O2 -g -fdebug-info-for-profiling, spgo gen (AutoFDO)
#   probe: -fpseudo-probe-for-profiling (frame pointers, no PIE), spgo gen
#          --cs --preinline (CSSPGO, nested preinlined profile)
# For each kind, builds of NEW timed on TIME:
#   none     no profile
#   fresh    the profile of NEW (collected on NEW)
#   stale    the profile of OLD as it is
#   carried  spgo carry of it (OLD -> NEW)
#   salvage  the profile of OLD with clang's -mllvm -salvage-stale-profile
#   same     a second copy of none, timed as a variant of its own: the
#            difference two identical binaries show (noise of a median)
# Matching: `spgo stale` of the OLD profile and of the carried one against
# NEW (matched share of samples), and each one's similarity to the fresh
# profile (spgo overlap).  Speed: spgo stale and spgo carry on the largest
# program, wall seconds and peak RSS (/usr/bin/time).
#
# Timing as bench_pgo.sh: REPEATS rounds (default 11) interleaved over all
# programs and variants (order rotated each round), user CPU time of a
# fresh copy of the binary under one path; medians and best-of-N; the
# noise band is the `none` runs' spread around their median (range and
# interquartile range).  The gain recovered = (speedup(V) - 1) /
# (speedup(fresh) - 1), given only where the fresh gain is measured: the
# fresh median below the none runs' lower quartile and the fresh gain
# above the `same` binary's difference from none (else "fresh in noise").
#
# Options: STALE_ONLY=lua5.4,zstd  REPEATS=N  STALE_NO_TIME=1
#          STALE_APPEND=1 (add these rounds to the runs already timed)
#          STALE_JOBS=N (zstd: compilers at once, default 2)
#          STALE_REPORT_ONLY=1 (no timing: the report from the runs there are,
#          e.g. after timing programs in separate runs with STALE_ONLY)
#          STALE_PGO=lua5.4,pcre2grep (the programs built with the profiles
#          and timed; default all; the others: matching and speed only)
#          STALE_VARIANTS=carried0,carried10 (experiments, probe kind only:
#          carriedN is `spgo carry --min-confidence N`, matched, built and
#          timed beside the others; a profile the same as carried's is not
#          built again but shown as "= carried".  --min-confidence keeps
#          probe functions only: a line profile comes out as carried)
# Writes bench/results/stale.md (STALE_OUT to write elsewhere).
set -uo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
REPEATS=${REPEATS:-11}
W="$BENCH_WORK/stale"
CACHE=${STALE_CACHE:-"$W/src"}
mkdir -p "$W" "$CACHE/bookworm" "$CACHE/trixie"
out=${STALE_OUT:-"$SPGO_SRC/bench/results/stale.md"}
here="$SPGO_SRC/bench/pgo"
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
source "$SPGO_SRC/bench/pgo_lib.sh"   # pgo_orig, used by the recipes' pgo_fetch

# NAME SRCPKG DIRGLOB: the programs (bench/pgo/NAME.sh) and their packages
PAIRS="lua5.4:lua5.4:lua-5.4* zstd:libzstd:zstd-* pcre2grep:pcre2:pcre2-* speedtest1:sqlite3:sqlite3-*"
VARIANTS="none same fresh stale carried salvage"
KINDS="line probe"
XVARIANTS=""
sv=${STALE_VARIANTS:-}
for x in ${sv//,/ }; do
  [[ $x =~ ^carried[0-9]+$ ]] ||
    { echo "stale: STALE_VARIANTS: $x is not carriedN (N: spgo carry --min-confidence)" >&2; exit 2; }
  XVARIANTS="$XVARIANTS $x"
done
xvars() { [ "$1" = probe ] && echo $XVARIANTS; }  # KIND: its experiments

# ---- sources -------------------------------------------------------------------

APT_T="$CACHE/apt-trixie"
apt_trixie() {  # apt-get ARGS... against trixie's deb-src only
  mkdir -p "$APT_T/lists/partial" "$APT_T/cache/archives/partial"
  [ -s "$APT_T/sources.list" ] ||
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
      > "$APT_T/sources.list"
  apt-get -o Dir::Etc::sourcelist="$APT_T/sources.list" -o Dir::Etc::sourceparts=- \
    -o Dir::State::Lists="$APT_T/lists" -o Dir::Cache="$APT_T/cache" "$@"
}
# tree SUITE PKG GLOB: the unpacked upstream tree of PKG in SUITE (its
# .orig tarball, fetched once; a missing .dsc on the mirror is not ours)
tree() {
  local suite=$1 pkg=$2 glob=$3 d t
  d=$(cd "$CACHE/$suite" && ls -d $glob/ 2>/dev/null | head -n1)
  if [ -z "$d" ]; then
    t=$(cd "$CACHE/$suite" && ls "${pkg}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1)
    if [ -z "$t" ]; then
      if [ "$suite" = trixie ]; then
        ls "$APT_T"/lists/*Sources* > /dev/null 2>&1 || apt_trixie update -qq > /dev/null 2>&1
        (cd "$CACHE/$suite" && apt_trixie source --download-only -qq "$pkg" > /dev/null 2>&1)
      else
        "$SPGO_SRC/scripts/debian-source.sh" --enable-only >&2 || return 1
        (cd "$CACHE/$suite" && apt-get source --download-only -qq "$pkg" > /dev/null 2>&1)
      fi
      t=$(cd "$CACHE/$suite" && ls "${pkg}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1)
    fi
    [ -n "$t" ] || { log "stale: no $suite source tarball for $pkg"; return 1; }
    (cd "$CACHE/$suite" && tar -xf "$t") || return 1
    d=$(cd "$CACHE/$suite" && ls -d $glob/ 2>/dev/null | head -n1)
  fi
  [ -n "$d" ] || return 1
  echo "$CACHE/$suite/${d%/}"
}

# ---- one program ---------------------------------------------------------------

# build OUT FLAGS: the program's recipe with clang-19 (S: its source tree)
build() {
  local o=$1 flags=$2 bd="$pd/bld" p
  p=$(sed -n 's/.*-fprofile-sample-use=\([^ ]*\).*/\1/p' <<< "$flags")
  if [ -x "$o" ] && [ "$(cat "$o.cmd" 2>/dev/null)" = "$S $flags" ] && { [ -z "$p" ] || [ "$o" -nt "$p" ]; }; then
    return 0
  fi
  # (the same sources and flags built before under another name: none is
  # the build of NEW that was profiled)
  local c
  for c in "$pd"/bin/*.cmd; do
    [ -z "$p" ] && [ "$c" != "$o.cmd" ] && [ -x "${c%.cmd}" ] && [ "$(cat "$c")" = "$S $flags" ] || continue
    log "$name: $(basename "$o") = $(basename "${c%.cmd}")"
    cp "${c%.cmd}" "$o" && cp "$c" "$o.cmd" && return 0
  done
  log "$name: build $(basename "$o")"
  mkdir -p "$bd" && rm -f "$bd/prog" "$o"
  (cd "$bd" && CC=clang-19 CFLAGS="$flags" LDFLAGS="" pgo_build "$bd/prog") > "$pd/log/$(basename "$o").log" 2>&1 &&
    mv "$bd/prog" "$o" && echo "$S $flags" > "$o.cmd" ||
    { log "$name: $(basename "$o"): build failed: $(grep -m1 'error' "$pd/log/$(basename "$o").log")"; return 1; }
}
train() {  # PREFIX... -- BIN
  local pre=() targs
  while [ "$1" != "--" ]; do pre+=("$1"); shift; done
  shift
  read -r -a targs <<< "$TRAIN"
  (cd "$pd/data" && "${pre[@]}" "$1" "${targs[@]}" > /dev/null 2>> "$pd/log/train.stderr")
}
# profile KIND BIN OUT: spgo emulate of TRAIN on BIN, spgo gen (redone
# when BIN or TRAIN changed: OUT.train keeps the TRAIN it ran)
profile() {
  local k=$1 b=$2 o=$3
  [ -s "$o" ] && [ "$o" -nt "$b" ] && [ "$(cat "$o.train" 2>/dev/null)" = "$TRAIN" ] && return 0
  log "$name: profile $(basename "$o")"
  echo "$TRAIN" > "$o.train"
  train "$SPGO" emulate -o "$o.data" -- "$b" || { log "$name: emulate $(basename "$b") failed"; return 1; }
  if [ "$k" = probe ]; then
    "$SPGO" gen --binary "$b" --perf-data "$o.data" --cs --preinline -o "$o" --quiet
  else
    "$SPGO" gen --binary "$b" --perf-data "$o.data" -o "$o" --quiet
  fi
  local rc=$?
  rm -f "$o.data"
  return $rc
}
# corpus FILE TREES...: the sorted files of the trees, concatenated (8 MB)
corpus() {
  local o=$1; shift
  [ -s "$o" ] && return 0
  for d in "$@"; do
    (cd "$(dirname "$d")" && find "$(basename "$d")" -type f | LC_ALL=C sort | xargs cat)
  done 2> /dev/null | head -c 8000000 > "$o"
  [ -s "$o" ]   # (head closes the pipe early: cat's SIGPIPE is expected)
}

prepare() {  # NAME PKG GLOB
  name=$1 pkg=$2 glob=$3
  pd="$W/$name"
  mkdir -p "$pd/bin" "$pd/prof" "$pd/log" "$pd/data"
  HALF="" CSSPGO=0 TRAIN="" TIME=""
  source "$here/$name.sh"
  [ "$name" = pcre2grep ] && pgo_build() {  # (10.43 added pcre2_chkdint.c)
    local f files=""
    for f in "$S"/pcre2_*.c; do
      case $f in *_jit_match.c|*_jit_misc.c|*_jit_test.c|*_printint.c|*_fuzzsupport.c|*_dftables.c|*_ucptables.c|*_jit_char_inc.c|*_jit_neon_inc.c|*_jit_simd_inc.c) continue ;; esac
      files="$files $f"
    done
    # shellcheck disable=SC2086
    $CC $CFLAGS -DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -DSUPPORT_PCRE2_8 -DSUPPORT_UNICODE \
      -DHAVE_UNISTD_H -DHAVE_DIRENT_H -DHAVE_SYS_STAT_H -DHAVE_SYS_TYPES_H -DHAVE_STRERROR \
      -DHAVE_MEMMOVE -DHAVE_INTTYPES_H -DHAVE_STDINT_H -I"$S" -o "$1" $files "$S/pcre2grep.c" $LDFLAGS
  }
  # zstd: the compressor alone (upstream's `make zstd-compress`: TIME only
  # compresses; a third of the recipe's code to compile ten times over),
  # compiled STALE_JOBS files at a time
  [ "$name" = zstd ] && pgo_build() {
    local od="$1.o" f
    rm -rf "$od" && mkdir -p "$od" || return 1
    for f in "$S"/lib/common/*.c "$S"/lib/compress/*.c "$S"/programs/{zstdcli,util,timefn,fileio,fileio_asyncio}.c; do
      echo "$f"
    done | awk '{ n = split($0, a, "/"); print $0 " " a[n - 1] "_" a[n] }' |
      CC=$CC CFLAGS=$CFLAGS S=$S xargs -P "${STALE_JOBS:-2}" -L 1 sh -c \
        '$CC $CFLAGS -DZSTD_NOBENCH -DZSTD_NODICT -DZSTD_NODECOMPRESS -DZSTD_NOTRACE -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -I"$S/lib" -I"$S/lib/common" -c -o "$0/$2.o" "$1"' "$od" &&
      $CC $CFLAGS -o "$1" "$od"/*.o $LDFLAGS && rm -rf "$od"
  }
  # speedtest1: the amalgamation of the release's own tree (the suite's
  # recipe takes bookworm's, made once elsewhere), made in TREE/amalg
  [ "$name" = speedtest1 ] && pgo_fetch() {
    local d
    d=$(pgo_orig sqlite3 'sqlite3-*/') || return 1
    if [ ! -s "$d/amalg/sqlite3.c" ]; then
      (cd "$d" && { [ -f Makefile ] || ./configure -q --disable-tcl > /dev/null; } &&
         make -s sqlite3.c > /dev/null) >&2 || return 1
      mkdir -p "$d/amalg.tmp" && cp "$d/sqlite3.c" "$d/sqlite3.h" "$d/test/speedtest1.c" "$d/amalg.tmp/" &&
        mv "$d/amalg.tmp" "$d/amalg" || return 1
    fi
    echo "$d/amalg"
  }
  # TRAIN: a run of the TIME workload (see the head of this file)
  case $name in
    lua5.4) TRAIN="time.lua 1" TIME="time.lua 0.3" ;;
    pcre2grep) TRAIN="${TIME% time.in} train.in" ;;
    zstd) TRAIN="-9 -c -q train.in" ;;
    speedtest1) TRAIN="${TIME/--size 25/--size 5}" ;;
  esac
  local told tnew
  told=$(tree bookworm "$pkg" "$glob") && tnew=$(tree trixie "$pkg" "$glob") || return 1
  echo "$(basename "$told") -> $(basename "$tnew")" > "$pd/versions"
  # inputs: the program's own, or corpora of the trees
  if [ ! -e "$pd/data/.ready" ]; then
    case $name in
      lua5.4) (cd "$pd/data" && pgo_inputs) ;;
      speedtest1) ;;
      *) corpus "$pd/data/train.in" "$(tree bookworm lua5.4 'lua-5.4*')" "$told" &&
         corpus "$pd/data/time.in" "$tnew" "$(tree trixie lua5.4 'lua-5.4*')" ;;
    esac || return 1
    touch "$pd/data/.ready"
  fi
  echo "$TIME" > "$pd/time.args"
  echo "$TRAIN" > "$pd/train.args"
  local c="-O2 -g" dip="-fdebug-info-for-profiling"
  local probe="-fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
  local v
  for v in old new; do
    # (pgo_fetch: the recipe's tree with its generated headers, from SRCROOT)
    SRCROOT="$CACHE/bookworm"; [ $v = new ] && SRCROOT="$CACHE/trixie"
    S=$(pgo_fetch) || return 1
    build "$pd/bin/$v-line" "$c $dip" && build "$pd/bin/$v-probe" "$c $probe" || return 1
    profile line "$pd/bin/$v-line" "$pd/prof/$v-line.prof" &&
      profile probe "$pd/bin/$v-probe" "$pd/prof/$v-probe.prof" || return 1
  done
  S=$(SRCROOT="$CACHE/trixie" pgo_fetch)
  local k base pgo=1
  [ -n "${STALE_PGO:-}" ] && [[ ",$STALE_PGO," != *",$name,"* ]] && pgo=0
  echo $pgo > "$pd/pgo"
  for k in $KINDS; do
    base="$c $dip"; [ $k = probe ] && base="$c $probe"
    # matching: as it is, carried (timed: acceptance 4 on the largest)
    "$SPGO" stale --profile "$pd/prof/old-$k.prof" --binary "$pd/bin/new-$k" --old-binary "$pd/bin/old-$k" \
      > "$pd/log/stale-$k.txt" 2>&1
    /usr/bin/time -f "%e %M" -o "$pd/log/stale-$k.time" "$SPGO" stale --profile "$pd/prof/old-$k.prof" \
      --binary "$pd/bin/new-$k" > /dev/null 2>&1
    /usr/bin/time -f "%e %M" -o "$pd/log/carry-$k.time" "$SPGO" carry --profile "$pd/prof/old-$k.prof" \
      --old-binary "$pd/bin/old-$k" --binary "$pd/bin/new-$k" -o "$pd/prof/carried-$k.new" \
      > "$pd/log/carry-$k.txt" 2>&1 || { log "$name: carry $k failed: $(tail -n1 "$pd/log/carry-$k.txt")"; return 1; }
    # (the same profile again: kept, so its build is not redone)
    if cmp -s "$pd/prof/carried-$k.new" "$pd/prof/carried-$k.prof"; then rm -f "$pd/prof/carried-$k.new"
    else mv "$pd/prof/carried-$k.new" "$pd/prof/carried-$k.prof"; fi
    # (the experiments: carriedN, log/carry-K-carriedN.txt)
    local x
    for x in $(xvars $k); do
      "$SPGO" carry --min-confidence "${x#carried}" --profile "$pd/prof/old-$k.prof" \
        --old-binary "$pd/bin/old-$k" --binary "$pd/bin/new-$k" -o "$pd/prof/$x-$k.new" \
        > "$pd/log/carry-$k-$x.txt" 2>&1 || { log "$name: carry $k $x failed: $(tail -n1 "$pd/log/carry-$k-$x.txt")"; return 1; }
      if cmp -s "$pd/prof/$x-$k.new" "$pd/prof/$x-$k.prof"; then rm -f "$pd/prof/$x-$k.new"
      else mv "$pd/prof/$x-$k.new" "$pd/prof/$x-$k.prof"; fi
    done
    for v in carried $(xvars $k); do
      "$SPGO" stale --profile "$pd/prof/$v-$k.prof" --binary "$pd/bin/new-$k" > "$pd/log/stale-$v-$k.txt" 2>&1
    done
    for v in stale carried $(xvars $k); do
      local p="$pd/prof/old-$k.prof"; [ $v != stale ] && p="$pd/prof/$v-$k.prof"
      "$SPGO" overlap "$pd/prof/new-$k.prof" "$p" > "$pd/log/overlap-$v-$k.txt" 2>&1
      awk '/profile similarity/ { print $NF }' "$pd/log/overlap-$v-$k.txt" > "$pd/log/sim-$v-$k"
      # the hot weight carried to zero: fresh samples where P has zero / P's where fresh has
      awk '/base samples where test has zero/ { b = $NF } /test samples where base has zero/ { t = $NF }
           END { if (b != "") print b " / " t }' "$pd/log/overlap-$v-$k.txt" > "$pd/log/zero-$v-$k"
    done
    [ $pgo = 1 ] || continue
    build "$pd/bin/$k-none" "$base" && cp "$pd/bin/$k-none" "$pd/bin/$k-same" &&
      build "$pd/bin/$k-fresh" "$base -fprofile-sample-use=$pd/prof/new-$k.prof" &&
      build "$pd/bin/$k-stale" "$base -fprofile-sample-use=$pd/prof/old-$k.prof" &&
      build "$pd/bin/$k-carried" "$base -fprofile-sample-use=$pd/prof/carried-$k.prof" &&
      build "$pd/bin/$k-salvage" "$base -fprofile-sample-use=$pd/prof/old-$k.prof -mllvm -salvage-stale-profile" ||
      return 1
    for x in $(xvars $k); do
      if cmp -s "$pd/prof/$x-$k.prof" "$pd/prof/carried-$k.prof"; then
        log "$name: $k-$x: the profile of $k-carried, not built"
        rm -f "$pd/bin/$k-$x" "$pd/bin/$k-$x.cmd"
      else
        build "$pd/bin/$k-$x" "$base -fprofile-sample-use=$pd/prof/$x-$k.prof" || return 1
      fi
    done
  done
}

progs=()
for pr in $PAIRS; do
  IFS=: read -r n pkg glob <<< "$pr"
  [ -n "${STALE_ONLY:-}" ] && [[ ",$STALE_ONLY," != *",$n,"* ]] && continue
  log "== $n"
  if (prepare "$n" "$pkg" "$glob"); then progs+=("$n"); else log "$n: left out"; fi
done
[ ${#progs[@]} -gt 0 ] || { echo "stale: no program prepared" >&2; exit 1; }
[ "${STALE_NO_TIME:-0}" = 1 ] && exit 0

# ---- timing ----------------------------------------------------------------------

runs=()
tprogs=()
for n in "${progs[@]}"; do
  [ "$(cat "$W/$n/pgo")" = 1 ] || continue
  tprogs+=("$n")
  [ "${STALE_REPORT_ONLY:-0}" = 1 ] && continue
  [ "${STALE_APPEND:-0}" = 1 ] || rm -rf "$W/$n/times"
  mkdir -p "$W/$n/times"
  for k in $KINDS; do
    for v in $VARIANTS; do runs+=("$n $k-$v"); done
    for v in $(xvars $k); do [ -x "$W/$n/bin/$k-$v" ] && runs+=("$n $k-$v"); done
  done
done
if [ "${STALE_REPORT_ONLY:-0}" != 1 ]; then
# (one utime and one run.bin a program: timing runs of other programs may
# go on beside this one)
cc -O2 -o "$W/utime.$$" "$here/utime.c" && mv "$W/utime.$$" "$W/utime" || exit 1
load0=$(cut -d' ' -f1-3 /proc/loadavg)
log "timing: $REPEATS rounds of ${#runs[@]} binaries (load average $load0)"
for ((r = 0; r < REPEATS; r++)); do
  nr=${#runs[@]}
  for ((i = 0; i < nr; i++)); do
    read -r n v <<< "${runs[$(((i + r * 7) % nr))]}"
    read -r -a targs < "$W/$n/time.args"
    rm -f "$W/$n/run.bin"
    if cp "$W/$n/bin/$v" "$W/$n/run.bin" && s=$(cd "$W/$n/data" && "$W/utime" "$W/$n/run.bin" "${targs[@]}"); then
      echo "$s" >> "$W/$n/times/$v"
    else
      echo FAIL >> "$W/$n/times/$v"
    fi
  done
  # (the 1-minute load average after each round, kept with the times)
  for n in "${tprogs[@]}"; do cut -d' ' -f1 /proc/loadavg >> "$W/$n/times/load"; done
  log "round $((r + 1))/$REPEATS (load average $(cut -d' ' -f1-3 /proc/loadavg))"
done
fi
nruns=$(for n in "${tprogs[@]}"; do grep -vc FAIL "$W/$n/times/line-none" 2>/dev/null || echo 0; done |
  sort -nu | paste -sd / -)

# ---- report ----------------------------------------------------------------------

stats() {  # FILE -> "median min max n q1 q3"
  [ -s "$1" ] || { echo "NA NA NA 0 NA NA"; return; }
  awk '$1 != "FAIL" { v[++n] = $1 }
       END { if (!n) { print "NA NA NA 0 NA NA"; exit }
             for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
             m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
             # quartiles: the medians of the lower and upper halves
             h = int(n / 2); if (h < 1) h = 1; o = n - h
             q1 = (h % 2) ? v[(h + 1) / 2] : (v[h / 2] + v[h / 2 + 1]) / 2
             q3 = (h % 2) ? v[o + (h + 1) / 2] : (v[o + h / 2] + v[o + h / 2 + 1]) / 2
             print m, v[1], v[n], n, q1, q3 }' "$1"
}
# speedup B V: B / V to 3 places (NA when either is)
speedup() { awk -v b="$1" -v m="$2" 'BEGIN { if (m == "NA" || b == "NA") print "NA"; else printf "%.3f", b / m }'; }
# The fresh gain is measured when it is larger than 1%, than the `same`
# binary's difference from none (identical code) and, for medians, than
# the none runs' lower half of the interquartile range (the fresh median
# below their lower quartile).  measured FRESH SAME LOWQ -> 1 or 0
measured() {
  awk -v f="$1" -v s="$2" -v q="$3" 'BEGIN { if (f == "NA" || s == "NA") { print 0; exit }
    d = s - 1; if (d < 0) d = -d
    print (f - 1 > 0.01 && f - 1 > d && f - 1 > q) ? 1 : 0 }'
}
recovered() {  # FRESH V -> the share of the fresh gain
  awk -v f="$1" -v c="$2" 'BEGIN { if (c == "NA") print "n/a"; else printf "%.0f%%", (c - 1) / (f - 1) * 100 }'
}
# xcell PROG KIND X: an experiment's cell when it has no runs of its own
# ("-": not of this kind; "= carried": carried's profile), or nothing
xcell() {
  if [[ " $(xvars "$2") " != *" $3 "* ]]; then echo "-"
  elif [ ! -s "$W/$1/times/$2-$3" ] && cmp -s "$W/$1/prof/$3-$2.prof" "$W/$1/prof/carried-$2.prof"; then echo "= carried"
  fi
}
# xhead: the experiments' header cells and their separators (twice each:
# speedup and gain recovered)
xhead() { local x; for x in $XVARIANTS; do echo -n " $x |"; done; }
xsep() { local x; for x in $XVARIANTS; do echo -n " ---: |"; done; }
speed_table() {  # median|min
  local st=$1 n k v
  if [ "$st" = median ]; then
    echo "| program | kind | none median (s) | noise: none range, IQR | same | fresh | stale | carried | salvage |$(xhead) gain recovered: stale | carried | salvage |$(xhead)"
  else
    echo "| program | kind | none best (s) | runs | same | fresh | stale | carried | salvage |$(xhead) gain recovered: stale | carried | salvage |$(xhead)"
  fi
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |$(xsep) ---: | ---: | ---: |$(xsep)"
  for n in "${tprogs[@]}"; do
    for k in $KINDS; do
      local bm bmin bmax bn bq1 bq3 noise base lowq
      read -r bm bmin bmax bn bq1 bq3 < <(stats "$W/$n/times/$k-none")
      noise=$(awk -v m="$bm" -v a="$bmin" -v b="$bmax" -v c="$bq1" -v d="$bq3" 'BEGIN { if (m == "NA") print "n/a"
        else printf "-%.1f%%/+%.1f%%, -%.1f%%/+%.1f%%", (m - a) / m * 100, (b - m) / m * 100, (m - c) / m * 100, (d - m) / m * 100 }')
      base=$bm lowq=$(awk -v m="$bm" -v c="$bq1" 'BEGIN { print (m == "NA") ? 0 : (m - c) / c }')
      [ "$st" = min ] && { base=$bmin noise=$bn lowq=0; }
      declare -A sp=() rc=()
      for v in same fresh stale carried salvage $XVARIANTS; do
        local m mn xc
        xc=$(xcell "$n" "$k" "$v")
        if [[ " $XVARIANTS " = *" $v "* ]] && [ -n "$xc" ]; then sp[$v]=$xc rc[$v]=$xc; continue; fi
        read -r m mn _ < <(stats "$W/$n/times/$k-$v")
        [ "$st" = min ] && m=$mn
        sp[$v]=$(speedup "$base" "$m")
      done
      local fm
      fm=$(measured "${sp[fresh]}" "${sp[same]}" "$lowq")
      for v in stale carried salvage $XVARIANTS; do
        [ -n "${rc[$v]:-}" ] && continue
        if [ "$fm" = 1 ]; then rc[$v]=$(recovered "${sp[fresh]}" "${sp[$v]}"); else rc[$v]="fresh in noise"; fi
      done
      echo -n "| $n | $k | $base | $noise | ${sp[same]} | ${sp[fresh]} | ${sp[stale]} | ${sp[carried]} | ${sp[salvage]} |"
      for v in $XVARIANTS; do echo -n " ${sp[$v]} |"; done
      echo -n " ${rc[stale]} | ${rc[carried]} | ${rc[salvage]} |"
      for v in $XVARIANTS; do echo -n " ${rc[$v]} |"; done
      echo
      unset sp rc
    done
  done
}
# paired NONE V: the per-round speedups none / V (the two runs of a round
# lie seconds apart: the load's drift between rounds cancels) -> "median
# q1 q3 n"
paired() {
  [ -s "$1" ] && [ -s "$2" ] || { echo "NA NA NA 0"; return; }
  paste -d' ' "$1" "$2" | awk '$1 != "FAIL" && $2 != "FAIL" && $2 > 0 { v[++n] = $1 / $2 }
    END { if (!n) { print "NA NA NA 0"; exit }
          for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
          m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
          h = int(n / 2); if (h < 1) h = 1; o = n - h
          q1 = (h % 2) ? v[(h + 1) / 2] : (v[h / 2] + v[h / 2 + 1]) / 2
          q3 = (h % 2) ? v[o + (h + 1) / 2] : (v[o + h / 2] + v[o + h / 2 + 1]) / 2
          printf "%.3f %.3f %.3f %d\n", m, q1, q3, n }'
}
paired_table() {
  local n k v
  echo "| program | kind | rounds | same (IQR) | fresh (IQR) | stale | carried | salvage |$(xhead) gain recovered: stale | carried | salvage |$(xhead)"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |$(xsep) ---: | ---: | ---: |$(xsep)"
  for n in "${tprogs[@]}"; do
    for k in $KINDS; do
      declare -A sp=() q1=() q3=() rc=()
      local rn=0 m a b c xc
      for v in same fresh stale carried salvage $XVARIANTS; do
        xc=$(xcell "$n" "$k" "$v")
        if [[ " $XVARIANTS " = *" $v "* ]] && [ -n "$xc" ]; then sp[$v]=$xc rc[$v]=$xc; continue; fi
        read -r m a b c < <(paired "$W/$n/times/$k-none" "$W/$n/times/$k-$v")
        sp[$v]=$m q1[$v]=$a q3[$v]=$b
        [ "$v" = same ] && rn=$c
      done
      # (measured: the fresh build faster than none in three rounds of
      # four, by more than 1% and than the same binary's difference)
      local fm=0
      awk -v q="${q1[fresh]}" 'BEGIN { exit !(q != "NA" && q > 1) }' &&
        [ "$(measured "${sp[fresh]}" "${sp[same]}" 0)" = 1 ] && fm=1
      for v in stale carried salvage $XVARIANTS; do
        [ -n "${rc[$v]:-}" ] && continue
        if [ "$fm" = 1 ]; then rc[$v]=$(recovered "${sp[fresh]}" "${sp[$v]}"); else rc[$v]="fresh in noise"; fi
      done
      echo -n "| $n | $k | $rn | ${sp[same]} (${q1[same]}-${q3[same]}) | ${sp[fresh]} (${q1[fresh]}-${q3[fresh]}) | ${sp[stale]} | ${sp[carried]} | ${sp[salvage]} |"
      for v in $XVARIANTS; do echo -n " ${sp[$v]} |"; done
      echo -n " ${rc[stale]} | ${rc[carried]} | ${rc[salvage]} |"
      for v in $XVARIANTS; do echo -n " ${rc[$v]} |"; done
      echo
      unset sp q1 q3 rc
    done
  done
}
# salvage_note: what -salvage-stale-profile changed in the code, per kind
salvage_note() {
  local n k a b
  for n in "${tprogs[@]}"; do
    for k in $KINDS; do
      a=$(mktemp) b=$(mktemp)
      objcopy -O binary -j .text "$W/$n/bin/$k-stale" "$a" 2>/dev/null
      objcopy -O binary -j .text "$W/$n/bin/$k-salvage" "$b" 2>/dev/null
      if cmp -s "$a" "$b"; then echo "$n $k: identical .text to stale"
      else echo "$n $k: .text $(stat -c %s "$a") bytes stale, $(stat -c %s "$b") salvage"; fi
      rm -f "$a" "$b"
    done
  done | paste -sd ';' | sed 's/;/; /g'
}
{
  echo "# Stale profiles across releases (#30)"
  echo
  echo "$(date -u +%Y-%m-%d), \`make bench BENCH=stale\` (bench/bench_stale.sh).  Debian 12 -> 13"
  echo "source packages of programs of the PGO suite (recipes bench/pgo/NAME.sh), clang-19."
  echo "Profiles from \`spgo emulate\` (LBR under QEMU) of TRAIN on the OLD and on the NEW build;"
  echo "line: AutoFDO (-fdebug-info-for-profiling, spgo gen); probe: CSSPGO"
  echo "(-fpseudo-probe-for-profiling, spgo gen --cs --preinline)."
  echo
  echo "TRAIN is a run of the TIME workload (its list at the end): how much of a"
  echo "profile's value survives the version change is the question here, not whether a"
  echo "training input stands for another (the suite's lua5.4 TRAIN does not carry to"
  echo "its TIME: bench/pgo/findings.md)."
  echo
  # (loaded: a 1-minute load average above 1.5 after some round; the timed
  # run itself keeps one core busy)
  loaded=$(for n in "${tprogs[@]}"; do cat "$W/$n/times/load" 2>/dev/null; done | awk '$1 > 1.5 { l = 1 } END { print l + 0 }')
  if [ "$loaded" = 1 ]; then
    echo "**The machine was loaded by other work during this run** (2 cores shared by several"
    echo -n "engineers; "
  else
    echo -n "**Nothing else ran during this run** ("
  fi
  echo "1-minute load average after each timed round: $(for n in "${tprogs[@]}"; do
    echo "$n $(sort -n "$W/$n/times/load" 2>/dev/null | awk '{ v[NR] = $1 } END { if (NR) printf "min %s, median %s, max %s", v[1], v[int((NR + 1) / 2)], v[NR]; else printf "n/a" }')"
  done | paste -sd ';' | sed 's/;/; /g')): a speedup inside the"
  echo "noise band is not a measured effect, and the table paired by round is the one"
  echo "the load's drift touches least."
  np=""
  for n in "${progs[@]}"; do [ "$(cat "$W/$n/pgo")" = 1 ] || np="${np:+$np, }$n"; done
  if [ -n "$np" ]; then
    echo
    echo "Matching and speed only (STALE_PGO): $np."
  fi
  echo
  echo "## Matching"
  echo
  echo "Share of the OLD profile's samples that land in NEW: as it is (\`spgo stale\`: what"
  echo "clang finds without salvaging), carried (\`spgo carry\`: written at a place of NEW),"
  echo "and the carried profile checked again by \`spgo stale\`; similarity to the fresh"
  echo "profile of NEW (\`spgo overlap\`) of the profile as it is and carried; of the carried"
  echo "one, the fresh samples on probes or lines it has at zero / its samples where the fresh"
  echo "one has zero (the hot weight carried to zero, which a layout follows)."
  echo
  echo "| program | versions | kind | matched as it is | carried | carried, spgo stale | similarity to fresh: as it is | carried | carried: at zero |"
  echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for n in "${progs[@]}"; do
    for k in $KINDS; do
      echo "| $n | $(cat "$W/$n/versions") | $k | $(sed -n 's/^matched: \([0-9.]*%\).*/\1/p' "$W/$n/log/stale-$k.txt") |" \
        "$(sed -n 's/^carried: \([0-9.]*%\).*/\1/p' "$W/$n/log/carry-$k.txt") |" \
        "$(sed -n 's/^matched: \([0-9.]*%\).*/\1/p' "$W/$n/log/stale-carried-$k.txt") |" \
        "$(cat "$W/$n/log/sim-stale-$k") | $(cat "$W/$n/log/sim-carried-$k") |" \
        "$(cat "$W/$n/log/zero-carried-$k" 2>/dev/null || echo -) |"
    done
  done
  echo
  if [ -n "$XVARIANTS" ]; then
    echo "### Carried at other \`--min-confidence\` (STALE_VARIANTS: experiments)"
    echo
    echo "carriedN: \`spgo carry --min-confidence N\` (probe profiles only; carried: the"
    echo "default, $(sed -n 's/^#define SPGO_CARRY_MIN_CONFIDENCE \([0-9.]*\).*/\1/p' "$SPGO_SRC/include/spgo/stale.h")).  A function whose checksum changed and less than N% of whose"
    echo "samples its code places is kept under OLD's checksum, for clang to drop."
    echo
    echo "| program | kind | variant | carried | carried, spgo stale | kept as it is: samples (functions) | similarity to fresh |"
    echo "| --- | --- | --- | ---: | ---: | ---: | ---: |"
    for n in "${progs[@]}"; do
      for v in carried $XVARIANTS; do
        cf="$W/$n/log/carry-probe.txt"; [ $v != carried ] && cf="$W/$n/log/carry-probe-$v.txt"
        kept=$(sed -n 's/^ *kept as it is (unsure): *\([0-9.]*%\)[^,]*, \([0-9]*\) functions/\1 (\2)/p' "$cf")
        echo "| $n | probe | $v | $(sed -n 's/^carried: \([0-9.]*%\).*/\1/p' "$cf") |" \
          "$(sed -n 's/^matched: \([0-9.]*%\).*/\1/p' "$W/$n/log/stale-$v-probe.txt") |" \
          "${kept:-none} |" \
          "$(cat "$W/$n/log/sim-$v-probe") |"
      done
    done
    echo
  fi
  echo "## PGO effect on NEW, medians of $nruns interleaved runs"
  echo
  echo "User CPU seconds of TIME (wait4 rusage), each run a fresh copy of the binary under"
  echo "one path, the order rotated each round.  Cells: speedup median(none) / median(variant)"
  echo "(>1 faster).  none: no profile; same: a second copy of none (identical code: how"
  echo "far two medians of the same code lie apart); fresh: NEW's own profile; stale: OLD's"
  echo "as it is; carried: \`spgo carry\` of it; salvage: OLD's with clang's \`-mllvm"
  echo "-salvage-stale-profile\`.${XVARIANTS:+  Experiments (STALE_VARIANTS, probe only; \"-\" in line rows):}"
  [ -n "$XVARIANTS" ] && echo "carriedN: \`spgo carry --min-confidence N\` (\"= carried\": the same profile, not built)."
  echo "Noise: the none runs' range and interquartile range"
  echo "around their median.  Gain recovered: (speedup - 1) / (fresh speedup - 1), given only"
  echo "where the fresh gain is measured: above 1%, above the same binary's difference from"
  echo "none, and (medians) the fresh median below the none runs' lower quartile; else"
  echo "\"fresh in noise\"."
  echo
  speed_table median
  echo
  echo "What \`-salvage-stale-profile\` changed in the code (.text of the salvage build against"
  echo "the stale one): $(salvage_note)."
  echo
  echo "## The same, paired by round"
  echo
  echo "The load changed during the run (rounds appended at another load): each cell is the"
  echo "median over rounds of that round's none / variant (IQR in brackets), which cancels"
  echo "the drift between rounds.  Gain recovered given only where the fresh build was"
  echo "faster than none in three rounds of four (its lower quartile above 1), by more than"
  echo "1% and more than the same binary's difference."
  echo
  paired_table
  echo
  echo "## The same, best of $nruns"
  echo
  speed_table min
  echo
  [ -s "$here/stale-findings.md" ] && { cat "$here/stale-findings.md"; echo; }
  echo "## Speed of spgo stale and spgo carry (acceptance 4)"
  echo
  echo "Wall seconds and peak RSS (/usr/bin/time), one run each, loaded machine."
  echo
  echo "| program | kind | NEW text bytes | spgo stale (s, MB) | spgo carry (s, MB) |"
  echo "| --- | --- | ---: | ---: | ---: |"
  for n in "${progs[@]}"; do
    for k in $KINDS; do
      sz=$(size -A "$W/$n/bin/new-$k" 2>/dev/null | awk '$1 == ".text" { print $2 }')
      # (the last line: /usr/bin/time says a non-zero exit first, and spgo
      # stale exits 1 on a stale profile)
      read -r s1 m1 < <(tail -n 1 "$W/$n/log/stale-$k.time")
      read -r s2 m2 < <(tail -n 1 "$W/$n/log/carry-$k.time")
      echo "| $n | $k | $sz | $s1, $((m1 / 1024)) | $s2, $((m2 / 1024)) |"
    done
  done
  echo
  echo "Programs (TRAIN -> TIME):"
  echo
  for n in "${progs[@]}"; do
    echo "- **$n** ($(cat "$W/$n/versions")): TRAIN \`$(cat "$W/$n/train.args")\`, TIME \`$(cat "$W/$n/time.args")\`"
  done
  echo
  echo "zstd and pcre2grep: train.in is the first 8 MB of the lua 5.4.4 and OLD trees' files,"
  echo "time.in those of the NEW and lua 5.4.7 trees (made here; the suite's corpora need sqlite)."
  echo "zstd is its compressor alone (upstream's \`make zstd-compress\`: TIME only compresses)."
} > "$out"
cat "$out"
