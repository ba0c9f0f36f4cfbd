#!/usr/bin/env bash
# Bad input to the profile tools: a one-line error naming the file and the
# line or byte offset, a non-zero exit, and no output file left behind.
. "$(dirname "$0")/lib/common.sh" || exit 1
scratch
# expect_err WANT-REGEX CMD...: the command fails with one line matching WANT
expect_err() {
  local want=$1; shift
  if "$@" > out 2> err; then bad "$* succeeded"; return; fi
  [ "$(wc -l < err)" -eq 1 ] || bad "$*: $(wc -l < err) lines of error"
  grep -Eq "$want" err || bad "$*: error '$(cat err)' does not match '$want'"
}
printf 'main:100:1\n 1: 50\n 2: x\n' > bad1.txt
expect_err '^spgo: bad1.txt: line 3: ' "$SPGO" show bad1.txt
printf 'main:100:1\n 1: 50 foo\n' > bad2.txt
expect_err '^spgo: bad2.txt: line 2: bad call target' "$SPGO" convert bad2.txt -o out.ext --format extbinary
[ -e out.ext ] && bad "a failed convert left out.ext"
ls out.ext.tmp.* >/dev/null 2>&1 && bad "a failed convert left a temporary file"
printf '\x7fELF\x02\x01\x01' > elf
expect_err '^spgo: elf: offset 0x0: not a sample profile' "$SPGO" show elf
printf 'main:100:1\n 1: 100\n' > ok.txt
"$SPGO" convert ok.txt -o ok.ext --format extbinary || bad "convert ok.txt"
head -c 40 ok.ext > trunc.ext
expect_err '^spgo: trunc.ext: offset 0x[0-9a-f]+: ' "$SPGO" show trunc.ext
# an unsupported version: the byte after the 9-byte magic
{ head -c 9 ok.ext; printf '\x66'; tail -c +11 ok.ext; } > ver.ext
expect_err '^spgo: ver.ext: offset 0x9: unsupported extended binary version 102' "$SPGO" show ver.ext
if command -v llvm-profdata-19 >/dev/null; then
  llvm-profdata-19 merge --sample --binary ok.txt -o old.bin
  expect_err '^spgo: old.bin: offset 0x0: LLVM sample profile format 255 is not supported' "$SPGO" show old.bin
fi
"$SPGO" convert ok.txt -o ok.gcov --format gcov || bad "convert to gcov"
head -c 30 ok.gcov > trunc.gcov
expect_err '^spgo: trunc.gcov: offset 0x[0-9a-f]+: ' "$SPGO" merge trunc.gcov ok.txt -o m.txt
[ -e m.txt ] && bad "a failed merge left m.txt"
printf '[main:1 @ foo]:10:1\n 1: 10\n' > cs.txt
expect_err 'context-sensitive profile cannot be written as gcov' "$SPGO" convert cs.txt -o cs.gcov --format gcov
expect_err 'cannot merge a context-sensitive profile with a plain one' "$SPGO" merge ok.txt cs.txt -o m.txt
"$SPGO" merge --flatten ok.txt cs.txt -o flat.txt --format text || bad "merge --flatten"
grep -q '^foo:10:1' flat.txt || bad "merge --flatten: $(head -1 flat.txt)"
expect_err 'no function' "$SPGO" show ok.txt --function nosuch
# trim: a cold context merged into its base context [leaf]
printf '[main:1 @ foo]:1500:1\n 1: 1000\n 2: 500\n[bar:2 @ foo]:3:1\n 1: 3\n[baz:1 @ qux]:2:0\n 1: 2\n' > cs2.txt
"$SPGO" trim cs2.txt -o t.txt --percentile 99 --merge-cold 2>/dev/null || bad "trim --merge-cold"
[ "$(grep '^\[' t.txt | tr '\n' ' ')" = "[main:1 @ foo]:1500:1 [foo]:3:1 [qux]:2:0 " ] ||
  bad "trim --merge-cold wrote: $(grep '^\[' t.txt | tr '\n' ' ')"
"$SPGO" trim cs2.txt -o t2.txt --percentile 99 2>/dev/null || bad "trim"
[ "$(grep -c '^\[' t2.txt)" = 1 ] || bad "trim kept $(grep -c '^\[' t2.txt) contexts, want 1"
exit $fail
