/*
 * test_engine: the proving engine (engine/engine.h) on the CPU backend.
 *
 * Circuits and keys are made here (cz_gen_circuit + cz_groth16_setup_dev)
 * in a temporary folder; every proof the engine returns is checked again
 * with cz_groth16_verify against the key's verifying key, and a tampered
 * copy must fail. Covered: partitions of one job; a budget far below the
 * demand (jobs queue and all complete, the budget never exceeded); a job
 * larger than the budget failing at submit with the bytes it needs; idle
 * pool buffers reclaimed before idle keys are evicted, and an evicted key
 * reloaded; the pool serving every buffer after warm-up; cancelling queued
 * and running jobs; priorities overtaking; many small jobs from 8 threads
 * with the budget back at its idle level afterwards. Several devices (CPU
 * backends posing as GPUs, some slowed or failing on purpose): partitions
 * spread over them, one key placement per device, a failing device taken
 * out of service with its partition proved elsewhere, every device failing
 * (the job fails with the cause, the engine keeps serving errors, the
 * budget returns), the configured fault injection (fail_device/fail_step),
 * and bad device specs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "circuit/gen_circuit.h"
#include "groth16/setup.h"
#include "io/r1cs.h"
#include "test_util.h"

typedef struct fixture {
    char zkey[256], wtns[256], r1cs[256];
    cz_zkey zk; /* loaded separately, for verification */
    cz_vkey vk;
    cz_wtns w;
    size_t ab;   /* working-set bytes of a partition (a, b) */
    size_t part; /* everything one partition takes besides the key (cz_engine_admit): a, b + CPU scratch */
} fixture;

static char g_dir[128];

static int make_fixture(fixture *f, const char *name, cz_curve curve, cz_gen_profile prof, uint64_t n, uint64_t seed)
{
    cz_error err;
    cz_error_clear(&err);
    snprintf(f->r1cs, sizeof f->r1cs, "%s/%s.r1cs", g_dir, name);
    snprintf(f->wtns, sizeof f->wtns, "%s/%s.wtns", g_dir, name);
    snprintf(f->zkey, sizeof f->zkey, "%s/%s.zkey", g_dir, name);
    cz_gen_opts go;
    memset(&go, 0, sizeof go);
    go.curve = curve;
    go.profile = prof;
    go.n_constraints = n;
    go.n_public = CZ_GEN_PUBLIC_DEFAULT;
    go.seed = seed;
    cz_status st = cz_gen_circuit(&go, f->r1cs, f->wtns, NULL, &err);
    CHECK_MSG(st == CZ_OK, "gen %s: %s", name, cz_error_msg(&err));
    if (st != CZ_OK) return 0;
    cz_r1cs r;
    st = cz_r1cs_load(&r, f->r1cs, 0, NULL, &err);
    CHECK_MSG(st == CZ_OK, "r1cs %s: %s", name, cz_error_msg(&err));
    if (st != CZ_OK) return 0;
    cz_setup_opts so;
    memset(&so, 0, sizeof so);
    so.use_seed = 1;
    so.seed = seed;
    st = cz_groth16_setup_dev(&r, f->zkey, &so, NULL, &err);
    cz_r1cs_free(&r);
    CHECK_MSG(st == CZ_OK, "setup %s: %s", name, cz_error_msg(&err));
    if (st != CZ_OK) return 0;
    st = cz_zkey_load(&f->zk, f->zkey, NULL, &err);
    if (st == CZ_OK) st = cz_wtns_load(&f->w, f->wtns, NULL, &err);
    if (st == CZ_OK) st = cz_vkey_from_zkey(&f->vk, &f->zk);
    CHECK_MSG(st == CZ_OK, "load %s: %s", name, cz_error_msg(&err));
    f->ab = cz_ab_bytes(f->zk.domain_size);
    return st == CZ_OK;
}

/* f->part, from an engine with the CPU backend and a large budget */
static int measure_part(fixture *f)
{
    cz_engine_config c;
    cz_engine_config_default(&c);
    c.device = "cpu";
    c.budget_bytes = (size_t)1 << 30;
    cz_engine *e = NULL;
    cz_engine_key *k = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_engine_admission a;
    memset(&a, 0, sizeof a);
    if (cz_engine_create(&e, &c, &err) == CZ_OK && cz_engine_key_add(e, f->zkey, &k, &err) == CZ_OK)
        cz_engine_admit(e, k, 0, &a);
    CHECK_MSG(a.fits && a.can_start && a.key_bytes == 0 && a.need >= f->ab, "admission: %s", cz_error_msg(&err));
    f->part = a.need;
    if (k) cz_engine_key_remove(e, k);
    cz_engine_free(e);
    return a.need > 0;
}

static void free_fixture(fixture *f)
{
    cz_vkey_free(&f->vk);
    cz_wtns_free(&f->w);
    cz_zkey_free(&f->zk);
    unlink(f->r1cs);
    unlink(f->wtns);
    unlink(f->zkey);
}

/* The proof verifies against the key (independently of the engine's own
 * check) and a tampered copy does not. */
static int proof_ok(const fixture *f, const cz_proof *p)
{
    cz_error err;
    cz_error_clear(&err);
    const uint8_t *pub = (const uint8_t *)f->w.values + 32;
    if (cz_groth16_verify(&f->vk, pub, f->zk.n_public, p, &err) != CZ_OK) return 0;
    cz_proof bad = *p;
    cz_proof tmp = *p;
    /* swap A and C: still curve points, no longer a proof */
    memcpy(bad.a, tmp.c, sizeof bad.a);
    memcpy(bad.c, tmp.a, sizeof bad.c);
    return cz_groth16_verify(&f->vk, pub, f->zk.n_public, &bad, &err) != CZ_OK;
}

/* an engine from c (NULL, with the failure counted, if it cannot be made) */
static cz_engine *engine_cfg(const cz_engine_config *c)
{
    cz_engine *e = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_engine_create(&e, c, &err);
    CHECK_MSG(st == CZ_OK, "engine: %s", cz_error_msg(&err));
    return e;
}

/* ... with f's key registered */
static cz_engine *engine_cfg_with_key(const cz_engine_config *c, const fixture *f, cz_engine_key **k)
{
    cz_engine *e = engine_cfg(c);
    if (!e) return NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_engine_key_add(e, f->zkey, k, &err);
    CHECK_MSG(st == CZ_OK, "key %s: %s", f->zkey, cz_error_msg(&err));
    if (st != CZ_OK) {
        cz_engine_free(e);
        return NULL;
    }
    return e;
}

static void cpu_config(cz_engine_config *c, size_t budget, int synth_workers)
{
    cz_engine_config_default(c);
    c->device = "cpu";
    c->budget_bytes = budget;
    c->synth_workers = synth_workers;
}

static cz_engine *engine(size_t budget, int synth_workers)
{
    cz_engine_config c;
    cpu_config(&c, budget, synth_workers);
    return engine_cfg(&c);
}

static cz_engine *engine_with_key(size_t budget, int synth_workers, const fixture *f, cz_engine_key **k)
{
    cz_engine_config c;
    cpu_config(&c, budget, synth_workers);
    return engine_cfg_with_key(&c, f, k);
}

static void engine_done(cz_engine *e, cz_engine_key *k)
{
    cz_engine_key_remove(e, k);
    cz_engine_free(e);
}

static int job_all_ok(const fixture *f, cz_job *j)
{
    size_t n;
    const cz_partition_result *r = cz_job_results(j, &n);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        if (r[i].status != CZ_OK) {
            fprintf(stderr, "  partition %zu: %s (%s)\n", i, cz_status_str(r[i].status), r[i].error);
            ok = 0;
        } else if (!proof_ok(f, &r[i].proof)) {
            fprintf(stderr, "  partition %zu: proof does not verify\n", i);
            ok = 0;
        }
    }
    return ok;
}

static void test_partitions(fixture *f)
{
    cz_engine_key *k;
    cz_engine *e = engine_with_key((size_t)1 << 30, 2, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_engine_key_bytes(k) == f->zk.bytes);
    const cz_wtns *ws[4] = {&f->w, &f->w, &f->w, &f->w};
    cz_job *j;
    CHECK_MSG(cz_engine_submit(e, k, ws, 4, 0, &j, &err) == CZ_OK, "submit: %s", cz_error_msg(&err));
    CHECK(cz_job_wait(j, -1) == CZ_OK);
    CHECK(cz_job_status(j) == CZ_OK);
    CHECK(job_all_ok(f, j));
    size_t n;
    const cz_partition_result *r = cz_job_results(j, &n);
    CHECK(n == 4);
    for (size_t i = 0; i < n; i++) {
        CHECK(r[i].t.synth_s >= 0 && r[i].t.device_s > 0 && r[i].t.total_s >= r[i].t.device_s);
        CHECK(r[i].t.ab_bytes == f->ab);
        CHECK(r[i].n_pub == f->zk.n_public &&
              (!r[i].n_pub || memcmp(r[i].pub, (const uint8_t *)f->w.values + 32, 32 * r[i].n_pub) == 0));
    }
    /* the same file registered again (by another spelling of its path):
     * the same key, not a second copy; it stays until both are removed */
    char again[300];
    const char *slash = strrchr(f->zkey, '/');
    snprintf(again, sizeof again, "%.*s/./%s", (int)(slash - f->zkey), f->zkey, slash + 1);
    cz_engine_key *k2 = NULL;
    cz_engine_stats s0, s1;
    cz_engine_stats_get(e, &s0);
    CHECK(cz_engine_key_add(e, again, &k2, &err) == CZ_OK && k2 == k);
    cz_engine_stats_get(e, &s1);
    CHECK(s1.key_loads == s0.key_loads && s1.budget.by[CZ_MEM_KEY] == s0.budget.by[CZ_MEM_KEY]);
    cz_engine_key_remove(e, k2);
    CHECK(cz_engine_key_info(k)->domain_size == f->zk.domain_size);
    /* a missing file: the load's error, nothing registered */
    cz_engine_key *k3 = NULL;
    CHECK(cz_engine_key_add(e, "/nonexistent/x.zkey", &k3, &err) != CZ_OK && k3 == NULL);
    CHECK(strstr(cz_error_msg(&err), "/nonexistent/x.zkey") != NULL);
    cz_error_clear(&err);
    /* two proofs of the same witness differ (fresh blinding) */
    CHECK(memcmp(r[0].proof.a, r[1].proof.a, sizeof r[0].proof.a) != 0);
    cz_job_free(j);
    /* a witness of another size is refused at submit, naming the partition */
    cz_wtns bad = f->w;
    bad.n = f->w.n - 1;
    const cz_wtns *wb[2] = {&f->w, &bad};
    CHECK(cz_engine_submit(e, k, wb, 2, 0, &j, &err) == CZ_ERR_MISMATCH);
    CHECK(strstr(cz_error_msg(&err), "partition 1") != NULL);
    engine_done(e, k);
}

/* a budget that holds the key and one working set and a half: jobs queue */
static void test_small_budget(fixture *f)
{
    size_t budget = f->zk.bytes + f->part + f->ab / 2;
    cz_engine_key *k;
    cz_engine *e = engine_with_key(budget, 3, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    const cz_wtns *ws[3] = {&f->w, &f->w, &f->w};
    /* warm-up: the pool's one buffer (only one fits) */
    cz_job *jobs[5];
    CHECK(cz_engine_submit(e, k, ws, 3, 0, &jobs[0], &err) == CZ_OK);
    CHECK(cz_job_wait(jobs[0], -1) == CZ_OK && job_all_ok(f, jobs[0]));
    cz_job_free(jobs[0]);
    cz_engine_stats s0;
    cz_engine_stats_get(e, &s0);
    CHECK(s0.pool.buffers == 1);
    for (int i = 0; i < 5; i++) CHECK(cz_engine_submit(e, k, ws, 3, 0, &jobs[i], &err) == CZ_OK);
    for (int i = 0; i < 5; i++) {
        CHECK(cz_job_wait(jobs[i], -1) == CZ_OK);
        CHECK(job_all_ok(f, jobs[i]));
        cz_job_free(jobs[i]);
    }
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK_MSG(s.budget.peak <= budget, "peak %zu > budget %zu", s.budget.peak, budget);
    CHECK(s.partitions_done == 18 && s.partitions_failed == 0);
    /* after warm-up every partition takes the pool's buffer or, where a step's timing left the
     * budget room for a second one (a miss: measured once in a loaded run), a new buffer that
     * joins the pool: every buffer made is still held or was given back by a shrink */
    const uint64_t hits = s.pool.hits - s0.pool.hits, misses = s.pool.misses - s0.pool.misses;
    const uint64_t freed = s0.pool.held ? (uint64_t)((s.pool.shrunk - s0.pool.shrunk) / s0.pool.held) : 0;
    CHECK_MSG(hits + misses == 15 && s.pool.buffers + freed == s0.pool.buffers + misses,
              "pool after warm-up: hits %llu misses %llu, buffers %llu -> %llu, %llu shrunk",
              (unsigned long long)hits, (unsigned long long)misses, (unsigned long long)s0.pool.buffers,
              (unsigned long long)s.pool.buffers, (unsigned long long)freed);
    CHECK(s.pool.in_use == 0);
    /* the key, the pool and the twiddle tables the CPU backend keeps */
    CHECK(s.budget.used == f->zk.bytes + s.pool.held + s.budget.by[CZ_MEM_SCRATCH]);
    CHECK(s.budget.by[CZ_MEM_WITNESS] == 0 && s.budget.by[CZ_MEM_WORKSET] == 0);
    engine_done(e, k);
}

/* a large budget: synthesis still runs only max_ready partitions ahead, so
 * the pool holds few buffers (1 in synthesis + 1 ready + 1 on the device) */
static void test_max_ready(fixture *f)
{
    cz_engine_config c;
    cz_engine_config_default(&c);
    c.device = "cpu";
    c.budget_bytes = (size_t)1 << 30;
    c.synth_workers = 1;
    c.max_ready = 1;
    cz_engine *e = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_engine_create(&e, &c, &err) == CZ_OK);
    if (!e) return;
    cz_engine_key *k;
    CHECK(cz_engine_key_add(e, f->zkey, &k, &err) == CZ_OK);
    const cz_wtns *ws[8];
    for (int i = 0; i < 8; i++) ws[i] = &f->w;
    cz_job *j;
    CHECK(cz_engine_submit(e, k, ws, 8, 0, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f, j));
    cz_job_free(j);
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK_MSG(s.pool.buffers <= 3 && s.pool.hits + s.pool.misses == 8, "pool: %llu buffers, %llu hits, %llu misses",
              (unsigned long long)s.pool.buffers, (unsigned long long)s.pool.hits, (unsigned long long)s.pool.misses);
    engine_done(e, k);
}

static void test_too_big(fixture *f)
{
    size_t budget = f->zk.bytes + f->ab / 2;
    cz_engine_key *k;
    cz_engine *e = engine_with_key(budget, 1, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    const cz_wtns *ws[1] = {&f->w};
    cz_job *j = NULL;
    cz_status st = cz_engine_submit(e, k, ws, 1, 0, &j, &err);
    CHECK(st == CZ_ERR_BUDGET && j == NULL);
    char want[64];
    snprintf(want, sizeof want, "needs %zu bytes", f->zk.bytes + f->part);
    CHECK_MSG(strstr(cz_error_msg(&err), want) != NULL, "message: %s", cz_error_msg(&err));
    engine_done(e, k);

    /* a key larger than the budget whose pieces each fit: the load fails at
     * once (it used to wait forever for its own pieces to be released) */
    e = engine(f->zk.bytes * 9 / 10, 1);
    if (!e) return;
    cz_error_clear(&err);
    k = NULL;
    CHECK(cz_engine_key_add(e, f->zkey, &k, &err) == CZ_ERR_BUDGET && k == NULL);
    CHECK_MSG(strstr(cz_error_msg(&err), "the key does not fit") != NULL, "message: %s", cz_error_msg(&err));
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.budget.used == 0);
    cz_engine_free(e);
}

/* idle pool buffers go first, then the least recently used idle key */
static void test_eviction(fixture *f1, fixture *f2)
{
    /* f2's working set is the larger; both keys plus f2's working set do not fit */
    size_t budget = f1->zk.bytes + f2->zk.bytes + f2->part - 1;
    cz_engine *e = engine(budget, 1);
    if (!e) return;
    cz_engine_key *k1, *k2;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_engine_key_add(e, f1->zkey, &k1, &err) == CZ_OK);
    CHECK(cz_engine_key_add(e, f2->zkey, &k2, &err) == CZ_OK);
    const cz_wtns *w1[1] = {&f1->w}, *w2[1] = {&f2->w};
    cz_job *j;
    CHECK(cz_engine_submit(e, k1, w1, 1, 0, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f1, j));
    cz_job_free(j);
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.pool.idle > 0 && s.key_evictions == 0);
    /* f2's job: the idle f1 buffer is given back, then key 1 is evicted */
    CHECK(cz_engine_submit(e, k2, w2, 1, 0, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f2, j));
    cz_job_free(j);
    cz_engine_stats_get(e, &s);
    CHECK_MSG(s.pool.shrinks >= 1, "pool shrinks %llu", (unsigned long long)s.pool.shrinks);
    CHECK_MSG(s.key_evictions == 1, "evictions %llu", (unsigned long long)s.key_evictions);
    CHECK(s.budget.reclaims[CZ_RECLAIM_POOL] >= 1 && s.budget.reclaims[CZ_RECLAIM_KEYS] == 1);
    CHECK(s.budget.peak <= budget);
    /* key 1 again: reloaded from its file (evicting key 2 and the buffer) */
    uint64_t loads = s.key_loads;
    CHECK(cz_engine_submit(e, k1, w1, 1, 0, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f1, j));
    cz_job_free(j);
    cz_engine_stats_get(e, &s);
    CHECK(s.key_loads == loads + 1);
    CHECK(s.budget.peak <= budget);
    cz_engine_key_remove(e, k1);
    cz_engine_key_remove(e, k2);
    cz_engine_free(e);
}

static void test_cancel(fixture *f)
{
    cz_engine_key *k;
    cz_engine *e = engine_with_key((size_t)1 << 30, 1, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    const cz_wtns *ws[8];
    for (int i = 0; i < 8; i++) ws[i] = &f->w;
    cz_job *run, *queued;
    CHECK(cz_engine_submit(e, k, ws, 8, 0, &run, &err) == CZ_OK);
    CHECK(cz_engine_submit(e, k, ws, 4, 0, &queued, &err) == CZ_OK);
    /* the queued job (behind 8 partitions on one synthesis worker) */
    cz_job_cancel(queued);
    CHECK(cz_job_wait(queued, 30) == CZ_OK);
    size_t n;
    const cz_partition_result *r = cz_job_results(queued, &n);
    int cancelled = 0;
    for (size_t i = 0; i < n; i++) cancelled += r[i].status == CZ_ERR_CANCELLED;
    CHECK_MSG(cancelled == 4, "queued job: %d of 4 cancelled", cancelled);
    CHECK(cz_job_status(queued) == CZ_ERR_CANCELLED);
    /* the running one, once its first partition is through */
    while (cz_job_wait(run, 0.005) == CZ_ERR_TIMEOUT) {
        cz_engine_stats s;
        cz_engine_stats_get(e, &s);
        if (s.partitions_done + s.partitions_failed >= 4 + 1) break;
    }
    cz_job_cancel(run);
    CHECK(cz_job_wait(run, 60) == CZ_OK);
    r = cz_job_results(run, &n);
    int ok = 0;
    cancelled = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].status == CZ_OK) {
            ok++;
            CHECK(proof_ok(f, &r[i].proof));
        }
        cancelled += r[i].status == CZ_ERR_CANCELLED;
    }
    CHECK_MSG(ok >= 1 && cancelled >= 1 && ok + cancelled == 8, "running job: %d done, %d cancelled", ok, cancelled);
    cz_job_free(run);
    cz_job_free(queued);
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.pool.in_use == 0 && s.budget.by[CZ_MEM_WORKSET] == 0);
    /* the engine still serves */
    cz_job *j;
    CHECK(cz_engine_submit(e, k, ws, 1, 0, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f, j));
    cz_job_free(j);
    engine_done(e, k);
}

static void test_priority(fixture *f)
{
    cz_engine_key *k;
    cz_engine *e = engine_with_key((size_t)1 << 30, 1, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    const cz_wtns *ws[8];
    for (int i = 0; i < 8; i++) ws[i] = &f->w;
    cz_job *low, *high;
    CHECK(cz_engine_submit(e, k, ws, 8, 0, &low, &err) == CZ_OK);
    CHECK(cz_engine_submit(e, k, ws, 1, 10, &high, &err) == CZ_OK);
    CHECK(cz_job_wait(high, -1) == CZ_OK && job_all_ok(f, high));
    /* one synthesis worker: the high job went next, ahead of the low job's
     * remaining partitions */
    CHECK_MSG(cz_job_wait(low, 0) == CZ_ERR_TIMEOUT, "the low-priority job finished first");
    CHECK(cz_job_wait(low, -1) == CZ_OK && job_all_ok(f, low));
    cz_job_free(high);
    cz_job_free(low);
    engine_done(e, k);
}

typedef struct {
    cz_engine *e;
    cz_engine_key *k;
    fixture *f;
    int jobs, failures;
} stress_arg;

static void *stress_thread(void *p)
{
    stress_arg *a = p;
    const cz_wtns *ws[1] = {&a->f->w};
    for (int i = 0; i < a->jobs; i++) {
        cz_error err;
        cz_error_clear(&err);
        cz_job *j;
        if (cz_engine_submit(a->e, a->k, ws, 1, i % 3, &j, &err) != CZ_OK) {
            a->failures++;
            continue;
        }
        if (cz_job_wait(j, -1) != CZ_OK || !job_all_ok(a->f, j)) a->failures++;
        cz_job_free(j);
    }
    return NULL;
}

static void test_many(fixture *f)
{
    size_t budget = f->zk.bytes + 4 * f->part;
    cz_engine_key *k;
    cz_engine *e = engine_with_key(budget, 2, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    int per = (int)cz_test_iters(25);
    if (per < 2) per = 2;
    pthread_t th[8];
    stress_arg a[8];
    for (int i = 0; i < 8; i++) {
        a[i] = (stress_arg){e, k, f, per, 0};
        pthread_create(&th[i], NULL, stress_thread, &a[i]);
    }
    int failures = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        failures += a[i].failures;
    }
    CHECK_MSG(failures == 0, "%d of %d jobs failed", failures, 8 * per);
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.jobs_done == (uint64_t)(8 * per));
    CHECK(s.budget.peak <= budget);
    /* back to the idle level: the key, the idle pool buffers and the kept
     * twiddle tables */
    CHECK(s.pool.in_use == 0);
    CHECK_MSG(s.budget.used == f->zk.bytes + s.pool.held + s.budget.by[CZ_MEM_SCRATCH],
              "budget in use %zu, key %llu + pool %zu + scratch %zu", s.budget.used, (unsigned long long)f->zk.bytes,
              s.pool.held, s.budget.by[CZ_MEM_SCRATCH]);
    CHECK(s.pool.misses <= 4);
    printf("  %d jobs from 8 threads: pool hits %llu misses %llu, budget peak %zu of %zu\n", 8 * per,
           (unsigned long long)s.pool.hits, (unsigned long long)s.pool.misses, s.budget.peak, budget);
    engine_done(e, k);
}

/* ---- several devices: CPU backends posing as GPUs ---- */

/* A fake device: the CPU backend behind a table that counts calls, can make
 * each MSM slow (so that partitions overlap on the devices) and can fail
 * every MSM from its fail_from-th on with CZ_ERR_CUDA (a GPU that died). */
typedef struct fake_farm {
    int fail_dev[4], fail_from[4]; /* device fail_dev[i] fails from call fail_from[i] (0: unused) */
    int sleep_ms;
    int calls[CZ_ENGINE_MAX_DEVICES]; /* MSM calls per device (atomic) */
    /* lanes: the devices pose as entries of one GPU (kind CUDA, gpu 0) with
     * vram bytes; each keeps a working set of ws bytes from its first H
     * step on; other: bytes someone else holds. H steps in progress are
     * counted (in_h, its peak max_h); with meet, an H step waits (up to 1 s)
     * for another lane's to overlap it. All read and written atomically. */
    int lanes, meet;
    size_t vram, ws, other;
    size_t scratch[CZ_ENGINE_MAX_DEVICES];
    int in_h, max_h;
    /* with big_log: steps of domain 2^big_log or more need ws_big instead
     * (the scratch only grows: a lane keeps its largest); asked: the
     * largest need since the lane's mem_mark; big_steps: per lane */
    unsigned big_log;
    size_t ws_big;
    size_t asked[CZ_ENGINE_MAX_DEVICES];
    int big_steps[CZ_ENGINE_MAX_DEVICES];
    /* H steps handed a c array (the engine hands a and b only: c = a o b
     * is the backend's, backend.h) and in all */
    int h_with_c, h_steps;
} fake_farm;

typedef struct fake_dev {
    cz_backend *cpu;
    fake_farm *farm;
    int idx;
} fake_dev;

static int fake_fails(fake_dev *d, int call)
{
    for (int i = 0; i < 4; i++)
        if (d->farm->fail_from[i] && d->farm->fail_dev[i] == d->idx && call >= d->farm->fail_from[i]) return 1;
    return 0;
}

static cz_status fake_msm(cz_backend *be, int g2, cz_curve curve, void *out, const void *bases, const void *scalars,
                          size_t n, cz_msm_scalar_form form, cz_error *err)
{
    fake_dev *d = be->ctx;
    int call = __atomic_add_fetch(&d->farm->calls[d->idx], 1, __ATOMIC_RELAXED);
    if (fake_fails(d, call)) return cz_error_set(err, CZ_ERR_CUDA, "fake device %d: an illegal address", d->idx);
    if (d->farm->sleep_ms) usleep((useconds_t)d->farm->sleep_ms * 1000);
    return g2 ? d->cpu->ops->msm_g2(d->cpu, curve, out, bases, scalars, n, form, err)
              : d->cpu->ops->msm_g1(d->cpu, curve, out, bases, scalars, n, form, err);
}
static cz_status fake_msm_g1(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars,
                             size_t n, cz_msm_scalar_form form, cz_error *err)
{
    return fake_msm(be, 0, curve, out, bases, scalars, n, form, err);
}
static cz_status fake_msm_g2(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars,
                             size_t n, cz_msm_scalar_form form, cz_error *err)
{
    return fake_msm(be, 1, curve, out, bases, scalars, n, form, err);
}
static cz_status fake_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                                cz_backend_h_stats *stats, cz_error *err)
{
    fake_dev *d = be->ctx;
    fake_farm *fm = d->farm;
    __atomic_add_fetch(&fm->h_steps, 1, __ATOMIC_SEQ_CST);
    if (c) __atomic_add_fetch(&fm->h_with_c, 1, __ATOMIC_SEQ_CST);
    if (fm->lanes) {
        int now = __atomic_add_fetch(&fm->in_h, 1, __ATOMIC_SEQ_CST);
        for (int m = __atomic_load_n(&fm->max_h, __ATOMIC_SEQ_CST); now > m;)
            if (__atomic_compare_exchange_n(&fm->max_h, &m, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) break;
        for (int i = 0; __atomic_load_n(&fm->meet, __ATOMIC_SEQ_CST) && i < 1000 &&
                        __atomic_load_n(&fm->in_h, __ATOMIC_SEQ_CST) < 2;
             i++)
            usleep(1000);
        /* the working set grows after the meeting: an admission that did not
         * count what was admitted before would see the free memory of then */
        const int big = fm->big_log && log_n >= fm->big_log;
        const size_t w = big ? fm->ws_big : fm->ws;
        if (big) __atomic_add_fetch(&fm->big_steps[d->idx], 1, __ATOMIC_SEQ_CST);
        if (w > __atomic_load_n(&fm->scratch[d->idx], __ATOMIC_SEQ_CST))
            __atomic_store_n(&fm->scratch[d->idx], w, __ATOMIC_SEQ_CST);
        if (w > __atomic_load_n(&fm->asked[d->idx], __ATOMIC_SEQ_CST))
            __atomic_store_n(&fm->asked[d->idx], w, __ATOMIC_SEQ_CST);
        usleep(2000);
        __atomic_sub_fetch(&fm->in_h, 1, __ATOMIC_SEQ_CST);
    }
    return d->cpu->ops->compute_h(d->cpu, curve, log_n, a, b, c, stats, err);
}
static cz_status fake_mem_info(cz_backend *be, cz_backend_mem *out, cz_error *err)
{
    fake_dev *d = be->ctx;
    fake_farm *fm = d->farm;
    (void)err;
    size_t used = __atomic_load_n(&fm->other, __ATOMIC_SEQ_CST);
    for (int i = 0; i < CZ_ENGINE_MAX_DEVICES; i++) used += __atomic_load_n(&fm->scratch[i], __ATOMIC_SEQ_CST);
    out->total = fm->vram;
    out->free = used < fm->vram ? fm->vram - used : 0;
    out->scratch = __atomic_load_n(&fm->scratch[d->idx], __ATOMIC_SEQ_CST);
    out->resident = out->scratch;
    out->asked = __atomic_load_n(&fm->asked[d->idx], __ATOMIC_SEQ_CST);
    return CZ_OK;
}
static void fake_mem_mark(cz_backend *be)
{
    fake_dev *d = be->ctx;
    __atomic_store_n(&d->farm->asked[d->idx], 0, __ATOMIC_SEQ_CST);
}
static void fake_free(cz_backend *be)
{
    fake_dev *d = be->ctx;
    cz_backend_free(d->cpu);
    free(d);
    free(be);
}
static const cz_backend_ops fake_ops = {
    /* .compute_h      = */ fake_compute_h,
    /* .msm_g1         = */ fake_msm_g1,
    /* .msm_g2         = */ fake_msm_g2,
    /* .keep_bases     = */ NULL,
    /* .drop_bases     = */ NULL,
    /* .host_allocator = */ NULL,
    /* .mem_info       = */ NULL,
    /* .mem_mark       = */ NULL,
    /* .scratch_bytes  = */ NULL,
    /* .free           = */ fake_free,
};
static const cz_backend_ops fake_lane_ops = {
    /* .compute_h      = */ fake_compute_h,
    /* .msm_g1         = */ fake_msm_g1,
    /* .msm_g2         = */ fake_msm_g2,
    /* .keep_bases     = */ NULL,
    /* .drop_bases     = */ NULL,
    /* .host_allocator = */ NULL,
    /* .mem_info       = */ fake_mem_info,
    /* .mem_mark       = */ fake_mem_mark,
    /* .scratch_bytes  = */ NULL,
    /* .free           = */ fake_free,
};

static cz_status fake_make(void *ctx, int index, cz_backend **out, cz_error *err)
{
    cz_backend *be = calloc(1, sizeof *be);
    fake_dev *d = calloc(1, sizeof *d);
    if (!be || !d || cz_backend_cpu_create(&d->cpu, NULL, NULL) != CZ_OK) {
        free(be);
        free(d);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "fake device %d", index);
    }
    d->farm = ctx;
    d->idx = index;
    be->ops = d->farm->lanes ? &fake_lane_ops : &fake_ops;
    be->ctx = d;
    if (d->farm->lanes) {
        be->kind = CZ_BACKEND_CUDA;
        be->gpu = 0;
    }
    snprintf(be->name, sizeof be->name, "fake:%d", index);
    *out = be;
    return CZ_OK;
}

static cz_engine *farm_engine(fake_farm *farm, int ndev, const fixture *f, cz_engine_key **k)
{
    cz_engine_config c;
    cz_engine_config_default(&c);
    c.budget_bytes = (size_t)1 << 30;
    c.gpus = ndev;
    c.make_backend = fake_make;
    c.make_backend_ctx = farm;
    return engine_cfg_with_key(&c, f, k);
}

/* n partitions of f as one job; CZ_OK and every proof valid */
static int run_job(cz_engine *e, cz_engine_key *k, const fixture *f, size_t n, cz_status *status, char *msg,
                   size_t msg_size)
{
    const cz_wtns *ws[16];
    for (size_t i = 0; i < n; i++) ws[i] = &f->w;
    cz_error err;
    cz_error_clear(&err);
    cz_job *j;
    cz_status st = cz_engine_submit(e, k, ws, n, 0, &j, &err);
    if (st != CZ_OK) {
        if (status) *status = st;
        if (msg) snprintf(msg, msg_size, "%s", cz_error_msg(&err));
        return 0;
    }
    (void)cz_job_wait(j, -1);
    int ok = cz_job_status(j) == CZ_OK && job_all_ok(f, j);
    if (status) *status = cz_job_status(j);
    if (msg) {
        size_t m;
        const cz_partition_result *r = cz_job_results(j, &m);
        snprintf(msg, msg_size, "%s", r[m - 1].error);
    }
    cz_job_free(j);
    return ok;
}

/* "cpu" x 3: every partition proved, on the devices the stats name */
static void test_devices_cpu(fixture *f)
{
    cz_engine_config c;
    cpu_config(&c, (size_t)1 << 30, 0);
    c.gpus = 3;
    cz_engine_key *k;
    cz_engine *e = engine_cfg_with_key(&c, f, &k);
    if (!e) return;
    CHECK(cz_engine_device_count(e) == 3);
    CHECK(strstr(cz_engine_device_name(e), "3 devices: cpu:0 (") != NULL);
    CHECK(run_job(e, k, f, 6, NULL, NULL, 0));
    CHECK(run_job(e, k, f, 6, NULL, NULL, 0));
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.ndevices == 3 && s.devices_in_service == 3 && s.retries == 0);
    uint64_t parts = 0, used = 0, uploads = 0;
    double busy = 0;
    for (int i = 0; i < 3; i++) {
        parts += s.dev[i].partitions;
        used += s.dev[i].partitions > 0;
        uploads += s.dev[i].key_uploads;
        busy += s.dev[i].busy_s;
        char want[16];
        snprintf(want, sizeof want, "cpu:%d (", i);
        CHECK(s.dev[i].in_service && s.dev[i].key_uploads <= 1 && strncmp(s.dev[i].name, want, strlen(want)) == 0);
    }
    CHECK(parts == 12);
    CHECK(uploads == used); /* one placement of the key per device that proved with it */
    CHECK(busy == s.device_busy_s);
    engine_done(e, k);
}

/* slow devices: one job's partitions spread over both */
static void test_devices_spread(fixture *f)
{
    fake_farm farm;
    memset(&farm, 0, sizeof farm);
    farm.sleep_ms = 40;
    cz_engine_key *k;
    cz_engine *e = farm_engine(&farm, 2, f, &k);
    if (!e) return;
    CHECK(run_job(e, k, f, 8, NULL, NULL, 0));
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.dev[0].partitions + s.dev[1].partitions == 8);
    CHECK_MSG(s.dev[0].partitions >= 2 && s.dev[1].partitions >= 2, "partitions per device: %llu, %llu",
              (unsigned long long)s.dev[0].partitions, (unsigned long long)s.dev[1].partitions);
    CHECK(s.dev[0].key_uploads == 1 && s.dev[1].key_uploads == 1);
    CHECK_MSG(farm.h_steps == 8 && farm.h_with_c == 0, "H steps %d, %d of them given c", farm.h_steps,
              farm.h_with_c);
    printf("  2 devices, one job of 8: %llu + %llu partitions\n", (unsigned long long)s.dev[0].partitions,
           (unsigned long long)s.dev[1].partitions);
    engine_done(e, k);
}

/* A farm of lanes of one GPU: vram bytes, each step keeps ws. */
static void lane_farm(fake_farm *fm, size_t vram, size_t ws)
{
    memset(fm, 0, sizeof *fm);
    fm->lanes = 1;
    fm->vram = vram;
    fm->ws = ws;
}

/* How many of the first n lanes hold a working set. */
static int lanes_holding(const fake_farm *fm, int n)
{
    int h = 0;
    for (int i = 0; i < n; i++) h += __atomic_load_n(&fm->scratch[i], __ATOMIC_SEQ_CST) != 0;
    return h;
}

/* lanes (two entries of one GPU): a second step at once only where VRAM
 * holds a second working set */
static void test_lanes(fixture *f)
{
    const size_t MiB = (size_t)1 << 20;
    fake_farm farm;
    lane_farm(&farm, 1024 * MiB, 100 * MiB);
    farm.meet = 1;
    cz_engine_key *k;
    cz_engine *e = farm_engine(&farm, 2, f, &k);
    if (!e) return;
    cz_engine_stats s;
    /* room for two: the first step runs alone (its working set unknown),
     * then the lanes overlap */
    CHECK(run_job(e, k, f, 8, NULL, NULL, 0));
    cz_engine_stats_get(e, &s);
    CHECK(s.dev[0].lane_of == 0 && s.dev[1].lane_of == 0);
    CHECK_MSG(farm.max_h == 2, "H steps at once: %d", farm.max_h);
    CHECK(s.dev[0].partitions + s.dev[1].partitions == 8 && s.dev[0].partitions && s.dev[1].partitions);
    CHECK(farm.scratch[0] == farm.ws && farm.scratch[1] == farm.ws);
    /* one placement of the key for the GPU, resident for both lanes */
    CHECK(s.dev[0].key_uploads + s.dev[1].key_uploads == 1);
    CHECK(s.dev[0].keys_resident == 1 && s.dev[1].keys_resident == 1);
    uint64_t waits_room = s.dev[0].lane_waits + s.dev[1].lane_waits;
    CHECK_MSG(waits_room <= 2, "lane waits with room for two: %llu", (unsigned long long)waits_room);
    /* both hold a working set: VRAM taken by someone else stops neither */
    __atomic_store_n(&farm.other, farm.vram, __ATOMIC_SEQ_CST);
    __atomic_store_n(&farm.max_h, 0, __ATOMIC_SEQ_CST);
    CHECK(run_job(e, k, f, 8, NULL, NULL, 0));
    cz_engine_stats_get(e, &s);
    CHECK_MSG(farm.max_h == 2, "H steps at once, working sets held: %d", farm.max_h);
    CHECK(s.dev[0].lane_waits + s.dev[1].lane_waits == waits_room);
    CHECK(cz_engine_key_vram_need(e, k) == farm.ws);
    printf("  lanes with room for two: %llu + %llu partitions, %llu lane waits\n",
           (unsigned long long)s.dev[0].partitions, (unsigned long long)s.dev[1].partitions,
           (unsigned long long)waits_room);
    engine_done(e, k);

    /* room for one working set (and the blocks of a step) only: one step at
     * a time, every proof made */
    lane_farm(&farm, 300 * MiB, 100 * MiB);
    farm.sleep_ms = 5;
    e = farm_engine(&farm, 2, f, &k);
    if (!e) return;
    CHECK(run_job(e, k, f, 8, NULL, NULL, 0));
    CHECK(run_job(e, k, f, 8, NULL, NULL, 0));
    cz_engine_stats_get(e, &s);
    CHECK_MSG(farm.max_h == 1, "H steps at once without room: %d", farm.max_h);
    CHECK(s.dev[0].partitions + s.dev[1].partitions == 16);
    CHECK(s.dev[0].lane_waits + s.dev[1].lane_waits > 0);
    /* the lane without a working set never grew one */
    CHECK(!s.dev[0].partitions || !s.dev[1].partitions);
    CHECK(!farm.scratch[0] || !farm.scratch[1]);
    CHECK(s.devices_in_service == 2 && s.retries == 0);
    printf("  lanes with room for one: %llu + %llu partitions, %llu + %llu lane waits\n",
           (unsigned long long)s.dev[0].partitions, (unsigned long long)s.dev[1].partitions,
           (unsigned long long)s.dev[0].lane_waits, (unsigned long long)s.dev[1].lane_waits);
    /* the lane that holds the room fails: the other takes the steps over */
    const int holder = s.dev[0].partitions ? 0 : 1, other = 1 - holder;
    farm.fail_dev[0] = holder;
    farm.fail_from[0] = __atomic_load_n(&farm.calls[holder], __ATOMIC_SEQ_CST) + 1;
    CHECK(run_job(e, k, f, 8, NULL, NULL, 0));
    cz_engine_stats_get(e, &s);
    CHECK(s.devices_in_service == 1 && !s.dev[holder].in_service && s.retries == 1);
    CHECK_MSG(s.dev[other].partitions == 8, "the other lane's partitions: %llu",
              (unsigned long long)s.dev[other].partitions);
    engine_done(e, k);
}

/* lanes and keys of two sizes: a small key's need is what its steps ask
 * for, not what a large key grew the lane that ran it to; so the small key
 * runs on the other lane too, where the large one never does */
static void test_lanes_keys(fixture *small, fixture *large)
{
    const size_t MiB = (size_t)1 << 20;
    CHECK(small->zk.log_domain < large->zk.log_domain);
    fake_farm farm;
    lane_farm(&farm, 1000 * MiB, 50 * MiB);
    farm.big_log = large->zk.log_domain;
    farm.ws_big = 600 * MiB;
    farm.sleep_ms = 2;
    cz_engine_key *kl, *ks;
    cz_engine *e = farm_engine(&farm, 2, large, &kl);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_engine_key_add(e, small->zkey, &ks, &err) == CZ_OK);
    /* the large key: one lane (VRAM has no room for a second 600 MiB) */
    CHECK(run_job(e, kl, large, 4, NULL, NULL, 0));
    const int x = farm.scratch[0] ? 0 : 1, y = 1 - x;
    CHECK(cz_engine_key_vram_need(e, kl) == farm.ws_big && cz_engine_key_vram_need(e, ks) == 0);
    CHECK_MSG(farm.scratch[x] == farm.ws_big && farm.scratch[y] == 0 && farm.big_steps[x] == 4,
              "large key: scratch %zu / %zu MiB, large steps %d / %d", farm.scratch[0] / MiB, farm.scratch[1] / MiB,
              farm.big_steps[0], farm.big_steps[1]);
    /* the small key: its first step on the lane with the larger arena (600
     * MiB held), which must not become the small key's need */
    CHECK(run_job(e, ks, small, 4, NULL, NULL, 0));
    __atomic_store_n(&farm.max_h, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&farm.meet, 1, __ATOMIC_SEQ_CST);
    CHECK(run_job(e, ks, small, 8, NULL, NULL, 0));
    __atomic_store_n(&farm.meet, 0, __ATOMIC_SEQ_CST);
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK_MSG(farm.max_h == 2, "small key's H steps at once next to a large arena: %d", farm.max_h);
    CHECK_MSG(cz_engine_key_vram_need(e, ks) == farm.ws, "the small key's need: %zu MiB",
              cz_engine_key_vram_need(e, ks) / MiB);
    CHECK_MSG(farm.scratch[y] == farm.ws, "the other lane's scratch: %zu MiB", farm.scratch[y] / MiB);
    CHECK(s.dev[y].partitions > 0);
    /* the large key again, and both keys at once: never on the small lane */
    CHECK(run_job(e, kl, large, 4, NULL, NULL, 0));
    const cz_wtns *wl[4] = {&large->w, &large->w, &large->w, &large->w};
    const cz_wtns *wsm[4] = {&small->w, &small->w, &small->w, &small->w};
    cz_job *jl = NULL, *js = NULL;
    CHECK(cz_engine_submit(e, kl, wl, 4, 0, &jl, &err) == CZ_OK);
    CHECK(cz_engine_submit(e, ks, wsm, 4, 0, &js, &err) == CZ_OK);
    if (jl) {
        CHECK(cz_job_wait(jl, -1) == CZ_OK && job_all_ok(large, jl));
        cz_job_free(jl);
    }
    if (js) {
        CHECK(cz_job_wait(js, -1) == CZ_OK && job_all_ok(small, js));
        cz_job_free(js);
    }
    cz_engine_stats_get(e, &s);
    CHECK_MSG(farm.big_steps[y] == 0 && farm.big_steps[x] == 12 && farm.scratch[y] == farm.ws,
              "large steps %d / %d, the small lane's scratch %zu MiB", farm.big_steps[x], farm.big_steps[y],
              farm.scratch[y] / MiB);
    CHECK(s.devices_in_service == 2 && s.retries == 0);
    printf("  lanes, keys of 600 and 50 MiB in 1000: large steps %d + %d, partitions %llu + %llu, lane waits %llu + "
           "%llu\n",
           farm.big_steps[x], farm.big_steps[y], (unsigned long long)s.dev[x].partitions,
           (unsigned long long)s.dev[y].partitions, (unsigned long long)s.dev[x].lane_waits,
           (unsigned long long)s.dev[y].lane_waits);
    cz_engine_key_remove(e, ks);
    engine_done(e, kl);
}

/* three lanes, VRAM for two working sets (and the step's blocks): the two
 * lanes without one must not both be admitted on the same free memory */
static void test_lanes_three(fixture *f)
{
    const size_t MiB = (size_t)1 << 20;
    fake_farm farm;
    lane_farm(&farm, 200 * MiB + 300 * MiB, 100 * MiB); /* the gate's margin is 256 MiB plus the blocks */
    farm.meet = 1;
    cz_engine_key *k;
    cz_engine *e = farm_engine(&farm, 3, f, &k);
    if (!e) return;
    for (int r = 0; r < 4; r++) CHECK(run_job(e, k, f, 12, NULL, NULL, 0));
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    int holding = lanes_holding(&farm, 3);
    CHECK_MSG(holding == 2 && farm.max_h == 2, "lanes holding a working set: %d, H steps at once: %d", holding,
              farm.max_h);
    CHECK(s.dev[0].partitions + s.dev[1].partitions + s.dev[2].partitions == 48);
    printf("  3 lanes, VRAM for 2 working sets: partitions %llu + %llu + %llu, lane waits %llu + %llu + %llu\n",
           (unsigned long long)s.dev[0].partitions, (unsigned long long)s.dev[1].partitions,
           (unsigned long long)s.dev[2].partitions, (unsigned long long)s.dev[0].lane_waits,
           (unsigned long long)s.dev[1].lane_waits, (unsigned long long)s.dev[2].lane_waits);
    engine_done(e, k);

    /* room for three (and for a lane's admitted growth counted twice while
     * its first step allocates it): all three take steps and hold one */
    lane_farm(&farm, 400 * MiB + 300 * MiB, 100 * MiB);
    farm.meet = 1;
    e = farm_engine(&farm, 3, f, &k);
    if (!e) return;
    for (int r = 0; r < 3; r++) CHECK(run_job(e, k, f, 12, NULL, NULL, 0));
    cz_engine_stats_get(e, &s);
    holding = lanes_holding(&farm, 3);
    CHECK_MSG(holding == 3 && farm.max_h >= 2, "room for three: lanes holding a working set: %d, H steps at once: %d",
              holding, farm.max_h);
    engine_done(e, k);
}

/* a device that fails is taken out of service; its work is done elsewhere */
static void test_device_failure(fixture *f)
{
    fake_farm farm;
    memset(&farm, 0, sizeof farm);
    farm.sleep_ms = 10;
    farm.fail_dev[0] = 1;
    farm.fail_from[0] = 8; /* in its second partition (5 MSMs each) */
    cz_engine_key *k;
    cz_engine *e = farm_engine(&farm, 3, f, &k);
    if (!e) return;
    const cz_wtns *ws[8] = {&f->w, &f->w, &f->w, &f->w, &f->w, &f->w, &f->w, &f->w};
    cz_job *j[2];
    cz_error err;
    cz_error_clear(&err);
    int retried = 0;
    for (int i = 0; i < 2; i++) CHECK(cz_engine_submit(e, k, ws, 8, 0, &j[i], &err) == CZ_OK);
    for (int i = 0; i < 2; i++) {
        CHECK(cz_job_wait(j[i], -1) == CZ_OK && job_all_ok(f, j[i]));
        size_t n;
        const cz_partition_result *r = cz_job_results(j[i], &n);
        for (size_t q = 0; q < n; q++) {
            retried += r[q].t.retries;
            CHECK(r[q].t.retries == 0 || r[q].t.device != 1); /* proved elsewhere */
        }
        cz_job_free(j[i]);
    }
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.partitions_done == 16 && s.partitions_failed == 0);
    CHECK((uint64_t)retried == s.retries);
    CHECK(s.dev[0].partitions + s.dev[1].partitions + s.dev[2].partitions == 16);
    if (farm.calls[1] >= 8) { /* device 1 got to its second partition */
        CHECK(s.devices_in_service == 2 && !s.dev[1].in_service && s.dev[0].in_service && s.dev[2].in_service);
        CHECK(strstr(s.dev[1].error, "fake device 1") != NULL);
        CHECK(s.retries == 1 && s.dev[1].partitions == 1);
    } else {
        CHECK(s.devices_in_service == 3);
    }
    printf("  3 devices, device 1 dying at MSM 8: %llu + %llu + %llu partitions, %llu moved\n",
           (unsigned long long)s.dev[0].partitions, (unsigned long long)s.dev[1].partitions,
           (unsigned long long)s.dev[2].partitions, (unsigned long long)s.retries);
    engine_done(e, k);

    /* every device fails: the job fails naming the cause, later submits fail
     * at once, the budget is back to the key alone and the engine frees */
    memset(&farm, 0, sizeof farm);
    farm.fail_dev[0] = 0;
    farm.fail_from[0] = 1;
    farm.fail_dev[1] = 1;
    farm.fail_from[1] = 1;
    e = farm_engine(&farm, 2, f, &k);
    if (!e) return;
    cz_status st = CZ_OK;
    char msg[512] = "";
    CHECK(!run_job(e, k, f, 5, &st, msg, sizeof msg));
    CHECK_MSG(st == CZ_ERR_NO_DEVICE, "status %s", cz_status_str(st));
    CHECK_MSG(strstr(msg, "every device is out of service") && strstr(msg, "fake device"), "message '%s'", msg);
    CHECK(!run_job(e, k, f, 1, &st, msg, sizeof msg));
    CHECK(st == CZ_ERR_NO_DEVICE && strstr(msg, "every device is out of service"));
    cz_engine_stats_get(e, &s);
    CHECK(s.devices_in_service == 0 && s.partitions_done == 0 && s.partitions_failed == 5);
    CHECK(s.pool.in_use == 0 && s.budget.used == f->zk.bytes + s.pool.held);
    engine_done(e, k);

    /* the same from the configured fault injection on the "cpu" devices */
    cz_engine_config c;
    cpu_config(&c, (size_t)1 << 30, 0);
    c.gpus = 2;
    c.fail_device = 1;
    c.fail_step = 2;
    e = engine_cfg_with_key(&c, f, &k);
    if (e) {
        for (int i = 0; i < 4; i++) CHECK(run_job(e, k, f, 3, NULL, NULL, 0));
        cz_engine_stats_get(e, &s);
        CHECK(s.partitions_done == 12);
        if (s.dev[1].partitions + s.retries >= 2) { /* device 1 reached its second step */
            CHECK(!s.dev[1].in_service && strstr(s.dev[1].error, "fail_step") && s.retries == 1);
        }
        engine_done(e, k);
    }
    c.fail_device = 2; /* there is no device 2 */
    cz_error_clear(&err);
    CHECK(cz_engine_create(&e, &c, &err) == CZ_ERR_INVALID_ARG);
    CHECK(strstr(cz_error_msg(&err), "fail_device") != NULL);
}

/* two keys on two devices: each device places each key at most once */
static void test_devices_keys(fixture *f1, fixture *f2)
{
    fake_farm farm;
    memset(&farm, 0, sizeof farm);
    farm.sleep_ms = 5;
    cz_engine_key *k1, *k2;
    cz_engine *e = farm_engine(&farm, 2, f1, &k1);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_engine_key_add(e, f2->zkey, &k2, &err) == CZ_OK);
    const cz_wtns *w1[2] = {&f1->w, &f1->w}, *w2[2] = {&f2->w, &f2->w};
    cz_job *j[10];
    for (int i = 0; i < 10; i++)
        CHECK(cz_engine_submit(e, i % 2 ? k2 : k1, i % 2 ? w2 : w1, 2, 0, &j[i], &err) == CZ_OK);
    for (int i = 0; i < 10; i++) {
        CHECK(cz_job_wait(j[i], -1) == CZ_OK && job_all_ok(i % 2 ? f2 : f1, j[i]));
        cz_job_free(j[i]);
    }
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.dev[0].partitions + s.dev[1].partitions == 20);
    CHECK(s.dev[0].key_uploads <= 2 && s.dev[1].key_uploads <= 2);
    /* devices that are not lanes of one GPU measure no working set */
    CHECK(cz_engine_key_vram_need(e, k1) == 0 && cz_engine_key_vram_need(e, k2) == 0);
    printf("  2 keys, 2 devices, 10 jobs: partitions %llu + %llu, key placements %llu + %llu\n",
           (unsigned long long)s.dev[0].partitions, (unsigned long long)s.dev[1].partitions,
           (unsigned long long)s.dev[0].key_uploads, (unsigned long long)s.dev[1].key_uploads);
    cz_engine_key_remove(e, k2);
    engine_done(e, k1);
}

/* ---- events, keys registered without loading, admission ---- */

/* What a job's callback saw: counts per partition, the order of events. */
typedef struct ev_log {
    pthread_mutex_t mu;
    int part_events[64];  /* CZ_EVENT_PARTITION per partition */
    int stage_mask[64];   /* bit s: CZ_EVENT_STAGE of stage s seen */
    int stage_after_end;  /* a stage event after the partition's end */
    int job_events;
    int job_before_parts; /* the job event came while partitions were unreported */
    int bad_id;           /* an event with another job's id or tag */
    uint64_t id;
    void *tag;
    size_t n;
    cz_status job_status;
    cz_status part_status[64];
} ev_log;

static void ev_cb(void *ctx, const cz_engine_event *ev)
{
    ev_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    if (ev->job_id != l->id || ev->tag != l->tag || ev->partitions != l->n) l->bad_id++;
    if (ev->kind == CZ_EVENT_STAGE && ev->partition < 64) {
        if (l->part_events[ev->partition]) l->stage_after_end++;
        l->stage_mask[ev->partition] |= 1 << ev->stage;
    } else if (ev->kind == CZ_EVENT_PARTITION && ev->partition < 64) {
        l->part_events[ev->partition]++;
        l->part_status[ev->partition] = ev->status;
        if (!ev->result || ev->result->status != ev->status) l->bad_id++;
    } else if (ev->kind == CZ_EVENT_JOB) {
        l->job_events++;
        l->job_status = ev->status;
        for (size_t i = 0; i < l->n; i++)
            if (l->part_events[i] != 1) l->job_before_parts++;
    }
    pthread_mutex_unlock(&l->mu);
}

static void ev_init(ev_log *l, uint64_t id, size_t n)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->id = id;
    l->tag = l;
    l->n = n;
}

/* every partition and the job reported exactly once, the job last */
static int ev_exactly_once(ev_log *l)
{
    pthread_mutex_lock(&l->mu);
    int ok = l->job_events == 1 && l->job_before_parts == 0 && l->bad_id == 0 && l->stage_after_end == 0;
    for (size_t i = 0; i < l->n; i++) ok &= l->part_events[i] == 1;
    pthread_mutex_unlock(&l->mu);
    return ok;
}

/* submits n partitions of f with ws as borrowed witnesses, with ev_cb */
static cz_status submit_logged(cz_engine *e, cz_engine_key *k, const fixture *f, size_t n, int prio, ev_log *l,
                               uint64_t id, cz_job **j, cz_error *err)
{
    cz_synth *parts[64];
    ev_init(l, id, n);
    for (size_t i = 0; i < n; i++) {
        cz_status st = cz_synth_borrow_wtns(&parts[i], &f->w, NULL, err);
        if (st != CZ_OK) return st;
    }
    cz_job_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.id = id;
    spec.tag = l;
    spec.key = k;
    spec.parts = parts;
    spec.n = n;
    spec.priority = prio;
    spec.on_event = ev_cb;
    spec.event_ctx = l;
    cz_status st = cz_engine_submit_job(e, &spec, j, err);
    if (st != CZ_OK)
        for (size_t i = 0; i < n; i++) cz_synth_free(parts[i]);
    return st;
}

static void test_events(fixture *f)
{
    cz_engine_key *k;
    cz_engine *e = engine_with_key((size_t)1 << 30, 2, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    /* a job that completes: each partition went through the three stages */
    ev_log l;
    cz_job *j;
    CHECK(submit_logged(e, k, f, 5, 0, &l, 77, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f, j) && cz_job_done(j) && cz_job_id(j) == 77);
    CHECK(ev_exactly_once(&l) && l.job_status == CZ_OK);
    for (int i = 0; i < 5; i++) CHECK_MSG(l.stage_mask[i] == 7 && l.part_status[i] == CZ_OK, "partition %d stages %x", i, l.stage_mask[i]);
    cz_job_free(j);

    /* cancel: a running job and a queued one, each event once */
    ev_log lr, lq;
    cz_job *run, *queued;
    CHECK(submit_logged(e, k, f, 12, 0, &lr, 1, &run, &err) == CZ_OK);
    CHECK(submit_logged(e, k, f, 6, 0, &lq, 2, &queued, &err) == CZ_OK);
    cz_job_cancel(queued);
    while (cz_job_wait(run, 0.002) == CZ_ERR_TIMEOUT) {
        pthread_mutex_lock(&lr.mu);
        int ended = 0;
        for (int i = 0; i < 12; i++) ended += lr.part_events[i];
        pthread_mutex_unlock(&lr.mu);
        if (ended >= 2) break;
    }
    cz_job_cancel(run);
    cz_job_cancel(run); /* twice: no second report */
    CHECK(cz_job_wait(run, 60) == CZ_OK && cz_job_wait(queued, 60) == CZ_OK);
    CHECK(ev_exactly_once(&lr) && ev_exactly_once(&lq));
    CHECK(lq.job_status == CZ_ERR_CANCELLED);
    int cancelled = 0;
    for (int i = 0; i < 12; i++) cancelled += lr.part_status[i] == CZ_ERR_CANCELLED;
    CHECK_MSG(cancelled >= 1 && lr.job_status == CZ_ERR_CANCELLED, "%d cancelled", cancelled);
    cz_job_free(run);
    cz_job_free(queued);

    /* a witness of another circuit at submit: nothing reported, nothing owned */
    cz_wtns shorter = f->w;
    shorter.n--;
    cz_synth *bad;
    CHECK(cz_synth_borrow_wtns(&bad, &shorter, "the short witness", &err) == CZ_OK);
    cz_job_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.key = k;
    spec.parts = &bad;
    spec.n = 1;
    cz_error_clear(&err);
    CHECK(cz_engine_submit_job(e, &spec, &j, &err) == CZ_ERR_MISMATCH && j == NULL);
    CHECK(strstr(cz_error_msg(&err), "the short witness") != NULL);
    cz_synth_free(bad);

    /* witness files read at synthesis, their memory counted as CZ_MEM_WITNESS */
    cz_synth *fs[3];
    for (int i = 0; i < 3; i++) CHECK(cz_synth_from_file(&fs[i], f->wtns, &err) == CZ_OK);
    cz_synth_info si;
    CHECK(cz_synth_info_get(fs[0], &si, &err) == CZ_OK && si.witness_bytes == (size_t)f->w.n * 32);
    ev_init(&l, 9, 3);
    spec.parts = fs;
    spec.n = 3;
    spec.id = 9;
    spec.tag = &l;
    spec.on_event = ev_cb;
    spec.event_ctx = &l;
    CHECK(cz_engine_submit_job(e, &spec, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f, j) && ev_exactly_once(&l));
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.budget.by[CZ_MEM_WITNESS] == 0 && s.jobs_active == 0 && s.partitions_queued == 0);
    cz_job_free(j);
    cz_synth *missing;
    cz_error_clear(&err);
    CHECK(cz_synth_from_file(&missing, "/nonexistent/w.wtns", &err) == CZ_ERR_IO &&
          strstr(cz_error_msg(&err), "/nonexistent/w.wtns"));
    engine_done(e, k);

    /* device failures: every event still once (partitions moved, or failed
     * when no device is left) */
    fake_farm farm;
    memset(&farm, 0, sizeof farm);
    farm.sleep_ms = 5;
    farm.fail_dev[0] = 1;
    farm.fail_from[0] = 3;
    e = farm_engine(&farm, 2, f, &k);
    if (!e) return;
    CHECK(submit_logged(e, k, f, 6, 0, &l, 5, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && ev_exactly_once(&l) && l.job_status == CZ_OK && job_all_ok(f, j));
    cz_job_free(j);
    engine_done(e, k);
    memset(&farm, 0, sizeof farm);
    farm.fail_dev[0] = 0;
    farm.fail_from[0] = 1;
    farm.fail_dev[1] = 1;
    farm.fail_from[1] = 1;
    e = farm_engine(&farm, 2, f, &k);
    if (!e) return;
    CHECK(submit_logged(e, k, f, 4, 0, &l, 6, &j, &err) == CZ_OK);
    CHECK(cz_job_wait(j, -1) == CZ_OK && ev_exactly_once(&l) && l.job_status == CZ_ERR_NO_DEVICE);
    cz_job_free(j);
    engine_done(e, k);
}

typedef struct {
    pthread_mutex_t mu;
    int calls;
    cz_status st;
    char msg[256];
} load_log;

static void load_cb(void *ctx, cz_engine_key *k, cz_status st, const char *error)
{
    (void)k;
    load_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    l->calls++;
    l->st = st;
    snprintf(l->msg, sizeof l->msg, "%s", error);
    pthread_mutex_unlock(&l->mu);
}

static int load_calls(load_log *l)
{
    pthread_mutex_lock(&l->mu);
    int c = l->calls;
    pthread_mutex_unlock(&l->mu);
    return c;
}

static void test_keys_async(fixture *f1, fixture *f2)
{
    cz_engine *e = engine((size_t)1 << 30, 2);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    cz_engine_key *k;
    CHECK(cz_engine_key_register(e, f1->zkey, &k, &err) == CZ_OK);
    CHECK(cz_engine_key_state_get(e, k) == CZ_KEY_UNLOADED);
    CHECK(cz_engine_key_bytes(k) == f1->zk.bytes); /* predicted from the header */
    CHECK(cz_engine_key_info(k)->n_vars == f1->zk.n_vars && cz_engine_key_info(k)->curve == f1->zk.curve);
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.budget.used == 0 && s.keys == 1 && s.keys_loaded == 0);
    load_log ll;
    memset(&ll, 0, sizeof ll);
    pthread_mutex_init(&ll.mu, NULL);
    CHECK(cz_engine_key_preload(e, k, load_cb, &ll, &err) == CZ_OK);
    for (int i = 0; i < 3000 && load_calls(&ll) == 0; i++) usleep(1000);
    CHECK(load_calls(&ll) == 1 && ll.st == CZ_OK);
    CHECK(cz_engine_key_state_get(e, k) == CZ_KEY_LOADED);
    cz_engine_stats_get(e, &s);
    CHECK(s.budget.by[CZ_MEM_KEY] + s.budget.by[CZ_MEM_MATRIX] == f1->zk.bytes && s.budget.by[CZ_MEM_MATRIX] > 0);
    /* preloading a loaded key reports at once */
    CHECK(cz_engine_key_preload(e, k, load_cb, &ll, &err) == CZ_OK);
    for (int i = 0; i < 3000 && load_calls(&ll) < 2; i++) usleep(1000);
    CHECK(load_calls(&ll) == 2 && ll.st == CZ_OK);
    CHECK(run_job(e, k, f1, 2, NULL, NULL, 0));
    CHECK(cz_engine_key_jobs(e, k) == 0);
    /* a job on a key never loaded loads it in synthesis */
    cz_engine_key *k2;
    CHECK(cz_engine_key_register(e, f2->zkey, &k2, &err) == CZ_OK);
    CHECK(run_job(e, k2, f2, 2, NULL, NULL, 0) && cz_engine_key_state_get(e, k2) == CZ_KEY_LOADED);
    /* not a key: refused at registration, naming the file */
    cz_engine_key *bad = NULL;
    cz_error_clear(&err);
    CHECK(cz_engine_key_register(e, f1->wtns, &bad, &err) != CZ_OK && bad == NULL);
    CHECK(strstr(cz_error_msg(&err), f1->wtns) != NULL);
    cz_engine_key_remove(e, k2);
    cz_engine_key_remove(e, k);
    /* a preload of another key, its callback once */
    CHECK(cz_engine_key_register(e, f2->zkey, &k, &err) == CZ_OK);
    memset(&ll, 0, sizeof ll);
    pthread_mutex_init(&ll.mu, NULL);
    CHECK(cz_engine_key_preload(e, k, load_cb, &ll, &err) == CZ_OK);
    for (int i = 0; i < 3000 && load_calls(&ll) == 0; i++) usleep(1000);
    CHECK(load_calls(&ll) == 1);
    cz_engine_key_remove(e, k);
    /* a key removed while its preload is queued or loading (cuzkd's DELETE
     * /v1/keys): the preload's own registration keeps it until the callback
     * has returned, then the key goes (the sanitizer builds see a use after free) */
    CHECK(cz_engine_key_register(e, f1->zkey, &k, &err) == CZ_OK);
    memset(&ll, 0, sizeof ll);
    pthread_mutex_init(&ll.mu, NULL);
    CHECK(cz_engine_key_preload(e, k, load_cb, &ll, &err) == CZ_OK);
    cz_engine_key_remove(e, k);
    for (int i = 0; i < 3000 && load_calls(&ll) == 0; i++) usleep(1000);
    CHECK(load_calls(&ll) == 1 && ll.st == CZ_OK);
    for (int i = 0; i < 3000; i++) {
        cz_engine_stats_get(e, &s);
        if (s.keys == 0) break;
        usleep(1000);
    }
    CHECK_MSG(s.keys == 0, "after the preload: %d keys", s.keys);
    cz_engine_free(e);
}

/* drain: partitions in a stage finish, no new one starts, the rest waits */
static void test_drain(fixture *f)
{
    cz_engine_key *k;
    cz_engine *e = engine_with_key((size_t)1 << 30, 1, f, &k);
    if (!e) return;
    cz_error err;
    cz_error_clear(&err);
    ev_log l;
    cz_job *j;
    CHECK(submit_logged(e, k, f, 8, 0, &l, 3, &j, &err) == CZ_OK);
    for (int i = 0; i < 5000 && cz_engine_in_flight(e) == 0 && !cz_job_done(j); i++) usleep(200);
    cz_engine_drain(e, 1);
    for (int i = 0; i < 20000 && cz_engine_in_flight(e) > 0; i++) usleep(500);
    CHECK(cz_engine_in_flight(e) == 0);
    pthread_mutex_lock(&l.mu);
    int ended = 0;
    for (int i = 0; i < 8; i++) ended += l.part_events[i];
    pthread_mutex_unlock(&l.mu);
    usleep(20000); /* still nothing new starts */
    CHECK(cz_engine_in_flight(e) == 0);
    pthread_mutex_lock(&l.mu);
    int ended2 = 0;
    for (int i = 0; i < 8; i++) ended2 += l.part_events[i];
    pthread_mutex_unlock(&l.mu);
    CHECK_MSG(ended >= 1 && ended < 8 && ended2 == ended && !cz_job_done(j), "ended %d then %d", ended, ended2);
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    CHECK(s.partitions_queued == (uint64_t)(8 - ended));
    cz_engine_drain(e, 0);
    CHECK(cz_job_wait(j, -1) == CZ_OK && job_all_ok(f, j) && ev_exactly_once(&l));
    cz_job_free(j);
    engine_done(e, k);
}

static void test_admit(fixture *f)
{
    /* room for the key and one partition, not two */
    size_t budget = f->zk.bytes + f->part + f->part / 2;
    cz_engine_key *k;
    cz_engine *e = engine_with_key(budget, 1, f, &k);
    if (!e) return;
    cz_engine_admission a;
    CHECK(cz_engine_admit(e, k, 0, &a) == CZ_OK);
    CHECK(a.fits && a.can_start && a.key_bytes == 0 && a.need == f->part && a.missing == 0 && a.limit == budget);
    CHECK(a.devices_in_service == 1);
    /* a witness that does not fit beside the key */
    CHECK(cz_engine_admit(e, k, budget, &a) == CZ_OK);
    CHECK(!a.fits && !a.can_start && a.missing > 0);
    /* with a partition's memory taken by someone else: fits, cannot start now */
    cz_budget *b = cz_engine_budget(e);
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_budget_reserve(b, CZ_MEM_WORKSET, f->part, 0, NULL, &err) == CZ_OK);
    CHECK(cz_engine_admit(e, k, 0, &a) == CZ_OK);
    CHECK_MSG(a.fits && !a.can_start && a.missing > 0 && a.missing <= f->part, "missing %zu", a.missing);
    cz_budget_release(b, CZ_MEM_WORKSET, f->part);
    engine_done(e, k);
}

/* device specs that cannot be served are refused at create */
static void test_device_specs(void)
{
    const char *bad[] = {"cuda:0,0,0,0,0", "cuda:", "cuda:x", "cuda:1,", "gpu", "cuda:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cz_engine_config c;
        cz_engine_config_default(&c);
        c.device = bad[i];
        cz_engine *e = NULL;
        cz_error err;
        cz_error_clear(&err);
        cz_status st = cz_engine_create(&e, &c, &err);
        CHECK_MSG(st == CZ_ERR_INVALID_ARG && e == NULL && strstr(cz_error_msg(&err), bad[i]),
                  "'%s': %s (%s)", bad[i], cz_status_str(st), cz_error_msg(&err));
    }
    cz_engine_config c;
    cz_engine_config_default(&c);
    c.device = "cpu";
    c.gpus = CZ_ENGINE_MAX_DEVICES + 1;
    cz_engine *e = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_engine_create(&e, &c, &err) == CZ_ERR_INVALID_ARG && e == NULL);
    c.gpus = 0;
    c.gpu_lanes = 5;
    cz_error_clear(&err);
    CHECK(cz_engine_create(&e, &c, &err) == CZ_ERR_INVALID_ARG && e == NULL && strstr(cz_error_msg(&err), "gpu_lanes 5"));
    /* lanes are for GPUs: CPU devices stay as many as asked for */
    c.gpu_lanes = 3;
    c.gpus = 2;
    CHECK(cz_engine_create(&e, &c, &err) == CZ_OK && cz_engine_device_count(e) == 2);
    cz_engine_free(e);
    e = NULL;
    c.gpus = 0;
    c.make_backend = fake_make;
    CHECK(cz_engine_create(&e, &c, &err) == CZ_ERR_INVALID_ARG && e == NULL);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/cz_test_engine.XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    static fixture f1, f2;
    if (make_fixture(&f1, "bn", CZ_CURVE_BN254, CZ_GEN_DENSE, 500, 1) &&
        make_fixture(&f2, "bls", CZ_CURVE_BLS12_381, CZ_GEN_CHAIN, 1500, 2)) {
        CHECK(f2.ab > f1.ab);
        CHECK(measure_part(&f1) && measure_part(&f2));
        printf("  per partition besides the key: %zu (a, b %zu) and %zu (%zu) bytes\n", f1.part, f1.ab, f2.part,
               f2.ab);
        test_partitions(&f1);
        test_small_budget(&f1);
        test_too_big(&f1);
        test_max_ready(&f1);
        test_eviction(&f1, &f2);
        test_cancel(&f1);
        test_priority(&f1);
        test_many(&f1);
        test_devices_cpu(&f1);
        test_devices_spread(&f1);
        test_lanes(&f1);
        test_lanes_keys(&f1, &f2);
        test_lanes_three(&f1);
        test_device_failure(&f1);
        test_devices_keys(&f1, &f2);
        test_device_specs();
        test_events(&f1);
        test_keys_async(&f1, &f2);
        test_admit(&f1);
        test_drain(&f1);
        free_fixture(&f1);
        free_fixture(&f2);
    }
    rmdir(g_dir);
    return cz_test_finish("test_engine");
}
