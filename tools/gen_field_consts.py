#!/usr/bin/env python3
"""Print the Montgomery constants of cuzk's four prime fields as C initialisers.

Run: python3 tools/gen_field_consts.py > ff/ff_consts.inc
Every value printed here is re-derived independently in tests/test_ff.c with GMP.
The _U32 lists (p, R, R^2 in 32-bit limbs) are the device fields' (cuda/ff.cuh);
tests/test_cuda_ff.cu checks those fields against the CPU ones.
"""

FIELDS = {
    "bls12_381_fq": (0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab, 6),
    "bls12_381_fr": (0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001, 4),
    "bn254_fq": (21888242871839275222246405745257275088696311157297823662689037894645226208583, 4),
    "bn254_fr": (21888242871839275222246405745257275088548364400416034343698204186575808495617, 4),
}


def limbs(x, n):
    return [(x >> (64 * i)) & (2**64 - 1) for i in range(n)]


def c_arr(x, n):
    return "{" + ", ".join("0x%016xULL" % v for v in limbs(x, n)) + "}"


def c_arr32(x, n):
    return "{" + ", ".join("0x%08xu" % ((x >> (32 * i)) & (2**32 - 1)) for i in range(2 * n)) + "}"


def two_adicity(p):
    s, t = 0, p - 1
    while t % 2 == 0:
        s, t = s + 1, t // 2
    return s, t


def legendre(a, p):
    return pow(a, (p - 1) // 2, p)


for name, (p, n) in FIELDS.items():
    R = 2 ** (64 * n) % p
    pinv = (-pow(p, -1, 2**64)) % 2**64
    s, t = two_adicity(p)
    nqr = 2
    while legendre(nqr, p) != p - 1:
        nqr += 1
    root = pow(nqr, t, p)  # primitive 2^s-th root of unity, snarkjs convention (nqr = 5 for both Fr)
    up = name.upper()
    print("/* %s: p = 0x%x */" % (name, p))
    print("#define CZ_%s_P %s" % (up, c_arr(p, n)))
    print("#define CZ_%s_PINV 0x%016xULL /* -p^-1 mod 2^64 */" % (up, pinv))
    print("#define CZ_%s_R %s /* 2^%d mod p (Montgomery one) */" % (up, c_arr(R, n), 64 * n))
    print("#define CZ_%s_R2 %s /* R^2 mod p */" % (up, c_arr(R * R % p, n)))
    print("#define CZ_%s_PM2 %s /* p - 2 (inverse exponent) */" % (up, c_arr(p - 2, n)))
    print("#define CZ_%s_PM1H %s /* (p - 1) / 2 (Legendre exponent) */" % (up, c_arr((p - 1) // 2, n)))
    print("#define CZ_%s_S %d /* 2-adicity of p - 1 */" % (up, s))
    print("#define CZ_%s_T %s /* (p - 1) / 2^S */" % (up, c_arr(t, n)))
    print("#define CZ_%s_TP1H %s /* (T + 1) / 2 */" % (up, c_arr((t + 1) // 2, n)))
    print("#define CZ_%s_NQR %d /* smallest quadratic non-residue */" % (up, nqr))
    print("#define CZ_%s_ROOT %s /* NQR^T, primitive 2^S-th root of unity, Montgomery */" % (up, c_arr(root * 2 ** (64 * n) % p, n)))
    print("#define CZ_%s_BITS %d" % (up, p.bit_length()))
    # the same p, R, R^2 in 32-bit limbs for the device fields (cuda/ff.cuh)
    print("#define CZ_%s_P_U32 %s" % (up, c_arr32(p, n)))
    print("#define CZ_%s_R_U32 %s" % (up, c_arr32(R, n)))
    print("#define CZ_%s_R2_U32 %s" % (up, c_arr32(R * R % p, n)))
    print()
