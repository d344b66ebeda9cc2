#!/usr/bin/env python3
"""Checks cuda/ff_ptx.inc without a GPU: that it is what tools/gen_ptx_mul.py
writes now, and that its instruction sequences compute Montgomery products.

Each field's product blocks (mont, and the row block on sliding windows)
are parsed and run by a small emulator of the PTX instructions they use
(mad/madc .lo/.hi with and without .cc, add/addc, mul.lo/.hi, mov; one carry
flag), as cuda/ff.cuh's mul_ptx calls them (one mont block, or N rows on the
windows t + i with the result in t[N..2N-1]; then one conditional
subtraction). Any carry an instruction without
.cc would drop is an error, and so is a top word left non-zero. Operands:
edge values and random ones below p, compared with a * b / 2^(32N) mod p;
and b (the operand taken limb by limb) below 2p: the lazy product of the
NTT, below 2p before the final subtraction.

The mont2 block (a b + c d, one reduction) runs on edge and random
operands below p, its result below 2p and its top word 0.

The add, add2, sub, sub2 and red blocks run on edge and random operands of
their domains (sub: borrow semantics of sub/subc, as PTX defines them) and
are checked against Python's integers; no block may read an input after
writing an output (outputs may share inputs' registers).

The split blocks (mulrow, redrow) are run the same way: N mulrow rows must
give the exact 2N-word product of operands below 2p, N redrow rows must
reduce any T < p 2^(32N) to T / 2^(32N) mod p below 2p with no carry left.
The sqrwide block must give the exact 2N-word square of any a below
2^(32N - 1), and with the redrow rows the Montgomery square of a < p. The
sqrm block (the square and its reduction in one block, the mont block's
style) must give the Montgomery square of a < p below 2p, its top word 0.

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
if fresh != inc and not os.environ.get("CZ_PTX_CHECK_ANY"):  # (set: a planted mistake's run)
    print("%s: not what tools/gen_ptx_mul.py writes now (regenerate it)" % inc_path)
    sys.exit(1)


def parse(name, kind, nth=0):
    """The instructions of block cz_ptx_KIND_NAME: its nth definition (a
    field with p = 1 mod 2^32 has two mont and mont2 forms, #if
    CZ_CUDA_PTX_P1 / #else in the file)."""
    start = -1
    for _ in range(nth + 1):
        start = inc.index("cz_ptx_%s_%s(" % (kind, name), start + 1)
    body = inc[start:inc.index("\n}\n", start)]
    return [l for l in re.findall(r'"([a-z.][^"]*?);\\n\\t"', body) if not l.startswith(".reg")]


def forms(name, kind):
    """(label, instructions) of each definition of cz_ptx_KIND_NAME"""
    k = inc.count("void cz_ptx_%s_%s(" % (kind, name))
    return [("%s[P1=%d]" % (kind, 1 - i) if k > 1 else kind, parse(name, kind, i)) for i in range(k)]


def execute(lines, get, put, regs):
    """Runs the instructions (one carry flag); get/put read and write the
    block's operands %k and its .reg registers (regs)."""
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
        elif base in ("sub", "subc"):  # borrow semantics: CC.CF is the borrow
            v = get(args[1]) - get(args[2]) - (cc if base == "subc" else 0)
            if setcc:
                cc = 1 if v < 0 else 0
            put(args[0], v & M32)  # without .cc it wraps: subc m, c, 0 makes the mask 0 or -1
            continue
        elif base == "and":
            put(args[0], get(args[1]) & get(args[2]))
            continue
        elif base == "lop3":
            x, y, z, lut = get(args[1]), get(args[2]), get(args[3]), int(args[4], 0)
            put(args[0], sum(((lut >> ((((x >> k) & 1) << 2) | (((y >> k) & 1) << 1) | ((z >> k) & 1))) & 1) << k
                             for k in range(32)))
            continue
        elif base == "mul":
            prod = get(args[1]) * get(args[2])
            put(args[0], prod >> 32 if parts[1] == "hi" else prod)
            continue
        elif base == "shl":
            put(args[0], (get(args[1]) << int(args[2], 0)) & M32)
            continue
        elif base == "mov":
            put(args[0], get(args[1]))
            continue
        else:
            raise ValueError("instruction not emulated: %s" % line)
        if setcc:
            cc = v >> 32
        elif v >> 32:
            raise ValueError("a carry is lost: %s" % line)
        put(args[0], v)


def run_row(lines, n, w, a, b, c=None):
    """Runs a block on the window w[0..n] (operands %0..%n); a row or mulrow
    block reads a (%n+1..%2n) and b (%2n+1); a redrow block reads and writes
    the carry c[0] (%n+1) instead."""
    regs = {}

    def get(x):
        if x.startswith("%"):
            k = int(x[1:])
            if c is not None:
                if k > n + 1:
                    raise ValueError("operand %s of a reduction row" % x)
                return w[k] if k <= n else c[0]
            return w[k] if k <= n else a[k - n - 1] if k <= 2 * n else b
        return regs[x] if x in regs else int(x, 0)

    def put(x, v):
        if x.startswith("%"):
            k = int(x[1:])
            if c is not None and k == n + 1:
                c[0] = v & M32
                return
            if k > n:
                raise ValueError("writes input operand %s" % x)
            w[k] = v & M32
        else:
            regs[x] = v & M32

    execute(lines, get, put, regs)


def run_out(lines, n, ins):
    """Runs a block with outputs r = %0..%(n-1) and the input words ins at
    %n, %(n+1), ..; returns r (every word written). An input read after an
    output was written is an error: an output may share an input's register."""
    regs = {}
    r = [None] * n

    def get(x):
        if x.startswith("%"):
            k = int(x[1:])
            if k < n:
                if r[k] is None:
                    raise ValueError("reads output operand %s before writing it" % x)
                return r[k]
            if any(v is not None for v in r):
                raise ValueError("reads input operand %s after an output was written" % x)
            return ins[k - n]
        if x in regs:
            return regs[x]
        if x[0].isalpha():
            raise ValueError("reads register %s before writing it" % x)
        return int(x, 0)

    def put(x, v):
        if x.startswith("%"):
            k = int(x[1:])
            if k >= n:
                raise ValueError("writes input operand %s" % x)
            r[k] = v & M32
        else:
            regs[x] = v & M32

    execute(lines, get, put, regs)
    if None in r:
        raise ValueError("result word %d not written" % r.index(None))
    return r, regs


def run_mont(lines, n, a, b, pinv):
    """Runs a mont block: a = %n..%(2n-1), b = %2n..%(3n-1), and -1/p mod
    2^32 = %3n where the block reads it from constant memory; returns r. Its
    last instruction leaves the top word in m, which must be 0."""
    r, regs = run_out(lines, n, a + b + [pinv])
    if regs.get("m") != 0:
        raise ValueError("the product's top word is %s, not 0" % regs.get("m"))
    return r


def run_below_2p(lines, n, ins, p):
    """Runs a mont2 or sqrm block (run_out) and returns its result, which
    must be below 2p with the top word (left in m) 0."""
    r, regs = run_out(lines, n, ins)
    if regs.get("m") != 0:
        raise ValueError("the top word is %s, not 0" % regs.get("m"))
    got = sum(v << (32 * j) for j, v in enumerate(r))
    if got >= 2 * p:
        raise ValueError("the result is %#x >= 2p" % got)
    return got


def run_sqr(lines, n, t, a):
    """Runs a sqrwide block: t = %0..%(2n-1) (written), a = %2n..%(3n-1)."""
    regs = {}

    def get(x):
        if x.startswith("%"):
            k = int(x[1:])
            return t[k] if k < 2 * n else a[k - 2 * n]
        return regs[x] if x in regs else int(x, 0)

    def put(x, v):
        if x.startswith("%"):
            k = int(x[1:])
            if k >= 2 * n:
                raise ValueError("writes input operand %s" % x)
            t[k] = v & M32
        else:
            regs[x] = v & M32

    execute(lines, get, put, regs)


def miss(bad, msg):
    """One more wrong result: the first three are printed."""
    if bad < 3:
        print(msg)
    return bad + 1


fails = 0
rng = random.Random(1)
for name, (p, n64) in FIELDS.items():
    n = 2 * n64
    rowlines = parse(name, "row")
    ri = pow(1 << (32 * n), -1, p)

    def mul_mont(a, b, lazy=False, lines=None):
        al = [(a >> (32 * j)) & M32 for j in range(n)]
        bl = [(b >> (32 * j)) & M32 for j in range(n)]
        r = sum(v << (32 * j) for j, v in enumerate(run_mont(lines, n, al, bl, (-pow(p, -1, 2**32)) % 2**32)))
        return r if lazy else r - p if r >= p else r

    def mul_rows(a, b, lazy=False, lines=None):
        t = [0] * (2 * n + 1)
        al = [(a >> (32 * j)) & M32 for j in range(n)]
        bl = [(b >> (32 * j)) & M32 for j in range(n)]
        for i in range(n):
            w = t[i:i + n + 1]
            if w[n] != 0:
                raise ValueError("row %d: the window's top word is not 0 on entry" % i)
            run_row(rowlines, n, w, al, bl[i])
            t[i:i + n + 1] = w
        if t[2 * n] != 0:
            raise ValueError("the result does not fit N words")
        r = sum(t[n + j] << (32 * j) for j in range(n))
        return r if lazy else r - p if r >= p else r

    edge = [0, 1, 2, p - 1, p - 2, p // 2, (1 << (32 * n - 32)) % p] + [(M32 << (32 * j)) % p for j in range(n)]
    cases = [(x, y) for x in edge for y in edge] + [(rng.randrange(p), rng.randrange(p)) for _ in range(ncases)]
    # the lazy product (cuda/ff.cuh mul_lazy = mul_noreduce(b, a): no final
    # subtraction): the whole operand below p, the one taken limb by limb
    # below 2p, give a result below 2p
    lcases = [(x, y) for x in edge for y in edge + [p + e for e in edge]] + \
        [(rng.randrange(p), rng.randrange(2 * p)) for _ in range(ncases)]
    for form, mul, lines in [(f, mul_mont, l) for f, l in forms(name, "mont")] + [("row", mul_rows, None)]:
        bad = 0
        for x, y in cases + lcases:
            try:
                got = mul(x, y, lazy=True, lines=lines)
                if got >= 2 * p:
                    raise ValueError("the lazy product is %#x >= 2p" % got)
                got = got - p if got >= p else got
            except ValueError as e:
                print("%s %s: %s (a = %#x, b = %#x)" % (name, form, e, x, y))
                bad += 1
                continue
            if got != x * y * ri % p:
                bad = miss(bad, "%s %s: wrong product for a = %#x, b = %#x" % (name, form, x, y))
        print("%s: %d %s products (%d of them lazy), %d wrong" % (name, len(cases) + len(lcases), form, len(lcases), bad))
        fails += bad

    # the sum of products with one reduction (cuda/ff.cuh: mont2, the Fq2
    # product with CZ_CUDA_PTX_FQ2 and a b - c d with CZ_CUDA_PTX_MSUB): all
    # operands below p, the result below 2p, the top word 0
    pinv = (-pow(p, -1, 2**32)) % 2**32
    limbs = lambda v: [(v >> (32 * j)) & M32 for j in range(n)]
    terms = 2
    k = 2 * terms
    mcases = [(x, y) * terms for x in edge for y in edge] + [(x, y) + (y, x) * (terms - 1) for x in edge for y in edge] + \
        [(x, y) + (p - 1,) * (k - 2) for x in edge for y in edge] + \
        [tuple(rng.randrange(p) for _ in range(k)) for _ in range(ncases)]
    for form, mlines in forms(name, "mont%d" % terms):
        bad = 0
        for ops in mcases:
            try:
                got = run_below_2p(mlines, n, sum((limbs(v) for v in ops), []) + [pinv], p)
            except ValueError as e:
                print("%s %s: %s (operands %s)" % (name, form, e, ", ".join("%#x" % v for v in ops)))
                bad += 1
                continue
            if got % p != sum(ops[j] * ops[j + 1] for j in range(0, k, 2)) * ri % p:
                bad = miss(bad, "%s %s: wrong sum of products for %s" % (name, form, ", ".join("%#x" % v for v in ops)))
        print("%s: %d %s sums of products, %d wrong" % (name, len(mcases), form, bad))
        fails += bad

    # the split product of the Fq2 products (cuda/ff.cuh fp2 mul_lazy):
    # mulrow rows give a * b exactly for a, b < 2p (unreduced sums);
    # redrow rows reduce any T < p 2^(32N) to T / 2^(32N) mod p, below 2p
    mlines, rlines = parse(name, "mulrow"), parse(name, "redrow")

    def wide(a, b):
        t = [0] * (2 * n)
        al = [(a >> (32 * j)) & M32 for j in range(n)]
        bl = [(b >> (32 * j)) & M32 for j in range(n)]
        for i in range(n):
            w = t[i:i + n + 1]
            run_row(mlines, n, w, al, bl[i])
            t[i:i + n + 1] = w
        return sum(t[j] << (32 * j) for j in range(2 * n))

    def redc(T):
        t = [(T >> (32 * j)) & M32 for j in range(2 * n)]
        c = [0]
        for i in range(n):
            w = t[i:i + n + 1]
            run_row(rlines, n, w, None, None, c)
            t[i:i + n + 1] = w
        if c[0] != 0:
            raise ValueError("the reduction leaves a carry out of word 2N")
        r = sum(t[n + j] << (32 * j) for j in range(n))
        if r >= 2 * p:
            raise ValueError("the reduction leaves %#x >= 2p" % r)
        return r

    R = 1 << (32 * n)
    edge2 = edge + [2 * p - 1, 2 * p - 2, p, p + 1]
    wcases = [(x, y) for x in edge2 for y in edge2] + [(rng.randrange(2 * p), rng.randrange(2 * p)) for _ in range(ncases)]
    tcases = [0, 1, p, p * p, p * R - 1, p * R - p, (p - 1) * (p - 1), 2 * p * p - 1, R - 1, R] + \
        [rng.randrange(p * R) for _ in range(ncases)] + [rng.randrange(2 * p * p) for _ in range(ncases)]
    wbad = rbad = 0
    for x, y in wcases:
        try:
            if wide(x, y) != x * y:
                wbad = miss(wbad, "%s: wrong wide product for a = %#x, b = %#x" % (name, x, y))
        except ValueError as e:
            print("%s: %s (a = %#x, b = %#x)" % (name, e, x, y))
            wbad += 1
    for T in tcases:
        try:
            got = redc(T)
            if got % p != T * ri % p:
                rbad = miss(rbad, "%s: wrong reduction of T = %#x" % (name, T))
        except ValueError as e:
            print("%s: %s (T = %#x)" % (name, e, T))
            rbad += 1
    print("%s: %d wide products, %d wrong; %d reductions, %d wrong" % (name, len(wcases), wbad, len(tcases), rbad))
    fails += wbad + rbad

    # the squaring (cuda/ff.cuh sqr_ptx): sqrwide gives a^2 exactly for
    # a < 2^(32N - 1) (every field element, and 2p - 1), then the redrow rows
    slines = parse(name, "sqrwide")
    sbad = 0
    scases = edge2 + [(1 << (32 * n - 1)) - 1, (1 << (32 * n - 1)) - 2] + [rng.randrange(p) for _ in range(ncases)]
    for x in scases:
        t = [0] * (2 * n)
        try:
            run_sqr(slines, n, t, [(x >> (32 * j)) & M32 for j in range(n)])
            sq = sum(t[j] << (32 * j) for j in range(2 * n))
            if sq != x * x:
                sbad = miss(sbad, "%s: wrong square of a = %#x" % (name, x))
            elif x < p:
                got = redc(sq)
                got = got - p if got >= p else got
                if got != x * x * ri % p:
                    sbad = miss(sbad, "%s: wrong reduced square of a = %#x" % (name, x))
        except ValueError as e:
            print("%s: %s (a = %#x)" % (name, e, x))
            sbad += 1
    print("%s: %d squares, %d wrong" % (name, len(scases), sbad))
    fails += sbad

    # the mont-style squaring (cuda/ff.cuh sqr_ptx with CZ_CUDA_PTX_SQR and
    # CZ_CUDA_PTX_MONT): a below p, the result below 2p, the top word 0
    qcases = edge + [rng.randrange(p) for _ in range(ncases)]
    for form, qlines in forms(name, "sqrm"):
        qbad = 0
        for x in qcases:
            try:
                got = run_below_2p(qlines, n, limbs(x) + [pinv], p)
            except ValueError as e:
                print("%s %s: %s (a = %#x)" % (name, form, e, x))
                qbad += 1
                continue
            if got % p != x * x * ri % p:
                qbad = miss(qbad, "%s %s: wrong square of a = %#x" % (name, form, x))
        print("%s: %d %s squares, %d wrong" % (name, len(qcases), form, qbad))
        fails += qbad

def run_mod(lines, n, a, b):
    """Runs an add/sub/red block: a = %n.., b = %2n.. (none for red)."""
    return run_out(lines, n, a + b)[0]


# the additions and subtractions (cuda/ff.cuh with CZ_CUDA_PTX_ADD): their
# values, and (run_out) no input read after an output was written
for name, (p, n64) in FIELDS.items():
    n = 2 * n64
    limbs = lambda v: [(v >> (32 * j)) & M32 for j in range(n)]
    val = lambda w: sum(x << (32 * j) for j, x in enumerate(w))
    for kind in ("add", "add2", "sub", "sub2", "red"):
        P = 2 * p if kind.endswith("2") else p
        lines = parse(name, kind)
        bad = 0
        e = [0, 1, 2, P - 1, P - 2, P // 2, P // 2 + 1, M32, (1 << (32 * n - 32)) % P]
        if kind.startswith("add"):
            cases = [(x, y) for x in e for y in e if x + y < 2 * P] + \
                [(x, y) for x, y in ((rng.randrange(P), rng.randrange(P)) for _ in range(ncases))]
            want = lambda x, y: (x + y) % P
        elif kind.startswith("sub"):
            cases = [(x, y) for x in e for y in e] + [(rng.randrange(P), rng.randrange(P)) for _ in range(ncases)]
            want = lambda x, y: (x - y) % P
        else:
            e2 = e + [P, P + 1, 2 * P - 1, 2 * P - 2]
            cases = [(x, 0) for x in e2] + [(rng.randrange(2 * P), 0) for _ in range(ncases)]
            want = lambda x, y: x % P
        for x, y in cases:
            try:
                got = val(run_mod(lines, n, limbs(x), limbs(y)))
            except ValueError as err:
                print("%s %s: %s (a = %#x, b = %#x)" % (name, kind, err, x, y))
                bad += 1
                continue
            if got != want(x, y):
                bad = miss(bad, "%s %s: got %#x for a = %#x, b = %#x" % (name, kind, got, x, y))
        print("%s: %d %s cases, %d wrong" % (name, len(cases), kind, bad))
        fails += bad
sys.exit(1 if fails else 0)
