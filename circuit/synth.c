/* circuit/synth: the synthesis interface and its witness-backed sources
 * (contract in circuit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"

struct cz_synth {
    const cz_synth_ops *ops;
    void *ctx;
    char name[256];
};

/* NULL when out of memory (ctx untouched) */
static cz_synth *synth_new(const cz_synth_ops *ops, void *ctx, const char *name)
{
    cz_synth *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ops = ops;
    s->ctx = ctx;
    snprintf(s->name, sizeof s->name, "%s", name && *name ? name : ops->kind ? ops->kind : "a synth");
    return s;
}

cz_status cz_synth_create(cz_synth **out, const cz_synth_ops *ops, void *ctx, const char *name, cz_error *err)
{
    *out = NULL;
    if (!ops || !ops->info || !ops->prepare || !ops->witness) {
        if (ops && ops->destroy) ops->destroy(ctx);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_synth_create: info, prepare and witness are required");
    }
    if (!(*out = synth_new(ops, ctx, name))) {
        if (ops->destroy) ops->destroy(ctx);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    return CZ_OK;
}

void cz_synth_free(cz_synth *s)
{
    if (!s) return;
    if (s->ops->release) s->ops->release(s->ctx);
    if (s->ops->destroy) s->ops->destroy(s->ctx);
    free(s);
}

const char *cz_synth_name(const cz_synth *s) { return s ? s->name : "(none)"; }

cz_status cz_synth_info_get(cz_synth *s, cz_synth_info *out, cz_error *err)
{
    memset(out, 0, sizeof *out);
    return s->ops->info(s->ctx, out, err);
}

cz_status cz_synth_check(cz_synth *s, const cz_zkey *key, const char *key_name, cz_error *err)
{
    cz_synth_info in;
    cz_status st = cz_synth_info_get(s, &in, err);
    if (st != CZ_OK) return st;
    if (in.curve != key->curve)
        return cz_error_set(err, CZ_ERR_MISMATCH, "%s is a %s witness but %s is a %s key", s->name,
                            cz_curve_snarkjs_name(in.curve), key_name, cz_curve_snarkjs_name(key->curve));
    if (in.n_vars != key->n_vars)
        return cz_error_set(err, CZ_ERR_MISMATCH,
                            "%s holds %u values but %s expects %u (nVars): a witness of another circuit?", s->name,
                            in.n_vars, key_name, key->n_vars);
    return CZ_OK;
}

cz_status cz_synth_prepare(cz_synth *s, const cz_allocator *alloc, cz_error *err)
{
    return s->ops->prepare(s->ctx, alloc, err);
}

const cz_wtns *cz_synth_witness(cz_synth *s) { return s->ops->witness(s->ctx); }

cz_status cz_synth_ab(cz_synth *s, const cz_zkey *zk, void *ab, cz_pool *pool, cz_error *err)
{
    const size_t each = (size_t)zk->domain_size * 32;
    uint8_t *p = ab;
    if (s->ops->abc) return s->ops->abc(s->ctx, zk, p, p + each, NULL, pool, err);
    const cz_wtns *w = s->ops->witness(s->ctx);
    if (!w || !w->values) return cz_error_set(err, CZ_ERR_INTERNAL, "%s: a, b asked for before prepare", s->name);
    if (w->curve != zk->curve || w->n != zk->n_vars)
        return cz_error_set(err, CZ_ERR_MISMATCH, "%s does not fit the key (%s, %u values; the key: %s, %u)", s->name,
                            cz_curve_name(w->curve), w->n, cz_curve_name(zk->curve), zk->n_vars);
    if (cz_circuit_abc(zk, w, p, p + each, NULL, pool) != CZ_OK)
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "%s: unknown curve %d", s->name, (int)zk->curve);
    return CZ_OK;
}

void cz_synth_release(cz_synth *s)
{
    if (s && s->ops->release) s->ops->release(s->ctx);
}

/* ---- a witness in memory ---- */

typedef struct {
    cz_wtns own;      /* moved in (cz_synth_take_wtns) */
    const cz_wtns *w; /* what is read */
} mem_ctx;

static cz_status mem_info(void *ctx, cz_synth_info *out, cz_error *err)
{
    (void)err;
    const mem_ctx *m = ctx;
    out->curve = m->w->curve;
    out->n_vars = m->w->n;
    out->witness_bytes = 0; /* in memory already */
    return CZ_OK;
}

static cz_status mem_prepare(void *ctx, const cz_allocator *alloc, cz_error *err)
{
    (void)ctx;
    (void)alloc;
    (void)err;
    return CZ_OK;
}

static const cz_wtns *mem_witness(void *ctx) { return ((const mem_ctx *)ctx)->w; }

static void mem_destroy(void *ctx)
{
    mem_ctx *m = ctx;
    cz_wtns_free(&m->own);
    free(m);
}

static const cz_synth_ops mem_ops = {
    /* .kind     = */ "wtns",
    /* .info     = */ mem_info,
    /* .prepare  = */ mem_prepare,
    /* .witness  = */ mem_witness,
    /* .abc      = */ NULL,
    /* .release  = */ NULL,
    /* .destroy  = */ mem_destroy,
};

static cz_status from_wtns(cz_synth **out, cz_wtns *w, int own, const char *name, cz_error *err)
{
    *out = NULL;
    if (!w || !w->values) return cz_error_set(err, CZ_ERR_INVALID_ARG, "a synth from a witness: no witness");
    mem_ctx *m = calloc(1, sizeof *m);
    cz_synth *s = m ? synth_new(&mem_ops, m, name ? name : "the witness") : NULL;
    if (!s) { /* nothing taken: the caller keeps its witness */
        free(m);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    if (own) {
        m->own = *w;
        memset(w, 0, sizeof *w);
        m->w = &m->own;
    } else {
        m->w = w;
    }
    *out = s;
    return CZ_OK;
}

cz_status cz_synth_borrow_wtns(cz_synth **out, const cz_wtns *w, const char *name, cz_error *err)
{
    return from_wtns(out, (cz_wtns *)w, 0, name, err); /* not written: own = 0 */
}

cz_status cz_synth_take_wtns(cz_synth **out, cz_wtns *w, const char *name, cz_error *err)
{
    return from_wtns(out, w, 1, name, err);
}

/* ---- a .wtns file read at prepare ---- */

typedef struct {
    char *path;
    cz_curve curve;
    uint32_t n;
    cz_wtns w;
    int loaded;
} file_ctx;

static cz_status file_info(void *ctx, cz_synth_info *out, cz_error *err)
{
    (void)err;
    const file_ctx *f = ctx;
    out->curve = f->curve;
    out->n_vars = f->n;
    out->witness_bytes = f->loaded ? 0 : (size_t)f->n * 32;
    return CZ_OK;
}

static cz_status file_prepare(void *ctx, const cz_allocator *alloc, cz_error *err)
{
    file_ctx *f = ctx;
    if (f->loaded) return CZ_OK;
    cz_status st = cz_wtns_load(&f->w, f->path, alloc, err);
    if (st != CZ_OK) return st;
    if (f->w.curve != f->curve || f->w.n != f->n) { /* the file changed since it was checked */
        cz_wtns_free(&f->w);
        return cz_error_set(err, CZ_ERR_MISMATCH, "%s changed after it was submitted (now %s, %u values; then %s, %u)",
                            f->path, cz_curve_name(f->w.curve), f->w.n, cz_curve_name(f->curve), f->n);
    }
    f->loaded = 1;
    return CZ_OK;
}

static const cz_wtns *file_witness(void *ctx)
{
    file_ctx *f = ctx;
    return f->loaded ? &f->w : NULL;
}

static void file_release(void *ctx)
{
    file_ctx *f = ctx;
    if (f->loaded) cz_wtns_free(&f->w);
    f->loaded = 0;
}

static void file_destroy(void *ctx)
{
    file_ctx *f = ctx;
    file_release(f);
    free(f->path);
    free(f);
}

static const cz_synth_ops file_ops = {
    /* .kind     = */ "wtns-file",
    /* .info     = */ file_info,
    /* .prepare  = */ file_prepare,
    /* .witness  = */ file_witness,
    /* .abc      = */ NULL,
    /* .release  = */ file_release,
    /* .destroy  = */ file_destroy,
};

cz_status cz_synth_from_file(cz_synth **out, const char *path, cz_error *err)
{
    *out = NULL;
    if (!path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_synth_from_file: no path");
    file_ctx *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    cz_status st = cz_wtns_probe(path, &f->curve, &f->n, err);
    if (st != CZ_OK) {
        free(f->path);
        free(f);
        return st;
    }
    return cz_synth_create(out, &file_ops, f, path, err);
}
