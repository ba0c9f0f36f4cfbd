#!/usr/bin/env bash
# The real consumers read what spgo writes.  For every profile of a random
# corpus (flat, nested, MD5, CS, probe-based, preinlined, CS+probe):
#  - text -> extended binary (plain, zlib, LLVM-14 flavour) -> text is
#    identical;
#  - llvm-profdata-19 show --sample prints the same for our extbinary as for
#    our text, and the same detailed summary (ours is in the file, LLVM
#    computes its own from the text);
#  - llvm-profdata-14 reads the --target-llvm=14 file and prints the same as
#    for the text;
#  - clang-19 and clang-14 compile a program with it, no profile warning;
#  - gcov (plain profiles): dump_gcov prints the same records as our text,
#    gcc-12 -fauto-profile compiles with it without a word;
#  - spgo overlap prints llvm-profdata-19 overlap --sample's figures for a
#    profile and its merge with another, for every kind;
#  - spgo merge --cs-nested writes what llvm-profdata-19
#    --convert-sample-profile-layout=nest writes.
# Known differences, not checked:
#  - md5nested: LLVM's text reader cannot read back an MD5 profile with
#    inlinees (it takes "3: 1234:5" for a body line), so only our own round
#    trip covers it.
#  - LLVM's text readers (14 and 19) split context frames at the first ':',
#    so the CS profiles of the corpus use names without ':' (as mangled
#    names are).
#  - dump_gcov shortens names at the first '.', merging targets; the gcov
#    comparison uses a copy of the profile without such names.
. "$(dirname "$0")/lib/common.sh" || exit 1
need llvm-profdata-19 llvm-profdata-14 clang-19 clang-14 dump_gcov gcc
scratch
"$SPGO_BUILD/tests/test_profile" --corpus "$tmp" || { echo "FAIL: corpus"; exit 1; }
prog="$SPGO_SRC/tests/data/profile_prog.c"
norm="$SPGO_SRC/tests/data/profile_norm.awk"
n=0
for f in "$tmp"/*.txt; do
  k=$(basename "$f" .txt); n=$((n+1))
  "$SPGO" convert "$f" -o "$tmp/$k.ext" --format extbinary || bad "$k: convert"
  "$SPGO" convert "$f" -o "$tmp/$k.z.ext" --format extbinary --compress || bad "$k: convert -z"
  "$SPGO" convert "$f" -o "$tmp/$k.14.ext" --format extbinary --target-llvm 14 || bad "$k: convert 14"
  for e in ext z.ext 14.ext; do
    "$SPGO" convert "$tmp/$k.$e" -o "$tmp/$k.rt.txt" --format text && cmp -s "$f" "$tmp/$k.rt.txt" ||
      bad "$k: text -> $e -> text differs"
  done
  if [[ $k != md5nested* ]]; then
    llvm-profdata-19 show --sample "$f" > "$tmp/a" 2>&1 || bad "$k: llvm-profdata-19 rejects our text"
    for e in ext z.ext; do
      llvm-profdata-19 show --sample "$tmp/$k.$e" > "$tmp/b" 2>&1 || bad "$k: llvm-profdata-19 rejects $e"
      cmp -s "$tmp/a" "$tmp/b" || bad "$k: llvm-profdata-19 show differs text vs $e"
    done
    llvm-profdata-19 show --sample --detailed-summary "$f" | sed -n '/^Total functions/,$p' > "$tmp/a"
    llvm-profdata-19 show --sample --detailed-summary "$tmp/$k.ext" | sed -n '/^Total functions/,$p' > "$tmp/b"
    [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" || bad "$k: summary section differs from LLVM's"
  fi
  llvm-profdata-14 show --sample "$tmp/$k.14.ext" > "$tmp/b" 2>&1 || bad "$k: llvm-profdata-14 rejects our file"
  case $k in
    md5nested*) ;;
    *) llvm-profdata-14 show --sample "$f" > "$tmp/a" 2>&1; cmp -s "$tmp/a" "$tmp/b" ||
         bad "$k: llvm-profdata-14 show differs text vs binary" ;;
  esac
  pp=""; case $k in *probe*|preinl*) pp=-fpseudo-probe-for-profiling ;; esac
  out=$(clang-19 -O2 $pp -fprofile-sample-use="$tmp/$k.ext" -c "$prog" -o "$tmp/o.o" 2>&1) && [ -z "$out" ] ||
    bad "$k: clang-19: $out"
  out=$(clang-14 -O2 $pp -fprofile-sample-use="$tmp/$k.14.ext" -c "$prog" -o "$tmp/o.o" 2>&1) && [ -z "$out" ] ||
    bad "$k: clang-14: $out"
  case $k in
    flat*|nested*|md5-*)
      sed 's/ns::f(int, char)/nsf/g; s/\.llvm\.//g; s/\.__uniq\.//g; s/\.cold//g' "$f" > "$tmp/san.txt"
      "$SPGO" convert "$tmp/san.txt" -o "$tmp/$k.v1.gcov" --gcov-version 1 || bad "$k: gcov v1"
      dump_gcov "$tmp/$k.v1.gcov" > "$tmp/d" 2>&1 || bad "$k: dump_gcov rejects our file"
      awk -v dump=1 -f "$norm" "$tmp/d" | sort > "$tmp/a"
      "$SPGO" convert "$tmp/san.txt" -o - --format text | awk -f "$norm" | sort > "$tmp/b"
      [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" || bad "$k: dump_gcov prints other records"
      "$SPGO" convert "$f" -o "$tmp/$k.gcov" --format gcov || bad "$k: gcov"
      out=$(gcc -O2 -fauto-profile="$tmp/$k.gcov" -c "$prog" -o "$tmp/o.o" 2>&1) && [ -z "$out" ] ||
        bad "$k: gcc: $out"
      ;;
  esac
done
# overlap of a profile with its merge with another, per kind (CS and probe
# included): the figures of llvm-profdata-19 overlap --sample
for k in flat nested md5 cs probe preinlined csprobe; do
  "$SPGO" merge "$tmp/$k-1.txt" --weight 2:"$tmp/$k-2.txt" -o "$tmp/m.txt" --format text 2>/dev/null ||
    bad "$k: merge"
  llvm-profdata-19 overlap --sample "$tmp/$k-1.txt" "$tmp/m.txt" | sed -n '2,/hot blocks unique in test/p' > "$tmp/a"
  "$SPGO" overlap "$tmp/$k-1.txt" "$tmp/m.txt" | sed -n '2,/hot blocks unique in test/p' > "$tmp/b"
  [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" || { bad "$k: overlap differs"; diff "$tmp/a" "$tmp/b"; }
done
# flat CS -> nested, as llvm-profdata-19 --convert-sample-profile-layout=nest;
# the nested result also goes through extbinary to LLVM 19 and 14
for f in "$tmp"/cs-*.txt "$tmp"/csprobe-*.txt; do
  k=$(basename "$f" .txt)
  llvm-profdata-19 merge --sample --text --convert-sample-profile-layout=nest "$f" -o "$tmp/a"
  "$SPGO" merge --cs-nested "$f" -o "$tmp/b" --format text || bad "$k: --cs-nested"
  cmp -s "$tmp/a" "$tmp/b" || bad "$k: nested form differs from LLVM's"
  "$SPGO" merge --cs-nested "$f" -o "$tmp/n.ext" --format extbinary || bad "$k: --cs-nested ext"
  llvm-profdata-19 show --sample "$tmp/n.ext" > "$tmp/a" && llvm-profdata-19 show --sample "$tmp/b" > "$tmp/c" &&
    cmp -s "$tmp/a" "$tmp/c" || bad "$k: nested extbinary shows differently"
  llvm-profdata-14 show --sample "$tmp/n.ext" > /dev/null || bad "$k: llvm-profdata-14 rejects nested ext"
done
[ "$n" -ge 20 ] || bad "corpus has only $n profiles"
echo "checked $n profiles"
exit $fail
