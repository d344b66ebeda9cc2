/* Device scheduling rules: see engine/sched.h. */
#include "engine/sched.h"

int cz_sched_pick(const cz_sched_item *items, size_t n, int dev, uint32_t idle)
{
    if (!items || n == 0 || dev < 0 || dev >= CZ_SCHED_MAX_DEVICES) return -1;
    const uint32_t me = (uint32_t)1 << dev, others = idle & ~me;
    int top = items[0].priority;
    for (size_t i = 1; i < n; i++)
        if (items[i].priority > top) top = items[i].priority;
    long mine = -1, free_ = -1; /* oldest resident here; oldest no idle other device holds */
    for (size_t i = 0; i < n; i++) {
        const cz_sched_item *it = &items[i];
        if (it->priority != top) continue;
        if (it->resident & me) {
            if (mine < 0 || it->seq < items[mine].seq) mine = (long)i;
        } else if (!(it->resident & others)) {
            if (free_ < 0 || it->seq < items[free_].seq) free_ = (long)i;
        }
    }
    return (int)(mine >= 0 ? mine : free_);
}
