#define _GNU_SOURCE /* sync_file_range */
#include "io/zkey_write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ec/ec.h"
#include "ff/ff.h"
#include "io/binfile.h"

static void store_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void store_u64(uint8_t *p, uint64_t v)
{
    store_u32(p, (uint32_t)v);
    store_u32(p + 4, (uint32_t)(v >> 32));
}

static void store_limbs(uint8_t *p, const uint64_t *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store_u64(p + 8 * i, l[i]);
}

/* bytes of a G1 / G2 affine point of curve c (0 for no curve) */
static size_t affine_size(cz_curve c, int group)
{
    const cz_curve_info *ci = cz_curve_info_get(c);
    if (!ci) return 0;
    return group == 1 ? ci->g1_affine_bytes : ci->g2_affine_bytes;
}

static size_t name_len(const char *name)
{
    if (!name) return 0;
    size_t n = strlen(name);
    return n > CZ_ZKEY_NAME_MAX ? CZ_ZKEY_NAME_MAX : n;
}

uint64_t cz_zkey_mpc_bytes(cz_curve c, const cz_zkey_contribution *contribs, size_t n)
{
    uint64_t g1 = affine_size(c, 1), g2 = affine_size(c, 2);
    uint64_t s = 64 + 4;
    for (size_t i = 0; i < n; i++) {
        size_t nl = name_len(contribs[i].name);
        s += 3 * g1 + g2 + 64 + 4 + 4 + (nl ? 2 + nl : 0);
    }
    return s;
}

cz_status cz_zkey_layout_sizes(const cz_zkey_layout *l, uint64_t sizes[11])
{
    uint64_t g1 = affine_size(l->curve, 1), g2 = affine_size(l->curve, 2);
    if (!g1 || l->n_vars == 0 || l->n_public >= l->n_vars || l->domain_size == 0 ||
        (l->domain_size & (l->domain_size - 1)) != 0 || l->n_coef >= ((uint64_t)1 << 32) || l->mpc_bytes < 68)
        return CZ_ERR_INVALID_ARG;
    uint64_t n8q = g1 / 2; /* G1 affine = 2 coordinates of n8q bytes */
    memset(sizes, 0, 11 * sizeof sizes[0]);
    sizes[1] = 4;
    sizes[2] = 4 + n8q + 4 + 32 + 12 + 3 * g1 + 3 * g2;
    sizes[3] = ((uint64_t)l->n_public + 1) * g1;
    sizes[4] = 4 + l->n_coef * CZ_ZKEY_COEF_BYTES;
    sizes[5] = (uint64_t)l->n_vars * g1;
    sizes[6] = (uint64_t)l->n_vars * g1;
    sizes[7] = (uint64_t)l->n_vars * g2;
    sizes[8] = ((uint64_t)l->n_vars - l->n_public - 1) * g1;
    sizes[9] = (uint64_t)l->domain_size * g1;
    sizes[10] = l->mpc_bytes;
    return CZ_OK;
}

uint64_t cz_zkey_file_size(const cz_zkey_layout *l)
{
    uint64_t s[11];
    if (cz_zkey_layout_sizes(l, s) != CZ_OK) return 0;
    uint64_t t = 12;
    for (int i = 1; i <= 10; i++)
        t += 12 + s[i];
    return t;
}

/* ---- the writer ---- */

static cz_status io_fail(cz_zkey_writer *w, cz_error *err)
{
    int e = errno ? errno : EIO;
    return cz_error_set(err, cz_io_status(e), "%s: write failed at offset %" PRIu64 ": %s", w->af.path, w->written,
                        strerror(e));
}

static cz_status raw_put(cz_zkey_writer *w, const void *p, size_t n, cz_error *err)
{
    if (n && fwrite(p, 1, n, w->af.fp) != n) return io_fail(w, err);
    w->written += n;
#ifdef SYNC_FILE_RANGE_WRITE
    if (w->written - w->synced >= CZ_ZKEY_WRITEBACK) {
        /* start write-back of what is complete; errors surface at fsync */
        if (fflush(w->af.fp) != 0) return io_fail(w, err);
        (void)sync_file_range(fileno(w->af.fp), (off64_t)w->synced, (off64_t)(w->written - w->synced),
                              SYNC_FILE_RANGE_WRITE);
        w->synced = w->written;
    }
#endif
    return CZ_OK;
}

cz_status cz_zkey_writer_open(cz_zkey_writer *w, const char *path, const cz_zkey_layout *l, cz_error *err)
{
    memset(w, 0, sizeof *w);
    if (!cz_curve_info_get(l->curve))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown curve %d", path, (int)l->curve);
    if (cz_zkey_layout_sizes(l, w->sizes) != CZ_OK)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "%s: invalid key layout (nVars %u, nPublic %u, domain %u, %" PRIu64 " coefficients)", path,
                            l->n_vars, l->n_public, l->domain_size, l->n_coef);
    w->layout = *l;
    cz_status st = cz_atomic_file_open(&w->af, path, err);
    if (st != CZ_OK) return st;
    setvbuf(w->af.fp, NULL, _IOFBF, (size_t)1 << 20);
    uint64_t total = cz_zkey_file_size(l);
    int e = posix_fallocate(fileno(w->af.fp), 0, (off_t)total);
    if (e == ENOSPC || e == EFBIG) {
        cz_zkey_writer_abort(w);
        return cz_error_set(err, CZ_ERR_IO, "%s: no room for the %" PRIu64 "-byte key: %s", path, total, strerror(e));
    }
    uint8_t h[12];
    memcpy(h, "zkey", 4);
    store_u32(h + 4, 1);
    store_u32(h + 8, 10);
    if ((st = raw_put(w, h, sizeof h, err)) != CZ_OK) cz_zkey_writer_abort(w);
    return st;
}

cz_status cz_zkey_writer_begin(cz_zkey_writer *w, uint32_t id, cz_error *err)
{
    if (!w->af.fp || w->section || id != w->last + 1 || id > 10)
        return cz_error_set(err, CZ_ERR_INTERNAL, "%s: zkey section %u started out of order (last %u, open %u)",
                            w->af.path, id, w->last, w->section);
    uint8_t h[12];
    store_u32(h, id);
    store_u64(h + 4, w->sizes[id]);
    cz_status st = raw_put(w, h, sizeof h, err);
    if (st != CZ_OK) return st;
    w->section = id;
    w->left = w->sizes[id];
    return CZ_OK;
}

cz_status cz_zkey_writer_put(cz_zkey_writer *w, const void *p, size_t n, cz_error *err)
{
    if (!w->section || n > w->left)
        return cz_error_set(err, CZ_ERR_INTERNAL,
                            "%s: %zu bytes put past the end of zkey section %u (%" PRIu64 " left)", w->af.path, n,
                            w->section, w->left);
    w->left -= n;
    return raw_put(w, p, n, err);
}

cz_status cz_zkey_writer_put_u32(cz_zkey_writer *w, uint32_t v, cz_error *err)
{
    uint8_t b[4];
    store_u32(b, v);
    return cz_zkey_writer_put(w, b, 4, err);
}

cz_status cz_zkey_writer_end(cz_zkey_writer *w, cz_error *err)
{
    if (!w->section || w->left)
        return cz_error_set(err, CZ_ERR_INTERNAL, "%s: zkey section %u ended with %" PRIu64 " bytes missing",
                            w->af.path, w->section, w->left);
    w->last = w->section;
    w->section = 0;
    return CZ_OK;
}

cz_status cz_zkey_writer_commit(cz_zkey_writer *w, cz_error *err)
{
    if (w->last != 10 || w->section) {
        cz_status st =
            cz_error_set(err, CZ_ERR_INTERNAL, "%s: zkey committed after section %u of 10", w->af.path, w->last);
        cz_zkey_writer_abort(w);
        return st;
    }
    return cz_atomic_file_commit(&w->af, err);
}

void cz_zkey_writer_abort(cz_zkey_writer *w)
{
    cz_atomic_file_abort(&w->af);
}

/* ---- sections ---- */

cz_status cz_zkey_write_header(cz_zkey_writer *w, const void *alpha1, const void *beta1, const void *beta2,
                               const void *gamma2, const void *delta1, const void *delta2, cz_error *err)
{
    cz_curve c = w->layout.curve;
    size_t g1 = affine_size(c, 1), g2 = affine_size(c, 2);
    const cz_field *fq = cz_field_fq(c), *fr = cz_field_fr(c);
    if (!fq) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown curve %d", w->af.path, (int)c);
    cz_status st;
    if ((st = cz_zkey_writer_begin(w, 1, err)) != CZ_OK) return st;
    if ((st = cz_zkey_writer_put_u32(w, 1, err)) != CZ_OK) return st; /* groth16 */
    if ((st = cz_zkey_writer_end(w, err)) != CZ_OK) return st;

    uint8_t b[4 + 48 + 4 + 32 + 12];
    size_t n8q = g1 / 2, o = 0;
    store_u32(b, (uint32_t)n8q);
    o = 4;
    store_limbs(b + o, fq->modulus, (size_t)fq->limbs);
    o += n8q;
    store_u32(b + o, 32);
    o += 4;
    store_limbs(b + o, fr->modulus, 4);
    o += 32;
    store_u32(b + o, w->layout.n_vars);
    store_u32(b + o + 4, w->layout.n_public);
    store_u32(b + o + 8, w->layout.domain_size);
    o += 12;
    if ((st = cz_zkey_writer_begin(w, 2, err)) != CZ_OK) return st;
    if ((st = cz_zkey_writer_put(w, b, o, err)) != CZ_OK) return st;
    const void *pts[6] = {alpha1, beta1, beta2, gamma2, delta1, delta2};
    const size_t sz[6] = {g1, g1, g2, g2, g1, g2};
    for (int i = 0; i < 6; i++)
        if ((st = cz_zkey_writer_put(w, pts[i], sz[i], err)) != CZ_OK) return st;
    return cz_zkey_writer_end(w, err);
}

cz_status cz_zkey_write_mpc(cz_zkey_writer *w, const uint8_t cs_hash[64], const cz_zkey_contribution *contribs,
                            size_t n, cz_error *err)
{
    cz_curve c = w->layout.curve;
    size_t g1 = affine_size(c, 1), g2 = affine_size(c, 2);
    static const uint8_t zero64[64];
    cz_status st;
    if ((st = cz_zkey_writer_begin(w, 10, err)) != CZ_OK) return st;
    if ((st = cz_zkey_writer_put(w, cs_hash ? cs_hash : zero64, 64, err)) != CZ_OK) return st;
    if ((st = cz_zkey_writer_put_u32(w, (uint32_t)n, err)) != CZ_OK) return st;
    for (size_t i = 0; i < n; i++) {
        const cz_zkey_contribution *k = &contribs[i];
        if ((st = cz_zkey_writer_put(w, k->delta_after, g1, err)) != CZ_OK) return st;
        if ((st = cz_zkey_writer_put(w, k->g1_s, g1, err)) != CZ_OK) return st;
        if ((st = cz_zkey_writer_put(w, k->g1_sx, g1, err)) != CZ_OK) return st;
        if ((st = cz_zkey_writer_put(w, k->g2_spx, g2, err)) != CZ_OK) return st;
        if ((st = cz_zkey_writer_put(w, k->transcript, 64, err)) != CZ_OK) return st;
        if ((st = cz_zkey_writer_put_u32(w, k->type, err)) != CZ_OK) return st;
        size_t nl = name_len(k->name);
        if ((st = cz_zkey_writer_put_u32(w, nl ? (uint32_t)(2 + nl) : 0, err)) != CZ_OK) return st;
        if (nl) {
            uint8_t p[2] = {1, (uint8_t)nl}; /* parameter 1: name */
            if ((st = cz_zkey_writer_put(w, p, 2, err)) != CZ_OK) return st;
            if ((st = cz_zkey_writer_put(w, k->name, nl, err)) != CZ_OK) return st;
        }
    }
    return cz_zkey_writer_end(w, err);
}

void cz_zkey_coef_encode(uint8_t out[CZ_ZKEY_COEF_BYTES], cz_curve c, uint32_t matrix, uint32_t row, uint32_t signal,
                         const void *coef_mont)
{
    store_u32(out, matrix);
    store_u32(out + 4, row);
    store_u32(out + 8, signal);
    /* the Montgomery form of (coef*R) is coef*R^2: one product by R^2 */
    uint64_t m[4], v[4] = {0, 0, 0, 0};
    memcpy(m, coef_mont, 32);
    const cz_field *fr = cz_field_fr(c);
    if (fr) cz_mont_mul(v, m, fr->r2, fr->modulus, fr->pinv, 4);
    store_limbs(out + 12, v, 4);
}

/* ---- a whole loaded key ---- */

static cz_status put_points(cz_zkey_writer *w, uint32_t id, const void *p, uint64_t bytes, cz_error *err)
{
    cz_status st;
    if ((st = cz_zkey_writer_begin(w, id, err)) != CZ_OK) return st;
    if (bytes && (st = cz_zkey_writer_put(w, p, bytes, err)) != CZ_OK) return st;
    return cz_zkey_writer_end(w, err);
}

cz_status cz_zkey_save(const cz_zkey *z, const char *path, const uint8_t *cs_hash, cz_error *err)
{
    if (!z->a || !z->A.row_ptr)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: the key to save was loaded without its point tables", path);
    cz_zkey_layout l = {z->curve,       z->n_vars,           z->n_public,
                        z->domain_size, z->A.nnz + z->B.nnz, cz_zkey_mpc_bytes(z->curve, NULL, 0)};
    cz_zkey_writer w;
    cz_status st = cz_zkey_writer_open(&w, path, &l, err);
    if (st != CZ_OK) return st;
    size_t g1 = affine_size(z->curve, 1), g2 = affine_size(z->curve, 2);
    if ((st = cz_zkey_write_header(&w, z->alpha1, z->beta1, z->beta2, z->gamma2, z->delta1, z->delta2, err)) != CZ_OK)
        goto fail;
    if ((st = put_points(&w, 3, z->ic, ((uint64_t)z->n_public + 1) * g1, err)) != CZ_OK) goto fail;
    if ((st = cz_zkey_writer_begin(&w, 4, err)) != CZ_OK) goto fail;
    if ((st = cz_zkey_writer_put_u32(&w, (uint32_t)l.n_coef, err)) != CZ_OK) goto fail;
    {
        const cz_csr *mats[2] = {&z->A, &z->B};
        uint8_t e[CZ_ZKEY_COEF_BYTES];
        for (uint32_t row = 0; row < z->domain_size; row++)
            for (uint32_t m = 0; m < 2; m++)
                for (uint64_t k = mats[m]->row_ptr[row]; k < mats[m]->row_ptr[row + 1]; k++) {
                    cz_zkey_coef_encode(e, z->curve, m, row, mats[m]->col[k], (const uint8_t *)mats[m]->val + 32 * k);
                    if ((st = cz_zkey_writer_put(&w, e, sizeof e, err)) != CZ_OK) goto fail;
                }
    }
    if ((st = cz_zkey_writer_end(&w, err)) != CZ_OK) goto fail;
    if ((st = put_points(&w, 5, z->a, (uint64_t)z->n_vars * g1, err)) != CZ_OK) goto fail;
    if ((st = put_points(&w, 6, z->b1, (uint64_t)z->n_vars * g1, err)) != CZ_OK) goto fail;
    if ((st = put_points(&w, 7, z->b2, (uint64_t)z->n_vars * g2, err)) != CZ_OK) goto fail;
    if ((st = put_points(&w, 8, z->c, ((uint64_t)z->n_vars - z->n_public - 1) * g1, err)) != CZ_OK) goto fail;
    if ((st = put_points(&w, 9, z->h, (uint64_t)z->domain_size * g1, err)) != CZ_OK) goto fail;
    if ((st = cz_zkey_write_mpc(&w, cs_hash, NULL, 0, err)) != CZ_OK) goto fail;
    return cz_zkey_writer_commit(&w, err);
fail:
    cz_zkey_writer_abort(&w);
    return st;
}
