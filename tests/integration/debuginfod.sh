#!/usr/bin/env bash
# A stripped binary with no local debug file gets its DWARF by build-id
# from a debuginfod server (DEBUGINFOD_URLS), after the local lookups, as
# gdb and perf do (src/binary/debug_file.c): Debian's debuginfod serves a
# directory holding the program's debug file (objcopy --only-keep-debug)
# on 127.0.0.1, and
#   - spgo gen on the stripped binary writes byte for byte the profile of
#     the unstripped one, a note naming the file and the server (none with
#     --quiet); spgo symbolize --functions the same as on the unstripped;
#   - a build-id the server does not have: the error says "not found";
#   - a downloaded file is checked as a local one: with no .debug_info it
#     is refused, the error naming it and the server;
#   - the server stopped: with an empty cache the error lists where spgo
#     looked, the URL and "Connection refused" included, and no profile is
#     written; with the cache of the first run the file comes from there;
#   - without DEBUGINFOD_URLS no server is asked.
# The client's cache is the test's own (DEBUGINFOD_CACHE_PATH); all traffic
# goes to 127.0.0.1; every wait is bounded; the server is stopped on exit.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need gcc objcopy strip readelf debuginfod timeout
scratch
# The client is loaded when a server is asked, not linked: libcurl and its
# TLS stack stay out of every command that asks none.
if command -v ldd >/dev/null && ldd "$SPGO" | grep -q 'libdebuginfod\|libcurl'; then
  bad "spgo is linked with libdebuginfod/libcurl: $(ldd "$SPGO" | grep -c '=>') shared libraries at every start"
fi
export SPGO_DEBUG_ROOT="$tmp/root" # (no local debug file: never /usr/lib/debug)
mkdir -p root served
export DEBUGINFOD_TIMEOUT=10 DEBUGINFOD_CACHE_PATH="$tmp/cache"
unset DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE

server=""
stop_server() {
  [ -n "$server" ] || return 0
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  server=""
}
trap 'stop_server; rm -rf "$tmp"' EXIT
trap 'exit 143' INT TERM HUP # (the EXIT trap stops the server then)

gcc -O2 -g -o prog "$SPGO_SRC/tests/data/perf_prog.c" || { bad "gcc"; exit 1; }
objcopy --only-keep-debug prog served/prog.debug || { bad "objcopy --only-keep-debug"; exit 1; }
strip -g -o stripped prog || { bad "strip"; exit 1; }
id=$(readelf -n prog | awk '/Build ID:/ {print $3}')
[ -n "$id" ] || { bad "no build-id in prog"; exit 1; }
# another build the server does not have
gcc -O1 -g -o other "$SPGO_SRC/tests/data/perf_prog.c" && strip -g other || { bad "gcc other"; exit 1; }
# and one whose debug file it has without .debug_info (line tables only)
gcc -O0 -g -o bare "$SPGO_SRC/tests/data/perf_prog.c" &&
  objcopy --only-keep-debug --remove-section .debug_info bare served/bare.debug && strip -g bare ||
  { bad "the debug file without .debug_info"; exit 1; }
bid=$(readelf -n bare | awk '/Build ID:/ {print $3}')

if "$SPGO" emulate -c 997 -o e.data -- ./prog 3000 >/dev/null 2>&1; then
  how="spgo emulate"
elif command -v perf >/dev/null &&
     perf record -q -e cpu-clock -F 4000 -o e.data -- ./prog 40000 >/dev/null 2>&1; then
  how="perf record -e cpu-clock"
else
  echo "skip: neither spgo emulate nor perf record can record here"; exit 77
fi
gen() { timeout 120 "$SPGO" gen --perf-data e.data --format text "$@"; }
gen --binary prog -o full.txt --quiet || { bad "spgo gen on the unstripped binary"; exit 1; }
echo "reference: the profile of the unstripped binary from $how ($(wc -l < full.txt) lines)"

# http_status PORT PATH: the status code of GET PATH on 127.0.0.1:PORT
# (bash's /dev/tcp; no client cache touched), empty when nothing answers.
http_status() {
  local line
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 0
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
  IFS=' ' read -r -t 5 _ line _ <&3
  exec 3<&-
  echo "$line"
}

# Start the server on a free port (a few tries: another may take it
# meanwhile), without DEBUGINFOD_URLS (it would forward misses there);
# wait (at most 30 s) until it has scanned served/ and has the build-id.
for try in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 40000))
  [ -n "$(http_status "$port" /metrics)" ] && continue # (in use)
  env -u DEBUGINFOD_URLS debuginfod -d "$tmp/db.sqlite" -p "$port" -F -t 0 -g 0 -c 1 "$tmp/served" \
    > server.log 2>&1 &
  server=$!
  for _ in $(seq 60); do
    [ "$(http_status "$port" "/buildid/$id/debuginfo")" = 200 ] &&
      [ "$(http_status "$port" "/buildid/$bid/debuginfo")" = 200 ] && break 2
    kill -0 "$server" 2>/dev/null || break
    sleep 0.5
  done
  stop_server
done
[ -n "$server" ] || { bad "debuginfod did not start or serve $id: $(tail -3 server.log)"; exit 1; }
url="http://127.0.0.1:$port"
echo "debuginfod serves $id on $url (try $try)"

# found: the profile and symbolize's functions are the unstripped binary's,
# and a note names the file (in the test's cache) and the server
before=$fail fail=0
DEBUGINFOD_URLS=$url gen --binary stripped -o found.txt 2> found.err || bad "spgo gen with debuginfod: $(cat found.err)"
cmp -s full.txt found.txt || { bad "the profile differs from the unstripped binary's"; diff full.txt found.txt | head -6; }
grep -qF "reading the separate debug file $tmp/cache/$id/debuginfo (found by build-id from debuginfod $url)" found.err ||
  bad "no note naming the file and the server: $(grep '^spgo: note' found.err)"
grep -qF "asking debuginfod $url for build-id $id" found.err || bad "no note before the query: $(grep '^spgo: note' found.err)"
[ $fail = 0 ] && echo "ok   found on $url: byte-identical to the unstripped binary's profile; $(grep 'reading the separate' found.err)"
rm -rf cache
DEBUGINFOD_URLS=$url gen --binary stripped -o found-q.txt --quiet 2> found-q.err || bad "spgo gen --quiet with debuginfod"
[ -s found-q.err ] && bad "--quiet printed: $(cat found-q.err)"
cmp -s full.txt found-q.txt || bad "--quiet: the profile differs"
"$SPGO" symbolize --binary prog --functions > sym-full.txt
DEBUGINFOD_URLS=$url timeout 120 "$SPGO" symbolize --binary stripped --functions > sym.txt 2> sym.err ||
  bad "symbolize with debuginfod: $(cat sym.err)"
cmp -s sym-full.txt sym.txt || { bad "symbolize --functions with debuginfod differs from the unstripped binary's"; diff sym-full.txt sym.txt | head -4; }
[ $fail = 0 ] && echo "ok   --quiet says nothing; symbolize --functions is the unstripped binary's"
fail=$((fail | before))

# expect_fail NAME PATTERN ARGS...: spgo gen fails saying PATTERN, no output
expect_fail() {
  local name=$1 pat=$2 before=$fail; shift 2
  fail=0
  rm -f out.txt
  gen "$@" -o out.txt 2> err.txt && bad "$name: succeeded"
  [ -e out.txt ] && bad "$name: wrote a profile"
  grep -q -- "$pat" err.txt || bad "$name: the error does not say '$pat': $(cat err.txt)"
  [ $fail = 0 ] && echo "ok   $name: $(sed -n 's/.*--debug-binary (/(/p' err.txt)"
  fail=$((fail | before))
}
# (symbolize: the data has no sample in other)
oid=$(readelf -n other | awk '/Build ID:/ {print $3}')
DEBUGINFOD_URLS=$url timeout 120 "$SPGO" symbolize --binary other 0x1000 > sym-other.txt 2> sym-other.err &&
  bad "symbolize of a build-id the server does not have: succeeded"
grep -qF "looked for $tmp/root/.build-id/${oid:0:2}/${oid:2}.debug, debuginfod $url; debuginfod $url: not found)" sym-other.err &&
  echo "ok   a build-id the server does not have: $(sed -n 's/.*none found: /(/p' sym-other.err)" ||
  bad "a build-id the server does not have: the error does not say 'not found': $(cat sym-other.err)"
# a downloaded file without .debug_info is refused, and named
DEBUGINFOD_URLS=$url timeout 120 "$SPGO" symbolize --binary bare 0x1000 > sym-bare.txt 2> sym-bare.err &&
  bad "symbolize with a served debug file without .debug_info: succeeded"
grep -qF "$tmp/cache/$bid/debuginfo (from debuginfod $url): no DWARF debug info (no .debug_info section))" sym-bare.err &&
  echo "ok   a served file without .debug_info is refused: $(sed -n 's/.*none found: /(/p' sym-bare.err)" ||
  bad "a served file without .debug_info: the error does not name it: $(cat sym-bare.err)"

stop_server
# the server down, an empty cache: where spgo looked, the server's answer
export DEBUGINFOD_CACHE_PATH="$tmp/cache-empty"
DEBUGINFOD_URLS=$url expect_fail "the server stopped" \
  "looked for $tmp/root/.build-id/${id:0:2}/${id:2}.debug, debuginfod $url; debuginfod $url: Connection refused)" \
  --binary stripped
# ... two servers, both down: both named
DEBUGINFOD_URLS="$url  http://127.0.0.1:1" expect_fail "two servers stopped" \
  "debuginfod $url http://127.0.0.1:1: Connection refused)" --binary stripped
# ... the cache of the first run still has the file
before=$fail fail=0
export DEBUGINFOD_CACHE_PATH="$tmp/cache"
DEBUGINFOD_URLS=$url gen --binary stripped -o cached.txt 2> cached.err || bad "from the cache: $(cat cached.err)"
cmp -s full.txt cached.txt || bad "from the cache: the profile differs"
grep -qF "debuginfo (found by build-id in the debuginfod cache, servers $url)" cached.err ||
  bad "from the cache: the note does not say so: $(grep '^spgo: note' cached.err)"
[ $fail = 0 ] && echo "ok   the server stopped, the file in the cache: $(grep 'reading the separate' cached.err)"
fail=$((fail | before))
# without DEBUGINFOD_URLS, no server is asked
gen --binary stripped -o none.txt 2> none.err && bad "without DEBUGINFOD_URLS: a profile"
grep -q debuginfod none.err && bad "without DEBUGINFOD_URLS: a server was asked: $(cat none.err)"
exit $fail
