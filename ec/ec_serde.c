/*
 * Point encodings (see ec/ec_serde.h for the formats and the contract): the
 * coordinate helpers per field, then ec/ec_serde_tmpl_impl.h once per group.
 */
#include "ec/ec_serde.h"

#include <string.h>

/* ---- coordinate helpers: big-endian (Fq2 as c1 || c0), Montgomery LE
 * (Fq2 as c0 || c1), square root, range of the stored limbs ---- */

#define CZ_SD_BASE_HELPERS(F)                                                                                          \
    static void F##_sd_put(uint8_t *out, const F *a)                                                                   \
    {                                                                                                                  \
        F##_to_bytes_be(out, a);                                                                                       \
    }                                                                                                                  \
    static cz_status F##_sd_get(F *r, const uint8_t *in)                                                               \
    {                                                                                                                  \
        return F##_from_bytes_be(r, in);                                                                               \
    }                                                                                                                  \
    static void F##_sd_lem_put(uint8_t *out, const F *a)                                                               \
    {                                                                                                                  \
        F##_to_mont_bytes_le(out, a);                                                                                  \
    }                                                                                                                  \
    static cz_status F##_sd_lem_get(F *r, const uint8_t *in)                                                           \
    {                                                                                                                  \
        return F##_from_mont_bytes_le(r, in);                                                                          \
    }                                                                                                                  \
    static cz_status F##_sd_sqrt(F *r, const F *a)                                                                     \
    {                                                                                                                  \
        return F##_sqrt(r, a);                                                                                         \
    }                                                                                                                  \
    static int F##_sd_in_range(const F *a)                                                                             \
    {                                                                                                                  \
        return F##_limbs_in_range(a->l);                                                                               \
    }

#define CZ_SD_EXT_HELPERS(F2, F)                                                                                       \
    static void F2##_sd_put(uint8_t *out, const F2 *a)                                                                 \
    {                                                                                                                  \
        F##_to_bytes_be(out, &a->c1);                                                                                  \
        F##_to_bytes_be(out + F##_BYTES, &a->c0);                                                                      \
    }                                                                                                                  \
    static cz_status F2##_sd_get(F2 *r, const uint8_t *in)                                                             \
    {                                                                                                                  \
        F2 t;                                                                                                          \
        if (F##_from_bytes_be(&t.c1, in) != CZ_OK) return CZ_ERR_RANGE;                                                \
        if (F##_from_bytes_be(&t.c0, in + F##_BYTES) != CZ_OK) return CZ_ERR_RANGE;                                    \
        *r = t;                                                                                                        \
        return CZ_OK;                                                                                                  \
    }                                                                                                                  \
    static void F2##_sd_lem_put(uint8_t *out, const F2 *a)                                                             \
    {                                                                                                                  \
        F##_to_mont_bytes_le(out, &a->c0);                                                                             \
        F##_to_mont_bytes_le(out + F##_BYTES, &a->c1);                                                                 \
    }                                                                                                                  \
    static cz_status F2##_sd_lem_get(F2 *r, const uint8_t *in)                                                         \
    {                                                                                                                  \
        F2 t;                                                                                                          \
        if (F##_from_mont_bytes_le(&t.c0, in) != CZ_OK) return CZ_ERR_RANGE;                                           \
        if (F##_from_mont_bytes_le(&t.c1, in + F##_BYTES) != CZ_OK) return CZ_ERR_RANGE;                               \
        *r = t;                                                                                                        \
        return CZ_OK;                                                                                                  \
    }                                                                                                                  \
    static cz_status F2##_sd_sqrt(F2 *r, const F2 *a)                                                                  \
    {                                                                                                                  \
        return F2##_sqrt(r, a);                                                                                        \
    }                                                                                                                  \
    static int F2##_sd_in_range(const F2 *a)                                                                           \
    {                                                                                                                  \
        return F##_limbs_in_range(a->c0.l) && F##_limbs_in_range(a->c1.l);                                             \
    }

CZ_SD_BASE_HELPERS(cz_bls12_381_fq)
CZ_SD_BASE_HELPERS(cz_bn254_fq)
CZ_SD_EXT_HELPERS(cz_bls12_381_fq2, cz_bls12_381_fq)
CZ_SD_EXT_HELPERS(cz_bn254_fq2, cz_bn254_fq)

/* ---- the four groups ---- */

#define CZ_EC cz_bls12_381_g1
#define CZ_EC_F cz_bls12_381_fq
#define CZ_SD_CB 48
#define CZ_SD_ZCASH 1
#include "ec/ec_serde_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_SD_CB
#undef CZ_SD_ZCASH

#define CZ_EC cz_bls12_381_g2
#define CZ_EC_F cz_bls12_381_fq2
#define CZ_SD_CB 96
#define CZ_SD_ZCASH 1
#include "ec/ec_serde_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_SD_CB
#undef CZ_SD_ZCASH

#define CZ_EC cz_bn254_g1
#define CZ_EC_F cz_bn254_fq
#define CZ_SD_CB 32
#define CZ_SD_ZCASH 0
#include "ec/ec_serde_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_SD_CB
#undef CZ_SD_ZCASH

#define CZ_EC cz_bn254_g2
#define CZ_EC_F cz_bn254_fq2
#define CZ_SD_CB 64
#define CZ_SD_ZCASH 0
#include "ec/ec_serde_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_SD_CB
#undef CZ_SD_ZCASH
