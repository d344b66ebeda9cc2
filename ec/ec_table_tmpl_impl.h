/*
 * The table row of one group (cz_group, ec/ec.h), instantiated from
 * ec/ec_table.c once per group by util/foreach_group.h (CZ_EC, CZ_EC_FQ,
 * CZ_EC_DEG). The wrappers take untyped points; they live apart from
 * ec/ec.c so that they do not change how the compiler inlines the point
 * formulas there.
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)

_Static_assert(sizeof(CZ_EC_A) == 16 * CZ_EC_DEG * CZ_CAT(CZ_EC_FQ, _LIMBS), "affine = 2 CZ_EC_DEG Fq elements");
static int CZ_EFN(affine_in_range_v_)(const void *p)
{
    const uint64_t *l = (const uint64_t *)p; /* x, y: CZ_EC_DEG Fq elements each */
    for (int k = 0; k < 2 * CZ_EC_DEG; k++)
        if (!CZ_CAT(CZ_EC_FQ, _limbs_in_range)(l + k * CZ_CAT(CZ_EC_FQ, _LIMBS))) return 0;
    return 1;
}
static int CZ_EFN(affine_is_on_curve_v_)(const void *p) { return CZ_EFN(affine_is_on_curve)((const CZ_EC_A *)p); }
static int CZ_EFN(is_on_curve_v_)(const void *p) { return CZ_EFN(is_on_curve)((const CZ_EC *)p); }
static int CZ_EFN(in_subgroup_v_)(const void *p) { return CZ_EFN(in_subgroup)((const CZ_EC *)p); }
static void CZ_EFN(to_affine_v_)(void *r, const void *p) { CZ_EFN(to_affine)((CZ_EC_A *)r, (const CZ_EC *)p); }

static const cz_group CZ_EFN(group_) = {
    /* .degree             = */ CZ_EC_DEG,
    /* .affine_bytes       = */ sizeof(CZ_EC_A),
    /* .jacobian_bytes     = */ sizeof(CZ_EC),
    /* .affine_in_range    = */ CZ_EFN(affine_in_range_v_),
    /* .affine_is_on_curve = */ CZ_EFN(affine_is_on_curve_v_),
    /* .is_on_curve        = */ CZ_EFN(is_on_curve_v_),
    /* .in_subgroup        = */ CZ_EFN(in_subgroup_v_),
    /* .to_affine          = */ CZ_EFN(to_affine_v_),
};

#undef CZ_EFN
#undef CZ_EC_A
