/*
 * mem/resident: device copies of host memory blocks (a proving key's point
 * sections, a witness, the H step's result), and the tables built from
 * them, shared by the lanes of one device.
 *
 * DESIGN: a GPU listed k times in the engine's device list (`cuda:0,0`) is k
 * lanes: k contexts, each with its own streams and scratch, running k proofs'
 * device steps at once (bench/RESULTS.md: +24% proofs per minute at 2^22 on
 * the H200). Their proofs read the same key, so the key's device copy and
 * its tables of multiples are kept once per device, not once per lane: each
 * device has one store (a process-wide registry keyed by the device index),
 * and every context on that device is a lane of it.
 *
 * What a lane sees is what it pinned: a block is held by a set of lanes (a
 * bitmask); a lane looks up only blocks it holds; a pin of memory another
 * lane already keeps (same host pointer and length) joins that block instead
 * of copying it again; a release drops the lane's hold, and the block goes
 * when no lane holds it. So lanes behave as separate contexts did, with one
 * copy where their pins coincide.
 *
 * Lifetimes across lanes:
 *   - busy: a lookup marks the block busy for the lane until the lane's call
 *     ends (cz_resident_idle). Another lane never evicts a block (or its
 *     table) that is busy for someone else; a lane may evict its own busy
 *     blocks to make room for its scratch (as one context did; the caller
 *     looks up again after growing its scratch).
 *   - pending: pinned "later", the device memory taken now and the copy made
 *     at the first lookup or flush. One lane copies (outside the lock); a
 *     lane that needs the block meanwhile waits for that copy.
 *   - tables: built by one lane at a time (claim, begin, end); the others
 *     see the table only once it is published, and until then run without.
 * Eviction (to make room for scratch or a new block): least recently used
 * first, tables before blocks; never what is being copied or built, never
 * what another lane has busy.
 *
 * Device memory comes from the store's operations (cz_resident_dev:
 * cudaMalloc / cudaFree in cuda/device.cu, plain memory in the tests);
 * copies come from per-call callbacks (each lane copies on its own stream).
 * The store's lock is never held while a copy runs. All functions are
 * thread-safe; a lane's own calls come from one thread at a time.
 */
#ifndef CZ_MEM_RESIDENT_H
#define CZ_MEM_RESIDENT_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_RESIDENT_LANES 32  /* lanes of one store at most */
#define CZ_RESIDENT_BLOCKS 64 /* blocks of one store at most */

typedef struct cz_resident cz_resident;
typedef struct cz_res_block cz_res_block; /* a block: a handle valid while busy for the lane */

/* How the store gets device memory. alloc: CZ_OK with *p set, or a status
 * with err filled (CZ_ERR_DEVICE_MEMORY when the device is out of memory:
 * the store then evicts and retries); free: gives p back; free_bytes: the
 * device's free memory now (0 when unknown). ctx is the first opener's. */
typedef struct cz_resident_dev {
    void *ctx;
    cz_status (*alloc)(void *ctx, void **p, size_t bytes, cz_error *err);
    void (*free)(void *ctx, void *p);
    size_t (*free_bytes)(void *ctx);
} cz_resident_dev;

/* host[0 .. bytes) -> dev, complete when it returns (a lane's upload). */
typedef cz_status (*cz_resident_copy_fn)(void *ctx, void *dev, const void *host, size_t bytes, cz_error *err);

/* What a lookup found (a snapshot taken under the lock). */
typedef struct cz_res_view {
    const void *host;      /* the block's host range */
    size_t bytes;
    const void *dev;       /* its device copy */
    const void *tab;       /* its published table, or NULL */
    size_t tab_bytes;
    const char *tab_group; /* the group the table was built for (a static name), or NULL */
    int tab_c;             /* the table's window */
    int tab_failed;        /* a build failed or its room was needed: not built again */
} cz_res_view;

/* Attaches a lane to the store of device `key` (created on the first open,
 * with *dev's operations). *lane: the lane's number, for every call below.
 * CZ_ERR_UNSUPPORTED when the store already has CZ_RESIDENT_LANES lanes. */
cz_status cz_resident_open(cz_resident **out, int key, const cz_resident_dev *dev, int *lane, cz_error *err);
/* Detaches the lane: its holds are dropped (blocks no other lane holds are
 * freed); the last lane frees the store. */
void cz_resident_close(cz_resident *s, int lane);

/* Keeps a device copy of host[0 .. bytes) for the lane. A block the lane
 * holds that covers the range: touched (and, unless later, copied now if
 * still pending). Else a block of another lane over exactly this range is
 * joined; else device memory is taken (never evicting other blocks: a block
 * that does not fit is refused with CZ_ERR_DEVICE_MEMORY) and, unless later,
 * the copy made now through copy(cctx, ...). A failed copy drops the block.
 * host[0 .. bytes) must not change while kept (but through cz_resident_fill). */
cz_status cz_resident_pin(cz_resident *s, int lane, const void *host, size_t bytes, int later,
                          cz_resident_copy_fn copy, void *cctx, cz_error *err);
/* Drops the lane's hold of the blocks that start at host (no-op if none). */
void cz_resident_release(cz_resident *s, int lane, const void *host);

/* The device address of host[0 .. bytes) in a block the lane holds, or NULL.
 * A pending block is copied first (or, when another lane is copying it, the
 * copy is waited for); if that copy fails the block is dropped, NULL is
 * returned and err says why. Marks the block busy for the lane; *blk (may be
 * NULL) gets its handle and *view (may be NULL) its snapshot. */
const void *cz_resident_lookup(cz_resident *s, int lane, const void *host, size_t bytes,
                               cz_resident_copy_fn copy, void *cctx, cz_res_block **blk, cz_res_view *view,
                               cz_error *err);
/* The lane's call is over: none of its blocks is busy any more. */
void cz_resident_idle(cz_resident *s, int lane);

/* Copies every pending block the lane holds (except those another lane is
 * copying); a failed copy drops its block. Returns the number of failures;
 * the first one's detail in err. */
int cz_resident_flush(cz_resident *s, int lane, cz_resident_copy_fn copy, void *cctx, cz_error *err);

/* host[0 .. bytes) is about to receive what the device holds (a result on
 * its way down): the lane's block over exactly that range, when no other
 * lane holds it, loses its table and gets its content through
 * fill(fctx, block_dev) (e.g. a device-to-device copy queued on the lane's
 * stream) and is no longer pending; returns 1 then. The lane's other blocks
 * overlapping the range are dropped (stale), and so is its hold of such a
 * block shared with other lanes. A failed fill drops the block (err set). */
int cz_resident_fill(cz_resident *s, int lane, const void *host, size_t bytes,
                     cz_status (*fill)(void *fctx, void *block_dev, cz_error *err), void *fctx, cz_error *err);

/* Device memory outside the blocks (a lane's scratch): taken through the
 * store's alloc; when the device is out of memory and may_evict, tables
 * and then blocks are evicted (above) until it fits or nothing is left. */
cz_status cz_resident_alloc(cz_resident *s, int lane, void **p, size_t bytes, int may_evict, cz_error *err);
void cz_resident_free(cz_resident *s, void *p);

/* Tables of multiples of a block (the lane looked it up: blk is busy).
 * claim counts one call that would have used a table and returns 1 when
 * this lane should build it now: `need` calls counted, no table yet, none
 * failed, nobody building (the block is then marked as being built).
 * begin: device memory for it (the block's old table freed), refused with
 * CZ_ERR_DEVICE_MEMORY unless at least `headroom` bytes stay free after it
 * (blocks are never evicted for a table). end: publishes it (ok; group and
 * c recorded) or frees it and marks the block failed (no further claims). */
int cz_resident_table_claim(cz_resident *s, int lane, cz_res_block *blk, unsigned need);
cz_status cz_resident_table_begin(cz_resident *s, int lane, cz_res_block *blk, size_t bytes, size_t headroom,
                                  void **tab, cz_error *err);
void cz_resident_table_end(cz_resident *s, int lane, cz_res_block *blk, int ok, const char *group, int c);

/* Bytes of device memory held by the store's blocks and tables (all lanes). */
size_t cz_resident_bytes(cz_resident *s);
/* The number of blocks the lane holds, and of blocks in the store. */
int cz_resident_count(cz_resident *s, int lane);
int cz_resident_blocks(cz_resident *s);

#ifdef __cplusplus
}
#endif

#endif
