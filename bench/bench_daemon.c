/*
 * bench_daemon: a load generator for a running cuzkd (libcurl, pthreads).
 *
 *   bench_daemon --server=http://127.0.0.1:8840 --key=/path/circuit.zkey \
 *                --witness=/path/witness.wtns --jobs=2000 --clients=32 --pid=PID [--write]
 *
 * C client threads share N jobs (one counter). A job: POST /v1/proofs (the
 * witness uploaded as multipart/form-data, or with --by-path its path on the
 * daemon's machine; --partitions=P repeats it P times), with an idempotency
 * key; a 429 is counted and the same request sent again after --retry-ms
 * (default 100); then GET /v1/proofs/{id}?wait=30 until the job is final,
 * then GET its proof.json. Each thread keeps one libcurl handle (keep-alive).
 *   submit latency: the accepted POST's round trip;
 *   end to end: from the job's first POST to its proof.json in hand;
 *   proofs/min: partitions proved per minute of the measured part's wall time;
 *   failures: any answer other than 200/202 (and the 429s) or a job that did
 *   not end done.
 * The first --warmup jobs (default: max(clients, jobs/10)) are not measured;
 * with --pid the daemon's VmRSS (/proc/PID/status) is read after them (all
 * done) and at the end. --token-file=F sends a bearer token. Exit status: 1
 * when a request failed, else 0 (2 for a bad command line).
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>

#include "bench.h"
#include "io/json.h"

typedef struct {
    char *p;
    size_t n, cap;
} buf_t;

static size_t on_data(char *d, size_t sz, size_t nm, void *ctx)
{
    buf_t *b = ctx;
    size_t n = sz * nm;
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + n + 1) c *= 2;
        char *q = realloc(b->p, c);
        if (!q) return 0;
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
    b->p[b->n] = '\0';
    return n;
}

typedef struct {
    const char *server, *key, *witness, *token;
    int by_path, partitions;
    long retry_ms;
    char run[32]; /* idempotency keys: bench-<run>-<i> */
    /* the jobs of the current phase: [next, end) */
    atomic_long next;
    long end;
    /* per job, measured phase: seconds */
    double *submit_s, *e2e_s;
    long base; /* index of the phase's first job */
    atomic_long n429, nfail, ndone;
    pthread_mutex_t mu; /* first failure messages */
    int nmsg;
} ctx_t;

typedef struct {
    ctx_t *c;
    CURL *h;
    struct curl_slist *hd_json, *hd_plain;
    buf_t b;
} worker_t;

static double now_s(void) { return (double)cz_bench_now_ns() * 1e-9; }

static void fail_msg(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_msg(ctx_t *c, const char *fmt, ...)
{
    atomic_fetch_add(&c->nfail, 1);
    pthread_mutex_lock(&c->mu);
    if (c->nmsg++ < 5) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "bench_daemon: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    pthread_mutex_unlock(&c->mu);
}

/* one request on the worker's handle: the HTTP status (0: not reached) */
static long req(worker_t *w, const char *path, const char *json, curl_mime *mime, double *secs)
{
    ctx_t *c = w->c;
    char url[8400];
    snprintf(url, sizeof url, "%s%s", c->server, path);
    CURL *h = w->h;
    curl_easy_reset(h);
    w->b.n = 0;
    if (w->b.p) w->b.p[0] = '\0';
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &w->b);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 600L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, json ? w->hd_json : w->hd_plain);
    if (json) curl_easy_setopt(h, CURLOPT_POSTFIELDS, json);
    if (mime) curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
    double t0 = now_s();
    CURLcode rc = curl_easy_perform(h);
    if (secs) *secs = now_s() - t0;
    long st = 0;
    if (rc == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st);
    else fail_msg(c, "%s: %s", url, curl_easy_strerror(rc));
    return st;
}

/* a string field of the JSON answer in w->b */
static int field(worker_t *w, const char *k, char *out, size_t cap)
{
    cz_json_doc *doc = NULL;
    cz_json *root;
    int found = 0;
    if (w->b.n && cz_json_parse(&doc, &root, w->b.p, w->b.n, "answer", NULL) == CZ_OK) {
        const cz_json *v = cz_json_get(root, k);
        if (v && v->type == CZ_JSON_STRING) {
            snprintf(out, cap, "%s", v->str);
            found = 1;
        }
    }
    cz_json_free(doc);
    return found;
}

static void one_job(worker_t *w, long i, int measured)
{
    ctx_t *c = w->c;
    char idem[96], job[2048 + 8400];
    snprintf(idem, sizeof idem, "bench-%s-%ld", c->run, i);
    size_t o = (size_t)snprintf(job, sizeof job, "{\"key\": \"%s\", \"idempotency_key\": \"%s\"", c->key, idem);
    if (c->by_path) {
        o += (size_t)snprintf(job + o, sizeof job - o, ", \"witnesses\": [");
        for (int p = 0; p < c->partitions && o < sizeof job; p++)
            o += (size_t)snprintf(job + o, sizeof job - o, "%s\"%s\"", p ? ", " : "", c->witness);
        o += (size_t)snprintf(job + o, sizeof job - o, "]");
    }
    if (o < sizeof job) snprintf(job + o, sizeof job - o, "}");
    double t0 = now_s(), sub = 0;
    long st;
    for (;;) {
        curl_mime *mime = NULL;
        if (!c->by_path) { /* built for each attempt: a curl_mime is sent once */
            mime = curl_mime_init(w->h);
            curl_mimepart *part = curl_mime_addpart(mime);
            curl_mime_name(part, "job");
            curl_mime_data(part, job, CURL_ZERO_TERMINATED);
            curl_mime_type(part, "application/json");
            for (int p = 0; p < c->partitions; p++) {
                part = curl_mime_addpart(mime);
                curl_mime_name(part, "witness");
                curl_mime_filedata(part, c->witness);
                curl_mime_type(part, "application/octet-stream");
            }
        }
        st = req(w, "/v1/proofs", c->by_path ? job : NULL, mime, &sub);
        curl_mime_free(mime);
        if (st != 429) break;
        atomic_fetch_add(&c->n429, 1);
        struct timespec ts = {c->retry_ms / 1000, (c->retry_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    char id[64];
    if ((st != 202 && st != 200) || !field(w, "id", id, sizeof id)) {
        if (st) fail_msg(c, "job %ld: POST /v1/proofs: HTTP %ld: %.200s", i, st, w->b.p ? w->b.p : "");
        return;
    }
    char path[256], state[32] = "";
    for (;;) {
        snprintf(path, sizeof path, "/v1/proofs/%s?wait=30", id);
        st = req(w, path, NULL, NULL, NULL);
        if (st != 200 || !field(w, "state", state, sizeof state)) {
            if (st) fail_msg(c, "job %ld: GET %s: HTTP %ld", i, path, st);
            return;
        }
        if (strcmp(state, "queued") && strcmp(state, "running")) break;
    }
    if (strcmp(state, "done")) {
        fail_msg(c, "job %ld (%s): %s: %.300s", i, id, state, w->b.p);
        return;
    }
    snprintf(path, sizeof path, "/v1/proofs/%s/proof.json", id);
    st = req(w, path, NULL, NULL, NULL);
    if (st != 200 || w->b.n < 100) {
        fail_msg(c, "job %ld: GET %s: HTTP %ld", i, path, st);
        return;
    }
    double t1 = now_s();
    atomic_fetch_add(&c->ndone, 1);
    if (measured) {
        c->submit_s[i - c->base] = sub;
        c->e2e_s[i - c->base] = t1 - t0;
    }
}

static int g_measured;

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    for (;;) {
        long i = atomic_fetch_add(&w->c->next, 1);
        if (i >= w->c->end) return NULL;
        one_job(w, i, g_measured);
    }
}

static void run_phase(ctx_t *c, worker_t *ws, int nc, long from, long to, int measured)
{
    atomic_store(&c->next, from);
    c->end = to;
    c->base = from;
    g_measured = measured;
    pthread_t *th = calloc((size_t)nc, sizeof *th);
    for (int t = 0; t < nc; t++) pthread_create(&th[t], NULL, worker_main, &ws[t]);
    for (int t = 0; t < nc; t++) pthread_join(th[t], NULL);
    free(th);
}

static long rss_kib(long pid)
{
    if (pid <= 0) return -1;
    char p[64], line[256];
    snprintf(p, sizeof p, "/proc/%ld/status", pid);
    FILE *f = fopen(p, "r");
    if (!f) return -1;
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) v = strtol(line + 6, NULL, 10);
    fclose(f);
    return v;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* nearest-rank percentile of n sorted values */
static double pct(const double *s, size_t n, double p)
{
    if (!n) return 0;
    size_t k = (size_t)(p * (double)n + 0.999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return s[k - 1];
}

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--server", "--key", "--witness", "--jobs", "--clients", "--pid",
                                      "--warmup", "--by-path", "--partitions", "--token-file", "--retry-ms",
                                      "--note", NULL};
    int rc = cz_bench_init(&b, "bench_daemon", argc, argv, own,
                           "  --server=URL      the daemon (required), e.g. http://127.0.0.1:8840\n"
                           "  --key=KEY         a key id or the key's path on the daemon's machine (required)\n"
                           "  --witness=FILE    the witness of every partition (required)\n"
                           "  --by-path         send the witness's path instead of uploading it\n"
                           "  --partitions=P    partitions a job (the witness P times; default 1)\n"
                           "  --jobs=N          measured jobs (default 2000, quick 100)\n"
                           "  --clients=C       concurrent clients (default 32)\n"
                           "  --warmup=W        jobs before the measured ones (default max(C, N/10))\n"
                           "  --pid=PID         the daemon's pid: its RSS after the warm-up and at the end\n"
                           "  --token-file=F    bearer token\n"
                           "  --retry-ms=MS     pause before a request that got 429 is sent again (default 100)\n"
                           "  --note=TEXT       a line for the results section (the machine, the daemon's flags)\n");
    if (rc >= 0) return rc;
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.server = cz_bench_opt_str(&b, "--server");
    c.key = cz_bench_opt_str(&b, "--key");
    c.witness = cz_bench_opt_str(&b, "--witness");
    c.by_path = cz_bench_has(&b, "--by-path");
    c.partitions = (int)cz_bench_opt_long(&b, "--partitions", 1);
    c.retry_ms = cz_bench_opt_long(&b, "--retry-ms", 100);
    long njobs = cz_bench_opt_long(&b, "--jobs", b.quick ? 100 : 2000);
    int nc = (int)cz_bench_opt_long(&b, "--clients", 32);
    long pid = cz_bench_opt_long(&b, "--pid", 0);
    long nwarm = cz_bench_opt_long(&b, "--warmup", njobs / 10 > nc ? njobs / 10 : nc);
    if (!c.server || !*c.server || !c.key || !*c.key || !c.witness || !*c.witness || njobs < 1 || nc < 1 ||
        nc > 4096 || nwarm < 0 || c.partitions < 1 || c.partitions > 1024 || c.retry_ms < 0) {
        fprintf(stderr, "bench_daemon: --server, --key and --witness are required; --jobs, --clients, "
                        "--partitions positive (--help)\n");
        return 2;
    }
    char auth[4200] = "";
    const char *tf = cz_bench_opt_str(&b, "--token-file");
    if (tf && *tf) {
        FILE *f = fopen(tf, "r");
        char t[4096] = "";
        size_t n = f ? fread(t, 1, sizeof t - 1, f) : 0;
        if (f) fclose(f);
        t[n] = '\0';
        while (n && (t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == ' ')) t[--n] = '\0';
        if (!n) {
            fprintf(stderr, "bench_daemon: --token-file %s: no token\n", tf);
            return 2;
        }
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", t);
    }
    snprintf(c.run, sizeof c.run, "%lx%lx", (long)time(NULL), (long)getpid());
    pthread_mutex_init(&c.mu, NULL);
    c.submit_s = calloc((size_t)njobs, sizeof *c.submit_s);
    c.e2e_s = calloc((size_t)njobs, sizeof *c.e2e_s);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    worker_t *ws = calloc((size_t)nc, sizeof *ws);
    if (!c.submit_s || !c.e2e_s || !ws) return 1;
    for (int t = 0; t < nc; t++) {
        ws[t].c = &c;
        ws[t].h = curl_easy_init();
        ws[t].hd_json = curl_slist_append(NULL, "Content-Type: application/json");
        if (auth[0]) {
            ws[t].hd_json = curl_slist_append(ws[t].hd_json, auth);
            ws[t].hd_plain = curl_slist_append(NULL, auth);
        }
    }
    printf("bench_daemon: %ld warm-up + %ld jobs of %d partition%s, %d clients, %s, against %s\n", nwarm, njobs,
           c.partitions, c.partitions == 1 ? "" : "s", nc, c.by_path ? "witness by path" : "witness uploaded",
           c.server);
    fflush(stdout);
    run_phase(&c, ws, nc, 0, nwarm, 0);
    long rss0 = rss_kib(pid);
    long fail_warm = atomic_load(&c.nfail), n429_warm = atomic_load(&c.n429), done_warm = atomic_load(&c.ndone);
    double t0 = now_s();
    run_phase(&c, ws, nc, nwarm, nwarm + njobs, 1);
    double wall = now_s() - t0;
    long rss1 = rss_kib(pid);
    long ndone = atomic_load(&c.ndone) - done_warm, nfail = atomic_load(&c.nfail) - fail_warm;
    long n429 = atomic_load(&c.n429) - n429_warm;
    /* the measured jobs that ended done (a failed one has 0 in both arrays) */
    size_t m = 0;
    for (long i = 0; i < njobs; i++)
        if (c.e2e_s[i] > 0) {
            c.submit_s[m] = c.submit_s[i];
            c.e2e_s[m] = c.e2e_s[i];
            m++;
        }
    qsort(c.submit_s, m, sizeof(double), cmp_d);
    qsort(c.e2e_s, m, sizeof(double), cmp_d);
    const char *note = cz_bench_opt_str(&b, "--note");
    if (note && *note) cz_bench_note(&b, "%s", note);
    cz_bench_note(&b,
                  "%d clients (threads, one keep-alive connection each) against cuzkd on loopback: each job a "
                  "POST /v1/proofs with an idempotency key (%s), a long-poll GET ?wait=30 until it is final, "
                  "then GET proof.json. submit: the accepted POST's round trip; end to end: first POST to "
                  "proof.json in hand; %ld warm-up jobs first, not measured. A 429 is retried after %ld ms.",
                  nc, c.by_path ? "the witness by path" : "the witness uploaded", nwarm, c.retry_ms);
    cz_bench_table t;
    cz_bench_table_init(&t, "Throughput and latency (the measured jobs)",
                        "jobs|partitions/job|clients|wall s|proofs/min|submit p50 ms|submit p99 ms|"
                                "e2e p50 ms|e2e p99 ms|429s|failed");
    cz_bench_table_addf(&t, "%ld|%d|%d|%.1f|%.0f|%.2f|%.2f|%.1f|%.1f|%ld|%ld", ndone, c.partitions, nc, wall,
                        wall > 0 ? 60.0 * (double)ndone * c.partitions / wall : 0, 1e3 * pct(c.submit_s, m, 0.5),
                        1e3 * pct(c.submit_s, m, 0.99), 1e3 * pct(c.e2e_s, m, 0.5), 1e3 * pct(c.e2e_s, m, 0.99),
                        n429, nfail + (njobs - ndone - nfail));
    cz_bench_table_print(&b, &t);
    if (pid > 0) {
        cz_bench_table_init(&t, "The daemon's memory (VmRSS)", "after warm-up KiB|at the end KiB|growth");
        cz_bench_table_addf(&t, "%ld|%ld|%+.1f%%", rss0, rss1, rss0 > 0 ? 100.0 * (double)(rss1 - rss0) / rss0 : 0);
        cz_bench_table_print(&b, &t);
    }
    for (int q = 0; q < nc; q++) {
        curl_easy_cleanup(ws[q].h);
        curl_slist_free_all(ws[q].hd_json);
        curl_slist_free_all(ws[q].hd_plain);
        free(ws[q].b.p);
    }
    free(ws);
    free(c.submit_s);
    free(c.e2e_s);
    curl_global_cleanup();
    int frc = cz_bench_finish(&b);
    if (nfail || ndone != njobs || atomic_load(&c.nfail)) return 1;
    return frc;
}
