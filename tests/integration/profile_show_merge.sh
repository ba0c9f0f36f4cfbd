#!/usr/bin/env bash
# Reading profiles (issue 25):
#  - spgo show --all-functions / --function / --topn / --detailed-summary
#    print what llvm-profdata-19 show --sample prints, byte for byte (text,
#    extended binary, flat CS text, nested CS extbinary);
#  - an unsymbolized profile (.unsym) is shown (its sections) and converted
#    between its forms (bin -> text -> bin is the same bytes); asking it for
#    functions or a symbolized format is an error naming spgo gen;
#  - spgo merge of mixed forms writes the same bytes whatever the order of
#    its inputs (profiles: extbinary > text > gcov; unsymbolized: bin when
#    any input is).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64 llvm-profdata-19
scratch

# minivm (-O2 -g -fdebug-info-for-profiling, frame pointers, no PIE) and
# e1.data..e2.data (spgo emulate -c 4001 --seed S -- ./minivm S): the
# fixture minivm_captures, made once for the tests that read them alike
minivm_captures 2
gen() { "$SPGO" gen --quiet --binary minivm "$@" 2>/dev/null || bad "gen $*"; }
gen --perf-data e1.data --format text -o a.txt
gen --perf-data e2.data -o b.ext
gen --perf-data e1.data --cs --format text -o cs.txt
gen --perf-data e1.data --cs-nested -o csn.ext

for p in a.txt b.ext cs.txt csn.ext; do
  for o in --all-functions --function=main --topn=5 "--detailed-summary --topn 3"; do
    # (llvm-profdata takes --function as a whole flat-CS context, "main"
    # alone being none there: it prints an empty record; spgo the context)
    [ "$p" = cs.txt ] && [ "$o" = --function=main ] && continue
    llvm-profdata-19 show --sample $o $p > l.out 2>&1
    "$SPGO" show $o $p > s.out 2>&1 || bad "spgo show $o $p"
    cmp -s l.out s.out && echo "ok   show $o $p" || { diff l.out s.out | head -5; bad "show $o $p differs from llvm-profdata-19"; }
  done
done

# unsymbolized profiles: shown, converted
"$SPGO" aggregate --quiet --binary minivm -o h1.unsym e1.data && "$SPGO" aggregate --quiet --binary minivm --format text -o h2.txt e2.data ||
  bad "aggregate"
"$SPGO" show h1.unsym > out 2>err || bad "show of an unsymbolized profile: $(cat err)"
grep -q "^unsymbolized profile: 1 binary" out && grep -q "data: LBR IP" out || { cat out; bad "show .unsym: no sections"; }
"$SPGO" show --all-functions h1.unsym > /dev/null 2>err; [ $? -eq 2 ] && grep -q "spgo gen --binary BIN --unsymbolized" err ||
  bad "show --all-functions of .unsym: $(cat err)"
"$SPGO" convert h1.unsym -o c.txt && "$SPGO" convert c.txt -o c.unsym && cmp -s c.unsym h1.unsym &&
  echo "ok   convert .unsym bin -> text -> bin" || bad "convert of an unsymbolized profile"
grep -q "^# binary" c.txt || bad "convert .unsym: not the text form"
"$SPGO" convert h1.unsym --format extbinary -o x 2>err; [ $? -eq 2 ] && grep -q "spgo gen" err || bad "convert .unsym to extbinary: $(cat err)"

# merge of mixed forms: the order of the inputs does not matter
"$SPGO" merge -o m1 a.txt b.ext && "$SPGO" merge -o m2 b.ext a.txt && cmp -s m1 m2 &&
  echo "ok   merge text+extbinary in either order" || bad "merge text+extbinary: the bytes depend on the order"
"$SPGO" show m1 | grep -q "^format: extbinary" || bad "merge of text and extbinary is not extbinary"
"$SPGO" merge -o u1 h2.txt h1.unsym && "$SPGO" merge -o u2 h1.unsym h2.txt && cmp -s u1 u2 &&
  echo "ok   merge unsym text+bin in either order" || bad "merge of unsymbolized text+bin: the bytes depend on the order"
head -c 8 u1 | grep -q "SPGO-UNS" || bad "merge of unsymbolized text and bin is not bin"

[ $fail -eq 0 ] && echo "profile_show_merge: ok"
exit $fail
