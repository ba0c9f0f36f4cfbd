#!/usr/bin/env bash
# Sources of the real programs the spgo gen benchmarks build, fetched at
# bench time from Debian source packages (nothing third-party is kept in
# the repository).  Sourced by bench/bench_gen_*.sh; needs BENCH_WORK and
# SPGO_SRC.
#
#   gen_fetch_sqlite DIR  ->  DIR/sqlite3.c DIR/sqlite3.h DIR/speedtest1.c
#   gen_fetch_bzip2  DIR  ->  DIR/bzip2/*.c *.h (Debian's bzip2 sources)
#   gen_fetch_lua    DIR  ->  DIR/lua/*.c *.h (Debian's lua5.4 sources)
#
# Both reuse what an earlier run (or bench_emulate.sh) fetched.

gen_fetch_sqlite() {
  local d=$1
  mkdir -p "$d"
  [ -f "$d/sqlite3.c" ] && [ -f "$d/speedtest1.c" ] && return 0
  if [ -f "$BENCH_WORK/emulate/sqlite3.c" ] && [ -f "$BENCH_WORK/emulate/speedtest1.c" ]; then
    cp "$BENCH_WORK/emulate/sqlite3.c" "$BENCH_WORK/emulate/sqlite3.h" \
       "$BENCH_WORK/emulate/speedtest1.c" "$d/"
    return 0
  fi
  "$SPGO_SRC/emulate/fetch-qemu-header.sh" --deb-src-only
  (
    cd "$d" && rm -rf src && mkdir src && cd src
    apt-get source --download-only -qq sqlite3 > /dev/null 2>&1
    tar -xJf sqlite3_*.orig.tar.xz
    s=$(ls -d sqlite3-*/ | head -n1)
    (cd "$s" && ./configure -q --disable-tcl > /dev/null && make -s sqlite3.c > /dev/null)
    cp "$s/sqlite3.c" "$s/sqlite3.h" "$s/test/speedtest1.c" ..
  )
  rm -rf "$d/src"
}

gen_fetch_bzip2() {
  local d=$1
  [ -f "$d/bzip2/bzip2.c" ] && return 0
  "$SPGO_SRC/emulate/fetch-qemu-header.sh" --deb-src-only
  mkdir -p "$d"
  (
    cd "$d" && rm -rf src && mkdir src && cd src
    apt-get source --download-only -qq bzip2 > /dev/null 2>&1
    tar -xzf bzip2_*.orig.tar.gz
    s=$(ls -d bzip2-*/ | head -n1)
    mkdir -p ../bzip2 && cp "$s"/*.c "$s"/*.h ../bzip2/
  )
  rm -rf "$d/src"
}

gen_fetch_lua() {
  local d=$1
  [ -f "$d/lua/lvm.c" ] && return 0
  "$SPGO_SRC/emulate/fetch-qemu-header.sh" --deb-src-only
  mkdir -p "$d"
  (
    cd "$d" && rm -rf src && mkdir src && cd src
    apt-get source --download-only -qq lua5.4 > /dev/null 2>&1
    tar -xzf lua5.4_*.orig.tar.gz
    s=$(ls -d lua-*/ | head -n1)
    mkdir -p ../lua && cp "$s"/src/*.c "$s"/src/*.h ../lua/
  )
  rm -rf "$d/src"
}
