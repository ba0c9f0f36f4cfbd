# sqlite3's speedtest1 over the amalgamation (Debian sqlite3 source
# package; sqlite3.c made by its configure + make once, bench/gen_programs.sh).
HALF=train
CSSPGO=1
DESC="sqlite3 3.40 speedtest1 (Debian sqlite3); TRAIN \`--testset main,fp --size 10 --memdb\` -> TIME \`--testset main,orm,cte,fp --size 25 --memdb\`"
TRAIN="--testset main,fp --size 10 --memdb"
TIME="--testset main,orm,cte,fp --size 25 --memdb"
pgo_fetch() { gen_fetch_sqlite "$BENCH_WORK/gen/sqlite" >&2 && echo "$BENCH_WORK/gen/sqlite"; }
pgo_inputs() { :; }
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I"$S" -o "$1" \
    "$S/speedtest1.c" "$S/sqlite3.c" $LDFLAGS -lm
}
