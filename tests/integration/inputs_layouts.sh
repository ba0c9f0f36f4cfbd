#!/usr/bin/env bash
# Never a silent change of mode (issue #13, inputs): `perf script -F
# ip,brstack` of a capture with call stacks prints each stack and branch
# stack over several lines.  Every layout must give the LBR profile of the
# perf.data: the stack first (perf's), tabs expanded to spaces, the branch
# stack first; and when data with branch stacks can only give an IP-mode
# profile (a PIE's runtime addresses without mmap events) or --mode ip is
# asked for, stderr says so.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 perf qemu-x86_64
scratch

clang-19 -O2 -g -fdebug-info-for-profiling -fno-pie -no-pie -o prog "$SPGO_SRC/tests/data/perf_prog.c"
"$SPGO" emulate -o e.data -- ./prog 20000 >/dev/null 2>err.txt || { cat err.txt; echo "FAIL: spgo emulate"; exit 1; }
"$SPGO" gen --binary prog --perf-data e.data -o ref.txt --format text --quiet || bad "gen from perf.data"
perf script -i e.data -F ip,brstack > stack_first.script 2>/dev/null
grep -q $'^\t' stack_first.script || { echo "FAIL: no call stacks in perf script's text"; exit 1; }
sed 's/^\t/        /' stack_first.script > spaces.script
# each sample (a paragraph: stack lines, then the LBR line) as LBR line first
awk 'BEGIN { RS = ""; FS = "\n" } { print $NF; for (i = 1; i < NF; i++) print $i; print "" }' \
  stack_first.script > lbr_first.script
awk 'BEGIN { RS = ""; FS = "\n" } { print $NF; for (i = 1; i < NF; i++) { sub(/^\t/, "    ", $i); print $i }; print "" }' \
  stack_first.script > lbr_first_spaces.script
for f in stack_first spaces lbr_first lbr_first_spaces; do
  if "$SPGO" gen --binary prog --perf-script $f.script -o $f.txt --format text 2>err.txt; then
    grep -q "LBR mode" err.txt || { bad "$f: not LBR mode"; cat err.txt; }
    cmp -s ref.txt $f.txt || { bad "$f: another profile than from perf.data"; diff ref.txt $f.txt | head -5; }
    grep -q "warning" err.txt && { bad "$f: a warning"; cat err.txt; }
  else
    bad "$f: spgo gen fails:"; cat err.txt
  fi
done

# Stack lines as runtime addresses (llvm-profgen's input, spgo script
# --raw-stacks) and as perf prints them (offsets in the file): the same CS
# profile as from the perf.data, with and without pids.  (A PIE: its
# branches need the mmap events.)
clang-19 -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fpie -pie -o fp \
  "$SPGO_SRC/tests/data/perf_prog.c"
"$SPGO" emulate -o fp.data -- ./fp 20000 >/dev/null 2>&1 || { echo "FAIL: spgo emulate (fp)"; exit 1; }
"$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary fp --perf-data fp.data -o cs.ref --format text || bad "gen --cs from perf.data"
"$SPGO" script -i fp.data -F ip,brstack --raw-stacks --show-mmap-events > cs_raw.script
"$SPGO" script -i fp.data -F pid,ip,brstack --raw-stacks --show-mmap-events > cs_rawpid.script
perf script -i fp.data -F ip,brstack --show-mmap-events > cs_perfmm.script 2>/dev/null
for f in cs_raw cs_rawpid cs_perfmm; do
  "$SPGO" gen --cs --cs-flat --no-preinline --quiet --binary fp --perf-script $f.script -o $f.txt --format text 2>err.txt ||
    { bad "$f: gen --cs fails: $(head -c 300 err.txt)"; continue; }
  cmp -s cs.ref $f.txt && echo "ok   $f: the CS profile of the perf.data" ||
    { bad "$f: another CS profile than from perf.data"; diff cs.ref $f.txt | head -4; }
done

# ... and stderr says which reading was taken
"$SPGO" gen --cs --cs-flat --no-preinline --binary fp --perf-script cs_raw.script -o /dev/null --format text 2> err.txt
grep -q 'cs_raw.script: call-stack lines read as runtime addresses' err.txt ||
  { bad "cs_raw: the reading of the stack lines not said"; cat err.txt; }
"$SPGO" gen --cs --cs-flat --no-preinline --binary fp --perf-script cs_perfmm.script -o /dev/null --format text 2> err.txt
grep -q 'cs_perfmm.script: call-stack lines read as offsets' err.txt ||
  { bad "cs_perfmm: the reading of the stack lines not said"; cat err.txt; }

# a PIE without its mmap events: the branches are runtime addresses
clang-19 -O2 -g -fdebug-info-for-profiling -fpie -pie -o pie "$SPGO_SRC/tests/data/perf_prog.c"
"$SPGO" emulate -o p.data -- ./pie 20000 >/dev/null 2>&1 || { echo "FAIL: spgo emulate"; exit 1; }
perf script -i p.data -F ip,brstack > pie.script 2>/dev/null
"$SPGO" gen --binary pie --perf-script pie.script -o pie.txt --format text 2>err.txt || true
grep -q "warning: .*branch stacks.*IP-mode profile" err.txt ||
  { bad "LBR data giving an IP-mode profile: no warning"; cat err.txt; }
"$SPGO" gen --binary prog --perf-data e.data --mode ip -o ip.txt --format text 2>err.txt ||
  bad "--mode ip fails"
grep -q "warning: .*branch stacks.*--mode ip" err.txt || { bad "--mode ip on LBR data: no warning"; cat err.txt; }
[ $fail -eq 0 ] && echo "inputs_layouts: ok"
exit $fail
