/* circuit: the zkey SpMV and the constraint check (per-curve code from
 * circuit/circuit_tmpl_impl.h, a row per curve of CZ_CURVE_LIST), looked up
 * by the curve; an unknown curve is refused. */
#include "circuit/circuit.h"

#include "ff/ff.h"
#include "util/common.h"

#define CZ_TMPL "circuit/circuit_tmpl_impl.h"
#include "util/foreach_curve.h"

typedef struct {
    void (*abc)(const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c, cz_pool *pool);
    uint64_t (*first_bad)(const cz_r1cs *r, const cz_wtns *w);
} circuit_curve;

#define CIRCUIT_ROW_(ID, VALUE, SYM, ...) {SYM##_abc, SYM##_r1cs_first_bad},
static const circuit_curve circuit_curves[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CIRCUIT_ROW_)};
#undef CIRCUIT_ROW_

size_t cz_ab_bytes(uint32_t domain_size) { return (size_t)2 * domain_size * 32; }

cz_status cz_circuit_abc(const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c, cz_pool *pool)
{
    int i = cz_curve_index(zk->curve);
    if (i < 0) return CZ_ERR_UNSUPPORTED;
    circuit_curves[i].abc(zk, w, a, b, c, pool);
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
    int i = cz_curve_index(r->curve);
    if (i < 0) return cz_error_set(err, CZ_ERR_UNSUPPORTED, "the r1cs is on an unknown curve (%d)", (int)r->curve);
    uint64_t bad = circuit_curves[i].first_bad(r, w);
    *first_bad = bad;
    if (bad != UINT64_MAX)
        return cz_error_set(err, CZ_ERR_UNSATISFIED, "constraint %llu of %u is not satisfied (A.w * B.w != C.w)",
                            (unsigned long long)bad, r->n_constraints);
    return CZ_OK;
}
