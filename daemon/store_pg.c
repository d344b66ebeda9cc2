/*
 * daemon/store_pg: the daemon's job store (contract in daemon/store.h) in a
 * PostgreSQL database that several cuzkd hosts share, through libpq.
 *
 * DESIGN: the same rows as the SQLite store (keys, jobs, parts) plus what
 * sharing needs: parts carry a lease deadline (lease_until, the database's
 * clock, so that hosts need no synchronized clocks) and copies of their
 * job's priority rank, key and acceptance order (seq) so that the queue is
 * one index (parts_queue); hosts holds each host's heartbeat; attempts logs
 * every claim, how it ended (done, failed, requeued, expired, cancelled,
 * recovered) and how many late writes of it the fence refused (fenced),
 * which is how a test (or an operator) sees that no partition was proved
 * into the store twice and that a late writer was refused.
 *
 * Claims: claim_next takes the first `max` queued partitions in the order
 * (priority rank, one of the caller's keys first, seq, idx) with FOR UPDATE
 * SKIP LOCKED inside the UPDATE that claims them, so that hosts claiming at
 * the same moment get different rows and never wait for each other. A
 * claim sets owner, attempt + 1 and lease_until = now() + lease. Results and
 * failures are fenced as in SQLite: the job row is locked first (FOR
 * UPDATE: two hosts finishing the last two partitions of one job at once
 * are serialized, so exactly one sees the job done), then the partition's
 * state, owner and attempt are compared, and the UPDATE repeats them in
 * its WHERE clause. A refused result counts in its attempt's row (fenced,
 * committed although the call answers CZ_ERR_MISMATCH). lease_renew (the heartbeat) renews every lease of the host
 * and answers what it still holds; lease_expire (any host's housekeeping)
 * queues again, or fails past max_attempts, the partitions whose lease ran
 * out; after an outage of the database every host's leases may look run
 * out at once, so a host that has just reconnected waits one lease time
 * before it expires anyone's (the others renew theirs meanwhile).
 *
 * Connections: a pool of CZ_PG_POOL connections for the calls of the HTTP
 * threads, the event thread and the claims, one for the heartbeat and the
 * lease sweep alone (a busy pool cannot starve it) and one that LISTENs for
 * the hints (channels cuzk_work: partitions queued; cuzk_job: a job ended;
 * sent with pg_notify inside the transactions that cause them, so they
 * arrive after the commit). Each session sets
 * idle_in_transaction_session_timeout to the lease: a host stopped in the
 * middle of a transaction (SIGSTOP, a debugger) loses its session and its
 * row locks instead of blocking the others. TCP keepalives and
 * tcp_user_timeout notice a server that vanished without a reset.
 *
 * Transactions: a call of several statements runs inside BEGIN ... COMMIT;
 * a call of one statement (the reads, claim_next: pick, claim, log and start
 * the jobs in one statement of data-modifying CTEs) runs alone, which is its
 * own transaction and one round trip. Failures: a connection that broke, a server
 * shutting down or starting, a serialization failure or a deadlock is
 * retried (the connection reset, back-off from 50 ms doubling to 1 s) for up
 * to CZ_PG_RETRY_S seconds (one try while the database is known to be
 * away: the heartbeat probes it, callers that must not give up loop); then
 * the call returns CZ_ERR_IO with the database's text, and healthy()
 * reports the outage until a call succeeds.
 * A COMMIT whose answer was lost may have committed: a retried submit that
 * finds its own job id with the same request hash returns it as new, a
 * retried complete that finds its own result returns CZ_OK; a claim whose
 * answer was lost expires like one of a dead host.
 *
 * Schema: schema_version holds the version; cz_pg_steps[v] takes version v
 * to v + 1, each step in its own transaction under an advisory lock (hosts
 * starting together migrate once). A newer version than this code knows is
 * refused. Values go through parameters only ($1, ...); SQL text is never
 * built from a value.
 */
#include "daemon/store.h"

#ifndef CZ_HAVE_PG

cz_status cz_store_pg_open(cz_store **out, const char *url, double lease_s, cz_error *err)
{
    (void)url;
    (void)lease_s;
    if (out) *out = NULL;
    return cz_error_set(err, CZ_ERR_UNSUPPORTED,
                        "store: a PostgreSQL store was asked for, but this cuzkd was built without libpq "
                        "(install libpq-dev and rebuild; CMake reports 'PostgreSQL store ON')");
}

#else

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/common.h"

#define CZ_PG_POOL 4
#define CZ_PG_RETRY_S 3.0
#define CZ_PG_BIN 192

/* cz_pg_steps[v]: version v -> v + 1. Append only. */
static const char *const cz_pg_steps[] = {
    /* 0 -> 1 */
    "CREATE TABLE keys ("
    "  id TEXT PRIMARY KEY,"
    "  path TEXT NOT NULL,"
    "  created DOUBLE PRECISION NOT NULL);"
    "CREATE TABLE jobs ("
    "  id TEXT PRIMARY KEY,"
    "  seq BIGSERIAL NOT NULL,"
    "  key_id TEXT NOT NULL,"
    "  priority TEXT NOT NULL,"
    "  prio INTEGER NOT NULL CHECK (prio BETWEEN 0 AND 3),"
    "  state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
    "  n_parts INTEGER NOT NULL CHECK (n_parts > 0),"
    "  created DOUBLE PRECISION NOT NULL,"
    "  started DOUBLE PRECISION NOT NULL DEFAULT 0,"
    "  finished DOUBLE PRECISION NOT NULL DEFAULT 0,"
    "  idem_key TEXT NOT NULL DEFAULT '',"
    "  idem_hash TEXT NOT NULL DEFAULT '',"
    "  error_code TEXT NOT NULL DEFAULT '',"
    "  error TEXT NOT NULL DEFAULT '',"
    "  fetched INTEGER NOT NULL DEFAULT 0);"
    "CREATE UNIQUE INDEX jobs_idem ON jobs (idem_key) WHERE idem_key <> '';"
    "CREATE INDEX jobs_state ON jobs (state, prio, created);"
    "CREATE INDEX jobs_finished ON jobs (finished) WHERE state >= 2;"
    "CREATE TABLE parts ("
    "  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL CHECK (idx >= 0),"
    "  state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
    "  witness TEXT NOT NULL,"
    "  spooled INTEGER NOT NULL DEFAULT 0,"
    "  attempts INTEGER NOT NULL DEFAULT 0,"
    "  owner TEXT NOT NULL DEFAULT '',"
    "  error TEXT NOT NULL DEFAULT '',"
    "  proof_json TEXT,"
    "  public_json TEXT,"
    "  timings_json TEXT,"
    "  proof_bin BYTEA CHECK (proof_bin IS NULL OR length(proof_bin) = 192),"
    "  prio INTEGER NOT NULL,"
    "  key_id TEXT NOT NULL,"
    "  seq BIGINT NOT NULL,"
    "  lease_until TIMESTAMPTZ,"
    "  PRIMARY KEY (job_id, idx));"
    "CREATE INDEX parts_queue ON parts (prio, seq, idx) WHERE state = 0;"
    "CREATE INDEX parts_affinity ON parts (key_id, prio, seq, idx) WHERE state = 0;"
    "CREATE INDEX parts_running ON parts (owner) WHERE state = 1;"
    "CREATE INDEX parts_lease ON parts (lease_until) WHERE state = 1;"
    "CREATE TABLE attempts ("
    "  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  attempt INTEGER NOT NULL,"
    "  owner TEXT NOT NULL,"
    "  claimed TIMESTAMPTZ NOT NULL DEFAULT now(),"
    "  ended TIMESTAMPTZ,"
    "  outcome TEXT NOT NULL DEFAULT 'running',"
    "  fenced INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (job_id, idx, attempt));"
    "CREATE TABLE hosts ("
    "  id TEXT PRIMARY KEY,"
    "  heartbeat TIMESTAMPTZ NOT NULL,"
    "  started DOUBLE PRECISION NOT NULL,"
    "  devices TEXT NOT NULL DEFAULT '',"
    "  version TEXT NOT NULL DEFAULT '',"
    "  running INTEGER NOT NULL DEFAULT 0,"
    "  done BIGINT NOT NULL DEFAULT 0);",
};
#define CZ_PG_VERSION ((int)CZ_ARRAY_LEN(cz_pg_steps))

typedef struct cz_pg {
    cz_store pub;
    char where[300]; /* "postgres host:port/db" for messages (never the password) */
    char *url;
    double lease_s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    PGconn *pool[CZ_PG_POOL];
    int busy[CZ_PG_POOL];
    pthread_mutex_t hb_mu; /* the heartbeat connection */
    PGconn *hb;
    pthread_mutex_t ln_mu; /* the LISTEN connection */
    PGconn *ln;
    double ln_retry_at;
    pthread_mutex_t h_mu; /* health */
    int down;
    char down_msg[256];
    double up_since; /* monotonic: the first success after an outage (0: none yet) */
} cz_pg;

/* one call's connection and what its errors mean */
typedef struct pgx {
    cz_pg *s;
    PGconn *c;
    int retry;          /* the last error is worth another try (connection, serialization) */
    int retry_unique;   /* a unique violation is worth another try too (submit) */
    int retried;        /* this call was tried before (its COMMIT may have happened) */
    int commit_anyway;  /* commit although the call's answer is an error (a fenced result is logged) */
} pgx;

static const char *const cz_pg_prio[4] = {"critical", "high", "normal", "low"};

static int prio_rank(const char *p)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(p, cz_pg_prio[i])) return i;
    return -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

static int text_ok(const char *s, size_t cap)
{
    if (!s) return 0;
    size_t n = strnlen(s, cap);
    return n > 0 && n < cap;
}

static int owner_ok(const char *owner)
{
    return owner && strnlen(owner, 64) < 64;
}

static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--;
    }
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

static cz_pg *ctx_of(cz_store *st)
{
    return st->ctx;
}

/* ---- health ----------------------------------------------------------------- */

static void mark_down(cz_pg *s, const char *msg)
{
    pthread_mutex_lock(&s->h_mu);
    s->down = 1;
    copy_text(s->down_msg, sizeof s->down_msg, msg);
    pthread_mutex_unlock(&s->h_mu);
}

static void mark_up(cz_pg *s)
{
    pthread_mutex_lock(&s->h_mu);
    if (s->down) {
        s->down = 0;
        s->up_since = mono_s();
    }
    pthread_mutex_unlock(&s->h_mu);
}

static int pg_healthy(cz_store *st, char *msg, size_t cap)
{
    cz_pg *s = ctx_of(st);
    pthread_mutex_lock(&s->h_mu);
    int up = !s->down;
    if (msg && cap) copy_text(msg, cap, up ? "" : s->down_msg);
    pthread_mutex_unlock(&s->h_mu);
    return up;
}

/* ---- connections ------------------------------------------------------------ */

/* the server's notices ("relation exists, skipping") are not the daemon's lines */
static void no_notice(void *arg, const PGresult *r)
{
    (void)arg;
    (void)r;
}

static PGconn *connect_db(cz_pg *s, char *why, size_t cap)
{
    char opts[160];
    long ms = (long)(s->lease_s * 1000);
    if (ms < 2000) ms = 2000;
    snprintf(opts, sizeof opts, "-c idle_in_transaction_session_timeout=%ld -c TimeZone=UTC", ms);
    const char *const kw[] = {"dbname", "connect_timeout", "application_name", "options", "keepalives",
                              "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", NULL};
    const char *const val[] = {s->url, "3", "cuzkd", opts, "1", "5", "2", "3", "10000", NULL};
    PGconn *c = PQconnectdbParams(kw, val, 1);
    if (!c) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        copy_text(why, cap, PQerrorMessage(c));
        for (char *p = why; *p; p++)
            if (*p == '\n' || *p == '\t') *p = ' ';
        size_t n = strlen(why);
        while (n && why[n - 1] == ' ') why[--n] = '\0';
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeReceiver(c, no_notice, NULL);
    return c;
}

/* a pool connection (waits for a free one); its slot in *slot */
static PGconn **pool_get(cz_pg *s, int *slot)
{
    pthread_mutex_lock(&s->mu);
    for (;;) {
        for (int i = 0; i < CZ_PG_POOL; i++)
            if (!s->busy[i]) {
                s->busy[i] = 1;
                *slot = i;
                pthread_mutex_unlock(&s->mu);
                return &s->pool[i];
            }
        pthread_cond_wait(&s->cv, &s->mu);
    }
}

static void pool_put(cz_pg *s, int slot)
{
    pthread_mutex_lock(&s->mu);
    s->busy[slot] = 0;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* The database's message of a failed result, one line. */
static void res_msg(PGconn *c, PGresult *r, char *buf, size_t cap)
{
    const char *m = r ? PQresultErrorMessage(r) : NULL;
    if (!m || !*m) m = PQerrorMessage(c);
    copy_text(buf, cap, m && *m ? m : "no answer from the server");
    for (char *p = buf; *p; p++)
        if (*p == '\n') *p = ' ';
    size_t n = strlen(buf);
    while (n && buf[n - 1] == ' ') buf[--n] = '\0';
}

/* Whether an error is worth another try: the connection, the server's
 * state, a serialization failure or a deadlock. */
static int retryable(pgx *x, PGresult *r)
{
    if (PQstatus(x->c) != CONNECTION_OK) return 1;
    const char *code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (!code) return r == NULL;
    if (!strncmp(code, "08", 2) || !strncmp(code, "57P", 3)) return 1; /* connection; admin shutdown, cannot connect now */
    if (!strcmp(code, "40001") || !strcmp(code, "40P01")) return 1;
    if (x->retry_unique && !strcmp(code, "23505")) return 1;
    return 0;
}

/* Checks a result: CZ_OK when its status is want, else err with the
 * database's text (r is cleared then) and x->retry set when worth it. */
static cz_status res_check(pgx *x, PGresult **r, ExecStatusType want, const char *what, cz_error *err)
{
    if (*r && PQresultStatus(*r) == want) return CZ_OK;
    char m[400];
    res_msg(x->c, *r, m, sizeof m);
    x->retry = retryable(x, *r);
    PQclear(*r);
    *r = NULL;
    return cz_error_set(err, CZ_ERR_IO, "store %s: %s: %s", x->s->where, what, m);
}

/* runs sql with text parameters (NULL: SQL NULL); fmt/len for binary ones */
static PGresult *q_exec(pgx *x, const char *sql, int n, const char *const *v, const int *len, const int *fmt)
{
    return PQexecParams(x->c, sql, n, NULL, v, len, fmt, 0);
}

static cz_status q_cmd(pgx *x, const char *sql, int n, const char *const *v, const char *what, long *changed,
                       cz_error *err)
{
    PGresult *r = q_exec(x, sql, n, v, NULL, NULL);
    cz_status st = res_check(x, &r, PGRES_COMMAND_OK, what, err);
    if (st != CZ_OK) return st;
    if (changed) *changed = strtol(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return CZ_OK;
}

static cz_status q_rows(pgx *x, const char *sql, int n, const char *const *v, const char *what, PGresult **out,
                        cz_error *err)
{
    *out = q_exec(x, sql, n, v, NULL, NULL);
    return res_check(x, out, PGRES_TUPLES_OK, what, err);
}

typedef cz_status (*tx_fn)(pgx *x, void *arg, cz_error *err);
/* run_tx flags */
#define TX_UNIQUE 1 /* a unique violation is retried (two hosts inserting one idempotency key) */
#define TX_SINGLE 2 /* fn runs one statement: no BEGIN/COMMIT (it commits by itself: one round trip) */
static cz_status run_tx_try(cz_pg *s, PGconn **pc, const char *what, tx_fn fn, void *arg, int flags,
                            cz_error *err);

/* Runs fn inside BEGIN ... COMMIT on the connection *pc, retrying what is
 * worth it for up to CZ_PG_RETRY_S seconds (see DESIGN). */
static cz_status run_tx_on(cz_pg *s, PGconn **pc, const char *what, tx_fn fn, void *arg, int flags,
                           cz_error *uerr)
{
    cz_error le, *err = &le; /* (the outage's message is kept even when the caller passes no error) */
    cz_error_clear(&le);
    cz_status st = run_tx_try(s, pc, what, fn, arg, flags, err);
    if (st != CZ_OK && uerr) *uerr = le;
    return st;
}

static cz_status run_tx_try(cz_pg *s, PGconn **pc, const char *what, tx_fn fn, void *arg, int flags,
                            cz_error *err)
{
    const int single = (flags & TX_SINGLE) != 0;
    /* while the database is known to be away, one try (the heartbeat probes it; callers that must not give
     * up loop themselves) */
    pthread_mutex_lock(&s->h_mu);
    double budget = s->down ? 0 : CZ_PG_RETRY_S;
    pthread_mutex_unlock(&s->h_mu);
    double end = mono_s() + budget, wait = 0.05;
    pgx x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.retry_unique = (flags & TX_UNIQUE) != 0;
    for (int tries = 0;; tries++) {
        cz_status st;
        x.retry = 0;
        x.commit_anyway = 0;
        x.retried = tries > 0;
        x.c = NULL;
        if (!*pc || PQstatus(*pc) != CONNECTION_OK) {
            char why[300];
            if (*pc) PQfinish(*pc);
            *pc = connect_db(s, why, sizeof why);
            if (!*pc) {
                st = cz_error_set(err, CZ_ERR_IO, "store %s: %s: cannot connect: %s", s->where, what, why);
                x.retry = 1;
                goto failed;
            }
        }
        x.c = *pc;
        if (!single && (st = q_cmd(&x, "BEGIN", 0, NULL, "BEGIN", NULL, err)) != CZ_OK) goto failed;
        st = fn(&x, arg, err);
        if (single) {
            if (st == CZ_OK || !x.retry) {
                mark_up(s);
                return st;
            }
            goto failed;
        }
        if (st == CZ_OK || x.commit_anyway) {
            cz_error cerr;
            cz_error_clear(&cerr);
            cz_status cs = q_cmd(&x, "COMMIT", 0, NULL, "COMMIT", NULL, &cerr);
            if (cs != CZ_OK) {
                *err = cerr;
                st = cs;
                goto failed;
            }
            mark_up(s);
            return st;
        }
        if (!x.retry) { /* the call's own answer (a refusal, a bad argument) */
            PGresult *r = PQexec(x.c, "ROLLBACK");
            PQclear(r);
            mark_up(s);
            return st;
        }
    failed:
        if (!single && x.c && PQstatus(x.c) == CONNECTION_OK) {
            PGresult *r = PQexec(x.c, "ROLLBACK");
            PQclear(r);
        }
        if (!x.retry) return st;
        if (!x.c || PQstatus(x.c) != CONNECTION_OK) mark_down(s, cz_error_msg(err));
        if (mono_s() + wait > end) return st;
        sleep_s(wait);
        wait = wait * 2 > 1.0 ? 1.0 : wait * 2;
    }
}

static cz_status run_tx(cz_pg *s, const char *what, tx_fn fn, void *arg, int flags, cz_error *err)
{
    int slot;
    PGconn **pc = pool_get(s, &slot);
    cz_status st = run_tx_on(s, pc, what, fn, arg, flags, err);
    pool_put(s, slot);
    return st;
}

/* ---- values ------------------------------------------------------------------ */

typedef struct num {
    char b[32];
} num;

static const char *u64s(num *n, uint64_t v)
{
    snprintf(n->b, sizeof n->b, "%llu", (unsigned long long)v);
    return n->b;
}

static const char *dbls(num *n, double v)
{
    snprintf(n->b, sizeof n->b, "%.6f", v);
    return n->b;
}

static uint64_t col_u64(PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? 0 : strtoull(PQgetvalue(r, row, col), NULL, 10);
}

static double col_dbl(PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? 0 : strtod(PQgetvalue(r, row, col), NULL);
}

static const char *col_txt(PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

/* A PostgreSQL array literal of texts: every element double-quoted, '"'
 * and '\' escaped (malloc'ed; NULL when out of memory). */
static char *text_array(const char *const *v, size_t n)
{
    size_t cap = 3;
    for (size_t i = 0; i < n; i++) cap += 2 * strlen(v[i]) + 3;
    char *a = malloc(cap), *p = a;
    if (!a) return NULL;
    *p++ = '{';
    for (size_t i = 0; i < n; i++) {
        if (i) *p++ = ',';
        *p++ = '"';
        for (const char *c = v[i]; *c; c++) {
            if (*c == '"' || *c == '\\') *p++ = '\\';
            *p++ = *c;
        }
        *p++ = '"';
    }
    *p++ = '}';
    *p = '\0';
    return a;
}

/* ---- rows --------------------------------------------------------------------- */

#define JOB_COLS                                                                                     \
    "j.id, j.key_id, j.priority, j.state, j.n_parts, j.created, j.started, j.finished, j.idem_key, " \
    "j.idem_hash, j.error_code, j.error, j.fetched, "                                                \
    "(SELECT COUNT(*) FROM parts p WHERE p.job_id = j.id AND p.state = 2), "                         \
    "(SELECT COUNT(*) FROM parts p WHERE p.job_id = j.id AND p.state = 3)"
#define PART_COLS "idx, state, witness, spooled, attempts, owner, error"

static void read_job(PGresult *r, int i, cz_store_job *j)
{
    memset(j, 0, sizeof *j);
    copy_text(j->id, sizeof j->id, col_txt(r, i, 0));
    copy_text(j->key_id, sizeof j->key_id, col_txt(r, i, 1));
    copy_text(j->priority, sizeof j->priority, col_txt(r, i, 2));
    j->state = (cz_job_state)col_u64(r, i, 3);
    j->n_parts = (uint32_t)col_u64(r, i, 4);
    j->created = col_dbl(r, i, 5);
    j->started = col_dbl(r, i, 6);
    j->finished = col_dbl(r, i, 7);
    copy_text(j->idem_key, sizeof j->idem_key, col_txt(r, i, 8));
    copy_text(j->idem_hash, sizeof j->idem_hash, col_txt(r, i, 9));
    copy_text(j->error_code, sizeof j->error_code, col_txt(r, i, 10));
    copy_text(j->error, sizeof j->error, col_txt(r, i, 11));
    j->fetched = col_u64(r, i, 12) != 0;
    j->parts_done = (uint32_t)col_u64(r, i, 13);
    j->parts_failed = (uint32_t)col_u64(r, i, 14);
}

static cz_status jobs_of(cz_pg *s, PGresult *r, cz_store_job **out, size_t *n, cz_error *err)
{
    int rows = PQntuples(r);
    cz_store_job *a = calloc(rows ? (size_t)rows : 1, sizeof *a);
    if (!a) return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory reading jobs", s->where);
    for (int i = 0; i < rows; i++) read_job(r, i, &a[i]);
    if (!rows) {
        free(a);
        a = NULL;
    }
    *out = a;
    *n = (size_t)rows;
    return CZ_OK;
}

static cz_status job_read(pgx *x, const char *id, cz_store_job *out, int *found, cz_error *err)
{
    PGresult *r;
    const char *v[] = {id};
    *found = 0;
    cz_status st = q_rows(x, "SELECT " JOB_COLS " FROM jobs j WHERE j.id = $1", 1, v, "reading a job", &r, err);
    if (st != CZ_OK) return st;
    if (PQntuples(r) == 1) {
        read_job(r, 0, out);
        *found = 1;
    }
    PQclear(r);
    return CZ_OK;
}

/* ---- keys ---------------------------------------------------------------------- */

typedef struct key_arg {
    const cz_store_key *k;
    const char *id;
    cz_store_key *out;
    int *found;
    cz_store_key **list;
    size_t *n;
} key_arg;

static cz_status key_put_fn(pgx *x, void *a, cz_error *err)
{
    key_arg *ka = a;
    num c;
    const char *v[] = {ka->k->id, ka->k->path, dbls(&c, ka->k->created > 0 ? ka->k->created : now_s())};
    return q_cmd(x, "INSERT INTO keys (id, path, created) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING", 3, v,
                 "storing a key", NULL, err);
}

static cz_status pg_key_put(cz_store *st, const cz_store_key *k, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!k || !text_ok(k->id, sizeof k->id) || !text_ok(k->path, sizeof k->path))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_put: a key needs an id and a path", s->where);
    key_arg a = {.k = k};
    return run_tx(s, "storing a key", key_put_fn, &a, TX_SINGLE, err);
}

static void read_key(PGresult *r, int i, cz_store_key *k)
{
    memset(k, 0, sizeof *k);
    copy_text(k->id, sizeof k->id, col_txt(r, i, 0));
    copy_text(k->path, sizeof k->path, col_txt(r, i, 1));
    k->created = col_dbl(r, i, 2);
}

static cz_status key_get_fn(pgx *x, void *a, cz_error *err)
{
    key_arg *ka = a;
    const char *v[] = {ka->id};
    PGresult *r;
    cz_status st = q_rows(x, "SELECT id, path, created FROM keys WHERE id = $1", 1, v, "reading a key", &r, err);
    if (st != CZ_OK) return st;
    *ka->found = PQntuples(r) == 1;
    if (*ka->found) read_key(r, 0, ka->out);
    PQclear(r);
    return CZ_OK;
}

static cz_status pg_key_get(cz_store *st, const char *id, cz_store_key *out, int *found, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!id || !out || !found) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_get: NULL argument", s->where);
    *found = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK;
    key_arg a = {.id = id, .out = out, .found = found};
    return run_tx(s, "reading a key", key_get_fn, &a, TX_SINGLE, err);
}

static cz_status key_del_fn(pgx *x, void *a, cz_error *err)
{
    key_arg *ka = a;
    const char *v[] = {ka->id};
    return q_cmd(x, "DELETE FROM keys WHERE id = $1", 1, v, "deleting a key", NULL, err);
}

static cz_status pg_key_delete(cz_store *st, const char *id, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!id) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_delete: NULL id", s->where);
    key_arg a = {.id = id};
    return run_tx(s, "deleting a key", key_del_fn, &a, TX_SINGLE, err);
}

static cz_status key_list_fn(pgx *x, void *a, cz_error *err)
{
    key_arg *ka = a;
    PGresult *r;
    cz_status st = q_rows(x, "SELECT id, path, created FROM keys ORDER BY created, id", 0, NULL, "listing keys", &r, err);
    if (st != CZ_OK) return st;
    int n = PQntuples(r);
    cz_store_key *l = calloc(n ? (size_t)n : 1, sizeof *l);
    if (!l) {
        PQclear(r);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory listing keys", x->s->where);
    }
    for (int i = 0; i < n; i++) read_key(r, i, &l[i]);
    PQclear(r);
    if (!n) {
        free(l);
        l = NULL;
    }
    free(*ka->list);
    *ka->list = l;
    *ka->n = (size_t)n;
    return CZ_OK;
}

static cz_status pg_key_list(cz_store *st, cz_store_key **out, size_t *n, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!out || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_list: NULL argument", s->where);
    *out = NULL;
    *n = 0;
    key_arg a = {.list = out, .n = n};
    cz_status r = run_tx(s, "listing keys", key_list_fn, &a, TX_SINGLE, err);
    if (r != CZ_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return r;
}

/* ---- submit and reads ------------------------------------------------------------ */

static cz_status notify(pgx *x, const char *channel, const char *payload, cz_error *err)
{
    const char *v[] = {channel, payload};
    PGresult *r;
    cz_status st = q_rows(x, "SELECT pg_notify($1, $2)", 2, v, "notifying", &r, err);
    if (st == CZ_OK) PQclear(r);
    return st;
}

typedef struct submit_arg {
    const cz_store_job *in;
    int prio;
    const cz_store_part *parts;
    cz_store_job *out;
    int existing;
} submit_arg;

static cz_status submit_fn(pgx *x, void *a, cz_error *err)
{
    submit_arg *sa = a;
    const cz_store_job *in = sa->in;
    cz_status r;
    PGresult *res;
    sa->existing = 0;
    /* one lookup: the job of the idempotency key, and a job of this id */
    const char *vl[] = {in->idem_key, in->id};
    if ((r = q_rows(x,
                    "SELECT id, idem_hash, idem_key = $1 AND $1 <> '' FROM jobs "
                    "WHERE (idem_key = $1 AND $1 <> '') OR id = $2",
                    2, vl, "looking up the idempotency key and the job id", &res, err)) != CZ_OK)
        return r;
    int by_key = -1, by_id = -1;
    for (int i = 0; i < PQntuples(res); i++) {
        if (col_txt(res, i, 2)[0] == 't') by_key = i;
        if (!strcmp(col_txt(res, i, 0), in->id)) by_id = i;
    }
    if (by_key >= 0) {
        char had_id[CZ_STORE_ID_MAX], had_hash[sizeof in->idem_hash];
        copy_text(had_id, sizeof had_id, col_txt(res, by_key, 0));
        copy_text(had_hash, sizeof had_hash, col_txt(res, by_key, 1));
        PQclear(res);
        if (strcmp(had_hash, in->idem_hash))
            return cz_error_set(err, CZ_ERR_MISMATCH,
                                "store %s: idempotency key '%s' belongs to job %s, which was submitted with another "
                                "request (hash %s, this one %s)",
                                x->s->where, in->idem_key, had_id, had_hash, in->idem_hash);
        int found = 0;
        if ((r = job_read(x, had_id, sa->out, &found, err)) != CZ_OK) return r;
        if (!found) return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: job %s vanished", x->s->where, had_id);
        /* our own job, committed by a try whose answer was lost: new after all */
        sa->existing = !(x->retried && !strcmp(had_id, in->id));
        return CZ_OK;
    }
    if (by_id >= 0) {
        int ours = x->retried && !strcmp(col_txt(res, by_id, 1), in->idem_hash);
        PQclear(res);
        if (!ours)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: job %s exists already", x->s->where, in->id);
        int found = 0;
        return job_read(x, in->id, sa->out, &found, err);
    }
    PQclear(res);
    /* the job, its partitions (one INSERT over arrays, in the order given) and the hint: one statement */
    const char **w = calloc(in->n_parts, sizeof *w);
    char *sp = malloc(2 * (size_t)in->n_parts + 3), *ix = malloc(12 * (size_t)in->n_parts + 3);
    if (!w || !sp || !ix) {
        free(w);
        free(sp);
        free(ix);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: submit: out of memory", x->s->where);
    }
    char *ps = sp, *pi = ix;
    *ps++ = '{';
    *pi++ = '{';
    for (uint32_t i = 0; i < in->n_parts; i++) {
        w[i] = sa->parts[i].witness;
        ps += sprintf(ps, "%s%d", i ? "," : "", sa->parts[i].spooled != 0);
        pi += sprintf(pi, "%s%u", i ? "," : "", sa->parts[i].idx);
    }
    strcpy(ps, "}");
    strcpy(pi, "}");
    char *wa = text_array(w, in->n_parts);
    free(w);
    if (!wa) {
        free(sp);
        free(ix);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: submit: out of memory", x->s->where);
    }
    const double created = in->created > 0 ? in->created : now_s();
    num pr, np, cr;
    const char *v[] = {in->id,       in->key_id,    in->priority, u64s(&pr, (uint64_t)sa->prio),
                       u64s(&np, in->n_parts), dbls(&cr, created), in->idem_key, in->idem_hash,
                       ix,           wa,            sp};
    r = q_rows(x,
               "WITH j AS (INSERT INTO jobs (id, key_id, priority, prio, state, n_parts, created, idem_key, idem_hash) "
               "  VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8) RETURNING seq), "
               "p AS (INSERT INTO parts (job_id, idx, state, witness, spooled, prio, key_id, seq) "
               "  SELECT $1, t.i, 0, t.w, t.s, $4, $2, j.seq FROM j, unnest($9::int[], $10::text[], $11::int[]) "
               "  AS t(i, w, s) RETURNING 1) "
               "SELECT (SELECT count(*) FROM p), pg_notify('cuzk_work', '')",
               11, v, "inserting the job and its partitions", &res, err);
    free(wa);
    free(sp);
    free(ix);
    if (r != CZ_OK) return r;
    uint64_t inserted = col_u64(res, 0, 0);
    PQclear(res);
    if (inserted != in->n_parts)
        return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: job %s: %llu partitions inserted of %u", x->s->where,
                            in->id, (unsigned long long)inserted, in->n_parts);
    /* the stored job, as a read would give it (it was inserted just now, as given) */
    cz_store_job *o = sa->out;
    memset(o, 0, sizeof *o);
    copy_text(o->id, sizeof o->id, in->id);
    copy_text(o->key_id, sizeof o->key_id, in->key_id);
    copy_text(o->priority, sizeof o->priority, in->priority);
    o->state = CZ_JOB_QUEUED;
    o->n_parts = in->n_parts;
    o->created = strtod(cr.b, NULL); /* (the value as stored: printed with 6 decimals) */
    copy_text(o->idem_key, sizeof o->idem_key, in->idem_key);
    copy_text(o->idem_hash, sizeof o->idem_hash, in->idem_hash);
    return CZ_OK;
}

static cz_status pg_submit(cz_store *st, const cz_store_job *j, const cz_store_part *parts, cz_store_job *out,
                           int *existing, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (existing) *existing = 0;
    if (!j || !parts || !out) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: NULL argument", s->where);
    cz_store_job in = *j;
    if (!text_ok(in.id, sizeof in.id) || !text_ok(in.key_id, sizeof in.key_id))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: a job needs an id and a key id", s->where);
    if (strnlen(in.priority, sizeof in.priority) == sizeof in.priority || prio_rank(in.priority) < 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "store %s: submit: job %s: priority '%.15s': expected critical, high, normal or low",
                            s->where, in.id, in.priority);
    if (strnlen(in.idem_key, sizeof in.idem_key) == sizeof in.idem_key ||
        strnlen(in.idem_hash, sizeof in.idem_hash) == sizeof in.idem_hash)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: job %s: idempotency key or hash too long",
                            s->where, in.id);
    if (in.n_parts == 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: job %s has no partitions", s->where, in.id);
    uint8_t *seen = calloc(in.n_parts, 1);
    if (!seen) return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: submit: out of memory", s->where);
    for (uint32_t i = 0; i < in.n_parts; i++) {
        const cz_store_part *p = &parts[i];
        if (p->idx >= in.n_parts || seen[p->idx] || !text_ok(p->witness, sizeof p->witness)) {
            free(seen);
            return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                "store %s: submit: job %s: partition entry %u: index %u (of %u, each once) and a "
                                "witness path expected",
                                s->where, in.id, i, p->idx, in.n_parts);
        }
        seen[p->idx] = 1;
    }
    free(seen);
    submit_arg a = {&in, prio_rank(in.priority), parts, out, 0};
    cz_status r = run_tx(s, "submitting a job", submit_fn, &a, TX_UNIQUE, err);
    if (r == CZ_OK && existing) *existing = a.existing;
    return r;
}

typedef struct read_arg {
    const char *id;
    cz_store_job *job;
    int *found;
    int with_results;
    cz_store_part **parts;
    size_t *n;
    cz_store_job **jobs;
    double before;
    int until_fetched;
    size_t max;
} read_arg;

static cz_status job_get_fn(pgx *x, void *a, cz_error *err)
{
    read_arg *ra = a;
    return job_read(x, ra->id, ra->job, ra->found, err);
}

static cz_status pg_job_get(cz_store *st, const char *id, cz_store_job *out, int *found, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!id || !out || !found) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job_get: NULL argument", s->where);
    *found = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK;
    read_arg a = {.id = id, .job = out, .found = found};
    return run_tx(s, "reading a job", job_get_fn, &a, TX_SINGLE, err);
}

static char *dup_col(PGresult *r, int row, int col, int *oom)
{
    const char *t = col_txt(r, row, col);
    if (!t) return NULL;
    char *d = strdup(t);
    if (!d) *oom = 1;
    return d;
}

static cz_status parts_get_fn(pgx *x, void *a, cz_error *err)
{
    read_arg *ra = a;
    const char *v[] = {ra->id};
    PGresult *r;
    cz_status st = q_rows(x,
                          ra->with_results ? "SELECT " PART_COLS ", proof_json, public_json, timings_json, proof_bin "
                                             "FROM parts WHERE job_id = $1 ORDER BY idx"
                                           : "SELECT " PART_COLS " FROM parts WHERE job_id = $1 ORDER BY idx",
                          1, v, "reading partitions", &r, err);
    if (st != CZ_OK) return st;
    int n = PQntuples(r), oom = 0;
    cz_store_part *p = calloc(n ? (size_t)n : 1, sizeof *p);
    if (!p) oom = 1;
    for (int i = 0; i < n && !oom; i++) {
        cz_store_part *q = &p[i];
        q->idx = (uint32_t)col_u64(r, i, 0);
        q->state = (cz_part_state)col_u64(r, i, 1);
        copy_text(q->witness, sizeof q->witness, col_txt(r, i, 2));
        q->spooled = col_u64(r, i, 3) != 0;
        q->attempts = (uint32_t)col_u64(r, i, 4);
        copy_text(q->owner, sizeof q->owner, col_txt(r, i, 5));
        copy_text(q->error, sizeof q->error, col_txt(r, i, 6));
        if (ra->with_results) {
            q->proof_json = dup_col(r, i, 7, &oom);
            q->public_json = dup_col(r, i, 8, &oom);
            q->timings_json = dup_col(r, i, 9, &oom);
            const char *b = col_txt(r, i, 10);
            if (b) {
                size_t len = 0;
                unsigned char *bin = PQunescapeBytea((const unsigned char *)b, &len);
                if (!bin) oom = 1;
                else if (len == CZ_PG_BIN) {
                    memcpy(q->proof_bin, bin, CZ_PG_BIN);
                    q->has_bin = 1;
                }
                PQfreemem(bin);
            }
        }
    }
    PQclear(r);
    if (oom) {
        cz_store_parts_free(p, p ? (size_t)n : 0);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory reading partitions of %s", x->s->where,
                            ra->id);
    }
    cz_store_parts_free(*ra->parts, *ra->n);
    if (!n) {
        free(p);
        p = NULL;
    }
    *ra->parts = p;
    *ra->n = (size_t)n;
    return CZ_OK;
}

static cz_status pg_parts_get(cz_store *st, const char *id, int with_results, cz_store_part **parts, size_t *n,
                              cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!id || !parts || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: parts_get: NULL argument", s->where);
    *parts = NULL;
    *n = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK;
    read_arg a = {.id = id, .with_results = with_results, .parts = parts, .n = n};
    cz_status r = run_tx(s, "reading partitions", parts_get_fn, &a, TX_SINGLE, err);
    if (r != CZ_OK) {
        cz_store_parts_free(*parts, *n);
        *parts = NULL;
        *n = 0;
    }
    return r;
}

static cz_status unfinished_fn(pgx *x, void *a, cz_error *err)
{
    read_arg *ra = a;
    PGresult *r;
    cz_status st = q_rows(x, "SELECT " JOB_COLS " FROM jobs j WHERE j.state < 2 ORDER BY j.created, j.seq", 0, NULL,
                          "reading jobs", &r, err);
    if (st != CZ_OK) return st;
    free(*ra->jobs);
    *ra->jobs = NULL;
    st = jobs_of(x->s, r, ra->jobs, ra->n, err);
    PQclear(r);
    return st;
}

static cz_status pg_jobs_unfinished(cz_store *st, cz_store_job **out, size_t *n, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!out || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: jobs_unfinished: NULL argument", s->where);
    *out = NULL;
    *n = 0;
    read_arg a = {.jobs = out, .n = n};
    return run_tx(s, "reading unfinished jobs", unfinished_fn, &a, TX_SINGLE, err);
}

/* ---- claims and results -------------------------------------------------------------- */

typedef struct fence {
    int state;
    uint32_t attempts;
    char owner[64];
    int has_result;
} fence;

static cz_status fence_read(pgx *x, const char *id, uint32_t idx, fence *f, cz_error *err)
{
    num ni;
    const char *v[] = {id, u64s(&ni, idx)};
    PGresult *r;
    cz_status st = q_rows(x,
                          "SELECT state, attempts, owner, proof_json IS NOT NULL FROM parts "
                          "WHERE job_id = $1 AND idx = $2 FOR UPDATE",
                          2, v, "reading a partition", &r, err);
    if (st != CZ_OK) return st;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job %s has no partition %u", x->s->where, id, idx);
    }
    f->state = (int)col_u64(r, 0, 0);
    f->attempts = (uint32_t)col_u64(r, 0, 1);
    copy_text(f->owner, sizeof f->owner, col_txt(r, 0, 2));
    f->has_result = col_txt(r, 0, 3) && col_txt(r, 0, 3)[0] == 't';
    PQclear(r);
    return CZ_OK;
}

/* locks the job row (serializes the writers of one job); *state -1 when missing */
static cz_status job_lock(pgx *x, const char *id, int *state, cz_error *err)
{
    const char *v[] = {id};
    PGresult *r;
    cz_status st = q_rows(x, "SELECT state FROM jobs WHERE id = $1 FOR UPDATE", 1, v, "locking a job", &r, err);
    if (st != CZ_OK) return st;
    *state = PQntuples(r) == 1 ? (int)col_u64(r, 0, 0) : -1;
    PQclear(r);
    return CZ_OK;
}

static cz_status attempt_end(pgx *x, const char *id, uint32_t idx, uint32_t attempt, const char *owner,
                             const char *outcome, cz_error *err)
{
    num ni, na;
    const char *v[] = {id, u64s(&ni, idx), u64s(&na, attempt), owner, outcome};
    return q_cmd(x,
                 "UPDATE attempts SET outcome = $5, ended = now() "
                 "WHERE job_id = $1 AND idx = $2 AND attempt = $3 AND owner = $4 AND outcome = 'running'",
                 5, v, "logging an attempt", NULL, err);
}

/* Locks the job row (serializing the writers of one job: two hosts ending
 * its last two partitions at once) and the partition row, in one round
 * trip, and reads the partition as the fence sees it. */
static cz_status lock_fence(pgx *x, const char *id, uint32_t idx, fence *f, cz_error *err)
{
    num ni;
    const char *v[] = {id, u64s(&ni, idx)};
    PGresult *r;
    cz_status st = q_rows(x,
                          "SELECT p.state, p.attempts, p.owner, p.proof_json IS NOT NULL FROM jobs j "
                          "JOIN parts p ON p.job_id = j.id AND p.idx = $2 WHERE j.id = $1 FOR UPDATE OF j, p",
                          2, v, "locking a partition", &r, err);
    if (st != CZ_OK) return st;
    int n = PQntuples(r);
    if (n == 1) {
        f->state = (int)col_u64(r, 0, 0);
        f->attempts = (uint32_t)col_u64(r, 0, 1);
        copy_text(f->owner, sizeof f->owner, col_txt(r, 0, 2));
        f->has_result = col_txt(r, 0, 3) && col_txt(r, 0, 3)[0] == 't';
    }
    PQclear(r);
    if (n == 1) return CZ_OK;
    int jstate;
    if ((st = job_lock(x, id, &jstate, err)) != CZ_OK) return st;
    if (jstate < 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: no job %s", x->s->where, id);
    return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job %s has no partition %u", x->s->where, id, idx);
}

/* CZ_OK when (owner, attempt) is the current claim of a running partition
 * without a result (f as lock_fence read it); a refusal counts in that
 * attempt's row. */
static cz_status fence_check(pgx *x, const char *id, uint32_t idx, const char *owner, uint32_t attempt,
                             const char *what, int end_state, const fence *fp, int *already, cz_error *err)
{
    fence f = *fp;
    *already = 0;
    if (x->retried && f.attempts == attempt && !strcmp(f.owner, owner) && f.state == end_state) {
        *already = 1; /* this call's own write, committed by a try whose answer was lost */
        return CZ_OK;
    }
    const char *why = NULL;
    char m[200];
    if (f.state != CZ_PART_RUNNING) {
        snprintf(m, sizeof m, "it is %s, not running", cz_part_state_name((cz_part_state)f.state));
        why = m;
    } else if (f.attempts != attempt || strcmp(f.owner, owner)) {
        snprintf(m, sizeof m, "attempt %u by '%s' is not the current claim (attempt %u by '%s')", attempt, owner,
                 f.attempts, f.owner);
        why = m;
    } else if (f.has_result) {
        why = "a result is stored";
    }
    if (!why) return CZ_OK;
    cz_error aerr;
    cz_error_clear(&aerr);
    num ni, na;
    const char *v[] = {id, u64s(&ni, idx), u64s(&na, attempt), owner};
    long ch = 0;
    if (q_cmd(x, "UPDATE attempts SET fenced = fenced + 1 WHERE job_id = $1 AND idx = $2 AND attempt = $3 AND owner = $4",
              4, v, "logging a refused write", &ch, &aerr) == CZ_OK && ch)
        x->commit_anyway = 1;
    return cz_error_set(err, CZ_ERR_MISMATCH, "store %s: %s of job %s partition %u refused: %s", x->s->where, what, id,
                        idx, why);
}

typedef struct claim_arg {
    const char *id;
    uint32_t idx;
    const char *owner;
    uint32_t attempt;
    const char *const *prefer;
    size_t n_prefer;
    const char *const *avoid;
    size_t n_avoid;
    size_t max;
    cz_store_claim *out;
    size_t n;
    const cz_store_part *res;
    int requeue;
    const char *code, *msg;
    int job_final;
} claim_arg;

static cz_status claim_fn(pgx *x, void *a, cz_error *err)
{
    claim_arg *ca = a;
    fence f;
    cz_status r = fence_read(x, ca->id, ca->idx, &f, err);
    if (r != CZ_OK) return r;
    if (f.state != CZ_PART_QUEUED)
        return cz_error_set(err, CZ_ERR_MISMATCH, "store %s: claim of job %s partition %u refused: it is %s, not queued",
                            x->s->where, ca->id, ca->idx, cz_part_state_name((cz_part_state)f.state));
    num ni, nl, ns;
    const char *v[] = {ca->id, u64s(&ni, ca->idx), ca->owner, dbls(&nl, x->s->lease_s)};
    if ((r = q_cmd(x,
                   "UPDATE parts SET state = 1, attempts = attempts + 1, owner = $3, "
                   "lease_until = now() + $4 * interval '1 second' WHERE job_id = $1 AND idx = $2 AND state = 0",
                   4, v, "claiming a partition", NULL, err)) != CZ_OK)
        return r;
    ca->attempt = f.attempts + 1;
    num na;
    const char *va[] = {ca->id, u64s(&ni, ca->idx), u64s(&na, ca->attempt), ca->owner};
    if ((r = q_cmd(x, "INSERT INTO attempts (job_id, idx, attempt, owner) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                   4, va, "logging a claim", NULL, err)) != CZ_OK)
        return r;
    const char *vj[] = {ca->id, dbls(&ns, now_s())};
    return q_cmd(x, "UPDATE jobs SET state = 1, started = CASE WHEN started = 0 THEN $2 ELSE started END "
                    "WHERE id = $1 AND state = 0",
                 2, vj, "starting a job", NULL, err);
}

static cz_status pg_claim(cz_store *st, const char *id, uint32_t idx, const char *owner, uint32_t *attempt,
                          cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!text_ok(id, CZ_STORE_ID_MAX) || !owner_ok(owner) || !attempt)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "store %s: claim: a job id, an owner (< 64 bytes) and attempt expected", s->where);
    claim_arg a = {.id = id, .idx = idx, .owner = owner};
    cz_status r = run_tx(s, "claiming a partition", claim_fn, &a, 0, err);
    if (r == CZ_OK) *attempt = a.attempt;
    return r;
}

static cz_status claim_next_fn(pgx *x, void *a, cz_error *err)
{
    claim_arg *ca = a;
    ca->n = 0;
    char *pref = text_array(ca->prefer, ca->n_prefer), *avoid = text_array(ca->avoid, ca->n_avoid);
    if (!pref || !avoid) {
        free(pref);
        free(avoid);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: claim_next: out of memory", x->s->where);
    }
    num nm, nl, ns;
    const char *v[] = {ca->owner, pref, u64s(&nm, ca->max), dbls(&nl, x->s->lease_s), dbls(&ns, now_s()), avoid};
    PGresult *r;
    /* One statement (one round trip, its own transaction): pick, skipping rows being claimed; claim;
     * log; start the jobs. The order is (class, a preferred key first, age). a: the first $3 queued
     * partitions of each preferred key in (class, age) order (one index scan per key:
     * parts_affinity); b: the first $3 of all (parts_queue); the first $3 of both in the full order
     * are the first $3 of the queue (a row of the answer that is not of a preferred key has fewer
     * than $3 rows before it in b's order too). Every scan is in index order with a LIMIT: a claim
     * reads a few rows whatever the length of the queue. (Rows a or b locked that c did not take
     * are unlocked at the statement's end.) */
    cz_status st = q_rows(x,
                          "WITH a AS (SELECT l.job_id, l.idx, l.prio, l.seq FROM unnest($2::text[]) AS k(id), "
                          "  LATERAL (SELECT job_id, idx, prio, seq FROM parts WHERE state = 0 AND key_id = k.id "
                          "    ORDER BY prio, seq, idx LIMIT $3 FOR UPDATE SKIP LOCKED) l), "
                          "b AS (SELECT job_id, idx, prio, seq FROM parts WHERE state = 0 "
                          "  AND NOT (key_id = ANY($6::text[])) ORDER BY prio, seq, idx LIMIT $3 FOR UPDATE SKIP LOCKED), "
                          "c AS (SELECT job_id, idx FROM (SELECT job_id, idx, prio, 0 AS o, seq FROM a "
                          "  UNION ALL SELECT job_id, idx, prio, 1, seq FROM b) x "
                          "  GROUP BY job_id, idx ORDER BY min(prio), min(o), min(seq), idx LIMIT $3), "
                          "u AS (UPDATE parts p SET state = 1, attempts = p.attempts + 1, owner = $1, "
                          "  lease_until = now() + $4 * interval '1 second' "
                          "  FROM c WHERE p.job_id = c.job_id AND p.idx = c.idx "
                          "  RETURNING p.job_id, p.idx, p.attempts, p.key_id, p.prio, p.witness, p.seq), "
                          "l AS (INSERT INTO attempts (job_id, idx, attempt, owner) "
                          "  SELECT job_id, idx, attempts, $1 FROM u ON CONFLICT DO NOTHING), "
                          "j AS (UPDATE jobs SET state = 1, started = CASE WHEN started = 0 THEN $5 ELSE started END "
                          "  WHERE id IN (SELECT job_id FROM u) AND state = 0) "
                          "SELECT u.job_id, u.idx, u.attempts, u.key_id, u.prio, u.witness, jobs.n_parts "
                          "FROM u JOIN jobs ON jobs.id = u.job_id ORDER BY u.prio, u.seq, u.idx",
                          6, v, "claiming partitions", &r, err);
    free(pref);
    free(avoid);
    if (st != CZ_OK) return st;
    int n = PQntuples(r);
    for (int i = 0; i < n && (size_t)i < ca->max; i++) {
        cz_store_claim *c = &ca->out[i];
        memset(c, 0, sizeof *c);
        copy_text(c->job_id, sizeof c->job_id, col_txt(r, i, 0));
        c->idx = (uint32_t)col_u64(r, i, 1);
        c->attempt = (uint32_t)col_u64(r, i, 2);
        copy_text(c->key_id, sizeof c->key_id, col_txt(r, i, 3));
        uint64_t pr = col_u64(r, i, 4);
        copy_text(c->priority, sizeof c->priority, cz_pg_prio[pr < 4 ? pr : 2]);
        copy_text(c->witness, sizeof c->witness, col_txt(r, i, 5));
        c->n_parts = (uint32_t)col_u64(r, i, 6);
    }
    ca->n = (size_t)n < ca->max ? (size_t)n : ca->max;
    PQclear(r);
    return CZ_OK;
}

static cz_status pg_claim_next(cz_store *st, const char *owner, const char *const *prefer, size_t n_prefer,
                               const char *const *avoid, size_t n_avoid, size_t max, cz_store_claim *out, size_t *n,
                               cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (n) *n = 0;
    if (!owner_ok(owner) || !*owner || !out || !n || (n_prefer && !prefer) || (n_avoid && !avoid))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: claim_next: an owner and an output expected", s->where);
    if (max == 0) return CZ_OK;
    claim_arg a = {.owner = owner, .prefer = prefer, .n_prefer = n_prefer, .avoid = avoid, .n_avoid = n_avoid,
                   .max = max, .out = out};
    cz_status r = run_tx(s, "claiming partitions", claim_next_fn, &a, TX_SINGLE, err);
    if (r == CZ_OK) *n = a.n;
    return r;
}

static cz_status complete_fn(pgx *x, void *a, cz_error *err)
{
    claim_arg *ca = a;
    ca->job_final = 0;
    int already = 0;
    fence f;
    cz_status r = lock_fence(x, ca->id, ca->idx, &f, err);
    if (r != CZ_OK) return r;
    if ((r = fence_check(x, ca->id, ca->idx, ca->owner, ca->attempt, "result", CZ_PART_DONE, &f, &already, err)) !=
            CZ_OK ||
        already)
        return r;
    num ni, na;
    const cz_store_part *res = ca->res;
    const char *v[] = {ca->id,          u64s(&ni, ca->idx),  ca->owner,         u64s(&na, ca->attempt),
                       res->proof_json, res->public_json,   res->timings_json, res->has_bin ? (const char *)res->proof_bin : NULL};
    const int len[] = {0, 0, 0, 0, 0, 0, 0, res->has_bin ? CZ_PG_BIN : 0};
    const int fmt[] = {0, 0, 0, 0, 0, 0, 0, 1};
    PGresult *q = q_exec(x,
                         "UPDATE parts SET state = 2, proof_json = $5, public_json = $6, timings_json = $7, "
                         "proof_bin = $8, error = '', lease_until = NULL "
                         "WHERE job_id = $1 AND idx = $2 AND state = 1 AND owner = $3 AND attempts = $4 "
                         "AND proof_json IS NULL",
                         8, v, len, fmt);
    if ((r = res_check(x, &q, PGRES_COMMAND_OK, "storing a result", err)) != CZ_OK) return r;
    long ch = strtol(PQcmdTuples(q), NULL, 10);
    PQclear(q);
    if (ch != 1)
        return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: result of job %s partition %u changed %ld rows",
                            x->s->where, ca->id, ca->idx, ch);
    /* the attempt's log, the job's end when this was its last partition (the NOT EXISTS sees the
     * UPDATE above: an earlier statement of this transaction), and the hint: one round trip */
    num nf;
    const char *vd[] = {ca->id, u64s(&ni, ca->idx), u64s(&na, ca->attempt), ca->owner, dbls(&nf, now_s())};
    PGresult *d;
    if ((r = q_rows(x,
                    "WITH a AS (UPDATE attempts SET outcome = 'done', ended = now() WHERE job_id = $1 AND idx = $2 "
                    "  AND attempt = $3 AND owner = $4 AND outcome = 'running'), "
                    "d AS (UPDATE jobs SET state = 2, finished = $5 WHERE id = $1 AND state < 2 "
                    "  AND NOT EXISTS (SELECT 1 FROM parts p WHERE p.job_id = $1 AND p.state <> 2) RETURNING id) "
                    "SELECT id, pg_notify('cuzk_job', id) FROM d",
                    5, vd, "finishing a job", &d, err)) != CZ_OK)
        return r;
    ca->job_final = PQntuples(d) == 1;
    PQclear(d);
    return CZ_OK;
}

static cz_status pg_complete(cz_store *st, const char *id, uint32_t idx, const char *owner, uint32_t attempt,
                             const cz_store_part *result, int *job_done, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (job_done) *job_done = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX) || !owner_ok(owner))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: complete: a job id and an owner expected", s->where);
    if (!result || !result->proof_json || !result->public_json)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "store %s: complete: job %s partition %u: a result needs proof_json and public_json",
                            s->where, id, idx);
    claim_arg a = {.id = id, .idx = idx, .owner = owner, .attempt = attempt, .res = result};
    cz_status r = run_tx(s, "storing a result", complete_fn, &a, 0, err);
    if (r == CZ_OK && job_done) *job_done = a.job_final;
    return r;
}

/* fails job id with code and msg (locked by the caller): queued partitions cancelled */
static cz_status fail_job(pgx *x, const char *id, const char *code, const char *msg, long *changed, cz_error *err)
{
    num nf;
    const char *v[] = {id, code ? code : "", msg ? msg : "", dbls(&nf, now_s())};
    cz_status r = q_cmd(x, "UPDATE jobs SET state = 3, error_code = $2, error = $3, finished = $4 WHERE id = $1 AND state < 2",
                        4, v, "failing a job", changed, err);
    if (r != CZ_OK) return r;
    const char *vq[] = {id};
    if ((r = q_cmd(x, "UPDATE parts SET state = 4, lease_until = NULL WHERE job_id = $1 AND state = 0", 1, vq,
                   "cancelling the queued partitions of a failed job", NULL, err)) != CZ_OK)
        return r;
    return *changed == 1 ? notify(x, "cuzk_job", id, err) : CZ_OK;
}

static cz_status fail_fn(pgx *x, void *a, cz_error *err)
{
    claim_arg *ca = a;
    ca->job_final = 0;
    int already = 0;
    fence f;
    cz_status r = lock_fence(x, ca->id, ca->idx, &f, err);
    if (r != CZ_OK) return r;
    if ((r = fence_check(x, ca->id, ca->idx, ca->owner, ca->attempt, ca->requeue ? "requeue" : "failure",
                         ca->requeue ? CZ_PART_QUEUED : CZ_PART_FAILED, &f, &already, err)) != CZ_OK ||
        already)
        return r;
    num ni, na;
    const char *v[] = {ca->id, u64s(&ni, ca->idx), ca->owner, u64s(&na, ca->attempt), ca->msg ? ca->msg : ""};
    long ch = 0;
    if ((r = q_cmd(x,
                   ca->requeue ? "UPDATE parts SET state = 0, error = $5, lease_until = NULL "
                                 "WHERE job_id = $1 AND idx = $2 AND state = 1 AND owner = $3 AND attempts = $4"
                               : "UPDATE parts SET state = 3, error = $5, lease_until = NULL "
                                 "WHERE job_id = $1 AND idx = $2 AND state = 1 AND owner = $3 AND attempts = $4",
                   5, v, "recording a failure", &ch, err)) != CZ_OK)
        return r;
    if (ch != 1)
        return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: failure of job %s partition %u changed %ld rows",
                            x->s->where, ca->id, ca->idx, ch);
    if ((r = attempt_end(x, ca->id, ca->idx, ca->attempt, ca->owner, ca->requeue ? "requeued" : "failed", err)) != CZ_OK)
        return r;
    if (ca->requeue) {
        const char *vq[] = {ca->id};
        if ((r = q_cmd(x,
                       "UPDATE jobs SET state = 0 WHERE id = $1 AND state = 1 "
                       "AND NOT EXISTS (SELECT 1 FROM parts p WHERE p.job_id = $1 AND p.state IN (1, 2))",
                       1, vq, "requeueing a job", NULL, err)) != CZ_OK)
            return r;
        return notify(x, "cuzk_work", "", err);
    }
    long changed = 0;
    if ((r = fail_job(x, ca->id, ca->code, ca->msg, &changed, err)) != CZ_OK) return r;
    ca->job_final = changed == 1;
    return CZ_OK;
}

static cz_status pg_fail(cz_store *st, const char *id, uint32_t idx, const char *owner, uint32_t attempt, int requeue,
                         const char *code, const char *msg, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!text_ok(id, CZ_STORE_ID_MAX) || !owner_ok(owner))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: fail: a job id and an owner expected", s->where);
    claim_arg a = {.id = id, .idx = idx, .owner = owner, .attempt = attempt, .requeue = requeue, .code = code, .msg = msg};
    return run_tx(s, "recording a failure", fail_fn, &a, 0, err);
}

/* ---- cancel, fetched, delete, expiry, recovery ------------------------------------------ */

typedef struct misc_arg {
    const char *id;
    int changed;
    const char *owner;
    uint64_t count, count2;
    uint32_t max_attempts;
    cz_store_counts *counts;
    double before;
    int until_fetched;
    size_t max;
    cz_store_job **jobs;
    size_t *n;
    const cz_store_host *host;
    cz_store_claim **held;
    cz_store_host **hosts;
} misc_arg;

static cz_status cancel_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    ma->changed = 0;
    int state;
    cz_status r = job_lock(x, ma->id, &state, err);
    if (r != CZ_OK) return r;
    if (state < 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: no job %s", x->s->where, ma->id);
    if (cz_job_state_final((cz_job_state)state)) return CZ_OK;
    num nf;
    const char *v[] = {ma->id, dbls(&nf, now_s())};
    if ((r = q_cmd(x, "UPDATE jobs SET state = 4, finished = $2 WHERE id = $1 AND state < 2", 2, v, "cancelling a job",
                   NULL, err)) != CZ_OK)
        return r;
    const char *vp[] = {ma->id};
    if ((r = q_cmd(x,
                   "UPDATE attempts a SET outcome = 'cancelled', ended = now() FROM parts p "
                   "WHERE p.job_id = $1 AND p.state = 1 AND a.job_id = p.job_id AND a.idx = p.idx "
                   "AND a.attempt = p.attempts AND a.outcome = 'running'",
                   1, vp, "logging cancelled attempts", NULL, err)) != CZ_OK)
        return r;
    if ((r = q_cmd(x, "UPDATE parts SET state = 4, lease_until = NULL WHERE job_id = $1 AND state IN (0, 1)", 1, vp,
                   "cancelling partitions", NULL, err)) != CZ_OK)
        return r;
    ma->changed = 1;
    return notify(x, "cuzk_job", ma->id, err);
}

static cz_status pg_cancel(cz_store *st, const char *id, int *changed, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (changed) *changed = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: cancel: bad job id", s->where);
    misc_arg a = {.id = id};
    cz_status r = run_tx(s, "cancelling a job", cancel_fn, &a, 0, err);
    if (r == CZ_OK && changed) *changed = a.changed;
    return r;
}

static cz_status fetched_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    const char *v[] = {ma->id};
    long ch = 0;
    cz_status r = q_cmd(x, "UPDATE jobs SET fetched = 1 WHERE id = $1", 1, v, "marking a job fetched", &ch, err);
    if (r == CZ_OK && ch == 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: no job %s", x->s->where, ma->id);
    return r;
}

static cz_status pg_mark_fetched(cz_store *st, const char *id, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!text_ok(id, CZ_STORE_ID_MAX))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: mark_fetched: bad job id", s->where);
    misc_arg a = {.id = id};
    return run_tx(s, "marking a job fetched", fetched_fn, &a, TX_SINGLE, err);
}

static cz_status delete_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    int state;
    cz_status r = job_lock(x, ma->id, &state, err);
    if (r != CZ_OK || state < 0) return r;
    if (!cz_job_state_final((cz_job_state)state))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job %s is %s: only a finished job can be deleted",
                            x->s->where, ma->id, cz_job_state_name((cz_job_state)state));
    const char *v[] = {ma->id};
    return q_cmd(x, "DELETE FROM jobs WHERE id = $1", 1, v, "deleting a job", NULL, err); /* (parts, attempts: cascade) */
}

static cz_status pg_job_delete(cz_store *st, const char *id, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!id) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job_delete: NULL id", s->where);
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK;
    misc_arg a = {.id = id};
    return run_tx(s, "deleting a job", delete_fn, &a, 0, err);
}

static cz_status expired_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    num nb, nu, nm;
    const char *v[] = {dbls(&nb, ma->before), u64s(&nu, ma->until_fetched != 0),
                       u64s(&nm, ma->max > (size_t)INT64_MAX ? (uint64_t)INT64_MAX : ma->max)};
    PGresult *r;
    cz_status st = q_rows(x,
                          "SELECT " JOB_COLS " FROM jobs j WHERE j.state >= 2 AND j.finished < $1 "
                          "AND ($2 = 0 OR j.state <> 2 OR j.fetched <> 0) ORDER BY j.finished, j.seq LIMIT $3",
                          3, v, "reading expired jobs", &r, err);
    if (st != CZ_OK) return st;
    free(*ma->jobs);
    *ma->jobs = NULL;
    st = jobs_of(x->s, r, ma->jobs, ma->n, err);
    PQclear(r);
    return st;
}

static cz_status pg_expired(cz_store *st, double before, int until_fetched, size_t max, cz_store_job **out, size_t *n,
                            cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!out || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: expired: NULL argument", s->where);
    *out = NULL;
    *n = 0;
    if (max == 0) return CZ_OK;
    misc_arg a = {.before = before, .until_fetched = until_fetched, .max = max, .jobs = out, .n = n};
    return run_tx(s, "reading expired jobs", expired_fn, &a, TX_SINGLE, err);
}

static cz_status recover_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    const char *v[] = {ma->owner};
    cz_status r;
    if ((r = q_cmd(x,
                   "UPDATE attempts a SET outcome = 'recovered', ended = now() FROM parts p "
                   "WHERE p.owner = $1 AND p.state = 1 AND a.job_id = p.job_id AND a.idx = p.idx "
                   "AND a.attempt = p.attempts AND a.outcome = 'running'",
                   1, v, "logging recovered attempts", NULL, err)) != CZ_OK)
        return r;
    if ((r = q_cmd(x,
                   "UPDATE parts SET state = 4, lease_until = NULL WHERE owner = $1 AND state = 1 "
                   "AND job_id IN (SELECT id FROM jobs WHERE state >= 2)",
                   1, v, "recovering partitions of final jobs", NULL, err)) != CZ_OK)
        return r;
    long n = 0;
    if ((r = q_cmd(x, "UPDATE parts SET state = 0, lease_until = NULL WHERE owner = $1 AND state = 1", 1, v,
                   "requeueing running partitions", &n, err)) != CZ_OK)
        return r;
    ma->count = (uint64_t)n;
    if ((r = q_cmd(x,
                   "UPDATE jobs SET state = 0 WHERE state = 1 AND NOT EXISTS "
                   "(SELECT 1 FROM parts p WHERE p.job_id = jobs.id AND p.state IN (1, 2))",
                   0, NULL, "requeueing jobs", NULL, err)) != CZ_OK)
        return r;
    return n ? notify(x, "cuzk_work", "", err) : CZ_OK;
}

static cz_status pg_recover(cz_store *st, const char *owner, uint64_t *requeued, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (requeued) *requeued = 0;
    if (!owner_ok(owner)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: recover: bad owner", s->where);
    misc_arg a = {.owner = owner};
    cz_status r = run_tx(s, "recovering", recover_fn, &a, 0, err);
    if (r == CZ_OK && requeued) *requeued = a.count;
    return r;
}

static cz_status counts_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    cz_store_counts *out = ma->counts;
    memset(out, 0, sizeof *out);
    PGresult *r;
    cz_status st = q_rows(x,
                          "SELECT 0, state, COUNT(*) FROM jobs GROUP BY state UNION ALL "
                          "SELECT 1, prio, COUNT(*) FROM jobs WHERE state < 2 GROUP BY prio UNION ALL "
                          "SELECT 2, 0, pg_database_size(current_database())",
                          0, NULL, "counting jobs", &r, err);
    if (st != CZ_OK) return st;
    for (int i = 0; i < PQntuples(r); i++) {
        uint64_t kind = col_u64(r, i, 0), k = col_u64(r, i, 1), c = col_u64(r, i, 2);
        if (kind == 0 && k < 5) out->jobs[k] = c;
        if (kind == 1 && k < 4) out->queued_by_prio[k] = c;
        if (kind == 2) out->bytes = c;
    }
    PQclear(r);
    return CZ_OK;
}

static cz_status pg_counts(cz_store *st, cz_store_counts *out, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!out) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: counts: NULL argument", s->where);
    misc_arg a = {.counts = out};
    return run_tx(s, "counting jobs", counts_fn, &a, TX_SINGLE, err);
}

/* ---- leases, hosts, hints ---------------------------------------------------------------- */

static cz_status pg_heartbeat(cz_store *st, const char *owner, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!owner_ok(owner)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: heartbeat: bad owner", s->where);
    return CZ_OK; /* the leases are renewed by lease_renew, on its own connection and thread */
}

static cz_status renew_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    const cz_store_host *h = ma->host;
    num nl;
    const char *v[] = {h->id, dbls(&nl, x->s->lease_s)};
    PGresult *r;
    cz_status st = q_rows(x,
                          "UPDATE parts SET lease_until = now() + $2 * interval '1 second' "
                          "WHERE owner = $1 AND state = 1 RETURNING job_id, idx, attempts",
                          2, v, "renewing leases", &r, err);
    if (st != CZ_OK) return st;
    int n = PQntuples(r);
    cz_store_claim *c = calloc(n ? (size_t)n : 1, sizeof *c);
    if (!c) {
        PQclear(r);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory renewing leases", x->s->where);
    }
    for (int i = 0; i < n; i++) {
        copy_text(c[i].job_id, sizeof c[i].job_id, col_txt(r, i, 0));
        c[i].idx = (uint32_t)col_u64(r, i, 1);
        c[i].attempt = (uint32_t)col_u64(r, i, 2);
    }
    PQclear(r);
    free(*ma->held);
    *ma->held = c;
    *ma->n = (size_t)n;
    num ns, nr, nd;
    const char *vh[] = {h->id, dbls(&ns, h->started), h->devices, h->version, u64s(&nr, (uint64_t)n), u64s(&nd, h->done)};
    return q_cmd(x,
                 "INSERT INTO hosts (id, heartbeat, started, devices, version, running, done) "
                 "VALUES ($1, now(), $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET heartbeat = now(), "
                 "started = $2, devices = $3, version = $4, running = $5, done = $6",
                 6, vh, "recording the heartbeat", NULL, err);
}

static cz_status pg_lease_renew(cz_store *st, const cz_store_host *h, cz_store_claim **held, size_t *n, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (held) *held = NULL;
    if (n) *n = 0;
    if (!h || !text_ok(h->id, sizeof h->id) || !held || !n)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: lease_renew: a host and outputs expected", s->where);
    misc_arg a = {.host = h, .held = held, .n = n};
    pthread_mutex_lock(&s->hb_mu);
    cz_status r = run_tx_on(s, &s->hb, "renewing leases", renew_fn, &a, 0, err);
    pthread_mutex_unlock(&s->hb_mu);
    if (r != CZ_OK) {
        free(*held);
        *held = NULL;
        *n = 0;
    }
    return r;
}

static cz_status expire_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    ma->count = ma->count2 = 0;
    PGresult *r;
    cz_status st = q_rows(x,
                          "SELECT job_id, idx, attempts, owner, error FROM parts "
                          "WHERE state = 1 AND lease_until < now() ORDER BY job_id, idx "
                          "LIMIT 1000 FOR UPDATE SKIP LOCKED",
                          0, NULL, "finding expired leases", &r, err);
    if (st != CZ_OK) return st;
    int n = PQntuples(r);
    for (int i = 0; i < n && st == CZ_OK; i++) {
        const char *id = col_txt(r, i, 0), *owner = col_txt(r, i, 3), *last = col_txt(r, i, 4);
        uint32_t idx = (uint32_t)col_u64(r, i, 1), att = (uint32_t)col_u64(r, i, 2);
        char msg[512];
        snprintf(msg, sizeof msg, "the lease of host '%s' on attempt %u ran out%s%s", owner, att,
                 last && *last ? "; before: " : "", last && *last ? last : "");
        num ni, na;
        const char *v[] = {id, u64s(&ni, idx), u64s(&na, att), msg};
        if ((st = attempt_end(x, id, idx, att, owner, "expired", err)) != CZ_OK) break;
        if (att >= ma->max_attempts) {
            int jstate;
            if ((st = job_lock(x, id, &jstate, err)) != CZ_OK) break;
            if ((st = q_cmd(x,
                            "UPDATE parts SET state = 3, error = $4, lease_until = NULL "
                            "WHERE job_id = $1 AND idx = $2 AND attempts = $3 AND state = 1",
                            4, v, "failing an expired partition", NULL, err)) != CZ_OK)
                break;
            char jmsg[700];
            snprintf(jmsg, sizeof jmsg, "partition %u: %u attempts, the limit: %s", idx, att, msg);
            long ch = 0;
            if ((st = fail_job(x, id, "attempts", jmsg, &ch, err)) != CZ_OK) break;
            ma->count2++;
        } else {
            if ((st = q_cmd(x,
                            "UPDATE parts SET state = 0, error = $4, lease_until = NULL "
                            "WHERE job_id = $1 AND idx = $2 AND attempts = $3 AND state = 1",
                            4, v, "requeueing an expired partition", NULL, err)) != CZ_OK)
                break;
            ma->count++;
        }
    }
    PQclear(r);
    if (st == CZ_OK && ma->count) st = notify(x, "cuzk_work", "", err);
    return st;
}

static cz_status pg_lease_expire(cz_store *st, uint32_t max_attempts, uint64_t *requeued, uint64_t *failed,
                                 cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (requeued) *requeued = 0;
    if (failed) *failed = 0;
    pthread_mutex_lock(&s->h_mu);
    int wait = s->down || (s->up_since > 0 && mono_s() < s->up_since + s->lease_s);
    pthread_mutex_unlock(&s->h_mu);
    if (wait) return CZ_OK; /* after an outage: the others renew their leases first */
    misc_arg a = {.max_attempts = max_attempts ? max_attempts : 1};
    pthread_mutex_lock(&s->hb_mu);
    cz_status r = run_tx_on(s, &s->hb, "expiring leases", expire_fn, &a, 0, err);
    pthread_mutex_unlock(&s->hb_mu);
    if (r == CZ_OK) {
        if (requeued) *requeued = a.count;
        if (failed) *failed = a.count2;
    }
    return r;
}

static cz_status hosts_fn(pgx *x, void *a, cz_error *err)
{
    misc_arg *ma = a;
    PGresult *r;
    cz_status st = q_rows(x,
                          "SELECT id, extract(epoch FROM heartbeat), extract(epoch FROM now() - heartbeat), started, "
                          "devices, version, running, done FROM hosts "
                          "WHERE heartbeat > now() - interval '1 hour' ORDER BY id",
                          0, NULL, "listing hosts", &r, err);
    if (st != CZ_OK) return st;
    int n = PQntuples(r);
    cz_store_host *h = calloc(n ? (size_t)n : 1, sizeof *h);
    if (!h) {
        PQclear(r);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory listing hosts", x->s->where);
    }
    for (int i = 0; i < n; i++) {
        copy_text(h[i].id, sizeof h[i].id, col_txt(r, i, 0));
        h[i].heartbeat = col_dbl(r, i, 1);
        h[i].age_s = col_dbl(r, i, 2);
        h[i].started = col_dbl(r, i, 3);
        copy_text(h[i].devices, sizeof h[i].devices, col_txt(r, i, 4));
        copy_text(h[i].version, sizeof h[i].version, col_txt(r, i, 5));
        h[i].running = (uint32_t)col_u64(r, i, 6);
        h[i].done = col_u64(r, i, 7);
    }
    PQclear(r);
    free(*ma->hosts);
    *ma->hosts = h;
    *ma->n = (size_t)n;
    return CZ_OK;
}

static cz_status pg_hosts(cz_store *st, cz_store_host **out, size_t *n, cz_error *err)
{
    cz_pg *s = ctx_of(st);
    if (!out || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: hosts: NULL argument", s->where);
    *out = NULL;
    *n = 0;
    misc_arg a = {.hosts = out, .n = n};
    cz_status r = run_tx(s, "listing hosts", hosts_fn, &a, TX_SINGLE, err);
    if (r != CZ_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return r;
}

/* drains the notifications that arrived: bits as in wait_hint */
static int drain_notifies(PGconn *c)
{
    int bits = 0;
    PGnotify *nf;
    while ((nf = PQnotifies(c))) {
        if (!strcmp(nf->relname, "cuzk_work")) bits |= 1;
        if (!strcmp(nf->relname, "cuzk_job")) bits |= 2;
        PQfreemem(nf);
    }
    return bits;
}

static int pg_wait_hint(cz_store *st, double timeout_s)
{
    cz_pg *s = ctx_of(st);
    pthread_mutex_lock(&s->ln_mu);
    if ((!s->ln || PQstatus(s->ln) != CONNECTION_OK) && mono_s() >= s->ln_retry_at) {
        char why[300];
        if (s->ln) PQfinish(s->ln);
        s->ln = connect_db(s, why, sizeof why);
        if (s->ln) {
            PGresult *r = PQexec(s->ln, "LISTEN cuzk_work; LISTEN cuzk_job");
            if (PQresultStatus(r) != PGRES_COMMAND_OK) {
                PQfinish(s->ln);
                s->ln = NULL;
            }
            PQclear(r);
        }
        if (!s->ln) s->ln_retry_at = mono_s() + 1.0;
    }
    PGconn *c = s->ln && PQstatus(s->ln) == CONNECTION_OK ? s->ln : NULL;
    int bits = 0;
    if (c) {
        if (PQconsumeInput(c)) bits = drain_notifies(c);
        if (!bits) {
            struct pollfd p = {PQsocket(c), POLLIN, 0};
            int ms = timeout_s > 0 ? (int)(timeout_s * 1000) : 0;
            if (p.fd >= 0 && poll(&p, 1, ms) > 0 && PQconsumeInput(c)) bits = drain_notifies(c);
        }
    }
    pthread_mutex_unlock(&s->ln_mu);
    if (!c && timeout_s > 0) sleep_s(timeout_s); /* no hints: the caller polls */
    return bits;
}

/* ---- open and close ------------------------------------------------------------------------ */

static void pg_free(cz_pg *s)
{
    for (int i = 0; i < CZ_PG_POOL; i++)
        if (s->pool[i]) PQfinish(s->pool[i]);
    if (s->hb) PQfinish(s->hb);
    if (s->ln) PQfinish(s->ln);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->hb_mu);
    pthread_mutex_destroy(&s->ln_mu);
    pthread_mutex_destroy(&s->h_mu);
    free(s->url);
    free(s);
}

static void pg_close(cz_store *st)
{
    if (st) pg_free(ctx_of(st));
}

static const cz_store_ops cz_pg_ops = {
    /* .name = */ "postgres",
    /* .shared = */ 1,
    /* .key_put = */ pg_key_put,
    /* .key_get = */ pg_key_get,
    /* .key_delete = */ pg_key_delete,
    /* .key_list = */ pg_key_list,
    /* .submit = */ pg_submit,
    /* .job_get = */ pg_job_get,
    /* .parts_get = */ pg_parts_get,
    /* .jobs_unfinished = */ pg_jobs_unfinished,
    /* .claim = */ pg_claim,
    /* .heartbeat = */ pg_heartbeat,
    /* .complete = */ pg_complete,
    /* .fail = */ pg_fail,
    /* .cancel = */ pg_cancel,
    /* .mark_fetched = */ pg_mark_fetched,
    /* .job_delete = */ pg_job_delete,
    /* .expired = */ pg_expired,
    /* .recover = */ pg_recover,
    /* .counts = */ pg_counts,
    /* .close = */ pg_close,
    /* .claim_next = */ pg_claim_next,
    /* .lease_renew = */ pg_lease_renew,
    /* .lease_expire = */ pg_lease_expire,
    /* .hosts = */ pg_hosts,
    /* .wait_hint = */ pg_wait_hint,
    /* .healthy = */ pg_healthy,
};

typedef struct migrate_arg {
    long version;
    int done;
} migrate_arg;

/* one step of the migration (or none when the schema is current) */
static cz_status migrate_fn(pgx *x, void *a, cz_error *err)
{
    migrate_arg *ma = a;
    cz_status st;
    PGresult *r;
    if ((st = q_rows(x, "SELECT pg_advisory_xact_lock(4242424201)", 0, NULL, "locking the schema", &r, err)) != CZ_OK)
        return st;
    PQclear(r);
    if ((st = q_cmd(x,
                    "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), "
                    "version INTEGER NOT NULL)",
                    0, NULL, "creating schema_version", NULL, err)) != CZ_OK ||
        (st = q_cmd(x, "INSERT INTO schema_version (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING", 0, NULL,
                    "creating schema_version", NULL, err)) != CZ_OK)
        return st;
    if ((st = q_rows(x, "SELECT version FROM schema_version WHERE id = 1", 0, NULL, "reading the schema version", &r,
                     err)) != CZ_OK)
        return st;
    long v = PQntuples(r) == 1 ? strtol(col_txt(r, 0, 0), NULL, 10) : 0;
    PQclear(r);
    ma->version = v;
    if (v > CZ_PG_VERSION)
        return cz_error_set(err, CZ_ERR_UNSUPPORTED,
                            "store %s: the database has schema version %ld, this cuzkd knows versions up to %d (a "
                            "newer cuzkd wrote it); refusing to open it",
                            x->s->where, v, CZ_PG_VERSION);
    if (v < 0) return cz_error_set(err, CZ_ERR_FORMAT, "store %s: schema version %ld", x->s->where, v);
    if (v == CZ_PG_VERSION) {
        ma->done = 1;
        return CZ_OK;
    }
    char what[64];
    snprintf(what, sizeof what, "schema migration %ld -> %ld", v, v + 1);
    r = PQexec(x->c, cz_pg_steps[v]); /* (static SQL: several statements) */
    if ((st = res_check(x, &r, PGRES_COMMAND_OK, what, err)) != CZ_OK) return st;
    PQclear(r);
    num nv;
    const char *vv[] = {u64s(&nv, (uint64_t)(v + 1))};
    return q_cmd(x, "UPDATE schema_version SET version = $1 WHERE id = 1", 1, vv, what, NULL, err);
}

cz_status cz_store_pg_open(cz_store **out, const char *url, double lease_s, cz_error *err)
{
    if (!out) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store: NULL output");
    *out = NULL;
    if (!url || !*url) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store: a PostgreSQL URL expected");
    if (!(lease_s >= 1)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store: lease %.3f s: at least 1 s", lease_s);
    char *emsg = NULL;
    PQconninfoOption *opts = PQconninfoParse(url, &emsg);
    if (!opts) {
        cz_status st = cz_error_set(err, CZ_ERR_INVALID_ARG, "store: the PostgreSQL URL does not parse: %s",
                                    emsg ? emsg : "out of memory");
        PQfreemem(emsg);
        return st;
    }
    const char *host = "", *port = "", *db = "";
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val) continue;
        if (!strcmp(o->keyword, "host") || !strcmp(o->keyword, "hostaddr")) host = o->val;
        if (!strcmp(o->keyword, "port")) port = o->val;
        if (!strcmp(o->keyword, "dbname")) db = o->val;
    }
    cz_pg *s = calloc(1, sizeof *s);
    if (!s) {
        PQconninfoFree(opts);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store: out of memory");
    }
    snprintf(s->where, sizeof s->where, "postgres %.120s%s%.10s/%.120s", *host ? host : "(default host)",
             *port ? ":" : "", port, *db ? db : "(default db)");
    PQconninfoFree(opts);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_mutex_init(&s->hb_mu, NULL);
    pthread_mutex_init(&s->ln_mu, NULL);
    pthread_mutex_init(&s->h_mu, NULL);
    s->lease_s = lease_s;
    s->pub.ops = &cz_pg_ops;
    s->pub.ctx = s;
    if (!(s->url = strdup(url))) {
        pg_free(s);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store: out of memory");
    }
    if (!PQisthreadsafe()) {
        cz_status st = cz_error_set(err, CZ_ERR_UNSUPPORTED, "store %s: libpq is built without thread safety", s->where);
        pg_free(s);
        return st;
    }
    char why[300];
    if (!(s->pool[0] = connect_db(s, why, sizeof why))) {
        cz_status st = cz_error_set(err, CZ_ERR_IO, "store %s: cannot connect: %s", s->where, why);
        pg_free(s);
        return st;
    }
    for (;;) {
        migrate_arg m = {0, 0};
        cz_status st = run_tx_on(s, &s->pool[0], "migrating the schema", migrate_fn, &m, 0, err);
        if (st != CZ_OK) {
            pg_free(s);
            return st;
        }
        if (m.done) break;
    }
    *out = &s->pub;
    return CZ_OK;
}

#endif
