#include "io/wtns.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ff/ff.h"
#include "io/binfile.h"
#include "util/thread.h"

/* values [b, e) read from the file into dst, then converted in place (the
 * conversion reads its input before writing) */
typedef struct {
    const cz_binfile *f;
    uint64_t off; /* of value 0 */
    uint8_t *dst;
    const cz_field *fr;
    uint64_t bad;   /* first index >= r, or UINT64_MAX */
    uint64_t io_at; /* first value whose read failed, or UINT64_MAX */
    pthread_mutex_t mu;
    cz_error io_err; /* the error of the read at io_at */
} conv_ctx;

#define KNOWN_CURVE_(ID, ...) CZ_CURVE_##ID,
static const cz_curve known_curves[] = {CZ_CURVE_LIST(KNOWN_CURVE_)};
#undef KNOWN_CURVE_

static void atomic_min(uint64_t *slot, uint64_t v)
{
    uint64_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (v < cur && !__atomic_compare_exchange_n(slot, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static void conv_range(void *arg, size_t b, size_t e, int thread)
{
    conv_ctx *c = arg;
    (void)thread;
    cz_error le;
    cz_error_clear(&le);
    if (cz_binfile_read(c->f, c->off + 32 * (uint64_t)b, c->dst + 32 * b, 32 * (uint64_t)(e - b), &le) != CZ_OK) {
        pthread_mutex_lock(&c->mu);
        if (b < c->io_at) {
            c->io_at = b;
            c->io_err = le;
        }
        pthread_mutex_unlock(&c->mu);
        return;
    }
    for (size_t i = b; i < e; i++)
        if (c->fr->from_bytes_le(c->dst + 32 * i, c->dst + 32 * i) != CZ_OK) atomic_min(&c->bad, i);
}

static cz_status wtns_read(cz_wtns *w, const cz_binfile *f, const cz_allocator *alloc, int header_only, cz_error *err)
{
    cz_status st;
    cz_reader r;
    uint32_t n8, count;
    const uint8_t *prime;
    memset(&r, 0, sizeof r);
    if ((st = cz_reader_init(&r, f, 1, err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &n8, "field size n8", err)) != CZ_OK) goto done;
    if (n8 != 32) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: header: field size n8 = %u, expected 32 (bn128 or bls12381)", f->path, n8);
        goto done;
    }
    if ((st = cz_rd_bytes(&r, &prime, n8, "prime", err)) != CZ_OK) goto done;
    w->curve = cz_curve_from_r(prime, n8);
    if (w->curve == CZ_CURVE_NONE) {
        st = cz_error_set(err, CZ_ERR_FORMAT,
                          "%s: section 1, offset %" PRIu64 ": the prime is the scalar field r of no known curve "
                          "(neither bn128's nor bls12381's)",
                          f->path, r.pos - n8);
        goto done;
    }
    if ((st = cz_rd_u32(&r, &count, "witness count", err)) != CZ_OK) goto done;
    if ((st = cz_rd_expect_end(&r, "the witness header", err)) != CZ_OK) goto done;

    const cz_binsection *s2;
    if ((st = cz_binfile_section(f, 2, &s2, err)) != CZ_OK) goto done;
    if (s2->size != (uint64_t)count * 32) {
        st = cz_error_set(err, CZ_ERR_FORMAT,
                          "%s: section 2 holds %" PRIu64 " bytes, expected %u values x 32 = %" PRIu64 " (truncated?)",
                          f->path, s2->size, count, (uint64_t)count * 32);
        goto done;
    }
    if (count == 0) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: header: witness count is 0 (w[0] = 1 is always present)", f->path);
        goto done;
    }
    if (header_only) {
        w->n = count;
        st = cz_binfile_check_unchanged(f, err);
        goto done;
    }
    w->alloc = alloc;
    w->values = cz_alloc(alloc, (size_t)count * 32);
    if (!w->values) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for %u witness values", f->path, count);
        goto done;
    }
    w->n = count;
    conv_ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.off = s2->offset;
    c.dst = w->values;
    c.fr = cz_field_fr(w->curve);
    c.bad = c.io_at = UINT64_MAX;
    pthread_mutex_init(&c.mu, NULL);
    cz_parallel_for(cz_pool_default(), count, 4096, conv_range, &c);
    pthread_mutex_destroy(&c.mu);
    if (c.io_at != UINT64_MAX) {
        st = cz_error_set(err, c.io_err.status, "%s", cz_error_msg(&c.io_err));
        goto done;
    }
    if (c.bad != UINT64_MAX) {
        /* the bad value's bytes are still as read (the conversion failed
         * before writing): does it fit another curve's field? */
        const uint8_t *raw = c.dst + 32 * c.bad;
        cz_curve fits = CZ_CURVE_NONE;
        for (size_t k = 0; k < CZ_ARRAY_LEN(known_curves) && fits == CZ_CURVE_NONE; k++) {
            uint64_t tmp[8];
            if (known_curves[k] != w->curve && cz_field_fr(known_curves[k])->bytes == 32 &&
                cz_field_fr(known_curves[k])->from_bytes_le(tmp, raw) == CZ_OK)
                fits = known_curves[k];
        }
        char hint[160] = "";
        if (fits != CZ_CURVE_NONE)
            snprintf(hint, sizeof hint, "; it is below %s's r: a %s witness written with the %s prime?",
                     cz_curve_snarkjs_name(fits), cz_curve_snarkjs_name(fits), cz_curve_snarkjs_name(w->curve));
        st = cz_error_set(err, CZ_ERR_RANGE,
                          "%s: section 2, offset %" PRIu64 ": witness value %" PRIu64
                          " is >= the field prime r of %s (the curve of the prime in the header, section 1)%s",
                          f->path, s2->offset + 32 * c.bad, c.bad, cz_curve_snarkjs_name(w->curve), hint);
        goto done;
    }
    st = cz_binfile_check_unchanged(f, err);
done:
    cz_reader_free(&r);
    return st;
}

cz_status cz_wtns_load(cz_wtns *w, const char *path, const cz_allocator *alloc, cz_error *err)
{
    memset(w, 0, sizeof *w);
    cz_binfile f;
    cz_status st = cz_binfile_open(&f, path, "wtns", 2, 2, err);
    if (st != CZ_OK) return st;
    st = wtns_read(w, &f, alloc, 0, err);
    cz_binfile_close(&f);
    if (st != CZ_OK) cz_wtns_free(w);
    return st;
}

cz_status cz_wtns_probe(const char *path, cz_curve *curve, uint32_t *n, cz_error *err)
{
    cz_wtns w;
    memset(&w, 0, sizeof w);
    cz_binfile f;
    cz_status st = cz_binfile_open(&f, path, "wtns", 2, 2, err);
    if (st != CZ_OK) return st;
    st = wtns_read(&w, &f, NULL, 1, err);
    cz_binfile_close(&f);
    if (st == CZ_OK) {
        *curve = w.curve;
        *n = w.n;
    }
    return st;
}

cz_status cz_wtns_load_mem(cz_wtns *w, const void *data, size_t len, const char *name, const cz_allocator *alloc,
                           cz_error *err)
{
    memset(w, 0, sizeof *w);
    cz_binfile f;
    cz_status st = cz_binfile_open_mem(&f, data, len, name, "wtns", 2, 2, err);
    if (st != CZ_OK) return st;
    st = wtns_read(w, &f, alloc, 0, err);
    cz_binfile_close(&f);
    if (st != CZ_OK) cz_wtns_free(w);
    return st;
}

void cz_wtns_free(cz_wtns *w)
{
    cz_free(w->alloc, w->values, (size_t)w->n * 32);
    memset(w, 0, sizeof *w);
}
