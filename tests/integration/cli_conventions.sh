#!/usr/bin/env bash
# The command-line conventions (src/cli/opt.h), for every subcommand:
# --opt=value and -oVALUE work as "--opt value"; each alias does what its
# canonical option does; an unknown option, a missing value and a bad value
# exit 2 with "spgo CMD: <the option and the problem>" and the one-line
# hint "Try 'spgo help CMD' ..."; --help and `spgo help CMD` print the help
# on stdout and exit 0; an unknown command exits 2; --version names the
# git revision.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc
scratch

# ok NAME CMD...: exits 0
ok() {
  local name=$1; shift
  if "$@" > out 2> err; then echo "ok   $name"; else bad "$name: exit $?: $(head -3 err)"; fi
}
# usage_err NAME CMD WANT ARGS...: `spgo CMD ARGS` exits 2 with two lines on
# stderr: "spgo CMD: ..." matching WANT, then the hint; nothing on stdout
usage_err() {
  local name=$1 cmd=$2 want=$3; shift 3
  "$SPGO" "$cmd" "$@" > out 2> err
  local rc=$?
  if [ $rc -ne 2 ]; then bad "$name: exit $rc, want 2 ($(head -2 err))"; return; fi
  [ "$(wc -l < err)" -eq 2 ] || { bad "$name: $(wc -l < err) lines on stderr: $(cat err)"; return; }
  head -1 err | grep -Eq -- "^spgo $cmd: .*$want" || { bad "$name: '$(head -1 err)' does not match /$want/"; return; }
  [ "$(tail -1 err)" = "Try 'spgo help $cmd' for more information." ] || { bad "$name: hint '$(tail -1 err)'"; return; }
  [ -s out ] && { bad "$name: wrote to stdout"; return; }
  echo "ok   $name: $(head -1 err)"
}
# same NAME FILE1 FILE2: the two outputs are equal
same() { cmp -s "$2" "$3" && echo "ok   $1" || bad "$1: $2 and $3 differ"; }
# common CMD UNKNOWN-ARGS / MISSING-OPTION: the three failures and the help
common() {
  local cmd=$1 missing=$2
  usage_err "$cmd unknown option" "$cmd" "unknown option '--no-such-option'" --no-such-option
  usage_err "$cmd unknown short option" "$cmd" "unknown option '-Q'" -Q
  usage_err "$cmd missing value" "$cmd" "option '$missing' needs a value" "$missing"
  "$SPGO" "$cmd" --help > h1 2> err && [ -s h1 ] && [ ! -s err ] || bad "$cmd --help"
  "$SPGO" help "$cmd" > h2 2> err && cmp -s h1 h2 || bad "spgo help $cmd differs from --help"
  "$SPGO" "$cmd" -h > h3 && cmp -s h1 h3 || bad "$cmd -h differs from --help"
  head -1 h1 | grep -q "usage: spgo $cmd" && echo "ok   $cmd --help, -h, spgo help $cmd" ||
    bad "$cmd help: $(head -1 h1)"
}

# ---- the program ----
"$SPGO" --version > v.txt && grep -Eq '^spgo [0-9.]+ \(git [0-9a-f]{7,}|^spgo [0-9.]+ \(git unknown' v.txt &&
  echo "ok   --version: $(cat v.txt)" || bad "--version: $(cat v.txt)"
"$SPGO" no-such-command > out 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "unknown command 'no-such-command'" err && echo "ok   unknown command" ||
  bad "unknown command: exit $rc, $(cat err)"
"$SPGO" help no-such-command > out 2> err; [ $? -eq 2 ] || bad "spgo help of an unknown command"
"$SPGO" help > out && grep -q '^  symbolize' out || bad "spgo help"

# ---- fixtures ----
printf 'main:1500:10\n 1: 500\n 2: 1000 foo:900\n 3: foo:400\n  1: 400\nfoo:100:5\n 1: 100\n' > ok.txt
gcc -O1 -g -o prog "$SPGO_SRC/tests/data/perf_prog.c"
addr=$(nm prog | awk '$3 == "main" { print "0x" $1 }')

# ---- show ----
common show --top
ok "show --top=3" "$SPGO" show --top=3 ok.txt; cp out a
"$SPGO" show --top 3 ok.txt > b; same "show --top=3 = --top 3" a b
ok "show --sample (llvm-profdata)" "$SPGO" show --sample ok.txt; same "show --sample changes nothing" out b
ok "show --function=foo" "$SPGO" show --function=foo ok.txt
usage_err "show bad --top" show "option '--top': 'x' is not a number" --top=x ok.txt
usage_err "show no profile" show "no profile" --top 3
[ "$("$SPGO" show ok.txt | grep -c 'total samples')" = 1 ] || bad "show: more than one 'total samples'"
"$SPGO" show --summary ok.txt | grep -q '^summary: .* counts (lines and call sites) add up to' &&
  echo "ok   show --summary: the summary's figure has its own name" || bad "show --summary line"
: > empty.txt
"$SPGO" show empty.txt > out 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "^spgo: empty.txt: offset 0x0: empty file (0 bytes)" err &&
  echo "ok   a 0-byte profile is an error" || bad "0-byte profile: exit $rc, $(cat err)"

# ---- merge (llvm-profdata's names too) ----
common merge --weight
ok "merge -oFILE" "$SPGO" merge -om1.txt --format=text ok.txt
"$SPGO" merge -o m2.txt --format text ok.txt; same "merge -oFILE --format=text" m1.txt m2.txt
ok "merge --output=FILE --text --sample" "$SPGO" merge --sample --text --output=m3.txt ok.txt
same "merge --text = --format text" m1.txt m3.txt
ok "merge --weight=2:FILE" "$SPGO" merge --format=text --weight=2:ok.txt -o w1.txt
ok "merge --weighted-input=2,FILE" "$SPGO" merge --text --weighted-input=2,ok.txt -o w2.txt
ok "merge -w 2:FILE" "$SPGO" merge --text -w 2:ok.txt -o w3.txt
same "--weighted-input=2,F = --weight=2:F" w1.txt w2.txt; same "-w = --weight" w1.txt w3.txt
grep -q '^main:3000:20' w1.txt || bad "merge weight 2: $(head -1 w1.txt)"
ok "merge --extbinary --use-md5 --compress-all-sections --target-llvm=19" \
  "$SPGO" merge --extbinary --use-md5 --compress-all-sections --target-llvm=19 ok.txt -o x1.ext
ok "merge --format=extbinary --md5 --compress --llvm 19" \
  "$SPGO" merge --format=extbinary --md5 --compress --llvm 19 ok.txt -o x2.ext
same "llvm-profdata aliases = spgo names" x1.ext x2.ext
ok "merge --gcc" "$SPGO" merge --gcc ok.txt -o g.gcov
"$SPGO" show g.gcov | grep -q '^format: gcov' || bad "merge --gcc did not write gcov"
usage_err "merge bad --weight" merge "option '--weight' takes W:FILE" --weight=x ok.txt -o m.txt
usage_err "merge bad --target-llvm" merge "option '--target-llvm': '15' is not one of 14, 19" --target-llvm=15 ok.txt -o m.txt
usage_err "merge flag with a value" merge "option '--md5' takes no value" --md5=1 ok.txt -o m.txt
usage_err "merge no output" merge "no output" ok.txt
"$SPGO" merge g.gcov ok.txt -o mix.txt --format text 2> err ||  bad "merge gcov + text"
grep -q "warning: merging a GCC profile (gcov) with an LLVM one" err &&
  echo "ok   merge warns when it mixes GCC and LLVM profiles" || bad "no GCC/LLVM warning: $(cat err)"
"$SPGO" merge empty.txt ok.txt -o e.txt 2> err && bad "merge took a 0-byte file"

# ---- convert, trim, overlap ----
common convert --output
ok "convert --output=F --extbinary" "$SPGO" convert ok.txt --output=c1.ext --extbinary
"$SPGO" convert ok.txt -o c2.ext --format extbinary; same "convert aliases" c1.ext c2.ext
usage_err "convert bad --format" convert "option '--format': unknown profile format 'nope'" --format=nope ok.txt -o c.txt
usage_err "convert two inputs" convert "one input only" ok.txt ok.txt -o c.txt
common trim --percentile
ok "trim -oF --percentile=99" "$SPGO" trim ok.txt -ot1.txt --percentile=99 --text
usage_err "trim bad --percentile" trim "option '--percentile': '200' is not a number" --percentile=200 ok.txt -o t.txt
common overlap --top
ok "overlap --top=1 --sample" "$SPGO" overlap --sample --top=1 ok.txt ok.txt
grep -q "similarity: 100.000%" out || bad "overlap of a profile with itself"
usage_err "overlap one profile" overlap "two profiles needed" ok.txt

# ---- infer ----
printf 'cfg f\nblock a 10\nblock b 10\nedge a b\n' > in.cfg
common infer --algo
ok "infer --algo=mcf --cfg=F -oF" "$SPGO" infer --algo=mcf --cfg=in.cfg -oi1.out
"$SPGO" infer --algo mcf --cfg in.cfg -o i2.out; same "infer --opt=value" i1.out i2.out
usage_err "infer bad --algo" infer "option '--algo': unknown algorithm 'nope'" --algo=nope
usage_err "infer bad --k-inc" infer "option '--k-inc': 'x' is not a number" --k-inc=x
usage_err "infer --dec-floor over 100" infer "option '--dec-floor': '101'" --dec-floor=101

# ---- symbolize (llvm-symbolizer's --obj, --exe) ----
common symbolize --binary
ok "symbolize --binary=F" "$SPGO" symbolize --binary=prog "$addr"; cp out s1
"$SPGO" symbolize --binary prog "$addr" > s2; same "symbolize --binary=F = --binary F" s1 s2
"$SPGO" symbolize --obj=prog "$addr" > s3; same "symbolize --obj" s1 s3
"$SPGO" symbolize --exe prog "$addr" > s4; same "symbolize --exe" s1 s4
"$SPGO" symbolize --binary prog --debug-binary=prog "$addr" > s5; same "symbolize --debug-binary=F" s1 s5
grep -q '^main$' s1 || bad "symbolize: main not found at $addr"
usage_err "symbolize no binary" symbolize "no binary" "$addr"

# ---- script ----
if command -v perf >/dev/null && perf record -q -e cpu-clock -o p.data -- ./prog 2000 >/dev/null 2>&1; then
  common script --input
  ok "script -iFILE -Fip" "$SPGO" script -ip.data -Fip; cp out sc1
  "$SPGO" script --input=p.data --fields=ip > sc2; same "script --input=F --fields=ip = -iF -Fip" sc1 sc2
  "$SPGO" script -i p.data -F ip > sc3; same "script -i F -F ip" sc1 sc3
  usage_err "script bad field" script "option '-F': field 'nope' is not supported" -F nope -i p.data
else
  echo "note: perf cannot record here; script's options not run on data"
  common script --input
fi

# ---- record (perf's own options, passed on) ----
# (record passes options it does not know on to perf: cli_peer_options.sh;
# its help and a missing value as every command's)
usage_err "record missing value" record "option '--output' needs a value" --output
"$SPGO" record --help > h1 2> err && [ -s h1 ] && [ ! -s err ] && "$SPGO" record -h > h3 && cmp -s h1 h3 &&
  "$SPGO" help record > h2 && cmp -s h1 h2 && echo "ok   record --help, -h, spgo help record" || bad "record help"
t0=$(date +%s%N)
PERF=perf "$SPGO" record --dry-run -ox.data -F 999 -- true > out 2> err; rc=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
if command -v perf >/dev/null; then
  [ $rc -eq 0 ] && grep -q -- "-F 999 .*-o x.data -- true" out && echo "ok   record -oFILE -F: $(cat out)" ||
    bad "record dry run: exit $rc, $(cat out) $(cat err)"
  [ "$ms" -lt 1000 ] && echo "ok   record chose its event in $ms ms" || bad "record took $ms ms to choose its event"
  "$SPGO" record --dry-run --output=y.data -c 10007 -e cpu-clock --call-graph=none -a > out 2> err &&
    grep -q -- "-e cpu-clock -c 10007 -o y.data -a" out && ! grep -q -- "--call-graph" out &&
    echo "ok   record --output= -c -e --call-graph= -a: $(cat out)" || bad "record options: $(cat out) $(cat err)"
  "$SPGO" record --dry-run -p $$ > out 2>&1 && grep -q -- "-p $$" out || bad "record -p: $(cat out)"
fi
usage_err "record bad --call-graph" record "option '--call-graph': 'nope' is not one of fp, dwarf, none" --call-graph=nope -- true
usage_err "record no command" record "no command" -o x.data

# ---- emulate (its option errors come before it looks for QEMU) ----
common emulate --output
usage_err "emulate bad --lbr" emulate "option '--lbr': '99' is not a number in \[1, 64\]" --lbr=99 -o e.data -- true
usage_err "emulate bad --event" emulate "option '--event': 'x' is not one of branches, instructions" --event=x -o e.data -- true
usage_err "emulate no output" emulate "no output" -- true

# ---- gen (llvm-profgen's names) ----
usage_err "gen missing value" gen "option '--perfdata' needs a value" --perfdata
usage_err "gen bad mode" gen "'--mode'" --mode=fast
"$SPGO" gen --no-such-option > out 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "'--no-such-option'" err && echo "ok   gen unknown option (cmd_gen.c's message)" ||
  bad "gen unknown option: exit $rc"
"$SPGO" gen --help > h1 && "$SPGO" help gen > h2 && cmp -s h1 h2 && grep -q "usage: spgo gen" h1 ||
  bad "gen --help"
if [ -s p.data ]; then
  "$SPGO" gen --binary prog --perf-data p.data -o g1.txt --format text 2>/dev/null
  ok "gen --binary= --perfdata= --output= --format=" "$SPGO" gen --binary=prog --perfdata=p.data --output=g2.txt --format=text
  same "gen llvm-profgen names" g1.txt g2.txt
  ok "gen --text -og3.txt --pid= --debug-binary=" "$SPGO" gen --binary=prog --debug-binary=prog --perf-data=p.data \
    --pid="$(perf script -i p.data -F pid 2>/dev/null | head -1 | tr -d ' ')" --text -og3.txt
  same "gen --pid of the only process" g1.txt g3.txt
  "$SPGO" script -i p.data -F ip,pid,tid --show-mmap-events > p.script
  "$SPGO" gen --binary prog --perf-script p.script -o g4.txt --format text 2>/dev/null
  ok "gen --perfscript=" "$SPGO" gen --binary prog --perfscript=p.script -o g5.txt --format text
  same "gen --perfscript = --perf-script" g4.txt g5.txt
  ok "gen --target-llvm=14" "$SPGO" gen --binary prog --perfdata p.data -o g6.ext --target-llvm=14
  ok "gen --use-md5 --compress-all-sections" "$SPGO" gen --binary prog --perfdata p.data -o g7.ext \
    --use-md5 --compress-all-sections
  "$SPGO" show g7.ext 2>/dev/null | grep -qi md5 || bad "gen --use-md5 did not write an MD5 profile"
fi
exit $fail
