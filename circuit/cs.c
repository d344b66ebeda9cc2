/* circuit/cs: the constraint system in its three modes (contract in cs.h). */
#include "circuit/cs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ff/ff.h"

_Static_assert(sizeof(cz_fe) == 32, "cz_fe is one 4-limb scalar");

#define NCLASS 28   /* blocks of 8 .. 8 << 27 terms */
#define PATH_CAP 1024
#define DEPTH_MAX 64

typedef struct blk {
    struct blk *next_all;  /* every block the pool made */
    struct blk *next_free; /* its class's free list */
    uint32_t cls;
    uint32_t pad[3];
} blk; /* 32 bytes, then the terms */

typedef struct mat {
    uint64_t *row_ptr; /* n_cons + 1 */
    uint32_t *col;     /* cz_var while recording, wire after finish */
    cz_fe *val;
    uint64_t nnz, cap;
} mat;

struct cz_cs {
    cz_cs_head h; /* first: read by the inline helpers */
    cz_curve curve;
    const cz_allocator *alloc;
    int eval, stop_first, finished;
    char msg[256];
    /* inputs (ONE first), heap */
    cz_fe *in;
    uint32_t n_in, cap_in;
    /* the witness buffer (alloc): aux j at w[aux_off + j]; inputs copied to
     * the front by finish */
    cz_fe *w;
    size_t w_cap;
    uint32_t aux_off, n_aux;
    int w_taken;
    /* constraints */
    uint64_t n_cons;
    uint64_t rp_cap; /* capacity of the row_ptr arrays */
    mat m[3];
    cz_fe *ev[3]; /* evaluations (record + eval), alloc */
    uint64_t ev_cap;
    /* check */
    uint64_t bad;
    char bad_name[PATH_CAP + 256];
    /* namespaces: the path in check mode */
    char path[PATH_CAP];
    uint32_t path_len[DEPTH_MAX];
    int depth;
    /* the LC pool */
    blk *free[NCLASS];
    blk *all;
    size_t n_blocks;
    uint32_t regrowths; /* growths after init */
    int inited;
};

static cz_status set_st(cz_cs *cs, cz_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cz_status set_st(cz_cs *cs, cz_status st, const char *fmt, ...)
{
    if (cs->h.st == CZ_OK) {
        cs->h.st = st;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cs->msg, sizeof cs->msg, fmt, ap);
        va_end(ap);
    }
    return cs->h.st;
}

cz_status cz_cs_fail(cz_cs *cs, cz_status st, const char *fmt, ...)
{
    if (cs->h.st == CZ_OK) {
        cs->h.st = st;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cs->msg, sizeof cs->msg, fmt, ap);
        va_end(ap);
    }
    return cs->h.st;
}

const char *cz_cs_message(const cz_cs *cs) { return cs->msg[0] ? cs->msg : cz_status_str(cs->h.st); }
cz_status cz_cs_status(const cz_cs *cs) { return cs->h.st; }
cz_cs_mode cz_cs_mode_of(const cz_cs *cs) { return cs->h.mode; }
cz_curve cz_cs_curve(const cz_cs *cs) { return cs->curve; }
uint64_t cz_cs_n_constraints(const cz_cs *cs) { return cs->n_cons; }

/* ---- field helpers ---- */

void cz_fe_from_canonical(const cz_cs *cs, cz_fe *r, const uint64_t a[4])
{
    const cz_cs_field *f = cz_cs_fr(cs);
    cz_mont_mul(r->l, a, f->r2.l, f->p, f->pinv, 4);
}

void cz_fe_to_canonical(const cz_cs *cs, uint64_t r[4], const cz_fe *a)
{
    const cz_cs_field *f = cz_cs_fr(cs);
    cz_mont_redc_c(r, a->l, f->p, f->pinv, 4);
}

void cz_fe_from_u64(const cz_cs *cs, cz_fe *r, uint64_t v)
{
    uint64_t t[4] = {v, 0, 0, 0};
    cz_fe_from_canonical(cs, r, t);
}

void cz_fe_pow2(const cz_cs *cs, cz_fe *r, unsigned k)
{
    uint64_t t[4] = {0};
    t[(k >> 6) & 3] = (uint64_t)1 << (k & 63);
    cz_fe_from_canonical(cs, r, t); /* 2^k < p for k < 254 */
}

cz_status cz_fe_inv(const cz_cs *cs, cz_fe *r, const cz_fe *a)
{
    if (cz_fe_is_zero(a)) return CZ_ERR_DIV_BY_ZERO;
    /* a^(p-2) */
    const cz_cs_field *f = cz_cs_fr(cs);
    uint64_t e[4];
    memcpy(e, f->p, sizeof e);
    e[0] -= 2; /* p is odd and > 2: no borrow */
    cz_fe acc = f->one, base = *a;
    for (int i = 0; i < 256; i++) {
        if ((e[i >> 6] >> (i & 63)) & 1) cz_fe_mul(cs, &acc, &acc, &base);
        cz_fe_mul(cs, &base, &base, &base);
    }
    *r = acc;
    return CZ_OK;
}

/* ---- init ---- */

static int grow_in(cz_cs *cs)
{
    cs->regrowths += cs->inited;
    uint32_t cap = cs->cap_in ? cs->cap_in * 2 : 16;
    cz_fe *p = realloc(cs->in, (size_t)cap * sizeof *p);
    if (!p) return 0;
    cs->in = p;
    cs->cap_in = cap;
    return 1;
}

static int grow_w(cz_cs *cs, size_t need)
{
    cs->regrowths += cs->inited;
    size_t cap = cs->w_cap ? cs->w_cap : need ? need : 1024;
    while (cap < need) cap *= 2;
    cz_fe *p = cz_alloc(cs->alloc, cap * sizeof *p);
    if (!p) return 0;
    if (cs->w) {
        memcpy(p, cs->w, cs->w_cap * sizeof *p);
        cz_free(cs->alloc, cs->w, cs->w_cap * sizeof *p);
    }
    cs->w = p;
    cs->w_cap = cap;
    return 1;
}

static int grow_rows(cz_cs *cs, uint64_t need)
{
    cs->regrowths += cs->inited;
    uint64_t cap = cs->rp_cap ? cs->rp_cap : 1024;
    while (cap < need) cap *= 2;
    for (int k = 0; k < 3; k++) {
        uint64_t *p = realloc(cs->m[k].row_ptr, cap * sizeof *p);
        if (!p) return 0;
        cs->m[k].row_ptr = p;
    }
    if (cs->eval) {
        for (int k = 0; k < 3; k++) {
            cz_fe *p = cz_alloc(cs->alloc, cap * sizeof *p);
            if (!p) return 0;
            if (cs->ev[k]) {
                memcpy(p, cs->ev[k], cs->n_cons * sizeof *p);
                cz_free(cs->alloc, cs->ev[k], cs->ev_cap * sizeof *p);
            }
            cs->ev[k] = p;
        }
        cs->ev_cap = cap;
    }
    cs->rp_cap = cap;
    return 1;
}

static int grow_mat(cz_cs *cs, mat *m, uint64_t need)
{
    cs->regrowths += cs->inited;
    uint64_t cap = m->cap ? m->cap : 4096;
    while (cap < need) cap *= 2;
    uint32_t *c = realloc(m->col, cap * sizeof *c);
    if (!c) return 0;
    m->col = c;
    cz_fe *v = realloc(m->val, cap * sizeof *v);
    if (!v) return 0;
    m->val = v;
    m->cap = cap;
    return 1;
}

cz_status cz_cs_new(cz_cs **out, const cz_cs_opts *o, cz_error *err)
{
    *out = NULL;
    const cz_field *fr = cz_field_fr(o->curve);
    if (!fr || fr->limbs != 4) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cs_new: unknown curve %d", (int)o->curve);
    if (o->mode != CZ_CS_RECORD && o->mode != CZ_CS_WITNESS && o->mode != CZ_CS_CHECK)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cs_new: unknown mode %d", (int)o->mode);
    cz_cs *cs = calloc(1, sizeof *cs);
    if (!cs) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    memcpy(cs->h.f.p, fr->modulus, 32);
    cs->h.f.pinv = fr->pinv;
    memcpy(cs->h.f.r2.l, fr->r2, 32);
    cs->h.mode = o->mode;
    cs->curve = o->curve;
    cs->alloc = o->alloc;
    cs->eval = o->mode == CZ_CS_RECORD && o->eval;
    cs->stop_first = o->stop_at_first;
    cs->bad = UINT64_MAX;
    cz_fe_from_u64(cs, &cs->h.f.one, 1);
    const cz_cs_hint *h = o->hint;
    int ok = 1;
    /* inputs */
    cs->cap_in = h && h->n_inputs > 16 ? h->n_inputs : 16;
    ok = ok && (cs->in = malloc((size_t)cs->cap_in * sizeof(cz_fe))) != NULL;
    /* the witness: aux after the inputs the hint announces */
    cs->aux_off = h ? h->n_inputs : 0;
    if (ok) ok = grow_w(cs, h ? (size_t)h->n_inputs + h->n_aux : 1024);
    if (ok && o->mode == CZ_CS_RECORD) {
        ok = grow_rows(cs, h ? h->n_constraints + 1 : 1024);
        for (int k = 0; k < 3 && ok; k++) ok = grow_mat(cs, &cs->m[k], h && h->nnz[k] ? h->nnz[k] : 4096);
        for (int k = 0; k < 3 && ok; k++) cs->m[k].row_ptr[0] = 0;
    }
    if (!ok) {
        cz_cs_free(cs);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory for a constraint system");
    }
    cs->in[0] = cs->h.f.one;
    cs->n_in = 1;
    cs->inited = 1;
    *out = cs;
    return CZ_OK;
}

void cz_cs_free(cz_cs *cs)
{
    if (!cs) return;
    free(cs->in);
    if (!cs->w_taken) cz_free(cs->alloc, cs->w, cs->w_cap * sizeof(cz_fe));
    for (int k = 0; k < 3; k++) {
        free(cs->m[k].row_ptr);
        free(cs->m[k].col);
        free(cs->m[k].val);
        cz_free(cs->alloc, cs->ev[k], cs->ev_cap * sizeof(cz_fe));
    }
    for (blk *b = cs->all; b;) {
        blk *n = b->next_all;
        free(b);
        b = n;
    }
    free(cs);
}

/* ---- variables ---- */

cz_var cz_cs_alloc(cz_cs *cs, const cz_fe *value)
{
    if (cs->h.st != CZ_OK || cs->finished) return CZ_VAR_ONE;
    size_t at = (size_t)cs->aux_off + cs->n_aux;
    if (at >= cs->w_cap && !grow_w(cs, at + 1)) {
        set_st(cs, CZ_ERR_NO_MEMORY, "out of memory for the witness (%u private variables)", cs->n_aux);
        return CZ_VAR_ONE;
    }
    if (cs->n_aux >= 0x7fffffffu) {
        set_st(cs, CZ_ERR_RANGE, "more than 2^31 private variables");
        return CZ_VAR_ONE;
    }
    cs->w[at] = *value;
    return cs->n_aux++;
}

cz_var cz_cs_alloc_input(cz_cs *cs, const cz_fe *value)
{
    if (cs->h.st != CZ_OK || cs->finished) return CZ_VAR_ONE;
    if (cs->n_in >= cs->cap_in && !grow_in(cs)) {
        set_st(cs, CZ_ERR_NO_MEMORY, "out of memory for the inputs");
        return CZ_VAR_ONE;
    }
    cs->in[cs->n_in] = *value;
    return CZ_VAR_INPUT | cs->n_in++;
}

const cz_fe *cz_cs_value(const cz_cs *cs, cz_var v)
{
    if (CZ_VAR_IS_INPUT(v)) return &cs->in[CZ_VAR_INDEX(v)];
    return &cs->w[cs->aux_off + v];
}

/* ---- namespaces ---- */

void cz_cs_push(cz_cs *cs, const char *fmt, ...)
{
    if (cs->h.mode == CZ_CS_CHECK && cs->depth < DEPTH_MAX) {
        size_t len = strlen(cs->path);
        cs->path_len[cs->depth] = (uint32_t)len;
        if (len + 2 < PATH_CAP) {
            if (len) cs->path[len++] = '/';
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(cs->path + len, PATH_CAP - len, fmt, ap);
            va_end(ap);
        }
    }
    cs->depth++;
}

void cz_cs_pop(cz_cs *cs)
{
    if (cs->depth <= 0) return;
    cs->depth--;
    if (cs->h.mode == CZ_CS_CHECK && cs->depth < DEPTH_MAX) cs->path[cs->path_len[cs->depth]] = 0;
}

/* ---- linear combinations ---- */

static cz_term *blk_terms(blk *b) { return (cz_term *)(b + 1); }

static cz_term *pool_get(cz_cs *cs, uint32_t cls)
{
    blk *b = cs->free[cls];
    if (b) {
        cs->free[cls] = b->next_free;
        return blk_terms(b);
    }
    b = malloc(sizeof *b + ((size_t)8 << cls) * sizeof(cz_term));
    if (!b) return NULL;
    b->cls = cls;
    cs->n_blocks++;
    b->next_all = cs->all;
    cs->all = b;
    return blk_terms(b);
}

static void pool_put(cz_cs *cs, cz_term *t)
{
    blk *b = (blk *)t - 1;
    b->next_free = cs->free[b->cls];
    cs->free[b->cls] = b;
}

void cz_lc_add_slow(cz_cs *cs, cz_lc *lc, cz_var v, const cz_fe *coef)
{
    if (cs->h.mode == CZ_CS_WITNESS) return;
    if (!lc->t || lc->n >= (8u << lc->cls)) {
        uint32_t cls = lc->t ? lc->cls + 1 : 0;
        if (cls >= NCLASS) {
            set_st(cs, CZ_ERR_RANGE, "a linear combination of more than 2^30 terms");
            return;
        }
        cz_term *t = pool_get(cs, cls);
        if (!t) {
            set_st(cs, CZ_ERR_NO_MEMORY, "out of memory for a linear combination");
            return;
        }
        if (lc->t) {
            memcpy(t, lc->t, (size_t)lc->n * sizeof *t);
            pool_put(cs, lc->t);
        }
        lc->t = t;
        lc->cls = cls;
    }
    cz_lc_add(cs, lc, v, coef);
}

void cz_lc_add_lc(cz_cs *cs, cz_lc *lc, const cz_lc *other, const cz_fe *scale)
{
    if (cs->h.mode == CZ_CS_WITNESS) return;
    for (uint32_t i = 0; i < other->n; i++) {
        const cz_term *t = &other->t[i];
        if (!scale) {
            cz_lc_add(cs, lc, t->v, t->one ? NULL : &t->c);
        } else {
            cz_fe c;
            cz_fe_mul(cs, &c, &t->c, scale);
            cz_lc_add(cs, lc, t->v, &c);
        }
    }
}

void cz_lc_free(cz_cs *cs, cz_lc *lc)
{
    if (lc->t) pool_put(cs, lc->t);
    cz_lc_init(lc);
}

void cz_lc_eval(const cz_cs *cs, cz_fe *out, const cz_lc *lc)
{
    cz_fe acc = {{0}}, t;
    for (uint32_t i = 0; i < lc->n; i++) {
        const cz_term *x = &lc->t[i];
        const cz_fe *v = cz_cs_value(cs, x->v);
        if (x->one) {
            cz_fe_add(cs, &acc, &acc, v);
        } else {
            cz_fe_mul(cs, &t, &x->c, v);
            cz_fe_add(cs, &acc, &acc, &t);
        }
    }
    *out = acc;
}

/* ---- constraints ---- */

static int record_lc(cz_cs *cs, mat *m, const cz_lc *lc)
{
    uint64_t need = m->nnz + lc->n;
    if (need > m->cap && !grow_mat(cs, m, need)) return 0;
    for (uint32_t i = 0; i < lc->n; i++) {
        m->col[m->nnz + i] = lc->t[i].v;
        m->val[m->nnz + i] = lc->t[i].c;
    }
    m->nnz = need;
    m->row_ptr[cs->n_cons + 1] = need;
    return 1;
}

void cz_cs_enforce(cz_cs *cs, const char *name, const cz_lc *a, const cz_lc *b, const cz_lc *c)
{
    if (cs->h.mode == CZ_CS_WITNESS) {
        cs->n_cons++;
        return;
    }
    if (cs->h.st != CZ_OK || cs->finished) return;
    static const cz_lc empty = {NULL, 0, 0};
    if (!a) a = &empty;
    if (!b) b = &empty;
    if (!c) c = &empty;
    if (cs->h.mode == CZ_CS_CHECK) {
        if (cs->bad == UINT64_MAX || !cs->stop_first) {
            cz_fe va, vb, vc;
            cz_lc_eval(cs, &va, a);
            cz_lc_eval(cs, &vb, b);
            cz_lc_eval(cs, &vc, c);
            cz_fe_mul(cs, &va, &va, &vb);
            if (!cz_fe_eq(&va, &vc) && cs->bad == UINT64_MAX) {
                cs->bad = cs->n_cons;
                snprintf(cs->bad_name, sizeof cs->bad_name, "%s%s%s", cs->path, cs->path[0] && name ? "/" : "",
                         name ? name : "");
            }
        }
        cs->n_cons++;
        return;
    }
    /* record */
    if (cs->n_cons + 2 > cs->rp_cap && !grow_rows(cs, cs->n_cons + 2)) {
        set_st(cs, CZ_ERR_NO_MEMORY, "out of memory for the constraint rows");
        return;
    }
    if (!record_lc(cs, &cs->m[0], a) || !record_lc(cs, &cs->m[1], b) || !record_lc(cs, &cs->m[2], c)) {
        set_st(cs, CZ_ERR_NO_MEMORY, "out of memory for the constraint matrices");
        return;
    }
    if (cs->eval) {
        cz_lc_eval(cs, &cs->ev[0][cs->n_cons], a);
        cz_lc_eval(cs, &cs->ev[1][cs->n_cons], b);
        cz_lc_eval(cs, &cs->ev[2][cs->n_cons], c);
    }
    cs->n_cons++;
}

/* ---- the result ---- */

cz_status cz_cs_finish(cz_cs *cs, cz_error *err)
{
    if (cs->finished) return cs->h.st;
    if (cs->h.st != CZ_OK) return cz_error_set(err, cs->h.st, "%s", cz_cs_message(cs));
    if ((uint64_t)cs->n_in + cs->n_aux > UINT32_MAX)
        return cz_error_set(err, set_st(cs, CZ_ERR_RANGE, "more than 2^32 - 1 variables"), "%s", cs->msg);
    if (cs->n_cons > UINT32_MAX)
        return cz_error_set(err, set_st(cs, CZ_ERR_RANGE, "more than 2^32 - 1 constraints"), "%s", cs->msg);
    size_t n = (size_t)cs->n_in + cs->n_aux;
    if (cs->aux_off != cs->n_in) {
        if (n > cs->w_cap && !grow_w(cs, n))
            return cz_error_set(err, set_st(cs, CZ_ERR_NO_MEMORY, "out of memory for the witness"), "%s", cs->msg);
        memmove(cs->w + cs->n_in, cs->w + cs->aux_off, (size_t)cs->n_aux * sizeof(cz_fe));
        cs->aux_off = cs->n_in;
    }
    memcpy(cs->w, cs->in, (size_t)cs->n_in * sizeof(cz_fe));
    if (cs->h.mode == CZ_CS_RECORD) {
        uint32_t n_in = cs->n_in;
        for (int k = 0; k < 3; k++) {
            mat *m = &cs->m[k];
            if (cs->n_cons == 0) m->row_ptr[0] = 0;
            for (uint64_t i = 0; i < m->nnz; i++) {
                uint32_t v = m->col[i];
                m->col[i] = CZ_VAR_IS_INPUT(v) ? CZ_VAR_INDEX(v) : n_in + v;
            }
        }
    }
    cs->finished = 1;
    return CZ_OK;
}

void cz_cs_counts(const cz_cs *cs, cz_cs_hint *out)
{
    memset(out, 0, sizeof *out);
    out->n_inputs = cs->n_in;
    out->n_aux = cs->n_aux;
    out->n_constraints = cs->n_cons;
    if (cs->h.mode == CZ_CS_RECORD)
        for (int k = 0; k < 3; k++) out->nnz[k] = cs->m[k].nnz;
}

const cz_fe *cz_cs_witness(const cz_cs *cs, uint32_t *n)
{
    *n = cs->finished && !cs->w_taken ? cs->n_in + cs->n_aux : 0;
    return *n ? cs->w : NULL;
}

cz_fe *cz_cs_take_witness(cz_cs *cs, uint32_t *n, size_t *bytes)
{
    if (!cs->finished || cs->w_taken) {
        *n = 0;
        *bytes = 0;
        return NULL;
    }
    *n = cs->n_in + cs->n_aux;
    *bytes = cs->w_cap * sizeof(cz_fe);
    cs->w_taken = 1;
    return cs->w;
}

size_t cz_cs_lc_blocks(const cz_cs *cs) { return cs->n_blocks; }
uint32_t cz_cs_regrowths(const cz_cs *cs) { return cs->regrowths; }


cz_status cz_cs_take_matrices(cz_cs *cs, cz_csr *A, cz_csr *B, cz_csr *C, cz_error *err)
{
    if (!cs->finished || cs->h.mode != CZ_CS_RECORD || !cs->m[0].row_ptr)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cs_take_matrices: not a finished recording");
    cz_csr *out[3] = {A, B, C};
    for (int k = 0; k < 3; k++) {
        mat *m = &cs->m[k];
        cz_csr *o = out[k];
        o->nrows = (uint32_t)cs->n_cons;
        o->ncols = cs->n_in + cs->n_aux;
        o->nnz = m->nnz;
        o->row_ptr = m->row_ptr;
        o->col = m->col;
        o->val = m->val;
        if (!m->nnz) { /* cz_csr_free frees by size: keep the arrays NULL-or-real */
            free(m->col);
            free(m->val);
            o->col = NULL;
            o->val = NULL;
        }
        memset(m, 0, sizeof *m);
    }
    return CZ_OK;
}

const cz_fe *cz_cs_evals(const cz_cs *cs, int which)
{
    return which >= 0 && which < 3 ? cs->ev[which] : NULL;
}

cz_status cz_cs_check_result(const cz_cs *cs, uint64_t *index, cz_error *err)
{
    *index = cs->bad;
    if (cs->h.st != CZ_OK) return cz_error_set(err, cs->h.st, "%s", cz_cs_message(cs));
    if (cs->bad == UINT64_MAX) return CZ_OK;
    return cz_error_set(err, CZ_ERR_UNSATISFIED, "constraint %llu (%s) of %llu is not satisfied",
                        (unsigned long long)cs->bad, cs->bad_name[0] ? cs->bad_name : "unnamed",
                        (unsigned long long)cs->n_cons);
}
