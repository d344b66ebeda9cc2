/*
 * Development Groth16 setup (contract and design in groth16/setup.h): the
 * parts common to both curves (writer thread, buffers, progress, section 10
 * texts) live here; the curve-specific run is groth16/setup_tmpl_impl.h,
 * instantiated for BN254 and BLS12-381 below.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include "groth16/setup.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/ec.h"
#include "ff/ff.h"
#include "io/zkey_write.h"
#include "msm/fixed_base.h"
#include "ntt/ntt.h"
#include "util/timer.h"

/* Section 10's circuit-hash field: snarkjs's value is a BLAKE2b hash over
 * powers-of-tau points this setup never has, so the field carries this
 * 64-byte ASCII marker (NUL-padded) instead. */
static const char setup_cs_marker[64] = "cuzk insecure development key: NOT from a trusted setup ceremony";
#define CZ_SETUP_CS_MARKER setup_cs_marker

unsigned cz_groth16_domain_log(uint64_t n_constraints, uint64_t n_public)
{
    uint64_t need = n_constraints + n_public; /* 2^k > need */
    unsigned k = 0;
    while (k < 63 && ((uint64_t)1 << k) <= need)
        k++;
    return k;
}

/* ---- common state: chunk buffers, the writer thread, progress ---- */

typedef struct setup_state {
    const cz_setup_opts *o;
    cz_setup_stats *stats;
    cz_pool *pool;
    cz_zkey_writer w;
    int w_open;
    size_t chunk;      /* points per chunk */
    void *pbuf[2];     /* point chunks (double-buffered with the writer) */
    size_t pbuf_bytes; /* each */
    void *hbuf;        /* chunk of H scalars */
    int cur;
    /* writer thread: puts one buffer at a time into w */
    pthread_t th;
    int th_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const void *job;
    size_t job_len;
    int pending, stop;
    cz_status wst;
    cz_error werr;
} setup_state;

static void progress(setup_state *S, const char *stage, uint64_t done, uint64_t total)
{
    if (S->o->progress) S->o->progress(S->o->progress_ctx, stage, done, total);
}

static void setup_state_init(setup_state *S, const cz_setup_opts *o, cz_setup_stats *stats)
{
    S->o = o;
    S->stats = stats;
    S->pool = o->pool ? o->pool : cz_pool_default();
    pthread_mutex_init(&S->mu, NULL);
    pthread_cond_init(&S->cv, NULL);
    S->wst = CZ_OK;
    cz_error_clear(&S->werr);
}

/* Chunk buffers: big enough for one chunk of the largest point (G2) and a
 * chunk of scalars. */
static cz_status setup_state_buffers(setup_state *S, size_t g2_size, size_t fr_size, cz_error *err)
{
    size_t chunk = S->o->chunk;
    if (!chunk) {
        /* enough blocks per thread to balance the pool, a few MiB at least */
        chunk = (size_t)cz_pool_threads(S->pool) * 16 * CZ_FB_BLOCK;
        if (chunk < ((size_t)1 << 16)) chunk = (size_t)1 << 16;
        if (chunk > ((size_t)1 << 19)) chunk = (size_t)1 << 19;
    }
    S->chunk = chunk;
    S->pbuf_bytes = chunk * g2_size;
    if (S->pbuf_bytes < 64 * CZ_ZKEY_COEF_BYTES) S->pbuf_bytes = 64 * CZ_ZKEY_COEF_BYTES;
    S->pbuf[0] = malloc(S->pbuf_bytes);
    S->pbuf[1] = malloc(S->pbuf_bytes);
    S->hbuf = malloc(chunk * fr_size);
    if (!S->pbuf[0] || !S->pbuf[1] || !S->hbuf)
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "setup: out of memory for the output chunks (%zu bytes)",
                            2 * S->pbuf_bytes);
    return CZ_OK;
}

static void *writer_main(void *arg)
{
    setup_state *S = arg;
    pthread_mutex_lock(&S->mu);
    for (;;) {
        while (!S->pending && !S->stop)
            pthread_cond_wait(&S->cv, &S->mu);
        if (!S->pending) break;
        const void *p = S->job;
        size_t n = S->job_len;
        cz_status prev = S->wst;
        pthread_mutex_unlock(&S->mu);
        cz_error e;
        cz_error_clear(&e);
        cz_status st = prev == CZ_OK ? cz_zkey_writer_put(&S->w, p, n, &e) : prev;
        pthread_mutex_lock(&S->mu);
        if (prev == CZ_OK && st != CZ_OK) {
            S->wst = st;
            S->werr = e;
        }
        S->pending = 0;
        pthread_cond_broadcast(&S->cv);
    }
    pthread_mutex_unlock(&S->mu);
    return NULL;
}

/* Starts the writer thread; without one, chunks are written synchronously. */
static cz_status setup_writer_start(setup_state *S, cz_error *err)
{
    (void)err;
    S->stop = 0;
    S->th_started = pthread_create(&S->th, NULL, writer_main, S) == 0;
    return CZ_OK;
}

static void setup_writer_stop(setup_state *S)
{
    if (!S->th_started) return;
    pthread_mutex_lock(&S->mu);
    S->stop = 1;
    pthread_cond_broadcast(&S->cv);
    pthread_mutex_unlock(&S->mu);
    pthread_join(S->th, NULL);
    S->th_started = 0;
}

/* Waits until the writer is idle; its status. */
static cz_status aw_wait(setup_state *S, cz_error *err)
{
    if (!S->th_started) return CZ_OK;
    pthread_mutex_lock(&S->mu);
    while (S->pending)
        pthread_cond_wait(&S->cv, &S->mu);
    cz_status st = S->wst;
    if (st != CZ_OK) cz_error_set(err, st, "%s", S->werr.msg);
    pthread_mutex_unlock(&S->mu);
    return st;
}

/* Hands n bytes at p to the writer (after the previous job is done). p must
 * stay untouched until the next aw_submit/aw_wait returns. */
static cz_status aw_submit(setup_state *S, const void *p, size_t n, cz_error *err)
{
    if (!S->th_started) return cz_zkey_writer_put(&S->w, p, n, err);
    cz_status st = aw_wait(S, err);
    if (st != CZ_OK) return st;
    pthread_mutex_lock(&S->mu);
    S->job = p;
    S->job_len = n;
    S->pending = 1;
    pthread_cond_broadcast(&S->cv);
    pthread_mutex_unlock(&S->mu);
    return CZ_OK;
}

static void setup_state_free(setup_state *S)
{
    setup_writer_stop(S);
    if (S->w_open) {
        cz_zkey_writer_abort(&S->w);
        S->w_open = 0;
    }
    free(S->pbuf[0]);
    free(S->pbuf[1]);
    free(S->hbuf);
    S->pbuf[0] = S->pbuf[1] = S->hbuf = NULL;
    pthread_mutex_destroy(&S->mu);
    pthread_cond_destroy(&S->cv);
}

/* Section 10's contribution name: what a reader of the key must know. */
static void setup_contribution_name(char *buf, size_t cap, const cz_setup_opts *o)
{
    if (o->tau || o->alpha || o->beta || o->delta)
        snprintf(buf, cap, "INSECURE DEV KEY (cuzk setup): fixed toxic waste");
    else if (o->use_seed)
        snprintf(buf, cap, "INSECURE DEV KEY (cuzk setup): toxic waste = seed %" PRIu64, o->seed);
    else
        snprintf(buf, cap, "INSECURE DEV KEY (cuzk setup): single party, no ceremony");
}

/* ---- every curve ---- */

#define CZ_TMPL "groth16/setup_tmpl_impl.h"
#include "util/foreach_curve.h"

typedef struct {
    cz_status (*run)(const cz_r1cs *r, const char *path, const cz_setup_opts *o, cz_setup_stats *stats, cz_error *err);
    cz_status (*toxic_bytes)(unsigned log_n, const cz_setup_opts *o, uint8_t *out[4], cz_error *err);
} setup_curve;

#define SETUP_ROW_(ID, VALUE, SYM, ...) {SYM##_su_run, SYM##_su_toxic_bytes},
static const setup_curve setup_curves[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(SETUP_ROW_)};
#undef SETUP_ROW_

static const cz_setup_opts setup_defaults;

cz_status cz_groth16_setup_dev(const cz_r1cs *r, const char *zkey_path, const cz_setup_opts *o, cz_setup_stats *st,
                               cz_error *err)
{
    cz_setup_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    if (!o) o = &setup_defaults;
    if (!r || !zkey_path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "setup: no circuit or no output path");
    if (!r->A.row_ptr || !r->B.row_ptr || !r->C.row_ptr || r->A.nrows != r->n_constraints)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "setup: the r1cs was loaded without its constraint matrices");
    if (r->n_wires == 0 || (uint64_t)r->n_pub_out + r->n_pub_in >= r->n_wires)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "setup: %u wires cannot hold ONE and %u public signals",
                            r->n_wires, r->n_pub_out + r->n_pub_in);
    int ci = cz_curve_index(r->curve);
    if (ci < 0) return cz_error_set(err, CZ_ERR_UNSUPPORTED, "setup: unknown curve %d", (int)r->curve);
    return setup_curves[ci].run(r, zkey_path, o, st, err);
}

cz_status cz_groth16_setup_toxic(cz_curve c, unsigned log_n, const cz_setup_opts *o, uint8_t tau[32], uint8_t alpha[32],
                                 uint8_t beta[32], uint8_t delta[32], cz_error *err)
{
    if (!o) o = &setup_defaults;
    uint8_t *out[4] = {tau, alpha, beta, delta};
    const cz_curve_info *ci = cz_curve_info_get(c);
    if (!ci) return cz_error_set(err, CZ_ERR_UNSUPPORTED, "setup: unknown curve %d", (int)c);
    if (log_n > ci->fr_two_adicity)
        return cz_error_set(err, CZ_ERR_RANGE, "setup: domain 2^%u is larger than the curve allows", log_n);
    return setup_curves[ci->index].toxic_bytes(log_n, o, out, err);
}
