#include "util/thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cz_pool {
    int nthreads;
    int nworkers; /* threads actually started */
    pthread_t *workers;
    pthread_mutex_t run_lock; /* one run at a time */
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    /* current run, guarded by lock */
    cz_task_fn task;
    void *ctx;
    size_t ntasks;
    atomic_size_t next;
    int active;        /* workers still inside the current run */
    unsigned long gen; /* run generation */
    int stop;
};

static _Thread_local int tl_in_task = 0;

int cz_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void run_tasks(cz_pool *p, int thread)
{
    tl_in_task = 1;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->ntasks) break;
        p->task(p->ctx, i, thread);
    }
    tl_in_task = 0;
}

typedef struct {
    cz_pool *pool;
    int thread;
} worker_arg;

static void *worker_main(void *arg)
{
    worker_arg wa = *(worker_arg *)arg;
    free(arg);
    cz_pool *p = wa.pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->gen == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop) break;
        seen = p->gen;
        pthread_mutex_unlock(&p->lock);
        run_tasks(p, wa.thread);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

cz_pool *cz_pool_create(int nthreads)
{
    if (nthreads <= 0) nthreads = cz_cpu_count();
    cz_pool *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    p->nthreads = nthreads;
    pthread_mutex_init(&p->run_lock, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->next, 0);
    if (nthreads > 1) {
        p->workers = calloc((size_t)nthreads - 1, sizeof(pthread_t));
        if (!p->workers) {
            p->nthreads = 1;
            return p;
        }
        for (int i = 0; i < nthreads - 1; i++) {
            worker_arg *wa = malloc(sizeof(*wa));
            if (!wa) break;
            wa->pool = p;
            wa->thread = i + 1;
            if (pthread_create(&p->workers[i], NULL, worker_main, wa) != 0) {
                free(wa);
                break;
            }
            p->nworkers++;
        }
        /* fewer workers than asked: thread indices stay < nworkers + 1 */
        p->nthreads = p->nworkers + 1;
    }
    return p;
}

void cz_pool_free(cz_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nworkers; i++) pthread_join(p->workers[i], NULL);
    free(p->workers);
    pthread_mutex_destroy(&p->run_lock);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p);
}

int cz_pool_threads(const cz_pool *p) { return p ? p->nthreads : 1; }

void cz_pool_run(cz_pool *p, size_t ntasks, cz_task_fn task, void *ctx)
{
    if (ntasks == 0) return;
    if (!p || p->nworkers == 0 || ntasks == 1 || tl_in_task) {
        /* inline: nested runs, single task, or no workers */
        int was = tl_in_task;
        tl_in_task = 1;
        for (size_t i = 0; i < ntasks; i++) task(ctx, i, 0);
        tl_in_task = was;
        return;
    }
    pthread_mutex_lock(&p->run_lock);
    pthread_mutex_lock(&p->lock);
    p->task = task;
    p->ctx = ctx;
    p->ntasks = ntasks;
    atomic_store(&p->next, 0);
    p->active = p->nworkers;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    run_tasks(p, 0);

    pthread_mutex_lock(&p->lock);
    while (p->active > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->run_lock);
}

typedef struct {
    cz_range_fn range;
    void *ctx;
    size_t n, chunk;
} range_ctx;

static void range_task(void *arg, size_t i, int thread)
{
    range_ctx *rc = arg;
    size_t b = i * rc->chunk;
    size_t e = b + rc->chunk < rc->n ? b + rc->chunk : rc->n;
    rc->range(rc->ctx, b, e, thread);
}

void cz_parallel_for(cz_pool *p, size_t n, size_t grain, cz_range_fn range, void *ctx)
{
    if (n == 0) return;
    int t = cz_pool_threads(p);
    if (grain == 0) grain = 1;
    /* about 4 chunks per thread for balance, none smaller than grain */
    size_t chunk = (n + (size_t)t * 4 - 1) / ((size_t)t * 4);
    if (chunk < grain) chunk = grain;
    range_ctx rc = {range, ctx, n, chunk};
    cz_pool_run(p, (n + chunk - 1) / chunk, range_task, &rc);
}

typedef struct {
    char *dst;
    const char *src;
} copy_ctx;

static void copy_range(void *arg, size_t b, size_t e, int thread)
{
    (void)thread;
    copy_ctx *c = arg;
    memcpy(c->dst + b, c->src + b, e - b);
}

void cz_memcpy_parallel(cz_pool *p, void *dst, const void *src, size_t bytes)
{
    const size_t grain = (size_t)1 << 20;
    if (cz_pool_threads(p) < 2 || bytes < 2 * grain) {
        if (bytes) memcpy(dst, src, bytes);
        return;
    }
    copy_ctx c = {dst, src};
    cz_parallel_for(p, bytes, grain, copy_range, &c);
}

/* no workers: cz_pool_run runs inline, never takes run_lock */
static cz_pool g_serial = {.nthreads = 1,
                           .run_lock = PTHREAD_MUTEX_INITIALIZER,
                           .lock = PTHREAD_MUTEX_INITIALIZER,
                           .wake = PTHREAD_COND_INITIALIZER,
                           .done = PTHREAD_COND_INITIALIZER};

cz_pool *cz_pool_serial(void) { return &g_serial; }

static pthread_mutex_t g_default_lock = PTHREAD_MUTEX_INITIALIZER;
static cz_pool *g_default = NULL;
static int g_threads = 0;

cz_pool *cz_pool_default(void)
{
    pthread_mutex_lock(&g_default_lock);
    if (!g_default) g_default = cz_pool_create(g_threads);
    cz_pool *p = g_default;
    pthread_mutex_unlock(&g_default_lock);
    return p; /* may be NULL only if calloc failed: cz_pool_run runs inline */
}

void cz_set_threads(int n)
{
    pthread_mutex_lock(&g_default_lock);
    g_threads = n;
    if (g_default && cz_pool_threads(g_default) != (n > 0 ? n : cz_cpu_count())) {
        cz_pool_free(g_default);
        g_default = NULL;
    }
    pthread_mutex_unlock(&g_default_lock);
}

int cz_get_threads(void)
{
    cz_pool *p = cz_pool_default();
    return cz_pool_threads(p);
}
