/*
 * sched tests: the device scheduling rules of engine/sched.h on hand-made
 * queues (priority before placement, placement before age, deferring to an
 * idle device that holds the key but not to a busy one, nothing to take),
 * then random queues against an oracle that sorts the candidates and walks
 * the rules in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sched.h"
#include "test_util.h"

#define BIT(d) ((uint32_t)1 << (d))

static void test_hand(void)
{
    CHECK(cz_sched_pick(NULL, 0, 0, 0) == -1);
    cz_sched_item q[4];
    memset(q, 0, sizeof q);
    CHECK(cz_sched_pick(q, 0, 0, 0) == -1);
    CHECK(cz_sched_pick(q, 1, -1, 0) == -1);
    CHECK(cz_sched_pick(q, 1, CZ_SCHED_MAX_DEVICES, 0) == -1);

    /* one device, no residency: the oldest of the top priority */
    q[0] = (cz_sched_item){0, 5, 0};
    q[1] = (cz_sched_item){0, 3, 0};
    q[2] = (cz_sched_item){1, 9, 0};
    CHECK(cz_sched_pick(q, 2, 0, 0) == 1);
    CHECK(cz_sched_pick(q, 3, 0, 0) == 2); /* priority beats age */

    /* placement beats age within a priority, never priority */
    q[0] = (cz_sched_item){0, 1, BIT(1)};
    q[1] = (cz_sched_item){0, 2, BIT(0)};
    q[2] = (cz_sched_item){0, 3, BIT(0)};
    CHECK(cz_sched_pick(q, 3, 0, 0) == 1);
    CHECK(cz_sched_pick(q, 3, 1, 0) == 0);
    q[3] = (cz_sched_item){2, 4, BIT(1)};
    CHECK(cz_sched_pick(q, 4, 0, 0) == 3); /* the urgent one, though its key is on device 1 */

    /* device 0 holds nothing: it leaves item 0 to idle device 1 (which
     * holds its key), takes the oldest no idle device holds */
    q[0] = (cz_sched_item){0, 1, BIT(1)};
    q[1] = (cz_sched_item){0, 2, BIT(1)};
    q[2] = (cz_sched_item){0, 3, 0};
    CHECK(cz_sched_pick(q, 3, 0, BIT(1)) == 2);
    /* device 1 busy: device 0 takes the oldest (and will upload its key) */
    CHECK(cz_sched_pick(q, 3, 0, 0) == 0);
    CHECK(cz_sched_pick(q, 3, 0, BIT(0)) == 0); /* its own idle bit is ignored */
    /* every candidate belongs to idle device 1: nothing for device 0 */
    CHECK(cz_sched_pick(q, 2, 0, BIT(1)) == -1);
    /* ... and device 1 takes the oldest of them */
    CHECK(cz_sched_pick(q, 2, 1, BIT(0)) == 0);
    /* a key resident on two devices: the idle holder other than me defers me */
    q[0] = (cz_sched_item){0, 1, BIT(1) | BIT(2)};
    CHECK(cz_sched_pick(q, 1, 0, BIT(2)) == -1);
    CHECK(cz_sched_pick(q, 1, 0, BIT(3)) == 0);
    CHECK(cz_sched_pick(q, 1, 2, BIT(1)) == 0);
    /* device 31 (the last bit) */
    q[0] = (cz_sched_item){0, 7, BIT(31)};
    q[1] = (cz_sched_item){0, 6, 0};
    CHECK(cz_sched_pick(q, 2, 31, 0) == 0);
    CHECK(cz_sched_pick(q, 2, 30, BIT(31)) == 1);
}

/* the oracle: candidates sorted by age, the rules walked one by one */
static const cz_sched_item *g_items;
static int by_age(const void *a, const void *b)
{
    uint64_t x = g_items[*(const int *)a].seq, y = g_items[*(const int *)b].seq;
    return x < y ? -1 : x > y;
}

static int oracle(const cz_sched_item *q, int n, int dev, uint32_t idle)
{
    if (n == 0) return -1;
    int top = q[0].priority;
    for (int i = 0; i < n; i++) top = q[i].priority > top ? q[i].priority : top;
    int idx[64], m = 0;
    for (int i = 0; i < n; i++)
        if (q[i].priority == top) idx[m++] = i;
    g_items = q;
    qsort(idx, (size_t)m, sizeof idx[0], by_age);
    for (int i = 0; i < m; i++)
        if (q[idx[i]].resident & BIT(dev)) return idx[i];
    for (int i = 0; i < m; i++) {
        int held_by_idle_other = 0;
        for (int d = 0; d < CZ_SCHED_MAX_DEVICES; d++)
            if (d != dev && (idle & BIT(d)) && (q[idx[i]].resident & BIT(d))) held_by_idle_other = 1;
        if (!held_by_idle_other) return idx[i];
    }
    return -1;
}

static void test_random(cz_rng *rng)
{
    long iters = cz_test_iters(20000), agree = 0;
    for (long t = 0; t < iters; t++) {
        int n = (int)(cz_rng_u64(rng) % 12) + 1, ndev = (int)(cz_rng_u64(rng) % 4) + 1;
        if (t % 97 == 0) ndev = CZ_SCHED_MAX_DEVICES;
        cz_sched_item q[12];
        /* distinct ages in random order, few priorities, random placement
         * on ndev devices */
        uint64_t perm[12];
        for (int i = 0; i < n; i++) perm[i] = (uint64_t)i * 10 + cz_rng_u64(rng) % 10;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(cz_rng_u64(rng) % (uint64_t)(i + 1));
            uint64_t x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        for (int i = 0; i < n; i++) {
            q[i].priority = (int)(cz_rng_u64(rng) % 3) - 1;
            q[i].seq = perm[i];
            q[i].resident = (uint32_t)cz_rng_u64(rng) & (ndev == 32 ? 0xffffffffu : (BIT(ndev) - 1));
        }
        int dev = (int)(cz_rng_u64(rng) % (uint64_t)ndev);
        uint32_t idle = (uint32_t)cz_rng_u64(rng) & (ndev == 32 ? 0xffffffffu : (BIT(ndev) - 1));
        int got = cz_sched_pick(q, (size_t)n, dev, idle), want = oracle(q, n, dev, idle);
        CHECK_MSG(got == want, "n %d dev %d idle %#x: got %d, want %d", n, dev, idle, got, want);
        agree += got == want;
        /* whatever is picked has the top priority */
        if (got >= 0) {
            int top = q[0].priority;
            for (int i = 0; i < n; i++) top = q[i].priority > top ? q[i].priority : top;
            CHECK(q[got].priority == top);
        }
    }
    printf("random queues: %ld/%ld agree with the oracle\n", agree, iters);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_sched");
    test_hand();
    test_random(&rng);
    return cz_test_finish("test_sched");
}
