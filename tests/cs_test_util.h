/*
 * What the tests of native circuits share: run a circuit in the three modes
 * of circuit/cs.h and compare them (witness equal in record and
 * witness-only modes; the PCE's a, b, c from the witness-only assignment
 * equal the record mode's evaluations bit for bit; check mode passes).
 * Included by one test file each (static functions); needs test_util.h.
 */
#ifndef CZ_TESTS_CS_TEST_UTIL_H
#define CZ_TESTS_CS_TEST_UTIL_H

#include <string.h>

#include "circuit/cs.h"
#include "circuit/pce.h"
#include "test_util.h"

typedef void (*cs_test_fn)(cz_cs *cs, void *ctx);

static cz_cs *cs_run(cs_test_fn fn, void *ctx, cz_curve curve, cz_cs_mode mode, const cz_cs_hint *hint)
{
    cz_cs_opts o = {curve, mode, 1, hint, NULL, 0};
    cz_cs *cs = NULL;
    cz_error err = {0};
    if (cz_cs_new(&cs, &o, &err) != CZ_OK) return NULL;
    fn(cs, ctx);
    if (cz_cs_finish(cs, &err) != CZ_OK) fprintf(stderr, "finish: %s\n", err.msg);
    return cs;
}

/* Runs the three modes; returns 1 when everything agrees. counts (may be
 * NULL) gets the recorded counts. */
static int cs_modes_agree(const char *what, cs_test_fn fn, void *ctx, cz_curve curve, cz_cs_hint *counts)
{
    int ok = 1;
    cz_error err = {0};
    cz_cs *rec = cs_run(fn, ctx, curve, CZ_CS_RECORD, NULL);
    CHECK_MSG(rec && cz_cs_status(rec) == CZ_OK, "%s: record", what);
    if (!rec) return 0;
    cz_cs_hint h;
    cz_cs_counts(rec, &h);
    if (counts) *counts = h;
    cz_cs *wit = cs_run(fn, ctx, curve, CZ_CS_WITNESS, &h);
    cz_cs *chk = cs_run(fn, ctx, curve, CZ_CS_CHECK, NULL);
    CHECK_MSG(wit && cz_cs_status(wit) == CZ_OK && cz_cs_regrowths(wit) == 0, "%s: witness-only (hinted: no growth)",
              what);
    uint64_t bad = 0;
    cz_status cst = chk ? cz_cs_check_result(chk, &bad, &err) : CZ_ERR_INTERNAL;
    CHECK_MSG(cst == CZ_OK, "%s: check: %s", what, err.msg);
    ok &= cst == CZ_OK;
    uint32_t nr = 0, nw = 0;
    const cz_fe *wr = cz_cs_witness(rec, &nr), *ww = wit ? cz_cs_witness(wit, &nw) : NULL;
    CHECK_MSG(nr == nw && nr == h.n_inputs + h.n_aux && wr && ww && !memcmp(wr, ww, (size_t)nr * 32),
              "%s: witness of record and witness-only modes (%u / %u values)", what, nr, nw);
    ok &= nr == nw && ww && !memcmp(wr, ww, (size_t)nr * 32);
    CHECK(chk && cz_cs_n_constraints(chk) == h.n_constraints && wit && cz_cs_n_constraints(wit) == h.n_constraints);
    /* PCE from the recording, fed the witness-only assignment */
    cz_pce p;
    uint8_t key[32];
    cz_pce_key(key, what, "", 1, curve);
    const cz_fe *ev[3] = {cz_cs_evals(rec, 0), cz_cs_evals(rec, 1), cz_cs_evals(rec, 2)};
    cz_fe *ev_copy[3];
    size_t nb = (size_t)h.n_constraints * 32;
    for (int k = 0; k < 3; k++) {
        ev_copy[k] = malloc(nb ? nb : 32);
        if (nb) memcpy(ev_copy[k], ev[k], nb);
    }
    cz_status st = cz_pce_from_cs(&p, rec, key, &err);
    CHECK_MSG(st == CZ_OK, "%s: pce: %s", what, err.msg);
    if (st == CZ_OK && ww) {
        cz_fe *abc = malloc(3 * (nb ? nb : 32));
        uint64_t fb = 0;
        st = cz_pce_abc(&p, ww, nw, abc, abc + h.n_constraints, abc + 2 * h.n_constraints, &fb, NULL, &err);
        int eq = st == CZ_OK;
        for (int k = 0; k < 3 && eq; k++) eq = !memcmp(abc + k * h.n_constraints, ev_copy[k], nb);
        CHECK_MSG(eq && fb == UINT64_MAX, "%s: PCE a, b, c == full synthesis bit for bit (%llu rows, first bad %llu)",
                  what, (unsigned long long)h.n_constraints, (unsigned long long)fb);
        ok &= eq;
        free(abc);
    }
    for (int k = 0; k < 3; k++) free(ev_copy[k]);
    cz_pce_free(&p);
    cz_cs_free(rec);
    cz_cs_free(wit);
    cz_cs_free(chk);
    return ok;
}

#endif
