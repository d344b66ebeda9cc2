/* circuit: the zkey SpMV and the constraint check (per-curve code from
 * circuit/circuit_tmpl_impl.h), dispatched on the curve. */
#include "circuit/circuit.h"

#include "ff/ff.h"
#include "util/common.h"

#define CZ_G cz_bn254
#include "circuit/circuit_tmpl_impl.h"
#undef CZ_G

#define CZ_G cz_bls12_381
#include "circuit/circuit_tmpl_impl.h"
#undef CZ_G

size_t cz_abc_bytes(uint32_t domain_size) { return (size_t)3 * domain_size * 32; }

cz_status cz_circuit_abc(const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c, cz_pool *pool)
{
    if (zk->curve == CZ_CURVE_BN254)
        cz_bn254_abc(zk, w, a, b, c, pool);
    else if (zk->curve == CZ_CURVE_BLS12_381)
        cz_bls12_381_abc(zk, w, a, b, c, pool);
    else
        return CZ_ERR_UNSUPPORTED;
    return CZ_OK;
}

cz_status cz_r1cs_check(const cz_r1cs *r, const cz_wtns *w, uint64_t *first_bad, cz_error *err)
{
    *first_bad = UINT64_MAX;
    if (w->curve != r->curve)
        return cz_error_set(err, CZ_ERR_MISMATCH, "the witness is for %s, the r1cs for %s", cz_curve_name(w->curve),
                            cz_curve_name(r->curve));
    if (w->n != r->n_wires)
        return cz_error_set(err, CZ_ERR_MISMATCH, "the witness holds %u values, the r1cs has %u wires", w->n,
                            r->n_wires);
    uint64_t bad;
    if (r->curve == CZ_CURVE_BN254)
        bad = cz_bn254_r1cs_first_bad(r, w);
    else if (r->curve == CZ_CURVE_BLS12_381)
        bad = cz_bls12_381_r1cs_first_bad(r, w);
    else
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "the r1cs is on an unknown curve (%d)", (int)r->curve);
    *first_bad = bad;
    if (bad != UINT64_MAX)
        return cz_error_set(err, CZ_ERR_UNSATISFIED, "constraint %llu of %u is not satisfied (A.w * B.w != C.w)",
                            (unsigned long long)bad, r->n_constraints);
    return CZ_OK;
}
