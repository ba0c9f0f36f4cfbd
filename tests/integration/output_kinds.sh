#!/usr/bin/env bash
# `-o` never destroys what it names (#25), for every command that writes a
# file.  Each output is made in the test's own directory (never the
# machine's /dev) and must still be what it was after the run:
#  - a character device (mknod c 1 3, a copy of /dev/null): still a device;
#  - a FIFO with a reader: the reader gets the bytes of a normal run;
#  - a symbolic link to a file: still a link, its target holds the output;
#  - a file of mode 0600: the output, still 0600;
# and an output in a missing directory fails before the work: the error
# names the output although the input is missing too, and no temporary
# file is left.  Needs root (mknod); the emulator or perf for perf.data.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc timeout
scratch
mknod probe-node c 1 3 2>/dev/null && [ -c probe-node ] || { echo "skip: mknod needs root"; exit 77; }
rm -f probe-node

# ---- inputs ----
gcc -O1 -g -o prog "$SPGO_SRC/tests/data/perf_prog.c"
printf 'main:1500:10\n 1: 500\n 2: 1000 foo:900\n 3: foo:400\n  1: 400\nfoo:100:5\n 1: 100\n' > ok.txt
printf 'cfg f\nblock a 10\nblock b 10\nedge a b\n' > in.cfg
emu=0
if command -v qemu-x86_64 >/dev/null && [ -r "${SPGO_BUILD:-/nonexistent}/emulate/spgo-emulate.so" ] &&
   "$SPGO" emulate -o p.data -- ./prog 200 >/dev/null 2>&1; then
  emu=1
elif ! { command -v perf >/dev/null && perf record -q -e cpu-clock -o p.data -- ./prog 2000 >/dev/null 2>&1; }; then
  echo "note: neither the emulator nor perf can make a perf.data: gen, aggregate, script not run"
fi

# What a check compares: the bytes, or for a perf.data (its times and pids
# differ run to run) the sampled ips as spgo script prints them.
view() {
  case $1 in
  perfdata) "$SPGO" script -i "$2" -F ip 2>/dev/null | sort | md5sum ;;
  *) md5sum < "$2" ;;
  esac
}

# reap PID: the FIFO's reader, once its writer has ended, gets 10 s to
# drain the FIFO and exit (a FIFO never opened for writing, replaced by
# the run, leaves it waiting: killed then).  The reader has no timeout of
# its own: "timeout 5 cat" ended it during correct runs slowed by a loaded
# machine (spgo record -o FIFO of a 6 ms program: 4.7-5.4 s there).
reap() {
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}
# kinds NAME VIEW ARGS...: run `spgo ARGS` with each kind of output in place
# of the word OUT, and a normal run for reference
kinds() {
  local name=$1 how=$2; shift 2
  local d="d.$name" a out rc
  rm -rf "$d" && mkdir "$d"
  run() { # run TARGET: spgo ARGS with OUT replaced
    local args=()
    for a in "$@"; do [ "$a" = OUT ] && args+=("$target") || args+=("$a"); done
    timeout 60 "$SPGO" "${args[@]}" > "$d/stdout" 2> "$d/err"
  }
  target=$d/ref; run "$@" || { bad "$name: normal run: $(head -3 "$d/err")"; return; }
  local want; want=$(view "$how" "$d/ref")
  # a character device
  mknod "$d/null" c 1 3
  target=$d/null; run "$@"; rc=$?
  [ $rc -eq 0 ] || bad "$name: -o device: exit $rc: $(head -2 "$d/err")"
  [ -c "$d/null" ] && echo "ok   $name: device still $(stat -c %F "$d/null")" ||
    bad "$name: -o device made it a $(stat -c %F "$d/null")"
  # a FIFO and its reader
  mkfifo "$d/fifo"
  # (a reader whose FIFO is replaced, never opened, waits: ended by reap)
  cat "$d/fifo" > "$d/got" & local reader=$!
  target=$d/fifo; run "$@"; rc=$?
  reap $reader
  [ $rc -eq 0 ] || bad "$name: -o FIFO: exit $rc: $(head -2 "$d/err")"
  if [ -p "$d/fifo" ] && [ "$(view "$how" "$d/got")" = "$want" ] && [ -s "$d/got" ]; then
    echo "ok   $name: FIFO still a FIFO, its reader got the output ($(wc -c < "$d/got") bytes)"
  else
    bad "$name: -o FIFO: now a $(stat -c %F "$d/fifo"), the reader got $(wc -c < "$d/got") bytes"
  fi
  # a symbolic link
  echo old > "$d/target" && ln -s target "$d/link"
  target=$d/link; run "$@"; rc=$?
  [ $rc -eq 0 ] || bad "$name: -o symlink: exit $rc: $(head -2 "$d/err")"
  if [ -L "$d/link" ] && [ "$(view "$how" "$d/target")" = "$want" ]; then
    echo "ok   $name: symlink still a link, its target updated"
  else
    bad "$name: -o symlink: link now a $(stat -c %F "$d/link"), target $(head -c 20 "$d/target" | tr -cd '[:print:]')"
  fi
  # a 0600 file
  echo old > "$d/private" && chmod 600 "$d/private"
  target=$d/private; run "$@"; rc=$?
  [ $rc -eq 0 ] || bad "$name: -o 0600 file: exit $rc: $(head -2 "$d/err")"
  if [ "$(stat -c %a "$d/private")" = 600 ] && [ "$(view "$how" "$d/private")" = "$want" ]; then
    echo "ok   $name: 0600 file still 0600, output written"
  else
    bad "$name: -o 0600 file: mode now $(stat -c %a "$d/private")"
  fi
  ls "$d" | grep -q '\.tmp\.' && bad "$name: temporary files left: $(ls "$d" | grep '\.tmp\.')"
}

# early NAME ARGS...: with the input missing (IN) and the output in a
# missing directory (OUT), the error is about the output: it was opened
# before any input was read
early() {
  local name=$1; shift
  local args=() a
  for a in "$@"; do
    case $a in IN) args+=(no-such-input) ;; OUT) args+=(no-such-dir/out) ;; *) args+=("$a") ;; esac
  done
  timeout 60 "$SPGO" "${args[@]}" > /dev/null 2> err; local rc=$?
  if [ $rc -eq 1 ] && grep -q 'no-such-dir/out' err && ! grep -q no-such-input err; then
    echo "ok   $name: fails on its output first: $(head -1 err)"
  else
    bad "$name: exit $rc, not the output's error first: $(head -2 err)"
  fi
}

kinds merge bytes merge --text ok.txt -o OUT
kinds convert bytes convert ok.txt -o OUT --text
kinds trim bytes trim ok.txt -o OUT --text
kinds infer bytes infer --cfg in.cfg -o OUT
early merge merge --text IN -o OUT
early convert convert IN -o OUT --text
early trim trim IN -o OUT --text
early infer infer --cfg IN -o OUT
early gen gen --binary prog --perf-data IN -o OUT
early aggregate aggregate --binary prog -o OUT IN
early script script -i IN -o OUT
early "script --rewrite" script -i IN --rewrite OUT
if [ -s p.data ]; then
  kinds gen bytes gen --binary prog --perf-data p.data -o OUT --format text
  kinds aggregate bytes aggregate --binary prog -o OUT p.data
  kinds script bytes script -i p.data -o OUT
  kinds "script --rewrite" perfdata script -i p.data --rewrite OUT
fi
if [ $emu = 1 ]; then
  kinds emulate perfdata emulate -o OUT -- ./prog 200
  kinds "emulate --ground-truth" bytes emulate -o e.data --ground-truth OUT -- ./prog 200
  early emulate emulate -o OUT -- ./no-such-input
fi
# record: perf writes the output; a device or FIFO gets its pipe mode
if command -v perf >/dev/null && perf record -q -e cpu-clock -o pr.data -- true >/dev/null 2>&1; then
  d=d.record && mkdir $d && mknod $d/null c 1 3 && mkfifo $d/fifo && echo old > $d/target &&
    ln -s target $d/link && echo old > $d/private && chmod 600 $d/private
  rec() { PERF=perf timeout 60 "$SPGO" record -e cpu-clock -o "$1" -- ./prog 3000 > /dev/null 2> $d/err; }
  # readable FILE: a perf.data spgo reads
  readable() { [ -s "$1" ] && "$SPGO" script -i "$1" -F ip > /dev/null 2>&1; }
  rec $d/null || bad "record: -o device: $(head -2 $d/err)"
  [ -c $d/null ] && echo "ok   record: device still a device" || bad "record: -o device made it a $(stat -c %F $d/null)"
  cat $d/fifo > $d/got & reader=$!
  rec $d/fifo || bad "record: -o FIFO: $(head -2 $d/err)"
  reap $reader
  [ -p $d/fifo ] && readable $d/got && echo "ok   record: FIFO still a FIFO, its reader got a perf.data" ||
    bad "record: -o FIFO: now a $(stat -c %F $d/fifo), the reader got $(wc -c < $d/got) bytes: $("$SPGO" script -i $d/got -F ip 2>&1 | tail -1)"
  rec $d/link || bad "record: -o symlink: $(head -2 $d/err)"
  [ -L $d/link ] && readable $d/target && echo "ok   record: symlink still a link, its target recorded" ||
    bad "record: -o symlink: now a $(stat -c %F $d/link)"
  rec $d/private || bad "record: -o 0600 file: $(head -2 $d/err)"
  [ "$(stat -c %a $d/private)" = 600 ] && readable $d/private && echo "ok   record: 0600 file still 0600" ||
    bad "record: -o 0600 file: mode now $(stat -c %a $d/private)"
fi
# a write error on a device written in place is an error, with nothing to remove
mknod full c 1 7
"$SPGO" convert ok.txt -o full --text 2> err; rc=$?
[ $rc -eq 1 ] && [ -c full ] && grep -q "full: write failed: No space left on device" err &&
  echo "ok   -o a copy of /dev/full: $(cat err)" || bad "-o a copy of /dev/full: exit $rc: $(cat err)"
exit $fail
