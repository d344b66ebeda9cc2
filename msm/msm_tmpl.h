/*
 * MSM declarations (see msm/msm.h for the contract), instantiated from
 * msm/msm.h once per group by util/foreach_group.h (CZ_EC).
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)

cz_status CZ_EFN(msm)(CZ_EC *r, const CZ_EC_A *bases, const uint8_t *scalars, size_t n, const cz_msm_opts *opts);
size_t CZ_EFN(msm_scratch_size)(size_t n, int threads);
size_t CZ_EFN(msm_scratch_size_opts)(size_t n, int threads, const cz_msm_opts *opts);

#undef CZ_EFN
#undef CZ_EC_A
