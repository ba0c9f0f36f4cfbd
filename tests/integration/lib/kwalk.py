#!/usr/bin/env python3
"""kwalk: LBR samples of a system-wide capture made by walking real code.

Walks the control flow of a kernel image (and optionally a module) as
llvm-objdump disassembles it, the way the CPU would run it: conditional
branches taken or not at random (loop back-edges mostly taken), direct
jumps and calls followed, returns to their call, an indirect call in the
kernel entering the module.  Each walk is a "system call": it starts with
a branch from user space into the kernel's entry function and ends with
the return to user space.  Every few taken branches a sample is written
with the last N branches (newest first), as perf records LBR.  User-space
samples of another process are mixed in.  Prints kperf's spec (kperf.c).

usage: kwalk.py --vmlinux F --entry SYM [--kaslr HEX] [--module KO --modname N
                --modstart HEX --modentry SYM] [--samples N] [--entries N]
                [--seed S] [--exclude-kernel] [--no-kernel-map] [--user-only]
                [--build-id HEX] [--amd]

The default shape is Intel's LBR under a :k event (32 entries; branches
that end in user space, the returns to it, are not recorded, so the
branch before each system call's entry is the kernel's last one);
--amd: AMD Zen4 LbrExtV2's (perf record --pfm-events
RETIRED_TAKEN_BRANCH_INSTRUCTIONS:k -a -N -b -c 500009): 16 entries, no
cycles or branch types, the returns to user space recorded.
"""
import argparse
import bisect
import random
import re
import subprocess
import sys

LINE = re.compile(r'^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$')
SYM = re.compile(r'^([0-9a-f]+) <([^>]+)>:$')
BRANCH = ('j', 'call', 'ret', 'ud2', 'int3', 'hlt')


class Code:
    """The branch instructions of some code (sorted), for stepping: from any
    instruction, the next branch at or after it; straight-line code between."""

    def __init__(self):
        self.addr, self.info, self.syms = [], {}, {}

    def add(self, addr, mn, tgt, nxt):
        self.addr.append(addr)
        self.info[addr] = (mn, tgt, nxt)

    def finish(self):
        self.addr.sort()

    def next_branch(self, pc):
        i = bisect.bisect_left(self.addr, pc)
        if i == len(self.addr):
            return None
        a = self.addr[i]
        return (a,) + self.info[a]


RELOC = re.compile(r'^\s+[0-9a-f]+:\s+(R_\S+)\s+(\S+)')


def disasm(code, path, delta, only_text=False):
    """Add path's branches (at runtime = vaddr + delta) to code.  A
    relocatable object's (only_text): its .text alone, a call or jump's
    target from its relocation (a function of its own or, undefined there,
    one of code's: the kernel's export)."""
    out = subprocess.run(['llvm-objdump-19', '-d', '--no-show-raw-insn', path] +
                         (['--section=.text', '-r'] if only_text else []),
                         check=True, capture_output=True, text=True).stdout
    pend, last, relocs = None, None, []
    for ln in out.splitlines():
        m = RELOC.match(ln)
        if m:
            if last is not None and m.group(1) in ('R_X86_64_PLT32', 'R_X86_64_PC32'):
                relocs.append((last, m.group(2)))
            continue
        m = SYM.match(ln)
        if m:
            code.syms[m.group(2)] = int(m.group(1), 16) + delta
            continue
        m = LINE.match(ln)
        if not m:
            continue
        addr = int(m.group(1), 16) + delta
        if pend:
            code.add(pend[0], pend[1], pend[2], addr)
            pend = None
        mn, ops = m.group(2), m.group(3)
        last = None
        if not mn.startswith(BRANCH):
            continue
        tgt = None
        t = re.match(r'(?:0x)?([0-9a-f]+)', ops.strip())
        if t and '*' not in ops and (mn.startswith('j') or mn.startswith('call')):
            tgt = int(t.group(1), 16) + delta
            last = addr
        pend = (addr, mn, tgt)
    if pend:
        code.add(pend[0], pend[1], pend[2], 0)
    for at, name in relocs:  # S + A - P, P the 4 bytes before the next instruction
        m = re.match(r'^(.*?)([+-]0x[0-9a-f]+)?$', name)
        base, add = m.group(1), int(m.group(2) or '0', 16)
        if base == '.text':
            tgt = delta + add + 4
        elif base in code.syms:
            tgt = code.syms[base] + add + 4
        else:
            continue
        mn, _, nxt = code.info[at]
        code.info[at] = (mn, tgt, nxt)


def load_brs(code, path, delta):
    """A table of branches made by bench/kernel_brs.awk from a big image."""
    with open(path) as f:
        for ln in f:
            p = ln.split()
            if p[0] == 'S':
                code.syms[p[2]] = int(p[1], 16) + delta
            else:
                code.add(int(p[0], 16) + delta, p[1], None if p[2] == '-' else int(p[2], 16) + delta,
                         int(p[3], 16) + delta)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--vmlinux', required=True)
    ap.add_argument('--entry', required=True)
    ap.add_argument('--kaslr', default='0')
    ap.add_argument('--module')
    ap.add_argument('--modname')
    ap.add_argument('--modstart', default='0xffffffffc0a00000')
    ap.add_argument('--modentry')
    ap.add_argument('--samples', type=int, default=400)
    ap.add_argument('--entries', type=int, default=32)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--exclude-kernel', action='store_true')
    ap.add_argument('--no-kernel-map', action='store_true')
    ap.add_argument('--user-only', action='store_true')
    ap.add_argument('--build-id')
    ap.add_argument('--amd', action='store_true')
    ap.add_argument('--brs', help="the kernel image's branch table (bench/kernel_brs.awk)")
    ap.add_argument('--max-steps', type=int, default=3000)
    a = ap.parse_args()
    if a.amd:
        a.entries = 16
    rnd = random.Random(a.seed)
    kaslr = int(a.kaslr, 16)
    # The kernel image: perf's mapping starts at the running _text.
    ph = subprocess.run(['readelf', '-lW', a.vmlinux], check=True, capture_output=True,
                        text=True).stdout
    seg = [l.split() for l in ph.splitlines() if l.strip().startswith('LOAD') and ' E ' in l]
    text = int(seg[0][2], 16)
    code = Code()
    if a.brs:
        load_brs(code, a.brs, kaslr)
    else:
        disasm(code, a.vmlinux, kaslr)
    entries = [code.syms[e] for e in a.entry.split(',') if e in code.syms]
    if not entries:
        sys.exit('kwalk: no entry function %s' % a.entry)
    mod_entry = None
    if a.module:
        ph = subprocess.run(['readelf', '-hlW', a.module], check=True, capture_output=True,
                            text=True).stdout
        rel = re.search(r'Type:\s+REL', ph) is not None
        if rel:  # a .ko as built: its .text (at 0) runs first; walked alone
            mdelta = int(a.modstart, 16)
        else:
            mseg = [l.split() for l in ph.splitlines() if l.strip().startswith('LOAD') and ' E ' in l]
            mdelta = int(a.modstart, 16) - int(mseg[0][2], 16)
        disasm(code, a.module, mdelta, rel)
        mod_entries = [code.syms[e] for e in a.modentry.split(',') if e in code.syms]
        mod_entry = mod_entries[0]
    code.finish()
    # retpolines: a call or jump through one is an indirect one (its ret
    # goes where the register says, not to the call's next instruction)
    thunks = {v for k, v in code.syms.items() if k.startswith(('__x86_indirect_thunk_',
                                                               '__x86_indirect_call_thunk_',
                                                               '__x86_indirect_jump_thunk_'))}
    ev = 'RETIRED_TAKEN_BRANCH_INSTRUCTIONS:%s' % ('u' if a.exclude_kernel else 'k')
    # (a :k event excludes user space, a :u one the kernel)
    print('event %s %d %d' % (ev, 0 if a.exclude_kernel else 1, 1 if a.exclude_kernel else 0))
    if not a.no_kernel_map:
        start = text + kaslr
        # (perf's kernel map runs up to the modules' area)
        print('mmap2 -1 k 0x%x 0x%x 0x%x 0 [kernel.kallsyms]_text' % (start, 0xffffffffc0000000 - start, start))
    if a.module:
        print('mmap -1 k %s 0x400000 0 /lib/modules/6.1.0-test/kernel/drivers/misc/%s.ko'
              % (a.modstart, a.modname))
    if a.build_id:
        print('buildid -1 k %s [kernel.kallsyms]' % a.build_id)
    print('mmap2 100 u 0x7f0000000000 0x100000 0 5 /usr/lib/x86_64-linux-gnu/libc.so.6')
    print('mmap2 101 u 0x7f0000000000 0x100000 0 5 /usr/lib/x86_64-linux-gnu/libc.so.6')
    print('mmap2 300 u 0x400000 0x10000 0 5 /usr/bin/app')
    lbr = []           # taken branches, oldest first
    written = 0
    pids = [100, 101]
    user_pc = 0x7f0000001000

    def taken(f, t):
        lbr.append((f, t))
        del lbr[:-a.entries]

    def sample(pid, mode, ip):
        nonlocal written
        br = ' '.join('0x%x/0x%x' % e for e in reversed(lbr))
        print('sample %d %s 0x%x %s' % (pid, mode, ip, br))
        written += 1

    def user_sample():
        ul = []
        pc = 0x401000 + rnd.randrange(0, 0x800, 4)
        for _ in range(a.entries):
            t = 0x401000 + rnd.randrange(0, 0x800, 4)
            ul.append('0x%x/0x%x' % (pc, t))
            pc = t + rnd.randrange(4, 64, 4)
        print('sample 300 u 0x%x %s' % (pc, ' '.join(reversed(ul))))

    while written < a.samples:
        pid = rnd.choice(pids)
        if a.user_only:
            user_sample()
            written += 1
            continue
        # A system call: from user space into the kernel's entry.
        entry = rnd.choice(entries)
        taken(user_pc + rnd.randrange(0, 0x100, 4), entry)
        pc, stack, steps, until = entry, [], 0, rnd.randrange(5, 20)
        while steps < a.max_steps:
            steps += 1
            br = code.next_branch(pc)
            if br is None:
                break
            at, mn, tgt, nxt = br
            if tgt in thunks:
                tgt = None
            go = None
            if mn.startswith('ret'):
                if not stack:
                    if a.amd:  # back to user space (ends there: not under Intel's :k)
                        taken(at, user_pc)
                    break
                go = stack.pop()
            elif mn.startswith('call'):
                if tgt is None:
                    if mod_entry is None:
                        break  # an indirect call: the walk ends
                    tgt = rnd.choice(mod_entries)
                stack.append(nxt)
                go = tgt
            elif mn.startswith('jmp'):
                if tgt is None:
                    break
                go = tgt
            elif mn.startswith('j'):
                back = tgt is not None and tgt < at
                if tgt is not None and rnd.random() < (0.85 if back else 0.5):
                    go = tgt
            else:  # ud2, int3, hlt: this path ends
                break
            if go is None:
                pc = nxt
                continue
            taken(at, go)
            pc = go
            until -= 1
            if until <= 0 and len(lbr) >= 2:
                sample(pid, 'k', pc)
                until = rnd.randrange(5, 20)
                if rnd.random() < 0.2:
                    user_sample()
                if written >= a.samples:
                    break
        if written >= a.samples:
            break


if __name__ == '__main__':
    sys.exit(main())
