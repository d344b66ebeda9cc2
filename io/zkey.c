#include "io/zkey.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ec/ec.h"
#include "io/binfile.h"
#include "io/subgroup.h"
#include "util/thread.h"

/* bytes of a G1 / G2 affine point of the key's curve (0 for no curve) */
static size_t point_size(cz_curve c, int group)
{
    const cz_curve_info *ci = cz_curve_info_get(c);
    if (!ci) return 0;
    return group == 1 ? ci->g1_affine_bytes : ci->g2_affine_bytes;
}

/* ---- point validation: every coordinate < q, point on the curve ---- */

static const cz_group *point_group(cz_curve c, int group)
{
    return group == 1 ? cz_group_g1(c) : cz_group_g2(c);
}

static int point_ok(const cz_group *g, const void *p, int curve_check)
{
    return g->affine_in_range(p) && (!curve_check || g->affine_is_on_curve(p));
}

static void note_bad(uint64_t *slot, uint64_t i)
{
    uint64_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (i < cur && !__atomic_compare_exchange_n(slot, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* the first failed read of a parallel loop (the one at the lowest offset) */
typedef struct {
    pthread_mutex_t mu;
    uint64_t at; /* UINT64_MAX: none */
    cz_error err;
} read_fail;

static void read_fail_init(read_fail *r)
{
    pthread_mutex_init(&r->mu, NULL);
    r->at = UINT64_MAX;
    cz_error_clear(&r->err);
}

static void read_fail_note(read_fail *r, uint64_t at, const cz_error *e)
{
    pthread_mutex_lock(&r->mu);
    if (at < r->at) {
        r->at = at;
        r->err = *e;
    }
    pthread_mutex_unlock(&r->mu);
}

/* CZ_OK, or the first failure passed on to err */
static cz_status read_fail_done(read_fail *r, cz_error *err)
{
    pthread_mutex_destroy(&r->mu);
    if (r->at == UINT64_MAX) return CZ_OK;
    return cz_error_set(err, r->err.status, "%s", cz_error_msg(&r->err));
}

/* points [b, e) of a section: read straight into the table, then checked */
typedef struct {
    const cz_binfile *f;
    uint64_t off; /* of point 0 */
    uint8_t *dst;
    size_t psize;
    const cz_group *g;
    int curve_check;
    uint64_t bad; /* smallest bad index or UINT64_MAX */
    read_fail rf;
} copy_ctx;

static void copy_range(void *arg, size_t b, size_t e, int thread)
{
    copy_ctx *c = arg;
    (void)thread;
    cz_error le;
    cz_error_clear(&le);
    const uint64_t at = c->off + (uint64_t)b * c->psize;
    if (cz_binfile_read(c->f, at, c->dst + b * c->psize, (uint64_t)(e - b) * c->psize, &le) != CZ_OK) {
        read_fail_note(&c->rf, at, &le);
        return;
    }
    for (size_t i = b; i < e; i++)
        if (!point_ok(c->g, c->dst + i * c->psize, c->curve_check)) note_bad(&c->bad, i);
}

/* bytes [b, e) (in units of the grain below) of a region read in parallel */
typedef struct {
    const cz_binfile *f;
    uint64_t off, len;
    uint8_t *dst;
    read_fail rf;
} bulk_ctx;

enum { BULK_GRAIN = 1 << 20 };

static void bulk_range(void *arg, size_t b, size_t e, int thread)
{
    bulk_ctx *c = arg;
    (void)thread;
    const uint64_t lo = (uint64_t)b * BULK_GRAIN,
                   hi = (uint64_t)e * BULK_GRAIN < c->len ? (uint64_t)e * BULK_GRAIN : c->len;
    cz_error le;
    cz_error_clear(&le);
    if (cz_binfile_read(c->f, c->off + lo, c->dst + lo, hi - lo, &le) != CZ_OK)
        read_fail_note(&c->rf, c->off + lo, &le);
}

/* the len bytes at off into dst, in parallel chunks */
static cz_status read_bulk(const cz_binfile *f, uint64_t off, uint64_t len, uint8_t *dst, cz_error *err)
{
    bulk_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.off = off;
    c.len = len;
    c.dst = dst;
    read_fail_init(&c.rf);
    cz_parallel_for(cz_pool_default(), (size_t)((len + BULK_GRAIN - 1) / BULK_GRAIN), 1, bulk_range, &c);
    return read_fail_done(&c.rf, err);
}

static const char *const SECTION_NAMES[] = {"", "header", "groth16 header", "IC", "coefficients", "A", "B1",
                                            "B2", "C", "H", "contributions"};

/* Subgroup membership of a loaded table (on the curve already): every point
 * with exact = 1 (the verifying key's IC), else the random combination of
 * io/subgroup.h and, when it fails, every point to name the first bad one. */
static cz_status check_subgroup(const cz_zkey *z, const cz_binfile *f, uint32_t id, int group, const void *pts,
                                uint64_t count, uint64_t off, int exact, cz_error *err)
{
    if (cz_subgroup_trivial(z->curve, group) || count == 0) return CZ_OK;
    cz_status st = exact ? CZ_ERR_NOT_IN_SUBGROUP : cz_subgroup_check(z->curve, group, pts, count, NULL);
    if (st == CZ_OK) return CZ_OK;
    if (st == CZ_ERR_RANDOM)
        return cz_error_set(err, st,
                            "%s: section %u (%s): no secure randomness for the subgroup check of its points: the OS "
                            "CSPRNG (getrandom) refused",
                            f->path, id, SECTION_NAMES[id]);
    if (st != CZ_ERR_NOT_IN_SUBGROUP)
        return cz_error_set(err, st, "%s: section %u (%s): the subgroup check of %" PRIu64 " points failed: %s",
                            f->path, id, SECTION_NAMES[id], count, cz_status_str(st));
    const uint64_t bad = cz_subgroup_first_bad(z->curve, group, pts, count);
    if (bad == UINT64_MAX) {
        if (exact) return CZ_OK;
        return cz_error_set(err, CZ_ERR_INTERNAL,
                            "%s: section %u (%s): the random combination of its points is outside the subgroup but "
                            "no point is",
                            f->path, id, SECTION_NAMES[id]);
    }
    return cz_error_set(err, CZ_ERR_NOT_IN_SUBGROUP,
                        "%s: section %u (%s), offset %" PRIu64 ": point %" PRIu64
                        " is on the curve but not in the prime-order subgroup of %s",
                        f->path, id, SECTION_NAMES[id], off + bad * point_size(z->curve, group), bad,
                        group == 1 ? "G1" : "G2");
}

/* Reads count points of section id into a new aligned table, checking
 * each: coordinates < q, on the curve (unless skip_point_checks), in the
 * subgroup (exact for IC: exact = 1). */
static cz_status load_points(cz_zkey *z, const cz_binfile *f, uint32_t id, int group, uint64_t count, void **out,
                             const cz_zkey_opts *o, int exact, cz_error *err)
{
    const cz_binsection *s;
    cz_status st = cz_binfile_section(f, id, &s, err);
    if (st != CZ_OK) return st;
    size_t psize = point_size(z->curve, group);
    const cz_group *g = point_group(z->curve, group);
    if (!g) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown curve %d", f->path, (int)z->curve);
    if (s->size != count * psize)
        return cz_error_set(err, CZ_ERR_FORMAT,
                            "%s: section %u (%s) holds %" PRIu64 " bytes, expected %" PRIu64 " points x %zu = %" PRIu64,
                            f->path, id, SECTION_NAMES[id], s->size, count, psize, count * psize);
    if (count == 0) {
        *out = NULL;
        return CZ_OK;
    }
    void *dst = cz_alloc(z->alloc, count * psize);
    if (!dst)
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for section %u (%" PRIu64 " bytes)", f->path, id,
                            count * psize);
    z->bytes += count * psize;
    *out = dst; /* freed with the key on failure */
    copy_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.off = s->offset;
    c.dst = dst;
    c.psize = psize;
    c.g = g;
    c.curve_check = exact || !o->skip_point_checks;
    c.bad = UINT64_MAX;
    read_fail_init(&c.rf);
    cz_parallel_for(cz_pool_default(), count, 1024, copy_range, &c);
    if ((st = read_fail_done(&c.rf, err)) != CZ_OK) return st;
    if (c.bad != UINT64_MAX) {
        /* re-check the first bad point to say whether it is a range or curve failure */
        int range_ok = point_ok(g, c.dst + c.bad * psize, 0);
        return cz_error_set(err, range_ok ? CZ_ERR_NOT_ON_CURVE : CZ_ERR_RANGE,
                            "%s: section %u (%s), offset %" PRIu64 ": point %" PRIu64 " %s", f->path, id,
                            SECTION_NAMES[id], s->offset + c.bad * psize, c.bad,
                            range_ok ? "is not on the curve" : "has a coordinate >= the base field prime q");
    }
    if (!exact && o->skip_point_checks) return CZ_OK;
    return check_subgroup(z, f, id, group, dst, count, s->offset, exact, err);
}

/* A verifying-key point of section 2: in range, on the curve, in the
 * subgroup, and not infinity (a key with any of them at infinity is
 * degenerate: every proof fails, or any proof passes). */
static cz_status read_header_point(cz_zkey *z, cz_reader *r, int group, uint64_t *dst, const char *name,
                                   cz_error *err)
{
    size_t psize = point_size(z->curve, group);
    const cz_group *g = point_group(z->curve, group);
    if (!g) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown curve %d", r->f->path, (int)z->curve);
    const uint8_t *p;
    uint64_t off = r->pos;
    cz_status st = cz_rd_bytes(r, &p, psize, name, err);
    if (st != CZ_OK) return st;
    memcpy(dst, p, psize);
    const char *gn = group == 1 ? "G1" : "G2";
    int inf = 1;
    for (size_t i = 0; i < psize; i++)
        inf &= p[i] == 0;
    if (inf)
        return cz_error_set(err, CZ_ERR_FORMAT,
                            "%s: section 2, offset %" PRIu64 ": %s is the point at infinity: a degenerate key "
                            "(expected a point of %s other than infinity)",
                            r->f->path, off, name, gn);
    if (!point_ok(g, dst, 1))
        return cz_error_set(err, g->affine_in_range(dst) ? CZ_ERR_NOT_ON_CURVE : CZ_ERR_RANGE,
                            "%s: section 2, offset %" PRIu64 ": %s is not a valid %s point (%s)", r->f->path, off, name,
                            gn,
                            g->affine_in_range(dst) ? "not on the curve" : "a coordinate >= the base field prime q");
    if (cz_subgroup_first_bad(z->curve, group, dst, 1) != UINT64_MAX)
        return cz_error_set(err, CZ_ERR_NOT_IN_SUBGROUP,
                            "%s: section 2, offset %" PRIu64 ": %s is on the curve but not in the prime-order "
                            "subgroup of %s",
                            r->f->path, off, name, gn);
    return CZ_OK;
}

/* ---- coefficients -> CSR ---- */

cz_status cz_csr_alloc(cz_csr *m, uint32_t nrows, uint32_t ncols, uint64_t nnz, const cz_allocator *a)
{
    memset(m, 0, sizeof *m);
    m->nrows = nrows;
    m->ncols = ncols;
    m->nnz = nnz;
    m->row_ptr = cz_alloc(a, ((size_t)nrows + 1) * sizeof(uint64_t));
    m->col = nnz ? cz_alloc(a, nnz * sizeof(uint32_t)) : NULL;
    m->val = nnz ? cz_alloc(a, nnz * 32) : NULL;
    if (!m->row_ptr || (nnz && (!m->col || !m->val))) return CZ_ERR_NO_MEMORY;
    memset(m->row_ptr, 0, ((size_t)nrows + 1) * sizeof(uint64_t));
    return CZ_OK;
}

void cz_csr_free(cz_csr *m, const cz_allocator *a)
{
    cz_free(a, m->row_ptr, ((size_t)m->nrows + 1) * sizeof(uint64_t));
    cz_free(a, m->col, m->nnz * sizeof(uint32_t));
    cz_free(a, m->val, m->nnz * 32);
    memset(m, 0, sizeof *m);
}

enum { COEF_ENTRY = 12 + 32 };

/* fr: the key's scalar field, 4 limbs */
static int coef_in_range(const cz_field *fr, const uint64_t limbs[4])
{
    return cz_limbs_cmp(limbs, fr->modulus, 4) < 0;
}

/* entries [0, n0) are A's values, the rest B's; each holds the file's
 * 32 bytes (coef * R^2, little-endian) and becomes coef * R (Montgomery) */
typedef struct {
    void *val[2];
    uint64_t n0;
    const cz_field *fr; /* 4 limbs */
    int bad; /* set when a value is >= r */
} coef_ctx;

static void coef_range(void *arg, size_t b, size_t e, int thread)
{
    coef_ctx *c = arg;
    (void)thread;
    for (size_t i = b; i < e; i++) {
        uint64_t *v = i < c->n0 ? (uint64_t *)c->val[0] + 4 * i : (uint64_t *)c->val[1] + 4 * (i - c->n0);
        uint64_t limbs[4];
        for (int k = 0; k < 4; k++) limbs[k] = cz_load_u64((const uint8_t *)(v + k));
        if (!coef_in_range(c->fr, limbs)) {
            __atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
            memset(v, 0, 32);
            continue;
        }
        /* one Montgomery reduction of coef * R^2 gives coef * R */
        cz_mont_redc_c(v, limbs, c->fr->modulus, c->fr->pinv, 4);
    }
}

/*
 * The coefficient section in parallel, placing the entries exactly where the
 * one-pass sequential placement would (file order within each row):
 *
 *  1. per chunk of entries (a contiguous range of the file), in parallel:
 *     validate, count entries per row (relaxed atomics: sums do not depend
 *     on order) and per (matrix, block of rows) for this chunk;
 *  2. the CSR row pointers (prefix sums), and per chunk the offset of its
 *     entries of each (matrix, block) in a temporary list grouped by
 *     (matrix, block), chunks in file order;
 *  3. per chunk, in parallel: its entry indices into that list;
 *  4. per (matrix, block), in parallel: its entries in list order (= file
 *     order) into their rows' next free slots; no other task touches these
 *     rows;
 *  5. per entry, in parallel: range check and Montgomery form in place.
 */
typedef struct {
    const uint8_t *base;
    uint64_t ncoef, chunk; /* entries per chunk (the last may be short) */
    uint32_t domain, nvars;
    unsigned blk_shift;    /* block of a row: row >> blk_shift */
    uint32_t nblk;
    uint64_t *rows[2];     /* pass 1: counts at row + 1; pass 4: next free slot */
    uint32_t *cnt;         /* [chunk][m][blk]; pass 2 turns it into list offsets */
    uint32_t *list;        /* entry indices grouped by (m, blk) */
    uint64_t *blk_start;   /* [m * nblk + blk]: start of the group in list (+ 1 entry at the end) */
    cz_csr *mats[2];
    uint64_t first_bad;    /* smallest invalid entry index (ncoef: none) */
} coef_par;

/* entries [*b, *e) of chunk c */
static void coef_chunk(const coef_par *p, size_t c, uint64_t *b, uint64_t *e)
{
    *b = c * p->chunk;
    *e = *b + p->chunk < p->ncoef ? *b + p->chunk : p->ncoef;
}

static void coef_count_chunk(void *arg, size_t c, size_t c_end, int thread)
{
    coef_par *p = arg;
    (void)thread;
    for (; c < c_end; c++) {
        uint64_t b, e;
        coef_chunk(p, c, &b, &e);
        uint32_t *cnt = p->cnt + (size_t)c * 2 * p->nblk;
        for (uint64_t i = b; i < e; i++) {
            const uint8_t *en = p->base + i * COEF_ENTRY;
            uint32_t m = cz_load_u32(en), row = cz_load_u32(en + 4), sig = cz_load_u32(en + 8);
            if (m > 1 || row >= p->domain || sig >= p->nvars) {
                uint64_t cur = __atomic_load_n(&p->first_bad, __ATOMIC_RELAXED);
                while (i < cur && !__atomic_compare_exchange_n(&p->first_bad, &cur, i, 1, __ATOMIC_RELAXED,
                                                               __ATOMIC_RELAXED)) {
                }
                break; /* the rest of this chunk does not matter */
            }
            __atomic_fetch_add(&p->rows[m][row + 1], 1, __ATOMIC_RELAXED);
            cnt[m * p->nblk + (row >> p->blk_shift)]++;
        }
    }
}

static void coef_list_chunk(void *arg, size_t c, size_t c_end, int thread)
{
    coef_par *p = arg;
    (void)thread;
    for (; c < c_end; c++) {
        uint64_t b, e;
        coef_chunk(p, c, &b, &e);
        uint32_t *off = p->cnt + (size_t)c * 2 * p->nblk;
        for (uint64_t i = b; i < e; i++) {
            const uint8_t *en = p->base + i * COEF_ENTRY;
            uint32_t m = cz_load_u32(en), row = cz_load_u32(en + 4);
            p->list[off[m * p->nblk + (row >> p->blk_shift)]++] = (uint32_t)i;
        }
    }
}

static void coef_place_block(void *arg, size_t g, size_t g_end, int thread)
{
    coef_par *p = arg;
    (void)thread;
    for (; g < g_end; g++) {
        const int m = g >= p->nblk;
        cz_csr *mat = p->mats[m];
        uint64_t *next = p->rows[m];
        for (uint64_t k = p->blk_start[g]; k < p->blk_start[g + 1]; k++) {
            const uint8_t *en = p->base + (uint64_t)p->list[k] * COEF_ENTRY;
            uint32_t row = cz_load_u32(en + 4), sig = cz_load_u32(en + 8);
            uint64_t slot = next[row]++;
            memcpy((uint8_t *)mat->val + 32 * slot, en + 12, 32);
            mat->col[slot] = sig;
        }
    }
}

static cz_status load_coefficients(cz_zkey *z, const cz_binfile *f, cz_error *err)
{
    const cz_binsection *s4;
    uint8_t cb[4];
    uint32_t ncoef;
    cz_status st;
    if ((st = cz_binfile_section(f, 4, &s4, err)) != CZ_OK) return st;
    if (s4->size < 4)
        return cz_error_set(err, CZ_ERR_FORMAT,
                            "%s: section 4, offset %" PRIu64 ": coefficient count needs 4 bytes but the section ends "
                            "after %" PRIu64,
                            f->path, s4->offset, s4->size);
    if ((st = cz_binfile_read(f, s4->offset, cb, 4, err)) != CZ_OK) return st;
    ncoef = cz_load_u32(cb);
    if (s4->size - 4 != (uint64_t)ncoef * COEF_ENTRY)
        return cz_error_set(err, CZ_ERR_FORMAT,
                            "%s: section 4 (coefficients): %" PRIu64
                            " bytes follow the count, expected %u x %d = %" PRIu64,
                            f->path, s4->size - 4, ncoef, COEF_ENTRY, (uint64_t)ncoef * COEF_ENTRY);
    z->n_coef = ncoef;
    const uint64_t base_off = s4->offset + 4;
    cz_pool *pool = cz_pool_default();
    coef_par p;
    memset(&p, 0, sizeof p);
    /* the entries are read once into a temporary (passes 1, 3 and 4 read
     * them, pass 4 in row-block order) */
    uint8_t *raw = malloc((size_t)(ncoef ? (uint64_t)ncoef * COEF_ENTRY : 1));
    if (!raw)
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory reading section 4 (%" PRIu64 " bytes)", f->path,
                            (uint64_t)ncoef * COEF_ENTRY);
    if ((st = read_bulk(f, base_off, (uint64_t)ncoef * COEF_ENTRY, raw, err)) != CZ_OK) {
        free(raw);
        return st;
    }
    p.base = raw;
    p.ncoef = ncoef;
    p.domain = z->domain_size;
    p.nvars = z->n_vars;
    p.first_bad = ncoef;
    p.mats[0] = &z->A;
    p.mats[1] = &z->B;
    /* a few chunks per thread; blocks of rows: about 16 per thread, at least 1024 rows each */
    const uint64_t threads = (uint64_t)cz_pool_threads(pool), nchunks0 = 4 * threads;
    p.chunk = ncoef ? (ncoef + nchunks0 - 1) / nchunks0 : 1;
    if (p.chunk < 4096) p.chunk = 4096;
    const uint64_t nchunks = ncoef ? (ncoef + p.chunk - 1) / p.chunk : 0;
    p.blk_shift = 10;
    while (((uint64_t)p.domain >> p.blk_shift) > 16 * threads) p.blk_shift++;
    p.nblk = (uint32_t)(((uint64_t)p.domain + ((uint64_t)1 << p.blk_shift) - 1) >> p.blk_shift);
    p.rows[0] = calloc((size_t)p.domain + 1, sizeof(uint64_t));
    p.rows[1] = calloc((size_t)p.domain + 1, sizeof(uint64_t));
    p.cnt = calloc((size_t)(nchunks ? nchunks : 1) * 2 * p.nblk, sizeof(uint32_t));
    p.blk_start = calloc((size_t)2 * p.nblk + 1, sizeof(uint64_t));
    p.list = malloc((size_t)(ncoef ? ncoef : 1) * sizeof(uint32_t));
    if (!p.rows[0] || !p.rows[1] || !p.cnt || !p.blk_start || !p.list) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for the coefficient index (%u entries)", f->path,
                          ncoef);
        goto out;
    }
    /* 1: validate and count */
    cz_parallel_for(pool, (size_t)nchunks, 1, coef_count_chunk, &p);
    if (p.first_bad < ncoef) {
        const uint64_t i = p.first_bad;
        const uint8_t *e = p.base + i * COEF_ENTRY;
        uint32_t m = cz_load_u32(e), row = cz_load_u32(e + 4), sig = cz_load_u32(e + 8);
        const char *what = m > 1 ? "matrix id is not 0 (A) or 1 (B)"
                           : row >= z->domain_size ? "constraint index >= domain size"
                                                   : "signal index >= nVars";
        st = cz_error_set(err, CZ_ERR_FORMAT,
                          "%s: section 4, offset %" PRIu64 ": coefficient %" PRIu64
                          ": %s (matrix %u, constraint %u, signal %u; domain %u, nVars %u)",
                          f->path, base_off + i * COEF_ENTRY, i, what, m, row, sig, z->domain_size, z->n_vars);
        goto out;
    }
    /* 2: row pointers; list offsets per (chunk, m, blk): groups by (m, blk), chunks in order */
    uint64_t cnt[2] = {0, 0}, pos = 0;
    for (uint32_t g = 0; g < 2 * p.nblk; g++) {
        p.blk_start[g] = pos;
        for (uint64_t c = 0; c < nchunks; c++) {
            uint32_t *slot = &p.cnt[(size_t)c * 2 * p.nblk + g];
            uint32_t k = *slot;
            *slot = (uint32_t)pos;
            pos += k;
        }
        cnt[g >= p.nblk] = pos - (g >= p.nblk ? cnt[0] : 0);
    }
    p.blk_start[2 * p.nblk] = pos;
    for (int m = 0; m < 2; m++) {
        cz_csr *mat = p.mats[m];
        if (cz_csr_alloc(mat, z->domain_size, z->n_vars, cnt[m], z->matrix_alloc) != CZ_OK) {
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for the %c matrix (%" PRIu64 " entries)",
                              f->path, m ? 'B' : 'A', cnt[m]);
            goto out;
        }
        z->bytes += ((uint64_t)z->domain_size + 1) * 8 + cnt[m] * 36;
        for (uint32_t i = 0; i < z->domain_size; i++) p.rows[m][i + 1] += p.rows[m][i];
        memcpy(mat->row_ptr, p.rows[m], ((size_t)z->domain_size + 1) * sizeof(uint64_t));
    }
    /* 3, 4: group the entries, then place them */
    cz_parallel_for(pool, (size_t)nchunks, 1, coef_list_chunk, &p);
    cz_parallel_for(pool, (size_t)2 * p.nblk, 1, coef_place_block, &p);
    /* 5: range check, Montgomery form in place */
    coef_ctx cc = {{z->A.val, z->B.val}, cnt[0], cz_field_fr(z->curve), 0};
    cz_parallel_for(pool, (size_t)(cnt[0] + cnt[1]), 4096, coef_range, &cc);
    if (cc.bad) {
        /* the first bad one in file order, for the message */
        for (uint64_t i = 0; i < ncoef; i++) {
            uint64_t limbs[4];
            for (int k = 0; k < 4; k++) limbs[k] = cz_load_u64(p.base + i * COEF_ENTRY + 12 + 8 * k);
            if (!coef_in_range(cc.fr, limbs)) {
                st = cz_error_set(err, CZ_ERR_RANGE,
                                  "%s: section 4, offset %" PRIu64 ": coefficient %" PRIu64 " value is >= r", f->path,
                                  base_off + i * COEF_ENTRY + 12, i);
                goto out;
            }
        }
        st = cz_error_set(err, CZ_ERR_INTERNAL, "%s: section 4: a coefficient out of range was not found again",
                          f->path);
        goto out;
    }
out:
    free(raw);
    free(p.rows[0]);
    free(p.rows[1]);
    free(p.cnt);
    free(p.blk_start);
    free(p.list);
    return st;
}

static cz_status zkey_read(cz_zkey *z, const cz_binfile *f, const cz_zkey_opts *o, cz_error *err)
{
    cz_status st;
    cz_reader r;
    uint32_t protocol;
    memset(&r, 0, sizeof r);
    if ((st = cz_reader_init(&r, f, 1, err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &protocol, "protocol", err)) != CZ_OK) goto done;
    if (protocol != 1) {
        st = cz_error_set(err, CZ_ERR_UNSUPPORTED, "%s: section 1: protocol %u, expected 1 (groth16)%s", f->path, protocol,
                          protocol == 2 ? "; this is a PLONK key" : protocol == 10 ? "; this is a FFLONK key" : "");
        goto done;
    }

    const uint8_t *q, *rr;
    uint8_t qb[48];
    cz_reader_free(&r);
    if ((st = cz_reader_init(&r, f, 2, err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &z->n8q, "n8q", err)) != CZ_OK) goto done;
    if (z->n8q != 32 && z->n8q != 48) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: section 2, offset %" PRIu64 ": n8q = %u, expected 32 or 48", f->path,
                          r.pos - 4, z->n8q);
        goto done;
    }
    if ((st = cz_rd_bytes(&r, &q, z->n8q, "q", err)) != CZ_OK) goto done;
    memcpy(qb, q, z->n8q); /* q stays valid only until the next read */
    q = qb;
    if ((st = cz_rd_u32(&r, &z->n8r, "n8r", err)) != CZ_OK) goto done;
    if (z->n8r != 32) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: section 2, offset %" PRIu64 ": n8r = %u, expected 32", f->path,
                          r.pos - 4, z->n8r);
        goto done;
    }
    if ((st = cz_rd_bytes(&r, &rr, z->n8r, "r", err)) != CZ_OK) goto done;
    z->curve = cz_curve_from_q(q, z->n8q);
    if (z->curve == CZ_CURVE_NONE || cz_curve_from_r(rr, z->n8r) != z->curve) {
        st = cz_error_set(err, CZ_ERR_UNSUPPORTED,
                          "%s: section 2: the primes q and r are not those of bn128 or bls12381", f->path);
        z->curve = CZ_CURVE_NONE;
        goto done;
    }
    if ((st = cz_rd_u32(&r, &z->n_vars, "nVars", err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &z->n_public, "nPublic", err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &z->domain_size, "domainSize", err)) != CZ_OK) goto done;
    {
        uint32_t d = z->domain_size, lg = 0;
        while (lg < 32 && ((uint32_t)1 << lg) < d) lg++;
        uint32_t max_lg = cz_curve_info_get(z->curve)->fr_two_adicity;
        if (d == 0 || (d & (d - 1)) != 0 || lg > max_lg) {
            st = cz_error_set(err, CZ_ERR_FORMAT,
                              "%s: section 2: domainSize = %u, expected a power of two up to 2^%u", f->path, d, max_lg);
            goto done;
        }
        z->log_domain = lg;
    }
    if (z->n_vars == 0 || z->n_public >= z->n_vars) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: section 2: nPublic = %u must be below nVars = %u", f->path,
                          z->n_public, z->n_vars);
        goto done;
    }
    if ((st = read_header_point(z, &r, 1, z->alpha1, "alpha_1", err)) != CZ_OK) goto done;
    if ((st = read_header_point(z, &r, 1, z->beta1, "beta_1", err)) != CZ_OK) goto done;
    if ((st = read_header_point(z, &r, 2, z->beta2, "beta_2", err)) != CZ_OK) goto done;
    if ((st = read_header_point(z, &r, 2, z->gamma2, "gamma_2", err)) != CZ_OK) goto done;
    if ((st = read_header_point(z, &r, 1, z->delta1, "delta_1", err)) != CZ_OK) goto done;
    if ((st = read_header_point(z, &r, 2, z->delta2, "delta_2", err)) != CZ_OK) goto done;
    if ((st = cz_rd_expect_end(&r, "the groth16 header", err)) != CZ_OK) goto done;

    if (o->header_only) {
        /* the verifying key needs IC too; report the coefficient count if
         * the section is there */
        const cz_binsection *s4;
        uint8_t cb[4];
        if (cz_binfile_section(f, 4, &s4, NULL) == CZ_OK && s4->size >= 4) {
            if ((st = cz_binfile_read(f, s4->offset, cb, 4, err)) != CZ_OK) goto done;
            z->n_coef = cz_load_u32(cb);
        }
        if ((st = load_points(z, f, 3, 1, (uint64_t)z->n_public + 1, &z->ic, o, 1, err)) != CZ_OK) goto done;
        st = cz_binfile_check_unchanged(f, err);
        goto done;
    }
    /* every section size is checked against the header counts before any
     * allocation, so a small file cannot make the reader allocate for a
     * domain or variable count it does not contain */
    {
        const struct {
            uint32_t id;
            int group;
            uint64_t count;
        } want[] = {{3, 1, (uint64_t)z->n_public + 1}, {5, 1, z->n_vars}, {6, 1, z->n_vars},
                    {7, 2, z->n_vars},  {8, 1, (uint64_t)z->n_vars - z->n_public - 1}, {9, 1, z->domain_size}};
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            const cz_binsection *s;
            if ((st = cz_binfile_section(f, want[i].id, &s, err)) != CZ_OK) goto done;
            size_t psize = point_size(z->curve, want[i].group);
            if (s->size != want[i].count * psize) {
                st = cz_error_set(err, CZ_ERR_FORMAT,
                                  "%s: section %u (%s) holds %" PRIu64 " bytes, expected %" PRIu64 " points x %zu = %" PRIu64,
                                  f->path, want[i].id, SECTION_NAMES[want[i].id], s->size, want[i].count, psize,
                                  want[i].count * psize);
                goto done;
            }
        }
    }
    if ((st = load_points(z, f, 3, 1, (uint64_t)z->n_public + 1, &z->ic, o, 1, err)) != CZ_OK) goto done;
    if ((st = load_coefficients(z, f, err)) != CZ_OK) goto done;
    if ((st = load_points(z, f, 5, 1, z->n_vars, &z->a, o, 0, err)) != CZ_OK) goto done;
    if ((st = load_points(z, f, 6, 1, z->n_vars, &z->b1, o, 0, err)) != CZ_OK) goto done;
    if ((st = load_points(z, f, 7, 2, z->n_vars, &z->b2, o, 0, err)) != CZ_OK) goto done;
    if ((st = load_points(z, f, 8, 1, (uint64_t)z->n_vars - z->n_public - 1, &z->c, o, 0, err)) != CZ_OK) goto done;
    if ((st = load_points(z, f, 9, 1, z->domain_size, &z->h, o, 0, err)) != CZ_OK) goto done;
    st = cz_binfile_check_unchanged(f, err);
done:
    cz_reader_free(&r);
    return st;
}

static const cz_zkey_opts zkey_defaults;

cz_status cz_zkey_load(cz_zkey *z, const char *path, const cz_zkey_opts *opts, cz_error *err)
{
    const cz_zkey_opts *o = opts ? opts : &zkey_defaults;
    memset(z, 0, sizeof *z);
    z->alloc = o->alloc;
    z->matrix_alloc = o->matrix_alloc ? o->matrix_alloc : o->alloc;
    cz_binfile f;
    cz_status st = cz_binfile_open(&f, path, "zkey", 1, 1, err);
    if (st != CZ_OK) return st;
    st = zkey_read(z, &f, o, err);
    cz_binfile_close(&f);
    if (st != CZ_OK) cz_zkey_free(z);
    return st;
}

cz_status cz_zkey_load_mem(cz_zkey *z, const void *data, size_t len, const char *name, const cz_zkey_opts *opts,
                           cz_error *err)
{
    const cz_zkey_opts *o = opts ? opts : &zkey_defaults;
    memset(z, 0, sizeof *z);
    z->alloc = o->alloc;
    z->matrix_alloc = o->matrix_alloc ? o->matrix_alloc : o->alloc;
    cz_binfile f;
    cz_status st = cz_binfile_open_mem(&f, data, len, name, "zkey", 1, 1, err);
    if (st != CZ_OK) return st;
    st = zkey_read(z, &f, o, err);
    cz_binfile_close(&f);
    if (st != CZ_OK) cz_zkey_free(z);
    return st;
}

void cz_zkey_free(cz_zkey *z)
{
    size_t g1 = point_size(z->curve, 1), g2 = point_size(z->curve, 2);
    cz_free(z->alloc, z->ic, ((size_t)z->n_public + 1) * g1);
    cz_free(z->alloc, z->a, (size_t)z->n_vars * g1);
    cz_free(z->alloc, z->b1, (size_t)z->n_vars * g1);
    cz_free(z->alloc, z->b2, (size_t)z->n_vars * g2);
    cz_free(z->alloc, z->c, ((size_t)z->n_vars - z->n_public - 1) * g1);
    cz_free(z->alloc, z->h, (size_t)z->domain_size * g1);
    cz_csr_free(&z->A, z->matrix_alloc);
    cz_csr_free(&z->B, z->matrix_alloc);
    const cz_allocator *a = z->alloc, *ma = z->matrix_alloc;
    memset(z, 0, sizeof *z);
    z->alloc = a;
    z->matrix_alloc = ma;
}

uint64_t cz_zkey_expected_bytes(const cz_zkey *z)
{
    const cz_curve_info *ci = cz_curve_info_get(z->curve);
    if (!ci) return 0;
    const uint64_t g1 = ci->g1_affine_bytes, g2 = ci->g2_affine_bytes;
    const uint64_t nv = z->n_vars, np = z->n_public, d = z->domain_size;
    uint64_t points = (np + 1) * g1 + 2 * nv * g1 + nv * g2 + (nv - np - 1) * g1 + d * g1;
    uint64_t matrices = 2 * (d + 1) * 8 + z->n_coef * 36;
    return points + matrices;
}
