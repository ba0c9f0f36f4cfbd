#!/usr/bin/env bash
# A command whose output is stdout fails when stdout cannot be written
# (#25): `> /dev/full` gives exit 1 and "spgo: <stdout>: write error" for
# every command that prints its result (show and overlap exited 0).  The
# shell opens /dev/full: spgo is never given it as -o here.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc
[ -w /dev/full ] || { echo "skip: no /dev/full"; exit 77; }
scratch
printf 'main:1500:10\n 1: 500\n 2: 1000 foo:900\n 3: foo:400\n  1: 400\nfoo:100:5\n 1: 100\n' > ok.txt
printf 'cfg f\nblock a 10\nblock b 10\nedge a b\n' > in.cfg
gcc -O1 -g -o prog "$SPGO_SRC/tests/data/perf_prog.c"
addr=$(nm prog | awk '$3 == "main" { print "0x" $1 }')
# full NAME ARGS...: spgo ARGS > /dev/full fails with the write error
full() {
  local name=$1; shift
  "$SPGO" "$@" > /dev/full 2> err; local rc=$?
  if [ $rc -eq 1 ] && grep -q '<stdout>: write error' err; then
    echo "ok   $name: exit 1, $(grep 'write error' err)"
  else
    bad "$name > /dev/full: exit $rc: $(head -2 err)"
  fi
}
full show show ok.txt
full "show --summary" show --summary ok.txt
full "show --function" show --function foo ok.txt
full overlap overlap ok.txt ok.txt
full "overlap --top" overlap --top 2 ok.txt ok.txt
full symbolize symbolize --binary prog "$addr"
full "infer -o -" infer --cfg in.cfg -o -
full "convert -o -" convert ok.txt -o - --text
PERF=perf full "record --dry-run" record --dry-run -e cpu-clock -- true
exit $fail
