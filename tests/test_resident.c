/*
 * resident store tests (mem/resident.h), with a mock device whose memory is
 * ordinary heap memory of a fixed capacity: the oracle of what the store
 * really holds. Checked one step at a time: lanes see only what they pinned;
 * a pin of the same memory by a second lane joins the first copy (one
 * allocation, counted once); a block goes when its last holder releases it;
 * sub-range lookups; a pending block is copied at its first lookup, and a
 * failed copy drops it with the copy's error; another lane's busy block (and
 * its table) is never evicted, the lane's own may be; tables: claims count
 * calls, one lane builds, the others see the table only when published, a
 * failed or refused build is not claimed again, tables go before blocks;
 * fill takes over the lane's own block and drops what overlaps; closing a
 * lane frees what only it held, the last close frees the store. Then lanes
 * on threads (TSan in scripts/test.sh) pin, look up, fill, build tables and
 * grow scratch on a device too small for all of it, checking every looked-up
 * copy and table byte for byte while the others evict (the mock poisons
 * memory it frees, and ASan sees any use after free); at the end the mock
 * holds nothing.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/resident.h"
#include "test_util.h"

#define KIB ((size_t)1 << 10)

/* ---- the mock device ---------------------------------------------------- */

typedef struct mockdev {
    pthread_mutex_t lock;
    size_t cap, used;
    long allocs, frees;
} mockdev;

static mockdev dev0 = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};

static cz_status mock_alloc(void *ctx, void **p, size_t bytes, cz_error *err)
{
    mockdev *m = ctx;
    pthread_mutex_lock(&m->lock);
    if (m->used + bytes > m->cap) {
        const size_t u = m->used, c = m->cap;
        pthread_mutex_unlock(&m->lock);
        return cz_error_set(err, CZ_ERR_DEVICE_MEMORY, "mock: out of memory (%zu of %zu used)", u, c);
    }
    m->used += bytes;
    m->allocs++;
    pthread_mutex_unlock(&m->lock);
    size_t *q = malloc(bytes + 16);
    q[0] = bytes;
    *p = (char *)q + 16;
    return CZ_OK;
}

static void mock_free(void *ctx, void *p)
{
    mockdev *m = ctx;
    size_t *q = (size_t *)((char *)p - 16);
    const size_t bytes = q[0];
    memset(p, 0xdd, bytes); /* poisoned: a reader still using it sees it */
    free(q);
    pthread_mutex_lock(&m->lock);
    m->used -= bytes;
    m->frees++;
    pthread_mutex_unlock(&m->lock);
}

static size_t mock_free_bytes(void *ctx)
{
    mockdev *m = ctx;
    pthread_mutex_lock(&m->lock);
    const size_t f = m->cap - m->used;
    pthread_mutex_unlock(&m->lock);
    return f;
}

static const cz_resident_dev mock_ops = {&dev0, mock_alloc, mock_free, mock_free_bytes};

/* the copy callback: memcpy, failing on demand, yielding to widen races */
typedef struct copier {
    int fail;
    int yield;
    long copies;
} copier;

static cz_status do_copy(void *ctx, void *dev, const void *host, size_t bytes, cz_error *err)
{
    copier *c = ctx;
    if (c->fail) return cz_error_set(err, CZ_ERR_CUDA, "mock: copy failed");
    if (c->yield) sched_yield();
    memcpy(dev, host, bytes);
    c->copies++;
    return CZ_OK;
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)((seed * 2654435761u + i * 40503u) >> 13);
}

static size_t used(void)
{
    pthread_mutex_lock(&dev0.lock);
    size_t u = dev0.used;
    pthread_mutex_unlock(&dev0.lock);
    return u;
}

/* ---- one step at a time -------------------------------------------------- */

static void test_holders(void)
{
    dev0.cap = 1024 * KIB;
    cz_resident *s, *s2, *other;
    int l0, l1, lo;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_resident_open(&s, 7, &mock_ops, &l0, &err) == CZ_OK);
    CHECK(cz_resident_open(&s2, 7, &mock_ops, &l1, &err) == CZ_OK);
    CHECK(s == s2 && l0 == 0 && l1 == 1);
    CHECK(cz_resident_open(&other, 8, &mock_ops, &lo, &err) == CZ_OK);
    CHECK(other != s && lo == 0);

    static uint8_t key[64 * KIB];
    pattern(key, sizeof key, 1);
    copier c = {0, 0, 0};
    CHECK(cz_resident_pin(s, l0, key, sizeof key, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_blocks(s) == 1 && cz_resident_bytes(s) == sizeof key && used() == sizeof key);
    CHECK(c.copies == 0); /* later: not copied yet */
    /* lane 1 does not see lane 0's block */
    CHECK(cz_resident_lookup(s, l1, key, sizeof key, do_copy, &c, NULL, NULL, &err) == NULL);
    CHECK(cz_resident_count(s, l1) == 0);
    /* nor does another device's store */
    CHECK(cz_resident_lookup(other, lo, key, sizeof key, do_copy, &c, NULL, NULL, &err) == NULL);
    /* lane 1 pins the same memory: joins it */
    const long allocs = dev0.allocs;
    CHECK(cz_resident_pin(s, l1, key, sizeof key, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(dev0.allocs == allocs && cz_resident_blocks(s) == 1 && cz_resident_bytes(s) == sizeof key);
    CHECK(cz_resident_count(s, l0) == 1 && cz_resident_count(s, l1) == 1);
    cz_res_view v;
    const uint8_t *d = cz_resident_lookup(s, l1, key, sizeof key, do_copy, &c, NULL, &v, &err);
    CHECK(d && c.copies == 1 && memcmp(d, key, sizeof key) == 0);
    CHECK(v.host == key && v.bytes == sizeof key && v.dev == d && !v.tab && !v.tab_failed);
    /* lane 0's lookup of a sub-range: the same copy, no second upload */
    const uint8_t *d0 = cz_resident_lookup(s, l0, key + 100, 1000, do_copy, &c, NULL, NULL, &err);
    CHECK(d0 == d + 100 && c.copies == 1);
    /* a range past the block is not in it */
    CHECK(cz_resident_lookup(s, l0, key + 100, sizeof key, do_copy, &c, NULL, NULL, &err) == NULL);
    cz_resident_idle(s, l0);
    cz_resident_idle(s, l1);
    /* a pin of a sub-range the lane holds is that block */
    CHECK(cz_resident_pin(s, l0, key + 64, 64, 0, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_blocks(s) == 1 && c.copies == 1);
    /* released by lane 0: lane 1 keeps it */
    cz_resident_release(s, l0, key);
    CHECK(cz_resident_lookup(s, l0, key, sizeof key, do_copy, &c, NULL, NULL, &err) == NULL);
    CHECK(cz_resident_lookup(s, l1, key, sizeof key, do_copy, &c, NULL, NULL, &err) == d);
    cz_resident_idle(s, l1);
    CHECK(used() == sizeof key);
    cz_resident_release(s, l1, key);
    CHECK(cz_resident_blocks(s) == 0 && cz_resident_bytes(s) == 0 && used() == 0);

    /* pinned now: copied at once; a block larger than the device: refused */
    CHECK(cz_resident_pin(s, l0, key, sizeof key, 0, do_copy, &c, &err) == CZ_OK && c.copies == 2);
    static uint8_t big[2048 * KIB];
    cz_error_clear(&err);
    CHECK(cz_resident_pin(s, l0, big, sizeof big, 1, do_copy, &c, &err) == CZ_ERR_DEVICE_MEMORY);
    CHECK(err.status == CZ_ERR_DEVICE_MEMORY && strstr(err.msg, "do not fit"));
    CHECK(cz_resident_blocks(s) == 1);
    /* a failed copy at lookup drops the block and says why */
    static uint8_t w[16 * KIB];
    CHECK(cz_resident_pin(s, l1, w, sizeof w, 1, do_copy, &c, &err) == CZ_OK);
    c.fail = 1;
    cz_error_clear(&err);
    CHECK(cz_resident_lookup(s, l1, w, sizeof w, do_copy, &c, NULL, NULL, &err) == NULL);
    CHECK(err.status == CZ_ERR_CUDA && strstr(err.msg, "copy failed"));
    CHECK(cz_resident_count(s, l1) == 0 && cz_resident_blocks(s) == 1);
    /* a failed copy when pinned now: the status, no block */
    cz_error_clear(&err);
    CHECK(cz_resident_pin(s, l1, w, sizeof w, 0, do_copy, &c, &err) == CZ_ERR_CUDA);
    CHECK(cz_resident_count(s, l1) == 0 && used() == sizeof key);
    /* flush copies the lane's pending blocks only; failures counted */
    c.fail = 0;
    static uint8_t w2[8 * KIB];
    pattern(w, sizeof w, 2);
    pattern(w2, sizeof w2, 3);
    CHECK(cz_resident_pin(s, l1, w, sizeof w, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, l0, w2, sizeof w2, 1, do_copy, &c, &err) == CZ_OK);
    const long before = c.copies;
    cz_error_clear(&err);
    CHECK(cz_resident_flush(s, l1, do_copy, &c, &err) == 0 && c.copies == before + 1);
    copier bad = {1, 0, 0};
    CHECK(cz_resident_flush(s, l0, do_copy, &bad, &err) == 1 && err.status == CZ_ERR_CUDA);
    CHECK(cz_resident_count(s, l0) == 1); /* w2's block dropped, key stays */
    d = cz_resident_lookup(s, l1, w, sizeof w, NULL, NULL, NULL, NULL, &err); /* copied: no copy needed */
    CHECK(d && memcmp(d, w, sizeof w) == 0);
    cz_resident_idle(s, l1);

    /* closing lane 1 frees what only it held */
    cz_resident_close(s, l1);
    CHECK(cz_resident_blocks(s) == 1 && used() == sizeof key);
    /* a new lane takes the free number */
    CHECK(cz_resident_open(&s2, 7, &mock_ops, &l1, &err) == CZ_OK && s2 == s && l1 == 1);
    cz_resident_close(s, l1);
    cz_resident_close(s, l0);
    cz_resident_close(other, lo);
    CHECK(used() == 0 && dev0.allocs == dev0.frees);
    /* at most CZ_RESIDENT_LANES contexts per device; an empty pin is refused */
    {
        cz_resident *m[CZ_RESIDENT_LANES + 1];
        int ml[CZ_RESIDENT_LANES + 1], opened = 0;
        for (int i = 0; i < CZ_RESIDENT_LANES; i++) opened += cz_resident_open(&m[i], 9, &mock_ops, &ml[i], &err) == CZ_OK;
        CHECK(opened == CZ_RESIDENT_LANES && ml[CZ_RESIDENT_LANES - 1] == CZ_RESIDENT_LANES - 1);
        cz_error_clear(&err);
        CHECK(cz_resident_open(&m[CZ_RESIDENT_LANES], 9, &mock_ops, &ml[CZ_RESIDENT_LANES], &err) == CZ_ERR_UNSUPPORTED);
        CHECK(err.status == CZ_ERR_UNSUPPORTED && strstr(err.msg, "contexts") && m[CZ_RESIDENT_LANES] == NULL);
        cz_error_clear(&err);
        CHECK(cz_resident_pin(m[0], ml[0], key, 0, 1, do_copy, &c, &err) == CZ_ERR_INVALID_ARG);
        for (int i = 0; i < CZ_RESIDENT_LANES; i++) cz_resident_close(m[i], ml[i]);
    }
    /* the store is gone: a new one, lane 0, empty */
    CHECK(cz_resident_open(&s, 7, &mock_ops, &l0, &err) == CZ_OK && l0 == 0 && cz_resident_blocks(s) == 0);
    cz_resident_close(s, l0);
}

static void test_eviction(void)
{
    dev0.cap = 256 * KIB;
    cz_resident *s;
    int a, b;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_resident_open(&s, 1, &mock_ops, &a, &err) == CZ_OK);
    CHECK(cz_resident_open(&s, 1, &mock_ops, &b, &err) == CZ_OK);
    static uint8_t k1[128 * KIB], k2[64 * KIB];
    pattern(k1, sizeof k1, 4);
    pattern(k2, sizeof k2, 5);
    copier c = {0, 0, 0};
    CHECK(cz_resident_pin(s, a, k1, sizeof k1, 0, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, b, k2, sizeof k2, 0, do_copy, &c, &err) == CZ_OK);
    /* a's block busy: b's scratch cannot evict it, only b's own idle k2 */
    const uint8_t *d1 = cz_resident_lookup(s, a, k1, sizeof k1, NULL, NULL, NULL, NULL, &err);
    CHECK(d1 != NULL);
    void *scr = NULL;
    cz_error_clear(&err);
    CHECK(cz_resident_alloc(s, b, &scr, 192 * KIB, 1, &err) == CZ_ERR_DEVICE_MEMORY);
    CHECK(err.status == CZ_ERR_DEVICE_MEMORY && scr == NULL);
    CHECK(cz_resident_count(s, b) == 0 && cz_resident_count(s, a) == 1); /* k2 went trying */
    CHECK(memcmp(d1, k1, sizeof k1) == 0);
    /* without eviction allowed: refused, nothing evicted */
    CHECK(cz_resident_alloc(s, b, &scr, 192 * KIB, 0, &err) == CZ_ERR_DEVICE_MEMORY);
    CHECK(cz_resident_count(s, a) == 1);
    /* once a is idle it may go */
    cz_resident_idle(s, a);
    cz_error_clear(&err);
    CHECK(cz_resident_alloc(s, b, &scr, 192 * KIB, 1, &err) == CZ_OK && scr);
    CHECK(cz_resident_count(s, a) == 0 && cz_resident_lookup(s, a, k1, sizeof k1, NULL, NULL, NULL, NULL, &err) == NULL);
    cz_resident_free(s, scr);
    CHECK(used() == 0);
    /* a lane may evict its own busy block (it looks up again afterwards) */
    CHECK(cz_resident_pin(s, a, k1, sizeof k1, 0, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_lookup(s, a, k1, sizeof k1, NULL, NULL, NULL, NULL, &err) != NULL);
    CHECK(cz_resident_alloc(s, a, &scr, 192 * KIB, 1, &err) == CZ_OK);
    CHECK(cz_resident_count(s, a) == 0);
    cz_resident_free(s, scr);
    cz_resident_idle(s, a);
    /* least recently used first */
    static uint8_t x[3][64 * KIB];
    for (int i = 0; i < 3; i++) CHECK(cz_resident_pin(s, i == 1 ? b : a, x[i], sizeof x[i], 0, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_lookup(s, a, x[0], 16, NULL, NULL, NULL, NULL, &err) != NULL); /* x[0] now newest */
    cz_resident_idle(s, a);
    CHECK(cz_resident_alloc(s, a, &scr, 128 * KIB, 1, &err) == CZ_OK); /* 64 free: one block must go: x[1] */
    CHECK(cz_resident_count(s, b) == 0 && cz_resident_count(s, a) == 2);
    cz_resident_free(s, scr);
    /* more blocks than entries: the least recently used entry goes */
    dev0.cap = 1024 * KIB;
    static uint8_t tiny[CZ_RESIDENT_BLOCKS + 1][64];
    for (int i = 0; i < CZ_RESIDENT_BLOCKS + 1; i++)
        CHECK(cz_resident_pin(s, b, tiny[i], 64, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_blocks(s) == CZ_RESIDENT_BLOCKS);
    CHECK(cz_resident_lookup(s, b, tiny[CZ_RESIDENT_BLOCKS], 64, do_copy, &c, NULL, NULL, &err) != NULL);
    cz_resident_idle(s, b);
    cz_resident_close(s, a);
    cz_resident_close(s, b);
    CHECK(used() == 0);
}

static void test_tables(void)
{
    dev0.cap = 1024 * KIB;
    cz_resident *s;
    int a, b;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_resident_open(&s, 2, &mock_ops, &a, &err) == CZ_OK);
    CHECK(cz_resident_open(&s, 2, &mock_ops, &b, &err) == CZ_OK);
    static uint8_t k[64 * KIB];
    pattern(k, sizeof k, 6);
    copier c = {0, 0, 0};
    CHECK(cz_resident_pin(s, a, k, sizeof k, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, b, k, sizeof k, 1, do_copy, &c, &err) == CZ_OK);
    cz_res_block *ba, *bb;
    cz_res_view v;
    CHECK(cz_resident_lookup(s, a, k, sizeof k, do_copy, &c, &ba, &v, &err) && ba);
    CHECK(cz_resident_lookup(s, b, k, sizeof k, do_copy, &c, &bb, &v, &err) && bb == ba);
    CHECK(c.copies == 1);
    /* claims: the second call's builds */
    CHECK(cz_resident_table_claim(s, a, ba, 2) == 0);
    CHECK(cz_resident_table_claim(s, b, bb, 2) == 1);
    CHECK(cz_resident_table_claim(s, a, ba, 2) == 0); /* b is building */
    void *tab = NULL;
    cz_error_clear(&err);
    CHECK(cz_resident_table_begin(s, b, bb, 512 * KIB, 600 * KIB, &tab, &err) == CZ_ERR_DEVICE_MEMORY);
    CHECK(strstr(err.msg, "kept free") != NULL && tab == NULL);
    cz_resident_table_end(s, b, bb, 0, NULL, 0);
    CHECK(cz_resident_table_claim(s, a, ba, 1) == 0); /* failed: not again */
    CHECK(cz_resident_lookup(s, a, k, sizeof k, NULL, NULL, NULL, &v, &err) && v.tab_failed && !v.tab);
    cz_resident_idle(s, a);
    cz_resident_idle(s, b);
    cz_resident_release(s, a, k);
    cz_resident_release(s, b, k);
    /* a build that works: published at its end only */
    CHECK(cz_resident_pin(s, a, k, sizeof k, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, b, k, sizeof k, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_lookup(s, a, k, sizeof k, do_copy, &c, &ba, NULL, &err) != NULL);
    CHECK(cz_resident_table_claim(s, a, ba, 1) == 1);
    cz_error_clear(&err);
    CHECK(cz_resident_table_begin(s, a, ba, 256 * KIB, 64 * KIB, &tab, &err) == CZ_OK && tab);
    memset(tab, 0x5a, 256 * KIB);
    CHECK(cz_resident_bytes(s) == sizeof k + 256 * KIB);
    CHECK(cz_resident_lookup(s, b, k, sizeof k, do_copy, &c, &bb, &v, &err) && !v.tab && !v.tab_group);
    cz_resident_table_end(s, a, ba, 1, "g1", 9);
    CHECK(cz_resident_lookup(s, b, k, sizeof k, do_copy, &c, &bb, &v, &err) && v.tab == tab);
    CHECK(v.tab_group && strcmp(v.tab_group, "g1") == 0 && v.tab_c == 9 && v.tab_bytes == 256 * KIB);
    CHECK(cz_resident_table_claim(s, b, bb, 1) == 0); /* there is one */
    /* b's table busy: a cannot evict it */
    cz_resident_idle(s, a);
    void *scr = NULL;
    CHECK(cz_resident_alloc(s, a, &scr, 800 * KIB, 1, &err) == CZ_ERR_DEVICE_MEMORY);
    CHECK(cz_resident_lookup(s, b, k, sizeof k, NULL, NULL, NULL, &v, &err) && v.tab == tab);
    /* idle: the table goes first, the block stays, not built again */
    cz_resident_idle(s, b);
    CHECK(cz_resident_alloc(s, a, &scr, 750 * KIB, 1, &err) == CZ_OK);
    CHECK(cz_resident_lookup(s, b, k, sizeof k, NULL, NULL, &bb, &v, &err) && !v.tab && v.tab_failed);
    CHECK(cz_resident_table_claim(s, b, bb, 1) == 0);
    cz_resident_free(s, scr);
    cz_resident_idle(s, b);
    cz_resident_close(s, a);
    cz_resident_close(s, b);
    CHECK(used() == 0);
}

static cz_status fill_pattern(void *fctx, void *dev, cz_error *err)
{
    (void)err;
    const uint32_t *seed = fctx;
    pattern(dev, 4 * KIB, *seed);
    return CZ_OK;
}

static cz_status fill_fail(void *fctx, void *dev, cz_error *err)
{
    (void)fctx;
    (void)dev;
    return cz_error_set(err, CZ_ERR_CUDA, "mock: fill failed");
}

static void test_fill(void)
{
    dev0.cap = 1024 * KIB;
    cz_resident *s;
    int a, b;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_resident_open(&s, 3, &mock_ops, &a, &err) == CZ_OK);
    CHECK(cz_resident_open(&s, 3, &mock_ops, &b, &err) == CZ_OK);
    static uint8_t buf[16 * KIB];
    copier c = {0, 0, 0};
    uint8_t *h = buf, *over = buf + 2 * KIB, *shared = buf + 3 * KIB, *away = buf + 8 * KIB;
    CHECK(cz_resident_pin(s, a, h, 4 * KIB, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, a, over, 4 * KIB, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, a, shared, 4 * KIB, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, b, shared, 4 * KIB, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_pin(s, a, away, 4 * KIB, 1, do_copy, &c, &err) == CZ_OK);
    /* b's own block over exactly h: lane a fills only its own */
    CHECK(cz_resident_blocks(s) == 4);
    uint32_t seed = 77;
    CHECK(cz_resident_fill(s, a, h, 4 * KIB, fill_pattern, &seed, &err) == 1);
    CHECK(cz_resident_count(s, a) == 2); /* h and away; over dropped, shared left to b */
    CHECK(cz_resident_count(s, b) == 1 && cz_resident_blocks(s) == 3);
    uint8_t want[4 * KIB];
    pattern(want, sizeof want, 77);
    const uint8_t *d = cz_resident_lookup(s, a, h, 4 * KIB, NULL, NULL, NULL, NULL, &err); /* not pending */
    CHECK(d && memcmp(d, want, sizeof want) == 0 && c.copies == 0);
    cz_resident_idle(s, a);
    /* a failed fill drops the block */
    cz_error_clear(&err);
    CHECK(cz_resident_fill(s, a, h, 4 * KIB, fill_fail, NULL, &err) == 0 && err.status == CZ_ERR_CUDA);
    CHECK(cz_resident_count(s, a) == 1);
    /* a block another lane also holds over exactly the range: not filled, a's hold dropped */
    CHECK(cz_resident_pin(s, a, shared, 4 * KIB, 1, do_copy, &c, &err) == CZ_OK);
    CHECK(cz_resident_fill(s, a, shared, 4 * KIB, fill_pattern, &seed, &err) == 0);
    CHECK(cz_resident_lookup(s, a, shared, 4 * KIB, do_copy, &c, NULL, NULL, &err) == NULL);
    CHECK(cz_resident_count(s, b) == 1 && cz_resident_count(s, a) == 1);
    cz_resident_close(s, a);
    cz_resident_close(s, b);
    CHECK(used() == 0);
}

/* ---- lanes on threads ---------------------------------------------------- */

#define NKEYS 3
#define KEYB (24 * KIB)
#define WB (8 * KIB)
#define NLANES 4

static uint8_t keys[NKEYS][KEYB];

typedef struct lane_arg {
    int id;
    long iters;
    uint64_t seed;
    long lookups, tables_seen, builds, fills, bad;
} lane_arg;

static cz_status fill_from(void *fctx, void *dev, cz_error *err)
{
    (void)err;
    memcpy(dev, fctx, WB);
    return CZ_OK;
}

static void *lane_main(void *p)
{
    lane_arg *la = p;
    cz_rng rng;
    cz_rng_seed(&rng, la->seed);
    cz_resident *s;
    int lane;
    cz_error err;
    cz_error_clear(&err);
    if (cz_resident_open(&s, 11, &mock_ops, &lane, &err) != CZ_OK) {
        la->bad++;
        return NULL;
    }
    copier c = {0, 1, 0};
    uint8_t *w = malloc(WB), *result = malloc(WB);
    for (long it = 0; it < la->iters; it++) {
        const unsigned op = (unsigned)(cz_rng_u64(&rng) % 8);
        const int k = (int)(cz_rng_u64(&rng) % NKEYS);
        cz_error_clear(&err);
        if (op == 0) { /* place a key */
            (void)cz_resident_pin(s, lane, keys[k], KEYB, (int)(cz_rng_u64(&rng) & 1), do_copy, &c, &err);
        } else if (op == 1) {
            cz_resident_release(s, lane, keys[k]);
        } else if (op <= 4) { /* a call: grow scratch (may evict idle blocks and tables, never
                                * another lane's busy ones), look up a key or a piece of one,
                                * maybe build its table */
            if (cz_rng_u64(&rng) % 3 == 0) {
                void *scr;
                if (cz_resident_alloc(s, lane, &scr, 40 * KIB, 1, &err) == CZ_OK) cz_resident_free(s, scr);
            }
            const size_t off = (size_t)(cz_rng_u64(&rng) % (KEYB / 2)), len = KEYB / 4;
            cz_res_block *blk;
            cz_res_view v;
            const uint8_t *d = cz_resident_lookup(s, lane, keys[k] + off, len, do_copy, &c, &blk, &v, &err);
            if (d) {
                la->lookups++;
                if (memcmp(d, keys[k] + off, len) != 0) la->bad++;
                if (v.tab) { /* a published table: all of it as built */
                    la->tables_seen++;
                    const uint8_t *t = v.tab;
                    for (size_t i = 0; i < v.tab_bytes; i += 97)
                        if (t[i] != (uint8_t)(k + 1)) la->bad++;
                }
                if (cz_resident_table_claim(s, lane, blk, 2)) {
                    void *tab;
                    cz_error terr;
                    cz_error_clear(&terr);
                    const cz_status st = cz_resident_table_begin(s, lane, blk, 2 * KEYB, 8 * KIB, &tab, &terr);
                    if (st == CZ_OK) {
                        memset(tab, k + 1, 2 * KEYB);
                        sched_yield();
                        la->builds++;
                    }
                    cz_resident_table_end(s, lane, blk, st == CZ_OK, "mock", 5);
                }
                sched_yield();
                if (memcmp(d, keys[k] + off, len) != 0) la->bad++; /* still there while busy */
                if (v.tab) {
                    const uint8_t *t = v.tab;
                    for (size_t i = 0; i < v.tab_bytes; i += 89)
                        if (t[i] != (uint8_t)(k + 1)) la->bad++;
                }
            }
            cz_resident_idle(s, lane);
        } else if (op <= 6) { /* a proof's witness and result: pin later, flush, fill, look up, release */
            const uint32_t tag = (uint32_t)cz_rng_u64(&rng);
            pattern(w, WB, tag);
            if (cz_resident_pin(s, lane, w, WB, 1, do_copy, &c, &err) == CZ_OK) {
                if (op == 5) {
                    (void)cz_resident_flush(s, lane, do_copy, &c, &err);
                    const uint8_t *d = cz_resident_lookup(s, lane, w, WB, do_copy, &c, NULL, NULL, &err);
                    if (d && memcmp(d, w, WB) != 0) la->bad++;
                } else {
                    pattern(result, WB, tag ^ 0xabcdu);
                    if (cz_resident_fill(s, lane, w, WB, fill_from, result, &err)) {
                        la->fills++;
                        const uint8_t *d = cz_resident_lookup(s, lane, w, WB, do_copy, &c, NULL, NULL, &err);
                        if (d && memcmp(d, result, WB) != 0) la->bad++;
                    }
                }
                cz_resident_idle(s, lane);
                cz_resident_release(s, lane, w);
            }
        } else {
            cz_resident_idle(s, lane);
        }
    }
    cz_resident_close(s, lane);
    free(w);
    free(result);
    return NULL;
}

static void test_lanes(cz_rng *rng)
{
    dev0.cap = 160 * KIB; /* 3 keys of 24 KiB, their tables of 48, witnesses and scratch: not all at once */
    for (int k = 0; k < NKEYS; k++) pattern(keys[k], KEYB, 100 + (uint32_t)k);
    pthread_t th[NLANES];
    lane_arg la[NLANES];
    const long iters = cz_test_iters(20000);
    for (int i = 0; i < NLANES; i++) {
        memset(&la[i], 0, sizeof la[i]);
        la[i].id = i;
        la[i].iters = iters;
        la[i].seed = cz_rng_u64(rng);
        pthread_create(&th[i], NULL, lane_main, &la[i]);
    }
    long lookups = 0, tables = 0, builds = 0, fills = 0, bad = 0;
    for (int i = 0; i < NLANES; i++) {
        pthread_join(th[i], NULL);
        lookups += la[i].lookups;
        tables += la[i].tables_seen;
        builds += la[i].builds;
        fills += la[i].fills;
        bad += la[i].bad;
    }
    printf("lanes: %d x %ld steps: %ld lookups, %ld of them with a table, %ld builds, %ld fills, %ld bad\n", NLANES,
           iters, lookups, tables, builds, fills, bad);
    CHECK(bad == 0);
    CHECK(lookups > 0 && builds > 0 && fills > 0);
    CHECK(used() == 0 && dev0.allocs == dev0.frees); /* every lane closed: nothing held */
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_resident");
    test_holders();
    test_eviction();
    test_tables();
    test_fill();
    test_lanes(&rng);
    return cz_test_finish("test_resident");
}
