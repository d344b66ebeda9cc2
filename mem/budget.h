/*
 * mem/budget: one byte budget for the whole process.
 *
 * DESIGN: every large consumer (proving keys in host memory, constraint
 * matrices, each job's working set, the buffers of the pinned pool) reserves
 * bytes here before it allocates and releases them, in phases, as it frees.
 * The process therefore never holds more large memory than the budget.
 *
 * When a reservation does not fit, the budget makes room in a fixed order:
 *   1. it asks the reclaimers of stage CZ_RECLAIM_POOL (the pinned pool:
 *      give back idle buffers),
 *   2. then those of stage CZ_RECLAIM_KEYS (evict idle keys and matrices,
 *      least recently used first),
 *   3. then it waits until other reservations are released, up to a
 *      deadline, or until the caller's cancel flag is set.
 * A request larger than the whole budget fails at once with CZ_ERR_BUDGET
 * and a message saying how many bytes it needs and how large the budget is.
 *
 * Reclaimers are called WITHOUT the budget's lock held (they free memory and
 * call cz_budget_release themselves); they must not reserve. All functions
 * are thread-safe.
 *
 * The limit: set explicitly, or detected: the cgroup v2 memory.max of this
 * process's cgroup (when not "max"), else MemAvailable of /proc/meminfo; in
 * both cases minus a safety margin (default: 5% of it, at least 256 MiB, at
 * most 4 GiB) for everything small that is not counted.
 */
#ifndef CZ_MEM_BUDGET_H
#define CZ_MEM_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/error.h"

typedef enum cz_mem_consumer {
    CZ_MEM_KEY = 0,  /* proving keys' point tables in host memory */
    CZ_MEM_MATRIX,   /* constraint matrices (CSR): the A/B coefficients of keys */
    CZ_MEM_WITNESS,  /* witnesses held for partitions between synthesis and finalize */
    CZ_MEM_WORKSET,  /* a, b working sets outside the pool (cz_ab_bytes) */
    CZ_MEM_SCRATCH,  /* backend scratch: CPU MSM buckets, CPU NTT twiddle tables */
    CZ_MEM_POOL,     /* buffers of the pinned pool (mem/bufpool.h) */
    CZ_MEM_CONSUMERS_
} cz_mem_consumer;

const char *cz_mem_consumer_name(cz_mem_consumer c); /* "key", "matrix", "witness", ... */

typedef enum cz_reclaim_stage { CZ_RECLAIM_POOL = 0, CZ_RECLAIM_KEYS = 1, CZ_RECLAIM_STAGES_ } cz_reclaim_stage;

/* Frees what it can, up to at least `need` bytes if possible, releasing the
 * bytes through cz_budget_release; returns the number of bytes it released
 * (0: nothing idle). */
typedef size_t (*cz_reclaim_fn)(void *ctx, size_t need);

typedef struct cz_budget cz_budget;

typedef struct cz_budget_stats {
    size_t limit;                        /* bytes */
    size_t used, peak;                   /* reserved now, highest ever */
    size_t by[CZ_MEM_CONSUMERS_];        /* reserved now, per consumer */
    uint64_t reservations;               /* successful reserves */
    uint64_t waits;                      /* reserves that had to wait */
    uint64_t reclaims[CZ_RECLAIM_STAGES_]; /* reclaimer calls that freed something */
    size_t reclaimed[CZ_RECLAIM_STAGES_];  /* bytes they freed */
    uint64_t refused;                    /* requests larger than the budget */
    uint64_t overreleased;               /* releases/transfers of more than the consumer held (bugs, clamped) */
} cz_budget_stats;

/* Detects the memory available to this process (see DESIGN), before the
 * margin. *source gets "cgroup memory.max" or "MemAvailable" (may be NULL).
 * 0 if neither can be read.
 * Files read: /proc/self/cgroup (the cgroup v2 line "0::<path>"), then
 * /sys/fs/cgroup<path>/memory.max and that of every parent up to the root
 * (the smallest numeric limit wins; "max" is no limit), else the MemAvailable
 * line of /proc/meminfo. root (NULL or "": the real files) is prepended to
 * each of these paths, so a fake tree <root>/proc/self/cgroup,
 * <root>/sys/fs/cgroup/..., <root>/proc/meminfo stands in for the real one
 * (tests). */
size_t cz_budget_detect(const char *root, const char **source);

/* limit 0: detected minus the margin; margin (bytes) applies to detected
 * limits only, 0 = the default. CZ_ERR_UNSUPPORTED when limit is 0 and
 * nothing can be detected, or when the detected memory is not larger than
 * the margin. All reclaimers must have been removed (or must no longer run)
 * before cz_budget_free. */
cz_status cz_budget_create(cz_budget **out, size_t limit, size_t margin, cz_error *err);
/* The same with detection under root (cz_budget_detect). */
cz_status cz_budget_create_at(cz_budget **out, size_t limit, size_t margin, const char *root, cz_error *err);
void cz_budget_free(cz_budget *b);

/* Several reclaimers per stage are allowed (called in registration order);
 * at most 8 per stage (CZ_ERR_RANGE beyond). */
cz_status cz_budget_add_reclaimer(cz_budget *b, cz_reclaim_stage stage, cz_reclaim_fn fn, void *ctx);
/* Removes the reclaimer (fn, ctx) of stage; returns after any call to it in
 * progress on another thread has finished, so ctx may be freed afterwards.
 * Must not be called from inside a reclaimer. No-op if it is not registered. */
void cz_budget_remove_reclaimer(cz_budget *b, cz_reclaim_stage stage, cz_reclaim_fn fn, void *ctx);

/* Reserves bytes for consumer who, making room as DESIGN says.
 * timeout_s < 0: wait without a deadline; 0: reclaim but do not wait.
 * cancel (may be NULL): polled at least every 10 ms while waiting; when it
 * becomes non-zero the call returns CZ_ERR_CANCELLED. While waiting, the
 * reclaimers are asked again at each poll (pool buffers put back become
 * reclaimable without a release waking the waiter). No fairness: a large
 * waiter may be overtaken by smaller reservations.
 * Errors: CZ_ERR_BUDGET (bytes > limit: never fits), CZ_ERR_TIMEOUT,
 * CZ_ERR_CANCELLED, each with a message naming the consumer and sizes.
 * bytes == 0 succeeds at once. */
cz_status cz_budget_reserve(cz_budget *b, cz_mem_consumer who, size_t bytes, double timeout_s,
                            const volatile int *cancel, cz_error *err);
/* Only if it fits now: no reclaim, no wait. 1 reserved, 0 not. */
int cz_budget_try_reserve(cz_budget *b, cz_mem_consumer who, size_t bytes);
/* Gives bytes back (at most what who holds: releasing more is a bug,
 * clamped and counted, never underflows). Wakes waiters. */
void cz_budget_release(cz_budget *b, cz_mem_consumer who, size_t bytes);
/* Moves bytes from one consumer to another without a new reservation (a
 * pool buffer handed over as a job's working set, say). */
void cz_budget_transfer(cz_budget *b, cz_mem_consumer from, cz_mem_consumer to, size_t bytes);

void cz_budget_stats_get(cz_budget *b, cz_budget_stats *out);
size_t cz_budget_limit(const cz_budget *b);
/* Bytes reserved now (all consumers). */
size_t cz_budget_used(cz_budget *b);

/*
 * A budgeted allocator: a cz_allocator (util/alloc.h) whose every
 * allocation is first reserved in the budget for one consumer and released
 * when freed, so loaders that take an allocator (keys, witnesses) are counted
 * as what they really allocate. Memory comes from base (NULL: ordinary
 * aligned heap memory; the pinned allocator of a backend, say).
 *
 * A reservation that does not fit waits (timeout_s, cancel as for
 * cz_budget_reserve) unless what the allocators of its group already hold
 * plus the new piece exceed the whole budget: then nothing anyone else frees
 * can make room, and it fails at once (waiting would hang). The group is the
 * allocator itself, or the one given to cz_budget_alloc_join: a key's point
 * tables (CZ_MEM_KEY) and its matrices (CZ_MEM_MATRIX) are one load and one
 * group. The first refusal is kept in `refusal` (the loader sees only NULL
 * and says "out of memory"; callers report this instead).
 *
 * An allocator object must outlive every block it handed out (blocks are
 * released through it). Thread-safe.
 */
typedef struct cz_budget_alloc {
    cz_allocator a;      /* hand &a to the loader */
    cz_budget *budget;
    cz_mem_consumer who;
    const cz_allocator *base;
    double timeout_s;    /* default -1: wait without a deadline */
    const volatile int *cancel;
    size_t held_own;     /* bytes this allocator holds */
    size_t *held;        /* its group's counter (&held_own, or the joined one's) */
    size_t peak;         /* most its group held at once */
    size_t prepaid;      /* reserved ahead (cz_budget_alloc_prepay), not yet allocated */
    cz_error refusal;    /* the first refusal (status CZ_OK: none) */
} cz_budget_alloc;

void cz_budget_alloc_init(cz_budget_alloc *ba, cz_budget *b, cz_mem_consumer who, const cz_allocator *base);
/* Makes ba count in the group of `group` (initialised already). */
void cz_budget_alloc_join(cz_budget_alloc *ba, cz_budget_alloc *group);
/* Bytes ba's group holds now. */
size_t cz_budget_alloc_held(const cz_budget_alloc *ba);
/* Reserves bytes now (waiting as an allocation would) for allocations to
 * come: they draw on it before reserving anew. The engine takes all of a
 * partition's memory at one point this way, then fills it later. */
cz_status cz_budget_alloc_prepay(cz_budget_alloc *ba, size_t bytes, cz_error *err);
/* Releases what is left of the prepaid bytes. */
void cz_budget_alloc_drop_prepaid(cz_budget_alloc *ba);

#endif
