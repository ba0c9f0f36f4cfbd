# period_weigh.py BIN PERIOD < LBR-SCRIPT: llvm-profgen's --sample-period made
# explicit for llvm-profgen-19 (which lacks it): each sample line preceded
# by its aggregated count, PERIOD / (its entries touching BIN's code - 1).
import subprocess
import sys
binary, period = sys.argv[1], int(sys.argv[2])
code = []
for l in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == "LOAD" and "E" in f[7:-1]:
        code.append((int(f[2], 16), int(f[2], 16) + int(f[5], 16)))
inside = lambda a: any(lo <= int(a, 16) < hi for lo, hi in code)
for line in sys.stdin:
    k = sum(1 for e in line.split() if inside(e.split("/")[0]) or inside(e.split("/")[1]))
    sys.stdout.write("%d\n%s" % (period // (k - 1) if k > 1 else period, line))
