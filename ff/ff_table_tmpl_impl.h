/*
 * The table row of one field (cz_field, ff/ff.h), instantiated from
 * ff/ff_table.c once per field by util/foreach_field.h (CZ_FP, CZ_FP_C,
 * CZ_FP_N). The wrappers take untyped elements; they live apart from
 * ff/ff.c so that they do not change how the compiler inlines the field
 * code there.
 */
#define CZ_FN(x) CZ_CAT(CZ_CAT(CZ_FP, _), x)
#define CZ_FK(x) CZ_CAT(CZ_CAT(CZ_FP_C, _), x)

static cz_status CZ_FN(from_bytes_le_v_)(void *r, const uint8_t *in) { return CZ_FN(from_bytes_le)((CZ_FP *)r, in); }
static size_t CZ_FN(to_dec_v_)(char *buf, size_t cap, const void *a) { return CZ_FN(to_dec)(buf, cap, (const CZ_FP *)a); }
static cz_status CZ_FN(from_dec_v_)(void *r, const char *s, size_t len) { return CZ_FN(from_dec)((CZ_FP *)r, s, len); }

static const cz_field CZ_FN(field_) = {
    /* .limbs         = */ CZ_FP_N,
    /* .bytes         = */ 8 * CZ_FP_N,
    /* .modulus       = */ CZ_FN(modulus),
    /* .pinv          = */ CZ_FK(PINV),
    /* .r2            = */ CZ_FN(r2_limbs),
    /* .from_bytes_le = */ CZ_FN(from_bytes_le_v_),
    /* .to_dec        = */ CZ_FN(to_dec_v_),
    /* .from_dec      = */ CZ_FN(from_dec_v_),
};

#undef CZ_FN
#undef CZ_FK
