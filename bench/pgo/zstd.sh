# zstd 1.5.4 (Debian libzstd source package): the library and the zstd
# program in one compiler command (no assembly, no legacy formats, single
# threaded: upstream's `make zstd` less those options).
HALF=report
DESC="zstd 1.5.4 (Debian libzstd); TRAIN \`zstd -9 -c\` of sqlite3.c -> TIME \`zstd -9 -c\` of the mixed corpus (three times)"
TRAIN="-9 -c -q train.in"
TIME="-9 -c -q time.in time.in time.in"
pgo_fetch() { pgo_orig libzstd 'zstd-*/'; }
pgo_inputs() { pgo_corpus train train.in && pgo_corpus time time.in; }
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -I"$S/lib" -I"$S/lib/common" -o "$1" \
    "$S"/lib/common/*.c "$S"/lib/compress/*.c "$S"/lib/decompress/*.c "$S"/lib/dictBuilder/*.c \
    "$S"/programs/*.c $LDFLAGS
}
