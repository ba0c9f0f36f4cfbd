#!/usr/bin/env bash
# The ctest fixture minivm_captures (tests/CMakeLists.txt): the demo
# program and three emulated captures of it that several tests read alike,
# made once per ctest run instead of once per test.  In DIR (made anew):
#   minivm    clang-19 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer
#             -mno-omit-leaf-frame-pointer -fno-pie -no-pie examples/minivm/minivm.c
#   eS.data   spgo emulate -c 4001 --seed S -- ./minivm S, for S = 1 to N
#             (default 3; emulated in DIR, so the captures' mappings name
#             the file DIR/minivm)
#   .done     once they all are
# Tests take them through minivm_captures in lib/common.sh, which makes
# them itself when run without the fixture.
# Usage: minivm_captures.sh DIR [N]   (SPGO and SPGO_SRC in the environment)
set -uo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}"
dir=${1:?usage: minivm_captures.sh DIR [N]} n=${2:-3}
for t in clang-19 qemu-x86_64; do
  command -v $t >/dev/null || { echo "skip: $t not installed"; exit 77; }
done
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
clang-19 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
  -fno-pie -no-pie -o minivm "$SPGO_SRC/examples/minivm/minivm.c" || { echo "FAIL: build minivm"; exit 1; }
for s in $(seq 1 "$n"); do
  "$SPGO" emulate -c 4001 --seed "$s" -o "e$s.data" -- ./minivm "$s" >/dev/null 2>emu.err ||
    { cat emu.err; echo "FAIL: spgo emulate $s"; exit 1; }
done
rm -f emu.err
touch .done
echo "minivm_captures: minivm and $n captures in $dir"
