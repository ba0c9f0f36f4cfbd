#!/usr/bin/env bash
# A killed spgo leaves no temporary file (#16).  Outputs are written to
# PATH.tmp.XXXXXX and renamed into place when complete; SIGINT, SIGTERM,
# SIGHUP and SIGQUIT remove the temporaries first.  Each long-running
# subcommand that writes a file is started on input that never ends (a
# FIFO kept open), so it blocks with its output open, and is killed.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}"
need perf
# Started with SIGINT ignored (a script's background job; ctest resets
# it), this shell cannot undo it and spgo rightly keeps ignoring it: the
# SIGINT checks cannot run.
if [ $((0x$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null || echo 0) & 2)) -ne 0 ]; then
  echo "skip: started with SIGINT ignored"; exit 77
fi
scratch
# Job control: background commands of a script otherwise start with SIGINT
# ignored, and an ignored signal stays ignored (spgo does not override it).
set -m
perf record -q -e cpu-clock -o good.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }
# A perf.data header, then nothing more: the reader waits on the FIFO.
perf record -q -e cpu-clock -o - -- true 2>/dev/null > pipe.data

# kill_run NAME SIGNAL ARGS...: run spgo ARGS with stdin/the FIFO feeding a
# partial input, kill it after its output exists, check what is left.
kill_run() {
  local name=$1 sig=$2; shift 2
  rm -rf "d.$name" && mkdir "d.$name" && mkfifo "d.$name/in"
  # Feed the FIFO a partial pipe-format perf.data and keep it open (exec:
  # the sleep is the feeder itself, so killing it leaves no process holding
  # the test's output open, which ctest would wait for).
  { cat pipe.data; exec sleep 120; } > "d.$name/in" &
  local feeder=$!
  "$SPGO" "$@" 2>"d.$name/err" &
  local pid=$!
  # (at most 30 s: the start of spgo under ASan on a loaded machine)
  for _ in $(seq 300); do
    ls "d.$name"/out* >/dev/null 2>&1 && break
    sleep 0.1
  done
  ls "d.$name"/out.tmp.* >/dev/null 2>&1 || { bad "$name: no temporary output appeared"; }
  kill -"$sig" "$pid"
  wait "$pid" 2>/dev/null
  local rc=$?
  kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null
  if ls "d.$name"/out* >/dev/null 2>&1; then
    bad "$name: SIG$sig left $(ls "d.$name"/out*)"
  else
    echo "$name: SIG$sig (exit $rc), nothing left behind"
  fi
}
kill_run script-text TERM script -i d.script-text/in -o d.script-text/out
kill_run script-int INT script -i d.script-int/in -o d.script-int/out
kill_run script-hup HUP script -i d.script-hup/in -o d.script-hup/out
exit $fail
