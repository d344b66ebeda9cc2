#include "io/wtns.h"

#include <inttypes.h>
#include <string.h>

#include "ff/ff.h"
#include "io/binfile.h"
#include "util/thread.h"

typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    const cz_field *fr;
    uint64_t bad; /* first index >= r, or UINT64_MAX */
} conv_ctx;

static void conv_range(void *arg, size_t b, size_t e, int thread)
{
    conv_ctx *c = arg;
    (void)thread;
    for (size_t i = b; i < e; i++) {
        cz_status st = c->fr->from_bytes_le(c->dst + 32 * i, c->src + 32 * i);
        if (st != CZ_OK) {
            /* keep the smallest bad index (benign race resolved by CAS) */
            uint64_t cur = __atomic_load_n(&c->bad, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(&c->bad, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
        }
    }
}

static cz_status wtns_read(cz_wtns *w, const cz_binfile *f, const cz_allocator *alloc, int header_only, cz_error *err)
{
    cz_status st;
    cz_reader r;
    uint32_t n8, count;
    const uint8_t *prime;
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
                          "%s: header: the prime is not the scalar field of bn128 or bls12381", f->path);
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
        goto done;
    }
    w->alloc = alloc;
    w->values = cz_alloc(alloc, (size_t)count * 32);
    if (!w->values) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for %u witness values", f->path, count);
        goto done;
    }
    w->n = count;
    conv_ctx c = {f->data + s2->offset, w->values, cz_field_fr(w->curve), UINT64_MAX};
    cz_parallel_for(cz_pool_default(), count, 4096, conv_range, &c);
    if (c.bad != UINT64_MAX) {
        st = cz_error_set(err, CZ_ERR_RANGE,
                          "%s: section 2, offset %" PRIu64 ": witness value %" PRIu64 " is >= the field prime r",
                          f->path, s2->offset + 32 * c.bad, c.bad);
        goto done;
    }
done:
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
