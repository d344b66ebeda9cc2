/* The subgroup checks of io/subgroup.h: per-group rows (io/subgroup_tmpl_impl.h)
 * and the policy (exact test or random combination). */
#include "io/subgroup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ec/ec.h"
#include "util/rng.h"
#include "util/thread.h"

/* The cofactors' factorisations, and the test parameters of each group:
 * the smallest prime b of the cofactor and the digits m of the most
 * buckets (b^m <= 65536 buckets, a few MB):
 *   BLS12-381 G1  h = 3 * 11^2 * 10177^2 * 859267^2 * 52437899^2        b = 3,     m = 10
 *   BLS12-381 G2  h = 13^2 * 23^2 * 2713 * 11953 * 262069 * (a 403-bit prime)
 *                                                                      b = 13,    m = 4
 *   BN254 G1      h = 1 (every point of the curve is in G1)
 *   BN254 G2      h = 2q - r = 10069 * 5864401 * 1875725156269 * (a 177-bit prime)
 *                                                                      b = 10069, m = 1 */
#define CZ_BLS12_381_G1_SUBGROUP_BASE 3
#define CZ_BLS12_381_G1_SUBGROUP_DIGITS 10
#define CZ_BLS12_381_G2_SUBGROUP_BASE 13
#define CZ_BLS12_381_G2_SUBGROUP_DIGITS 4
#define CZ_BN254_G1_SUBGROUP_BASE 0
#define CZ_BN254_G1_SUBGROUP_DIGITS 0
#define CZ_BN254_G2_SUBGROUP_BASE 10069
#define CZ_BN254_G2_SUBGROUP_DIGITS 1

/* Tables at most EXACT_MAX long get the exact test of every point. Longer
 * ones get max(n, SMALL_BUCKETS) buckets at most (and never more than the
 * group's b^m): the combination's cost stays about 3 additions a point
 * however short the table. */
enum { EXACT_MAX = 32, SMALL_BUCKETS = 1024 };

typedef struct {
    uint32_t base, digits; /* 0: cofactor 1 */
    size_t affine_bytes;
    int (*point_ok)(const void *p); /* affine, on the curve: in the subgroup */
    cz_status (*combine)(const void *pts, uint64_t n, uint64_t base, uint32_t m, uint64_t seed, int *bad);
} sg_row;

#define SG_GOLDEN 0x9e3779b97f4a7c15ULL
/* a 64-bit finaliser (the splitmix64 output function): bucket index i of a
 * table is mix(seed + i * golden) */
static inline uint64_t sg_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

#define CZ_TMPL "io/subgroup_tmpl_impl.h"
#include "util/foreach_group.h"

#define SG_G1_ROW_(ID, VALUE, SYM, ...) &SYM##_g1_sg_row_,
#define SG_G2_ROW_(ID, VALUE, SYM, ...) &SYM##_g2_sg_row_,
static const sg_row *const g1_rows[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(SG_G1_ROW_)};
static const sg_row *const g2_rows[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(SG_G2_ROW_)};
#undef SG_G1_ROW_
#undef SG_G2_ROW_

static const sg_row *row_of(cz_curve c, int group)
{
    int i = cz_curve_index(c);
    if (i < 0 || (group != 1 && group != 2)) return NULL;
    return group == 1 ? g1_rows[i] : g2_rows[i];
}

int cz_subgroup_trivial(cz_curve c, int group)
{
    const sg_row *r = row_of(c, group);
    return r && r->base == 0;
}

typedef struct {
    const sg_row *row;
    const uint8_t *pts;
    uint64_t bad;
} exact_ctx;

static void exact_range(void *arg, size_t b, size_t e, int thread)
{
    exact_ctx *c = arg;
    (void)thread;
    for (size_t i = b; i < e; i++) {
        if (i >= __atomic_load_n(&c->bad, __ATOMIC_RELAXED)) return; /* an earlier one is known */
        if (!c->row->point_ok(c->pts + i * c->row->affine_bytes)) {
            uint64_t cur = __atomic_load_n(&c->bad, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(&c->bad, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
            return;
        }
    }
}

uint64_t cz_subgroup_first_bad(cz_curve c, int group, const void *pts, uint64_t n)
{
    const sg_row *r = row_of(c, group);
    if (!r || r->base == 0 || n == 0) return UINT64_MAX;
    exact_ctx x = {r, pts, UINT64_MAX};
    cz_parallel_for(cz_pool_default(), (size_t)n, 16, exact_range, &x);
    return x.bad;
}

cz_status cz_subgroup_check(cz_curve c, int group, const void *pts, uint64_t n, double *miss_bits)
{
    const sg_row *r = row_of(c, group);
    if (!r) return CZ_ERR_INVALID_ARG;
    if (miss_bits) *miss_bits = INFINITY;
    if (r->base == 0 || n == 0) return CZ_OK;
    if (n <= EXACT_MAX) return cz_subgroup_first_bad(c, group, pts, n) == UINT64_MAX ? CZ_OK : CZ_ERR_NOT_IN_SUBGROUP;
    /* as many buckets as the table has points (SMALL_BUCKETS at least), up
     * to the group's most; one digit (base <= b) for fewer than b buckets */
    const uint64_t want = n > SMALL_BUCKETS ? n : SMALL_BUCKETS;
    uint64_t base = r->base, nb = r->base;
    uint32_t m = 1;
    if (want < r->base) {
        base = nb = want;
    } else {
        while (m < r->digits && nb * r->base <= want) {
            nb *= r->base;
            m++;
        }
    }
    uint64_t seed;
    cz_status st = cz_os_random(&seed, sizeof seed);
    if (st != CZ_OK) return st;
    int bad = 0;
    if ((st = r->combine(pts, n, base, m, seed, &bad)) != CZ_OK) return st;
    if (miss_bits) *miss_bits = log2((double)nb);
    return bad ? CZ_ERR_NOT_IN_SUBGROUP : CZ_OK;
}
