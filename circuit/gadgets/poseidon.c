/* circuit/gadgets/poseidon: Poseidon on BN254 with circomlib's parameters
 * (contract in poseidon.h). */
#include "circuit/gadgets/poseidon.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const unsigned ROUNDS_P[16] = {56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68};

typedef struct {
    uint8_t s[80];
} grain;

static int grain_step(grain *g)
{
    int b = g->s[62] ^ g->s[51] ^ g->s[38] ^ g->s[23] ^ g->s[13] ^ g->s[0];
    memmove(g->s, g->s + 1, 79);
    g->s[79] = (uint8_t)b;
    return b;
}

static int grain_bit(grain *g)
{
    for (;;) {
        int a = grain_step(g), b = grain_step(g);
        if (a) return b;
    }
}

static void grain_init(grain *g, unsigned t, unsigned rf, unsigned rp)
{
    int k = 0;
    struct {
        unsigned v, bits;
    } f[6] = {{1, 2}, {0, 4}, {254, 12}, {t, 12}, {rf, 10}, {rp, 10}};
    for (int i = 0; i < 6; i++)
        for (int j = (int)f[i].bits - 1; j >= 0; j--) g->s[k++] = (uint8_t)((f[i].v >> j) & 1);
    while (k < 80) g->s[k++] = 1;
    for (int i = 0; i < 160; i++) grain_step(g);
}

/* an n = 254-bit integer, MSB first, as canonical limbs */
static void grain_int(grain *g, uint64_t out[4])
{
    memset(out, 0, 32);
    for (int i = 253; i >= 0; i--)
        if (grain_bit(g)) out[i >> 6] |= (uint64_t)1 << (i & 63);
}

static const uint64_t P[4] = CZ_BN254_FR_P;

static int below_p(const uint64_t a[4]) { return cz_limbs_cmp(a, P, 4) < 0; }

static void reduce_once(uint64_t a[4]) /* a < 2^254 < 2p */
{
    if (below_p(a)) return;
    unsigned __int128 br = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - P[i] - br;
        a[i] = (uint64_t)d;
        br = (d >> 64) & 1;
    }
}

static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
static cz_poseidon_params *cache[CZ_POSEIDON_MAX_INPUTS + 1];

static cz_poseidon_params *generate(unsigned t)
{
    cz_poseidon_params *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->t = t;
    p->rf = 8;
    p->rp = ROUNDS_P[t - 2];
    size_t nc = (size_t)(p->rf + p->rp) * t;
    p->c = malloc(nc * sizeof *p->c);
    p->m = malloc((size_t)t * t * sizeof *p->m);
    if (!p->c || !p->m) {
        free(p->c);
        free(p->m);
        free(p);
        return NULL;
    }
    grain g;
    grain_init(&g, t, p->rf, p->rp);
    uint64_t v[4];
    for (size_t i = 0; i < nc; i++) {
        do grain_int(&g, v);
        while (!below_p(v));
        cz_bn254_fr_from_canonical(&p->c[i], v);
    }
    cz_bn254_fr xy[2 * CZ_POSEIDON_MAX_INPUTS + 2];
    for (unsigned i = 0; i < 2 * t; i++) {
        grain_int(&g, v);
        reduce_once(v);
        cz_bn254_fr_from_canonical(&xy[i], v);
    }
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            cz_bn254_fr s;
            cz_bn254_fr_add(&s, &xy[i], &xy[t + j]);
            cz_bn254_fr_inv(&p->m[i * t + j], &s); /* distinct samples: nonzero */
        }
    return p;
}

const cz_poseidon_params *cz_poseidon_params_get(unsigned n)
{
    if (n < 1 || n > CZ_POSEIDON_MAX_INPUTS) return NULL;
    pthread_mutex_lock(&pm);
    if (!cache[n]) cache[n] = generate(n + 1);
    cz_poseidon_params *p = cache[n];
    pthread_mutex_unlock(&pm);
    return p;
}

static void sbox(cz_bn254_fr *x)
{
    cz_bn254_fr x2, x4;
    cz_bn254_fr_sqr(&x2, x);
    cz_bn254_fr_sqr(&x4, &x2);
    cz_bn254_fr_mul(x, &x4, x);
}

cz_status cz_poseidon_bn254(cz_bn254_fr *out, const cz_bn254_fr *in, unsigned n)
{
    const cz_poseidon_params *p = cz_poseidon_params_get(n);
    if (!p) return CZ_ERR_INVALID_ARG;
    unsigned t = p->t;
    cz_bn254_fr s[CZ_POSEIDON_MAX_INPUTS + 1], ns[CZ_POSEIDON_MAX_INPUTS + 1];
    cz_bn254_fr_set_zero(&s[0]);
    for (unsigned i = 0; i < n; i++) s[i + 1] = in[i];
    for (unsigned r = 0; r < p->rf + p->rp; r++) {
        for (unsigned i = 0; i < t; i++) cz_bn254_fr_add(&s[i], &s[i], &p->c[r * t + i]);
        int full = r < p->rf / 2 || r >= p->rf / 2 + p->rp;
        for (unsigned i = 0; i < (full ? t : 1); i++) sbox(&s[i]);
        for (unsigned i = 0; i < t; i++) {
            cz_bn254_fr acc, x;
            cz_bn254_fr_set_zero(&acc);
            for (unsigned j = 0; j < t; j++) {
                cz_bn254_fr_mul(&x, &p->m[i * t + j], &s[j]);
                cz_bn254_fr_add(&acc, &acc, &x);
            }
            ns[i] = acc;
        }
        memcpy(s, ns, t * sizeof *s);
    }
    *out = s[0];
    return CZ_OK;
}

/* ---- the gadget: the state as dense combinations over the variables so far ---- */

typedef struct {
    unsigned t, nv, cap;
    cz_var *vars;  /* nv variables (0: ONE) */
    cz_fe *coef;   /* t x cap */
    cz_fe val[CZ_POSEIDON_MAX_INPUTS + 1];
} pstate;

static cz_fe *co(pstate *s, unsigned i) { return s->coef + (size_t)i * s->cap; }

static void lc_of(cz_cs *cs, pstate *s, unsigned i, cz_lc *out)
{
    cz_lc_clear(out);
    for (unsigned k = 0; k < s->nv; k++)
        if (!cz_fe_is_zero(&co(s, i)[k])) cz_lc_add(cs, out, s->vars[k], &co(s, i)[k]);
}

/* x^5 of cell i: 3 constraints; the cell becomes the new variable */
static void sbox_gadget(cz_cs *cs, pstate *s, unsigned i, int lcs)
{
    cz_fe x = s->val[i], x2, x4, x5;
    cz_fe_mul(cs, &x2, &x, &x);
    cz_fe_mul(cs, &x4, &x2, &x2);
    cz_fe_mul(cs, &x5, &x4, &x);
    cz_var v2 = cz_cs_alloc(cs, &x2), v4 = cz_cs_alloc(cs, &x4), v5 = cz_cs_alloc(cs, &x5);
    if (lcs) {
        cz_lc lx = {0}, a = {0}, b = {0};
        lc_of(cs, s, i, &lx);
        cz_lc_add(cs, &a, v2, NULL);
        cz_cs_enforce(cs, "x^2", &lx, &lx, &a);
        cz_lc_add(cs, &b, v4, NULL);
        cz_cs_enforce(cs, "x^4", &a, &a, &b);
        cz_lc_clear(&a);
        cz_lc_add(cs, &a, v5, NULL);
        cz_cs_enforce(cs, "x^5", &b, &lx, &a);
        cz_lc_free(cs, &lx);
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
        s->vars[s->nv] = v5;
        for (unsigned k = 0; k < s->nv; k++) memset(&co(s, i)[k], 0, 32);
        for (unsigned j = 0; j < s->t; j++) memset(&co(s, j)[s->nv], 0, 32);
        co(s, i)[s->nv] = cz_cs_fr(cs)->one;
        s->nv++;
    } else {
        cz_cs_enforce(cs, "x^2", NULL, NULL, NULL);
        cz_cs_enforce(cs, "x^4", NULL, NULL, NULL);
        cz_cs_enforce(cs, "x^5", NULL, NULL, NULL);
    }
    s->val[i] = x5;
}

cz_var cz_poseidon_gadget(cz_cs *cs, const cz_lc *in, const cz_fe *vals, unsigned n, cz_fe *out_val)
{
    const cz_poseidon_params *p = cz_poseidon_params_get(n);
    if (cz_cs_curve(cs) != CZ_CURVE_BN254 || !p) {
        cz_cs_fail(cs, CZ_ERR_UNSUPPORTED, "poseidon: circomlib's parameters are for BN254 and 1..16 inputs");
        return CZ_VAR_ONE;
    }
    int lcs = cz_cs_wants_lc(cs);
    unsigned t = p->t;
    pstate s = {t, 0, 0, NULL, NULL, {{{0}}}};
    if (lcs) {
        /* variables: ONE, the inputs' variables, one per S-box */
        unsigned nin = 0;
        for (unsigned i = 0; i < n; i++) nin += in[i].n;
        s.cap = 1 + nin + p->rf * t + p->rp;
        s.vars = malloc(s.cap * sizeof *s.vars);
        s.coef = calloc((size_t)t * s.cap, sizeof *s.coef);
        if (!s.vars || !s.coef) {
            free(s.vars);
            free(s.coef);
            cz_cs_fail(cs, CZ_ERR_NO_MEMORY, "out of memory in poseidon");
            return CZ_VAR_ONE;
        }
        s.vars[s.nv++] = CZ_VAR_ONE;
        for (unsigned i = 0; i < n; i++)
            for (uint32_t k = 0; k < in[i].n; k++) {
                s.vars[s.nv] = in[i].t[k].v;
                co(&s, i + 1)[s.nv] = in[i].t[k].c;
                s.nv++;
            }
    }
    for (unsigned i = 0; i < n; i++) s.val[i + 1] = vals[i];
    const cz_fe *C = (const cz_fe *)p->c, *M = (const cz_fe *)p->m;
    cz_fe nv[CZ_POSEIDON_MAX_INPUTS + 1];
    cz_fe *tmp = lcs ? malloc((size_t)t * s.cap * sizeof *tmp) : NULL;
    if (lcs && !tmp) cz_cs_fail(cs, CZ_ERR_NO_MEMORY, "out of memory in poseidon");
    cz_cs_push(cs, "poseidon");
    for (unsigned r = 0; r < p->rf + p->rp && cz_cs_status(cs) == CZ_OK; r++) {
        for (unsigned i = 0; i < t; i++) {
            cz_fe_add(cs, &s.val[i], &s.val[i], &C[r * t + i]);
            if (lcs) cz_fe_add(cs, &co(&s, i)[0], &co(&s, i)[0], &C[r * t + i]);
        }
        int full = r < p->rf / 2 || r >= p->rf / 2 + p->rp;
        for (unsigned i = 0; i < (full ? t : 1); i++) sbox_gadget(cs, &s, i, lcs);
        for (unsigned i = 0; i < t; i++) {
            cz_fe acc = {{0}}, x;
            for (unsigned j = 0; j < t; j++) {
                cz_fe_mul(cs, &x, &M[i * t + j], &s.val[j]);
                cz_fe_add(cs, &acc, &acc, &x);
            }
            nv[i] = acc;
        }
        memcpy(s.val, nv, t * sizeof *nv);
        if (lcs) {
            for (unsigned i = 0; i < t; i++)
                for (unsigned k = 0; k < s.nv; k++) {
                    cz_fe acc = {{0}}, x;
                    for (unsigned j = 0; j < t; j++) {
                        if (cz_fe_is_zero(&co(&s, j)[k])) continue;
                        cz_fe_mul(cs, &x, &M[i * t + j], &co(&s, j)[k]);
                        cz_fe_add(cs, &acc, &acc, &x);
                    }
                    tmp[(size_t)i * s.cap + k] = acc;
                }
            memcpy(s.coef, tmp, (size_t)t * s.cap * sizeof *tmp);
        }
    }
    /* the output as a variable: out * 1 = state[0] */
    cz_var out = cz_cs_alloc(cs, &s.val[0]);
    if (lcs) {
        cz_lc a = {0}, b = {0}, c = {0};
        lc_of(cs, &s, 0, &a);
        cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
        cz_lc_add(cs, &c, out, NULL);
        cz_cs_enforce(cs, "out", &a, &b, &c);
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
        cz_lc_free(cs, &c);
    } else {
        cz_cs_enforce(cs, "out", NULL, NULL, NULL);
    }
    cz_cs_pop(cs);
    if (out_val) *out_val = s.val[0];
    free(s.vars);
    free(s.coef);
    free(tmp);
    return out;
}
