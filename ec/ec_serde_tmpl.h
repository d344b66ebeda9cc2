/*
 * Point encodings (see ec/ec_serde.h for the formats and the contract): the
 * declarations, instantiated from ec/ec_serde.h once per group by
 * util/foreach_group.h (CZ_EC, CZ_EC_FQ, CZ_EC_DEG).
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)

/* sizes in bytes: a big-endian coordinate (CZ_EC_DEG Fq elements), two of
 * them, the in-memory / snarkjs LEM point */
enum {
    CZ_EFN(COMPRESSED_SIZE) = CZ_EC_DEG * CZ_CAT(CZ_EC_FQ, _BYTES),
    CZ_EFN(UNCOMPRESSED_SIZE) = 2 * CZ_EC_DEG * CZ_CAT(CZ_EC_FQ, _BYTES),
    CZ_EFN(LEM_SIZE) = sizeof(CZ_EC_A)
};
/* out: COMPRESSED_SIZE bytes */
void CZ_EFN(to_compressed)(uint8_t *out, const CZ_EC_A *p);
/* out: UNCOMPRESSED_SIZE bytes */
void CZ_EFN(to_uncompressed)(uint8_t *out, const CZ_EC_A *p);
/* in: COMPRESSED_SIZE bytes; flags: 0 or CZ_EC_DECODE_TRUSTED */
cz_status CZ_EFN(from_compressed)(CZ_EC_A *r, const uint8_t *in, unsigned flags);
/* in: UNCOMPRESSED_SIZE bytes */
cz_status CZ_EFN(from_uncompressed)(CZ_EC_A *r, const uint8_t *in, unsigned flags);
/* out: LEM_SIZE bytes (snarkjs Montgomery little-endian) */
void CZ_EFN(to_lem)(uint8_t *out, const CZ_EC_A *p);
/* in: LEM_SIZE bytes */
cz_status CZ_EFN(from_lem)(CZ_EC_A *r, const uint8_t *in, unsigned flags);
/* Validate an affine point taken from untrusted memory (e.g. a mapped zkey):
 * every coordinate limb-vector < q (CZ_ERR_RANGE), on the curve or the
 * all-zero infinity, in the subgroup unless flags has CZ_EC_DECODE_TRUSTED. */
cz_status CZ_EFN(affine_validate)(const CZ_EC_A *p, unsigned flags);

#undef CZ_EFN
#undef CZ_EC_A
