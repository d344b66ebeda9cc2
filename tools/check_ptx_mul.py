#!/usr/bin/env python3
"""Checks cuda/ff_ptx.inc without a GPU: that it is what tools/gen_ptx_mul.py
writes now, and that its instruction sequences compute Montgomery products.

Each field's row block is parsed and run by a small emulator of the PTX
instructions it uses (mad/madc .lo/.hi with and without .cc, addc, mul.lo;
one carry flag), inside the same loop as cuda/ff.cuh's mul_ptx (row i on the
window t + i, result t[N..2N-1], one conditional subtraction). Any carry an
instruction without .cc would drop is an error. Operands: edge values and
random ones below p, compared with a * b / 2^(32N) mod p.

Run: python3 tools/check_ptx_mul.py [cuda/ff_ptx.inc] [cases]  (exit 1 on a failure)
"""
import os
import random
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
inc_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "cuda", "ff_ptx.inc")
ncases = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
src = open(os.path.join(here, "gen_field_consts.py")).read()
ns = {}
exec(src.split("\ndef ")[0], ns)
FIELDS = ns["FIELDS"]
M32 = 0xFFFFFFFF

inc = open(inc_path).read()
fresh = subprocess.run([sys.executable, os.path.join(here, "gen_ptx_mul.py")], capture_output=True, text=True,
                       check=True).stdout
if fresh != inc:
    print("%s: not what tools/gen_ptx_mul.py writes now (regenerate it)" % inc_path)
    sys.exit(1)


def parse(name):
    start = inc.index("cz_ptx_row_%s(" % name)
    body = inc[start:inc.index("\n}\n", start)]
    return [l for l in re.findall(r'"([a-z.][^"]*?);\\n\\t"', body) if not l.startswith(".reg")]


def run_row(lines, n, w, a, b):
    regs = {}

    def get(x):
        if x.startswith("%"):
            k = int(x[1:])
            return w[k] if k <= n else a[k - n - 1] if k <= 2 * n else b
        return regs[x] if x in regs else int(x, 0)

    def put(x, v):
        if x.startswith("%"):
            k = int(x[1:])
            if k > n:
                raise ValueError("writes input operand %s" % x)
            w[k] = v & M32
        else:
            regs[x] = v & M32

    cc = 0
    for line in lines:
        op, rest = line.split(" ", 1)
        args = [s.strip() for s in rest.split(",")]
        parts = op.split(".")
        base, setcc = parts[0], "cc" in parts
        if base in ("mad", "madc"):
            prod = get(args[1]) * get(args[2])
            half = prod >> 32 if parts[1] == "hi" else prod & M32
            v = half + get(args[3]) + (cc if base == "madc" else 0)
        elif base in ("add", "addc"):
            v = get(args[1]) + get(args[2]) + (cc if base == "addc" else 0)
        elif base == "mul" and parts[1] == "lo":
            put(args[0], get(args[1]) * get(args[2]))
            continue
        else:
            raise ValueError("instruction not emulated: %s" % line)
        if setcc:
            cc = v >> 32
        elif v >> 32:
            raise ValueError("a carry is lost: %s" % line)
        put(args[0], v)


fails = 0
rng = random.Random(1)
for name, (p, n64) in FIELDS.items():
    n = 2 * n64
    lines = parse(name)
    ri = pow(1 << (32 * n), -1, p)

    def mul(a, b):
        t = [0] * (2 * n + 1)
        al = [(a >> (32 * j)) & M32 for j in range(n)]
        bl = [(b >> (32 * j)) & M32 for j in range(n)]
        for i in range(n):
            w = t[i:i + n + 1]
            if w[n] != 0:
                raise ValueError("row %d: the window's top word is not 0 on entry" % i)
            run_row(lines, n, w, al, bl[i])
            t[i:i + n + 1] = w
        if t[2 * n] != 0:
            raise ValueError("the result does not fit N words")
        r = sum(t[n + j] << (32 * j) for j in range(n))
        return r - p if r >= p else r

    edge = [0, 1, 2, p - 1, p - 2, p // 2, (1 << (32 * n - 32)) % p] + [(M32 << (32 * j)) % p for j in range(n)]
    cases = [(x, y) for x in edge for y in edge] + [(rng.randrange(p), rng.randrange(p)) for _ in range(ncases)]
    bad = 0
    for x, y in cases:
        try:
            got = mul(x, y)
        except ValueError as e:
            print("%s: %s (a = %#x, b = %#x)" % (name, e, x, y))
            bad += 1
            continue
        if got != x * y * ri % p:
            bad += 1
            if bad <= 3:
                print("%s: wrong product for a = %#x, b = %#x" % (name, x, y))
    print("%s: %d products, %d wrong" % (name, len(cases), bad))
    fails += bad
sys.exit(1 if fails else 0)
