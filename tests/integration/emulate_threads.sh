#!/usr/bin/env bash
# spgo emulate on a multi-threaded program: each thread has its own branch
# stack and call stack (no sample mixes the two threads' loops), FORK and
# COMM records name the threads, and the ground truth counts every
# thread's instructions exactly.
source "$SPGO_SRC/tests/data/emulate/common.sh"
command -v perf >/dev/null || { echo "skip: perf not installed"; exit 77; }
gcc -O2 -g -fno-omit-frame-pointer -no-pie -pthread -o threads "$data/threads.c"
N=1500
"$SPGO" emulate -c 997 -o p.data --ground-truth gt.txt -- ./threads $N > out.txt
[ "$(./threads 3)" = "$("$SPGO" emulate -o q.data -- ./threads 3)" ] || fail "output differs under emulation"

perf script -i p.data --show-task-events -F tid > tasks.txt 2> err.txt
[ ! -s err.txt ] || { cat err.txt; fail "perf script complained"; }
[ "$(grep -c 'PERF_RECORD_FORK' tasks.txt)" -eq 2 ] || fail "expected 2 FORK records"

# Address ranges of work_a and work_b.
nm -S --defined-only threads | awk '$4 == "work_a" || $4 == "work_b" { print $4, $1, $2 }' > syms.txt
perf script -i p.data -F tid,ip,sym,brstack -G 2>/dev/null > s.txt
awk 'function hex(s,   i, v) { sub(/^0x/, "", s); v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
  FNR == 1 { file++ }
  file == 1 { lo[$1] = hex($2); hi[$1] = lo[$1] + hex($3); next }
  {
    tid = $1; fa = fb = 0
    for (f = 2; f <= NF; f++) if ($f ~ /^0x[0-9a-f]+\//) {
      split($f, p, "/")
      for (q = 1; q <= 2; q++) { a = hex(p[q])
        if (a >= lo["work_a"] && a < hi["work_a"]) fa = 1
        if (a >= lo["work_b"] && a < hi["work_b"]) fb = 1 }
    }
    if (fa && fb) { mixed++ }
    if (fa) ta[tid] = 1
    if (fb) tb[tid] = 1
    if ($3 == "work_a") sa++
    if ($3 == "work_b") sb++
  }
  END {
    for (t in ta) { na++; if (t in tb) shared++ }
    for (t in tb) nb++
    printf "samples in work_a %d, work_b %d; threads with a %d, b %d, both %d; mixed stacks %d\n", sa, sb, na, nb, shared, mixed
    exit !(sa > 200 && sb > 200 && na == 1 && nb == 1 && shared == 0 && mixed == 0)
  }' syms.txt s.txt || fail "branch stacks mix threads"

perf script -i p.data -F tid,ip,sym 2>/dev/null | awk 'BEGIN { RS = "" }
  $3 == "work_a" { ok = $5 == "run_a" && $7 == "start_thread"; n++; if (!ok) bad++ }
  $3 == "work_b" { ok = $5 == "run_b" && $7 == "start_thread"; n++; if (!ok) bad++ }
  END { printf "thread stacks: %d checked, %d bad\n", n, bad; exit !(n > 400 && bad == 0) }' ||
  fail "thread stacks are not work_X run_X start_thread"

# Exact counts across threads: the hottest instruction of each loop ran
# N * 300 times.
for f in work_a work_b; do
  read -r lo size < <(awk -v f=$f '$1 == f { print $2, $3 }' syms.txt)
  max=$(awk -v lo=$((0x$lo)) -v hi=$((0x$lo + 0x$size)) '
    function hex(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
    $1 == "dso" { d++ } d == 1 && $1 == "i" { a = hex($2); if (a >= lo && a < hi && $4 > m) m = $4 } END { print m + 0 }' gt.txt)
  [ "$max" -eq $((N * 300)) ] || fail "$f: hottest instruction ran $max times, expected $((N * 300))"
done
echo "emulate_threads: ok"
