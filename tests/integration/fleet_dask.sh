#!/usr/bin/env bash
# The fleet pipeline on Dask distributed (tools/fleet/dask_pipeline.py) on a
# LocalCluster of 2 worker processes on loopback, against the single-machine
# result.
#  - Five emulated captures ("hosts"): four of minivm with different seeds
#    and inputs, one of another program (tailcalls), so the reduce has two
#    build-ids to partition by.
#  - Map: `spgo aggregate` per (capture, binary); reduce: a tree of
#    `spgo merge` with fan-in 2 per build-id; finish: `spgo gen
#    --unsymbolized` per build-id.
#  - Single machine: one `spgo aggregate` over all captures, one `spgo gen`.
#    Required: the merged unsymbolized profiles and the profiles are
#    byte-identical; the CS variant too (--cs, flat text).
#  - Bounded: the pipeline gets 240 s.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 qemu-x86_64 timeout
# Debian's python3-distributed is for Debian's python3 (another python3 may
# come first on PATH)
py=
for p in python3 /usr/bin/python3; do
  command -v $p >/dev/null && $p -c 'import dask.distributed' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || { echo "skip: python3-distributed not installed"; exit 77; }
scratch

clang-19 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -fno-pie -no-pie \
  -o minivm "$SPGO_SRC/examples/minivm/minivm.c" || bad "build minivm"
clang-19 -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -o tailcalls \
  "$SPGO_SRC/tests/integration/lib/tailcalls.c" || bad "build tailcalls"
for s in 1 2 3 4; do
  "$SPGO" emulate -c 20011 --seed $s -o host$s.data -- ./minivm $((s % 2 + 1)) >/dev/null 2>&1 ||
    bad "spgo emulate (host $s)"
done
"$SPGO" emulate -c 20011 -o host5.data -- ./tailcalls 3000 >/dev/null 2>&1 || bad "spgo emulate (host 5)"
id_of() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
vm=$(id_of minivm); tc=$(id_of tailcalls)

for mode in lbr cs; do
  extra=(); [ $mode = cs ] && extra=(--cs)
  timeout 240 $py "$SPGO_SRC/tools/fleet/dask_pipeline.py" --spgo "$SPGO" --local-workers 2 \
    --fanin 2 --binary minivm --binary tailcalls --out out-$mode "${extra[@]}" --gen-arg=--format=text \
    --gen-arg=--quiet host*.data > dask-$mode.txt 2>&1 || { tail -20 dask-$mode.txt; bad "dask pipeline ($mode)"; continue; }
  cat dask-$mode.txt
  for b in minivm tailcalls; do
    id=$vm; [ $b = tailcalls ] && id=$tc
    caps=(host1.data host2.data host3.data host4.data); [ $b = tailcalls ] && caps=(host5.data)
    "$SPGO" aggregate --quiet "${extra[@]}" --binary $b -o single-$b.unsym "${caps[@]}" || bad "spgo aggregate ($b)"
    "$SPGO" gen --quiet "${extra[@]}" --format text --binary $b --unsymbolized single-$b.unsym -o single-$b.prof ||
      bad "spgo gen ($b)"
    cmp -s out-$mode/$id.unsym single-$b.unsym || bad "$mode $b: the merged unsymbolized profile differs from one machine's"
    cmp -s out-$mode/$id.prof single-$b.prof || bad "$mode $b: the profile differs from one machine's"
  done
done
# one machine straight from the perf.data: the same profile (LBR)
if [ $fail -eq 0 ]; then
  "$SPGO" gen --quiet --format text --binary tailcalls --perf-data host5.data -o direct.prof &&
    cmp -s direct.prof out-lbr/$tc.prof || bad "tailcalls: gen from perf.data differs from the pipeline's"
fi
[ $fail -eq 0 ] && echo "fleet_dask: ok"
exit $fail
