# Sourced by tests/integration/emulate_*.sh: a scratch dir, the test program
# built as the tests need it, and the skip rules.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${SPGO_BUILD:?}"
data="$SPGO_SRC/tests/data/emulate"
if [ ! -f "$SPGO_BUILD/emulate/spgo-emulate.so" ]; then
  echo "skip: the QEMU plugin was not built (qemu-user, libglib2.0-dev or the qemu source package missing)"
  exit 77
fi
command -v qemu-x86_64 >/dev/null || { echo "skip: qemu-x86_64 not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# Non-PIE so that runtime addresses (QEMU, valgrind) are the binary's own.
gcc -O2 -g -fno-omit-frame-pointer -no-pie -o prog "$data/prog.c"

fail() { echo "FAIL: $*" >&2; exit 1; }

# The executable segment of prog as "lo hi" (hex, no 0x).
text_range() {
  local v m
  read -r v m < <(readelf -lW prog | awk '$1 == "LOAD" && / R E / { print $3, $6 }')
  printf '%x %x\n' $((v)) $((v + m))
}
