/*
 * store tests (daemon/store_sqlite.c) in a temporary directory: every op of
 * the table; keys kept on a second put; idempotency (the same key and hash
 * give the stored job back with *existing = 1, another hash is
 * CZ_ERR_MISMATCH and writes nothing); claim/complete/fail fencing (another
 * owner, an old attempt, a second complete or a result for a partition that
 * is not running are refused and change nothing); requeue; job transitions
 * (done when every partition is, failed with its code and message and the
 * queued partitions cancelled, cancel); delete of an unfinished job refused;
 * expiry with and without until_fetched, oldest first, at most max;
 * recovery after a crash (a child process writes and _exits without
 * closing; the parent reopens, recovers: running partitions of this owner
 * queued again, done ones untouched, another owner's left alone); the
 * schema version stored and a newer one refused; a file that is not a
 * database refused; a submit failing in the database halfway leaves nothing; everything equal across close/reopen; quotes, SQL and
 * unicode in every text survive; 8 threads submitting, claiming, requeueing
 * and completing with every partition completed exactly once.
 */
#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/store.h"
#include "test_util.h"

static char g_dir[256];

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void db_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static cz_store *open_at(const char *path)
{
    cz_store *s = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_store_sqlite_open(&s, path, &err);
    CHECK_MSG(st == CZ_OK && s, "open %s: %s", path, cz_error_msg(&err));
    return st == CZ_OK ? s : NULL;
}

static void mk_job(cz_store_job *j, const char *id, const char *idem, const char *hash, const char *prio, uint32_t n)
{
    memset(j, 0, sizeof *j);
    snprintf(j->id, sizeof j->id, "%s", id);
    snprintf(j->key_id, sizeof j->key_id, "k_0123");
    snprintf(j->priority, sizeof j->priority, "%s", prio);
    j->state = CZ_JOB_QUEUED;
    j->n_parts = n;
    j->created = 0;
    snprintf(j->idem_key, sizeof j->idem_key, "%s", idem);
    snprintf(j->idem_hash, sizeof j->idem_hash, "%s", hash);
}

/* partitions given in reverse order of idx (the store sorts them) */
static void mk_parts(cz_store_part *p, uint32_t n, const char *job)
{
    memset(p, 0, n * sizeof *p);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = n - 1 - i;
        p[i].idx = idx;
        p[i].state = CZ_PART_QUEUED;
        snprintf(p[i].witness, sizeof p[i].witness, "/spool/%s/%u.wtns", job, idx);
        p[i].spooled = idx % 2;
    }
}

static cz_status submit(cz_store *s, const char *id, const char *idem, const char *hash, const char *prio, uint32_t n,
                        cz_store_job *out, int *existing, cz_error *err)
{
    cz_store_job j;
    cz_store_part p[16];
    mk_job(&j, id, idem, hash, prio, n);
    mk_parts(p, n, id);
    cz_store_job o;
    int ex = -1;
    cz_status st = s->ops->submit(s, &j, p, out ? out : &o, existing ? existing : &ex, err);
    return st;
}

/* a result whose texts and bytes depend on (job, idx, tag) */
typedef struct res {
    cz_store_part p;
    char proof[256], pub[128], tim[128];
} res;

static void mk_res(res *r, const char *job, uint32_t idx, int tag)
{
    memset(r, 0, sizeof *r);
    snprintf(r->proof, sizeof r->proof, "{\"pi_a\": [\"%.*s\", \"%u\"], \"tag\": %d, \"q\": \"it's \\\"x\\\"\"}",
             CZ_STORE_ID_MAX, job, idx, tag);
    snprintf(r->pub, sizeof r->pub, "[\"%u\", \"%d\"]", idx, tag);
    snprintf(r->tim, sizeof r->tim, "{\"total\": %d.5}", tag);
    r->p.proof_json = r->proof;
    r->p.public_json = r->pub;
    r->p.timings_json = r->tim;
    for (int i = 0; i < 192; i++) r->p.proof_bin[i] = (uint8_t)(i * 7 + idx + tag); /* zero bytes included */
    r->p.has_bin = 1;
}

static int res_equal(const cz_store_part *got, const res *want)
{
    return got->proof_json && got->public_json && got->timings_json && !strcmp(got->proof_json, want->proof) &&
           !strcmp(got->public_json, want->pub) && !strcmp(got->timings_json, want->tim) && got->has_bin &&
           !memcmp(got->proof_bin, want->p.proof_bin, 192);
}

static cz_store_job get_job(cz_store *s, const char *id, int *found)
{
    cz_store_job j;
    memset(&j, 0, sizeof j);
    int f = -1;
    CHECK(s->ops->job_get(s, id, &j, &f, NULL) == CZ_OK);
    if (found) *found = f;
    return j;
}

static cz_store_part *get_parts(cz_store *s, const char *id, int with_results, size_t *n)
{
    cz_store_part *p = NULL;
    *n = 0;
    cz_error err;
    cz_error_clear(&err);
    CHECK_MSG(s->ops->parts_get(s, id, with_results, &p, n, &err) == CZ_OK, "%s", cz_error_msg(&err));
    return p;
}

static cz_store_counts get_counts(cz_store *s)
{
    cz_store_counts c;
    memset(&c, 0, sizeof c);
    CHECK(s->ops->counts(s, &c, NULL) == CZ_OK);
    return c;
}

static uint32_t claim_ok(cz_store *s, const char *id, uint32_t idx, const char *owner)
{
    uint32_t a = 0;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = s->ops->claim(s, id, idx, owner, &a, &err);
    CHECK_MSG(st == CZ_OK, "claim %s/%u: %s", id, idx, cz_error_msg(&err));
    return a;
}

/* ---- names ------------------------------------------------------------------ */

static void test_names(void)
{
    CHECK(!strcmp(cz_job_state_name(CZ_JOB_QUEUED), "queued"));
    CHECK(!strcmp(cz_job_state_name(CZ_JOB_RUNNING), "running"));
    CHECK(!strcmp(cz_job_state_name(CZ_JOB_DONE), "done"));
    CHECK(!strcmp(cz_job_state_name(CZ_JOB_FAILED), "failed"));
    CHECK(!strcmp(cz_job_state_name(CZ_JOB_CANCELLED), "cancelled"));
    CHECK(!strcmp(cz_job_state_name((cz_job_state)42), "unknown"));
    CHECK(!strcmp(cz_part_state_name(CZ_PART_RUNNING), "running"));
    CHECK(!strcmp(cz_part_state_name(CZ_PART_CANCELLED), "cancelled"));
    CHECK(!strcmp(cz_part_state_name((cz_part_state)-1), "unknown"));
    CHECK(!cz_job_state_final(CZ_JOB_QUEUED) && !cz_job_state_final(CZ_JOB_RUNNING));
    CHECK(cz_job_state_final(CZ_JOB_DONE) && cz_job_state_final(CZ_JOB_FAILED) &&
          cz_job_state_final(CZ_JOB_CANCELLED));
    cz_store_parts_free(NULL, 3);
    cz_store_close(NULL);
}

/* ---- keys ------------------------------------------------------------------- */

static void test_keys(cz_store *s)
{
    CHECK(!strcmp(s->ops->name, s->ops->shared ? "postgres" : "sqlite"));
    cz_store_key k = {0}, g;
    snprintf(k.id, sizeof k.id, "k_aa");
    snprintf(k.path, sizeof k.path, "/keys/a.zkey");
    k.created = 100.5;
    CHECK(s->ops->key_put(s, &k, NULL) == CZ_OK);
    cz_store_key k2 = k;
    snprintf(k2.path, sizeof k2.path, "/keys/other.zkey");
    k2.created = 200;
    CHECK(s->ops->key_put(s, &k2, NULL) == CZ_OK); /* insert or keep: the first stays */
    int found = -1;
    CHECK(s->ops->key_get(s, "k_aa", &g, &found, NULL) == CZ_OK && found == 1);
    CHECK(!strcmp(g.path, "/keys/a.zkey") && g.created == 100.5);
    cz_store_key kb = {0};
    snprintf(kb.id, sizeof kb.id, "k_bb");
    snprintf(kb.path, sizeof kb.path, "/keys/b.zkey");
    kb.created = 150;
    CHECK(s->ops->key_put(s, &kb, NULL) == CZ_OK);
    found = -1;
    CHECK(s->ops->key_get(s, "k_none", &g, &found, NULL) == CZ_OK && found == 0);
    char longid[300];
    memset(longid, 'x', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    found = -1;
    CHECK(s->ops->key_get(s, longid, &g, &found, NULL) == CZ_OK && found == 0);
    cz_store_key *list = NULL;
    size_t n = 0;
    CHECK(s->ops->key_list(s, &list, &n, NULL) == CZ_OK && n == 2);
    if (n == 2) CHECK(!strcmp(list[0].id, "k_aa") && !strcmp(list[1].id, "k_bb") && !strcmp(list[1].path, "/keys/b.zkey"));
    free(list);
    CHECK(s->ops->key_delete(s, "k_bb", NULL) == CZ_OK);
    CHECK(s->ops->key_delete(s, "k_bb", NULL) == CZ_OK); /* gone already: fine */
    CHECK(s->ops->key_list(s, &list, &n, NULL) == CZ_OK && n == 1);
    free(list);
    /* bad keys */
    cz_error err;
    cz_error_clear(&err);
    cz_store_key bad = {0};
    snprintf(bad.path, sizeof bad.path, "/x");
    CHECK(s->ops->key_put(s, &bad, &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, "store "));
    CHECK(s->ops->key_put(s, NULL, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(s->ops->heartbeat(s, "hostA", NULL) == CZ_OK);
}

/* ---- the life of a job --------------------------------------------------------- */

static void test_job_life(cz_store *s)
{
    cz_error err;
    cz_error_clear(&err);
    cz_store_job out;
    int ex = -1;
    CHECK_MSG(submit(s, "j_life", "", "h0", "high", 3, &out, &ex, &err) == CZ_OK, "%s", cz_error_msg(&err));
    CHECK(ex == 0 && !strcmp(out.id, "j_life") && out.state == CZ_JOB_QUEUED && out.n_parts == 3);
    CHECK(out.parts_done == 0 && out.parts_failed == 0 && out.created > 1e9 && out.started == 0 && out.finished == 0);
    CHECK(!strcmp(out.priority, "high") && !strcmp(out.key_id, "k_0123") && !strcmp(out.idem_hash, "h0"));
    int found = -1;
    cz_store_job j = get_job(s, "j_life", &found);
    CHECK(found == 1 && j.state == CZ_JOB_QUEUED && j.n_parts == 3 && j.created == out.created);
    get_job(s, "j_nothing", &found);
    CHECK(found == 0);
    size_t n;
    cz_store_part *p = get_parts(s, "j_life", 1, &n);
    CHECK(n == 3);
    for (size_t i = 0; i < n; i++) {
        char w[64];
        snprintf(w, sizeof w, "/spool/j_life/%zu.wtns", i);
        CHECK(p[i].idx == i && p[i].state == CZ_PART_QUEUED && !strcmp(p[i].witness, w) && p[i].attempts == 0);
        CHECK(p[i].spooled == (int)(i % 2) && !p[i].proof_json && !p[i].public_json && !p[i].timings_json);
        CHECK(!p[i].has_bin && p[i].owner[0] == '\0');
    }
    cz_store_parts_free(p, n);
    p = get_parts(s, "j_nothing", 0, &n);
    CHECK(n == 0 && p == NULL);
    cz_store_counts c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_QUEUED] == 1 && c.queued_by_prio[1] == 1 && c.queued_by_prio[2] == 0 && c.bytes > 0);
    cz_store_job *u = NULL;
    CHECK(s->ops->jobs_unfinished(s, &u, &n, NULL) == CZ_OK && n == 1 && u && !strcmp(u[0].id, "j_life"));
    free(u);

    /* bad submits write nothing */
    cz_store_job bj;
    cz_store_part bp[4];
    mk_job(&bj, "j_bad", "", "", "urgent", 2);
    mk_parts(bp, 2, "j_bad");
    cz_error_clear(&err);
    CHECK(s->ops->submit(s, &bj, bp, &out, &ex, &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, "urgent"));
    mk_job(&bj, "j_bad", "", "", "low", 0);
    CHECK(s->ops->submit(s, &bj, bp, &out, &ex, NULL) == CZ_ERR_INVALID_ARG);
    mk_job(&bj, "j_bad", "", "", "low", 2);
    bp[1].idx = bp[0].idx; /* twice the same partition */
    CHECK(s->ops->submit(s, &bj, bp, &out, &ex, NULL) == CZ_ERR_INVALID_ARG);
    mk_parts(bp, 2, "j_bad");
    bp[0].witness[0] = '\0';
    CHECK(s->ops->submit(s, &bj, bp, &out, &ex, NULL) == CZ_ERR_INVALID_ARG);
    mk_parts(bp, 2, "j_bad");
    bj.id[0] = '\0';
    CHECK(s->ops->submit(s, &bj, bp, &out, &ex, NULL) == CZ_ERR_INVALID_ARG);
    cz_error_clear(&err);
    CHECK(submit(s, "j_life", "", "", "low", 2, &out, &ex, &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, "j_life"));
    get_job(s, "j_bad", &found);
    CHECK(found == 0);
    c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_QUEUED] == 1);

    /* claim */
    uint32_t a0 = claim_ok(s, "j_life", 0, "hostA");
    CHECK(a0 == 1);
    j = get_job(s, "j_life", NULL);
    CHECK(j.state == CZ_JOB_RUNNING && j.started > 1e9 && j.finished == 0);
    uint32_t a = 77;
    cz_error_clear(&err);
    CHECK(s->ops->claim(s, "j_life", 0, "hostB", &a, &err) == CZ_ERR_MISMATCH && a == 77 && strstr(err.msg, "running"));
    CHECK(s->ops->claim(s, "j_life", 9, "hostA", &a, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(s->ops->claim(s, "j_none", 0, "hostA", &a, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(s->ops->claim(s, "j_life", 1, NULL, &a, NULL) == CZ_ERR_INVALID_ARG);
    c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_RUNNING] == 1 && c.jobs[CZ_JOB_QUEUED] == 0 && c.queued_by_prio[1] == 1);

    /* complete, fenced */
    res r0, r1, r2, rx;
    mk_res(&r0, "j_life", 0, 1);
    mk_res(&rx, "j_life", 0, 99);
    cz_error_clear(&err);
    CHECK(s->ops->complete(s, "j_life", 0, "hostB", a0, &rx.p, NULL, &err) == CZ_ERR_MISMATCH && strstr(err.msg, "hostB"));
    CHECK(s->ops->complete(s, "j_life", 0, "hostA", a0 + 1, &rx.p, NULL, NULL) == CZ_ERR_MISMATCH);
    CHECK(s->ops->complete(s, "j_life", 0, "hostA", a0 - 1, &rx.p, NULL, NULL) == CZ_ERR_MISMATCH);
    CHECK(s->ops->fail(s, "j_life", 0, "hostB", a0, 0, "device", "x", NULL) == CZ_ERR_MISMATCH);
    CHECK(s->ops->complete(s, "j_life", 1, "hostA", 1, &rx.p, NULL, NULL) == CZ_ERR_MISMATCH); /* queued */
    cz_store_part incomplete = rx.p;
    incomplete.public_json = NULL;
    CHECK(s->ops->complete(s, "j_life", 0, "hostA", a0, &incomplete, NULL, NULL) == CZ_ERR_INVALID_ARG);
    p = get_parts(s, "j_life", 1, &n);
    CHECK(n == 3 && p[0].state == CZ_PART_RUNNING && p[0].attempts == 1 && !strcmp(p[0].owner, "hostA") &&
          !p[0].proof_json && !p[0].has_bin && p[1].state == CZ_PART_QUEUED);
    cz_store_parts_free(p, n);
    cz_error_clear(&err);
    CHECK_MSG(s->ops->complete(s, "j_life", 0, "hostA", a0, &r0.p, NULL, &err) == CZ_OK, "%s", cz_error_msg(&err));
    CHECK(s->ops->complete(s, "j_life", 0, "hostA", a0, &rx.p, NULL, NULL) == CZ_ERR_MISMATCH); /* a second time */
    CHECK(s->ops->fail(s, "j_life", 0, "hostA", a0, 1, "device", "x", NULL) == CZ_ERR_MISMATCH);
    j = get_job(s, "j_life", NULL);
    CHECK(j.state == CZ_JOB_RUNNING && j.parts_done == 1 && j.finished == 0);
    p = get_parts(s, "j_life", 1, &n);
    CHECK(n == 3 && p[0].state == CZ_PART_DONE && res_equal(&p[0], &r0) && !p[1].proof_json && !p[2].proof_json);
    cz_store_parts_free(p, n);
    p = get_parts(s, "j_life", 0, &n); /* without results */
    CHECK(n == 3 && p[0].state == CZ_PART_DONE && !p[0].proof_json && !p[0].public_json && !p[0].timings_json);
    cz_store_parts_free(p, n);

    /* requeue (a device error) and an old attempt's late result */
    uint32_t a1 = claim_ok(s, "j_life", 1, "hostA");
    CHECK(a1 == 1);
    CHECK(s->ops->fail(s, "j_life", 1, "hostA", a1, 1, "device", "GPU 0 fell off the bus", NULL) == CZ_OK);
    p = get_parts(s, "j_life", 0, &n);
    CHECK(n == 3 && p[1].state == CZ_PART_QUEUED && p[1].attempts == 1 && !strcmp(p[1].error, "GPU 0 fell off the bus"));
    cz_store_parts_free(p, n);
    j = get_job(s, "j_life", NULL);
    CHECK(j.state == CZ_JOB_RUNNING && j.error_code[0] == '\0'); /* partition 0 is done */
    uint32_t a1b = claim_ok(s, "j_life", 1, "hostA");
    CHECK(a1b == 2);
    mk_res(&r1, "j_life", 1, 2);
    CHECK(s->ops->complete(s, "j_life", 1, "hostA", a1, &rx.p, NULL, NULL) == CZ_ERR_MISMATCH); /* attempt 1: late */
    CHECK(s->ops->complete(s, "j_life", 1, "hostA", a1b, &r1.p, NULL, NULL) == CZ_OK);
    j = get_job(s, "j_life", NULL);
    CHECK(j.state == CZ_JOB_RUNNING && j.parts_done == 2);

    /* the last partition: the job is done */
    uint32_t a2 = claim_ok(s, "j_life", 2, "hostA");
    mk_res(&r2, "j_life", 2, 3);
    r2.p.has_bin = 0; /* a BN254 proof: no bellperson bytes */
    r2.p.timings_json = NULL;
    CHECK(s->ops->complete(s, "j_life", 2, "hostA", a2, &r2.p, NULL, NULL) == CZ_OK);
    j = get_job(s, "j_life", NULL);
    CHECK(j.state == CZ_JOB_DONE && j.parts_done == 3 && j.parts_failed == 0 && j.finished >= j.started &&
          j.started >= j.created && !j.fetched);
    p = get_parts(s, "j_life", 1, &n);
    CHECK(n == 3 && res_equal(&p[0], &r0) && res_equal(&p[1], &r1) && p[1].attempts == 2);
    CHECK(n == 3 && p[2].proof_json && !strcmp(p[2].proof_json, r2.proof) && !p[2].has_bin && !p[2].timings_json);
    cz_store_parts_free(p, n);
    CHECK(s->ops->jobs_unfinished(s, &u, &n, NULL) == CZ_OK && n == 0);
    free(u);
    c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_DONE] == 1 && c.jobs[CZ_JOB_RUNNING] == 0 && c.queued_by_prio[1] == 0);
    CHECK(s->ops->mark_fetched(s, "j_life", NULL) == CZ_OK);
    CHECK(get_job(s, "j_life", NULL).fetched == 1);
    CHECK(s->ops->mark_fetched(s, "j_none", NULL) == CZ_ERR_INVALID_ARG);
    int changed = -1;
    CHECK(s->ops->cancel(s, "j_life", &changed, NULL) == CZ_OK && changed == 0);
    CHECK(get_job(s, "j_life", NULL).state == CZ_JOB_DONE);

    /* delete */
    CHECK(s->ops->job_delete(s, "j_life", NULL) == CZ_OK);
    get_job(s, "j_life", &found);
    CHECK(found == 0);
    p = get_parts(s, "j_life", 1, &n);
    CHECK(n == 0 && !p);
    CHECK(s->ops->job_delete(s, "j_life", NULL) == CZ_OK); /* gone: fine */
    c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_DONE] == 0);
}

/* ---- idempotency -------------------------------------------------------------- */

static void test_idempotency(cz_store *s)
{
    cz_store_job a, b;
    int ex = -1;
    cz_error err;
    cz_error_clear(&err);
    CHECK(submit(s, "j_idem1", "client-42", "hash-A", "normal", 2, &a, &ex, &err) == CZ_OK && ex == 0);
    CHECK(!strcmp(a.idem_key, "client-42"));
    ex = -1;
    CHECK(submit(s, "j_idem2", "client-42", "hash-A", "low", 1, &b, &ex, NULL) == CZ_OK && ex == 1);
    CHECK(!strcmp(b.id, "j_idem1") && b.n_parts == 2 && !strcmp(b.priority, "normal") && b.created == a.created);
    int found = -1;
    get_job(s, "j_idem2", &found);
    CHECK(found == 0);
    /* the stored job moved on: the same request still gives it back */
    claim_ok(s, "j_idem1", 0, "hostA");
    ex = -1;
    CHECK(submit(s, "j_idem3", "client-42", "hash-A", "normal", 2, &b, &ex, NULL) == CZ_OK && ex == 1);
    CHECK(!strcmp(b.id, "j_idem1") && b.state == CZ_JOB_RUNNING);
    /* another request under the same key */
    cz_error_clear(&err);
    ex = -1;
    memset(&b, 0, sizeof b);
    CHECK(submit(s, "j_idem4", "client-42", "hash-B", "normal", 2, &b, &ex, &err) == CZ_ERR_MISMATCH && ex == 0);
    CHECK_MSG(strstr(err.msg, "client-42") && strstr(err.msg, "j_idem1") && strstr(err.msg, "store "), "%s", err.msg);
    get_job(s, "j_idem4", &found);
    CHECK(found == 0);
    /* no key: no uniqueness */
    CHECK(submit(s, "j_noidem1", "", "same", "normal", 1, &b, &ex, NULL) == CZ_OK && ex == 0);
    CHECK(submit(s, "j_noidem2", "", "same", "normal", 1, &b, &ex, NULL) == CZ_OK && ex == 0);
    /* in place: out aliasing the input */
    cz_store_job j;
    cz_store_part p[2];
    mk_job(&j, "j_idem5", "client-42", "hash-A", "normal", 2);
    mk_parts(p, 2, "j_idem5");
    CHECK(s->ops->submit(s, &j, p, &j, &ex, NULL) == CZ_OK && ex == 1 && !strcmp(j.id, "j_idem1"));
    cz_store_counts c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_QUEUED] == 2 && c.jobs[CZ_JOB_RUNNING] == 1);
    /* clean up: these jobs are not final; cancel then delete */
    const char *ids[] = {"j_idem1", "j_noidem1", "j_noidem2"};
    for (int i = 0; i < 3; i++) {
        int ch = 0;
        CHECK(s->ops->cancel(s, ids[i], &ch, NULL) == CZ_OK && ch == 1);
        CHECK(s->ops->job_delete(s, ids[i], NULL) == CZ_OK);
    }
    /* the key is free again once its job is gone */
    CHECK(submit(s, "j_idem6", "client-42", "hash-B", "normal", 1, &b, &ex, NULL) == CZ_OK && ex == 0 &&
          !strcmp(b.id, "j_idem6"));
    int ch = 0;
    CHECK(s->ops->cancel(s, "j_idem6", &ch, NULL) == CZ_OK && s->ops->job_delete(s, "j_idem6", NULL) == CZ_OK);
}

/* ---- failure, cancel, delete ---------------------------------------------------- */

static void test_fail_cancel(cz_store *s)
{
    cz_error err;
    cz_store_job out;
    CHECK(submit(s, "j_fail", "", "", "critical", 3, &out, NULL, NULL) == CZ_OK);
    uint32_t a0 = claim_ok(s, "j_fail", 0, "hostA");
    uint32_t a1 = claim_ok(s, "j_fail", 1, "hostA");
    CHECK(s->ops->fail(s, "j_fail", 0, "hostA", a0 + 1, 0, "unsatisfied", "x", NULL) == CZ_ERR_MISMATCH);
    CHECK(get_job(s, "j_fail", NULL).state == CZ_JOB_RUNNING);
    cz_error_clear(&err);
    CHECK_MSG(s->ops->fail(s, "j_fail", 0, "hostA", a0, 0, "unsatisfied", "constraint 17 is not satisfied", &err) ==
                  CZ_OK,
              "%s", cz_error_msg(&err));
    cz_store_job j = get_job(s, "j_fail", NULL);
    CHECK(j.state == CZ_JOB_FAILED && !strcmp(j.error_code, "unsatisfied") &&
          !strcmp(j.error, "constraint 17 is not satisfied") && j.finished > 0 && j.parts_failed == 1 &&
          j.parts_done == 0);
    size_t n;
    cz_store_part *p = get_parts(s, "j_fail", 0, &n);
    CHECK(n == 3 && p[0].state == CZ_PART_FAILED && !strcmp(p[0].error, "constraint 17 is not satisfied"));
    CHECK(n == 3 && p[1].state == CZ_PART_RUNNING && p[2].state == CZ_PART_CANCELLED);
    cz_store_parts_free(p, n);
    uint32_t a = 0;
    CHECK(s->ops->claim(s, "j_fail", 2, "hostA", &a, NULL) == CZ_ERR_MISMATCH);
    /* the one still running may end; the job keeps its first error */
    CHECK(s->ops->fail(s, "j_fail", 1, "hostA", a1, 0, "device", "later", NULL) == CZ_OK);
    j = get_job(s, "j_fail", NULL);
    CHECK(j.state == CZ_JOB_FAILED && !strcmp(j.error_code, "unsatisfied") && j.parts_failed == 2);
    int changed = -1;
    CHECK(s->ops->cancel(s, "j_fail", &changed, NULL) == CZ_OK && changed == 0);
    CHECK(get_job(s, "j_fail", NULL).state == CZ_JOB_FAILED);

    /* a requeue with nothing else started puts the job back to queued */
    CHECK(submit(s, "j_rq", "", "", "normal", 2, &out, NULL, NULL) == CZ_OK);
    a = claim_ok(s, "j_rq", 1, "hostA");
    CHECK(get_job(s, "j_rq", NULL).state == CZ_JOB_RUNNING);
    CHECK(s->ops->fail(s, "j_rq", 1, "hostA", a, 1, "device", "retry", NULL) == CZ_OK);
    j = get_job(s, "j_rq", NULL);
    CHECK(j.state == CZ_JOB_QUEUED && j.error_code[0] == '\0' && j.finished == 0);

    /* cancel: queued and running partitions cancelled, a late result refused */
    uint32_t ar = claim_ok(s, "j_rq", 0, "hostA");
    changed = -1;
    CHECK(s->ops->cancel(s, "j_rq", &changed, NULL) == CZ_OK && changed == 1);
    j = get_job(s, "j_rq", NULL);
    CHECK(j.state == CZ_JOB_CANCELLED && j.finished > 0);
    p = get_parts(s, "j_rq", 0, &n);
    CHECK(n == 2 && p[0].state == CZ_PART_CANCELLED && p[1].state == CZ_PART_CANCELLED);
    cz_store_parts_free(p, n);
    res r;
    mk_res(&r, "j_rq", 0, 1);
    CHECK(s->ops->complete(s, "j_rq", 0, "hostA", ar, &r.p, NULL, NULL) == CZ_ERR_MISMATCH);
    CHECK(s->ops->claim(s, "j_rq", 1, "hostA", &a, NULL) == CZ_ERR_MISMATCH);
    changed = -1;
    CHECK(s->ops->cancel(s, "j_rq", &changed, NULL) == CZ_OK && changed == 0);
    CHECK(s->ops->cancel(s, "j_none", &changed, NULL) == CZ_ERR_INVALID_ARG);

    /* delete of an unfinished job is refused and changes nothing */
    CHECK(submit(s, "j_live", "", "", "low", 1, &out, NULL, NULL) == CZ_OK);
    cz_error_clear(&err);
    CHECK(s->ops->job_delete(s, "j_live", &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, "queued"));
    claim_ok(s, "j_live", 0, "hostA");
    CHECK(s->ops->job_delete(s, "j_live", NULL) == CZ_ERR_INVALID_ARG);
    int found = -1;
    j = get_job(s, "j_live", &found);
    CHECK(found == 1 && j.state == CZ_JOB_RUNNING);
    p = get_parts(s, "j_live", 0, &n);
    CHECK(n == 1 && p[0].state == CZ_PART_RUNNING);
    cz_store_parts_free(p, n);
    CHECK(s->ops->cancel(s, "j_live", &changed, NULL) == CZ_OK && changed == 1);
    CHECK(s->ops->job_delete(s, "j_live", NULL) == CZ_OK && s->ops->job_delete(s, "j_fail", NULL) == CZ_OK &&
          s->ops->job_delete(s, "j_rq", NULL) == CZ_OK);
    cz_store_counts c = get_counts(s);
    uint64_t total = 0;
    for (int i = 0; i < 5; i++) total += c.jobs[i];
    CHECK(total == 0);
}

/* ---- expiry ------------------------------------------------------------------------ */

static int ids_are(const cz_store_job *a, size_t n, const char *const *want, size_t nw)
{
    if (n != nw) return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i].id, want[i])) return 0;
    return 1;
}

static void test_expiry(cz_store *s)
{
    /* e1 done (fetched), e2 failed, e3 done (not fetched), e4 cancelled, e5 queued */
    cz_store_job out;
    res r;
    uint32_t a;
    CHECK(submit(s, "j_e1", "", "", "normal", 1, &out, NULL, NULL) == CZ_OK);
    a = claim_ok(s, "j_e1", 0, "hostA");
    mk_res(&r, "j_e1", 0, 1);
    CHECK(s->ops->complete(s, "j_e1", 0, "hostA", a, &r.p, NULL, NULL) == CZ_OK);
    CHECK(s->ops->mark_fetched(s, "j_e1", NULL) == CZ_OK);
    sleep_ms(3);
    CHECK(submit(s, "j_e2", "", "", "normal", 1, &out, NULL, NULL) == CZ_OK);
    a = claim_ok(s, "j_e2", 0, "hostA");
    CHECK(s->ops->fail(s, "j_e2", 0, "hostA", a, 0, "input", "bad witness", NULL) == CZ_OK);
    sleep_ms(3);
    CHECK(submit(s, "j_e3", "", "", "normal", 1, &out, NULL, NULL) == CZ_OK);
    a = claim_ok(s, "j_e3", 0, "hostA");
    CHECK(s->ops->complete(s, "j_e3", 0, "hostA", a, &r.p, NULL, NULL) == CZ_OK);
    sleep_ms(3);
    CHECK(submit(s, "j_e4", "", "", "normal", 1, &out, NULL, NULL) == CZ_OK);
    int ch;
    CHECK(s->ops->cancel(s, "j_e4", &ch, NULL) == CZ_OK);
    CHECK(submit(s, "j_e5", "", "", "normal", 1, &out, NULL, NULL) == CZ_OK);
    double f1 = get_job(s, "j_e1", NULL).finished, f2 = get_job(s, "j_e2", NULL).finished;
    double f3 = get_job(s, "j_e3", NULL).finished, f4 = get_job(s, "j_e4", NULL).finished;
    CHECK(f1 > 0 && f1 < f2 && f2 < f3 && f3 < f4);
    double later = f4 + 10;

    cz_store_job *e = NULL;
    size_t n = 0;
    const char *all[] = {"j_e1", "j_e2", "j_e3", "j_e4"};
    CHECK(s->ops->expired(s, later, 0, 100, &e, &n, NULL) == CZ_OK && ids_are(e, n, all, 4));
    if (n == 4) CHECK(e[0].finished == f1 && e[0].fetched && e[1].state == CZ_JOB_FAILED && e[3].parts_done == 0);
    free(e);
    CHECK(s->ops->expired(s, later, 0, 2, &e, &n, NULL) == CZ_OK && ids_are(e, n, all, 2));
    free(e);
    CHECK(s->ops->expired(s, (f2 + f3) / 2, 0, 100, &e, &n, NULL) == CZ_OK && ids_are(e, n, all, 2));
    free(e);
    CHECK(s->ops->expired(s, f1, 0, 100, &e, &n, NULL) == CZ_OK && n == 0); /* strictly before */
    free(e);
    CHECK(s->ops->expired(s, later, 0, 0, &e, &n, NULL) == CZ_OK && n == 0);
    free(e);
    /* until_fetched: a done job waits for its download; failed and cancelled
     * ones have nothing to download */
    const char *kept[] = {"j_e1", "j_e2", "j_e4"};
    CHECK(s->ops->expired(s, later, 1, 100, &e, &n, NULL) == CZ_OK && ids_are(e, n, kept, 3));
    free(e);
    CHECK(s->ops->mark_fetched(s, "j_e3", NULL) == CZ_OK);
    CHECK(s->ops->expired(s, later, 1, 100, &e, &n, NULL) == CZ_OK && ids_are(e, n, all, 4));
    free(e);
    /* what expiry does with the list */
    CHECK(s->ops->expired(s, later, 1, 100, &e, &n, NULL) == CZ_OK);
    for (size_t i = 0; i < n; i++) CHECK(s->ops->job_delete(s, e[i].id, NULL) == CZ_OK);
    free(e);
    cz_store_counts c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_DONE] == 0 && c.jobs[CZ_JOB_FAILED] == 0 && c.jobs[CZ_JOB_CANCELLED] == 0 &&
          c.jobs[CZ_JOB_QUEUED] == 1);
    CHECK(s->ops->cancel(s, "j_e5", &ch, NULL) == CZ_OK && s->ops->job_delete(s, "j_e5", NULL) == CZ_OK);
}

/* ---- crash and recovery ------------------------------------------------------------- */

/* the child: writes and ends without closing the store (nothing flushed
 * beyond what was committed) */
static void crash_child(const char *path)
{
    cz_store *s = NULL;
    if (cz_store_sqlite_open(&s, path, NULL) != CZ_OK) _exit(2);
    cz_store_job out;
    int ok = 1;
    uint32_t a;
    /* r1: p0 done, p1 running, p2 queued */
    ok &= submit(s, "j_r1", "", "", "normal", 3, &out, NULL, NULL) == CZ_OK;
    ok &= s->ops->claim(s, "j_r1", 0, "hostA", &a, NULL) == CZ_OK;
    res r;
    mk_res(&r, "j_r1", 0, 5);
    ok &= s->ops->complete(s, "j_r1", 0, "hostA", a, &r.p, NULL, NULL) == CZ_OK;
    ok &= s->ops->claim(s, "j_r1", 1, "hostA", &a, NULL) == CZ_OK;
    /* r2: its only partition running */
    ok &= submit(s, "j_r2", "", "", "low", 1, &out, NULL, NULL) == CZ_OK;
    ok &= s->ops->claim(s, "j_r2", 0, "hostA", &a, NULL) == CZ_OK;
    /* r3: failed, one partition still running */
    ok &= submit(s, "j_r3", "", "", "normal", 2, &out, NULL, NULL) == CZ_OK;
    ok &= s->ops->claim(s, "j_r3", 0, "hostA", &a, NULL) == CZ_OK;
    uint32_t a3;
    ok &= s->ops->claim(s, "j_r3", 1, "hostA", &a3, NULL) == CZ_OK;
    ok &= s->ops->fail(s, "j_r3", 0, "hostA", a, 0, "input", "bad", NULL) == CZ_OK;
    /* r4: running on another host */
    ok &= submit(s, "j_r4", "", "", "normal", 1, &out, NULL, NULL) == CZ_OK;
    ok &= s->ops->claim(s, "j_r4", 0, "hostB", &a, NULL) == CZ_OK;
    _exit(ok ? 0 : 3);
}

static void test_recover(void)
{
    char path[512];
    db_path(path, sizeof path, "crash.db");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) crash_child(path);
    int ws = 0;
    CHECK(pid > 0 && waitpid(pid, &ws, 0) == pid);
    CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "child status %d", ws);
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat sb;
    CHECK(stat(wal, &sb) == 0 && sb.st_size > 0); /* left behind: the crash */

    cz_store *s = open_at(path);
    if (!s) return;
    CHECK(get_job(s, "j_r1", NULL).state == CZ_JOB_RUNNING);
    uint64_t rq = 99;
    cz_error err;
    cz_error_clear(&err);
    CHECK_MSG(s->ops->recover(s, "hostA", &rq, &err) == CZ_OK, "%s", cz_error_msg(&err));
    CHECK_MSG(rq == 2, "requeued %llu", (unsigned long long)rq);
    cz_store_job j = get_job(s, "j_r1", NULL);
    CHECK(j.state == CZ_JOB_RUNNING && j.parts_done == 1); /* a partition is done */
    size_t n;
    cz_store_part *p = get_parts(s, "j_r1", 1, &n);
    res r;
    mk_res(&r, "j_r1", 0, 5);
    CHECK(n == 3 && p[0].state == CZ_PART_DONE && res_equal(&p[0], &r) && p[0].attempts == 1);
    CHECK(n == 3 && p[1].state == CZ_PART_QUEUED && p[1].attempts == 1 && !p[1].proof_json);
    CHECK(n == 3 && p[2].state == CZ_PART_QUEUED && p[2].attempts == 0);
    cz_store_parts_free(p, n);
    CHECK(get_job(s, "j_r2", NULL).state == CZ_JOB_QUEUED);
    p = get_parts(s, "j_r2", 0, &n);
    CHECK(n == 1 && p[0].state == CZ_PART_QUEUED);
    cz_store_parts_free(p, n);
    j = get_job(s, "j_r3", NULL);
    CHECK(j.state == CZ_JOB_FAILED && !strcmp(j.error_code, "input"));
    p = get_parts(s, "j_r3", 0, &n);
    CHECK(n == 2 && p[0].state == CZ_PART_FAILED && p[1].state == CZ_PART_CANCELLED);
    cz_store_parts_free(p, n);
    CHECK(get_job(s, "j_r4", NULL).state == CZ_JOB_RUNNING);
    p = get_parts(s, "j_r4", 0, &n);
    CHECK(n == 1 && p[0].state == CZ_PART_RUNNING && !strcmp(p[0].owner, "hostB"));
    cz_store_parts_free(p, n);
    /* a second recovery finds nothing */
    CHECK(s->ops->recover(s, "hostA", &rq, NULL) == CZ_OK && rq == 0);
    /* the daemon proves what is queued */
    uint32_t a = claim_ok(s, "j_r1", 1, "hostA");
    CHECK(a == 2);
    res r1;
    mk_res(&r1, "j_r1", 1, 6);
    CHECK(s->ops->complete(s, "j_r1", 1, "hostA", 1, &r1.p, NULL, NULL) == CZ_ERR_MISMATCH); /* the lost attempt */
    CHECK(s->ops->complete(s, "j_r1", 1, "hostA", a, &r1.p, NULL, NULL) == CZ_OK);
    a = claim_ok(s, "j_r1", 2, "hostA");
    CHECK(s->ops->complete(s, "j_r1", 2, "hostA", a, &r1.p, NULL, NULL) == CZ_OK);
    CHECK(get_job(s, "j_r1", NULL).state == CZ_JOB_DONE);
    cz_store_job *u = NULL;
    CHECK(s->ops->jobs_unfinished(s, &u, &n, NULL) == CZ_OK && n == 2);
    if (n == 2) CHECK(!strcmp(u[0].id, "j_r2") && !strcmp(u[1].id, "j_r4")); /* oldest first */
    free(u);
    CHECK(s->ops->recover(s, NULL, &rq, NULL) == CZ_ERR_INVALID_ARG);
    cz_store_close(s);
}

/* ---- schema -------------------------------------------------------------------------- */

static int sql_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
            v = sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    return v;
}

static int sql_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

static void test_schema(void)
{
    char path[512];
    db_path(path, sizeof path, "schema.db");
    cz_store *s = open_at(path);
    if (!s) return;
    CHECK(sql_int(path, "SELECT version FROM schema_version") == 1);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM schema_version") == 1);
    cz_store_close(s);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sqlite3_stmt *q = NULL;
    CHECK(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
          !strcmp((const char *)sqlite3_column_text(q, 0), "wal"));
    sqlite3_finalize(q);
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN "
                             "('jobs_idem', 'jobs_state', 'jobs_finished', 'parts_running')",
                             -1, &q, NULL) == SQLITE_OK &&
          sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 4);
    sqlite3_finalize(q);
    sqlite3_close(db);
    /* reopening an up-to-date file changes nothing */
    s = open_at(path);
    cz_store_close(s);
    CHECK(sql_int(path, "SELECT version FROM schema_version") == 1);

    /* a newer database is refused */
    CHECK(sql_exec(path, "UPDATE schema_version SET version = 7") == SQLITE_OK);
    cz_store *t = (cz_store *)1;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_store_sqlite_open(&t, path, &err) == CZ_ERR_UNSUPPORTED && t == NULL);
    CHECK_MSG(strstr(err.msg, path) && strstr(err.msg, "version 7") && strstr(err.msg, "up to 1"), "%s", err.msg);
    CHECK(sql_int(path, "SELECT version FROM schema_version") == 7); /* untouched */

    /* not a database */
    char junk[512];
    db_path(junk, sizeof junk, "junk.db");
    FILE *f = fopen(junk, "wb");
    if (f) {
        for (int i = 0; i < 4096; i++) fputc("not a database"[i % 14], f);
        fclose(f);
    }
    cz_error_clear(&err);
    CHECK(cz_store_sqlite_open(&t, junk, &err) == CZ_ERR_IO && t == NULL && strstr(err.msg, junk));
    /* nowhere to create it */
    char nowhere[600];
    snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/x.db", g_dir);
    cz_error_clear(&err);
    CHECK(cz_store_sqlite_open(&t, nowhere, &err) == CZ_ERR_IO && t == NULL && strstr(err.msg, nowhere));
    CHECK(cz_store_sqlite_open(&t, "", NULL) == CZ_ERR_INVALID_ARG);
    CHECK(cz_store_sqlite_open(&t, NULL, NULL) == CZ_ERR_INVALID_ARG);
}

/* ---- all or nothing ------------------------------------------------------------------ */

/* A trigger (installed behind the store's back) fails the insert of the
 * third partition: the submit reports the database's message and leaves
 * neither the job nor its first partitions. */
static void test_atomic(void)
{
    char path[512];
    db_path(path, sizeof path, "atomic.db");
    cz_store *s = open_at(path);
    if (!s) return;
    cz_store_close(s);
    CHECK(sql_exec(path, "CREATE TRIGGER no_third BEFORE INSERT ON parts WHEN NEW.idx = 2 "
                         "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END") == SQLITE_OK);
    s = open_at(path);
    if (!s) return;
    cz_error err;
    cz_error_clear(&err);
    cz_store_job out;
    int ex = -1;
    CHECK(submit(s, "j_atom", "idem-atom", "h", "normal", 3, &out, &ex, &err) == CZ_ERR_IO);
    CHECK_MSG(strstr(err.msg, "disk on fire") && strstr(err.msg, path), "%s", err.msg);
    int found = -1;
    get_job(s, "j_atom", &found);
    CHECK(found == 0);
    cz_store_close(s);
    CHECK(sql_int(path, "SELECT COUNT(*) FROM parts") == 0 && sql_int(path, "SELECT COUNT(*) FROM jobs") == 0);
    /* two partitions pass the trigger; the idempotency key is free */
    s = open_at(path);
    if (!s) return;
    CHECK(submit(s, "j_atom2", "idem-atom", "h", "normal", 2, &out, &ex, NULL) == CZ_OK && ex == 0);
    cz_store_close(s);
}

/* ---- durability of everything ------------------------------------------------------ */

static int jobs_equal(const cz_store_job *a, const cz_store_job *b)
{
    return !strcmp(a->id, b->id) && !strcmp(a->key_id, b->key_id) && !strcmp(a->priority, b->priority) &&
           a->state == b->state && a->n_parts == b->n_parts && a->parts_done == b->parts_done &&
           a->parts_failed == b->parts_failed && a->created == b->created && a->started == b->started &&
           a->finished == b->finished && !strcmp(a->idem_key, b->idem_key) && !strcmp(a->idem_hash, b->idem_hash) &&
           !strcmp(a->error_code, b->error_code) && !strcmp(a->error, b->error) && a->fetched == b->fetched;
}

static int str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int parts_equal(const cz_store_part *a, const cz_store_part *b)
{
    return a->idx == b->idx && a->state == b->state && !strcmp(a->witness, b->witness) && a->spooled == b->spooled &&
           a->attempts == b->attempts && !strcmp(a->owner, b->owner) && str_eq(a->proof_json, b->proof_json) &&
           str_eq(a->public_json, b->public_json) && str_eq(a->timings_json, b->timings_json) &&
           a->has_bin == b->has_bin && (!a->has_bin || !memcmp(a->proof_bin, b->proof_bin, 192)) &&
           !strcmp(a->error, b->error);
}

#define DUR_JOBS 5

static void test_durability(void)
{
    char path[512];
    db_path(path, sizeof path, "durable.db");
    cz_store *s = open_at(path);
    if (!s) return;
    cz_store_key k = {0};
    snprintf(k.id, sizeof k.id, "k_dur");
    snprintf(k.path, sizeof k.path, "/keys/dur.zkey");
    k.created = 1234.25;
    CHECK(s->ops->key_put(s, &k, NULL) == CZ_OK);
    const char *ids[DUR_JOBS] = {"j_d0", "j_d1", "j_d2", "j_d3", "j_d4"};
    cz_store_job out;
    for (int i = 0; i < DUR_JOBS; i++) {
        char idem[32];
        snprintf(idem, sizeof idem, "idem-%d", i);
        CHECK(submit(s, ids[i], i % 2 ? idem : "", "hash", i == 4 ? "critical" : "normal", 2, &out, NULL, NULL) ==
              CZ_OK);
    }
    res r;
    mk_res(&r, "dur", 0, 9);
    uint32_t a;
    /* d0 done + fetched, d1 running with one done, d2 failed, d3 cancelled, d4 queued */
    for (uint32_t i = 0; i < 2; i++) {
        a = claim_ok(s, "j_d0", i, "hostA");
        CHECK(s->ops->complete(s, "j_d0", i, "hostA", a, &r.p, NULL, NULL) == CZ_OK);
    }
    CHECK(s->ops->mark_fetched(s, "j_d0", NULL) == CZ_OK);
    a = claim_ok(s, "j_d1", 1, "hostA");
    CHECK(s->ops->complete(s, "j_d1", 1, "hostA", a, &r.p, NULL, NULL) == CZ_OK);
    claim_ok(s, "j_d1", 0, "hostA");
    a = claim_ok(s, "j_d2", 0, "hostA");
    CHECK(s->ops->fail(s, "j_d2", 0, "hostA", a, 1, "device", "first try", NULL) == CZ_OK);
    a = claim_ok(s, "j_d2", 0, "hostA");
    CHECK(s->ops->fail(s, "j_d2", 0, "hostA", a, 0, "device", "second try", NULL) == CZ_OK);
    int ch;
    CHECK(s->ops->cancel(s, "j_d3", &ch, NULL) == CZ_OK);

    cz_store_job before[DUR_JOBS];
    cz_store_part *bp[DUR_JOBS];
    size_t bn[DUR_JOBS];
    for (int i = 0; i < DUR_JOBS; i++) {
        before[i] = get_job(s, ids[i], NULL);
        bp[i] = get_parts(s, ids[i], 1, &bn[i]);
    }
    cz_store_counts cb = get_counts(s);
    cz_store_close(s);

    s = open_at(path);
    if (!s) return;
    for (int i = 0; i < DUR_JOBS; i++) {
        int found = 0;
        cz_store_job j = get_job(s, ids[i], &found);
        CHECK_MSG(found && jobs_equal(&j, &before[i]), "job %s", ids[i]);
        size_t n;
        cz_store_part *p = get_parts(s, ids[i], 1, &n);
        CHECK(n == bn[i]);
        for (size_t q = 0; q < n && q < bn[i]; q++) CHECK_MSG(parts_equal(&p[q], &bp[i][q]), "%s/%zu", ids[i], q);
        cz_store_parts_free(p, n);
        cz_store_parts_free(bp[i], bn[i]);
    }
    CHECK(before[0].state == CZ_JOB_DONE && before[0].fetched && before[1].state == CZ_JOB_RUNNING &&
          before[2].state == CZ_JOB_FAILED && !strcmp(before[2].error, "second try") &&
          before[3].state == CZ_JOB_CANCELLED && before[4].state == CZ_JOB_QUEUED);
    cz_store_counts ca = get_counts(s);
    CHECK(!memcmp(ca.jobs, cb.jobs, sizeof ca.jobs) && !memcmp(ca.queued_by_prio, cb.queued_by_prio, sizeof ca.jobs[0] * 4));
    CHECK(cb.queued_by_prio[0] == 1 && cb.queued_by_prio[2] == 1);
    cz_store_key g;
    int found = 0;
    CHECK(s->ops->key_get(s, "k_dur", &g, &found, NULL) == CZ_OK && found && !strcmp(g.path, k.path) &&
          g.created == k.created);
    /* idempotency survives too */
    int ex = 0;
    CHECK(submit(s, "j_dx", "idem-1", "hash", "normal", 2, &out, &ex, NULL) == CZ_OK && ex == 1 &&
          !strcmp(out.id, "j_d1"));
    cz_store_close(s);
}

/* ---- strings ------------------------------------------------------------------------ */

static int utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
        if (n < 0) return 0;
        p++;
        for (int i = 0; i < n; i++, p++)
            if ((*p & 0xC0) != 0x80) return 0;
    }
    return 1;
}

static void test_strings(cz_store *s)
{
    const char *evil_idem = "x'); DROP TABLE jobs; --\"é";
    const char *evil_id = "j_'\"; DELETE FROM parts;--";
    const char *wit = "/tmp/wé'ird \"path\" ✓ 漢字 ' OR 1=1 --.wtns";
    cz_store_key k = {0};
    snprintf(k.id, sizeof k.id, "k_'\"ü");
    snprintf(k.path, sizeof k.path, "/keys/it's \"a\" ключ.zkey");
    CHECK(s->ops->key_put(s, &k, NULL) == CZ_OK);
    cz_store_key g;
    int found = 0;
    CHECK(s->ops->key_get(s, k.id, &g, &found, NULL) == CZ_OK && found && !strcmp(g.path, k.path));

    cz_store_job j, out;
    cz_store_part p[1];
    mk_job(&j, evil_id, evil_idem, "h'ash\"", "normal", 1);
    snprintf(j.key_id, sizeof j.key_id, "%s", k.id);
    memset(p, 0, sizeof p);
    snprintf(p[0].witness, sizeof p[0].witness, "%s", wit);
    int ex = -1;
    cz_error err;
    cz_error_clear(&err);
    CHECK_MSG(s->ops->submit(s, &j, p, &out, &ex, &err) == CZ_OK && ex == 0, "%s", cz_error_msg(&err));
    CHECK(!strcmp(out.id, evil_id) && !strcmp(out.idem_key, evil_idem) && !strcmp(out.key_id, k.id) &&
          !strcmp(out.idem_hash, "h'ash\""));
    ex = -1;
    CHECK(s->ops->submit(s, &j, p, &out, &ex, NULL) == CZ_OK && ex == 1);
    const char *owner = "host'\"ø";
    uint32_t a = claim_ok(s, evil_id, 0, owner);
    cz_store_part res = {0};
    res.proof_json = "{\"a\": \"it's \\\"quoted\\\"\\n\", \"u\": \"✓ 漢字\"}";
    res.public_json = "[\"'); DROP TABLE parts; --\"]";
    res.timings_json = "{}";
    CHECK(s->ops->complete(s, evil_id, 0, owner, a, &res, NULL, NULL) == CZ_OK);
    size_t n;
    cz_store_part *gp = get_parts(s, evil_id, 1, &n);
    CHECK(n == 1 && !strcmp(gp[0].witness, wit) && !strcmp(gp[0].owner, owner) &&
          !strcmp(gp[0].proof_json, res.proof_json) && !strcmp(gp[0].public_json, res.public_json));
    cz_store_parts_free(gp, n);
    CHECK(get_job(s, evil_id, NULL).state == CZ_JOB_DONE);

    /* a failure message too long for the field (511 bytes at most): 2-byte
     * characters from offset 0, so bytes 510..511 are one character that
     * does not fit: cut to 510 */
    CHECK(submit(s, "j_msg", "", "", "normal", 2, &out, NULL, NULL) == CZ_OK);
    char longmsg[1200];
    size_t o = 0;
    while (o + 2 < sizeof longmsg) {
        longmsg[o++] = (char)0xC3;
        longmsg[o++] = (char)0xA9; /* é */
    }
    longmsg[o] = '\0';
    a = claim_ok(s, "j_msg", 0, owner);
    CHECK(s->ops->fail(s, "j_msg", 0, owner, a, 0, "in'put", longmsg, NULL) == CZ_OK);
    cz_store_job fj = get_job(s, "j_msg", NULL);
    CHECK(fj.state == CZ_JOB_FAILED && !strcmp(fj.error_code, "in'put") && strlen(fj.error) == 510 &&
          utf8_valid(fj.error) && !strncmp(fj.error, longmsg, 510));
    gp = get_parts(s, "j_msg", 0, &n);
    CHECK(n == 2 && utf8_valid(gp[0].error) && strlen(gp[0].error) == 510 && gp[1].state == CZ_PART_CANCELLED);
    cz_store_parts_free(gp, n);

    /* nothing was dropped */
    cz_store_counts c = get_counts(s);
    CHECK(c.jobs[CZ_JOB_DONE] == 1 && c.jobs[CZ_JOB_FAILED] == 1);
    CHECK(s->ops->job_delete(s, evil_id, NULL) == CZ_OK && s->ops->job_delete(s, "j_msg", NULL) == CZ_OK);
    CHECK(s->ops->key_delete(s, k.id, NULL) == CZ_OK);
}

/* ---- threads ------------------------------------------------------------------------- */

#define TH_N 8
#define TH_JOBS 8
#define TH_PARTS 3
#define TH_TOTAL (TH_N * TH_JOBS)

typedef struct th_shared {
    cz_store *s;
    pthread_barrier_t bar;
    int completes[TH_TOTAL][TH_PARTS]; /* accepted results */
    int requeues[TH_TOTAL][TH_PARTS];
    int bad; /* an unexpected status */
    int double_ok; /* a second complete accepted */
    int existing_ok;
} th_shared;

typedef struct th_arg {
    th_shared *sh;
    int t;
} th_arg;

static void th_job_id(char *out, size_t cap, int job)
{
    snprintf(out, cap, "j_t%02d_%02d", job / TH_JOBS, job % TH_JOBS);
}

static void *th_main(void *p)
{
    th_arg *ta = p;
    th_shared *sh = ta->sh;
    cz_store *s = sh->s;
    char owner[16];
    snprintf(owner, sizeof owner, "w%d", ta->t);
    for (int i = 0; i < TH_JOBS; i++) {
        char id[32], idem[32];
        int job = ta->t * TH_JOBS + i;
        th_job_id(id, sizeof id, job);
        snprintf(idem, sizeof idem, "idem-%d", job);
        cz_store_job out;
        int ex = -1;
        if (submit(s, id, idem, "h", i % 2 ? "high" : "normal", TH_PARTS, &out, &ex, NULL) != CZ_OK || ex != 0)
            __atomic_add_fetch(&sh->bad, 1, __ATOMIC_RELAXED);
        /* a client retrying with the same key */
        char id2[40];
        snprintf(id2, sizeof id2, "%s_again", id);
        if (submit(s, id2, idem, "h", "normal", TH_PARTS, &out, &ex, NULL) == CZ_OK && ex == 1 && !strcmp(out.id, id))
            __atomic_add_fetch(&sh->existing_ok, 1, __ATOMIC_RELAXED);
        else
            __atomic_add_fetch(&sh->bad, 1, __ATOMIC_RELAXED);
    }
    pthread_barrier_wait(&sh->bar);
    for (int round = 0; round < 50; round++) {
        int progress = 0, left = 0;
        for (int k = 0; k < TH_TOTAL; k++) {
            int job = (k + ta->t * 7) % TH_TOTAL; /* each thread its own order: contention */
            char id[32];
            th_job_id(id, sizeof id, job);
            for (uint32_t idx = 0; idx < TH_PARTS; idx++) {
                uint32_t a = 0;
                cz_status st = s->ops->claim(s, id, idx, owner, &a, NULL);
                if (st == CZ_ERR_MISMATCH) continue; /* someone else's, or done */
                if (st != CZ_OK) {
                    __atomic_add_fetch(&sh->bad, 1, __ATOMIC_RELAXED);
                    continue;
                }
                progress++;
                if (idx == 1 && a == 1) { /* a device error on the first attempt */
                    if (s->ops->fail(s, id, idx, owner, a, 1, "device", "retry", NULL) == CZ_OK)
                        __atomic_add_fetch(&sh->requeues[job][idx], 1, __ATOMIC_RELAXED);
                    else
                        __atomic_add_fetch(&sh->bad, 1, __ATOMIC_RELAXED);
                    left++;
                    continue;
                }
                res r;
                mk_res(&r, id, idx, (int)a);
                if (s->ops->complete(s, id, idx, owner, a, &r.p, NULL, NULL) == CZ_OK)
                    __atomic_add_fetch(&sh->completes[job][idx], 1, __ATOMIC_RELAXED);
                else
                    __atomic_add_fetch(&sh->bad, 1, __ATOMIC_RELAXED);
                mk_res(&r, id, idx, 1000);
                if (s->ops->complete(s, id, idx, owner, a, &r.p, NULL, NULL) != CZ_ERR_MISMATCH)
                    __atomic_add_fetch(&sh->double_ok, 1, __ATOMIC_RELAXED);
            }
            if (ta->t == 0 && k % 16 == 0) { /* readers on the side */
                cz_store_counts c;
                cz_store_job *u = NULL;
                size_t n = 0;
                if (s->ops->counts(s, &c, NULL) != CZ_OK || s->ops->jobs_unfinished(s, &u, &n, NULL) != CZ_OK)
                    __atomic_add_fetch(&sh->bad, 1, __ATOMIC_RELAXED);
                free(u);
            }
        }
        if (!progress && !left) {
            cz_store_counts c;
            if (s->ops->counts(s, &c, NULL) == CZ_OK && c.jobs[CZ_JOB_DONE] == TH_TOTAL) break;
            sleep_ms(1);
        }
    }
    return NULL;
}

static void test_threads(void)
{
    char path[512];
    db_path(path, sizeof path, "threads.db");
    cz_store *s = open_at(path);
    if (!s) return;
    th_shared *sh = calloc(1, sizeof *sh);
    sh->s = s;
    pthread_barrier_init(&sh->bar, NULL, TH_N);
    pthread_t th[TH_N];
    th_arg ta[TH_N];
    for (int i = 0; i < TH_N; i++) {
        ta[i].sh = sh;
        ta[i].t = i;
        CHECK(pthread_create(&th[i], NULL, th_main, &ta[i]) == 0);
    }
    for (int i = 0; i < TH_N; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&sh->bar);
    CHECK_MSG(sh->bad == 0, "%d unexpected statuses", sh->bad);
    CHECK(sh->double_ok == 0);
    CHECK(sh->existing_ok == TH_TOTAL);
    int once = 1, rq = 1;
    for (int j = 0; j < TH_TOTAL; j++)
        for (int i = 0; i < TH_PARTS; i++) {
            once &= sh->completes[j][i] == 1;
            rq &= sh->requeues[j][i] == (i == 1);
        }
    CHECK(once && rq);
    cz_store_counts c = get_counts(s);
    CHECK_MSG(c.jobs[CZ_JOB_DONE] == TH_TOTAL && c.jobs[CZ_JOB_QUEUED] == 0 && c.jobs[CZ_JOB_RUNNING] == 0,
              "done %llu", (unsigned long long)c.jobs[CZ_JOB_DONE]);
    int all = 1;
    for (int j = 0; j < TH_TOTAL; j++) {
        char id[32];
        th_job_id(id, sizeof id, j);
        cz_store_job jj = get_job(s, id, NULL);
        all &= jj.state == CZ_JOB_DONE && jj.parts_done == TH_PARTS && jj.finished >= jj.started;
        size_t n;
        cz_store_part *p = get_parts(s, id, 1, &n);
        all &= n == TH_PARTS;
        for (size_t i = 0; i < n; i++) {
            res r;
            mk_res(&r, id, (uint32_t)i, (int)p[i].attempts); /* the accepted attempt's result, not the second */
            all &= p[i].state == CZ_PART_DONE && res_equal(&p[i], &r) && p[i].attempts == (i == 1 ? 2u : 1u);
        }
        cz_store_parts_free(p, n);
    }
    CHECK(all);
    cz_store_close(s);
    free(sh);
}


/* ---- PostgreSQL (daemon/store_pg.c), when CZ_TEST_PG_URL names a server ---------------- */

#ifdef CZ_HAVE_PG
#include <libpq-fe.h>

static char g_pg_url[1024]; /* a database of our own on that server */

static void pg_quiet(void *arg, const char *m)
{
    (void)arg;
    (void)m;
}

/* runs sql on the test database (or the server's when admin) through libpq; 1 on success */
static int pg_exec(const char *url, const char *sql, char *first, size_t cap)
{
    PGconn *c = PQconnectdb(url);
    int ok = PQstatus(c) == CONNECTION_OK;
    if (ok) PQsetNoticeProcessor(c, pg_quiet, NULL);
    if (ok) {
        PGresult *r = PQexec(c, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
        if (!ok) fprintf(stderr, "test_store: %s: %s", sql, PQresultErrorMessage(r));
        if (ok && first && cap) snprintf(first, cap, "%s", PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "");
        PQclear(r);
    } else {
        fprintf(stderr, "test_store: %s", PQerrorMessage(c));
    }
    PQfinish(c);
    return ok;
}

static long pg_long(const char *sql)
{
    char b[64] = "";
    return pg_exec(g_pg_url, sql, b, sizeof b) ? strtol(b, NULL, 10) : -1;
}

static cz_store *pg_open(double lease)
{
    cz_store *s = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_store_pg_open(&s, g_pg_url, lease, &err);
    CHECK_MSG(st == CZ_OK && s, "open %s: %s", g_pg_url, cz_error_msg(&err));
    return st == CZ_OK ? s : NULL;
}

/* a fresh database on the server of base (a URL ending in /DBNAME) */
static int pg_fresh_db(const char *base, const char *name)
{
    char sql[256];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
    if (!pg_exec(base, sql, NULL, 0)) return 0;
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    if (!pg_exec(base, sql, NULL, 0)) return 0;
    const char *slash = strrchr(base, '/');
    const char *q = strchr(slash ? slash : base, '?');
    if (!slash || slash - base < 12) return 0;
    snprintf(g_pg_url, sizeof g_pg_url, "%.*s/%s%s", (int)(slash - base), base, name, q ? q : "");
    return 1;
}

static cz_status submit_key(cz_store *s, const char *id, const char *key, const char *prio, uint32_t n)
{
    cz_store_job j, o;
    cz_store_part p[16];
    mk_job(&j, id, "", "", prio, n);
    snprintf(j.key_id, sizeof j.key_id, "%s", key);
    mk_parts(p, n, id);
    int ex = 0;
    return s->ops->submit(s, &j, p, &o, &ex, NULL);
}

/* claim order: class first, then the preferred keys, then age; max respected */
static void test_pg_claim_order(cz_store *a)
{
    CHECK(a->ops->shared == 1 && a->ops->claim_next && a->ops->lease_renew && a->ops->lease_expire);
    CHECK(submit_key(a, "j_o1", "k_a", "low", 1) == CZ_OK);
    sleep_ms(2);
    CHECK(submit_key(a, "j_o2", "k_b", "normal", 2) == CZ_OK);
    CHECK(submit_key(a, "j_o3", "k_a", "normal", 1) == CZ_OK);
    CHECK(submit_key(a, "j_o4", "k_b", "critical", 1) == CZ_OK);
    cz_store_claim c[8];
    size_t n = 0;
    const char *pref[] = {"k_a"};
    cz_error err;
    cz_error_clear(&err);
    CHECK_MSG(a->ops->claim_next(a, "hostA", pref, 1, NULL, 0, 2, c, &n, &err) == CZ_OK, "%s", cz_error_msg(&err));
    /* critical first, then normal of the preferred key k_a although j_o2 is older */
    CHECK(n == 2 && !strcmp(c[0].job_id, "j_o4") && !strcmp(c[1].job_id, "j_o3"));
    CHECK(n == 2 && c[0].attempt == 1 && c[0].n_parts == 1 && !strcmp(c[0].key_id, "k_b") &&
          !strcmp(c[0].priority, "critical") && strstr(c[0].witness, "/spool/j_o4/0.wtns"));
    CHECK(get_job(a, "j_o4", NULL).state == CZ_JOB_RUNNING);
    CHECK(a->ops->claim_next(a, "hostA", NULL, 0, NULL, 0, 8, c, &n, NULL) == CZ_OK);
    /* then j_o2's two partitions (by index), then the low one */
    CHECK(n == 3 && !strcmp(c[0].job_id, "j_o2") && c[0].idx == 0 && !strcmp(c[1].job_id, "j_o2") && c[1].idx == 1 &&
          !strcmp(c[2].job_id, "j_o1") && c[0].n_parts == 2);
    CHECK(a->ops->claim_next(a, "hostA", NULL, 0, NULL, 0, 8, c, &n, NULL) == CZ_OK && n == 0);
    /* a key this host cannot fit is left to the others, whatever its class */
    CHECK(submit_key(a, "j_o5", "k_z", "critical", 1) == CZ_OK);
    CHECK(submit_key(a, "j_o6", "k_a", "low", 1) == CZ_OK);
    const char *avoid[] = {"k_z"};
    CHECK(a->ops->claim_next(a, "hostA", pref, 1, avoid, 1, 8, c, &n, NULL) == CZ_OK && n == 1 &&
          !strcmp(c[0].job_id, "j_o6"));
    CHECK(a->ops->claim_next(a, "hostA", NULL, 0, avoid, 1, 8, c, &n, NULL) == CZ_OK && n == 0);
    CHECK(a->ops->claim_next(a, "hostA", NULL, 0, NULL, 0, 8, c, &n, NULL) == CZ_OK && n == 1 &&
          !strcmp(c[0].job_id, "j_o5"));
    CHECK(a->ops->claim_next(a, "", NULL, 0, NULL, 0, 8, c, &n, NULL) == CZ_ERR_INVALID_ARG);
    /* the claims are in the attempts log, running */
    CHECK(pg_long("SELECT count(*) FROM attempts WHERE owner = 'hostA' AND outcome = 'running' AND attempt = 1") == 7);
}

/* leases: renewal answers what is held; an expired lease is taken back
 * (attempt + 1), the late result of the earlier attempt is fenced and
 * logged; past max_attempts the job fails with the last error */
static void test_pg_leases(void)
{
    cz_store *a = pg_open(1.0), *b = pg_open(1.0);
    if (!a || !b) {
        cz_store_close(a);
        cz_store_close(b);
        return;
    }
    CHECK(submit_key(a, "j_l1", "k_l", "high", 2) == CZ_OK);
    cz_store_claim c[4];
    size_t n = 0;
    CHECK(a->ops->claim_next(a, "hostL", NULL, 0, NULL, 0, 1, c, &n, NULL) == CZ_OK && n == 1 && !strcmp(c[0].job_id, "j_l1"));
    cz_store_host h;
    memset(&h, 0, sizeof h);
    snprintf(h.id, sizeof h.id, "hostL");
    snprintf(h.devices, sizeof h.devices, "cpu");
    h.started = 1000;
    h.done = 7;
    cz_store_claim *held = NULL;
    size_t nh = 0;
    cz_error err;
    cz_error_clear(&err);
    CHECK_MSG(a->ops->lease_renew(a, &h, &held, &nh, &err) == CZ_OK, "%s", cz_error_msg(&err));
    CHECK(nh == 1 && held && !strcmp(held[0].job_id, "j_l1") && held[0].idx == 0 && held[0].attempt == 1);
    free(held);
    uint64_t rq = 9, fl = 9;
    CHECK(b->ops->lease_expire(b, 3, &rq, &fl, NULL) == CZ_OK && rq == 0 && fl == 0); /* not yet */
    /* renewed leases outlive the first deadline */
    for (int i = 0; i < 3; i++) {
        sleep_ms(500);
        held = NULL;
        CHECK(a->ops->lease_renew(a, &h, &held, &nh, NULL) == CZ_OK && nh == 1);
        free(held);
    }
    CHECK(b->ops->lease_expire(b, 3, &rq, &fl, NULL) == CZ_OK && rq == 0);
    /* hostA goes silent */
    sleep_ms(1300);
    CHECK(b->ops->lease_expire(b, 3, &rq, &fl, NULL) == CZ_OK && rq == 1 && fl == 0);
    CHECK(pg_long("SELECT count(*) FROM attempts WHERE job_id = 'j_l1' AND idx = 0 AND attempt = 1 AND outcome = 'expired'") == 1);
    CHECK(b->ops->claim_next(b, "hostM", NULL, 0, NULL, 0, 1, c, &n, NULL) == CZ_OK && n == 1 && c[0].idx == 0 && c[0].attempt == 2);
    res r;
    mk_res(&r, "j_l1", 0, 1);
    cz_error_clear(&err);
    CHECK(a->ops->complete(a, "j_l1", 0, "hostL", 1, &r.p, NULL, &err) == CZ_ERR_MISMATCH && strstr(err.msg, "hostM"));
    CHECK(pg_long("SELECT count(*) FROM attempts WHERE job_id = 'j_l1' AND idx = 0 AND attempt = 1 AND outcome = 'expired' AND fenced = 1") == 1);
    held = NULL;
    CHECK(a->ops->lease_renew(a, &h, &held, &nh, NULL) == CZ_OK && nh == 0); /* hostA learns it lost it */
    free(held);
    mk_res(&r, "j_l1", 0, 2);
    int done = -1;
    CHECK(b->ops->complete(b, "j_l1", 0, "hostM", 2, &r.p, &done, NULL) == CZ_OK && done == 0);
    /* partition 1: three claims whose leases all run out, then the job fails */
    for (uint32_t att = 1; att <= 3; att++) {
        CHECK(b->ops->claim_next(b, "hostM", NULL, 0, NULL, 0, 1, c, &n, NULL) == CZ_OK && n == 1 && c[0].idx == 1 &&
              c[0].attempt == att);
        sleep_ms(1150);
        CHECK(a->ops->lease_expire(a, 3, &rq, &fl, NULL) == CZ_OK && rq == (att < 3) && fl == (att == 3));
    }
    cz_store_job j = get_job(a, "j_l1", NULL);
    CHECK(j.state == CZ_JOB_FAILED && !strcmp(j.error_code, "attempts") && strstr(j.error, "hostM") &&
          strstr(j.error, "3 attempts"));
    CHECK(pg_long("SELECT count(*) FROM attempts WHERE job_id = 'j_l1' AND outcome = 'done'") == 1);
    /* hosts */
    cz_store_host *hs = NULL;
    size_t nhs = 0;
    CHECK(a->ops->hosts(a, &hs, &nhs, NULL) == CZ_OK);
    int seen = 0;
    for (size_t i = 0; i < nhs; i++)
        if (!strcmp(hs[i].id, "hostL"))
            seen = !strcmp(hs[i].devices, "cpu") && hs[i].done == 7 && hs[i].started == 1000 && hs[i].age_s >= 0 &&
                   hs[i].age_s < 60 && hs[i].heartbeat > 1e9;
    CHECK(seen);
    free(hs);
    char m[64];
    CHECK(a->ops->healthy(a, m, sizeof m) == 1 && m[0] == '\0');
    cz_store_close(a);
    cz_store_close(b);
}

/* two hosts claiming at once from 4 threads each: every partition claimed
 * once, completed once, nobody waited on a row another had locked */
typedef struct pg_th {
    cz_store *s;
    char owner[16];
    int claimed, completed;
} pg_th;

static void *pg_th_main(void *p)
{
    pg_th *t = p;
    cz_store_claim c[4];
    for (int idle = 0; idle < 20;) {
        size_t n = 0;
        if (t->s->ops->claim_next(t->s, t->owner, NULL, 0, NULL, 0, 4, c, &n, NULL) != CZ_OK || n == 0) {
            idle++;
            sleep_ms(5);
            continue;
        }
        idle = 0;
        for (size_t i = 0; i < n; i++) {
            int ours = !strncmp(c[i].job_id, "j_c", 3); /* (earlier cases left queued partitions too) */
            if (ours) __atomic_add_fetch(&t->claimed, 1, __ATOMIC_RELAXED);
            res r;
            mk_res(&r, c[i].job_id, c[i].idx, (int)c[i].attempt);
            if (t->s->ops->complete(t->s, c[i].job_id, c[i].idx, t->owner, c[i].attempt, &r.p, NULL, NULL) == CZ_OK &&
                ours)
                __atomic_add_fetch(&t->completed, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

static void test_pg_concurrent(void)
{
    enum { JOBS = 60, PARTS = 5, TH = 4 };
    cz_store *a = pg_open(30), *b = pg_open(30);
    if (!a || !b) {
        cz_store_close(a);
        cz_store_close(b);
        return;
    }
    for (int i = 0; i < JOBS; i++) {
        char id[32];
        snprintf(id, sizeof id, "j_c%02d", i);
        CHECK(submit_key(i % 2 ? a : b, id, "k_c", i % 3 ? "normal" : "high", PARTS) == CZ_OK);
    }
    pg_th t[2 * TH];
    pthread_t th[2 * TH];
    for (int i = 0; i < 2 * TH; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].s = i < TH ? a : b;
        snprintf(t[i].owner, sizeof t[i].owner, "host%c", i < TH ? 'A' : 'B');
        pthread_create(&th[i], NULL, pg_th_main, &t[i]);
    }
    int claimed = 0, completed = 0;
    for (int i = 0; i < 2 * TH; i++) {
        pthread_join(th[i], NULL);
        claimed += t[i].claimed;
        completed += t[i].completed;
    }
    CHECK_MSG(claimed == JOBS * PARTS && completed == JOBS * PARTS, "claimed %d, completed %d of %d", claimed,
              completed, JOBS * PARTS);
    CHECK(pg_long("SELECT count(*) FROM jobs WHERE id LIKE 'j_c%' AND state = 2") == JOBS);
    CHECK(pg_long("SELECT count(*) FROM (SELECT job_id, idx FROM attempts WHERE job_id LIKE 'j_c%' GROUP BY 1, 2 "
                  "HAVING count(*) = 1 AND bool_and(outcome = 'done')) x") == JOBS * PARTS);
    cz_store_close(a);
    cz_store_close(b);
}

/* hints: a submit on one host wakes another's wait */
static void test_pg_hints(void)
{
    cz_store *a = pg_open(30), *b = pg_open(30);
    if (!a || !b) {
        cz_store_close(a);
        cz_store_close(b);
        return;
    }
    (void)b->ops->wait_hint(b, 0.05); /* LISTEN */
    while (b->ops->wait_hint(b, 0.01)) {
    }
    CHECK(submit_key(a, "j_h1", "k_h", "normal", 1) == CZ_OK);
    CHECK((b->ops->wait_hint(b, 5.0) & 1) == 1);
    cz_store_close(a);
    cz_store_close(b);
}

static void test_pg_open_errors(void)
{
    cz_store *t = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_store_pg_open(&t, "postgresql://cuzk@127.0.0.1:1/nowhere", 30, &err) == CZ_ERR_IO && !t &&
          strstr(err.msg, "127.0.0.1") && strstr(err.msg, "connect"));
    cz_error_clear(&err);
    CHECK(cz_store_pg_open(&t, "postgresql://[bad", 30, &err) == CZ_ERR_INVALID_ARG && !t);
    CHECK(cz_store_pg_open(&t, g_pg_url, 0, NULL) == CZ_ERR_INVALID_ARG && !t);
    /* a newer schema is refused, with both versions in the message */
    CHECK(pg_exec(g_pg_url, "UPDATE schema_version SET version = 99", NULL, 0));
    cz_error_clear(&err);
    CHECK(cz_store_pg_open(&t, g_pg_url, 30, &err) == CZ_ERR_UNSUPPORTED && !t && strstr(err.msg, "99"));
    CHECK(pg_exec(g_pg_url, "UPDATE schema_version SET version = 1", NULL, 0));
    CHECK(pg_long("SELECT version FROM schema_version") == 1);
}

static void test_pg(void)
{
    const char *base = getenv("CZ_TEST_PG_URL");
    if (!base || !*base) {
        printf("test_store: PostgreSQL store not tested: CZ_TEST_PG_URL is not set (tests/run_pg.sh sets it)\n");
        return;
    }
    char name[64];
    snprintf(name, sizeof name, "cz_test_store_%d", (int)getpid());
    if (!pg_fresh_db(base, name)) {
        CHECK_MSG(0, "CZ_TEST_PG_URL=%s: cannot create the database %s", base, name);
        return;
    }
    /* the cases both stores share */
    cz_store *s = pg_open(30);
    if (s) {
        test_keys(s);
        test_job_life(s);
        test_idempotency(s);
        test_fail_cancel(s);
        test_expiry(s);
        test_strings(s);
        test_pg_claim_order(s);
        cz_store_close(s);
    }
    test_pg_leases();
    test_pg_concurrent();
    test_pg_hints();
    test_pg_open_errors();
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
    (void)pg_exec(base, sql, NULL, 0);
}
#else
static void test_pg(void)
{
    printf("test_store: PostgreSQL store not tested: this build has no libpq\n");
}
#endif

/* ---- main ---------------------------------------------------------------------------- */

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/test_store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_names();
    char path[512];
    db_path(path, sizeof path, "store.db");
    cz_store *s = open_at(path);
    if (s) {
        test_keys(s);
        test_job_life(s);
        test_idempotency(s);
        test_fail_cancel(s);
        test_expiry(s);
        test_strings(s);
        cz_store_close(s);
    }
    test_recover();
    test_schema();
    test_atomic();
    test_durability();
    test_threads();
    test_pg();
    rm_dir(g_dir);
    return cz_test_finish("test_store");
}
