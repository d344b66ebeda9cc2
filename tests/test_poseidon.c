/* tests/test_poseidon: Poseidon with circomlib's BN254 parameters
 * (circuit/gadgets/poseidon.h): the generated constants against the tables
 * of circomlib's poseidon_constants_old.circom (tests/js/node_modules,
 * pinned circomlib; skipped with a note where it is not installed), the
 * hash against circomlib's published Poseidon([1, 2]) and the gadget
 * against the native hash on random inputs, in all three cs modes with the
 * PCE equal to full synthesis. (test_circuits.sh compares with circom's own
 * witness.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/gadgets/poseidon.h"
#include "cs_test_util.h"
#include "test_util.h"

static cz_rng rng;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b) b[n] = 0;
    fclose(f);
    return b;
}

/* The k-th number (decimal, or hex with 0x) after the text `after` in s,
 * as a field element; 0 when there is none. */
static int nth_number(const char *s, const char *after, int k, cz_bn254_fr *out)
{
    const char *p = strstr(s, after);
    if (!p) return 0;
    p += strlen(after);
    for (int i = 0; i <= k; i++) {
        while (*p && (*p < '0' || *p > '9')) p++;
        int hex = p[0] == '0' && p[1] == 'x';
        if (hex) p += 2;
        size_t n = 0;
        while ((p[n] >= '0' && p[n] <= '9') || (hex && ((p[n] >= 'a' && p[n] <= 'f') || (p[n] >= 'A' && p[n] <= 'F'))))
            n++;
        if (!n) return 0;
        if (i == k) {
            if (!hex) return cz_bn254_fr_from_dec(out, p, n) == CZ_OK;
            if (n > 64) return 0;
            uint8_t be[32] = {0};
            for (size_t j = 0; j < n; j++) {
                char c = p[n - 1 - j];
                int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
                be[31 - j / 2] |= (uint8_t)(v << (4 * (j & 1)));
            }
            return cz_bn254_fr_from_bytes_be(out, be) == CZ_OK;
        }
        p += n;
    }
    return 0;
}

static void test_constants(void)
{
    char *txt = slurp(CZ_SOURCE_DIR "/tests/js/node_modules/circomlib/circuits/poseidon_constants_old.circom");
    if (!txt) {
        printf("  circomlib not installed (npm ci in tests/js): constants not compared\n");
        return;
    }
    int compared = 0;
    for (unsigned n = 1; n <= 4; n++) {
        const cz_poseidon_params *p = cz_poseidon_params_get(n);
        unsigned t = n + 1;
        char tag[64];
        cz_bn254_fr theirs;
        /* POSEIDON_C(t): "if (t == T) {\n return [c0, c1, ...": the first
         * occurrence is in POSEIDON_C, the second in POSEIDON_M */
        snprintf(tag, sizeof tag, "if (t == %u) {", t);
        const char *cpos = strstr(txt, "function POSEIDON_C");
        const char *mpos = strstr(txt, "function POSEIDON_M");
        CHECK(cpos && mpos);
        if (!cpos || !mpos) break;
        unsigned nc = (p->rf + p->rp) * t;
        unsigned idx[3] = {0, 1, nc - 1};
        for (int k = 0; k < 3; k++) {
            CHECK(nth_number(cpos, tag, (int)idx[k], &theirs));
            CHECK_MSG(cz_bn254_fr_eq(&theirs, &p->c[idx[k]]), "t=%u C[%u] differs from circomlib's", t, idx[k]);
            compared++;
        }
        for (unsigned e = 0; e < t * t; e++) {
            CHECK(nth_number(mpos, tag, (int)e, &theirs));
            CHECK_MSG(cz_bn254_fr_eq(&theirs, &p->m[e]), "t=%u M[%u][%u] differs from circomlib's", t, e / t, e % t);
            compared++;
        }
    }
    printf("  %d constants equal to circomlib's poseidon_constants_old.circom\n", compared);
    free(txt);
}

typedef struct {
    unsigned n;
    cz_bn254_fr in[CZ_POSEIDON_MAX_INPUTS];
    cz_bn254_fr out;
} pcase;

static void pos_synth(cz_cs *cs, void *arg)
{
    pcase *c = arg;
    cz_lc lc[CZ_POSEIDON_MAX_INPUTS];
    cz_fe vals[CZ_POSEIDON_MAX_INPUTS];
    for (unsigned i = 0; i < c->n; i++) {
        memcpy(&vals[i], &c->in[i], 32);
        cz_var v = cz_cs_alloc(cs, &vals[i]);
        cz_lc_init(&lc[i]);
        cz_lc_add(cs, &lc[i], v, NULL);
    }
    cz_fe o;
    cz_var out = cz_poseidon_gadget(cs, lc, vals, c->n, &o);
    memcpy(&c->out, &o, 32);
    cz_fe ov = *cz_cs_value(cs, out);
    cz_cs_alloc_input(cs, &ov);
    for (unsigned i = 0; i < c->n; i++) cz_lc_free(cs, &lc[i]);
}

static void test_hash(void)
{
    /* circomlib(js)'s test vector: poseidon([1, 2]) */
    cz_bn254_fr in[2], out;
    cz_bn254_fr_from_u64(&in[0], 1);
    cz_bn254_fr_from_u64(&in[1], 2);
    CHECK(cz_poseidon_bn254(&out, in, 2) == CZ_OK);
    char dec[CZ_FP_DEC_MAX];
    cz_bn254_fr_to_dec(dec, sizeof dec, &out);
    /* 0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a */
    CHECK_MSG(!strcmp(dec, "7853200120776062878684798364095072458815029376092732009249414926327459813530"), "%s", dec);
    for (unsigned n = 1; n <= 5; n++) {
        pcase c = {n, {{{0}}}, {{0}}};
        for (unsigned i = 0; i < n; i++) cz_bn254_fr_random(&c.in[i], &rng);
        cz_bn254_fr want;
        CHECK(cz_poseidon_bn254(&want, c.in, n) == CZ_OK);
        cz_cs_hint h = {0};
        CHECK(cs_modes_agree("poseidon", pos_synth, &c, CZ_CURVE_BN254, &h));
        CHECK(cz_bn254_fr_eq(&c.out, &want));
        const cz_poseidon_params *p = cz_poseidon_params_get(n);
        uint64_t sboxes = (uint64_t)p->rf * p->t + p->rp;
        CHECK_MSG(h.n_constraints == 3 * sboxes + 1, "n=%u: %llu constraints", n, (unsigned long long)h.n_constraints);
        if (n == 2) printf("  poseidon(2 inputs): %llu constraints (3 per S-box + 1 output row)\n",
                           (unsigned long long)h.n_constraints);
    }
}

int main(void)
{
    cz_test_seed(&rng, "test_poseidon");
    test_constants();
    test_hash();
    return cz_test_finish("test_poseidon");
}
