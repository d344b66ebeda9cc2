#!/usr/bin/env python3
"""Write cuda/ff_ptx.inc: the Montgomery (CIOS) product of each field as ONE
inline PTX block, so that the carry flag is never exposed between asm
statements (the compiler may put its own instructions, which clobber CC,
between two asm() statements; inside one block nothing is inserted).

Run: python3 tools/gen_ptx_mul.py > cuda/ff_ptx.inc
The primes come from tools/gen_field_consts.py (the same numbers as ff/).

  cz_ptx_mont_NAME(r, a, b)    r = a b / 2^(32N) mod p, below 2p (no final
                               subtraction), b taken limb by limb
                               (cuda/ff.cuh with CZ_CUDA_PTX_MONT); for p = 1
                               mod 2^32 in two forms, #if CZ_CUDA_PTX_P1
                               (mont and mont2 below)
  cz_ptx_mont2_NAME(r, a, b, c, d)
                               r = (a b + c d) / 2^(32N) mod p, below 2p, for
                               a, b, c, d below p: the same rows with both
                               products added before each reduction (cuda/ff.cuh
                               fp2 with CZ_CUDA_PTX_FQ2: an Fq2 product is two
                               of these, no Karatsuba sums; with
                               CZ_CUDA_PTX_MSUB, a b - c d as a b + c (p - d))
  cz_ptx_sqrm_NAME(r, a)       r = a^2 / 2^(32N) mod p, below 2p, for a below p:
                               the mont block's rows over the square's
                               triangle, N(N + 1)/2 word products for the
                               square instead of N^2 (cuda/ff.cuh sqr_ptx
                               with CZ_CUDA_PTX_SQR and CZ_CUDA_PTX_MONT;
                               mont() below, square=True)
  cz_ptx_add_NAME(r, a, b)     r = a + b mod p (a + b < 2p); add2: mod 2p
                               (a + b < 4p, the NTT's lazy sum)
  cz_ptx_sub_NAME(r, a, b)     r = a - b mod p (a, b < p); sub2: mod 2p
  cz_ptx_red_NAME(r, a)        r = a mod p (a < 2p): the products' final
                               subtraction
                               (these with CZ_CUDA_PTX_ADD: one chain for the
                               sum or difference, one for the correction, a
                               select by a mask; no output written before the
                               last read of an input)
  cz_ptx_row_NAME(w, a, b)     one CIOS row of the same product on the window
                               w = t + i of a 2N-word accumulator t (w[N] = 0
                               on entry); N rows leave it in t[N..2N-1] (with
                               -DCZ_CUDA_PTX_MONT=OFF; the mont block, timed
                               faster on the H200, is the default)

The product keeps its running sum V in two accumulators of N + 2 words,
V = E + 2^32 O: E takes the products of the even limbs of a (a_2k b_i at
words 2k, 2k + 1), O those of the odd limbs (a_(2k+1) b_i at words 2k, 2k + 1
of O, one word up). So every lo/hi pair of a carry chain lands on words
(2k, 2k + 1) of one array, which ptxas fuses into one IMAD.WIDE.U32(.X) on
an aligned register pair, with no register moves between them. Row i:
  m  = E_0 (-1/p) mod 2^32;  E += m p_even, O += m p_odd  (E_0 becomes 0)
  V / 2^32 = O + E_1 + 2^32 (E >> 64): the next row's E is O in place (E_1
     added at its word 0, the carry going into the first pair of the next
     chain, which sits one word up), its O is E shifted down two words in
     the same instructions that add a_odd b_(i+1) (a multiply-add reads
     words 2k + 2, 2k + 3 and writes 2k, 2k + 1: aligned pairs both)
and the arrays swap roles every row; the result is O + (E >> 32). One
operand below p and the other below 2p give a result below 2p, the sums
fitting the arrays with no carry lost (tools/check_ptx_mul.py runs every
instruction). (The row blocks slide one window a word up per row over a 2N-word
accumulator: the windows' pairs alternate between even and odd registers,
and ptxas inserts about one move per multiply-add: ~160 moves per 254-bit
product.)

Two more blocks per field split the same work in two, for the Fq2 products
with one reduction per coefficient (cuda/ff.cuh fp2, merged reductions, the
BN254 G2 MSM) and the merged a b - c d (off by default); they still slide a
window a word up per row (with its register moves):
  cz_ptx_mulrow_NAME(w, a, b)  w += a * b_i only (w[N] = 0 on entry): N rows
                               give the 2N-word product a * b, for any
                               a, b < 2^(32N)
  cz_ptx_redrow_NAME(w, c)     m = w_0 (-1/p); w += m * p, plus the carry c
                               of the row before into w[N]; c = the carry out
                               of w[N] (0..2), for the next row: N rows on
                               the windows t + i of a 2N-word T < p 2^(32N)
                               leave T / 2^(32N) mod p, below 2p, in
                               t[N..2N-1] (and c = 0)
and one for the squaring (cuda/ff.cuh sqr_ptx, then the redrow rows; off by
default, a a through mont is shorter):
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


def mont_forms(name, p, n64, terms=1, square=False):
    """The mont block of a field (square=True: its sqrm block); for p = 1
    mod 2^32 both forms (below), the one by additions under CZ_CUDA_PTX_P1
    (the default since it ran on the H100, 2026-12-05), the one with -1/p
    from constant memory otherwise."""
    if p & 0xffffffff != 1:
        return mont(name, p, n64, terms, square=square)
    return "#if CZ_CUDA_PTX_P1\n%s#else\n%s#endif\n" % (mont(name, p, n64, terms, square=square),
                                                         mont(name, p, n64, terms, unit=False, square=square))


def mont(name, p, n64, terms=1, unit=True, square=False):
    """terms 1: cz_ptx_mont (a b); 2: cz_ptx_mont2 (a b + c d, one reduction:
    each row adds c_even d_i and c_odd d_i into the same accumulators after
    a's, then reduces once). (A sum of four, for the Fq2 a b - c d, was
    built: its 8 operands spilled in the G2 kernels, STL 170 -> 462.)
    unit=False: for p = 1 mod 2^32, the form with -1/p from constant memory
    (below).

    square=True: cz_ptx_sqrm (a^2, a below p, result below 2p) in the same
    rows: row i adds a_i c_i with c_i = (a_i at limb i, 2 a_j at limbs j > i,
    0 below), which sum to a^2 with N(N + 1)/2 word products instead of
    N^2. The doubled limbs are d = 2a (one addition chain; 2a < 2^(32N),
    every field's top limb is below 2^31), but limb i + 1 of row i is
    a_(i+1) << 1 (the bit a_i would carry into it belongs to a_i's own
    term). A zero limb costs nothing in the chain of the even limbs (it
    starts later) and two additions in the chain of the odd limbs, which
    also shifts the words down. The running value stays below 2a + p (a row
    adds below 2^32 2a)."""
    n = 2 * n64
    pl = [(p >> (32 * i)) & 0xffffffff for i in range(n)]
    pinv = (-pow(p, -1, 2**32)) % 2**32
    # operands: r = %0..%(n-1) (written), a = %n..%(2n-1), b = %2n..%(3n-1)
    # (terms 2: c = %3n..%(4n-1), d = %4n..%(5n-1))
    R = lambda j: "%%%d" % j
    A = lambda j: "%%%d" % (n + j)
    B = lambda j: "%%%d" % (2 * n + j)
    C = lambda j: "%%%d" % (3 * n + j)
    D = lambda j: "%%%d" % (4 * n + j)
    P = lambda j: "0x%08x" % pl[j]
    X = ["x%d" % j for j in range(n + 2)]
    Y = ["y%d" % j for j in range(n + 2)]
    ins = ["{", ".reg .u32 m, %s;" % ", ".join(X + Y)]
    if square:  # d = 2a; s: limb i + 1 of row i
        Dd = ["d%d" % j for j in range(n)]
        ins[1] = ".reg .u32 m, s, %s;" % ", ".join(X + Y + Dd)
        for j in range(n):
            ins.append("%s%s.u32 %s, %s, %s;" % ("add" if j == 0 else "addc", "" if j == n - 1 else ".cc", Dd[j], A(j), A(j)))

    def limb(i, j):
        """the operands of the word product of row i, limb j: (x, y), or None for 0"""
        if not square:
            return A(j), B(i)
        if j < i:
            return None
        if j == i:
            return A(i), A(i)
        if j == i + 1:
            ins.append("shl.b32 s, %s, 1;" % A(i + 1))
            return "s", A(i)
        return Dd[j], A(i)
    # p = 1 mod 2^32 (BLS12-381's r; then -1/p = -1 mod 2^32): m = -E_0, one
    # integer subtraction, and E_0 + m p_0 = E_0 + m = 0 with a carry out
    # unless E_0 = 0, two additions on the integer pipe in place of the
    # first multiply-add pair (m p_0 has no high word); sm_90 k_pass of
    # BLS12-381 r, FMA-pipe instructions 1532 -> 1444 and 1531 -> 1403.
    # unit=False: with the pair kept, a visible m = -E_0 makes ptxas split
    # the m p chains into separate lo and hi multiply-adds (96 more per
    # product), so -1/p is read from constant memory, opaque to it.
    unit = unit and pl[0] == 1
    opaque = not unit and pinv == 0xffffffff
    PINV = "%%%d" % ((2 if square else 2 * terms + 1) * n) if opaque else "0x%08x" % pinv
    E, O = X, Y
    # row 0: E = a_even b_0, O = a_odd b_0 (no sums: the pairs do not overlap)
    for k in range(0, n, 2):
        for arr, j in ((E, k), (O, k + 1)):
            x, y = limb(0, j)
            ins.append("mul.lo.u32 %s, %s, %s;" % (arr[k], x, y))
            ins.append("mul.hi.u32 %s, %s, %s;" % (arr[k + 1], x, y))
    for r in (E[n], E[n + 1], O[n], O[n + 1]):  # words n + 1 stay 0 (the shifts read them)
        ins.append("mov.u32 %s, 0;" % r)

    def more(E, O, i):
        """terms 2: E += c_even d_i, O += c_odd d_i, carries into word n"""
        if terms == 1:
            return
        for arr, off in ((E, 0), (O, 1)):
            for k in range(0, n, 2):
                ins.append("%s.lo.cc.u32 %s, %s, %s, %s;" % ("mad" if k == 0 else "madc", arr[k], C(k + off), D(i), arr[k]))
                ins.append("madc.hi.cc.u32 %s, %s, %s, %s;" % (arr[k + 1], C(k + off), D(i), arr[k + 1]))
            ins.append("addc.u32 %s, %s, 0;" % (arr[n], arr[n]))

    more(E, O, 0)

    def reduce(E, O):
        if unit:
            ins.append("sub.u32 m, 0, %s;" % E[0])
        else:
            ins.append("mul.lo.u32 m, %s, %s;" % (E[0], PINV))
        for arr, off in ((E, 0), (O, 1)):
            for k in range(0, n, 2):
                if k + off == 0 and unit:  # E_0 + m p_0 = E_0 + m: 0, carry (E_0 != 0)
                    ins.append("add.cc.u32 %s, %s, m;" % (arr[0], arr[0]))
                    ins.append("addc.cc.u32 %s, %s, 0;" % (arr[1], arr[1]))
                    continue
                ins.append("%s.lo.cc.u32 %s, m, %s, %s;" % ("mad" if k == 0 else "madc", arr[k], P(k + off), arr[k]))
                ins.append("madc.hi.cc.u32 %s, m, %s, %s;" % (arr[k + 1], P(k + off), arr[k + 1]))
            ins.append("addc.u32 %s, %s, 0;" % (arr[n], arr[n]))

    reduce(E, O)
    for i in range(1, n):
        # E_1 into O's word 0; its carry goes to word 1 = the new O's word 0
        ins.append("add.cc.u32 %s, %s, %s;" % (O[0], O[0], E[1]))
        for k in range(0, n, 2):  # new O = (E >> 64) + a_odd b_i, in place
            xy = limb(i, k + 1)
            if xy is None:  # only the shift
                ins.append("addc.cc.u32 %s, %s, 0;" % (E[k], E[k + 2]))
                ins.append("addc.cc.u32 %s, %s, 0;" % (E[k + 1], E[k + 3]))
                continue
            ins.append("madc.lo.cc.u32 %s, %s, %s, %s;" % (E[k], xy[0], xy[1], E[k + 2]))
            ins.append("madc.hi.cc.u32 %s, %s, %s, %s;" % (E[k + 1], xy[0], xy[1], E[k + 3]))
        ins.append("addc.u32 %s, %s, 0;" % (E[n], E[n + 1]))
        first = True
        for k in range(0, n, 2):  # new E = O + a_even b_i, in place
            xy = limb(i, k)
            if xy is None:
                continue
            ins.append("%s.lo.cc.u32 %s, %s, %s, %s;" % ("mad" if first else "madc", O[k], xy[0], xy[1], O[k]))
            ins.append("madc.hi.cc.u32 %s, %s, %s, %s;" % (O[k + 1], xy[0], xy[1], O[k + 1]))
            first = False
        ins.append("addc.u32 %s, %s, 0;" % (O[n], O[n]))
        E, O = O, E
        more(E, O, i)
        reduce(E, O)
    # r = V / 2^32 = O + (E >> 32); the top word (m) is 0 (checked by the emulator)
    for j in range(n):
        ins.append("%s.cc.u32 %s, %s, %s;" % ("add" if j == 0 else "addc", R(j), O[j], E[j + 1]))
    ins.append("addc.u32 m, %s, %s;" % (O[n], E[n + 1]))
    ins.append("}")
    body = "\n".join('        "%s\\n\\t"' % s for s in ins)
    if square:
        inputs = ['"r"(a[%d])' % j for j in range(n)] + (['"r"(cz_ptx_pinv_%s)' % name] if opaque else [])
        return (
            "/* %s: r = a^2 / 2^(32N) mod p, below 2p (a below p): the product's rows over the square's triangle */\n"
            "__device__ __forceinline__ void cz_ptx_sqrm_%s(uint32_t (&r)[%d], const uint32_t (&a)[%d])\n"
            "{\n"
            "    asm(\n%s\n        : %s\n        : %s);\n"
            "}\n" % (name, name, n, n, body, ", ".join('"=r"(r[%d])' % j for j in range(n)), ", ".join(inputs)))
    ops = "abcd"[:2 * terms]
    inputs = ['"r"(%s[%d])' % (x, j) for x in ops for j in range(n)]
    const = ""
    if opaque:
        inputs.append('"r"(cz_ptx_pinv_%s)' % name)
        if terms == 1:  # (one definition per field, before its first block)
            const = "static __constant__ uint32_t cz_ptx_pinv_%s = 0x%08x; /* -1/p mod 2^32 */\n" % (name, pinv)
    what = ("r = a b / 2^(32N) mod p, below 2p (one operand below p, the other below 2p)" if terms == 1 else
            "r = (a b + c d) / 2^(32N) mod p, below 2p (all four below p), one reduction")
    params = ", ".join("const uint32_t (&%s)[%d]" % (x, n) for x in ops)
    return (
        "%s/* %s: %s */\n"
        "__device__ __forceinline__ void cz_ptx_mont%s_%s(uint32_t (&r)[%d], %s)\n"
        "{\n"
        "    asm(\n%s\n        : %s\n        : %s);\n"
        "}\n" % (const, name, what, "" if terms == 1 else "2", name, n, params, body,
                 ", ".join('"=r"(r[%d])' % j for j in range(n)), ", ".join(inputs)))


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


def modadd(name, p, n64, kind):
    """kind "add": r = a + b - P if that is >= 0 else a + b; "sub": r = a - b,
    plus P if that is negative; "red": r = a - P if that is >= 0 else a; P =
    p, or 2p for the lazy forms ("add2", "sub2"). a + b may carry out of the
    top word (BLS12-381 r: 4p > 2^256): that carry joins the borrow of the
    subtraction. One chain for the sum or difference, one for the correction,
    then a select by a mask (lop3) or the masked P added. No output is written
    before the last read of an input (an output may share an input's
    register)."""
    n = 2 * n64
    twice = kind.endswith("2")
    base = kind.rstrip("2")
    P = 2 * p if twice else p
    pl = [(P >> (32 * i)) & 0xffffffff for i in range(n)]
    R = lambda j: "%%%d" % j
    A = lambda j: "%%%d" % (n + j)
    B = lambda j: "%%%d" % (2 * n + j)
    S = ["s%d" % j for j in range(n)]
    T = ["t%d" % j for j in range(n)]
    ins = ["{", ".reg .u32 c, m, %s;" % ", ".join(S + T), "mov.u32 c, 0;"]  # c: 0, then the sum's carry
    if base == "sub":
        for j in range(n):
            ins.append("%s.cc.u32 %s, %s, %s;" % ("sub" if j == 0 else "subc", T[j], A(j), B(j)))
        ins.append("subc.u32 m, c, 0;")  # -1 on a borrow
        for j in range(n):
            ins.append("and.b32 %s, m, 0x%08x;" % (S[j], pl[j]))
        for j in range(n):  # its carry out cancels the borrow
            ins.append("%s.cc.u32 %s, %s, %s;" % ("add" if j == 0 else "addc", R(j), T[j], S[j]))
    else:
        src = A
        if base == "add":
            for j in range(n):
                ins.append("%s.cc.u32 %s, %s, %s;" % ("add" if j == 0 else "addc", S[j], A(j), B(j)))
            ins.append("addc.u32 c, c, 0;")
            src = lambda j: S[j]
        for j in range(n):
            ins.append("%s.cc.u32 %s, %s, 0x%08x;" % ("sub" if j == 0 else "subc", T[j], src(j), pl[j]))
        ins.append("subc.u32 m, c, 0;")  # -1: below P (keep the sum), 0: take the difference
        for j in range(n):  # t = m ? s : t  (lop3 0xE4 = (m & s) | (~m & t); s = a for "red")
            ins.append("lop3.b32 %s, %s, %s, m, 0xe4;" % (T[j], src(j), T[j]))
        for j in range(n):
            ins.append("mov.u32 %s, %s;" % (R(j), T[j]))
    ins.append("}")
    body = "\n".join('        "%s\\n\\t"' % x for x in ins)
    what = {"add": "a + b mod P, for a + b < 2P", "sub": "a - b mod P, for a, b < P",
            "red": "a mod P, for a < 2P"}[base]
    args = "uint32_t (&r)[%d], const uint32_t (&a)[%d]" % (n, n)
    inputs = ['"r"(a[%d])' % j for j in range(n)]
    if base != "red":
        args += ", const uint32_t (&b)[%d]" % n
        inputs += ['"r"(b[%d])' % j for j in range(n)]
    return (
        "/* %s: r = %s, P = %s */\n"
        "__device__ __forceinline__ void cz_ptx_%s_%s(%s)\n"
        "{\n"
        "    asm(\n%s\n        : %s\n        : %s);\n"
        "}\n" % (name, what, "2p" if twice else "p", kind, name, args, body,
                 ", ".join('"=r"(r[%d])' % j for j in range(n)), ", ".join(inputs)))


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
    print(mont_forms(name, p, n64))
    print(mont_forms(name, p, n64, terms=2))
    for kind in ("add", "add2", "sub", "sub2", "red"):
        print(modadd(name, p, n64, kind))
    print(mulrow(name, p, n64))
    print(redrow(name, p, n64))
    print(sqrwide(name, p, n64))
    print(mont_forms(name, p, n64, square=True))
