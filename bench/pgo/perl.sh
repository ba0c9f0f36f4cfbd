# The perl 5.36 interpreter (Debian perl source package, upstream tree):
# miniperl, `make miniperl` only.  miniperl is the whole interpreter (the
# same op, pp*, regcomp/regexec, sv, hv, av, toke and perly objects as perl)
# without DynaLoader and the XS extensions, which TRAIN and TIME do not use:
# core language only, no modules.  perl itself would need the whole
# library built with miniperl first (Config.pm, the extensions) for no
# code the runs execute.  Non-threaded (Configure's default; Debian's perl
# has ithreads).  Like cpython.sh it runs Configure (once per compiler,
# -des, a symlink tree under BENCH_WORK/pgo/perl-cfg) and make; each
# variant builds from a fresh copy of the configured tree, with the
# variant's flags as OPTIMIZE (every compile, through perl's cflags
# script) and CLDFLAGS (the link), or relinks the last build's objects
# when only its link flags differ.  PGO_JOBS (default 2): make's -j.
HALF=report
CSSPGO=1
DESC="perl 5.36.0 (Debian perl), miniperl, non-threaded, no LTO; TRAIN bench/pgo/pl_train.pl (expression parser, word counts, a class hierarchy, closures, string edits, a heap and a sieve) -> TIME bench/pgo/pl_time.pl (n-body, a task scheduler, fannkuch, a JSON-like serializer and regex parser, a formatted and sorted report, edit distances)"
TRAIN="train.pl 2"
TIME="time.pl 1"
pgo_fetch() { pgo_orig perl 'perl-5.36*/'; }
pgo_inputs() {
  cp "$SPGO_SRC/bench/pgo/pl_train.pl" train.pl && cp "$SPGO_SRC/bench/pgo/pl_time.pl" time.pl
}
pgo_build() {
  local out=$1 cfg="$W/perl-cfg/$CC" f opt="" ld="" ldf
  # link-only flags to the link (clang warns of them unused when compiling)
  for f in $CFLAGS; do
    case $f in -Wl,*|-fuse-ld=*|-no-pie) ld="$ld $f" ;; *) opt="$opt $f"; ld="$ld $f" ;; esac
  done
  if [ ! -e "$cfg/.configured" ]; then
    rm -rf "$cfg" && mkdir -p "$cfg" &&
      (cd "$cfg" && "$S/Configure" -des -Dmksymlinks -Dcc="$CC" -Doptimize='-O2 -g' \
        -Dprefix="$W/perl-home" > configure.log 2>&1) && touch "$cfg/.configured" || return 1
  fi
  # (Configure's own link flags, -fstack-protector-strong, kept)
  ldf=$(sed -n "s/^ldflags='\(.*\)'$/\1/p" "$cfg/config.sh")
  # The objects of the last build are kept: a variant that differs from it
  # only in link flags (a function order) is a relink (miniperl is linked by
  # the rule of lib/buildcustomize.pl).
  if [ -s obj/miniperl ] && [ "$(cat obj/opt 2>/dev/null)" = "$opt" ]; then
    rm -f obj/miniperl obj/lib/buildcustomize.pl
  else
    rm -rf obj && cp -a "$cfg" obj && echo "$opt" > obj/opt || return 1
  fi
  # gcc 12 with -fauto-profile (spgo's profile and create_gcov's alike)
  # dies in the loop vectorizer on Perl_sv_vcatpvfn_flags (sv.c: "internal
  # compiler error: Floating point exception", during GIMPLE pass: vect):
  # no loop vectorizing for sv.c there, through perl's per-file cflags hook
  local svf=""
  case " $opt " in *" -fauto-profile="*) svf='optimize="$optimize -fno-tree-loop-vectorize"' ;; esac
  sv_cflags=$svf make -C obj -j"${PGO_JOBS:-2}" miniperl OPTIMIZE="$opt" CLDFLAGS="$ldf$ld $LDFLAGS" &&
    cp obj/miniperl "$out"
}
