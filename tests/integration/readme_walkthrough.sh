#!/usr/bin/env bash
# README's "Your own program" runs as written (#13): every ```sh block of
# that section, in order, in one shell, in an empty directory, with `spgo`
# on PATH and SPGO_SRC set, on the bundled demo program.  A block that
# fails fails the test (bash -e); each must also leave the files it says
# it makes.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 gcc perf qemu-x86_64 llvm-profgen-19
scratch
# README is for a new user; the reference lives in docs/ (#27).
size=$(wc -c < "$SPGO_SRC/README.md")
[ "$size" -le 10240 ] || bad "README.md is $size bytes: the reference belongs in docs/ (at most 10 KB)"
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }
mkdir bin && ln -s "$SPGO" bin/spgo
awk '/^## Your own program/ { on = 1; next } on && /^#{1,2} / { on = 0 }
     on && /^```sh$/ { inb = 1; n++; print "echo \"-- block " n "\""; next }
     on && /^```$/ { inb = 0; next }
     inb' "$SPGO_SRC/README.md" > walk.sh
blocks=$(grep -c '^echo "-- block' walk.sh)
[ "$blocks" -ge 5 ] || { bad "only $blocks command blocks found in README's walkthrough"; exit 1; }
mkdir run && cd run || exit 1
if PATH="$tmp/bin:$PATH" SPGO_SRC="$SPGO_SRC" bash -e "$tmp/walk.sh" > ../walk.out 2>&1; then
  echo "README walkthrough: $blocks blocks ran"
else
  bad "README walkthrough failed:"; tail -15 ../walk.out
fi
for f in prog.prof prog.afdo libvm.prof prog-lbr.prof prog-exact.prof prog-cs.prof profgen.prof profgen-cs.prof \
         prog-pgo prog-gcc-pgo prog-cs; do
  [ -s "$f" ] || bad "the walkthrough did not make $f"
done
grep -q "similarity" ../walk.out || bad "no similarity figure printed"
exit $fail
