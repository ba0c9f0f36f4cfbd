#!/usr/bin/env python3
"""Bench-side helpers of bench_infer.sh (standard library only).

  insns OBJDUMP ELF          llvm-objdump -d text -> spgo instruction lists
                             ('func NAME ENTRY' / 'ADDR SIZE CLASS ...'), with
                             jump tables of the non-PIE form `jmp *T(,%r,8)`
                             read from the ELF file (bounds from the `cmp $N`
                             before the jump) and calls to known noreturn
                             functions marked.  Stands in for the binary
                             model's disassembly until that lands.
  truth CFGS INSNS CALLGRIND exact block and edge counts of a callgrind run
                             (--dump-instr=yes --dump-line=no --collect-jumps=yes)
                             written as truth= on the CFGs spgo built -> stdout
  sample TRUTHCFGS RATE DANGLING SEED
                             weights = binomial(truth, RATE) / RATE, then a
                             DANGLING share of blocks made unknown (?)
  synth N SEED               a random structured CFG (loops, diamonds,
                             switches) of about N blocks with sampled weights
"""
import math
import random
import re
import struct
import sys

NORETURN = re.compile(r"<(exit|_exit|_Exit|abort|__assert_fail|__stack_chk_fail|__fortify_fail|"
                      r"__chk_fail|longjmp|_longjmp|siglongjmp|__longjmp_chk|pthread_exit|err|errx|"
                      r"verr|verrx|quick_exit|__cxa_throw|__cxa_rethrow)(@plt)?>")


def elf_sections(path):
    """(addr, size, offset) of the allocated sections of a 64-bit LE ELF."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for i in range(shnum):
        o = shoff + i * shentsize
        _, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", data, o)
        if flags & 2 and typ != 8:  # SHF_ALLOC, not NOBITS
            out.append((addr, size, off))
    return data, out


def read_u64(elf, addr):
    data, secs = elf
    for a, sz, off in secs:
        if a <= addr and addr + 8 <= a + sz:
            return struct.unpack_from("<Q", data, off + addr - a)[0]
    return None


def cmd_insns(objdump, elfpath):
    elf = elf_sections(elfpath)
    funcs = []
    cur = None
    hdr = re.compile(r"^([0-9a-f]+) <(.+)>:$")
    ins = re.compile(r"^\s+([0-9a-f]+):\s+([0-9a-f]{2}(?: [0-9a-f]{2})*)\s*\t(.*)$")
    with open(objdump) as f:
        for line in f:
            line = line.rstrip("\n")
            m = hdr.match(line)
            if m:
                cur = [m.group(2), int(m.group(1), 16), []]
                funcs.append(cur)
                continue
            m = ins.match(line)
            if m and cur is not None:
                cur[2].append((int(m.group(1), 16), len(m.group(2).split()), m.group(3)))
    out = sys.stdout
    for name, entry, insns in funcs:
        if not insns or name.endswith("@plt") or name.startswith("."):
            continue
        lo, hi = insns[0][0], insns[-1][0] + insns[-1][1]
        out.write("func %s %x\n" % (name, entry))
        for i, (a, sz, text) in enumerate(insns):
            parts = text.split("\t")
            mn = parts[0].strip()
            ops = parts[1] if len(parts) > 1 else ""
            words = mn.split()
            op = words[-1] if words else ""
            cls, extra = "other", ""
            tgt = re.match(r"^0x([0-9a-f]+)", ops.strip())
            if op in ("ud2", "hlt", "int3"):
                cls = "trap"
            elif op.startswith("ret"):
                cls = "ret"
            elif op.startswith("call"):
                if ops.strip().startswith("*"):
                    cls = "icall"
                elif tgt:
                    cls = "call %s" % tgt.group(1)
                    if NORETURN.search(ops):
                        extra = " noreturn"
            elif op.startswith("jmp"):
                if ops.strip().startswith("*"):
                    cls = "ijmp"
                    t = re.match(r"^\*0x([0-9a-f]+)\(,%\w+,8\)$", ops.strip())
                    if t:
                        extra = table(elf, int(t.group(1), 16), insns, i, lo, hi)
                elif tgt:
                    cls = "jmp %s" % tgt.group(1)
            elif (op.startswith("j") or op.startswith("loop")) and tgt:
                cls = "jcc %s" % tgt.group(1)
            out.write("%x %d %s%s\n" % (a, sz, cls, extra))


def table(elf, base, insns, i, lo, hi):
    """Targets of `jmp *base(,%r,8)`: N + 1 entries from a `cmp $N` just
    before (else entries while they point into the function, at most 512)."""
    n = None
    for a, sz, text in reversed(insns[max(0, i - 12):i]):
        m = re.search(r"\tcmp[lq]?\t\$0x([0-9a-f]+),", "\t" + text)
        if m:
            n = int(m.group(1), 16) + 1
            break
    targets = []
    for k in range(n if n is not None else 512):
        v = read_u64(elf, base + 8 * k)
        if v is None or not (lo <= v < hi):
            if n is not None:
                return ""
            break
        targets.append(v)
    return " table=" + ",".join("%x" % t for t in targets) if targets else ""


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
        out.write("block %s %s truth=%d%s\n" % (b["label"], b["w"], b["truth"], " exit" if b["exit"] else ""))
    if c["entry"]:
        out.write("entry %s\n" % c["entry"])
    for e in c["edges"]:
        out.write("edge %s %s%s truth=%d\n" % (e["src"], e["dst"], " p=" + e["p"] if e["p"] else "", e["truth"]))


def cmd_truth(cfgpath, insnpath, cgpath):
    execs, jumps = read_callgrind(cgpath)
    cls = {}  # addr -> (size, class, target)
    with open(insnpath) as f:
        for line in f:
            t = line.split()
            if not t or t[0] == "func":
                continue
            tgt = int(t[3], 16) if len(t) > 3 and re.match(r"^[0-9a-f]+$", t[3]) else None
            cls[int(t[0], 16)] = (int(t[1]), t[2], tgt)
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
            taken = sum(v for (src, _), v in jumps.items() if src == last) if k == "jcc" else 0
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
    {"insns": cmd_insns, "truth": cmd_truth, "sample": cmd_sample, "synth": cmd_synth}[cmd](*sys.argv[2:])
