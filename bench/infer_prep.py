#!/usr/bin/env python3
"""Bench-side helpers of bench_infer.sh (standard library only).

  truth CFGS INSNS CALLGRIND exact block and edge counts of a callgrind run
                             (--dump-instr=yes --dump-line=no --collect-jumps=yes;
                             CALLGRIND may list several runs, comma-separated)
                             written as truth= on the CFGs spgo built
                             (spgo infer --binary --emit-cfg) -> stdout;
                             INSNS is `spgo symbolize --all-instructions`
  sample TRUTHCFGS RATE DANGLING SEED
                             weights = binomial(truth, RATE) / RATE, then a
                             DANGLING share of blocks made unknown (?)
  synth N SEED               a random structured CFG (loops, diamonds,
                             switches) of about N blocks with sampled weights
"""
import math
import random
import sys

def read_callgrind(path, lo=None):
    """Per-address execution counts, conditional-jump taken counts and
    jump counts, summed over the whole file."""
    execs, jumps = {}, {}
    pos = 0
    pending = None  # a jump spec waiting for its source position
    skip_next = False
    with open(path) as f:
        for line in f:
            if not line or line[0] in "#\n":
                continue
            c = line[0]
            if c.isalpha():
                if line.startswith("jcnd=") or line.startswith("jump="):
                    body = line[5:].split()
                    cnt = body[0].split("/")[0]
                    pending = (int(cnt), body[1])
                elif line.startswith("calls="):
                    skip_next = True
                continue
            parts = line.split()
            p = parts[0]
            if p == "*":
                newpos = pos
            elif p[0] in "+-":
                newpos = pos + int(p, 16) if p.startswith(("+0x", "-0x")) else pos + int(p)
            else:
                newpos = int(p, 16) if p.startswith("0x") else int(p)
            if pending is not None:
                t = pending[1]
                if t == "*":
                    tgt = pos
                elif t[0] in "+-":
                    tgt = pos + int(t)
                else:
                    tgt = int(t, 16) if t.startswith("0x") else int(t)
                key = (newpos, tgt)
                jumps[key] = jumps.get(key, 0) + pending[0]
                pending = None
            pos = newpos
            if skip_next:
                skip_next = False
                continue
            if len(parts) > 1:
                execs[pos] = execs.get(pos, 0) + int(parts[1])
    return execs, jumps


def read_cfgs(path):
    cfgs = []
    cur = None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "cfg":
                cur = {"name": t[1], "blocks": [], "edges": [], "entry": None}
                cfgs.append(cur)
            elif t[0] == "block":
                attrs = dict(x.split("=", 1) for x in t[3:] if "=" in x)
                cur["blocks"].append({"label": t[1], "w": t[2], "addr": int(attrs.get("addr", "0"), 16),
                                      "size": int(attrs.get("size", "0")), "exit": "exit" in t[3:],
                                      "truth": int(attrs.get("truth", "0"))})
            elif t[0] == "edge":
                attrs = dict(x.split("=", 1) for x in t[3:] if "=" in x)
                cur["edges"].append({"src": t[1], "dst": t[2], "p": attrs.get("p"),
                                     "truth": int(attrs.get("truth", "0"))})
            elif t[0] == "entry":
                cur["entry"] = t[1]
    return cfgs


def write_cfg(out, c):
    out.write("cfg %s\n" % c["name"])
    for b in c["blocks"]:
        out.write("block %s %s addr=%#x size=%d truth=%d%s\n" % (b["label"], b["w"], b["addr"], b["size"], b["truth"],
                                                               " exit" if b["exit"] else ""))
    if c["entry"]:
        out.write("entry %s\n" % c["entry"])
    for e in c["edges"]:
        out.write("edge %s %s%s truth=%d\n" % (e["src"], e["dst"], " p=" + e["p"] if e["p"] else "", e["truth"]))


def cmd_truth(cfgpath, insnpath, cgpaths):
    execs, jumps = {}, {}
    for cgpath in cgpaths.split(","):  # several runs of one binary: summed
        e1, j1 = read_callgrind(cgpath)
        for k, v in e1.items():
            execs[k] = execs.get(k, 0) + v
        for k, v in j1.items():
            jumps[k] = jumps.get(k, 0) + v
    names = {"cond_branch": "jcc", "jump": "jmp", "indirect_jump": "ijmp"}
    cls = {}  # addr -> (size, class, target)
    with open(insnpath) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            tgt = int(t[3], 16) if len(t) > 3 else None
            cls[int(t[0], 16)] = (int(t[1]), names.get(t[2], t[2]), tgt)
    taken_from = {}
    for (src, _), v in jumps.items():
        taken_from[src] = taken_from.get(src, 0) + v
    addrs = sorted(cls)
    import bisect
    out = sys.stdout
    for c in read_cfgs(cfgpath):
        byaddr = {}
        for b in c["blocks"]:
            b["truth"] = execs.get(b["addr"], 0)
            byaddr[b["label"]] = b
        for e in c["edges"]:
            s, d = byaddr[e["src"]], byaddr[e["dst"]]
            last = addrs[bisect.bisect_left(addrs, s["addr"] + s["size"]) - 1]
            size, k, tgt = cls[last]
            n = execs.get(last, 0)
            fall = last + size
            taken = taken_from.get(last, 0) if k == "jcc" else 0
            if k == "jcc":
                v = 0
                if d["addr"] == tgt:
                    v += jumps.get((last, tgt), 0)
                if d["addr"] == fall:
                    v += max(0, n - taken)
            elif k in ("jmp", "ijmp"):
                v = jumps.get((last, d["addr"]), 0)
            else:
                v = n if d["addr"] == fall else 0
            e["truth"] = v
        write_cfg(out, c)


def binomial(rng, n, p):
    if n == 0 or p >= 1:
        return n
    if n * p < 30 and n < 10000:
        return sum(1 for _ in range(n) if rng.random() < p)
    if n * p < 30:  # Poisson limit
        L, k, q = math.exp(-n * p), 0, 1.0
        while True:
            q *= rng.random()
            if q < L:
                return k
            k += 1
    v = int(round(rng.gauss(n * p, math.sqrt(n * p * (1 - p)))))
    return min(n, max(0, v))


def cmd_sample(cfgpath, rate, dangling, seed):
    rng = random.Random(seed)
    rate, dangling = float(rate), float(dangling)
    out = sys.stdout
    for c in read_cfgs(cfgpath):
        for b in c["blocks"]:
            w = int(round(binomial(rng, b["truth"], rate) / rate))
            b["w"] = "?" if rng.random() < dangling else str(w)
        write_cfg(out, c)


def cmd_synth(n, seed):
    """Loops, if-diamonds and switches nested at random, a random-walk truth
    (thousands of calls), then weights sampled at 1% with 30% dangling."""
    rng = random.Random(seed)
    n = int(n)
    blocks, edges = [], []

    def new():
        blocks.append(0)
        return len(blocks) - 1

    def region(entry, budget, depth):
        """Build a single-entry single-exit region after block entry; returns its exit."""
        cur = entry
        while budget > 0:
            r = rng.random()
            if r < 0.3 and depth < 6 and budget > 4:  # loop
                h = new(); edges.append((cur, h))
                size = rng.randint(2, max(2, budget // 3))
                t = region(h, size - 1, depth + 1)
                edges.append((t, h))
                x = new(); edges.append((t, x))
                cur, budget = x, budget - size - 1
            elif r < 0.65 and budget > 3:  # diamond
                a, b2, j = new(), new(), new()
                edges.extend([(cur, a), (cur, b2)])
                size = rng.randint(1, max(1, budget // 4))
                ta = region(a, size - 1, depth + 1)
                tb = region(b2, rng.randint(0, max(0, budget // 4)), depth + 1)
                edges.extend([(ta, j), (tb, j)])
                cur, budget = j, budget - 2 * size - 3
            elif r < 0.72 and budget > 8:  # switch
                k = rng.randint(3, 8)
                j = new()
                for _ in range(k):
                    c2 = new(); edges.append((cur, c2)); edges.append((c2, j))
                cur, budget = j, budget - k - 1
            else:
                x = new(); edges.append((cur, x))
                cur, budget = x, budget - 1
        return cur

    e0 = new()
    region(e0, n - 1, 0)
    succ = [[] for _ in blocks]
    for s, d in edges:
        succ[s].append(d)
    # random walks with a loop-friendly bias (back edges taken 80%)
    truth = [0] * len(blocks)
    etruth = {}
    for _ in range(200):
        v, steps = 0, 0
        while steps < 20 * n:
            truth[v] += 1
            if not succ[v]:
                break
            ss = succ[v]
            back = [d for d in ss if d <= v]
            d = rng.choice(back) if back and rng.random() < 0.8 else rng.choice(ss)
            etruth[(v, d)] = etruth.get((v, d), 0) + 1
            v = d
            steps += 1
        else:
            pass
    out = sys.stdout
    out.write("cfg synth%d\n" % n)
    for i, t in enumerate(truth):
        w = int(round(binomial(rng, t * 100, 0.01)))
        out.write("block b%d %s\n" % (i, "?" if rng.random() < 0.3 else w))
    for s, d in edges:
        out.write("edge b%d b%d\n" % (s, d))


if __name__ == "__main__":
    cmd = sys.argv[1]
    {"truth": cmd_truth, "sample": cmd_sample, "synth": cmd_synth}[cmd](*sys.argv[2:])
