#!/usr/bin/env bash
# A wrong file given as ground truth or as CFG text fails at once (#25): a
# sparse 2 GiB file (no newline) was copied whole before its first line was
# checked: 4.2 GB of memory and 17-35 s.  The magic (ground truth) and the
# first directive (CFG text) are now checked in place first: each run below
# must fail with its clear error within 5 s (timeout) and under 50 MB.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc timeout truncate
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time not installed"; exit 77; }
scratch
gcc -O1 -g -o prog "$SPGO_SRC/tests/data/perf_prog.c"
truncate -s 2G big || { echo "skip: no sparse file here"; exit 77; }
# fast NAME WANT ARGS...: spgo ARGS fails (exit 1) with WANT on stderr, in
# under 5 s and 50 MB
fast() {
  local name=$1 want=$2; shift 2
  /usr/bin/time -f '%e %M' -o usage timeout 5 "$SPGO" "$@" > /dev/null 2> err; local rc=$?
  local secs kb; read -r secs kb < <(tail -1 usage)
  if [ $rc -eq 1 ] && grep -q "$want" err && [ "${kb:-999999}" -lt 50000 ]; then
    echo "ok   $name: ${secs}s, ${kb} KB: $(head -1 err)"
  else
    bad "$name: exit $rc, ${secs:-?}s, ${kb:-?} KB: $(head -1 err)"
  fi
}
fast "gen --ground-truth" "big: line 1: not a spgo ground-truth file" \
  gen --binary prog --ground-truth big -o out
fast "gen --ground-truth-cs" "big: line 1: not a spgo context-sensitive ground-truth file" \
  gen --binary prog --ground-truth-cs big -o out
fast "infer --cfg" "big: offset 0: NUL byte in a text CFG" infer --cfg big -o out
# text that is not a CFG: one line of 50 MB
{ printf 'this is not a cfg '; head -c 50M /dev/zero | tr '\0' x; } > long.txt
fast "infer --cfg (50 MB line)" "long.txt: line 1: unknown directive 'this'" infer --cfg long.txt -o out
exit $fail
