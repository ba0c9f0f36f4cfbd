# Training workload of the CPython interpreter in the PGO suite
# (bench/pgo/cpython.sh): small programs of the kinds a test suite runs,
# none of them the timed ones (py_time.py).  Usage: python py_train.py N
import sys


def tokenize(src):
    toks, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < n and src[j].isdigit():
                j += 1
            toks.append(("num", int(src[i:j])))
            i = j
        elif c.isalpha():
            j = i
            while j < n and src[j].isalnum():
                j += 1
            toks.append(("name", src[i:j]))
            i = j
        else:
            toks.append(("op", c))
            i += 1
    return toks


class Parser:
    def __init__(self, toks, env):
        self.toks, self.pos, self.env = toks, 0, env

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else ("eof", None)

    def expr(self):
        v = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.toks[self.pos][1]
            self.pos += 1
            w = self.term()
            v = v + w if op == "+" else v - w
        return v

    def term(self):
        v = self.atom()
        while self.peek() in (("op", "*"), ("op", "%")):
            op = self.toks[self.pos][1]
            self.pos += 1
            w = self.atom()
            v = v * w if op == "*" else (v % w if w else 0)
        return v

    def atom(self):
        kind, val = self.peek()
        self.pos += 1
        if kind == "num":
            return val
        if kind == "name":
            return self.env.get(val, 0)
        if val == "(":
            v = self.expr()
            self.pos += 1
            return v
        raise SyntaxError(val)


def calc(n):
    env = {"x%d" % i: i * 7 % 13 for i in range(20)}
    total = 0
    for i in range(n):
        src = "(x%d + %d) * (x%d - %d) %% 97 + x%d * 3" % (i % 20, i, (i * 3) % 20, i % 11, (i * 7) % 20)
        total += Parser(tokenize(src), env).expr()
    return total


def words(n):
    text = " ".join("w%d" % ((i * 2654435761) % 997) for i in range(n))
    counts = {}
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    return sum(c for _, c in top) + len(",".join(k.upper() for k, _ in top))


def gen_pipeline(n):
    def evens(it):
        for v in it:
            if v % 2 == 0:
                yield v

    def squares(it):
        for v in it:
            yield v * v

    return sum(squares(evens(range(n))))


class Shape:
    def area(self):
        raise NotImplementedError


class Rect(Shape):
    __slots__ = ("w", "h")

    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return 3.14159 * self.r * self.r


def shapes(n):
    objs = [Rect(i % 7, i % 5) if i % 3 else Circle(i % 4) for i in range(n)]
    return sum(o.area() for o in objs)


def errors(n):
    k = 0
    for i in range(n):
        try:
            if i % 3 == 0:
                raise ValueError(i)
            k += {"a": 1}["b" if i % 5 == 0 else "a"]
        except ValueError:
            k += 2
        except KeyError:
            k += 3
    return k


def regex(n):
    import re
    pat = re.compile(r"(\w+)@(\w+)\.(com|org)")
    s = " ".join("user%d@host%d.%s" % (i, i % 9, "com" if i % 2 else "org") for i in range(n))
    return sum(len(m.group(2)) for m in pat.finditer(s))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    r = 0
    for _ in range(n):
        r += calc(2000) + words(20000) + gen_pipeline(60000)
        r += int(shapes(20000)) + errors(20000) + regex(3000)
    print(r)


main()
