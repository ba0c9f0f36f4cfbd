#!/usr/bin/env bash
# spgo emulate output as the real tools read it:
#  1. perf script (-F ip,brstack, and with callchains) and perf report read
#     the emulated perf.data without a warning, in rounds (FINISHED_ROUND)
#     and in time order; perf report attributes the samples to the
#     functions the ground truth says run the instructions.
#  4. every sample's call stack is the frame-pointer view of the program's
#     known call chains: the tail call in tail() drops its frame (rec is
#     seen called from outer), rec recurses, rec(0) tail-calls leaf.
#  5. llvm-profgen-19 and create_llvm_prof turn the capture of this
#     -fno-omit-frame-pointer build into non-empty profiles.
source "$SPGO_SRC/tests/data/emulate/common.sh"
command -v perf >/dev/null || { echo "skip: perf not installed"; exit 77; }

"$SPGO" emulate -e instructions -c 997 -o p.data --ground-truth gt.txt -- ./prog 3000 > /dev/null

# --- 1. perf reads it without complaint -------------------------------------
perf script -i p.data -F ip,brstack > s1.txt 2> e1.txt
perf script -i p.data > s2.txt 2> e2.txt
perf report -i p.data --stdio --no-children --sort dso,sym > r.txt 2> e3.txt
for e in e1 e2 e3; do [ ! -s $e.txt ] || { cat $e.txt; fail "perf wrote to stderr ($e)"; }; done
nsamples=$(perf report -i p.data --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
[ "${nsamples:-0}" -gt 500 ] || fail "only ${nsamples:-0} samples"
# perf record ends each pass over its buffers with FINISHED_ROUND, so that a
# reader sorts one round at a time; spgo emulate ends one per MiB of trace,
# and no record comes after the rounds it belongs to (perf keeps time order).
rounds=$(perf report -i p.data --stats 2>/dev/null | awk '/FINISHED_ROUND events:/ { print $3; exit }')
[ "${rounds:-0}" -gt 0 ] && [ "${rounds:-0}" -ge $(($(stat -c %s p.data) / 2097152)) ] ||
  fail "only ${rounds:-0} FINISHED_ROUND records in $(stat -c %s p.data) bytes"
perf script -i p.data -F time 2>/dev/null | awk '{ t = $1 + 0; if (t < last) bad++; last = t } END { exit bad > 0 }' ||
  fail "perf script's samples are out of time order"
perf script -i p.data --show-mmap-events > mmaps.txt 2>/dev/null
grep -q 'PERF_RECORD_MMAP2.*prog' mmaps.txt || fail "no MMAP2 record for prog"
perf buildid-list -i p.data > bids.txt 2>/dev/null
grep -q "$(readelf -n prog | awk '/Build ID/ { print $3 }') .*prog" bids.txt ||
  fail "build-id of prog missing"
perf script -i p.data -F brstack | awk '{ n = 0; for (f = 1; f <= NF; f++) if ($f ~ /^0x/) n++
  if (n == 32) full++ } END { exit full < 100 }' || fail "samples lack 32-entry branch stacks"

# Shares of the main program's samples per function vs its true share of
# instructions (ground truth + symbol table); within 3 points.
nm -S --defined-only prog | awk '$3 ~ /^[tT]$/ && NF == 4 { print $1, $2, $4 }' > syms.txt
awk 'function hex(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
  FNR == 1 { file++ }
  file == 1 { n++; lo[n] = hex($1); hi[n] = lo[n] + hex($2); name[n] = $3; next }
  file == 2 && $1 == "dso" { d++; next }
  file == 2 && d == 1 && $1 == "i" { a = hex($2); for (k = 1; k <= n; k++) if (a >= lo[k] && a < hi[k]) { c[name[k]] += $4; tot += $4 } }
  END { for (f in c) printf "%s %.2f\n", f, 100 * c[f] / tot }' syms.txt gt.txt | sort > truth_share.txt
awk '$2 == "prog" && $3 == "[.]" { sub(/%/, "", $1); p[$4] = $1; tot += $1 }
  END { for (f in p) printf "%s %.2f\n", f, 100 * p[f] / tot }' r.txt | sort > report_share.txt
join -a1 -e 0 -o 0,1.2,2.2 truth_share.txt report_share.txt > shares.txt
cat shares.txt
awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 3) { print "off: " $0; bad++ } } END { exit bad > 0 }' shares.txt ||
  fail "perf report shares differ from the true instruction shares"
for f in loops leaf rec; do grep -q "^$f [1-9]" shares.txt || fail "$f has no samples"; done

# A PIE (loaded by QEMU at its own base): symbols resolve through the MMAP2
# record, and the ground truth is in the file's own addresses.
gcc -O2 -g -fno-omit-frame-pointer -pie -fPIE -o pie "$data/prog.c"
"$SPGO" emulate -e instructions -c 997 -o pie.data --ground-truth pie.gt -- ./pie 1000 > /dev/null
perf report -i pie.data --stdio --no-children --sort dso,sym > pie.txt 2> e5.txt
[ ! -s e5.txt ] || { cat e5.txt; fail "perf report complained about the PIE capture"; }
grep -Eq '^ +[4-9][0-9]\.[0-9]+% +pie +\[\.\] loops$' pie.txt || { head pie.txt; fail "PIE: loops not resolved"; }
loops_lo=$(nm pie | awk '$3 == "loops" { print $1 }')
awk -v a="$(printf '%x' $((0x$loops_lo)))" '$1 == "i" && $2 == a { found = 1 } END { exit !found }' pie.gt ||
  fail "PIE ground truth is not in the file's addresses (no instruction at loops = $loops_lo)"

# --- 4. stacks: the frame-pointer view ----------------------------------------
# One line per sample: the symbols of its callchain, innermost first, cut at main.
perf script -i p.data -F ip,sym 2>/dev/null | awk 'BEGIN { RS = "" }
  { s = ""; for (i = 2; i <= NF; i += 2) { s = s (s ? " " : "") $i; if ($i == "main") break } print s }' > stacks.txt
awk '
  $1 == "leaf"  { ok = $0 == "leaf rec rec rec outer main" }
  $1 == "rec"   { ok = $0 ~ /^rec (rec )?(rec )?(rec )?outer main$/ }
  $1 == "tail"  { ok = $0 == "tail outer main" }
  $1 == "outer" { ok = $0 == "outer main" }
  $1 == "loops" { ok = $0 == "loops main" }
  $1 == "main"  { ok = $0 == "main" }
  $1 ~ /^(leaf|rec|tail|outer|loops|main)$/ { checked++; if (!ok) { bad++; if (bad < 5) print "bad stack: " $0 } }
  $1 == "leaf" { leaf++ } / rec rec rec / { deep++ }
  END { printf "stacks: %d checked, %d bad, %d in leaf, %d 3-deep recursion\n", checked, bad, leaf, deep
        exit !(checked > 500 && bad == 0 && leaf > 20 && deep > 20) }' stacks.txt || fail "stacks differ from the frame-pointer view"
# Below main: the libc frames a frame-pointer unwinder shows.
perf script -i p.data -F ip,sym > chains.txt 2>/dev/null
grep -q '__libc_start_call_main' chains.txt || fail "no libc frames below main"

# Truncated stacks and skid: the options take effect.
"$SPGO" emulate -e instructions -c 997 --max-stack 3 --skid 4 -o t.data -- ./prog 300 > /dev/null
perf script -i t.data -F ip 2> e4.txt | awk 'BEGIN { RS = "" } NF > 3 { bad++ } END { exit bad > 0 }' ||
  fail "--max-stack 3 left longer stacks"
[ ! -s e4.txt ] || { cat e4.txt; fail "perf complained about the skid/truncated capture"; }

# --truncate: about that share of the stacks is cut short of _start.
"$SPGO" emulate -e instructions -c 997 --truncate 50 -o c.data -- ./prog 1000 > /dev/null
perf script -i c.data -F ip,sym 2>/dev/null | awk 'BEGIN { RS = "" } $2 == "leaf" || $2 == "loops" {
    n++; if ($0 !~ / _start/) cut++ }
  END { printf "truncate 50: %d of %d stacks cut\n", cut, n; exit !(n > 100 && cut > 0.35 * n && cut < 0.65 * n) }' ||
  fail "--truncate 50 did not cut about half of the stacks"

# --- 5. llvm-profgen and create_llvm_prof --------------------------------------
"$SPGO" emulate -c 997 -o lbr.data -- ./prog 3000 > /dev/null
if command -v llvm-profgen-19 >/dev/null; then
  perf script -i lbr.data -F ip,brstack -G > lbr.script 2>/dev/null
  llvm-profgen-19 --perfscript=lbr.script --binary=prog --format=text --output=prof.llvm 2> pg.err ||
    { cat pg.err; fail "llvm-profgen failed"; }
  grep -q '^loops:[0-9]' prof.llvm || { head prof.llvm; fail "llvm-profgen profile lacks loops"; }
  echo "llvm-profgen: $(grep -c '^[^ ]' prof.llvm) functions"
fi
if command -v create_llvm_prof >/dev/null; then
  # autofdo 0.19 reads DWARF 4 only ("mangled .debug_info" on gcc 12's DWARF 5).
  gcc -O2 -gdwarf-4 -fno-omit-frame-pointer -no-pie -o prog "$data/prog.c"
  "$SPGO" emulate -c 997 -o lbr.data -- ./prog 3000 > /dev/null
  create_llvm_prof --binary=prog --profile=lbr.data --out=prof.afdo --format=text 2> cp.err ||
    { tail cp.err; fail "create_llvm_prof failed"; }
  grep -q '^loops:[0-9]' prof.afdo || { head prof.afdo; tail cp.err; fail "create_llvm_prof profile lacks loops"; }
  echo "create_llvm_prof: $(grep -c '^[^ ]' prof.afdo) functions"
fi
echo "emulate_perf: ok"
