#!/usr/bin/env bash
# A stripped binary whose DWARF lives in a separate debug file is used
# without --debug-binary, the debug file found as gdb finds it
# (src/binary/debug_file.c): the profile of spgo gen must be byte for byte
# the one from the unstripped binary, with one note on stderr naming the
# file (none with --quiet), for each layout:
#   - objcopy --only-keep-debug + strip -g + --add-gnu-debuglink, the debug
#     file beside the binary;
#   - strip --strip-all, the debug file in the binary's .debug/;
#   - the debug file in $SPGO_DEBUG_ROOT/<the binary's absolute directory>/;
#   - no debug link, the debug file at $SPGO_DEBUG_ROOT/.build-id/xx/yyyy.debug.
# spgo symbolize finds it too.  Refused: a debug-link candidate whose CRC32
# is not the one in .gnu_debuglink, a build-id path holding another build's
# debug file, a malformed .gnu_debuglink; the error must name them.
# --debug-binary always wins.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc objcopy strip readelf
scratch
# The global debug directory: never /usr/lib/debug here.
export SPGO_DEBUG_ROOT="$tmp/root"
mkdir -p root
real=$(pwd -P) # (the absolute directory spgo puts under it)

gcc -O2 -g -o prog "$SPGO_SRC/tests/data/perf_prog.c" || { bad "gcc"; exit 1; }
objcopy --only-keep-debug prog prog.debug || { bad "objcopy --only-keep-debug"; exit 1; }
if "$SPGO" emulate -c 997 -o e.data -- ./prog 3000 >/dev/null 2>&1; then
  how="spgo emulate"
elif command -v perf >/dev/null &&
     perf record -q -e cpu-clock -F 4000 -o e.data -- ./prog 40000 >/dev/null 2>&1; then
  how="perf record -e cpu-clock"
else
  echo "skip: neither spgo emulate nor perf record can record here"; exit 77
fi
gen() { "$SPGO" gen --perf-data e.data --format text "$@"; }
gen --binary prog -o full.txt --quiet || { bad "spgo gen on the unstripped binary"; exit 1; }
echo "reference: the profile of the unstripped binary from $how ($(wc -l < full.txt) lines)"

# same TAG DIR NAME: DIR/prog's profile (no --debug-binary) is full.txt,
# one note names the file found (expected: $want), none with --quiet.
same() {
  local tag=$1 dir=$2 name=$3 before=$fail
  fail=0
  if ! gen --binary "$dir/prog" -o "$tag.txt" 2> "$tag.err"; then
    bad "$name: spgo gen failed: $(cat "$tag.err")"; return
  fi
  cmp -s full.txt "$tag.txt" || { bad "$name: the profile differs from the unstripped binary's"; diff full.txt "$tag.txt" | head -6; }
  local notes; notes=$(grep -c '^spgo: note: .*no DWARF of its own' "$tag.err")
  [ "$notes" = 1 ] || bad "$name: $notes notes of the debug file found, not 1"
  grep -qF "reading the separate debug file $want " "$tag.err" ||
    bad "$name: the note does not name $want: $(grep '^spgo: note' "$tag.err")"
  gen --binary "$dir/prog" -o "$tag-q.txt" --quiet 2> "$tag-q.err" || bad "$name: spgo gen --quiet failed"
  [ -s "$tag-q.err" ] && bad "$name: --quiet printed: $(cat "$tag-q.err")"
  [ $fail = 0 ] && echo "ok   $name: byte-identical to the unstripped binary's profile; $(grep '^spgo: note' "$tag.err")"
  fail=$((fail | before))
}

# (a) strip -g, the debug file beside the binary
mkdir -p a && cp prog.debug a/ && strip -g -o a/prog prog && objcopy --add-gnu-debuglink=a/prog.debug a/prog
want=a/prog.debug same a a "debug link, the binary's directory"
"$SPGO" symbolize --binary a/prog --functions > sym-a.txt 2> sym-a.err || bad "symbolize a/prog: $(cat sym-a.err)"
"$SPGO" symbolize --binary prog --functions > sym-full.txt
cmp -s sym-full.txt sym-a.txt && grep -q 'note: .*a/prog.debug' sym-a.err &&
  echo "ok   symbolize --functions with the debug link: the unstripped binary's" ||
  { bad "symbolize --functions with the debug link differs from the unstripped binary's"; diff sym-full.txt sym-a.txt | head -6; cat sym-a.err; }
# (b) strip --strip-all, the debug file in .debug/
mkdir -p b/.debug && cp prog.debug b/.debug/ && strip --strip-all -o b/prog prog &&
  objcopy --add-gnu-debuglink=b/.debug/prog.debug b/prog
want=b/.debug/prog.debug same b b "debug link, .debug/"
# (c) the global debug directory + the binary's absolute directory
mkdir -p c "root$real/c" && cp prog.debug "root$real/c/" && cp a/prog c/
want="$tmp/root$real/c/prog.debug" same c c "debug link, the global debug directory"
# (d) by build-id, no debug link
id=$(readelf -n prog | awk '/Build ID:/ {print $3}')
[ -n "$id" ] || bad "no build-id in prog"
mkdir -p d "root/.build-id/${id:0:2}" && strip -g -o d/prog prog && cp prog.debug "root/.build-id/${id:0:2}/${id:2}.debug"
want="$tmp/root/.build-id/${id:0:2}/${id:2}.debug" same d d "build-id"
rm -r "root/.build-id"

# expect_fail NAME PATTERN ARGS...: spgo gen fails naming PATTERN, no output
expect_fail() {
  local name=$1 pat=$2 before=$fail; shift 2
  fail=0
  rm -f out.txt
  gen "$@" -o out.txt 2> err.txt && bad "$name: succeeded"
  [ -e out.txt ] && bad "$name: wrote a profile"
  grep -q -- "$pat" err.txt || bad "$name: the error does not say '$pat': $(cat err.txt)"
  [ $fail = 0 ] && echo "ok   $name: $(sed 's/.*--debug-binary (/(/' err.txt)"
  fail=$((fail | before))
}
# (e) a debug-link candidate whose CRC32 does not match (the debug file
# changed after the link was made) is refused, and named
mkdir -p e && cp a/prog a/prog.debug e/ && printf 'x' >> e/prog.debug
expect_fail "debug link, CRC32 mismatch" "e/prog.debug: its CRC32 is 0x[0-9a-f]*, not the 0x[0-9a-f]* of e/prog's .gnu_debuglink" \
  --binary e/prog --perf-data e.data
grep -q "looked for .*e/prog.debug, e/.debug/prog.debug, $tmp/root$real/e/prog.debug" err.txt ||
  bad "the error does not list the paths looked at: $(cat err.txt)"
# (f) a build-id path holding another build's debug file is refused
gcc -O1 -g -o other "$SPGO_SRC/tests/data/perf_prog.c" && mkdir -p "root/.build-id/${id:0:2}" &&
  objcopy --only-keep-debug other "root/.build-id/${id:0:2}/${id:2}.debug"
expect_fail "build-id path, another build" "${id:2}.debug: its build-id [0-9a-f]* is not the $id of d/prog" \
  --binary d/prog --perf-data e.data
rm -r "root/.build-id"
# a malformed .gnu_debuglink (no NUL after the name) is named as such
mkdir -p m && printf 'prog.debug' > m/link && cp prog.debug m/ &&
  objcopy --add-section .gnu_debuglink=m/link d/prog m/prog
expect_fail "malformed .gnu_debuglink" "m/prog: offset 0x[0-9a-f]*: malformed .gnu_debuglink section (no NUL-terminated file name)" \
  --binary m/prog --perf-data e.data

# (g) --debug-binary wins: over a refused candidate, and over a good one
# (no search, no note)
before=$fail fail=0
gen --binary e/prog --debug-binary prog.debug -o g1.txt 2> g1.err || bad "--debug-binary over a bad candidate: $(cat g1.err)"
cmp -s full.txt g1.txt || bad "--debug-binary over a bad candidate: another profile"
cp a/prog.debug g.debug
gen --binary a/prog --debug-binary g.debug -o g2.txt 2> g2.err || bad "--debug-binary over a good candidate: $(cat g2.err)"
cmp -s full.txt g2.txt || bad "--debug-binary over a good candidate: another profile"
grep -q 'note: .*no DWARF of its own' g1.err g2.err && bad "--debug-binary: a debug file was searched for: $(cat g1.err g2.err)"
grep -q 'warning' g1.err g2.err && bad "--debug-binary of the same build: a warning: $(cat g1.err g2.err)"
# ... and one of another build is taken, with a warning naming both build-ids
objcopy --only-keep-debug other other.debug
gen --binary d/prog --debug-binary other.debug -o g3.txt 2> g3.err || bad "--debug-binary of another build: $(cat g3.err)"
grep -q "warning: other.debug: build-id [0-9a-f]* is not the $id of d/prog" g3.err ||
  bad "--debug-binary of another build: no warning: $(cat g3.err)"
[ $fail = 0 ] && echo "ok   --debug-binary wins over the debug link, found or refused; another build's is warned about"
exit $((fail | before))
