#include <string.h>
#include <strings.h>

#include "cuzk/curve.h"
#include "ff/ff.h"

const char *cz_curve_name(cz_curve c)
{
    switch (c) {
    case CZ_CURVE_BN254: return "bn254";
    case CZ_CURVE_BLS12_381: return "bls12-381";
    default: return "none";
    }
}

const char *cz_curve_snarkjs_name(cz_curve c)
{
    switch (c) {
    case CZ_CURVE_BN254: return "bn128";
    case CZ_CURVE_BLS12_381: return "bls12381";
    default: return "none";
    }
}

cz_curve cz_curve_parse(const char *s)
{
    if (!s) return CZ_CURVE_NONE;
    if (!strcasecmp(s, "bn254") || !strcasecmp(s, "bn128") || !strcasecmp(s, "alt_bn128")) return CZ_CURVE_BN254;
    if (!strcasecmp(s, "bls12-381") || !strcasecmp(s, "bls12381") || !strcasecmp(s, "bls12_381"))
        return CZ_CURVE_BLS12_381;
    return CZ_CURVE_NONE;
}

static int limbs_match(const uint8_t *le, uint32_t n8, const uint64_t *limbs, int n)
{
    if (n8 != 8u * (uint32_t)n) return 0;
    for (int i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | le[8 * i + k];
        if (v != limbs[i]) return 0;
    }
    return 1;
}

cz_curve cz_curve_from_r(const uint8_t *le, uint32_t n8)
{
    if (limbs_match(le, n8, cz_bn254_fr_modulus, 4)) return CZ_CURVE_BN254;
    if (limbs_match(le, n8, cz_bls12_381_fr_modulus, 4)) return CZ_CURVE_BLS12_381;
    return CZ_CURVE_NONE;
}

cz_curve cz_curve_from_q(const uint8_t *le, uint32_t n8)
{
    if (limbs_match(le, n8, cz_bn254_fq_modulus, 4)) return CZ_CURVE_BN254;
    if (limbs_match(le, n8, cz_bls12_381_fq_modulus, 6)) return CZ_CURVE_BLS12_381;
    return CZ_CURVE_NONE;
}
