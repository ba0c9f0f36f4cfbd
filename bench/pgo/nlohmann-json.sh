# nlohmann-json 3.11.2 (Debian nlohmann-json3, header-only C++) under the
# suite's own driver (bench/pgo/json_driver.cpp: parse, SAX pass, walk,
# modify, serialize, parse again and compare, diff/patch, flatten,
# MessagePack and CBOR round trips), over JSON Lines made by
# bench/pgo/json_inputs.py: TRAIN record-style pages, TIME other shapes.
# C++: the builds run clang++-19 / g++-12 (LANG_CXX=1) with the variants'
# flags; the library's assertions are on (no -DNDEBUG), as in a default
# build.
HALF=report
CSSPGO=1   # (#28: the C++ program of the large ones has the CSSPGO variants too)
LANG_CXX=1
DESC="nlohmann-json 3.11.2 (Debian nlohmann-json3, C++, header-only) + bench/pgo/json_driver.cpp; TRAIN \`1 train.json\`: 80 pages of 50 flat records -> TIME \`2 time.json\`: 300 documents of other shapes (nested trees, number matrices, escaped strings)"
TRAIN="1 train.json"
TIME="2 time.json"
pgo_fetch() { pgo_orig nlohmann-json3 'json-3.11*/'; }
pgo_inputs() {
  python3 "$SPGO_SRC/bench/pgo/json_inputs.py" train train.json &&
    python3 "$SPGO_SRC/bench/pgo/json_inputs.py" time time.json
}
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -I"$S/single_include" -o "$1" "$SPGO_SRC/bench/pgo/json_driver.cpp" $LDFLAGS
}
