#include "util/rng.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/random.h>

static atomic_int g_os_failing;

void cz_rng_os_set_failing(int on) { atomic_store(&g_os_failing, on != 0); }

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void cz_rng_seed(cz_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
    r->os = 0;
    r->error = 0;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro_next(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

cz_status cz_os_random_errno(void *buf, size_t n, int *errno_out)
{
    uint8_t *p = buf;
    size_t left = n;
    int e = 0;
    if (atomic_load(&g_os_failing)) e = ENOSYS;
    while (!e && left > 0) {
        ssize_t got = getrandom(p, left, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            e = errno ? errno : EIO;
            break;
        }
        p += got;
        left -= (size_t)got;
    }
    if (errno_out) *errno_out = e;
    if (!e) return CZ_OK;
    if (n) memset(buf, 0, n); /* nothing partial is ever used */
    return CZ_ERR_RANDOM;
}

cz_status cz_os_random(void *buf, size_t n) { return cz_os_random_errno(buf, n, NULL); }

cz_status cz_rng_os(cz_rng *r)
{
    memset(r, 0, sizeof(*r));
    r->os = 1;
    uint8_t probe;
    if (cz_os_random_errno(&probe, 1, &r->error) != CZ_OK && !r->error) r->error = -1;
    return cz_rng_status(r);
}

cz_status cz_rng_status(const cz_rng *r) { return r->os && r->error ? CZ_ERR_RANDOM : CZ_OK; }

cz_status cz_rng_bytes(cz_rng *r, void *buf, size_t n)
{
    if (r->os) {
        int e = 0;
        if (r->error) { /* failed before: stays failed */
            if (n) memset(buf, 0, n);
            return CZ_ERR_RANDOM;
        }
        cz_status st = cz_os_random_errno(buf, n, &e);
        if (st != CZ_OK) r->error = e ? e : -1;
        return st;
    }
    uint8_t *p = buf;
    while (n >= 8) {
        uint64_t v = xoshiro_next(r->s);
        memcpy(p, &v, 8);
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t v = xoshiro_next(r->s);
        memcpy(p, &v, n);
    }
    return CZ_OK;
}

uint64_t cz_rng_u64(cz_rng *r)
{
    if (!r->os) return xoshiro_next(r->s);
    uint64_t v = 0;
    (void)cz_rng_bytes(r, &v, sizeof v); /* a failure: 0 and r->error set */
    return v;
}
