#!/usr/bin/env bash
# spgo symbolize on bad input: a truncated ELF, a non-ELF file, an ELF with
# no debug info, an ELF of a machine spgo does not know (e_machine patched
# to RISC-V), a missing
# file, a bad option.  Each must give exactly one line on stderr that names
# the file and the problem, nothing on stdout, and a non-zero exit.
# (The same cases run in-process under ASan+UBSan in tests/unit/test_symbolize.c.)
set -uo pipefail
: "${SPGO:?}"
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'int main(void) { return 0; }\n' > p.c
gcc -O2 -g -o good p.c || exit 1
gcc -O2 -o nodebug p.c && strip --strip-debug nodebug
head -c 2000 good > truncated
head -c 40 good > header-only
echo "just text" > notelf
cp good riscv && printf '\xf3\x00' | dd of=riscv bs=1 seek=18 conv=notrunc status=none

failed=0
expect_error() {  # FILE PATTERN [ARGS...]; the message must name $NAMED (default FILE)
  local file=$1 pat=$2; shift 2
  local named=${NAMED:-$file}
  "$SPGO" symbolize --binary "$file" "$@" 0x1000 > out 2> err
  local rc=$?
  if [ $rc -eq 0 ] || [ -s out ] || [ "$(wc -l < err)" -ne 1 ] || ! grep -q -- "$named" err || ! grep -q -- "$pat" err; then
    echo "FAIL: $file (rc=$rc): want one line naming it and '$pat', got:"; cat err out; failed=1
  else
    echo "ok: $(cat err)"
  fi
}
expect_error truncated "truncated ELF file"
expect_error header-only "truncated ELF file"
expect_error notelf "not an ELF file"
expect_error nodebug "no debug info"
expect_error riscv "unsupported machine RISC-V"
expect_error missing "No such file"
NAMED=nodebug expect_error good "no DWARF debug info" --debug-binary nodebug
# --all-instructions needs no debug info but still checks the machine.
"$SPGO" symbolize --binary riscv --all-instructions > out 2> err
[ $? -ne 0 ] && [ ! -s out ] && grep -q "unsupported machine" err || { echo "FAIL: --all-instructions on riscv"; failed=1; }
"$SPGO" symbolize --binary good --bogus > out 2> err
[ $? -eq 2 ] && grep -q "unknown option" err || { echo "FAIL: bad option"; failed=1; }
# And the good one works.
"$SPGO" symbolize --binary good $(nm good | awk '$3 == "main" {print "0x" $1}') | head -1 | grep -qx main || { echo "FAIL: good binary"; failed=1; }
exit $failed
