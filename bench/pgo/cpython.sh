# The CPython 3.11 interpreter (Debian python3.11 source package, upstream
# tree): a static interpreter (--disable-shared, no LTO, the builtin modules
# of Modules/Setup.bootstrap), `make python` only.  Unlike the others it runs
# configure (once per compiler, under BENCH_WORK/pgo/cpython-cfg) and make;
# each variant builds from a fresh copy of the configured tree, with the
# variant's flags as OPT and LDFLAGS (a build is 5-12 min on 2 loaded cores),
# or relinks the last build's objects when only its link flags differ.
# PGO_JOBS (default 2): make's -j, 1 to run a clang and a gcc build side
# by side on 2 cores.
# The stdlib is found through the configured prefix, a directory of links
# to the source tree's Lib/ (the binary runs from elsewhere).
HALF=report
CSSPGO=1
DESC="CPython 3.11.2 (Debian python3.11), static, no LTO; TRAIN bench/pgo/py_train.py (expression parser, word counts, generators, classes, exceptions, re) -> TIME bench/pgo/py_time.py (n-body, a task scheduler, fannkuch, a JSON-like serializer and parser, formatting and sorting)"
TRAIN="train.py 3"
TIME="time.py 3"
pgo_fetch() { pgo_orig python3.11 'Python-3.11*/'; }
pgo_inputs() {
  cp "$SPGO_SRC/bench/pgo/py_train.py" train.py && cp "$SPGO_SRC/bench/pgo/py_time.py" time.py || return 1
  local h="$W/cpython-home/lib/python3.11" f
  mkdir -p "$h/lib-dynload" || return 1
  for f in "$S"/Lib/*; do ln -sfn "$f" "$h/"; done
}
pgo_build() {
  local out=$1 cfg="$W/cpython-cfg/$CC" f opt="" ld=""
  # link-only flags to the link (clang warns of them unused when compiling)
  for f in $CFLAGS; do
    case $f in -Wl,*|-fuse-ld=*|-no-pie) ld="$ld $f" ;; *) opt="$opt $f"; ld="$ld $f" ;; esac
  done
  if [ ! -s "$cfg/Makefile" ]; then
    rm -rf "$cfg" && mkdir -p "$cfg" &&
      (cd "$cfg" && "$S/configure" -q CC="$CC" --prefix="$W/cpython-home" --disable-shared \
        --without-ensurepip) || return 1
  fi
  # The objects of the last build are kept: a variant that differs from it
  # only in link flags (a function order) is a relink.
  if [ -s obj/python ] && [ "$(cat obj/opt 2>/dev/null)" = "$opt" ]; then
    rm -f obj/python
  else
    rm -rf obj && cp -a "$cfg" obj && echo "$opt" > obj/opt || return 1
  fi
  # (CFLAGS= : make would take the variant's CFLAGS from the environment
  # too, link flags included, into every compile)
  make -C obj -j"${PGO_JOBS:-2}" python OPT="-DNDEBUG -fwrapv -Wall$opt" CFLAGS= LDFLAGS="$ld $LDFLAGS" &&
    cp obj/python "$out"
}
