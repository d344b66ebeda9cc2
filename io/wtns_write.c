#include "io/wtns_write.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ff/ff.h"
#include "io/binfile.h"
#include "io/r1cs_write.h"
#include "util/atomic_file.h"

enum { CHUNK = 1 << 16 }; /* values per converted chunk (2 MiB) */

typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    cz_curve curve;
    int montgomery;
    uint64_t bad; /* smallest out-of-range index in the chunk, or UINT64_MAX */
} conv_ctx;

static void conv_range(void *arg, size_t b, size_t e, int thread)
{
    conv_ctx *c = arg;
    (void)thread;
    const cz_field *fr = cz_field_fr(c->curve); /* checked by cz_wtns_write */
    const uint64_t *r = fr->modulus;
    uint64_t pinv = fr->pinv;
    for (size_t i = b; i < e; i++) {
        const uint8_t *s = c->src + 32 * i;
        uint64_t l[4];
        if (c->montgomery)
            memcpy(l, s, 32);
        else
            for (int k = 0; k < 4; k++)
                l[k] = cz_load_u64(s + 8 * k);
        if (cz_limbs_cmp(l, r, 4) >= 0) {
            uint64_t cur = __atomic_load_n(&c->bad, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(&c->bad, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
            continue;
        }
        uint64_t out[4];
        if (c->montgomery)
            cz_mont_redc_c(out, l, r, pinv, 4);
        else
            memcpy(out, l, sizeof out);
        uint8_t *d = c->dst + 32 * i;
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < 8; j++)
                d[8 * k + j] = (uint8_t)(out[k] >> (8 * j));
    }
}

cz_status cz_wtns_write(const char *path, cz_curve curve, const void *values, uint32_t n, int montgomery, cz_pool *pool,
                        cz_error *err)
{
    if (!path || (!values && n)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "wtns writer: no path or values");
    if (!cz_curve_info_get(curve))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown curve %d", path, (int)curve);
    if (n == 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: a witness holds at least w[0] = 1", path);
    if (!pool) pool = cz_pool_default();
    uint8_t *buf = malloc((size_t)32 * CHUNK);
    if (!buf) return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", path);
    cz_atomic_file af;
    cz_status st = cz_atomic_file_open(&af, path, err);
    if (st != CZ_OK) {
        free(buf);
        return st;
    }
    uint8_t hd[76], *p = hd;
    memcpy(p, "wtns", 4);
    p = cz_r1cs_put_u32(p + 4, 2);
    p = cz_r1cs_put_u32(p, 2);
    p = cz_r1cs_put_u32(p, 1);
    p = cz_r1cs_put_u32(p, 40);
    p = cz_r1cs_put_u32(p, 0);
    /* u32 n8 = 32 then r: the layout of an r1cs term */
    p = cz_r1cs_put_term(p, 32, cz_field_fr(curve)->modulus);
    p = cz_r1cs_put_u32(p, n);
    p = cz_r1cs_put_u32(p, 2);
    uint64_t s2 = (uint64_t)32 * n;
    p = cz_r1cs_put_u32(p, (uint32_t)s2);
    p = cz_r1cs_put_u32(p, (uint32_t)(s2 >> 32));
    int e = 0;
    if (fwrite(hd, 1, sizeof hd, af.fp) != sizeof hd) e = errno ? errno : EIO;
    for (uint64_t i = 0; i < n && !e;) {
        uint64_t end = n - i > CHUNK ? i + CHUNK : n;
        conv_ctx c = {(const uint8_t *)values + 32 * i, buf, curve, montgomery, UINT64_MAX};
        cz_parallel_for(pool, (size_t)(end - i), 4096, conv_range, &c);
        if (c.bad != UINT64_MAX) {
            cz_atomic_file_abort(&af);
            free(buf);
            return cz_error_set(err, CZ_ERR_RANGE, "%s: witness value %" PRIu64 " is >= r%s", path, i + c.bad,
                                montgomery ? " (not a reduced element)" : "");
        }
        size_t len = (size_t)(end - i) * 32;
        if (fwrite(buf, 1, len, af.fp) != len) e = errno ? errno : EIO;
        i = end;
    }
    free(buf);
    if (e) {
        cz_atomic_file_abort(&af);
        return cz_error_set(err, cz_io_status(e), "%s: write failed: %s", path, strerror(e));
    }
    return cz_atomic_file_commit(&af, err);
}
