#!/usr/bin/env bash
# The option names users bring from the peers (issue 25), with their meaning:
#  - every command: a typo of an option gets "did you mean '--X'?"; gflags'
#    one-dash long options (create_llvm_prof -binary=prog) are those options;
#  - gen: create_llvm_prof/create_gcov's --profile, --out, --gcov,
#    --gcov_version (their version word = spgo's layout 1), --profiler perf;
#    no input reads ./perf.data as perf report does (said on stderr), and a
#    missing one is an error naming it;
#  - merge: llvm-profdata's -f/--input-files LIST ("[W,]FILE" lines);
#  - overlap: llvm-profdata's --function STR;
#  - record: perf's -g, -b, -j any, -z, --call-graph dwarf,SIZE; lbr and
#    partial -j filters refused naming spgo's way; other options passed on
#    with a note.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64
scratch

# usage error: exit 2 and stderr matching WANT
usage_err() {
  local name=$1 want=$2; shift 2
  "$SPGO" "$@" > out 2> err; local rc=$?
  [ $rc -eq 2 ] && grep -q -- "$want" err && echo "ok   $name" || bad "$name: exit $rc, $(head -1 err)"
}
usage_err "gen typo" "did you mean '--perf-data'?" gen --perf-dat x
usage_err "gen swapped letters" "did you mean '--output'?" gen --ouptut x
usage_err "merge typo" "did you mean '--weight'?" merge --wieght 2:x
usage_err "overlap typo" "did you mean '--function'?" overlap --funtcion f a b
usage_err "symbolize typo" "did you mean '--binary'?" symbolize --binray x
usage_err "record typo (not passed to perf)" "did you mean '--output'?" record --outptu x -- true
usage_err "no guess for a far word" "unknown option '--zzzzzz'$" gen --zzzzzz

clang-19 -O2 -g -fdebug-info-for-profiling -fno-pie -no-pie -o minivm "$SPGO_SRC/examples/minivm/minivm.c" || bad "build minivm"
"$SPGO" emulate -c 4001 -o e.data -- ./minivm 1 >/dev/null 2>&1 || bad "spgo emulate"
"$SPGO" gen --quiet --binary minivm --perf-data e.data --format gcov --gcov-version 1 -o ref.afdo 2>/dev/null || bad "gen gcov"
"$SPGO" gen --quiet -binary=minivm --profile=e.data --gcov ours.afdo --format gcov --gcov_version=875575082 --profiler perf ||
  bad "gen with create_gcov's option names"
cmp -s ref.afdo ours.afdo && echo "ok   gen --profile --gcov --gcov_version" || bad "create_gcov's names give another profile"
"$SPGO" gen --quiet --binary minivm --perf-data e.data -o ref.prof 2>/dev/null || bad "gen"
"$SPGO" gen --quiet -binary minivm -profile e.data -out ours.prof || bad "gen with create_llvm_prof's names"
cmp -s ref.prof ours.prof && echo "ok   gen -binary -profile -out" || bad "create_llvm_prof's names give another profile"
usage_err "gen --profiler text" "spgo gen reads perf.data" gen --binary minivm --profiler text -o x

# no input: ./perf.data, said; none: an error naming it
mkdir d && cp e.data d/perf.data && cd d || exit 1
"$SPGO" gen --quiet --binary ../minivm -o dflt.prof 2>err || { cat err; bad "gen with no input and ./perf.data"; }
grep -q "reading ./perf.data" err || bad "no word that ./perf.data was read: $(cat err)"
cmp -s dflt.prof ../ref.prof || bad "gen of ./perf.data differs from gen --perf-data"
rm perf.data; cd .. || exit 1
(cd d && "$SPGO" gen --binary ../minivm -o x 2>err; echo $? > rc)
[ "$(cat d/rc)" = 2 ] && grep -q "no ./perf.data" d/err && echo "ok   gen, no input, no ./perf.data" ||
  bad "gen with no input and no ./perf.data: $(cat d/rc) $(cat d/err)"

# merge -f LIST: as --weighted-input
"$SPGO" gen --quiet --binary minivm --perf-data e.data --format text -o a.txt 2>/dev/null
"$SPGO" emulate -c 4001 --seed 2 -o e2.data -- ./minivm 2 >/dev/null 2>&1 &&
  "$SPGO" gen --quiet --binary minivm --perf-data e2.data --format text -o b.txt 2>/dev/null || bad "second profile"
printf '# inputs\n3,a.txt\n\n  b.txt  \n' > list
"$SPGO" merge --text -f list -o m1.txt && "$SPGO" merge --text --weighted-input=3,a.txt b.txt -o m2.txt &&
  cmp -s m1.txt m2.txt && echo "ok   merge -f" || bad "merge -f LIST differs from --weighted-input"
"$SPGO" merge --text --input-files=list a.txt -o m3.txt && ! cmp -s m1.txt m3.txt || bad "merge --input-files with more inputs"
printf 'x,a.txt\n' > badlist
"$SPGO" merge -f badlist -o m4.txt 2>err; [ $? -eq 1 ] && grep -q "badlist:1:" err || bad "a bad list line: $(cat err)"

# overlap --function: that function's details only (in both tables:
# llvm-profdata's, then the samples where the other profile has zero)
"$SPGO" overlap --function main a.txt b.txt > ov.txt || bad "overlap --function"
rows() { awk -v h="$1" 'index($0, h) == 1 { on = 1; next } /^[^0-9]/ && !/^Base/ { on = 0 } on && /^[0-9]/' ov.txt; }
grep -q "^Function-level details" ov.txt && [ "$(rows 'Function-level details' | grep -c 'main')" -ge 1 ] &&
  [ "$(rows 'Function-level samples' | grep -c 'main')" -eq 1 ] &&
  ! rows 'Function-level' | grep -qv main && echo "ok   overlap --function" ||
  { cat ov.txt; bad "overlap --function main: details of other functions or none"; }
"$SPGO" overlap --function no_such_fn a.txt b.txt > /dev/null 2>err; [ $? -eq 1 ] || bad "overlap --function of nothing: not an error"

# record: perf's names
PERF=perf "$SPGO" record --dry-run -e cpu-clock -g -z -j any,u --call-graph dwarf,4096 --mmap-pages=64 -- true > out 2> err ||
  bad "record with perf's options: $(cat err)"
grep -qx -- "perf record -e cpu-clock -j any,u --call-graph dwarf,4096 -o perf.data -z --mmap-pages=64 -- true" out &&
  echo "ok   record -g -z -j any,u --call-graph dwarf,SIZE, pass-through" || bad "record dry run: $(cat out)"
grep -q "passing '--mmap-pages=64' to perf record" err || bad "no note on the passed option: $(cat err)"
PERF=perf "$SPGO" record --dry-run -e cpu-clock -b -g -- true > out 2>/dev/null &&
  grep -qx -- "perf record -e cpu-clock -b --call-graph fp -o perf.data -- true" out || bad "record -b -g: $(cat out)"
usage_err "record --call-graph lbr" "use --call-graph fp" record --call-graph lbr -- true
usage_err "record -j call" "spgo gen needs every taken branch" record -j call -- true
usage_err "record dwarf,SIZE" "multiple of 8" record --call-graph dwarf,12 -- true

[ $fail -eq 0 ] && echo "cli_peer_options: ok"
exit $fail
