#!/usr/bin/env python3
"""Make create_llvm_prof 0.19's text profile readable.

Here it writes the names of some inlined callees as garbage bytes (a
dangling string; see ../shared/data/README.md), sometimes with line breaks
inside, so llvm-profdata and clang refuse the whole file.  This renames each
garbled callee to __garbled_name_N and leaves every count as it was.
Usage: fix_create_llvm_prof.py IN OUT
"""
import re
import sys

NAME = rb"[A-Za-z_.$][A-Za-z0-9_.$]*"
TOP = re.compile(rb"^" + NAME + rb":\d+:\d+$")
BODY = re.compile(rb"^\s+\d+(\.\d+)?: \d+( " + NAME + rb":\d+)*$")
INLINEE = re.compile(rb"^\s+\d+(\.\d+)?: " + NAME + rb":\d+$")
HEAD = re.compile(rb"^(\s+\d+(?:\.\d+)?: )(.*)$", re.S)

lines = open(sys.argv[1], "rb").read().split(b"\n")
out, n, i = [], 0, 0
while i < len(lines):
    line = lines[i]
    i += 1
    if not line or TOP.match(line) or BODY.match(line) or INLINEE.match(line):
        out.append(line)
        continue
    m = HEAD.match(line)
    if not m:
        continue  # a stray piece of a garbled name
    text = m.group(2)
    # the garbled name may run over line breaks: up to the first ":NUM" end
    while not re.search(rb":\d+$", text) and i < len(lines):
        text += b"\n" + lines[i]
        i += 1
    total = re.search(rb":(\d+)$", text)
    n += 1
    out.append(m.group(1) + b"__garbled_name_%d:" % n + (total.group(1) if total else b"0"))
open(sys.argv[2], "wb").write(b"\n".join(out))
