#!/usr/bin/env python3
"""Fleet PGO on Dask distributed: perf captures of many hosts -> one sample
profile per binary, with spgo doing all the work and Dask only scheduling it.

    map      one task per (capture, binary): `spgo aggregate` -> the capture's
             unsymbolized profile of that binary (spgo's compact binary form),
             returned through Dask as bytes, keyed by the build-id read from
             the file's header;
    reduce   per build-id, a tree of `spgo merge` tasks, FANIN inputs each
             (the merge is commutative and associative, so the tree's shape
             and the order of arrival do not change the bytes);
    finish   one `spgo gen --unsymbolized` per build-id with its binary.

Usage:
    dask_pipeline.py --binary BIN [--binary BIN]... --out DIR
                     [--scheduler ADDR | --local-workers N] [--fanin K]
                     [--cs] [--gen-arg ARG]... [--spgo PATH] CAPTURE...

Writes DIR/BUILDID.unsym (the merged unsymbolized profile) and
DIR/BUILDID.prof (the profile, spgo gen's default format or --gen-arg's),
and prints one line per build-id.  Captures and binaries must be readable
where the tasks run (on a real fleet the map task runs on the host that
holds the capture, the finish task where the binary is fetched by build-id).
Spark, Beam or Ray take the same three steps: reduceByKey / CombinePerKey /
a tree of remote merges.  Standard library and dask only.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def build_id_of(data):
    """The build-id of the first section of spgo's binary form (see
    src/aggregate/unsym.c: magic, version, 'S', varint length, bytes)."""
    if data[:8] != b"SPGO-UNS" or len(data) < 11 or data[9:10] != b"S":
        raise ValueError("not an unsymbolized profile")
    n, shift, i = 0, 0, 10
    while True:
        c = data[i]
        n |= (c & 0x7F) << shift
        i += 1
        shift += 7
        if not c & 0x80:
            break
    return data[i:i + n].decode() or "nobuildid"


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode(errors="replace")


def map_task(spgo, capture, binary, cs):
    """One capture, one binary -> (build_id, bytes), or None without samples."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "host.unsym")
        cmd = [spgo, "aggregate", "--quiet", "--binary", binary, "-o", out, capture]
        if cs:
            cmd.insert(2, "--cs")
        rc, err = run(cmd)
        if rc != 0:
            if "no sample of the data falls in" in err:
                return None
            raise RuntimeError("%s: %s" % (" ".join(cmd), err.strip()))
        with open(out, "rb") as f:
            data = f.read()
    return build_id_of(data), data


def merge_task(spgo, parts):
    """Unsymbolized profiles (bytes) -> their sum (bytes), by spgo merge."""
    parts = [p for p in parts if p]
    if len(parts) == 1:
        return parts[0]
    with tempfile.TemporaryDirectory() as d:
        names = []
        for i, p in enumerate(parts):
            names.append(os.path.join(d, "in%d.unsym" % i))
            with open(names[-1], "wb") as f:
                f.write(p)
        out = os.path.join(d, "out.unsym")
        rc, err = run([spgo, "merge", "--format", "bin", "-o", out] + names)
        if rc != 0:
            raise RuntimeError("spgo merge: " + err.strip())
        with open(out, "rb") as f:
            return f.read()


def gen_task(spgo, binary, data, gen_args):
    """The merged profile of one build-id -> (profile bytes, spgo gen's report)."""
    with tempfile.TemporaryDirectory() as d:
        inp, out = os.path.join(d, "all.unsym"), os.path.join(d, "out.prof")
        with open(inp, "wb") as f:
            f.write(data)
        cmd = [spgo, "gen", "--binary", binary, "--unsymbolized", inp, "-o", out] + gen_args
        rc, err = run(cmd)
        if rc != 0:
            raise RuntimeError("spgo gen: " + err.strip())
        with open(out, "rb") as f:
            return f.read(), err


def key_of(r):
    return r and r[0]


def value_of(r):
    return r[1]


def pipeline(client, spgo, captures, binaries, fanin, cs, gen_args):
    """Returns {build_id: (merged unsym bytes, profile bytes, report, captures)}."""
    pairs = [(c, b) for c in captures for b in binaries]
    maps = [client.submit(map_task, spgo, c, b, cs, pure=False) for c, b in pairs]
    # Only the keys come back to the client (the data stays on the workers):
    # which build-id each map produced, and so which binary it is for gen.
    ids = client.gather([client.submit(key_of, f, pure=False) for f in maps])
    by_id, binary_of = {}, {}
    for (c, b), fut, bid in zip(pairs, maps, ids):
        if bid is None:
            continue
        by_id.setdefault(bid, []).append(client.submit(value_of, fut, pure=False))
        binary_of[bid] = b
    out = {}
    for bid, level in sorted(by_id.items()):
        # a tree of merges, fanin at a time; each runs when its inputs are ready
        while len(level) > 1:
            level = [client.submit(merge_task, spgo, level[i:i + fanin], pure=False)
                     for i in range(0, len(level), fanin)]
        merged = level[0]
        prof = client.submit(gen_task, spgo, binary_of[bid], merged, gen_args, pure=False)
        out[bid] = (merged, prof)
    return {bid: (m.result(),) + p.result() + (len(by_id[bid]),) for bid, (m, p) in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", nargs="+", metavar="CAPTURE")
    ap.add_argument("--binary", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--scheduler", help="address of a running Dask scheduler")
    ap.add_argument("--local-workers", type=int, default=2,
                    help="without --scheduler: a LocalCluster of N worker processes on loopback")
    ap.add_argument("--fanin", type=int, default=8)
    ap.add_argument("--cs", action="store_true", help="keep (stack, LBR) samples: gen --cs")
    ap.add_argument("--gen-arg", action="append", default=[], help="passed on to spgo gen")
    ap.add_argument("--spgo", default="spgo")
    a = ap.parse_args()
    if a.fanin < 2:
        ap.error("--fanin must be at least 2")
    from dask.distributed import Client, LocalCluster
    spgo = os.path.abspath(a.spgo) if os.sep in a.spgo else a.spgo
    captures = [os.path.abspath(c) for c in a.captures]
    binaries = [os.path.abspath(b) for b in a.binary]
    gen_args = list(a.gen_arg)
    if a.cs and "--cs" not in gen_args:
        gen_args.append("--cs")
    os.makedirs(a.out, exist_ok=True)
    if a.scheduler:
        client, cluster = Client(a.scheduler), None
    else:
        cluster = LocalCluster(n_workers=a.local_workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        res = pipeline(client, spgo, captures, binaries, a.fanin, a.cs, gen_args)
    finally:
        client.close()
        if cluster:
            cluster.close()
    if not res:
        sys.exit("dask_pipeline: no capture has samples of the binaries given")
    for bid, (merged, prof, report, nmaps) in sorted(res.items()):
        with open(os.path.join(a.out, bid + ".unsym"), "wb") as f:
            f.write(merged)
        with open(os.path.join(a.out, bid + ".prof"), "wb") as f:
            f.write(prof)
        print("%s: %d bytes merged from %d captures, profile %d bytes" %
              (bid, len(merged), nmaps, len(prof)))


if __name__ == "__main__":
    main()
