#!/usr/bin/env python3
"""Write cuda/ff_ptx.inc: one Montgomery (CIOS) row per field as ONE inline
PTX block, so that the carry flag is never exposed between asm statements
(the compiler may put its own instructions, which clobber CC, between two
asm() statements; inside one block nothing is inserted).

Run: python3 tools/gen_ptx_mul.py > cuda/ff_ptx.inc
The primes come from tools/gen_field_consts.py (the same numbers as ff/).
Row i of a product a*b works on the window w = t + i of a 2N-word
accumulator t (w[N] = 0 on entry; w holds less than 2p < 2^(32N)):
  w += a * b_i   (two carry chains: the even limbs a_0, a_2, .. put the low
                  and high halves of a_j b_i at words j and j + 1, so the
                  chain runs over words 0..N-1 in lo/hi pairs of one
                  product, carry into word N; the odd limbs over 1..N)
  m  = w_0 * (-1/p) mod 2^32
  w += m * p     (the same two chains; w_0 becomes 0)
No word is shifted: row i + 1 takes the window one word up, and the result
is t[N..2N-1]. The sums fit N + 1 words (w < 2p + 2^33 p < 2^(32(N+1))
for every field here), so no chain carries out of word N. Constants are
immediates.

Two more blocks per field split the same work in two, for the Fq2 products
with one reduction per coefficient (cuda/ff.cuh fp2, merged reductions):
  cz_ptx_mulrow_NAME(w, a, b)  w += a * b_i only (w[N] = 0 on entry): N rows
                               give the 2N-word product a * b, for any
                               a, b < 2^(32N)
  cz_ptx_redrow_NAME(w, c)     m = w_0 (-1/p); w += m * p, plus the carry c
                               of the row before into w[N]; c = the carry out
                               of w[N] (0..2), for the next row: N rows on
                               the windows t + i of a 2N-word T < p 2^(32N)
                               leave T / 2^(32N) mod p, below 2p, in
                               t[N..2N-1] (and c = 0)
and one for the squaring (cuda/ff.cuh sqr_ptx, then the redrow rows):
  cz_ptx_sqrwide_NAME(t, a)    t = a^2, 2N words (t = 0 on entry), exact for
                               a < 2^(32N - 1): each a_i a_j (i < j) once,
                               doubled, plus the squares a_i^2
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "gen_field_consts.py")).read()
# only the FIELDS table (the module prints when run)
ns = {}
exec(src.split("\ndef ")[0], ns)
FIELDS = ns["FIELDS"]


def row(name, p, n64):
    n = 2 * n64
    pl = [(p >> (32 * i)) & 0xffffffff for i in range(n)]
    pinv = (-pow(p, -1, 2**32)) % 2**32
    # operands: the window w0..wn = %0..%n; a0..a{n-1} = %(n+1)..%(2n); b = %(2n+1)
    W = lambda j: "%%%d" % j
    A = lambda j: "%%%d" % (n + 1 + j)
    B = "%%%d" % (2 * n + 1)
    ins = ["{", ".reg .u32 m;"]

    chain_pair(ins, n, W, B, A)
    ins.append("mul.lo.u32 m, %s, 0x%08x;" % (W(0), pinv))
    chain_pair(ins, n, W, "m", lambda j: "0x%08x" % pl[j])
    ins.append("}")
    return block("row", name, n, "one CIOS row on the window w[0..%d], %d-word operands (p in immediates)" % (n, n),
                 ins, "const uint32_t (&a)[%d], uint32_t b" % n, ", ".join('"r"(a[%d])' % j for j in range(n)) + ', "r"(b)')


def chain_pair(ins, n, W, mul, coef, carry_in=None):
    """w += mul * coef over two carry chains: even j, lo at word j and hi at
    j + 1 (words 0..n-1, carry into n); odd j, lo at j and hi at j + 1
    (words 1..n). Each chain is a run of lo/hi pairs of the same product. With
    carry_in (a register), w[n] also takes carry_in and the carries out of
    w[n] go to carry_in (reused as the carry out)."""
    first = True
    for j in range(0, n, 2):
        ins.append("%s.lo.cc.u32 %s, %s, %s, %s;" % ("mad" if first else "madc", W(j), mul, coef(j), W(j)))
        first = False
        ins.append("madc.hi.cc.u32 %s, %s, %s, %s;" % (W(j + 1), mul, coef(j), W(j + 1)))
    if carry_in is None:
        ins.append("addc.u32 %s, %s, 0;" % (W(n), W(n)))
    else:
        ins.append("addc.cc.u32 %s, %s, %s;" % (W(n), W(n), carry_in))
        ins.append("addc.u32 %s, z, 0;" % carry_in)
    first = True
    for j in range(1, n, 2):
        last = j == n - 1
        cc = ".cc" if (not last or carry_in is not None) else ""
        ins.append("%s.lo.cc.u32 %s, %s, %s, %s;" % ("mad" if first else "madc", W(j), mul, coef(j), W(j)))
        first = False
        ins.append("madc.hi%s.u32 %s, %s, %s, %s;" % (cc, W(j + 1), mul, coef(j), W(j + 1)))
    if carry_in is not None:
        ins.append("addc.u32 %s, %s, 0;" % (carry_in, carry_in))


def mulrow(name, p, n64):
    n = 2 * n64
    W = lambda j: "%%%d" % j
    A = lambda j: "%%%d" % (n + 1 + j)
    ins = ["{"]
    chain_pair(ins, n, W, "%%%d" % (2 * n + 1), A)
    ins.append("}")
    return block("mulrow", name, n, "w[0..%d] += a b (w[%d] = 0 on entry), no reduction" % (n, n), ins,
                 "const uint32_t (&a)[%d], uint32_t b" % n, ", ".join('"r"(a[%d])' % j for j in range(n)) + ', "r"(b)')


def redrow(name, p, n64):
    n = 2 * n64
    pl = [(p >> (32 * i)) & 0xffffffff for i in range(n)]
    pinv = (-pow(p, -1, 2**32)) % 2**32
    W = lambda j: "%%%d" % j
    C = "%%%d" % (n + 1)
    ins = ["{", ".reg .u32 m;", ".reg .u32 z;", "mov.u32 z, 0;", "mul.lo.u32 m, %s, 0x%08x;" % (W(0), pinv)]
    chain_pair(ins, n, W, "m", lambda j: "0x%08x" % pl[j], carry_in=C)
    ins.append("}")
    return block("redrow", name, n, "one Montgomery reduction row on the window w[0..%d] with the carry c in and out" % n,
                 ins, "uint32_t &c", None, extra_out=C)


def sqrwide(name, p, n64):
    """t[0..2n-1] = a^2 exactly (t = 0 on entry), for a < 2^(32n - 1): the products a_i a_j
    (i < j) once each, row i in two chains (j - i odd at words 2i+1.., even
    at 2i+2..; row i reaches word i + n, which is 0 before it: the rows
    before it sum to less than 2^(32(i + n))), then the sum doubled (one
    chain) and the squares a_i^2 added (one chain). n(n - 1)/2 + n word
    products instead of the n^2 of a mulrow product."""
    n = 2 * n64
    T = lambda k: "%%%d" % k
    A = lambda j: "%%%d" % (2 * n + j)
    ins = ["{"]
    for i in range(n - 1):
        top = i + n
        for par in (1, 2):
            js = list(range(i + par, n, 2))
            if not js:
                continue
            ops = []
            for j in js:
                ops.append(("lo", j, i + j))
                ops.append(("hi", j, i + j + 1))
            last = i + js[-1] + 1
            prop = list(range(last + 1, top + 1))
            for idx, (h, j, w) in enumerate(ops):
                final = idx == len(ops) - 1 and not prop
                ins.append("%s.%s%s.u32 %s, %s, %s, %s;" % ("mad" if idx == 0 else "madc", h, "" if final else ".cc",
                                                          T(w), A(i), A(j), T(w)))
            for idx, w in enumerate(prop):
                ins.append("addc%s.u32 %s, %s, 0;" % ("" if idx == len(prop) - 1 else ".cc", T(w), T(w)))
    for k in range(1, 2 * n):
        ins.append("%s%s.u32 %s, %s, %s;" % ("add" if k == 1 else "addc", "" if k == 2 * n - 1 else ".cc", T(k), T(k), T(k)))
    for j in range(n):
        for h, w in (("lo", 2 * j), ("hi", 2 * j + 1)):
            final = w == 2 * n - 1
            ins.append("%s.%s%s.u32 %s, %s, %s, %s;" % ("mad" if w == 0 else "madc", h, "" if final else ".cc", T(w),
                                                      A(j), A(j), T(w)))
    ins.append("}")
    outs = ", ".join('"+r"(t[%d])' % k for k in range(2 * n))
    body = "\n".join('        "%s\\n\\t"' % s for s in ins)
    return (
        "/* %s: t[0..%d] = a^2 (t = 0 on entry; 2N words, exact for a < 2^(32N - 1)), no reduction */\n"
        "__device__ __forceinline__ void cz_ptx_sqrwide_%s(uint32_t *t, const uint32_t (&a)[%d])\n"
        "{\n"
        "    asm(\n%s\n        : %s\n        : %s);\n"
        "}\n" % (name, 2 * n - 1, name, n, body, outs, ", ".join('"r"(a[%d])' % j for j in range(n)))
    )


def block(kind, name, n, what, ins, params, ins_, extra_out=None):
    outs = ", ".join('"+r"(w[%d])' % j for j in range(n + 1))
    if extra_out is not None:
        outs += ', "+r"(c)'
    body = "\n".join('        "%s\\n\\t"' % s for s in ins)
    return (
        "/* %s: %s */\n"
        "__device__ __forceinline__ void cz_ptx_%s_%s(uint32_t *w, %s)\n"
        "{\n"
        "    asm(\n%s\n        : %s%s);\n"
        "}\n" % (name, what, kind, name, params, body, outs, "\n        : " + ins_ if ins_ else "")
    )


print("/* Generated by tools/gen_ptx_mul.py from the primes of tools/gen_field_consts.py: do not edit. */")
print("/* (included by cuda/ff.cuh in device code built with CZ_CUDA_PTX) */")
for name, (p, n64) in FIELDS.items():
    print(row(name, p, n64))
    print(mulrow(name, p, n64))
    print(redrow(name, p, n64))
    print(sqrwide(name, p, n64))
