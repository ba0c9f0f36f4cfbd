#!/usr/bin/env bash
# Reading perf data: spgo script vs perf script (same fields, same file),
# and full aggregation (spgo script --aggregate), on a perf.data of >= 1 GiB.
# The file is made from real LBR samples (the shared test.lbr) concatenated
# into one file: the events and mmaps once, then the 9232 samples again and
# again with their timestamps shifted, a FINISHED_ROUND after each copy.
# Wall time and peak RSS from /usr/bin/time; median of BENCH_REPEAT runs
# (default 3; perf script BENCH_PERF_REPEAT, default 1, since it is slow).
set -euo pipefail
: "${SPGO:?}" "${SPGO_SHARED:?}" "${BENCH_WORK:?}" "${SPGO_SRC:?}"
lbr="$SPGO_SHARED/data/autofdo-gzip/test.lbr"
bin="$SPGO_SHARED/data/autofdo-gzip/test.binary"
[ -f "$lbr" ] || { echo "bench_perf: no shared test.lbr"; exit 1; }
reps=${BENCH_REPEAT:-3}; preps=${BENCH_PERF_REPEAT:-1}
gib=${BENCH_GIB:-1}
big="$BENCH_WORK/lbr-${gib}g.data"
want=$((gib * 1024 * 1024 * 1024))
if [ ! -f "$big" ] || [ "$(stat -c %s "$big")" -lt "$want" ]; then
  echo "making $big ..."
  python3 - "$lbr" "$big" "$want" <<'PY'
import struct, sys
src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = open(src, "rb").read()
attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQ", b, 16)
out = open(dst + ".tmp", "wb")
# File mode like perf 3.3 wrote it: header, id lists, attrs, then the data;
# no feature sections.
nattr = attrs_size // attr_size
out.write(b"\0" * 104)
entries = []
for i in range(nattr):
    a = b[attrs_off + i * attr_size: attrs_off + (i + 1) * attr_size]
    ids_off, ids_size = struct.unpack_from("<QQ", a, attr_size - 16)
    at = out.tell(); out.write(b[ids_off: ids_off + ids_size])
    entries.append(a[:attr_size - 16] + struct.pack("<QQ", at, ids_size))
new_attrs_off = out.tell()
for e in entries:
    out.write(e)
new_data_off = out.tell()
samples, others, p, tmin, tmax = [], [], data_off, None, 0
while p < data_off + data_size:
    t, m, s = struct.unpack_from("<IHH", b, p)
    r = b[p:p + s]
    if t == 9:  # SAMPLE: IP TID TIME BRANCH_STACK -> time at +24
        ts = struct.unpack_from("<Q", r, 24)[0]
        tmin = ts if tmin is None else min(tmin, ts); tmax = max(tmax, ts)
        samples.append(r)
    else:
        others.append(r)
    p += s
for r in others:
    out.write(r)
span = tmax - tmin + 1
round_rec = struct.pack("<IHH", 68, 0, 8)
written, k = out.tell(), 0
while written < want:
    chunk = bytearray()
    for r in samples:
        rr = bytearray(r)
        ts = struct.unpack_from("<Q", rr, 24)[0]
        struct.pack_into("<Q", rr, 24, ts + k * span)
        chunk += rr
    chunk += round_rec
    out.write(chunk); written += len(chunk); k += 1
data_size = written - new_data_off
out.seek(0)
out.write(b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, attr_size, new_attrs_off,
          nattr * attr_size, new_data_off, data_size, 0, 0) + b"\0" * 32)
out.close()
import os; os.rename(dst + ".tmp", dst)
print("copies:", k, "bytes:", written)
PY
fi
size=$(stat -c %s "$big")
mb=$(awk -v s="$size" 'BEGIN { printf "%.0f", s / 1e6 }')

source "$SPGO_SRC/bench/measure_lib.sh"

# Same output?  Checked on the whole file via checksums (not timed).
h1=$(perf script -i "$big" -F ip,brstack 2>/dev/null | md5sum | cut -c1-32)
h2=$("$SPGO" script -i "$big" -F ip,brstack | md5sum | cut -c1-32)
same=$([ "$h1" = "$h2" ] && echo "identical" || echo "DIFFERENT")

read -r ps prss pc < <(measure "$preps" perf script -i "$big" -F ip,brstack)
read -r ss srss sc < <(measure "$reps" "$SPGO" script -i "$big" -F ip,brstack)
cp "$bin" "$BENCH_WORK/test.binary"
read -r as arss ac < <(measure "$reps" "$SPGO" script -i "$big" --aggregate "$BENCH_WORK/test.binary")

out="$SPGO_SRC/bench/results/perf.md"
{
  echo "# Reading perf data ($(date -u +%Y-%m-%d), $(nproc) cores, one used)"
  echo
  echo "Input: $mb MB perf.data of real LBR samples (test.lbr's 9232 samples"
  echo "concatenated with shifted timestamps; 16-entry branch stacks). Output of"
  echo "\`-F ip,brstack\`: spgo and perf are $same (md5 over the whole output)."
  echo
  echo "| what | wall s (median) | MB/s (wall) | CPU s (user+sys) | peak RSS MiB | vs perf script (wall / CPU) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  row() { awk -v n="$1" -v s="$size" -v t="$2" -v r="$3" -v c="$4" -v p="$ps" -v pc="$pc" \
    'BEGIN { printf "| %s | %.2f | %.0f | %.2f | %.0f | %.1fx / %.1fx |\n", n, t, s/1e6/t, c, r/1024, p/t, pc/c }'; }
  row "perf script -F ip,brstack" "$ps" "$prss" "$pc"
  row "spgo script -F ip,brstack" "$ss" "$srss" "$sc"
  row "spgo aggregation (ranges, branches, ips per event)" "$as" "$arss" "$ac"
  echo
  echo "The machine is shared (load average $(cut -d' ' -f1 /proc/loadavg) at the end), so wall"
  echo "times carry other jobs' load; CPU seconds are the steadier figure."
  echo
  echo "Targets: spgo script >= 10x perf script; aggregation >= 500 MB/s; RSS < 1 GiB."
  echo "Runs: spgo $reps, perf script $preps (BENCH_REPEAT, BENCH_PERF_REPEAT)."
} | tee "$out"
