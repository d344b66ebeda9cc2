#include "util/rng.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

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
}

void cz_rng_os(cz_rng *r)
{
    memset(r, 0, sizeof(*r));
    r->os = 1;
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

cz_status cz_os_random(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return CZ_ERR_IO;
        }
        p += got;
        n -= (size_t)got;
    }
    return CZ_OK;
}

cz_status cz_rng_bytes(cz_rng *r, void *buf, size_t n)
{
    if (r->os) return cz_os_random(buf, n);
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
    /* getrandom on a 8-byte request does not fail after boot; on the
     * impossible failure fall back to a value that still varies */
    if (cz_os_random(&v, sizeof v) != CZ_OK) v = xoshiro_next(r->s);
    return v;
}
