# The demo program (examples/minivm): a bytecode VM with its parser; its
# only input is the scale of its built-in workload.
HALF=train
CSSPGO=1
DESC="examples/minivm (bundled); TRAIN \`minivm 10\` -> TIME \`minivm 30\` (the same built-in workload, scaled: the program has no other input)"
TRAIN="10"
TIME="30"
pgo_fetch() { echo "$SPGO_SRC/examples/minivm"; }
pgo_inputs() { :; }
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -o "$1" "$S/minivm.c" $LDFLAGS
}
