/* circuit/pce: the pre-compiled constraint evaluator and its file
 * (contract in pce.h). */
#include "circuit/pce.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ff/ff.h"
#include "util/atomic_file.h"
#include "util/sha256.h"

enum { HDR = 128 };
static const char MAGIC[8] = {'c', 'u', 'z', 'k', '-', 'p', 'c', 'e'};

void cz_pce_key(uint8_t key[32], const char *circuit, const char *params, uint32_t structure_version, cz_curve curve)
{
    cz_sha256_ctx c;
    cz_sha256_init(&c);
    cz_sha256_update(&c, "cuzk-pce-key", 13);
    cz_sha256_update(&c, circuit, strlen(circuit) + 1);
    cz_sha256_update(&c, params ? params : "", strlen(params ? params : "") + 1);
    uint8_t v[8] = {(uint8_t)structure_version, (uint8_t)(structure_version >> 8), (uint8_t)(structure_version >> 16),
                    (uint8_t)(structure_version >> 24), (uint8_t)curve, CZ_PCE_VERSION, 0, 0};
    cz_sha256_update(&c, v, sizeof v);
    cz_sha256_final(&c, key);
}

static uint64_t words(uint32_t n) { return ((uint64_t)n + 63) / 64; }

static void density_build(cz_pce *p)
{
    uint32_t ni = p->n_inputs;
    const cz_csr *m[3] = {&p->A, &p->B, &p->B};
    for (int k = 0; k < 3; k++) {
        uint64_t *d = p->density[k];
        for (uint64_t e = 0; e < m[k]->nnz; e++) {
            uint32_t col = m[k]->col[e];
            if (k == 1) {
                if (col < ni) d[col >> 6] |= (uint64_t)1 << (col & 63);
            } else if (col >= ni) {
                uint32_t j = col - ni;
                d[j >> 6] |= (uint64_t)1 << (j & 63);
            }
        }
    }
}

cz_status cz_pce_from_cs(cz_pce *p, cz_cs *cs, const uint8_t key[32], cz_error *err)
{
    memset(p, 0, sizeof *p);
    cz_cs_hint h;
    cz_cs_counts(cs, &h);
    cz_status st = cz_cs_take_matrices(cs, &p->A, &p->B, &p->C, err);
    if (st != CZ_OK) return st;
    p->curve = cz_cs_curve(cs);
    memcpy(p->key, key, 32);
    p->n_inputs = h.n_inputs;
    p->n_aux = h.n_aux;
    p->n_constraints = (uint32_t)h.n_constraints;
    uint64_t nw[3] = {words(p->n_aux), words(p->n_inputs), words(p->n_aux)};
    for (int k = 0; k < 3; k++)
        if (!(p->density[k] = calloc(nw[k] ? nw[k] : 1, 8))) {
            cz_pce_free(p);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory for the density bitmaps");
        }
    density_build(p);
    return CZ_OK;
}

void cz_pce_free(cz_pce *p)
{
    if (p->map) {
        munmap(p->map, p->map_len);
    } else {
        cz_csr_free(&p->A, NULL);
        cz_csr_free(&p->B, NULL);
        cz_csr_free(&p->C, NULL);
        for (int k = 0; k < 3; k++) free(p->density[k]);
    }
    memset(p, 0, sizeof *p);
}

/* ---- SpMV ---- */

/* The witness's values by class: most wires of a circuit over bits are 0
 * or 1, whose terms need no product (c * 0 = 0 is skipped, c * 1 = c is
 * added): the same reduced sums as the products give, bit for bit. */
enum { W_ZERO = 0, W_ONE = 1, W_OTHER = 2 };

typedef struct {
    const cz_pce *p;
    const cz_fe *w;
    uint8_t *cls; /* per wire: W_* */
    cz_fe one;    /* R mod p */
    cz_fe *a, *b, *c;
    const uint64_t *mod;
    uint64_t pinv;
    uint64_t bad;
} abc_ctx;

static void classify_range(void *arg, size_t lo, size_t hi, int thread)
{
    abc_ctx *x = arg;
    (void)thread;
    for (size_t i = lo; i < hi; i++) {
        const uint64_t *v = x->w[i].l;
        x->cls[i] = !(v[0] | v[1] | v[2] | v[3]) ? W_ZERO : !memcmp(v, x->one.l, 32) ? W_ONE : W_OTHER;
    }
}

static inline void row_dot(const abc_ctx *x, cz_fe *out, const cz_csr *m, uint32_t row)
{
    uint64_t acc[4] = {0}, t[4];
    const cz_fe *val = m->val;
    const uint8_t *cls = x->cls;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        const uint32_t col = m->col[k];
        const uint8_t c = cls[col];
        if (c == W_ZERO) continue;
        if (c == W_ONE) {
            cz_mont_add(acc, acc, val[k].l, x->mod, 4);
            continue;
        }
        cz_mont_mul(t, val[k].l, x->w[col].l, x->mod, x->pinv, 4);
        cz_mont_add(acc, acc, t, x->mod, 4);
    }
    memcpy(out->l, acc, 32);
}

static void abc_range(void *arg, size_t lo, size_t hi, int thread)
{
    abc_ctx *x = arg;
    (void)thread;
    for (size_t i = lo; i < hi; i++) {
        cz_fe ci, *c = x->c ? &x->c[i] : &ci; /* c NULL: checked, not kept */
        row_dot(x, &x->a[i], &x->p->A, (uint32_t)i);
        row_dot(x, &x->b[i], &x->p->B, (uint32_t)i);
        row_dot(x, c, &x->p->C, (uint32_t)i);
        /* a*b == c; b is 0 or 1 on most rows of circuits over bits */
        const uint64_t *bv = x->b[i].l;
        int bad;
        if (!(bv[0] | bv[1] | bv[2] | bv[3])) {
            const uint64_t *cv = c->l;
            bad = (cv[0] | cv[1] | cv[2] | cv[3]) != 0;
        } else if (!memcmp(bv, x->one.l, 32)) {
            bad = memcmp(x->a[i].l, c->l, 32) != 0;
        } else {
            uint64_t ab[4];
            cz_mont_mul(ab, x->a[i].l, bv, x->mod, x->pinv, 4);
            bad = memcmp(ab, c->l, 32) != 0;
        }
        if (bad) {
            uint64_t cur = __atomic_load_n(&x->bad, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(&x->bad, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
        }
    }
}

cz_status cz_pce_abc(const cz_pce *p, const cz_fe *w, uint32_t n, cz_fe *a, cz_fe *b, cz_fe *c, uint64_t *first_bad,
                     cz_pool *pool, cz_error *err)
{
    if (first_bad) *first_bad = UINT64_MAX;
    if (n != p->n_inputs + p->n_aux)
        return cz_error_set(err, CZ_ERR_MISMATCH, "the witness holds %u values, the recorded circuit has %u wires", n,
                            p->n_inputs + p->n_aux);
    const cz_field *fr = cz_field_fr(p->curve);
    if (!fr) return cz_error_set(err, CZ_ERR_UNSUPPORTED, "pce: unknown curve %d", (int)p->curve);
    abc_ctx x;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.w = w;
    x.a = a;
    x.b = b;
    x.c = c;
    x.mod = fr->modulus;
    x.pinv = fr->pinv;
    x.bad = UINT64_MAX;
    const uint64_t one[4] = {1, 0, 0, 0};
    cz_mont_mul(x.one.l, one, fr->r2, fr->modulus, fr->pinv, 4);
    if (!(x.cls = malloc(n ? n : 1))) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory for the SpMV (%u bytes)", n);
    cz_pool *pl = pool ? pool : cz_pool_default();
    cz_parallel_for(pl, n, 1 << 16, classify_range, &x);
    cz_parallel_for(pl, p->n_constraints, 2048, abc_range, &x);
    free(x.cls);
    if (first_bad) *first_bad = x.bad;
    return CZ_OK;
}

/* ---- the file ---- */

/* A 64-bit checksum of 8-byte words (not cryptographic: it finds damage,
 * the key finds staleness). */
static uint64_t cksum(const void *data, size_t len, uint64_t h)
{
    const uint8_t *p = data;
    size_t nw = len / 8;
    for (size_t i = 0; i < nw; i++) {
        uint64_t v;
        memcpy(&v, p + 8 * i, 8);
        h = (h ^ v) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (size_t i = nw * 8; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

typedef struct {
    const uint8_t *base;
    size_t len, chunk;
    uint64_t *out;
} ck_ctx;

static void ck_range(void *arg, size_t lo, size_t hi, int thread)
{
    ck_ctx *c = arg;
    (void)thread;
    for (size_t i = lo; i < hi; i++) {
        size_t off = i * c->chunk, n = c->len - off < c->chunk ? c->len - off : c->chunk;
        c->out[i] = cksum(c->base + off, n, 0xcbf29ce484222325ull + i);
    }
}

/* The checksum of a body, in 4 MiB chunks on the default pool. */
static int body_cksum(const void *base, size_t len, uint64_t *out)
{
    size_t chunk = (size_t)4 << 20, n = len ? (len + chunk - 1) / chunk : 0;
    uint64_t *h = malloc((n ? n : 1) * 8);
    if (!h) return 0;
    ck_ctx c = {base, len, chunk, h};
    cz_parallel_for(cz_pool_default(), n, 1, ck_range, &c);
    *out = cksum(h, n * 8, len);
    free(h);
    return 1;
}

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static uint64_t mat_bytes(uint32_t rows, uint64_t nnz) { return nnz * 32 + ((uint64_t)rows + 1) * 8 + pad8(nnz * 4); }

static uint64_t body_bytes(const cz_pce *p)
{
    uint64_t b = 0;
    const cz_csr *m[3] = {&p->A, &p->B, &p->C};
    for (int k = 0; k < 3; k++) b += mat_bytes(p->n_constraints, m[k]->nnz);
    b += 8 * (2 * words(p->n_aux) + words(p->n_inputs));
    return b;
}

uint64_t cz_pce_file_bytes(const cz_pce *p) { return HDR + body_bytes(p); }

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The body's parts in file order. */
typedef struct {
    const void *ptr;
    uint64_t len;
} part;

static int parts_of(const cz_pce *p, part out[12])
{
    const cz_csr *m[3] = {&p->A, &p->B, &p->C};
    int n = 0;
    for (int k = 0; k < 3; k++) {
        out[n++] = (part){m[k]->val, m[k]->nnz * 32};
        out[n++] = (part){m[k]->row_ptr, ((uint64_t)p->n_constraints + 1) * 8};
        out[n++] = (part){m[k]->col, m[k]->nnz * 4};
    }
    out[n++] = (part){p->density[0], 8 * words(p->n_aux)};
    out[n++] = (part){p->density[1], 8 * words(p->n_inputs)};
    out[n++] = (part){p->density[2], 8 * words(p->n_aux)};
    return n;
}

cz_status cz_pce_save(const cz_pce *p, const char *path, cz_error *err)
{
    part parts[12];
    int np = parts_of(p, parts);
    /* checksum over the parts as laid out (with padding): hash each part,
     * combine; the reader does the same over the mapping */
    uint64_t ck = 0;
    uint64_t total = body_bytes(p);
    uint64_t hs[12];
    for (int i = 0; i < np; i++)
        if (!body_cksum(parts[i].ptr, parts[i].len, &hs[i]))
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    ck = cksum(hs, (size_t)np * 8, total);
    uint8_t h[HDR] = {0};
    memcpy(h, MAGIC, 8);
    put32(h + 8, CZ_PCE_VERSION);
    put32(h + 12, (uint32_t)p->curve);
    memcpy(h + 16, p->key, 32);
    put32(h + 48, p->n_inputs);
    put32(h + 52, p->n_aux);
    put32(h + 56, p->n_constraints);
    put64(h + 64, p->A.nnz);
    put64(h + 72, p->B.nnz);
    put64(h + 80, p->C.nnz);
    put64(h + 88, total);
    put64(h + 96, ck);
    put64(h + 104, cksum(h, 104, 7));
    cz_atomic_file af;
    cz_status st = cz_atomic_file_open(&af, path, err);
    if (st != CZ_OK) return st;
    int ok = fwrite(h, 1, HDR, af.fp) == HDR;
    static const uint8_t zero[8] = {0};
    for (int i = 0; i < np && ok; i++) {
        if (parts[i].len) ok = fwrite(parts[i].ptr, 1, parts[i].len, af.fp) == parts[i].len;
        uint64_t pad = pad8(parts[i].len) - parts[i].len;
        if (ok && pad) ok = fwrite(zero, 1, pad, af.fp) == pad;
    }
    if (!ok) {
        cz_atomic_file_abort(&af);
        return cz_error_set(err, CZ_ERR_IO, "%s: cannot write the recorded circuit: %s", path, strerror(errno));
    }
    return cz_atomic_file_commit(&af, err);
}

cz_status cz_pce_load(cz_pce *p, const char *path, const uint8_t key[32], cz_error *err)
{
    memset(p, 0, sizeof *p);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_error_set(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < HDR) {
        close(fd);
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: not a recorded circuit (too short or not a file)", path);
    }
    size_t len = (size_t)sb.st_size;
    uint8_t *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return cz_error_set(err, CZ_ERR_IO, "%s: mmap: %s", path, strerror(errno));
    cz_status st = CZ_OK;
#define BAD(S, ...)                                                                                                    \
    do {                                                                                                               \
        st = cz_error_set(err, S, __VA_ARGS__);                                                                        \
        goto fail;                                                                                                     \
    } while (0)
    if (memcmp(m, MAGIC, 8) != 0) BAD(CZ_ERR_FORMAT, "%s: not a recorded circuit (magic)", path);
    if (get64(m + 104) != cksum(m, 104, 7)) BAD(CZ_ERR_FORMAT, "%s: corrupt header (checksum)", path);
    if (get32(m + 8) != CZ_PCE_VERSION)
        BAD(CZ_ERR_MISMATCH, "%s: stale: format version %u, this build writes %u", path, get32(m + 8), CZ_PCE_VERSION);
    if (key && memcmp(m + 16, key, 32) != 0) BAD(CZ_ERR_MISMATCH, "%s: stale: recorded for another circuit shape", path);
    p->curve = (cz_curve)get32(m + 12);
    if (!cz_field_fr(p->curve)) BAD(CZ_ERR_FORMAT, "%s: unknown curve %u", path, get32(m + 12));
    memcpy(p->key, m + 16, 32);
    p->n_inputs = get32(m + 48);
    p->n_aux = get32(m + 52);
    p->n_constraints = get32(m + 56);
    uint64_t nnz[3] = {get64(m + 64), get64(m + 72), get64(m + 80)};
    uint64_t ncols = (uint64_t)p->n_inputs + p->n_aux;
    if (p->n_inputs == 0 || ncols > UINT32_MAX) BAD(CZ_ERR_FORMAT, "%s: bad wire counts", path);
    uint64_t want = 0;
    for (int k = 0; k < 3; k++) {
        if (nnz[k] > ((uint64_t)1 << 40)) BAD(CZ_ERR_FORMAT, "%s: bad term count", path);
        want += mat_bytes(p->n_constraints, nnz[k]);
    }
    want += 8 * (2 * words(p->n_aux) + words(p->n_inputs));
    if (get64(m + 88) != want || len != HDR + want)
        BAD(CZ_ERR_FORMAT, "%s: truncated or oversized (%zu bytes, expected %llu)", path, len,
            (unsigned long long)(HDR + want));
    /* point the arrays into the mapping */
    uint8_t *q = m + HDR;
    cz_csr *mt[3] = {&p->A, &p->B, &p->C};
    for (int k = 0; k < 3; k++) {
        mt[k]->nrows = p->n_constraints;
        mt[k]->ncols = (uint32_t)ncols;
        mt[k]->nnz = nnz[k];
        mt[k]->val = q;
        q += nnz[k] * 32;
        mt[k]->row_ptr = (uint64_t *)q;
        q += ((uint64_t)p->n_constraints + 1) * 8;
        mt[k]->col = (uint32_t *)q;
        q += pad8(nnz[k] * 4);
    }
    p->density[0] = (uint64_t *)q;
    q += 8 * words(p->n_aux);
    p->density[1] = (uint64_t *)q;
    q += 8 * words(p->n_inputs);
    p->density[2] = (uint64_t *)q;
    /* checksum as written */
    {
        part parts[12];
        int np = parts_of(p, parts);
        uint64_t hs[12];
        for (int i = 0; i < np; i++)
            if (!body_cksum(parts[i].ptr, parts[i].len, &hs[i])) BAD(CZ_ERR_NO_MEMORY, "out of memory");
        if (cksum(hs, (size_t)np * 8, want) != get64(m + 96)) BAD(CZ_ERR_FORMAT, "%s: corrupt (body checksum)", path);
    }
    /* structure */
    for (int k = 0; k < 3; k++) {
        const cz_csr *c = mt[k];
        if (c->row_ptr[0] != 0 || c->row_ptr[p->n_constraints] != c->nnz)
            BAD(CZ_ERR_FORMAT, "%s: corrupt (row pointers of matrix %c)", path, "ABC"[k]);
        for (uint32_t i = 0; i < p->n_constraints; i++)
            if (c->row_ptr[i + 1] < c->row_ptr[i]) BAD(CZ_ERR_FORMAT, "%s: corrupt (row %u of %c)", path, i, "ABC"[k]);
        const cz_fe *val = c->val;
        const uint64_t *mod = cz_field_fr(p->curve)->modulus;
        for (uint64_t e = 0; e < c->nnz; e++) {
            if (c->col[e] >= ncols) BAD(CZ_ERR_FORMAT, "%s: corrupt (a column of %c out of range)", path, "ABC"[k]);
            if (cz_limbs_cmp(val[e].l, mod, 4) >= 0) BAD(CZ_ERR_FORMAT, "%s: corrupt (a value of %c >= r)", path, "ABC"[k]);
        }
    }
    p->map = m;
    p->map_len = len;
    return CZ_OK;
fail:
    munmap(m, len);
    memset(p, 0, sizeof *p);
    return st;
#undef BAD
}
