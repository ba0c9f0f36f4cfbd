# bzip2 1.0.8 (Debian bzip2 source package): no configure, the upstream
# Makefile's files in one compiler command.
HALF=train
CSSPGO=1
DESC="bzip2 1.0.8 (Debian bzip2); TRAIN \`bzip2 -9 -c\` of sqlite3.c (8.6 MB of C) -> TIME \`bzip2 -9 -c\` of the mixed corpus (12 MB: lua, pcre2, expat trees)"
TRAIN="-9 -c -k train.in"
TIME="-9 -c -k time.in"
pgo_fetch() { pgo_orig bzip2 'bzip2-1*/'; }
pgo_inputs() { pgo_corpus train train.in && pgo_corpus time time.in; }
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -D_FILE_OFFSET_BITS=64 -I"$S" -o "$1" "$S"/bzip2.c "$S"/blocksort.c \
    "$S"/huffman.c "$S"/crctable.c "$S"/randtable.c "$S"/compress.c "$S"/decompress.c \
    "$S"/bzlib.c $LDFLAGS
}
