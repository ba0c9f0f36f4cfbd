# libdeflate 1.14's gzip program (Debian libdeflate source package): the
# library and programs/gzip.c, no configure (upstream's Makefile has none).
HALF=report
DESC="libdeflate 1.14 gzip (Debian libdeflate); TRAIN \`gzip -9 -c\` of sqlite3.c -> TIME \`gzip -9 -c\` of the mixed corpus (twice)"
TRAIN="-9 -c train.in"
TIME="-9 -c time.in time.in"
pgo_fetch() { pgo_orig libdeflate 'libdeflate-*/'; }
pgo_inputs() { pgo_corpus train train.in && pgo_corpus time time.in; }
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -I"$S" -o "$1" "$S"/lib/*.c "$S"/lib/x86/*.c "$S"/programs/gzip.c \
    "$S"/programs/prog_util.c "$S"/programs/tgetopt.c $LDFLAGS
}
