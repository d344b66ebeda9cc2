/*
 * mem/resident: the store of device copies shared by the lanes of one
 * device (see resident.h).
 */
#include "mem/resident.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct cz_res_block {
    const void *host;
    size_t bytes;
    void *dev; /* NULL: the entry is free */
    void *tab;
    size_t tab_bytes;
    const char *tab_group; /* set when the table is published */
    int tab_c;
    unsigned tab_wants;
    int tab_failed;
    uint32_t holders;  /* lanes that keep it */
    uint32_t busy;     /* lanes in a call that looked it up */
    uint64_t last_use; /* store tick at the last use */
    uint64_t gen;      /* bumped whenever the entry is taken or freed */
    int pending;       /* device memory taken, copy not made yet */
    int copying;       /* a lane is copying it (outside the lock) */
    int building;      /* a lane is building its table */
};

struct cz_resident {
    int key;
    uint32_t lanes; /* bit l: lane l is open */
    cz_resident_dev dev;
    pthread_mutex_t lock;
    pthread_cond_t cv; /* a copy finished */
    cz_res_block b[CZ_RESIDENT_BLOCKS];
    size_t bytes; /* blocks and tables */
    uint64_t tick;
    cz_resident *next; /* the registry's list */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static cz_resident *registry;

#define BIT(lane) ((uint32_t)1 << (lane))

cz_status cz_resident_open(cz_resident **out, int key, const cz_resident_dev *dev, int *lane, cz_error *err)
{
    *out = NULL;
    *lane = -1;
    if (!dev || !dev->alloc || !dev->free)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_resident_open: no device memory operations");
    pthread_mutex_lock(&registry_lock);
    cz_resident *s = registry;
    while (s && s->key != key) s = s->next;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) {
            pthread_mutex_unlock(&registry_lock);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of host memory");
        }
        s->key = key;
        s->dev = *dev;
        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->cv, NULL);
        s->next = registry;
        registry = s;
    }
    pthread_mutex_lock(&s->lock);
    int l = 0;
    while (l < CZ_RESIDENT_LANES && (s->lanes & BIT(l))) l++;
    if (l < CZ_RESIDENT_LANES) s->lanes |= BIT(l);
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_unlock(&registry_lock);
    if (l == CZ_RESIDENT_LANES)
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "device %d: more than %d contexts at once", key,
                            CZ_RESIDENT_LANES);
    *out = s;
    *lane = l;
    return CZ_OK;
}

/* lock held */
static void table_free(cz_resident *s, cz_res_block *r)
{
    if (!r->tab) return;
    s->dev.free(s->dev.ctx, r->tab);
    s->bytes -= r->tab_bytes;
    r->tab = NULL;
    r->tab_bytes = 0;
    r->tab_group = NULL;
    r->tab_c = 0;
}

/* lock held; r must not be copying or building */
static void drop_block(cz_resident *s, cz_res_block *r)
{
    table_free(s, r);
    s->dev.free(s->dev.ctx, r->dev);
    s->bytes -= r->bytes;
    uint64_t gen = r->gen + 1;
    memset(r, 0, sizeof *r);
    r->gen = gen;
}

void cz_resident_close(cz_resident *s, int lane)
{
    if (!s || lane < 0 || lane >= CZ_RESIDENT_LANES) return;
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) {
        cz_res_block *r = &s->b[i];
        if (!r->dev || !(r->holders & BIT(lane))) continue;
        r->holders &= ~BIT(lane);
        r->busy &= ~BIT(lane);
        if (!r->holders) drop_block(s, r); /* nobody copies or builds what nobody holds */
    }
    s->lanes &= ~BIT(lane);
    const int last = s->lanes == 0;
    pthread_mutex_unlock(&s->lock);
    if (last) {
        cz_resident **p = &registry;
        while (*p != s) p = &(*p)->next;
        *p = s->next;
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->cv);
        free(s);
    }
    pthread_mutex_unlock(&registry_lock);
}

/* lock held: the lane's block covering host[0, bytes), or NULL */
static cz_res_block *find(cz_resident *s, int lane, const void *host, size_t bytes)
{
    const char *h = (const char *)host;
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) {
        cz_res_block *r = &s->b[i];
        if (!r->dev || !(r->holders & BIT(lane))) continue;
        const char *b = (const char *)r->host;
        if (h >= b && h + bytes <= b + r->bytes) return r;
    }
    return NULL;
}

/*
 * Lock held. Makes r's copy (unless done): marks it copying, copies without
 * the lock, publishes; waits when another lane is copying it. Returns 1
 * when r holds its copy, 0 when the block is gone (a failed copy dropped
 * it: err says why).
 */
static int ensure_copied(cz_resident *s, cz_res_block *r, cz_resident_copy_fn copy, void *cctx, cz_error *err)
{
    const uint64_t gen = r->gen;
    while (r->gen == gen && r->dev && r->pending) {
        if (r->copying) {
            pthread_cond_wait(&s->cv, &s->lock);
            continue;
        }
        if (!copy) {
            cz_error_set(err, CZ_ERR_INTERNAL, "cz_resident: a pending block and no copy function");
            return 0;
        }
        r->copying = 1;
        pthread_mutex_unlock(&s->lock);
        cz_error cerr;
        cz_error_clear(&cerr);
        const cz_status st = copy(cctx, r->dev, r->host, r->bytes, &cerr);
        pthread_mutex_lock(&s->lock);
        r->copying = 0;
        pthread_cond_broadcast(&s->cv);
        if (st == CZ_OK) {
            r->pending = 0;
            return 1;
        }
        cz_error_set(err, st, "%s", cz_error_msg(&cerr));
        drop_block(s, r);
        return 0;
    }
    if (r->gen == gen && r->dev) return 1;
    cz_error_set(err, CZ_ERR_CUDA, "cz_resident: a block's copy failed in another context");
    return 0;
}

/* lock held: an entry may be taken from lane `lane`'s side (others' busy
 * blocks, and what is being copied or built, stay) */
static int evictable(const cz_res_block *r, int lane)
{
    return r->dev && !r->copying && !r->building && !(r->busy & ~BIT(lane));
}

/* Lock held. Frees the least recently used table if `tables` (its block
 * then builds none again), else (or when there is none) the least recently
 * used block; 0 when nothing could go. */
static int evict_one(cz_resident *s, int lane, int tables)
{
    for (; tables >= 0; tables--) {
        cz_res_block *v = NULL;
        for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) {
            cz_res_block *r = &s->b[i];
            if (evictable(r, lane) && (!tables || r->tab) && (!v || r->last_use < v->last_use)) v = r;
        }
        if (!v) continue;
        if (tables) {
            table_free(s, v);
            v->tab_failed = 1;
        } else {
            drop_block(s, v);
        }
        return 1;
    }
    return 0;
}

/* lock held */
static cz_status dev_alloc(cz_resident *s, int lane, void **p, size_t bytes, int may_evict, cz_error *err)
{
    for (;;) {
        cz_error aerr;
        cz_error_clear(&aerr);
        *p = NULL;
        const cz_status st = s->dev.alloc(s->dev.ctx, p, bytes, &aerr);
        if (st == CZ_OK) return CZ_OK;
        if (st != CZ_ERR_DEVICE_MEMORY || !may_evict || !evict_one(s, lane, 1))
            return cz_error_set(err, st, "%s", cz_error_msg(&aerr));
    }
}

cz_status cz_resident_pin(cz_resident *s, int lane, const void *host, size_t bytes, int later,
                          cz_resident_copy_fn copy, void *cctx, cz_error *err)
{
    if (!host || !bytes) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_resident_pin: empty block");
    pthread_mutex_lock(&s->lock);
    cz_res_block *r = find(s, lane, host, bytes);
    if (!r) { /* another lane's copy of exactly this memory: joined */
        for (int i = 0; i < CZ_RESIDENT_BLOCKS && !r; i++)
            if (s->b[i].dev && s->b[i].host == host && s->b[i].bytes == bytes) r = &s->b[i];
        if (r) r->holders |= BIT(lane);
    }
    if (!r) {
        for (int i = 0; i < CZ_RESIDENT_BLOCKS && !r; i++)
            if (!s->b[i].dev) r = &s->b[i];
        if (!r && evict_one(s, lane, 0)) /* an entry, not memory */
            for (int i = 0; i < CZ_RESIDENT_BLOCKS && !r; i++)
                if (!s->b[i].dev) r = &s->b[i];
        if (!r) {
            pthread_mutex_unlock(&s->lock);
            return cz_error_set(err, CZ_ERR_DEVICE_MEMORY, "device %d: %d resident blocks in use", s->key,
                                CZ_RESIDENT_BLOCKS);
        }
        /* room for the working sets: blocks never evict each other here (a
         * block that does not fit is streamed) */
        void *d = NULL;
        cz_error aerr;
        cz_error_clear(&aerr);
        if (dev_alloc(s, lane, &d, bytes, 0, &aerr) != CZ_OK) {
            const size_t held = s->bytes;
            pthread_mutex_unlock(&s->lock);
            return cz_error_set(err, CZ_ERR_DEVICE_MEMORY,
                                "device %d: %zu MiB do not fit in device memory (%zu MiB resident: %s); they will be "
                                "streamed",
                                s->key, bytes >> 20, held >> 20, cz_error_msg(&aerr));
        }
        const uint64_t gen = r->gen + 1;
        memset(r, 0, sizeof *r);
        r->gen = gen;
        r->host = host;
        r->bytes = bytes;
        r->dev = d;
        r->pending = 1;
        r->holders = BIT(lane);
        s->bytes += bytes;
    }
    r->last_use = ++s->tick;
    cz_status st = CZ_OK;
    if (!later && !ensure_copied(s, r, copy, cctx, err)) st = err && err->status != CZ_OK ? err->status : CZ_ERR_CUDA;
    pthread_mutex_unlock(&s->lock);
    return st;
}

void cz_resident_release(cz_resident *s, int lane, const void *host)
{
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) {
        cz_res_block *r = &s->b[i];
        if (!r->dev || r->host != host || !(r->holders & BIT(lane))) continue;
        r->holders &= ~BIT(lane);
        r->busy &= ~BIT(lane);
        if (!r->holders) drop_block(s, r);
    }
    pthread_mutex_unlock(&s->lock);
}

const void *cz_resident_lookup(cz_resident *s, int lane, const void *host, size_t bytes,
                               cz_resident_copy_fn copy, void *cctx, cz_res_block **blk, cz_res_view *view,
                               cz_error *err)
{
    if (blk) *blk = NULL;
    if (view) memset(view, 0, sizeof *view);
    pthread_mutex_lock(&s->lock);
    cz_res_block *r = find(s, lane, host, bytes);
    if (!r || !ensure_copied(s, r, copy, cctx, err)) {
        pthread_mutex_unlock(&s->lock);
        return NULL;
    }
    r->busy |= BIT(lane);
    r->last_use = ++s->tick;
    const void *d = (const char *)r->dev + ((const char *)host - (const char *)r->host);
    if (blk) *blk = r;
    if (view) {
        view->host = r->host;
        view->bytes = r->bytes;
        view->dev = r->dev;
        if (r->tab_group) {
            view->tab = r->tab;
            view->tab_bytes = r->tab_bytes;
            view->tab_group = r->tab_group;
            view->tab_c = r->tab_c;
        }
        view->tab_failed = r->tab_failed;
    }
    pthread_mutex_unlock(&s->lock);
    return d;
}

void cz_resident_idle(cz_resident *s, int lane)
{
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) s->b[i].busy &= ~BIT(lane);
    pthread_mutex_unlock(&s->lock);
}

int cz_resident_flush(cz_resident *s, int lane, cz_resident_copy_fn copy, void *cctx, cz_error *err)
{
    int failed = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) {
        cz_res_block *r = &s->b[i];
        if (r->dev && (r->holders & BIT(lane)) && r->pending && !r->copying && !ensure_copied(s, r, copy, cctx, err))
            failed++;
    }
    pthread_mutex_unlock(&s->lock);
    return failed;
}

int cz_resident_fill(cz_resident *s, int lane, const void *host, size_t bytes,
                     cz_status (*fill)(void *fctx, void *block_dev, cz_error *err), void *fctx, cz_error *err)
{
    const char *h = (const char *)host;
    int filled = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) {
        cz_res_block *r = &s->b[i];
        if (!r->dev || !(r->holders & BIT(lane))) continue;
        const char *b = (const char *)r->host;
        if (!(b < h + bytes && h < b + r->bytes)) continue;
        const int mine = r->holders == BIT(lane) && !(r->busy & ~BIT(lane)) && !r->copying && !r->building;
        if (mine && b == h && r->bytes == bytes && !filled) {
            table_free(s, r); /* multiples of what the block held */
            r->tab_failed = 0;
            r->tab_wants = 0;
            if (fill(fctx, r->dev, err) == CZ_OK) {
                r->pending = 0;
                r->last_use = ++s->tick;
                filled = 1;
            } else {
                drop_block(s, r);
            }
        } else if (mine) {
            drop_block(s, r); /* overlaps memory that is about to change: stale */
        } else {
            r->holders &= ~BIT(lane); /* the others' copy stays theirs */
            r->busy &= ~BIT(lane);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return filled;
}

cz_status cz_resident_alloc(cz_resident *s, int lane, void **p, size_t bytes, int may_evict, cz_error *err)
{
    pthread_mutex_lock(&s->lock);
    const cz_status st = dev_alloc(s, lane, p, bytes, may_evict, err);
    pthread_mutex_unlock(&s->lock);
    return st;
}

void cz_resident_free(cz_resident *s, void *p)
{
    if (p) s->dev.free(s->dev.ctx, p);
}

int cz_resident_table_claim(cz_resident *s, int lane, cz_res_block *blk, unsigned need)
{
    int go = 0;
    pthread_mutex_lock(&s->lock);
    if (blk->dev && (blk->holders & BIT(lane)) && !blk->tab_failed && !blk->tab_group && !blk->building) {
        blk->tab_wants++;
        if (blk->tab_wants >= need) go = blk->building = 1;
    }
    pthread_mutex_unlock(&s->lock);
    return go;
}

cz_status cz_resident_table_begin(cz_resident *s, int lane, cz_res_block *blk, size_t bytes, size_t headroom,
                                  void **tab, cz_error *err)
{
    *tab = NULL;
    pthread_mutex_lock(&s->lock);
    cz_status st = CZ_OK;
    if (!blk->dev || !blk->building) {
        st = cz_error_set(err, CZ_ERR_INTERNAL, "cz_resident_table_begin: the block is not being built");
    } else {
        table_free(s, blk);
        const size_t f = s->dev.free_bytes ? s->dev.free_bytes(s->dev.ctx) : 0;
        if (f < bytes || f - bytes < headroom)
            st = cz_error_set(err, CZ_ERR_DEVICE_MEMORY,
                              "device %d: a table of %zu MiB does not fit (%zu MiB free, %zu MiB kept free)", s->key,
                              bytes >> 20, f >> 20, headroom >> 20);
        else if ((st = dev_alloc(s, lane, tab, bytes, 0, err)) == CZ_OK) {
            blk->tab = *tab;
            blk->tab_bytes = bytes;
            s->bytes += bytes;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

void cz_resident_table_end(cz_resident *s, int lane, cz_res_block *blk, int ok, const char *group, int c)
{
    (void)lane;
    pthread_mutex_lock(&s->lock);
    if (ok && blk->tab) {
        blk->tab_group = group;
        blk->tab_c = c;
    } else {
        table_free(s, blk);
        blk->tab_failed = 1;
    }
    blk->building = 0;
    pthread_mutex_unlock(&s->lock);
}

size_t cz_resident_bytes(cz_resident *s)
{
    pthread_mutex_lock(&s->lock);
    const size_t b = s->bytes;
    pthread_mutex_unlock(&s->lock);
    return b;
}

int cz_resident_count(cz_resident *s, int lane)
{
    int n = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) n += s->b[i].dev && (s->b[i].holders & BIT(lane));
    pthread_mutex_unlock(&s->lock);
    return n;
}

int cz_resident_blocks(cz_resident *s)
{
    int n = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < CZ_RESIDENT_BLOCKS; i++) n += s->b[i].dev != NULL;
    pthread_mutex_unlock(&s->lock);
    return n;
}
