/*
 * Fixed-base multiplication declarations (see msm/fixed_base.h for the
 * contract), instantiated from msm/fixed_base.h once per group by
 * util/foreach_group.h (CZ_EC).
 */
#define FB(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define FB_A CZ_CAT(CZ_EC, _affine)
#define FB_T CZ_CAT(CZ_EC, _fb)

typedef struct FB_T FB_T;
cz_status FB(fb_create)(FB_T **out, const FB_A *base, size_t n_hint, int window, cz_pool *pool);
void FB(fb_free)(FB_T *t);
int FB(fb_window)(const FB_T *t);
size_t FB(fb_table_bytes)(const FB_T *t);
size_t FB(fb_table_bytes_for)(int window);
int FB(fb_auto_window)(size_t n_hint);
cz_status FB(fb_mul)(const FB_T *t, FB_A *out, const uint8_t *scalars, size_t n, cz_msm_scalar_form form,
                     cz_pool *pool);

#undef FB
#undef FB_A
#undef FB_T
