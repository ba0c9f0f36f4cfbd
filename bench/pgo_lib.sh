# Helpers for the program descriptions of the PGO suite (bench/pgo/NAME.sh),
# sourced by bench/bench_pgo.sh and bench/pgo_inlines.sh.  They need W (the
# suite's work dir, BENCH_WORK/pgo), SRCROOT (W/src), SPGO_SRC and
# BENCH_WORK, and gen_fetch_sqlite from bench/gen_programs.sh.
# pgo_orig SRCPKG DIRGLOB: the upstream tree of a Debian source package
# (its .orig tarball, unpatched: Debian's patches may need generated
# headers), unpacked once under SRCROOT; prints its path.
pgo_orig() {
  local pkg=$1 glob=$2 d t
  d=$(cd "$SRCROOT" && ls -d $glob 2>/dev/null | head -n1)
  if [ -z "$d" ]; then
    "$SPGO_SRC/scripts/debian-source.sh" --enable-only >&2 || return 1
    # (the .dsc of a security update can be missing from a mirror that
    # still has the .orig tarball: apt-get's failure is not ours)
    (cd "$SRCROOT" && apt-get source --download-only -qq "$pkg" > /dev/null 2>&1)
    t=$(cd "$SRCROOT" && ls "${pkg}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1)
    # (a security update the mirror does not have yet, .orig tarball
    # included: the other versions apt knows, the newest first)
    if [ -z "$t" ]; then
      local v
      for v in $(apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -rV); do
        (cd "$SRCROOT" && apt-get source --download-only -qq "$pkg=$v" > /dev/null 2>&1)
        t=$(cd "$SRCROOT" && ls "${pkg}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1)
        [ -n "$t" ] && break
      done
    fi
    [ -n "$t" ] || { echo "pgo: no source tarball for $pkg" >&2; return 1; }
    (cd "$SRCROOT" && tar -xf "$t") || return 1
    d=$(cd "$SRCROOT" && ls -d $glob 2>/dev/null | head -n1)
  fi
  [ -n "$d" ] || { echo "pgo: $pkg: no $glob in $SRCROOT" >&2; return 1; }
  echo "$SRCROOT/${d%/}"
}

# pgo_driver clang-19|gcc-12: the compiler driver a build of the program
# runs as CC: the C++ one (clang++-19, g++-12) when its description sets
# LANG_CXX=1, else the C one.  The variant flags are the same.
pgo_driver() {
  if [ "${LANG_CXX:-0}" = 1 ]; then
    case $1 in clang-19) echo clang++-19; return ;; gcc-12) echo g++-12; return ;; esac
  fi
  echo "$1"
}

# Two corpora for the compressors and the regex tool, the same on every
# Debian 12 machine: TRAIN is sqlite3's amalgamation (C source, 8.6 MB);
# TIME the first 12 MB of the sorted files of the lua5.4, pcre2 and expat
# upstream trees (C, HTML and man pages, regex test data, XML test files).
pgo_corpus() {  # train|time FILE
  local c="$W/corpus.$1"
  if [ ! -s "$c" ]; then
    if [ "$1" = train ]; then
      gen_fetch_sqlite "$BENCH_WORK/gen/sqlite" >&2 || return 1
      cp "$BENCH_WORK/gen/sqlite/sqlite3.c" "$c.tmp"
    else
      local a b e
      a=$(pgo_orig lua5.4 'lua-5.4*/') && b=$(pgo_orig pcre2 'pcre2-*/') &&
        e=$(pgo_orig expat 'libexpat-*/') || return 1
      for d in "$a" "$b" "$e"; do
        (cd "$(dirname "$d")" && find "$(basename "$d")" -type f | LC_ALL=C sort |
           grep -v -e '/config\.h$' -e '/pcre2\.h$' -e '/pcre2_chartables\.c$' | xargs cat)
      done | head -c 12000000 > "$c.tmp"
    fi
    mv "$c.tmp" "$c"
  fi
  cp "$c" "$2"
}

# pgo_errors PROG...: the build and profile errors of each program's run
# (W/PROG/log/errors) as a list, work paths made relative; "None." if none.
pgo_errors() {
  local any=0 n
  for n in "$@"; do
    if [ -s "$W/$n/log/errors" ]; then
      any=1; sed "s|$SRCROOT/||g; s|$W/||g; s|$BENCH_WORK/||g; s|$SPGO_SRC/||g; s/^/- $n: /" "$W/$n/log/errors"
    fi
  done
  [ "$any" = 0 ] && echo "None."
}
