#!/usr/bin/env bash
# Short build-ids (issue #13, inputs): lld's --build-id=fast gives an 8-byte
# id; perf before 5.x (and any writer without PERF_RECORD_MISC_BUILD_ID_SIZE)
# keeps it zero-padded to 20 bytes in the build-id table.  spgo must match
# the binary on its own length: the profile from the padded table equals the
# one from perf's own, matched "by build-id".  A 20-byte id that agrees on
# the first 8 bytes but goes on with other bytes is left to the file name.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 ld.lld-19 perf python3
scratch
perf record -q -e cpu-clock -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }

clang-19 -O2 -g -fuse-ld=lld -Wl,--build-id=fast -o short "$SPGO_SRC/tests/data/perf_prog.c" ||
  { echo "skip: clang-19 cannot link with lld"; exit 77; }
id=$(readelf -n short | awk '/Build ID:/ { print $3 }')
[ ${#id} -eq 16 ] || { echo "FAIL: expected an 8-byte build-id, got '$id'"; exit 1; }
perf record -q -e cpu-clock -F 4000 -o short.data -- ./short 40000 >/dev/null 2>&1
[ -s short.data ] || { echo "FAIL: perf record"; exit 1; }

# pad.py IN ID OUT [TAIL]: the build-id table entries of ID as old perf
# wrote them: no size flag, the id padded to 20 bytes (with zeros, or with
# the bytes TAIL to make another id with the same first 8 bytes).
cat > pad.py <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
idb = bytes.fromhex(sys.argv[2])
tail = bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else bytes(20 - len(idb))
n, i = 0, d.find(idb)
while i >= 0:
    e = i - 12  # perf_event_header (8), pid (4), then the id
    misc = int.from_bytes(d[e + 4:e + 6], 'little') if e >= 0 else 0
    if misc & 0x8000:  # PERF_RECORD_MISC_BUILD_ID_SIZE
        d[e + 4:e + 6] = (misc & 0x7fff).to_bytes(2, 'little')
        d[i + len(idb):i + 20] = tail
        d[e + 32] = 0
        n += 1
    i = d.find(idb, i + 1)
open(sys.argv[3], 'wb').write(d)
sys.exit(0 if n else 1)
PY
python3 pad.py short.data "$id" padded.data || { echo "FAIL: no build-id entry of $id in short.data"; exit 1; }
python3 pad.py short.data "$id" other.data 0102030405060708090a0b0c ||
  { echo "FAIL: no build-id entry of $id in short.data"; exit 1; }

"$SPGO" gen --binary short --perf-data short.data -o ref.txt --format text --quiet || bad "gen on perf's own data"
if "$SPGO" gen --binary short --perf-data padded.data -o padded.txt --format text 2>err.txt; then
  grep -q "matched by build-id" err.txt || { bad "padded build-id: not matched by build-id"; cat err.txt; }
  cmp -s ref.txt padded.txt || bad "padded build-id: another profile than from perf's own table"
else
  bad "padded build-id: spgo gen fails:"; cat err.txt
fi
# the same first 8 bytes, then others: the file name decides (it is 'short')
if "$SPGO" gen --binary short --perf-data other.data -o other.txt --format text 2>err.txt; then
  grep -q "matched by file name" err.txt || { bad "differing padding: not matched by file name"; cat err.txt; }
else
  bad "differing padding: spgo gen fails:"; cat err.txt
fi
# ... and under another name it is not taken
cp short renamed
"$SPGO" gen --binary renamed --perf-data other.data -o renamed.txt --format text 2>err.txt &&
  bad "differing padding under another file name: taken for the binary"
[ $fail -eq 0 ] && echo "inputs_build_id: ok"
exit $fail
