#!/usr/bin/env python3
"""Print the endomorphism constants of cuzk's fast subgroup checks (Montgomery form).

Run: python3 tools/gen_endo_consts.py > ec/ec_endo_consts.inc

  BLS12-381 G1  phi(x, y) = (beta x, y), beta a cube root of unity in Fq chosen
                so that phi acts on G1 as multiplication by -z^2 (z the curve
                parameter -0xd201000000010000).
  BLS12-381 G2  psi(x, y) = (conj(x) cx, conj(y) cy), cx = (1+u)^(-(q-1)/3),
                cy = (1+u)^(-(q-1)/2) (M-twist): acts on G2 as z (= q mod r).
  BN254 G2      psi(x, y) = (conj(x) cx, conj(y) cy), cx = (9+u)^((q-1)/3),
                cy = (9+u)^((q-1)/2) (D-twist): acts on G2 as q mod r = 6 z^2.
Each eigenvalue is asserted here on the generators with plain affine
arithmetic; tests/test_ec.c re-checks them with GMP on random points.
"""

Q_BLS = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R_BLS = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
Z_BLS = -0xD201000000010000
Q_BN = 21888242871839275222246405745257275088696311157297823662689037894645226208583
R_BN = 21888242871839275222246405745257275088548364400416034343698204186575808495617
Z_BN = 4965661367192848881


class F2:
    """Fq[u]/(u^2 + 1)"""

    def __init__(self, q, a, b=0):
        self.q, self.a, self.b = q, a % q, b % q

    def __add__(s, o):
        return F2(s.q, s.a + o.a, s.b + o.b)

    def __sub__(s, o):
        return F2(s.q, s.a - o.a, s.b - o.b)

    def __mul__(s, o):
        if isinstance(o, int):
            return F2(s.q, s.a * o, s.b * o)
        return F2(s.q, s.a * o.a - s.b * o.b, s.a * o.b + s.b * o.a)

    def __eq__(s, o):
        return s.a == o.a and s.b == o.b

    def __pow__(s, e):
        r, b = F2(s.q, 1), s
        while e:
            if e & 1:
                r = r * b
            b = b * b
            e >>= 1
        return r

    def inv(s):
        n = pow(s.a * s.a + s.b * s.b, -1, s.q)
        return F2(s.q, s.a * n, -s.b * n)

    def conj(s):
        return F2(s.q, s.a, -s.b)

    def is_zero(s):
        return s.a == 0 and s.b == 0


def ec_add(P1, P2, one):
    if P1 is None:
        return P2
    if P2 is None:
        return P1
    (x1, y1), (x2, y2) = P1, P2
    if x1 == x2:
        if (y1 + y2).is_zero() if isinstance(y1, F2) else (y1 + y2) % Q == 0:
            return None
        lam = (x1 * x1 * 3) * ((y1 * 2).inv() if isinstance(y1, F2) else pow(2 * y1, -1, Q))
    else:
        lam = (y2 - y1) * ((x2 - x1).inv() if isinstance(x1, F2) else pow(x2 - x1, -1, Q))
    if isinstance(x1, F2):
        x3 = lam * lam - x1 - x2
        return (x3, lam * (x1 - x3) - y1)
    x3 = (lam * lam - x1 - x2) % Q
    return (x3, (lam * (x1 - x3) - y1) % Q)


def ec_mul(P, k, one=None):
    if k < 0:
        x, y = P
        P = (x, (F2(y.q, 0) - y) if isinstance(y, F2) else (-y) % Q)
        k = -k
    R = None
    while k:
        if k & 1:
            R = ec_add(R, P, one)
        P = ec_add(P, P, one)
        k >>= 1
    return R


def mont(x, q, n):
    x = (x * 2 ** (64 * n)) % q
    return "{{" + ", ".join("0x%016xULL" % ((x >> (64 * i)) & (2**64 - 1)) for i in range(n)) + "}}"


out = []

# ---- BLS12-381 G1: beta ----
Q = Q_BLS
G1 = (
    0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
    0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1,
)
lam = (-Z_BLS * Z_BLS) % R_BLS
target = ec_mul(G1, lam)
beta = None
g = 2
while beta is None:
    c = pow(g, (Q - 1) // 3, Q)
    if c != 1 and (G1[0] * c % Q, G1[1]) == target:
        beta = c
    g += 1
assert pow(beta, 3, Q) == 1
out.append("#define CZ_BLS12_381_G1_BETA %s" % mont(beta, Q, 6))

# ---- BLS12-381 G2: psi ----
xi = F2(Q, 1, 1)
cx = (xi ** ((Q - 1) // 3)).inv()
cy = (xi ** ((Q - 1) // 2)).inv()
G2 = (
    F2(Q, 0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
       0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
    F2(Q, 0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
       0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE),
)
psiG = (G2[0].conj() * cx, G2[1].conj() * cy)
assert psiG == ec_mul(G2, Z_BLS), "BLS12-381 psi eigenvalue"
out.append("#define CZ_BLS12_381_G2_PSI_X {%s, %s}" % (mont(cx.a, Q, 6), mont(cx.b, Q, 6)))
out.append("#define CZ_BLS12_381_G2_PSI_Y {%s, %s}" % (mont(cy.a, Q, 6), mont(cy.b, Q, 6)))

# ---- BN254 G2: psi ----
Q = Q_BN
xi = F2(Q, 9, 1)
cx = xi ** ((Q - 1) // 3)
cy = xi ** ((Q - 1) // 2)
G2 = (
    F2(Q, 10857046999023057135944570762232829481370756359578518086990519993285655852781,
       11559732032986387107991004021392285783925812861821192530917403151452391805634),
    F2(Q, 8495653923123431417604973247489272438418190587263600148770280649306958101930,
       4082367875863433681332203403145435568316851327593401208105741076214120093531),
)
psiG = (G2[0].conj() * cx, G2[1].conj() * cy)
assert psiG == ec_mul(G2, 6 * Z_BN * Z_BN), "BN254 psi eigenvalue"
assert (Q - R_BN) == 6 * Z_BN * Z_BN
out.append("#define CZ_BN254_G2_PSI_X {%s, %s}" % (mont(cx.a, Q, 4), mont(cx.b, Q, 4)))
out.append("#define CZ_BN254_G2_PSI_Y {%s, %s}" % (mont(cy.a, Q, 4), mont(cy.b, Q, 4)))

print("/* Endomorphism constants of the fast subgroup checks, Montgomery form")
print(" * (generated by tools/gen_endo_consts.py; see ec/ec_subgroup.c). */")
print("\n".join(out))
