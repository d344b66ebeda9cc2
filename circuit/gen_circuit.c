#include "circuit/gen_circuit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ff/ff.h"
#include "io/r1cs_write.h"
#include "io/wtns_write.h"
#include "util/alloc.h"
#include "util/outputs.h"
#include "util/rng.h"
#include "util/timer.h"

/* ---- constants of the shapes (changing any changes the circuits) ---- */
enum {
    GROUP_BLOCKS = 32, /* blocks computed in parallel */
    BLOCK_ROWS = 4096, /* chain, dense */
    DENSE_PRV = 8,     /* private inputs of dense */
    FC_GADGET = 34,    /* rows per filecoin gadget */
    FC_CHECKED = 8,    /* checked bits per gadget */
    FC_BITS = 32,      /* bits per gadget word */
    FC_BLOCK_GADGETS = 120,
    FC_BLOCK_ROWS = FC_GADGET * FC_BLOCK_GADGETS,
    FC_RESTART = 10, /* every 10th gadget restarts its product chain */
};

/* ---- the scalar field of either curve, 4 limbs, through ff/mont.h ---- */
typedef struct {
    uint64_t l[4];
} fe;

typedef struct {
    const uint64_t *p;
    uint64_t pinv;
    uint64_t top_mask; /* of the top limb, for rejection sampling */
    fe one, r2, r3;    /* R, R^2, R^3 mod p (R^2 as Montgomery of R) */
} field;

static inline void f_mul(const field *F, fe *r, const fe *a, const fe *b)
{
    cz_mont_mul(r->l, a->l, b->l, F->p, F->pinv, 4);
}
static inline void f_add(const field *F, fe *r, const fe *a, const fe *b)
{
    cz_mont_add(r->l, a->l, b->l, F->p, 4);
}

static void field_init(field *F, cz_curve c)
{
    const cz_field *fr = cz_field_fr(c); /* (cz_gen_circuit checked the curve) */
    F->p = fr->modulus;
    F->pinv = fr->pinv;
    memcpy(F->r2.l, fr->r2, 32);
    fe one_c;
    memset(&one_c, 0, sizeof one_c);
    one_c.l[0] = 1;
    f_mul(F, &F->one, &one_c, &F->r2); /* 1 R^2 / R = R, the Montgomery one */
    int bits = 256;
    while (bits > 0 && !((F->p[(bits - 1) / 64] >> ((bits - 1) % 64)) & 1))
        bits--;
    F->top_mask = bits - 192 >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (bits - 192)) - 1);
    f_mul(F, &F->r3, &F->r2, &F->r2); /* R^4 / R */
}

/* uniform integer below p (a canonical coefficient or, equally, a uniform
 * Montgomery representative) */
static inline void f_rand(const field *F, fe *r, cz_rng *rng)
{
    do {
        for (int i = 0; i < 4; i++)
            r->l[i] = cz_rng_u64(rng);
        r->l[3] &= F->top_mask;
    } while (cz_limbs_cmp(r->l, F->p, 4) >= 0);
}

/* p - v for a small v > 0 (canonical -v) */
static inline fe f_neg_small(const field *F, uint64_t v)
{
    fe r;
    uint64_t b = cz_sbb(&r.l[0], F->p[0], v, 0);
    for (int i = 1; i < 4; i++)
        b = cz_sbb(&r.l[i], F->p[i], 0, b);
    return r;
}

/* ---- per-block output ---- */
typedef struct {
    uint8_t *p;
    size_t len, cap;
    uint64_t rows;
    uint64_t nnz[3];
    int oom;
} block_buf;

static int buf_reserve(block_buf *b, size_t extra)
{
    if (b->len + extra <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->len + extra)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

typedef struct gen {
    const cz_gen_opts *o;
    field F;
    uint64_t N;      /* rows */
    uint64_t n_body; /* rows made by blocks (filecoin: N - K) */
    uint32_t K, n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_wires, first_internal;
    uint64_t block_rows, n_blocks;
    size_t max_row_bytes;
    fe *w; /* witness, Montgomery */
    uint64_t *bm[3];
    size_t bm_words;
    fe c_one, c_two, c_minus1; /* canonical 1, 2, -1 */
    uint32_t in_wire;          /* chain: the private input */
    /* pipeline state of one pool run */
    block_buf bufs[2][GROUP_BLOCKS];
    int cur;
    uint64_t group_first, group_count, prev_count;
    cz_r1cs_writer wr;
    cz_status wst;
    cz_error werr;
} gen;

static inline void mark(gen *g, int m, uint32_t wire)
{
    __atomic_fetch_or(&g->bm[m][wire >> 6], (uint64_t)1 << (wire & 63), __ATOMIC_RELAXED);
}

static inline uint8_t *term(gen *g, int m, uint8_t *p, uint32_t wire, const fe *c)
{
    mark(g, m, wire);
    return cz_r1cs_put_term(p, wire, c->l);
}

static inline uint8_t *lc_head(block_buf *bb, int m, uint8_t *p, uint32_t n)
{
    bb->nnz[m] += n;
    return cz_r1cs_put_u32(p, n);
}

static uint64_t stream_seed(uint64_t seed, cz_gen_profile prof, uint64_t stream)
{
    return seed ^ ((uint64_t)prof * 0x9e3779b97f4a7c15ULL) ^ ((stream + 1) * 0xd1b54a32d192ed03ULL);
}

/* ======================= chain ======================= */

static inline uint32_t chain_def(const gen *g, uint64_t i)
{
    uint64_t first_out = g->N - g->K;
    return (uint32_t)(i >= first_out ? 1 + (i - first_out) : (uint64_t)g->K + 2 + i);
}

/* the whole witness, sequentially: c_0 = in^2, c_i = c_{i-1} (c_{i-1} + in) + i */
static void chain_witness(gen *g)
{
    const field *F = &g->F;
    cz_rng rng;
    cz_rng_seed(&rng, stream_seed(g->o->seed, CZ_GEN_CHAIN, UINT64_MAX));
    fe in, c, t, cnt;
    f_rand(F, &in, &rng);
    g->w[g->in_wire] = in;
    f_mul(F, &c, &in, &in);
    g->w[chain_def(g, 0)] = c;
    cnt = F->one;
    for (uint64_t i = 1; i < g->N; i++) {
        f_add(F, &t, &c, &in);
        f_mul(F, &c, &c, &t);
        f_add(F, &c, &c, &cnt);
        f_add(F, &cnt, &cnt, &F->one);
        g->w[chain_def(g, i)] = c;
    }
}

static void chain_block(gen *g, uint64_t blk, block_buf *bb)
{
    uint64_t s = blk * g->block_rows, e = s + g->block_rows < g->n_body ? s + g->block_rows : g->n_body;
    for (uint64_t i = s; i < e; i++) {
        if (!buf_reserve(bb, g->max_row_bytes)) return;
        uint8_t *p = bb->p + bb->len;
        uint32_t ci = chain_def(g, i);
        if (i == 0) {
            p = lc_head(bb, 0, p, 1);
            p = term(g, 0, p, g->in_wire, &g->c_one);
            p = lc_head(bb, 1, p, 1);
            p = term(g, 1, p, g->in_wire, &g->c_one);
            p = lc_head(bb, 2, p, 1);
            p = term(g, 2, p, ci, &g->c_one);
        } else {
            uint32_t prev = chain_def(g, i - 1);
            fe mi = f_neg_small(&g->F, i);
            p = lc_head(bb, 0, p, 2);
            p = term(g, 0, p, prev, &g->c_one);
            p = term(g, 0, p, g->in_wire, &g->c_one);
            p = lc_head(bb, 1, p, 1);
            p = term(g, 1, p, prev, &g->c_one);
            p = lc_head(bb, 2, p, 2);
            p = term(g, 2, p, ci, &g->c_one);
            p = term(g, 2, p, 0, &mi);
        }
        bb->len = (size_t)(p - bb->p);
        bb->rows++;
    }
}

/* ======================= dense ======================= */

static inline uint32_t dense_def(const gen *g, uint64_t i)
{
    return (uint32_t)(g->n_pub_out && i == g->N - 1 ? 1 : g->first_internal + i);
}

/* index into ONE, public inputs, private inputs, outputs of rows < gs */
static inline uint32_t dense_old(const gen *g, uint64_t idx)
{
    if (idx == 0) return 0;
    if (idx <= g->n_pub_in) return (uint32_t)(g->n_pub_out + idx);
    if (idx <= (uint64_t)g->n_pub_in + DENSE_PRV) return (uint32_t)(1 + g->K + (idx - 1 - g->n_pub_in));
    return dense_def(g, idx - 1 - g->n_pub_in - DENSE_PRV);
}

static void dense_block(gen *g, uint64_t blk, block_buf *bb, cz_rng *rng)
{
    const field *F = &g->F;
    uint64_t s = blk * g->block_rows, e = s + g->block_rows < g->n_body ? s + g->block_rows : g->n_body;
    uint64_t gs = (blk / GROUP_BLOCKS) * GROUP_BLOCKS * g->block_rows; /* first row of this group */
    uint64_t n_old = 1 + (uint64_t)g->n_pub_in + DENSE_PRV + gs;
    for (uint64_t i = s; i < e; i++) {
        if (!buf_reserve(bb, g->max_row_bytes)) return;
        uint8_t *p = bb->p + bb->len;
        uint64_t shape = cz_rng_u64(rng);
        fe acc[2];
        for (int m = 0; m < 2; m++) {
            uint32_t want = 1 + (uint32_t)((shape >> (2 * m)) & 3), n = 0;
            uint32_t wires[4];
            uint8_t *head = p;
            p += 4;
            memset(&acc[m], 0, sizeof acc[m]);
            for (uint32_t t = 0; t < want; t++) {
                uint32_t wire = 0;
                int found = 0;
                /* the first term of A reads the previous row, of B the one
                 * before (inside the block): every output is read in A and B */
                uint64_t back = t == 0 ? (uint64_t)m + 1 : 0;
                if (back && i - s >= back) {
                    wire = dense_def(g, i - back);
                    found = 1;
                }
                for (int tries = 0; tries < 64 && !found; tries++) {
                    uint64_t u = cz_rng_u64(rng);
                    if (i > s && (u & 1))
                        wire = dense_def(g, s + (u >> 1) % (i - s));
                    else
                        wire = dense_old(g, (u >> 1) % n_old);
                    found = 1;
                    for (uint32_t k = 0; k < n; k++)
                        if (wires[k] == wire) found = 0;
                }
                if (!found) continue; /* (never in practice) fewer terms */
                wires[n++] = wire;
                fe c, cw;
                f_rand(F, &c, rng);
                f_mul(F, &cw, &c, &g->w[wire]); /* c * wR / R = c*w (canonical domain) */
                f_add(F, &acc[m], &acc[m], &cw);
                p = term(g, m, p, wire, &c);
            }
            lc_head(bb, m, head, n);
        }
        /* out = A.w * B.w: (a b / R) * R^3 / R = a b R, Montgomery */
        fe ab, out;
        f_mul(F, &ab, &acc[0], &acc[1]);
        f_mul(F, &out, &ab, &F->r3);
        uint32_t d = dense_def(g, i);
        g->w[d] = out;
        p = lc_head(bb, 2, p, 1);
        p = term(g, 2, p, d, &g->c_one);
        bb->len = (size_t)(p - bb->p);
        bb->rows++;
    }
}

/* ======================= filecoin ======================= */

static inline uint32_t fc_def(const gen *g, uint64_t i)
{
    return (uint32_t)(1 + g->K + i);
}

static void fc_block(gen *g, uint64_t blk, block_buf *bb, cz_rng *rng)
{
    const field *F = &g->F;
    uint64_t s = blk * g->block_rows, e = s + g->block_rows < g->n_body ? s + g->block_rows : g->n_body;
    uint8_t bits[FC_BITS];
    uint64_t x = 0; /* packed word of the current gadget */
    fe pow2[FC_BITS], zero;
    memset(pow2, 0, sizeof pow2);
    memset(&zero, 0, sizeof zero);
    for (int t = 0; t < FC_BITS; t++)
        pow2[t].l[0] = (uint64_t)1 << t;
    for (uint64_t i = s; i < e; i++) {
        if (!buf_reserve(bb, g->max_row_bytes)) return;
        uint8_t *p = bb->p + bb->len;
        uint64_t gi = i / FC_GADGET, gb = gi * FC_GADGET;
        unsigned k = (unsigned)(i - gb);
        uint32_t d = fc_def(g, i);
        if (k < FC_CHECKED) {
            /* booleanity: s * (s - 1) = 0 */
            bits[k] = (uint8_t)(cz_rng_u64(rng) & 1);
            g->w[d] = bits[k] ? F->one : zero;
            p = lc_head(bb, 0, p, 1);
            p = term(g, 0, p, d, &g->c_one);
            p = lc_head(bb, 1, p, 2);
            p = term(g, 1, p, d, &g->c_one);
            p = term(g, 1, p, 0, &g->c_minus1);
            p = lc_head(bb, 2, p, 0);
        } else if (k < FC_BITS) {
            uint32_t a = fc_def(g, i - 1);
            unsigned r = (unsigned)(cz_rng_u64(rng) % (k == FC_CHECKED ? FC_CHECKED - 1 : FC_CHECKED));
            uint32_t b = fc_def(g, gb + r);
            unsigned va = bits[k - 1], vb = bits[r];
            if (k % 3 == 2) { /* AND: a * b = t */
                bits[k] = (uint8_t)(va & vb);
                p = lc_head(bb, 0, p, 1);
                p = term(g, 0, p, a, &g->c_one);
                p = lc_head(bb, 1, p, 1);
                p = term(g, 1, p, b, &g->c_one);
                p = lc_head(bb, 2, p, 1);
                p = term(g, 2, p, d, &g->c_one);
            } else { /* XOR: 2a * b = a + b - t */
                bits[k] = (uint8_t)(va ^ vb);
                p = lc_head(bb, 0, p, 1);
                p = term(g, 0, p, a, &g->c_two);
                p = lc_head(bb, 1, p, 1);
                p = term(g, 1, p, b, &g->c_one);
                p = lc_head(bb, 2, p, 3);
                p = term(g, 2, p, a, &g->c_one);
                p = term(g, 2, p, b, &g->c_one);
                p = term(g, 2, p, d, &g->c_minus1);
            }
            g->w[d] = bits[k] ? F->one : zero;
        } else if (k == FC_BITS) {
            /* packing: sum 2^t bit_t * ONE = x */
            x = 0;
            p = lc_head(bb, 0, p, FC_BITS);
            for (int t = 0; t < FC_BITS; t++) {
                x |= (uint64_t)bits[t] << t;
                p = term(g, 0, p, fc_def(g, gb + (uint64_t)t), &pow2[t]);
            }
            p = lc_head(bb, 1, p, 1);
            p = term(g, 1, p, 0, &g->c_one);
            p = lc_head(bb, 2, p, 1);
            p = term(g, 2, p, d, &g->c_one);
            fe xc = {{x, 0, 0, 0}};
            f_mul(F, &g->w[d], &xc, &F->r2);
        } else {
            /* z = (c z' + x) * x, or x^2 on a restart */
            uint32_t xw = fc_def(g, gb + FC_BITS);
            const fe *xm = &g->w[xw];
            if (gi % FC_RESTART == 0) {
                p = lc_head(bb, 0, p, 1);
                p = term(g, 0, p, xw, &g->c_one);
                f_mul(F, &g->w[d], xm, xm);
            } else {
                uint32_t zp = fc_def(g, gb - 1);
                fe c, t, xc = {{x, 0, 0, 0}};
                f_rand(F, &c, rng);
                p = lc_head(bb, 0, p, 2);
                p = term(g, 0, p, zp, &c);
                p = term(g, 0, p, xw, &g->c_one);
                f_mul(F, &t, &c, &g->w[zp]); /* c z' (canonical domain) */
                f_add(F, &t, &t, &xc);       /* c z' + x */
                f_mul(F, &t, &t, xm);        /* (c z' + x) x */
                f_mul(F, &g->w[d], &t, &F->r2);
            }
            p = lc_head(bb, 1, p, 1);
            p = term(g, 1, p, xw, &g->c_one);
            p = lc_head(bb, 2, p, 1);
            p = term(g, 2, p, d, &g->c_one);
        }
        bb->len = (size_t)(p - bb->p);
        bb->rows++;
    }
}

/* K rows pub_j * ONE = x_g, after all blocks */
static void fc_tail(gen *g, block_buf *bb)
{
    uint64_t n_x = g->n_body >= FC_BITS + 1 ? (g->n_body - FC_BITS - 1) / FC_GADGET + 1 : 0;
    for (uint32_t j = 0; j < g->K; j++) {
        if (!buf_reserve(bb, g->max_row_bytes)) return;
        uint8_t *p = bb->p + bb->len;
        uint64_t gj = (uint64_t)j * n_x / g->K;
        uint32_t pub = 1 + g->n_pub_out + j, xw = fc_def(g, gj * FC_GADGET + FC_BITS);
        g->w[pub] = g->w[xw];
        p = lc_head(bb, 0, p, 1);
        p = term(g, 0, p, pub, &g->c_one);
        p = lc_head(bb, 1, p, 1);
        p = term(g, 1, p, 0, &g->c_one);
        p = lc_head(bb, 2, p, 1);
        p = term(g, 2, p, xw, &g->c_one);
        bb->len = (size_t)(p - bb->p);
        bb->rows++;
    }
}

/* ======================= driver ======================= */

static void run_block(gen *g, uint64_t blk, block_buf *bb)
{
    cz_rng rng;
    cz_rng_seed(&rng, stream_seed(g->o->seed, g->o->profile, blk));
    switch (g->o->profile) {
    case CZ_GEN_CHAIN: chain_block(g, blk, bb); break;
    case CZ_GEN_DENSE: dense_block(g, blk, bb, &rng); break;
    default: fc_block(g, blk, bb, &rng); break;
    }
}

/* task 0 writes the previous group's buffers in order; tasks 1.. compute the
 * blocks of the current group */
static void group_task(void *arg, size_t idx, int thread)
{
    gen *g = arg;
    (void)thread;
    if (idx == 0) {
        block_buf *set = g->bufs[g->cur ^ 1];
        for (uint64_t k = 0; k < g->prev_count && g->wst == CZ_OK; k++)
            g->wst = cz_r1cs_writer_add_encoded(&g->wr, set[k].p, set[k].len, set[k].rows, &g->werr);
        return;
    }
    block_buf *bb = &g->bufs[g->cur][idx - 1];
    bb->len = 0;
    bb->rows = 0;
    memset(bb->nnz, 0, sizeof bb->nnz);
    run_block(g, g->group_first + idx - 1, bb);
}

uint32_t cz_gen_default_public(cz_gen_profile p)
{
    switch (p) {
    case CZ_GEN_CHAIN: return 1;
    case CZ_GEN_DENSE: return 4;
    case CZ_GEN_FILECOIN: return 300;
    default: return 0;
    }
}

cz_gen_profile cz_gen_profile_parse(const char *name)
{
    if (!name) return CZ_GEN_NONE;
    if (!strcasecmp(name, "chain")) return CZ_GEN_CHAIN;
    if (!strcasecmp(name, "dense")) return CZ_GEN_DENSE;
    if (!strcasecmp(name, "filecoin")) return CZ_GEN_FILECOIN;
    return CZ_GEN_NONE;
}

const char *cz_gen_profile_name(cz_gen_profile p)
{
    switch (p) {
    case CZ_GEN_CHAIN: return "chain";
    case CZ_GEN_DENSE: return "dense";
    case CZ_GEN_FILECOIN: return "filecoin";
    default: return "none";
    }
}

/* section-2 bytes of filecoin body row k of gadget gi */
static uint64_t fc_row_bytes(uint64_t gi, unsigned k)
{
    unsigned terms;
    if (k < FC_CHECKED)
        terms = 3;
    else if (k < FC_BITS)
        terms = k % 3 == 2 ? 3 : 5;
    else if (k == FC_BITS)
        terms = FC_BITS + 2;
    else
        terms = gi % FC_RESTART == 0 ? 3 : 4;
    return 12 + 36 * (uint64_t)terms;
}

/* layout of g from the options; CZ_ERR_INVALID_ARG when out of range */
static cz_status plan(gen *g, const cz_gen_opts *o, cz_gen_stats *st, cz_error *err)
{
    memset(g, 0, sizeof *g);
    g->o = o;
    if (!o) return cz_error_set(err, CZ_ERR_INVALID_ARG, "gen-circuit: no options");
    if (o->curve != CZ_CURVE_BN254 && o->curve != CZ_CURVE_BLS12_381)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "gen-circuit: unknown curve %d", (int)o->curve);
    if (o->profile != CZ_GEN_CHAIN && o->profile != CZ_GEN_DENSE && o->profile != CZ_GEN_FILECOIN)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "gen-circuit: unknown profile %d", (int)o->profile);
    uint64_t N = o->n_constraints;
    uint32_t K = o->n_public == CZ_GEN_PUBLIC_DEFAULT ? cz_gen_default_public(o->profile) : o->n_public;
    if (N < 1 || N > UINT32_MAX - 64)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "gen-circuit: %" PRIu64 " constraints: expected 1 .. %u", N,
                            (unsigned)(UINT32_MAX - 64));
    g->N = N;
    g->K = K;
    uint64_t sec2 = 0;
    switch (o->profile) {
    case CZ_GEN_CHAIN:
        if (K < 1 || K > N)
            return cz_error_set(
                err, CZ_ERR_INVALID_ARG,
                "gen-circuit: chain: %u public outputs: expected 1 .. the number of constraints (%" PRIu64 ")", K, N);
        g->n_pub_out = K;
        g->n_prv_in = 1;
        g->in_wire = K + 1;
        g->n_wires = N + 2;
        g->n_body = N;
        g->block_rows = BLOCK_ROWS;
        g->max_row_bytes = 12 + 5 * 36;
        sec2 = 120 + (N - 1) * 192;
        break;
    case CZ_GEN_DENSE:
        g->n_pub_out = K ? 1 : 0;
        g->n_pub_in = K ? K - 1 : 0;
        g->n_prv_in = DENSE_PRV;
        g->first_internal = 1 + (uint64_t)K + DENSE_PRV;
        g->n_wires = g->first_internal + N - g->n_pub_out;
        g->n_body = N;
        g->block_rows = BLOCK_ROWS;
        g->max_row_bytes = 12 + 9 * 36;
        sec2 = N * 228; /* expected: 2.5 + 2.5 + 1 terms */
        break;
    default:
        if (K > 0 && N < (uint64_t)K + FC_GADGET)
            return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                "gen-circuit: filecoin: %u public inputs need at least %" PRIu64
                                " constraints (one 34-row gadget besides the %u input rows), got %" PRIu64,
                                K, (uint64_t)K + FC_GADGET, K, N);
        g->n_pub_in = K;
        g->n_wires = N + 1;
        g->n_body = N - K;
        g->block_rows = FC_BLOCK_ROWS;
        g->max_row_bytes = 12 + (FC_BITS + 2) * 36;
        {
            uint64_t full = g->n_body / FC_GADGET, rest = g->n_body % FC_GADGET, per = 0;
            for (unsigned k = 0; k < FC_GADGET - 1; k++)
                per += fc_row_bytes(1, k);
            uint64_t restarts = (full + FC_RESTART - 1) / FC_RESTART;
            sec2 = full * per + restarts * fc_row_bytes(0, FC_GADGET - 1) +
                   (full - restarts) * fc_row_bytes(1, FC_GADGET - 1);
            for (unsigned k = 0; k < rest; k++)
                sec2 += fc_row_bytes(full, k);
            sec2 += (uint64_t)K * 120;
        }
        break;
    }
    if (g->n_wires > UINT32_MAX)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "gen-circuit: %" PRIu64 " wires exceed the format's 2^32 - 1",
                            g->n_wires);
    g->n_blocks = (g->n_body + g->block_rows - 1) / g->block_rows;
    if (st) {
        memset(st, 0, sizeof *st);
        st->n_constraints = N;
        st->n_wires = g->n_wires;
        st->n_pub_out = g->n_pub_out;
        st->n_pub_in = g->n_pub_in;
        st->n_prv_in = g->n_prv_in;
        st->n_private = g->n_wires - 1 - g->n_pub_out - g->n_pub_in;
        st->r1cs_bytes = 100 + sec2 + 12 + 8 * g->n_wires;
        st->wtns_bytes = cz_wtns_file_size((uint32_t)g->n_wires);
    }
    return CZ_OK;
}

cz_status cz_gen_plan(const cz_gen_opts *o, cz_gen_stats *stats, cz_error *err)
{
    gen g;
    return plan(&g, o, stats, err);
}

typedef struct {
    const fe *w;
    const fe *one;
    uint64_t zeros, ones;
} count_ctx;

static void count_range(void *arg, size_t b, size_t e, int thread)
{
    count_ctx *c = arg;
    (void)thread;
    uint64_t z = 0, o = 0;
    for (size_t i = b; i < e; i++) {
        z += cz_limbs_is_zero(c->w[i].l, 4);
        o += cz_limbs_eq(c->w[i].l, c->one->l, 4);
    }
    __atomic_fetch_add(&c->zeros, z, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->ones, o, __ATOMIC_RELAXED);
}

static uint64_t popcount_range(const uint64_t *bm, uint64_t b, uint64_t e)
{
    uint64_t n = 0;
    for (uint64_t i = b; i < e;) {
        if ((i & 63) == 0 && e - i >= 64) {
            n += (uint64_t)__builtin_popcountll(bm[i >> 6]);
            i += 64;
        } else {
            n += (bm[i >> 6] >> (i & 63)) & 1;
            i++;
        }
    }
    return n;
}

static void progress(const gen *g, const char *phase, uint64_t done, uint64_t total)
{
    if (g->o->progress) g->o->progress(g->o->progress_ctx, phase, done, total);
}

cz_status cz_gen_circuit(const cz_gen_opts *o, const char *r1cs_path, const char *wtns_path, cz_gen_stats *stats,
                         cz_error *err)
{
    double t0 = cz_now();
    gen *g = calloc(1, sizeof *g);
    if (!g) return cz_error_set(err, CZ_ERR_NO_MEMORY, "gen-circuit: out of memory");
    cz_gen_stats st;
    /* both files or neither: written to placeholders, renamed together at the end */
    cz_outputs outs;
    cz_outputs_init(&outs);
    const char *r1cs_tmp, *wtns_tmp;
    cz_status rc = plan(g, o, &st, err);
    if (rc != CZ_OK) goto out;
    if (!r1cs_path || !wtns_path) {
        rc = cz_error_set(err, CZ_ERR_INVALID_ARG, "gen-circuit: no output path");
        goto out;
    }
    const char *const paths[2] = {r1cs_path, wtns_path};
    if ((rc = cz_outputs_check(NULL, 0, paths, 2, err)) != CZ_OK) goto out;
    if ((rc = cz_outputs_add(&outs, r1cs_path, &r1cs_tmp, err)) != CZ_OK ||
        (rc = cz_outputs_add(&outs, wtns_path, &wtns_tmp, err)) != CZ_OK)
        goto out;
    cz_pool *pool = o->pool ? o->pool : cz_pool_default();
    field_init(&g->F, o->curve);
    g->c_one.l[0] = 1;
    g->c_two.l[0] = 2;
    g->c_minus1 = f_neg_small(&g->F, 1);

    /* witness and coverage bitmaps */
    g->w = cz_alloc(NULL, (size_t)g->n_wires * sizeof(fe));
    g->bm_words = (size_t)(g->n_wires + 63) / 64;
    for (int m = 0; m < 3; m++)
        g->bm[m] = calloc(g->bm_words, 8);
    if (!g->w || !g->bm[0] || !g->bm[1] || !g->bm[2]) {
        rc = cz_error_set(err, CZ_ERR_NO_MEMORY,
                          "gen-circuit: out of memory for the witness of %" PRIu64 " wires (%" PRIu64 " MiB)",
                          g->n_wires, (g->n_wires * 32) >> 20);
        goto out;
    }
    memset(g->w, 0, (size_t)g->n_wires * sizeof(fe));
    g->w[0] = g->F.one;
    {
        /* input values: one stream of their own */
        cz_rng rng;
        cz_rng_seed(&rng, stream_seed(o->seed, o->profile, UINT64_MAX - 1));
        if (o->profile == CZ_GEN_DENSE)
            for (uint64_t i = 1 + g->n_pub_out; i < g->first_internal; i++)
                f_rand(&g->F, &g->w[i], &rng);
    }
    if (o->profile == CZ_GEN_CHAIN) {
        progress(g, "witness", 0, g->N);
        chain_witness(g);
    }

    cz_r1cs_header h = {o->curve, (uint32_t)g->n_wires, g->n_pub_out, g->n_pub_in, g->n_prv_in, 0};
    if ((rc = cz_r1cs_writer_open(&g->wr, r1cs_tmp, &h, err)) != CZ_OK) goto out;

    /* groups of blocks: compute group q while writing group q-1 */
    uint64_t n_groups = (g->n_blocks + GROUP_BLOCKS - 1) / GROUP_BLOCKS;
    progress(g, "constraints", 0, g->N);
    for (uint64_t q = 0; q <= n_groups; q++) {
        g->cur = (int)(q & 1);
        g->group_first = q * GROUP_BLOCKS;
        g->group_count =
            q < n_groups ? (g->n_blocks - g->group_first < GROUP_BLOCKS ? g->n_blocks - g->group_first : GROUP_BLOCKS)
                         : 0;
        g->prev_count = 0;
        if (q > 0) {
            uint64_t pf = (q - 1) * GROUP_BLOCKS;
            g->prev_count = g->n_blocks - pf < GROUP_BLOCKS ? g->n_blocks - pf : GROUP_BLOCKS;
        }
        cz_pool_run(pool, 1 + (size_t)g->group_count, group_task, g);
        if (g->wst != CZ_OK) {
            rc = cz_error_set(err, g->wst, "%s", cz_error_msg(&g->werr));
            goto out;
        }
        for (uint64_t k = 0; k < g->group_count; k++) {
            block_buf *bb = &g->bufs[g->cur][k];
            if (bb->oom) {
                rc = cz_error_set(err, CZ_ERR_NO_MEMORY, "gen-circuit: out of memory for constraint buffers");
                goto out;
            }
            for (int m = 0; m < 3; m++)
                st.nnz[m] += bb->nnz[m];
        }
        uint64_t done = (g->group_first + g->group_count) * g->block_rows;
        progress(g, "constraints", done < g->n_body ? done : g->n_body, g->N);
    }
    if (o->profile == CZ_GEN_FILECOIN && g->K) {
        block_buf *bb = &g->bufs[0][0];
        bb->len = 0;
        bb->rows = 0;
        memset(bb->nnz, 0, sizeof bb->nnz);
        fc_tail(g, bb);
        if (bb->oom) {
            rc = cz_error_set(err, CZ_ERR_NO_MEMORY, "gen-circuit: out of memory for constraint buffers");
            goto out;
        }
        for (int m = 0; m < 3; m++)
            st.nnz[m] += bb->nnz[m];
        if ((rc = cz_r1cs_writer_add_encoded(&g->wr, bb->p, bb->len, bb->rows, err)) != CZ_OK) goto out;
    }
    progress(g, "constraints", g->N, g->N);
    if (g->wr.n_constraints != g->N) {
        rc = cz_error_set(err, CZ_ERR_INTERNAL, "gen-circuit: made %" PRIu64 " constraints, expected %" PRIu64,
                          g->wr.n_constraints, g->N);
        goto out;
    }
    progress(g, "sync", 0, 1);
    if ((rc = cz_r1cs_writer_finish(&g->wr, NULL, err)) != CZ_OK) goto out;
    st.r1cs_bytes = g->wr.bytes;

    /* statistics */
    uint64_t npub = (uint64_t)g->n_pub_out + g->n_pub_in;
    for (int m = 0; m < 3; m++) {
        st.cols[m] = popcount_range(g->bm[m], 0, g->n_wires);
        st.prv_cols[m] = popcount_range(g->bm[m], npub + 1, g->n_wires);
    }
    count_ctx cc = {g->w, &g->F.one, 0, 0};
    cz_parallel_for(pool, (size_t)g->n_wires, 1 << 14, count_range, &cc);
    st.zeros = cc.zeros;
    st.ones = cc.ones;
    st.share01 = (double)(cc.zeros + cc.ones) / (double)g->n_wires;

    double tw = cz_now();
    progress(g, "witness", 0, 1);
    if ((rc = cz_wtns_write(wtns_tmp, o->curve, g->w, (uint32_t)g->n_wires, 1, pool, err)) != CZ_OK) goto out;
    if ((rc = cz_outputs_commit(&outs, err)) != CZ_OK) goto out;
    progress(g, "witness", 1, 1);
    st.seconds_witness = cz_now() - tw;
    st.seconds = cz_now() - t0;
    if (stats) *stats = st;
out:
    if (rc != CZ_OK) {
        cz_r1cs_writer_abort(&g->wr);
        cz_outputs_explain(&outs, err); /* messages name the outputs, not their placeholders */
        cz_outputs_abort(&outs);        /* the placeholders only: no earlier file is touched */
    }
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < GROUP_BLOCKS; k++)
            free(g->bufs[s][k].p);
    for (int m = 0; m < 3; m++)
        free(g->bm[m]);
    cz_free(NULL, g->w, (size_t)g->n_wires * sizeof(fe));
    free(g);
    return rc;
}
