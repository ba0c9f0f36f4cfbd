# Timed workload of the CPython interpreter in the PGO suite
# (bench/pgo/cpython.sh), different code from the training one
# (py_train.py): n-body, a Richards-like scheduler, fannkuch, a pure-Python
# JSON-like serializer and parser, string formatting and sorting.
# Usage: python py_time.py N
import sys


def nbody(steps):
    bodies = [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 39.47],
              [4.84, -1.16, -0.10, 0.606, 2.81, -0.02, 0.037],
              [8.34, 4.12, -0.40, -1.01, 1.82, 0.008, 0.011],
              [12.89, -15.11, -0.22, 1.08, 0.868, -0.01, 0.0017],
              [15.37, -25.91, 0.179, 0.979, 0.594, -0.034, 0.002]]
    pairs = [(bodies[i], bodies[j]) for i in range(5) for j in range(i + 1, 5)]
    dt = 0.01
    for _ in range(steps):
        for a, b in pairs:
            dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** -1.5)
            bm, am = b[6] * mag, a[6] * mag
            a[3] -= dx * bm; a[4] -= dy * bm; a[5] -= dz * bm
            b[3] += dx * am; b[4] += dy * am; b[5] += dz * am
        for b in bodies:
            b[0] += dt * b[3]; b[1] += dt * b[4]; b[2] += dt * b[5]
    return bodies[0][0]


class Task:
    def __init__(self, ident, prio, work):
        self.ident, self.prio, self.work, self.done = ident, prio, work, 0

    def run(self, sched):
        self.done += 1
        if self.done >= self.work:
            return None
        if self.done % 3 == 0:
            sched.wake((self.ident + 1) % len(sched.tasks))
        return self


class Scheduler:
    def __init__(self, n):
        self.tasks = [Task(i, i % 4, 50 + i % 13) for i in range(n)]
        self.ready = list(self.tasks)
        self.woken = 0

    def wake(self, i):
        self.woken += 1

    def run(self):
        steps = 0
        while self.ready:
            nxt = []
            for t in sorted(self.ready, key=lambda t: t.prio):
                r = t.run(self)
                steps += 1
                if r is not None:
                    nxt.append(r)
            self.ready = nxt
        return steps + self.woken


def fannkuch(n):
    perm1 = list(range(n))
    count = [0] * n
    maxflips = checksum = 0
    r = n
    sign = 1
    while True:
        while r != 1:
            count[r - 1] = r
            r -= 1
        perm = perm1[:]
        flips = 0
        k = perm[0]
        while k:
            perm[:k + 1] = perm[k::-1]
            flips += 1
            k = perm[0]
        maxflips = max(maxflips, flips)
        checksum += flips * sign
        sign = -sign
        while True:
            if r == n:
                return checksum, maxflips
            p0 = perm1[0]
            perm1[:r] = perm1[1:r + 1]
            perm1[r] = p0
            count[r] -= 1
            if count[r] > 0:
                break
            r += 1


def dumps(v):
    if isinstance(v, dict):
        return "{" + ",".join('"%s":%s' % (k, dumps(x)) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)


def loads(s, i=0):
    c = s[i]
    if c == "{":
        d, i = {}, i + 1
        while s[i] != "}":
            j = s.index('"', i + 1)
            k = s[i + 1:j]
            v, i = loads(s, j + 2)
            d[k] = v
            if s[i] == ",":
                i += 1
        return d, i + 1
    if c == "[":
        a, i = [], i + 1
        while s[i] != "]":
            v, i = loads(s, i)
            a.append(v)
            if s[i] == ",":
                i += 1
        return a, i + 1
    if c == '"':
        j = s.index('"', i + 1)
        return s[i + 1:j], j + 1
    j = i
    while s[j] not in ",]}":
        j += 1
    t = s[i:j]
    return (float(t) if "." in t else int(t)), j


def serial(n):
    doc = {"items": [{"id": i, "name": "item%d" % i, "price": i * 1.25,
                      "tags": ["t%d" % (i % 5), "x"]} for i in range(n)]}
    s = dumps(doc)
    back, _ = loads(s)
    return len(s) + len(back["items"])


def text(n):
    rows = ["%-10s|%8.3f|%5d" % ("r%d" % i, i / 7.0, i * 31 % 1000) for i in range(n)]
    rows.sort(key=lambda r: (r[-5:], r[:4]))
    return sum(len(r.strip().replace("|", "")) for r in rows)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    r = 0.0
    for _ in range(n):
        r += nbody(40000) + Scheduler(300).run() + fannkuch(8)[0]
        r += serial(6000) + text(40000)
    print(r)


main()
