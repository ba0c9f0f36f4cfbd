#!/usr/bin/env bash
# spgo script against perf script, byte for byte, on perf.data files recorded
# here with cpu-clock (plain, -g, -z, pipe mode) and on the shared real LBR
# capture; and LBR aggregation from perf.data equal to that from its text.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}"
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
if ! perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null; then
  echo "skip: perf cannot record here"; exit 77
fi
fail=0
gcc -O2 -g -fno-omit-frame-pointer -o prog "$SPGO_SRC/tests/data/perf_prog.c"

perf record -q -e cpu-clock -o plain.data ./prog 20000 >/dev/null 2>&1
perf record -q -e cpu-clock -g -o g.data ./prog 20000 >/dev/null 2>&1
perf record -q -e cpu-clock -g -z -o gz.data ./prog 20000 >/dev/null 2>&1
perf record -q -e cpu-clock -o - ./prog 20000 2>/dev/null > pipe.data
perf record -q -e cpu-clock -g -o - ./prog 20000 2>/dev/null > gpipe.data

same() {  # same NAME FILE ARGS...: spgo script == perf script
  local name=$1 f=$2; shift 2
  perf script -i "$f" "$@" > perf.out 2>/dev/null
  "$SPGO" script -i "$f" "$@" > spgo.out
  if [ ! -s perf.out ]; then echo "FAIL $name: perf printed nothing"; fail=1; return; fi
  if cmp -s perf.out spgo.out; then
    echo "ok   $name ($(wc -l < perf.out) lines)"
  else
    echo "FAIL $name"; diff perf.out spgo.out | head -5; fail=1
  fi
}
# two events (samples told apart by id), two processes
perf record -q -e cpu-clock,task-clock -g -o two.data sh -c './prog 10000 & ./prog 10000; wait' >/dev/null 2>&1
# a group read with :S (a sample per member, as perf delivers them)
perf record -q -e '{cpu-clock,task-clock}:S' -g -o grp.data ./prog 20000 >/dev/null 2>&1
# two events with different sample_types (perf adds IDENTIFIER)
perf record -q -e cpu-clock/call-graph=fp/ -e task-clock/call-graph=no/ -o mixed.data ./prog 10000 >/dev/null 2>&1
files="plain.data g.data gz.data pipe.data two.data grp.data mixed.data"
# system-wide on all CPUs: time ordering across CPU buffers, processes that
# started before perf (synthesized mmaps), odd stacks of other programs
if perf record -q -a -g -e cpu-clock -o all.data -- sleep 0.3 >/dev/null 2>&1; then
  files="$files all.data"
else
  echo "note: perf record -a not allowed here; system-wide data not checked"
fi
for f in $files; do
  same "$f -F ip" "$f" -F ip
  same "$f -F pid,ip --show-mmap-events" "$f" -F pid,ip --show-mmap-events
done
# IP samples are kept per event: two events, two sets of counts, and their
# sum per address equals the samples perf attributes to the program
"$SPGO" script -i two.data --aggregate prog > two.agg 2>/dev/null
ev=$(grep -c '^# event [01]: [a-z-]*, [1-9][0-9]* samples' two.agg || true)
n0=$(grep -c '^ip 0 ' two.agg || true); n1=$(grep -c '^ip 1 ' two.agg || true)
tot=$(awk '/^ip / { s += $4 } END { print s + 0 }' two.agg)
inprog=$(perf script -i two.data -F ip,dso -G 2>/dev/null | grep -c "/prog)$" || true)
if [ "$ev" -eq 2 ] && [ "$n0" -gt 0 ] && [ "$n1" -gt 0 ] && [ "$tot" -eq "$inprog" ]; then
  echo "ok   two events aggregated apart ($n0 and $n1 addresses, $tot samples = perf's $inprog in prog)"
else
  echo "FAIL per-event ip counts: events $ev, addresses $n0/$n1, samples $tot vs perf $inprog"; fail=1
fi
# MMAP2 in the build-id form (perf record --buildid-mmap)
if perf record -q -e cpu-clock --buildid-mmap -o bid.data ./prog 20000 >/dev/null 2>&1; then
  same "bid.data -F ip --show-mmap-events" bid.data -F ip --show-mmap-events
  # the binary is found by build-id whatever its name; a build with another
  # build-id is not taken even under the same name
  cp prog renamed
  if "$SPGO" script -i bid.data --aggregate renamed 2>&1 >/dev/null | grep -q "by build-id"; then
    echo "ok   matched by build-id under another name"
  else
    echo "FAIL build-id match"; fail=1
  fi
  mkdir -p other && gcc -O1 -g -o other/prog "$SPGO_SRC/tests/data/perf_prog.c"
  if "$SPGO" script -i bid.data --aggregate other/prog >/dev/null 2>&1; then
    echo "FAIL another build-id under the same name was taken"; fail=1
  else
    echo "ok   same name, other build-id: refused"
  fi
else
  echo "note: perf record --buildid-mmap not supported; build-id form not checked"
fi
# Known difference: on pipe-mode data with call stacks, perf script 6.1 adds
# the symbol to each stack line even for -F ip (spgo does not symbolize);
# compare the addresses, read from a real pipe.
perf script -i gpipe.data -F ip 2>/dev/null | sed -E 's/^(\t *[0-9a-f]+) .*/\1/' > perf.out
"$SPGO" script -i - -F ip < gpipe.data > spgo.out
if [ "$(grep -c . perf.out)" -gt 100 ] && cmp -s perf.out spgo.out; then
  echo "ok   pipe mode with call stacks from stdin ($(wc -l < perf.out) lines, addresses)"
else
  echo "FAIL pipe mode with call stacks"; diff perf.out spgo.out | head -5; fail=1
fi

# A truncated file: every complete record, one warning, exit 0.
head -c 3000 g.data > cut.data
if "$SPGO" script -i cut.data -F ip > cut.out 2> cut.err && grep -q "warning: .*offset 0x" cut.err; then
  echo "ok   truncated: $(head -1 cut.err)"
else
  echo "FAIL truncated file"; cat cut.err; fail=1
fi
# Garbage: an error naming the offset, non-zero exit.
printf 'PERFILE2\x68\0\0\0\0\0\0\0' > bad.data; head -c 200 /dev/urandom >> bad.data
if "$SPGO" script -i bad.data > /dev/null 2> bad.err; then
  echo "FAIL garbage accepted"; fail=1
else
  grep -q "bad.data: .*offset" bad.err && echo "ok   garbage: $(cat bad.err)" || { echo "FAIL garbage message: $(cat bad.err)"; fail=1; }
fi

lbr="${SPGO_SHARED:-}/data/autofdo-gzip/test.lbr"
if [ -f "$lbr" ]; then
  same "test.lbr -F ip,brstack" "$lbr" -F ip,brstack
  same "test.lbr -F ip,brstack --show-mmap-events" "$lbr" -F ip,brstack --show-mmap-events
  same "test.lbr -F pid,tid,ip,brstack" "$lbr" -F pid,tid,ip,brstack
  # Aggregation: from perf.data and from its perf script text, the same
  # ranges and branches.
  cp "$SPGO_SHARED/data/autofdo-gzip/test.binary" test.binary
  perf script -i "$lbr" -F ip,brstack > lbr.txt 2>/dev/null
  "$SPGO" script -i "$lbr" --aggregate test.binary > agg.data.txt
  "$SPGO" script --text -i lbr.txt --aggregate test.binary > agg.text.txt
  grep -E '^(range|branch) ' agg.data.txt > a; grep -E '^(range|branch) ' agg.text.txt > b
  nr=$(grep -c '^range ' a || true); nb=$(grep -c '^branch ' a || true)
  if [ "$nr" -gt 100 ] && [ "$nb" -gt 100 ] && cmp -s a b; then
    echo "ok   test.lbr aggregation: $nr ranges, $nb branches equal from perf.data and text"
  else
    echo "FAIL test.lbr aggregation ($nr ranges, $nb branches)"; diff a b | head; fail=1
  fi
  # Against the peer: llvm-profgen's raw counts (--skip-symbolization) of
  # the same text.  Every range and branch it counts, spgo counts the same.
  # Known differences: llvm-profgen drops ranges and branches in the PLT
  # (spgo keeps them: every address of the binary counts), and writes
  # branches from or to other code with its own marker (spgo: "ext"; such
  # branches are left out of the comparison).
  if command -v llvm-profgen-19 >/dev/null; then
    llvm-profgen-19 --binary=test.binary --perfscript=lbr.txt --skip-symbolization \
      --output=raw.txt 2>/dev/null
    read -r plt_lo plt_hi < <(readelf -SW test.binary | sed -n 's/^ *\[ *[0-9]*\] *//p' |
      awk '$1 == ".plt" { print $3, $5 }')
    awk -v plt_lo="$plt_lo" -v plt_hi="$plt_hi" '
      function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
        for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
        return v }
      FNR == 1 && FILENAME ~ /raw.txt$/ { part = 1; left = $1; next }
      FILENAME ~ /raw.txt$/ {
        if (left == 0) { part = 2; left = $1; next }
        left--; split($0, kc, ":")
        if (part == 1) { split(kc[1], be, "-"); lp["r " hex(be[1]) " " hex(be[2])] = kc[2] }
        else { split(kc[1], be, "->"); if (be[1] !~ /^ffffffff/ && be[2] !~ /^ffffffff/) lp["b " hex(be[1]) " " hex(be[2])] = kc[2] }
        next }
      $1 == "range" || ($1 == "branch" && $2 != "ext" && $3 != "ext") {
        k = substr($1, 1, 1) " " (hex($2) - 4194304) " " (hex($3) - 4194304); mine[k] = $4 }
      END {
        lo = hex(plt_lo) - 4194304; hi = lo + hex(plt_hi)
        for (k in lp) { n++; if (mine[k] != lp[k]) { bad++; if (bad < 4) print "differs:", k, lp[k], mine[k] } }
        for (k in mine) if (!(k in lp)) { split(k, f, " "); if (f[2] >= lo && f[2] < hi || f[3] >= lo && f[3] < hi) plt++; else { extra++; if (extra < 4) print "only spgo:", k } }
        printf "     llvm-profgen: %d ranges+branches, %d differ; spgo has %d more, %d of them in the PLT\n", n, bad, plt + extra, plt
        exit (n < 300 || bad > 0 || extra > 0) }' raw.txt agg.data.txt &&
      echo "ok   test.lbr aggregation equals llvm-profgen's raw range and branch counts" ||
      { echo "FAIL test.lbr aggregation vs llvm-profgen"; fail=1; }
  fi
  # The text with a leading pid and mmap events reads the same.
  perf script -i "$lbr" -F pid,ip,brstack --show-mmap-events > lbr2.txt 2>/dev/null
  "$SPGO" script --text -i lbr2.txt --aggregate test.binary | grep -E '^(range|branch) ' > c
  cmp -s a c && echo "ok   test.lbr aggregation from text with pid and mmap events" ||
    { echo "FAIL text with pid and mmap events"; diff a c | head -3; fail=1; }
  # Range and branch totals add up to what the LBR holds (16 entries/sample).
  read -r samples br rg rev ext < <(awk '/^stats/ {print $3, $13, $15, $17, $19}' agg.data.txt)
  echo "     stats: samples $samples branches $br ranges $rg reversed $rev external $ext"
  # Another name and no build-id: no match, and a listing of what is there.
  cp test.binary other.bin
  if "$SPGO" script -i "$lbr" --aggregate other.bin > /dev/null 2> nomatch.err; then
    echo "FAIL wrong binary accepted"; fail=1
  else
    grep -q "test.binary (build-id none): [0-9]* samples" nomatch.err &&
      echo "ok   wrong binary: error lists the files in the data" ||
      { echo "FAIL wrong binary message: $(cat nomatch.err)"; fail=1; }
  fi
else
  echo "note: no shared data; the test.lbr checks did not run"
fi
exit $fail
