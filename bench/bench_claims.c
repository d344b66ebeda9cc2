/*
 * bench_claims: the shared job store's queue (daemon/store_pg.c) against a
 * PostgreSQL server: claim latency and claims per second with 1, 2 and 3
 * hosts on small jobs (bench/claims.sh starts a loopback server and runs
 * it). Usage:
 *   bench_claims --urls=URL[,URL...] [--labels=L,...] [--hosts=1,2,3] [--threads=2]
 *                [--batch=4] [--jobs=2000] [--parts=4] [--commit=SHA] [--write]
 *
 * DESIGN: a "host" is a store handle of its own (its own connection pool,
 * as each cuzkd has) driven by --threads threads; each thread loops as a
 * daemon's claim path does: claim_next of up to --batch partitions (no key
 * preferred), then complete() of each with a result of the size a BN254
 * proof has (the fence check, the result, the job's end when it is the
 * last), until the queue is empty; a second run per host count only
 * claims. Before each run a fresh database gets --jobs jobs of --parts
 * partitions (not timed). Reported: claims per second (claiming only) and
 * claims with their results per second (the whole cycle: what the queue
 * lets the hosts prove at most), the latency of one claim_next call and of
 * one complete (p50, p99), and a check that every partition was claimed
 * (and completed) exactly once. Proving takes no time here: the figures are the
 * queue's own ceiling, to compare with the engine's rate (a few hundred
 * partitions per second per GPU host at most on small circuits).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "daemon/store.h"

#ifdef CZ_HAVE_PG
#include <libpq-fe.h>

typedef struct lat {
    double *v;
    size_t n, cap;
} lat;

static void lat_add(lat *l, double x)
{
    if (l->n == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 4096;
        double *b = realloc(l->v, c * sizeof *b);
        if (!b) return;
        l->v = b;
        l->cap = c;
    }
    l->v[l->n++] = x;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(lat *l, double p)
{
    if (!l->n) return 0;
    qsort(l->v, l->n, sizeof *l->v, cmp_d);
    size_t i = (size_t)(p * (double)(l->n - 1) + 0.5);
    return l->v[i];
}

typedef struct worker {
    cz_store *s;
    char owner[32];
    int batch;
    int claim_only; /* claims only (the queue's claim rate); else claim and complete */
    lat claim, complete;
    uint64_t done, refused, errors;
} worker;

static void *worker_main(void *p)
{
    worker *w = p;
    cz_store_claim c[64];
    char proof[900], pub[96];
    memset(proof, 'x', sizeof proof - 1);
    proof[0] = '{';
    proof[sizeof proof - 2] = '}';
    proof[sizeof proof - 1] = '\0';
    snprintf(pub, sizeof pub, "[\"1\", \"2\"]");
    cz_store_part res;
    memset(&res, 0, sizeof res);
    res.proof_json = proof;
    res.public_json = pub;
    res.timings_json = "{\"total\": 0.01}";
    for (int empty = 0; empty < 3;) {
        size_t n = 0;
        uint64_t t = cz_bench_now_ns();
        cz_error err;
        cz_error_clear(&err);
        if (w->s->ops->claim_next(w->s, w->owner, NULL, 0, NULL, 0, (size_t)w->batch, c, &n, &err) != CZ_OK) {
            w->errors++;
            fprintf(stderr, "bench_claims: %s\n", cz_error_msg(&err));
            continue;
        }
        lat_add(&w->claim, (double)(cz_bench_now_ns() - t) * 1e-6);
        if (!n) {
            empty++;
            continue;
        }
        empty = 0;
        if (w->claim_only) {
            w->done += n;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            t = cz_bench_now_ns();
            cz_status st = w->s->ops->complete(w->s, c[i].job_id, c[i].idx, w->owner, c[i].attempt, &res, NULL, &err);
            lat_add(&w->complete, (double)(cz_bench_now_ns() - t) * 1e-6);
            if (st == CZ_OK)
                w->done++;
            else if (st == CZ_ERR_MISMATCH)
                w->refused++;
            else
                w->errors++;
        }
    }
    return NULL;
}

/* base with its database name replaced by name */
static void url_db(char *out, size_t cap, const char *base, const char *name)
{
    const char *slash = strrchr(base, '/');
    const char *q = strchr(slash ? slash : base, '?');
    snprintf(out, cap, "%.*s/%s%s", (int)(slash ? slash - base : (long)strlen(base)), base, name, q ? q : "");
}

static int admin(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    int ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
        PGresult *r = PQexec(c, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok) fprintf(stderr, "bench_claims: %s: %s", sql, PQresultErrorMessage(r));
        PQclear(r);
    } else {
        fprintf(stderr, "bench_claims: %s", PQerrorMessage(c));
    }
    PQfinish(c);
    return ok;
}

typedef struct run_out {
    double rate, claim_p50, claim_p99, complete_p50, complete_p99, secs;
    uint64_t done, refused, errors, total;
    int exact;
} run_out;

static int run(const char *base, int hosts, int threads, int batch, int jobs, int parts, int claim_only, run_out *o)
{
    memset(o, 0, sizeof *o);
    char url[2048];
    if (!admin(base, "DROP DATABASE IF EXISTS cz_bench_claims") || !admin(base, "CREATE DATABASE cz_bench_claims"))
        return 0;
    url_db(url, sizeof url, base, "cz_bench_claims");
    cz_store *st[8] = {0};
    cz_error err;
    cz_error_clear(&err);
    for (int h = 0; h < hosts; h++)
        if (cz_store_pg_open(&st[h], url, 60, &err) != CZ_OK) {
            fprintf(stderr, "bench_claims: %s\n", cz_error_msg(&err));
            for (int i = 0; i < h; i++) cz_store_close(st[i]);
            return 0;
        }
    cz_store_part *pp = calloc((size_t)parts, sizeof *pp);
    for (int i = 0; i < jobs; i++) {
        cz_store_job j, out;
        memset(&j, 0, sizeof j);
        snprintf(j.id, sizeof j.id, "j_%06d", i);
        snprintf(j.key_id, sizeof j.key_id, "k_bench");
        snprintf(j.priority, sizeof j.priority, "%s", i % 10 ? "normal" : "high");
        j.n_parts = (uint32_t)parts;
        for (int k = 0; k < parts; k++) {
            pp[k].idx = (uint32_t)k;
            snprintf(pp[k].witness, sizeof pp[k].witness, "/spool/j_%06d/%d.wtns", i, k);
        }
        int ex;
        if (st[0]->ops->submit(st[0], &j, pp, &out, &ex, &err) != CZ_OK) {
            fprintf(stderr, "bench_claims: %s\n", cz_error_msg(&err));
            break;
        }
    }
    free(pp);
    int nw = hosts * threads;
    worker *w = calloc((size_t)nw, sizeof *w);
    pthread_t *th = calloc((size_t)nw, sizeof *th);
    uint64_t t0 = cz_bench_now_ns();
    for (int i = 0; i < nw; i++) {
        w[i].s = st[i / threads];
        snprintf(w[i].owner, sizeof w[i].owner, "host%d", i / threads + 1);
        w[i].batch = batch;
        w[i].claim_only = claim_only;
        pthread_create(&th[i], NULL, worker_main, &w[i]);
    }
    lat all_c = {0}, all_k = {0};
    for (int i = 0; i < nw; i++) {
        pthread_join(th[i], NULL);
        o->done += w[i].done;
        o->refused += w[i].refused;
        o->errors += w[i].errors;
        for (size_t k = 0; k < w[i].claim.n; k++) lat_add(&all_c, w[i].claim.v[k]);
        for (size_t k = 0; k < w[i].complete.n; k++) lat_add(&all_k, w[i].complete.v[k]);
        free(w[i].claim.v);
        free(w[i].complete.v);
    }
    /* (the last 3 empty claims of each worker are in the latencies too: they are claims as well) */
    o->secs = (double)(cz_bench_now_ns() - t0) * 1e-9;
    o->total = (uint64_t)jobs * (uint64_t)parts;
    o->rate = (double)o->done / o->secs;
    o->claim_p50 = pct(&all_c, 0.5);
    o->claim_p99 = pct(&all_c, 0.99);
    o->complete_p50 = pct(&all_k, 0.5);
    o->complete_p99 = pct(&all_k, 0.99);
    free(all_c.v);
    free(all_k.v);
    cz_store_counts cnt;
    o->exact = st[0]->ops->counts(st[0], &cnt, NULL) == CZ_OK &&
               cnt.jobs[claim_only ? CZ_JOB_RUNNING : CZ_JOB_DONE] == (uint64_t)jobs && o->done == o->total &&
               o->refused == 0 && o->errors == 0;
    for (int h = 0; h < hosts; h++) cz_store_close(st[h]);
    free(w);
    free(th);
    (void)admin(base, "DROP DATABASE IF EXISTS cz_bench_claims");
    return 1;
}

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--urls", "--labels", "--hosts", "--threads", "--batch",
                                      "--jobs", "--parts",  "--commit", NULL};
    int rc = cz_bench_init(&b, "bench_claims", argc, argv, own,
                           "  --urls=URL,...   PostgreSQL servers (libpq URLs of a database to connect to first;\n"
                           "                   the benchmark makes and drops its own database cz_bench_claims)\n"
                           "  --labels=L,...   a name per server for the table (default: its index)\n"
                           "  --hosts=1,2,3    host counts to run\n"
                           "  --threads=N      threads per host (default 2: a cuzkd's claim and event threads)\n"
                           "  --batch=N        partitions per claim_next (default 4)\n"
                           "  --jobs=N         jobs per run (default 2000; --quick 200)\n"
                           "  --parts=N        partitions per job (default 4)\n"
                           "  --commit=SHA     the commit measured (for the results section)\n");
    if (rc >= 0) return rc;
    const char *urls = cz_bench_opt_str(&b, "--urls");
    if (!urls || !*urls) {
        fprintf(stderr, "bench_claims: --urls is required (bench/claims.sh starts a server and passes it)\n");
        return 2;
    }
    const char *labels = cz_bench_opt_str(&b, "--labels");
    const char *hl = cz_bench_opt_str(&b, "--hosts");
    int threads = (int)cz_bench_opt_long(&b, "--threads", 2);
    int batch = (int)cz_bench_opt_long(&b, "--batch", 4);
    int jobs = (int)cz_bench_opt_long(&b, "--jobs", b.quick ? 200 : 2000);
    int parts = (int)cz_bench_opt_long(&b, "--parts", 4);
    if (threads < 1 || threads > 16 || batch < 1 || batch > 64 || jobs < 1 || parts < 1 || parts > 1024) {
        fprintf(stderr, "bench_claims: --threads 1..16, --batch 1..64, --jobs >= 1, --parts 1..1024\n");
        return 2;
    }
    const char *commit = cz_bench_opt_str(&b, "--commit");
    if (commit && *commit) cz_bench_note(&b, "commit: %s", commit);
    cz_bench_note(&b,
                  "%d jobs x %d partitions per run; per host %d threads, claim_next of up to %d partitions; no "
                  "proving (the queue's own ceiling). claims/s: partitions claimed per second by all hosts, "
                  "claiming only; claim+result/s: partitions claimed and their results recorded (complete: fence, "
                  "result, the job's end) per second, the whole cycle of a partition through the store.",
                  jobs, parts, threads, batch);
    cz_bench_note(&b,
                  "The hosts (threads of this process, each host with its own connections) and the server's "
                  "backends share this machine's %ld cores: with more hosts they compete for CPU, not for rows "
                  "(a claim skips rows another is claiming). For scale: one cuzkd proves ~74 small BN254 "
                  "partitions/s on this box (bench_daemon, 4426 proofs/min) and ~6/s on an H200 with a 2^K "
                  "filecoin key (372/min).",
                  sysconf(_SC_NPROCESSORS_ONLN));
    char ubuf[4096], lbuf[1024];
    snprintf(ubuf, sizeof ubuf, "%s", urls);
    snprintf(lbuf, sizeof lbuf, "%s", labels ? labels : "");
    char *usave = NULL, *lsave = NULL;
    char *lab = labels ? strtok_r(lbuf, ",", &lsave) : NULL;
    int idx = 0, ok = 1;
    for (char *u = strtok_r(ubuf, ",", &usave); u; u = strtok_r(NULL, ",", &usave), idx++) {
        char title[160], defl[32];
        snprintf(defl, sizeof defl, "server %d", idx);
        snprintf(title, sizeof title, "claims on %.140s", lab ? lab : defl);
        cz_bench_table t;
        cz_bench_table_init(&t, title,
                            "hosts|claims/s|claim p50 ms|claim p99 ms|claim+result/s|claim p50 ms|complete p50 ms|"
                            "complete p99 ms|exactly once");
        char hb[64];
        snprintf(hb, sizeof hb, "%s", hl && *hl ? hl : "1,2,3");
        char *hs = NULL;
        for (char *h = strtok_r(hb, ",", &hs); h; h = strtok_r(NULL, ",", &hs)) {
            int nh = atoi(h);
            if (nh < 1 || nh > 8) continue;
            run_out c, o;
            if (!run(u, nh, threads, batch, jobs, parts, 1, &c) || !run(u, nh, threads, batch, jobs, parts, 0, &o)) {
                ok = 0;
                continue;
            }
            cz_bench_table_addf(&t, "%d|%.0f|%.2f|%.2f|%.0f|%.2f|%.2f|%.2f|%s", nh, c.rate, c.claim_p50, c.claim_p99,
                                o.rate, o.claim_p50, o.complete_p50, o.complete_p99,
                                c.exact && o.exact ? "yes" : "NO");
            ok &= o.exact && c.exact;
        }
        cz_bench_table_print(&b, &t);
        if (lab) lab = strtok_r(NULL, ",", &lsave);
    }
    int r = cz_bench_finish(&b);
    return ok ? r : 1;
}

#else
int main(void)
{
    fprintf(stderr, "bench_claims: this build has no libpq (install libpq-dev and rebuild)\n");
    return 1;
}
#endif
