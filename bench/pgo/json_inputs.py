#!/usr/bin/env python3
# The inputs of the PGO suite's nlohmann-json program (bench/pgo/json.sh):
# `json_inputs.py train|time OUT`, JSON Lines (one document a line),
# deterministic (its own LCG, not Python's random: the same bytes on every
# Python).
#
# train: record-style documents: pages of 50 flat objects (ids, names,
#        e-mail addresses, a few tags, booleans, small integers and
#        prices), as a REST API or a log export gives.
# time:  other shapes: deeply nested configuration-like trees, numbers-heavy
#        documents (coordinate arrays, matrices of doubles, large and
#        negative integers, exponents) and strings full of escapes
#        (\n \t \" \\ \uXXXX, surrogate pairs, UTF-8).
import sys

state = 12345


def rnd(n):
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (state >> 33) % n


WORDS = ["alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "lambda",
         "node", "edge", "value", "item", "entry", "record", "field", "key"]


def word():
    return WORDS[rnd(len(WORDS))]


def num_str(x):
    return repr(x)


def train_doc(n):
    return "\n".join(train_page(50) for _ in range(n // 50)) + "\n"


def train_page(n):
    out = []
    for i in range(n):
        name = word().capitalize() + " " + word().capitalize()
        tags = ", ".join('"%s"' % word() for _ in range(rnd(4)))
        out.append('{"id": %d, "name": "%s", "email": "%s.%d@example.org", '
                   '"active": %s, "age": %d, "price": %d.%02d, "tags": [%s], '
                   '"manager": %s}'
                   % (i, name, word(), i, "true" if rnd(2) else "false",
                      18 + rnd(60), rnd(1000), rnd(100), tags,
                      "null" if rnd(3) else str(rnd(n))))
    return "[" + ", ".join(out) + "]"


ESC = ["\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u00e9", "\\u4e2d", "\\ud83d\\ude00",
       "\u00fc", "\u03bb", "\\r", "\\b", "\\f", "\\u0001"]


def esc_string():
    parts = []
    for _ in range(3 + rnd(10)):
        parts.append(word() if rnd(3) else ESC[rnd(len(ESC))])
    return '"' + " ".join(parts) + '"'


def number():
    k = rnd(5)
    if k == 0:
        return str(((rnd(1 << 31) << 31) | rnd(1 << 31)) - (1 << 61))
    if k == 1:
        return "%d.%de%d" % (rnd(10), rnd(1000000), rnd(40) - 20)
    if k == 2:
        return "-%d.%06d" % (rnd(1000), rnd(1000000))
    if k == 3:
        return str(rnd(100))
    return "%d.%d" % (rnd(100000), rnd(100000000))


def nested(depth):
    if depth == 0:
        k = rnd(4)
        if k == 0:
            return esc_string()
        if k == 1:
            return number()
        if k == 2:
            return "[" + ", ".join(number() for _ in range(2 + rnd(6))) + "]"
        return ["true", "false", "null"][rnd(3)]
    if rnd(2):
        return "{" + ", ".join('"%s_%d": %s' % (word(), j, nested(depth - 1))
                               for j in range(1 + rnd(4))) + "}"
    return "[" + ", ".join(nested(depth - 1) for _ in range(1 + rnd(3))) + "]"


def matrix(rows, cols):
    return "[" + ", ".join("[" + ",".join(number() for _ in range(cols)) + "]"
                            for _ in range(rows)) + "]"


def time_doc(n):
    parts = []
    for i in range(n):
        k = i % 3
        if k == 0:
            parts.append('{"config": %s}' % nested(7))
        elif k == 1:
            parts.append('{"type": "Polygon", "coordinates": %s}' % matrix(20, 8))
        else:
            parts.append('{"messages": [%s]}' % ", ".join(esc_string() for _ in range(30)))
    return "\n".join(parts) + "\n"


def main():
    kind, out = sys.argv[1], sys.argv[2]
    text = train_doc(4000) if kind == "train" else time_doc(300)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)


main()
