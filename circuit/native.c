/* circuit/native: the registry, export and engine synthesis of circuits
 * written in C (contract in native.h). */
#include "circuit/native.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/pce.h"
#include "ff/ff.h"
#include "io/json.h"
#include "io/r1cs_write.h"
#include "io/wtns_write.h"
#include "util/timer.h"

extern const cz_native_circuit cz_circuit_sha256, cz_circuit_poseidon_merkle, cz_circuit_porep_like;

static const cz_native_circuit *const registry[] = {
    &cz_circuit_sha256,
    &cz_circuit_poseidon_merkle,
    &cz_circuit_porep_like,
};

const cz_native_circuit *const *cz_native_list(size_t *n)
{
    *n = sizeof registry / sizeof registry[0];
    return registry;
}

const cz_native_circuit *cz_native_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

int cz_native_supports(const cz_native_circuit *c, cz_curve curve)
{
    int i = cz_curve_index(curve);
    return i >= 0 && ((c->curves >> i) & 1);
}

cz_status cz_native_params(const cz_native_circuit *c, const char *const *kv, size_t n, uint64_t *params,
                           cz_error *err)
{
    for (unsigned i = 0; i < c->n_params; i++) params[i] = c->params[i].def;
    for (size_t k = 0; k < n; k++) {
        const char *eq = strchr(kv[k], '=');
        if (!eq) return cz_error_set(err, CZ_ERR_INVALID_ARG, "--param %s: expected NAME=VALUE", kv[k]);
        size_t nl = (size_t)(eq - kv[k]);
        unsigned i = 0;
        while (i < c->n_params && (strlen(c->params[i].name) != nl || strncmp(c->params[i].name, kv[k], nl))) i++;
        if (i == c->n_params)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "--param %s: %s has no parameter %.*s", kv[k], c->name,
                                (int)nl, kv[k]);
        const char *v = eq + 1;
        char *end;
        if (!*v || *v < '0' || *v > '9')
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "--param %s: not a decimal number", kv[k]);
        unsigned long long x = strtoull(v, &end, 10);
        if (*end || x < c->params[i].lo || x > c->params[i].hi)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "--param %s: %s must be a number in [%llu, %llu]", kv[k],
                                c->params[i].name, (unsigned long long)c->params[i].lo,
                                (unsigned long long)c->params[i].hi);
        params[i] = x;
    }
    return CZ_OK;
}

cz_status cz_native_run(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                        cz_cs_mode mode, int eval, const cz_cs_hint *hint, const cz_allocator *alloc, cz_cs **out,
                        cz_error *err)
{
    *out = NULL;
    if (!cz_native_supports(c, curve))
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "circuit %s is not defined on %s", c->name, cz_curve_name(curve));
    cz_cs_opts o = {curve, mode, eval, hint, alloc, 0};
    cz_cs *cs;
    cz_status st = cz_cs_new(&cs, &o, err);
    if (st != CZ_OK) return st;
    c->synthesize(cs, params, input);
    if ((st = cz_cs_finish(cs, err)) != CZ_OK) {
        cz_cs_free(cs);
        return st;
    }
    *out = cs;
    return CZ_OK;
}

/* The name of constraint row (a check-mode run), into err. */
static cz_status name_failure(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                              uint64_t row, cz_error *err)
{
    cz_cs *chk;
    cz_error e2 = {0};
    if (cz_native_run(c, params, input, curve, CZ_CS_CHECK, 0, NULL, NULL, &chk, &e2) == CZ_OK) {
        uint64_t bad;
        cz_status st = cz_cs_check_result(chk, &bad, &e2);
        cz_cs_free(chk);
        if (st == CZ_ERR_UNSATISFIED) return cz_error_set(err, st, "%s: %s", c->name, e2.msg);
    }
    return cz_error_set(err, CZ_ERR_UNSATISFIED, "%s: constraint %llu is not satisfied", c->name,
                        (unsigned long long)row);
}

/* ---- export ---- */

typedef struct {
    uint32_t col;
    cz_fe v;
} ent;

static int ent_cmp(const void *a, const void *b)
{
    uint32_t x = ((const ent *)a)->col, y = ((const ent *)b)->col;
    return x < y ? -1 : x > y;
}

/* Row i of m with the terms merged by wire (zero sums dropped) into the
 * scratch arrays. */
static uint32_t merged_row(const cz_cs *cs, const cz_csr *m, uint32_t i, ent *e, uint32_t *wire, cz_fe *coef)
{
    uint64_t b = m->row_ptr[i], n = m->row_ptr[i + 1] - b;
    const cz_fe *val = m->val;
    for (uint64_t k = 0; k < n; k++) {
        e[k].col = m->col[b + k];
        e[k].v = val[b + k];
    }
    qsort(e, n, sizeof *e, ent_cmp);
    uint32_t out = 0;
    for (uint64_t k = 0; k < n;) {
        cz_fe s = e[k].v;
        uint64_t j = k + 1;
        while (j < n && e[j].col == e[k].col) cz_fe_add(cs, &s, &s, &e[j++].v);
        if (!cz_fe_is_zero(&s)) {
            wire[out] = e[k].col;
            coef[out++] = s;
        }
        k = j;
    }
    return out;
}

cz_status cz_native_export(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                           const char *r1cs_path, const char *wtns_path, int allow_unsatisfied,
                           cz_native_export_stats *stats, cz_error *err)
{
    double t0 = cz_now();
    cz_cs *cs;
    cz_status st = cz_native_run(c, params, input, curve, CZ_CS_RECORD, 1, NULL, NULL, &cs, err);
    if (st != CZ_OK) return st;
    cz_cs_hint h;
    cz_cs_counts(cs, &h);
    const cz_fe *ev[3] = {cz_cs_evals(cs, 0), cz_cs_evals(cs, 1), cz_cs_evals(cs, 2)};
    for (uint64_t i = 0; i < h.n_constraints && !allow_unsatisfied; i++) {
        cz_fe ab;
        cz_fe_mul(cs, &ab, &ev[0][i], &ev[1][i]);
        if (!cz_fe_eq(&ab, &ev[2][i])) {
            cz_cs_free(cs);
            return name_failure(c, params, input, curve, i, err);
        }
    }
    cz_csr M[3];
    if ((st = cz_cs_take_matrices(cs, &M[0], &M[1], &M[2], err)) != CZ_OK) {
        cz_cs_free(cs);
        return st;
    }
    uint64_t maxrow = 0;
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < M[k].nrows; i++)
            if (M[k].row_ptr[i + 1] - M[k].row_ptr[i] > maxrow) maxrow = M[k].row_ptr[i + 1] - M[k].row_ptr[i];
    ent *e = malloc((maxrow + 1) * sizeof *e);
    uint32_t *wire = malloc(3 * (maxrow + 1) * sizeof *wire);
    cz_fe *coef = malloc(3 * (maxrow + 1) * sizeof *coef);
    cz_r1cs_writer w;
    int open = 0;
    if (!e || !wire || !coef) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    cz_r1cs_header hd = {curve, h.n_inputs + h.n_aux, 0, h.n_inputs - 1, 0, 0};
    if ((st = cz_r1cs_writer_open(&w, r1cs_path, &hd, err)) != CZ_OK) goto out;
    open = 1;
    for (uint32_t i = 0; i < (uint32_t)h.n_constraints && st == CZ_OK; i++) {
        cz_r1cs_lc lc[3];
        for (int k = 0; k < 3; k++) {
            uint32_t n = merged_row(cs, &M[k], i, e, wire + k * (maxrow + 1), coef + k * (maxrow + 1));
            lc[k] = (cz_r1cs_lc){n, wire + k * (maxrow + 1), coef + k * (maxrow + 1)};
        }
        st = cz_r1cs_writer_add(&w, &lc[0], &lc[1], &lc[2], 1, err);
    }
    if (st == CZ_OK) st = cz_r1cs_writer_finish(&w, NULL, err);
    if (st != CZ_OK) goto out;
    open = 0;
    uint32_t n;
    const cz_fe *wit = cz_cs_witness(cs, &n);
    if ((st = cz_wtns_write(wtns_path, curve, wit, n, 1, NULL, err)) != CZ_OK) {
        remove(r1cs_path);
        goto out;
    }
    if (stats) {
        stats->n_constraints = h.n_constraints;
        stats->n_inputs = h.n_inputs;
        stats->n_aux = h.n_aux;
        stats->seconds = cz_now() - t0;
    }
out:
    if (open) cz_r1cs_writer_abort(&w);
    free(e);
    free(wire);
    free(coef);
    for (int k = 0; k < 3; k++) cz_csr_free(&M[k], NULL);
    cz_cs_free(cs);
    return st;
}

cz_status cz_native_public(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                           cz_fe **vals, uint32_t *n, cz_error *err)
{
    cz_cs *cs;
    *vals = NULL;
    *n = 0;
    cz_status st = cz_native_run(c, params, input, curve, CZ_CS_WITNESS, 0, NULL, NULL, &cs, err);
    if (st != CZ_OK) return st;
    cz_cs_hint h;
    cz_cs_counts(cs, &h);
    uint32_t nw;
    const cz_fe *w = cz_cs_witness(cs, &nw);
    *n = h.n_inputs - 1;
    *vals = malloc(((size_t)*n + 1) * sizeof(cz_fe));
    if (!*vals) st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    else memcpy(*vals, w + 1, (size_t)*n * sizeof(cz_fe));
    cz_cs_free(cs);
    return st;
}

/* ---- the PCE cache ---- */

typedef struct pce_entry {
    struct pce_entry *next;
    cz_pce pce;
    uint8_t key[32]; /* the shape's structure key */
    cz_curve curve;
    int refs;
    int busy;   /* being read or recorded by one thread, outside cache_mu: pce not valid yet */
    int failed; /* that failed: off the list, freed by its last holder */
} pce_entry;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cache_cv = PTHREAD_COND_INITIALIZER; /* an entry stopped being busy */
static pce_entry *cache; /* most recently used first */
static cz_native_pce_stats cache_stats;
static uint64_t cache_cap = CZ_NATIVE_PCE_CAP_DEFAULT;

/* Frees idle recordings (no synth holds them) beyond the cap, oldest
 * first; the most recently used idle one always stays (the next partition
 * of a stream of one shape finds it). Under cache_mu. */
static void trim_locked(void)
{
    uint64_t idle = 0;
    int kept = 0;
    for (pce_entry **pp = &cache; *pp;) {
        pce_entry *e = *pp;
        if (e->refs == 0) {
            const uint64_t b = cz_pce_file_bytes(&e->pce);
            if (kept && idle + b > cache_cap) {
                *pp = e->next;
                cz_pce_free(&e->pce);
                free(e);
                cache_stats.evictions++;
                continue;
            }
            idle += b;
            kept = 1;
        }
        pp = &e->next;
    }
}

void cz_native_pce_set_cap(uint64_t bytes)
{
    pthread_mutex_lock(&cache_mu);
    cache_cap = bytes;
    trim_locked();
    pthread_mutex_unlock(&cache_mu);
}

void cz_native_pce_stats_get(cz_native_pce_stats *out)
{
    pthread_mutex_lock(&cache_mu);
    *out = cache_stats;
    pthread_mutex_unlock(&cache_mu);
}

void cz_native_pce_flush(void)
{
    pthread_mutex_lock(&cache_mu);
    for (pce_entry **pp = &cache; *pp;) {
        pce_entry *e = *pp;
        if (e->refs == 0) {
            *pp = e->next;
            cz_pce_free(&e->pce);
            free(e);
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&cache_mu);
}

static void hexkey(char *out, const uint8_t key[32])
{
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", key[i]);
}

/* The recording of c's shape, held (refs + 1) until pce_put. It is read
 * or recorded outside cache_mu: a partition of another shape (or a hit)
 * does not wait for a recording; two partitions of one new shape record it
 * once (the second waits for the first). */
static cz_status pce_get(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                         const char *dir, pce_entry **out, cz_error *err)
{
    char shape[512];
    c->shape(params, input, shape, sizeof shape);
    uint8_t key[32];
    cz_pce_key(key, c->name, shape, c->structure_version, curve);
    pthread_mutex_lock(&cache_mu);
    for (;;) {
        pce_entry *e = NULL;
        for (pce_entry **pp = &cache; *pp; pp = &(*pp)->next)
            if (!memcmp((*pp)->key, key, 32) && (*pp)->curve == curve) {
                e = *pp;
                *pp = e->next; /* to the front: most recently used */
                e->next = cache;
                cache = e;
                break;
            }
        if (!e) break;
        e->refs++;
        while (e->busy) pthread_cond_wait(&cache_cv, &cache_mu); /* another thread reads or records it */
        if (!e->failed) {
            cache_stats.hits++;
            *out = e;
            pthread_mutex_unlock(&cache_mu);
            return CZ_OK;
        }
        if (--e->refs == 0) free(e); /* (off the list already) */
        /* that attempt failed: this one tries again, and reports its own error */
    }
    /* Not there: a busy entry holds the place while this thread reads or
     * records the shape without the lock (other shapes, and cache hits, go
     * on meanwhile; the same shape waits for this one). */
    pce_entry *e = calloc(1, sizeof *e);
    if (!e) {
        pthread_mutex_unlock(&cache_mu);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    memcpy(e->key, key, 32);
    e->curve = curve;
    e->refs = 1;
    e->busy = 1;
    e->next = cache;
    cache = e;
    pthread_mutex_unlock(&cache_mu);

    cz_status st = CZ_OK;
    int loaded = 0, rebuilt = 0, recorded = 0;
    char path[4096] = "";
    if (dir) {
        char hx[65];
        hexkey(hx, key);
        snprintf(path, sizeof path, "%s/%s-%s.pce", dir, c->name, hx);
        cz_error le = {0};
        cz_status ls = cz_pce_load(&e->pce, path, key, &le);
        if (ls == CZ_OK) loaded = 1;
        else if (ls == CZ_ERR_FORMAT || ls == CZ_ERR_MISMATCH) rebuilt = 1;
    }
    if (!loaded) {
        cz_cs *cs;
        st = cz_native_run(c, params, input, curve, CZ_CS_RECORD, 0, NULL, NULL, &cs, err);
        if (st == CZ_OK) {
            st = cz_pce_from_cs(&e->pce, cs, key, err);
            cz_cs_free(cs);
        }
        if (st == CZ_OK) {
            recorded = 1;
            if (dir) {
                cz_error se = {0};
                (void)cz_pce_save(&e->pce, path, &se); /* a cache: a failed write costs a later record */
            }
        }
    }

    pthread_mutex_lock(&cache_mu);
    e->busy = 0;
    cache_stats.file_loads += (uint64_t)loaded;
    cache_stats.rebuilt += (uint64_t)rebuilt;
    cache_stats.records += (uint64_t)recorded;
    if (st == CZ_OK) {
        *out = e;
    } else {
        for (pce_entry **pp = &cache; *pp; pp = &(*pp)->next)
            if (*pp == e) {
                *pp = e->next;
                break;
            }
        e->failed = 1;
        if (--e->refs == 0) free(e);
    }
    pthread_cond_broadcast(&cache_cv);
    pthread_mutex_unlock(&cache_mu);
    return st;
}

static void pce_put(pce_entry *e)
{
    pthread_mutex_lock(&cache_mu);
    if (--e->refs == 0) trim_locked();
    pthread_mutex_unlock(&cache_mu);
}

/* ---- the synth ---- */

typedef struct {
    const cz_native_circuit *c;
    uint64_t params[CZ_NATIVE_MAX_PARAMS];
    void *input;
    cz_curve curve;
    pce_entry *pe;
    cz_wtns w;
    const cz_allocator *alloc;
    size_t w_bytes;
    int ready;
} nat_ctx;

static cz_status nat_info(void *ctx, cz_synth_info *out, cz_error *err)
{
    (void)err;
    nat_ctx *x = ctx;
    out->curve = x->curve;
    out->n_vars = x->pe->pce.n_inputs + x->pe->pce.n_aux;
    out->witness_bytes = x->ready ? 0 : (size_t)out->n_vars * 32;
    return CZ_OK;
}

static cz_status nat_prepare(void *ctx, const cz_allocator *alloc, cz_error *err)
{
    nat_ctx *x = ctx;
    if (x->ready) return CZ_OK;
    const cz_pce *p = &x->pe->pce;
    cz_cs_hint h = {p->n_inputs, p->n_aux, p->n_constraints, {0, 0, 0}};
    cz_cs *cs;
    cz_status st = cz_native_run(x->c, x->params, x->input, x->curve, CZ_CS_WITNESS, 0, &h, alloc, &cs, err);
    if (st != CZ_OK) return st;
    cz_cs_hint got;
    cz_cs_counts(cs, &got);
    if (got.n_inputs != p->n_inputs || got.n_aux != p->n_aux || got.n_constraints != p->n_constraints) {
        cz_cs_free(cs);
        return cz_error_set(err, CZ_ERR_MISMATCH,
                            "%s: the synthesis (%u inputs, %u private, %llu constraints) differs from its recording "
                            "(%u, %u, %u): the circuit's shape depends on more than its parameters",
                            x->c->name, got.n_inputs, got.n_aux, (unsigned long long)got.n_constraints, p->n_inputs,
                            p->n_aux, p->n_constraints);
    }
    uint32_t n;
    size_t bytes;
    cz_fe *w = cz_cs_take_witness(cs, &n, &bytes);
    x->w.curve = x->curve;
    x->w.n = n;
    x->w.values = w;
    x->w.alloc = alloc;
    x->alloc = alloc;
    x->w_bytes = bytes;
    cz_cs_free(cs);
    x->ready = 1;
    return CZ_OK;
}

static const cz_wtns *nat_witness(void *ctx)
{
    nat_ctx *x = ctx;
    return x->ready ? &x->w : NULL;
}

static cz_status nat_abc(void *ctx, const cz_zkey *zk, void *a, void *b, void *c, cz_pool *pool, cz_error *err)
{
    nat_ctx *x = ctx;
    const cz_pce *p = &x->pe->pce;
    if (!x->ready) return cz_error_set(err, CZ_ERR_INTERNAL, "%s: a, b asked for before prepare", x->c->name);
    uint32_t npub = p->n_inputs - 1;
    if (zk->curve != x->curve || zk->n_vars != x->w.n || zk->n_public != npub ||
        (uint64_t)p->n_constraints + npub + 1 > zk->domain_size)
        return cz_error_set(err, CZ_ERR_MISMATCH,
                            "%s (%u wires, %u public, %u constraints) does not fit the key (%u wires, %u public, "
                            "domain %u)",
                            x->c->name, x->w.n, npub, p->n_constraints, zk->n_vars, zk->n_public, zk->domain_size);
    cz_fe *fa = a, *fb = b, *fc = c;
    uint64_t bad;
    cz_status st = cz_pce_abc(p, x->w.values, x->w.n, fa, fb, fc, &bad, pool, err);
    if (st != CZ_OK) return st;
    if (bad != UINT64_MAX) return name_failure(x->c, x->params, x->input, x->curve, bad, err);
    /* snarkjs's input rows: A[nc + i] = w_i, B = 0 */
    const cz_fe *w = x->w.values;
    uint32_t nc = p->n_constraints;
    for (uint32_t i = 0; i <= npub; i++) {
        fa[nc + i] = w[i];
        memset(&fb[nc + i], 0, 32);
        if (fc) memset(&fc[nc + i], 0, 32);
    }
    size_t rest = (size_t)zk->domain_size - nc - npub - 1;
    memset(&fa[nc + npub + 1], 0, rest * 32);
    memset(&fb[nc + npub + 1], 0, rest * 32);
    if (fc) memset(&fc[nc + npub + 1], 0, rest * 32);
    return CZ_OK;
}

static void nat_release(void *ctx)
{
    nat_ctx *x = ctx;
    if (x->ready) cz_free(x->alloc, x->w.values, x->w_bytes);
    memset(&x->w, 0, sizeof x->w);
    x->ready = 0;
}

static void nat_destroy(void *ctx)
{
    nat_ctx *x = ctx;
    nat_release(x);
    if (x->pe) pce_put(x->pe);
    if (x->input) x->c->free_input(x->input);
    free(x);
}

static const cz_synth_ops nat_ops = {
    /* .kind     = */ "native",
    /* .info     = */ nat_info,
    /* .prepare  = */ nat_prepare,
    /* .witness  = */ nat_witness,
    /* .abc      = */ nat_abc,
    /* .release  = */ nat_release,
    /* .destroy  = */ nat_destroy,
};

cz_status cz_native_synth(cz_synth **out, const cz_native_circuit *c, const uint64_t *params, void *input,
                          cz_curve curve, const char *pce_dir, const char *name, cz_error *err)
{
    *out = NULL;
    nat_ctx *x = calloc(1, sizeof *x);
    if (!x) {
        c->free_input(input);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    x->c = c;
    memcpy(x->params, params, c->n_params * sizeof *params);
    x->input = input;
    x->curve = curve;
    if (!cz_native_supports(c, curve)) {
        nat_destroy(x);
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "circuit %s is not defined on %s", c->name, cz_curve_name(curve));
    }
    cz_status st = pce_get(c, x->params, input, curve, pce_dir, &x->pe, err);
    if (st != CZ_OK) {
        nat_destroy(x);
        return st;
    }
    return cz_synth_create(out, &nat_ops, x, name ? name : c->name, err);
}

cz_status cz_native_synth_file(cz_synth **out, const char *path, cz_curve curve, const char *pce_dir, cz_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    int first = f ? fgetc(f) : EOF;
    if (f) fclose(f);
    if (first != '{') return cz_synth_from_file(out, path, err);
    cz_json_doc *doc;
    cz_json *root;
    cz_status st = cz_json_parse_file_max(&doc, &root, path, (size_t)64 << 20, "a circuit partition", err);
    if (st != CZ_OK) return st;
    const cz_json *cn = cz_json_get(root, "circuit"), *ps = cz_json_get(root, "params"), *in = cz_json_get(root, "input");
    const cz_native_circuit *c = cn && cn->type == CZ_JSON_STRING ? cz_native_find(cn->str) : NULL;
    char kvbuf[CZ_NATIVE_MAX_PARAMS][96];
    const char *kv[CZ_NATIVE_MAX_PARAMS];
    size_t nkv = 0;
    uint64_t params[CZ_NATIVE_MAX_PARAMS];
    for (size_t i = 0; i < root->nchild && st == CZ_OK; i++) {
        const char *k = root->child[i]->key;
        if (strcmp(k, "circuit") && strcmp(k, "params") && strcmp(k, "input"))
            st = cz_error_set(err, CZ_ERR_FORMAT, "%s: unknown field \"%s\" (expected circuit, params, input)", path, k);
    }
    if (st == CZ_OK && !c)
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: \"circuit\" must name a built-in circuit (cuzk circuit list)", path);
    if (st == CZ_OK && ps && (ps->type != CZ_JSON_OBJECT || ps->nchild > CZ_NATIVE_MAX_PARAMS))
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: \"params\" must be an object of at most %d parameters", path,
                          CZ_NATIVE_MAX_PARAMS);
    for (size_t i = 0; st == CZ_OK && ps && i < ps->nchild; i++) {
        const cz_json *v = ps->child[i];
        if (v->type != CZ_JSON_NUMBER && v->type != CZ_JSON_STRING)
            st = cz_error_set(err, CZ_ERR_FORMAT, "%s: params.%s must be a decimal integer", path, v->key);
        else {
            snprintf(kvbuf[nkv], sizeof kvbuf[nkv], "%.40s=%.40s", v->key, v->str);
            kv[nkv] = kvbuf[nkv];
            nkv++;
        }
    }
    if (st == CZ_OK) st = cz_native_params(c, kv, nkv, params, err);
    if (st == CZ_OK && !in) st = cz_error_set(err, CZ_ERR_FORMAT, "%s: \"input\" is missing", path);
    void *x = NULL;
    if (st == CZ_OK) st = c->parse(in, params, path, &x, err);
    cz_json_free(doc);
    if (st != CZ_OK) return st;
    return cz_native_synth(out, c, params, x, curve, pce_dir, NULL, err);
}
