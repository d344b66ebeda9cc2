#include "io/r1cs_write.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ff/ff.h"
#include "io/binfile.h"

/* fixed offsets of the fields finish patches (sections in the order 1, 2, 3) */
enum {
    OFF_SEC1 = 12,                 /* u32 id, u64 size */
    OFF_SEC1_BODY = OFF_SEC1 + 12, /* 64 bytes */
    OFF_NCONSTRAINTS = OFF_SEC1_BODY + 60,
    OFF_SEC2 = OFF_SEC1_BODY + 64, /* u32 id, u64 size */
    OFF_SEC2_SIZE = OFF_SEC2 + 4,
    OFF_SEC2_BODY = OFF_SEC2 + 12,
    IOBUF_BYTES = 1 << 20,
};

static void st_u32(uint8_t *p, uint32_t v)
{
    cz_r1cs_put_u32(p, v);
}
static void st_u64(uint8_t *p, uint64_t v)
{
    st_u32(p, (uint32_t)v);
    st_u32(p + 4, (uint32_t)(v >> 32));
}

/* r of the writer's curve (checked by cz_r1cs_writer_open), 4 limbs */
static const uint64_t *r_limbs(cz_curve c)
{
    return cz_field_fr(c)->modulus;
}

/* records an I/O failure (sticky) */
static cz_status io_fail(cz_r1cs_writer *w, int e, const char *what, cz_error *err)
{
    if (!e) e = EIO;
    w->st = cz_io_status(e);
    return cz_error_set(err, w->st, "%s: %s failed: %s", w->af.path, what, strerror(e));
}

static cz_status put(cz_r1cs_writer *w, const void *p, size_t n, cz_error *err)
{
    if (n && fwrite(p, 1, n, w->af.fp) != n) return io_fail(w, errno, "write", err);
    return CZ_OK;
}

cz_status cz_r1cs_writer_open(cz_r1cs_writer *w, const char *path, const cz_r1cs_header *h, cz_error *err)
{
    memset(w, 0, sizeof *w);
    if (!path || !h) return cz_error_set(err, CZ_ERR_INVALID_ARG, "r1cs writer: no path or header");
    if (!cz_curve_info_get(h->curve))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown curve %d", path, (int)h->curve);
    if ((uint64_t)h->n_pub_out + h->n_pub_in + h->n_prv_in >= h->n_wires)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "%s: nWires = %u cannot hold ONE + %u outputs + %u public + %u private inputs", path,
                            h->n_wires, h->n_pub_out, h->n_pub_in, h->n_prv_in);
    w->h = *h;
    if (w->h.n_labels == 0) w->h.n_labels = h->n_wires;
    if (w->h.n_labels < h->n_wires)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: nLabels = %" PRIu64 " < nWires = %u", path, w->h.n_labels,
                            h->n_wires);
    cz_status st = cz_atomic_file_open(&w->af, path, err);
    if (st != CZ_OK) return st;
    w->iobuf = malloc(IOBUF_BYTES);
    if (w->iobuf) setvbuf(w->af.fp, w->iobuf, _IOFBF, IOBUF_BYTES);

    uint8_t hd[OFF_SEC2_BODY];
    memcpy(hd, "r1cs", 4);
    st_u32(hd + 4, 1);
    st_u32(hd + 8, 3);
    st_u32(hd + OFF_SEC1, 1);
    st_u64(hd + OFF_SEC1 + 4, 64);
    uint8_t *p = hd + OFF_SEC1_BODY;
    cz_r1cs_put_term(p, 32, r_limbs(h->curve)); /* u32 n8 = 32, then r LE: the layout of a term */
    p += 36;
    st_u32(p, h->n_wires);
    st_u32(p + 4, h->n_pub_out);
    st_u32(p + 8, h->n_pub_in);
    st_u32(p + 12, h->n_prv_in);
    st_u64(p + 16, w->h.n_labels);
    st_u32(p + 24, 0); /* nConstraints, patched by finish */
    st_u32(hd + OFF_SEC2, 2);
    st_u64(hd + OFF_SEC2_SIZE, 0); /* patched by finish */
    if ((st = put(w, hd, sizeof hd, err)) != CZ_OK) {
        cz_r1cs_writer_abort(w);
        return st;
    }
    return CZ_OK;
}

/* coefficient i of lc as limbs: the element's limbs (Montgomery) or the
 * canonical integer read from little-endian bytes */
static void coef_limbs(uint64_t l[4], const cz_r1cs_lc *lc, uint32_t i, int montgomery)
{
    const uint8_t *src = (const uint8_t *)lc->coef + 32 * (size_t)i;
    if (montgomery)
        memcpy(l, src, 32);
    else
        for (int k = 0; k < 4; k++)
            l[k] = cz_load_u64(src + 8 * k);
}

/* checks one combination: wires in range and distinct, coefficients < r */
static cz_status check_lc(cz_r1cs_writer *w, const cz_r1cs_lc *lc, char name, int montgomery, cz_error *err)
{
    if (lc->n && (!lc->wire || !lc->coef))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: constraint %" PRIu64 ": %c has %u terms but no arrays",
                            w->af.path, w->n_constraints, name, lc->n);
    for (uint32_t i = 0; i < lc->n; i++) {
        if (lc->wire[i] >= w->h.n_wires)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: constraint %" PRIu64 ": %c term %u: wire %u >= nWires %u",
                                w->af.path, w->n_constraints, name, i, lc->wire[i], w->h.n_wires);
        for (uint32_t j = 0; j < i; j++)
            if (lc->wire[j] == lc->wire[i])
                return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                    "%s: constraint %" PRIu64 ": %c names wire %u twice (terms %u and %u)", w->af.path,
                                    w->n_constraints, name, lc->wire[i], j, i);
        uint64_t l[4];
        coef_limbs(l, lc, i, montgomery);
        if (cz_limbs_cmp(l, r_limbs(w->h.curve), 4) >= 0)
            return cz_error_set(err, CZ_ERR_RANGE, "%s: constraint %" PRIu64 ": %c term %u: coefficient >= r%s",
                                w->af.path, w->n_constraints, name, i, montgomery ? " (not a reduced element)" : "");
    }
    return CZ_OK;
}

cz_status cz_r1cs_writer_add(cz_r1cs_writer *w, const cz_r1cs_lc *a, const cz_r1cs_lc *b, const cz_r1cs_lc *c,
                             int montgomery, cz_error *err)
{
    if (w->st != CZ_OK) return cz_error_set(err, w->st, "%s: the writer failed earlier", w->af.path);
    const cz_r1cs_lc *lcs[3] = {a, b, c};
    static const char names[3] = {'A', 'B', 'C'};
    cz_status st;
    for (int m = 0; m < 3; m++)
        if ((st = check_lc(w, lcs[m], names[m], montgomery, err)) != CZ_OK) return st;
    uint8_t buf[36 * 64];
    for (int m = 0; m < 3; m++) {
        uint8_t *p = cz_r1cs_put_u32(buf, lcs[m]->n);
        if ((st = put(w, buf, 4, err)) != CZ_OK) return st;
        w->sec2_bytes += 4;
        for (uint32_t i = 0; i < lcs[m]->n;) {
            /* up to 64 terms per write */
            p = buf;
            uint32_t e = lcs[m]->n - i > 64 ? i + 64 : lcs[m]->n;
            for (; i < e; i++) {
                uint64_t l[4], t[4];
                coef_limbs(t, lcs[m], i, montgomery);
                if (!montgomery)
                    memcpy(l, t, sizeof l);
                else /* leave Montgomery form: t * R^-1 */
                    cz_mont_redc_c(l, t, r_limbs(w->h.curve), cz_field_fr(w->h.curve)->pinv, 4);
                p = cz_r1cs_put_term(p, lcs[m]->wire[i], l);
            }
            if ((st = put(w, buf, (size_t)(p - buf), err)) != CZ_OK) return st;
            w->sec2_bytes += (uint64_t)(p - buf);
        }
    }
    w->n_constraints++;
    return CZ_OK;
}

cz_status cz_r1cs_writer_add_encoded(cz_r1cs_writer *w, const void *bytes, size_t len, uint64_t count, cz_error *err)
{
    if (w->st != CZ_OK) return cz_error_set(err, w->st, "%s: the writer failed earlier", w->af.path);
    /* structure: exactly count constraints of 3 combinations, wires < nWires */
    const uint8_t *p = bytes, *end = p + len;
    for (uint64_t k = 0; k < count; k++) {
        for (int m = 0; m < 3; m++) {
            uint32_t n = end - p < 4 ? 0 : cz_load_u32(p);
            if (end - p < 4 || (uint64_t)(end - p - 4) / 36 < n)
                return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                    "%s: %zu encoded bytes end inside constraint %" PRIu64 " of %" PRIu64, w->af.path,
                                    len, k, count);
            p += 4;
            for (uint32_t i = 0; i < n; i++, p += 36) {
                uint32_t wire = cz_load_u32(p);
                if (wire >= w->h.n_wires)
                    return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                        "%s: constraint %" PRIu64 ": %c term %u: wire %u >= nWires %u", w->af.path,
                                        w->n_constraints + k, "ABC"[m], i, wire, w -> h.n_wires);
            }
        }
    }
    if (p != end)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: %zu encoded bytes hold more than %" PRIu64 " constraints",
                            w->af.path, len, count);
    cz_status st = put(w, bytes, len, err);
    if (st != CZ_OK) return st;
    w->sec2_bytes += len;
    w->n_constraints += count;
    return CZ_OK;
}

static cz_status patch(cz_r1cs_writer *w, off_t off, const uint8_t *p, size_t n, cz_error *err)
{
    if (fseeko(w->af.fp, off, SEEK_SET) != 0) return io_fail(w, errno, "seek", err);
    return put(w, p, n, err);
}

cz_status cz_r1cs_writer_finish(cz_r1cs_writer *w, const uint64_t *labels, cz_error *err)
{
    cz_status st = w->st;
    if (!w->af.fp) return cz_error_set(err, CZ_ERR_INVALID_ARG, "r1cs writer: not open");
    if (st != CZ_OK) {
        cz_error_set(err, st, "%s: the writer failed earlier", w->af.path);
        goto fail;
    }
    if (w->n_constraints > UINT32_MAX) {
        st = cz_error_set(err, CZ_ERR_RANGE, "%s: %" PRIu64 " constraints, the format holds at most 2^32 - 1",
                          w->af.path, w->n_constraints);
        goto fail;
    }
    /* section 3: the label map */
    uint8_t b[12];
    st_u32(b, 3);
    st_u64(b + 4, (uint64_t)8 * w->h.n_wires);
    if ((st = put(w, b, 12, err)) != CZ_OK) goto fail;
    enum { CHUNK = 8192 };
    uint8_t *buf = malloc(8 * CHUNK);
    if (!buf) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", w->af.path);
        goto fail;
    }
    for (uint64_t i = 0; i < w->h.n_wires && st == CZ_OK;) {
        uint64_t e = w->h.n_wires - i > CHUNK ? i + CHUNK : w->h.n_wires;
        for (uint64_t k = i; k < e; k++)
            st_u64(buf + 8 * (k - i), labels ? labels[k] : k);
        st = put(w, buf, 8 * (size_t)(e - i), err);
        i = e;
    }
    free(buf);
    if (st != CZ_OK) goto fail;
    w->bytes = OFF_SEC2_BODY + w->sec2_bytes + 12 + (uint64_t)8 * w->h.n_wires;
    st_u32(b, (uint32_t)w->n_constraints);
    if ((st = patch(w, OFF_NCONSTRAINTS, b, 4, err)) != CZ_OK) goto fail;
    st_u64(b, w->sec2_bytes);
    if ((st = patch(w, OFF_SEC2_SIZE, b, 8, err)) != CZ_OK) goto fail;
    st = cz_atomic_file_commit(&w->af, err);
    free(w->iobuf); /* after fclose (inside commit): stdio used it until then */
    w->iobuf = NULL;
    if (st != CZ_OK) w->st = st;
    return st;
fail:
    cz_r1cs_writer_abort(w);
    w->st = st;
    return st;
}

void cz_r1cs_writer_abort(cz_r1cs_writer *w)
{
    cz_atomic_file_abort(&w->af);
    free(w->iobuf);
    w->iobuf = NULL;
}
