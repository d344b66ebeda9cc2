/*
 * daemon/store_sqlite: the daemon's job store (contract in daemon/store.h)
 * in one SQLite file.
 *
 * DESIGN: one connection, opened in WAL mode with synchronous = FULL (a
 * commit is on disk when it returns), foreign_keys = ON and a busy timeout
 * (another process, say the sqlite3 shell, may hold the file for a moment).
 * One pthread mutex guards the connection: every operation takes it for its
 * whole length, so the operations are serialized and each sees the effects
 * of the ones before it. Every statement is prepared once at open (a table
 * indexed by Q_*) and takes its values through bound parameters only; no
 * SQL text is ever built from a value. A statement is reset before and
 * after each use so that none keeps a read snapshot open.
 *
 * Writes that touch more than one row run inside BEGIN IMMEDIATE ... COMMIT
 * (the write lock is taken at the start, so the checks made inside the
 * transaction still hold when it commits): a crash leaves all of it or
 * none. The fencing of complete/fail is such a check: the partition's state,
 * owner and attempt are read, compared, and the update repeats them in its
 * WHERE clause.
 *
 * Schema: the table schema_version holds one row, the version of the
 * schema. cz_sq_steps[v] is the SQL that takes version v to v + 1; at open
 * the steps from the stored version to the newest are applied in order,
 * each in its own transaction together with the new version number. A file
 * whose version is newer than this code knows is refused (it was written by
 * a newer cuzkd; opening it could lose what that one stored). Version 1:
 *
 *   keys  (id, path, created)
 *   jobs  (id, key_id, priority, prio 0..3 = critical..low, state 0..4 =
 *          cz_job_state, n_parts, created, started, finished, idem_key,
 *          idem_hash, error_code, error, fetched)
 *         idempotency key UNIQUE where not empty; (state, prio, created)
 *         for the unfinished listing and the counts; finished of final
 *         jobs for expiry
 *   parts (job_id -> jobs ON DELETE CASCADE, idx, state 0..4 =
 *          cz_part_state, witness, spooled, attempts, owner, error,
 *          proof_json, public_json, timings_json, proof_bin: 192 bytes)
 *         keyed by (job_id, idx); running partitions by owner (recovery)
 *
 * jobs.key_id is not a foreign key: a key may be removed while final jobs
 * that used it are still kept for their results.
 *
 * Choices where store.h leaves room: a missing job or partition given to a
 * write (claim, complete, fail, cancel, mark_fetched) is CZ_ERR_INVALID_ARG;
 * key_delete and job_delete of an id that is not there are CZ_OK (deletes
 * are idempotent: expiry and a client's DELETE may race). A failure with
 * requeue keeps its message in the partition's error; the job goes back to
 * queued when none of its partitions is running or done any more, as after
 * recovery. A failed job keeps the code and message of its first failed
 * partition; partitions still running in it may still complete (their
 * results are kept, the job stays failed). Text read into the fixed fields
 * of cz_store_job / cz_store_part is cut at a UTF-8 character boundary when
 * it does not fit.
 */
#include "daemon/store.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/common.h"

/* the state numbers below are written into the SQL text */
_Static_assert(CZ_JOB_QUEUED == 0 && CZ_JOB_RUNNING == 1 && CZ_JOB_DONE == 2 && CZ_JOB_FAILED == 3 &&
                   CZ_JOB_CANCELLED == 4,
               "job states as in the schema");
_Static_assert(CZ_PART_QUEUED == 0 && CZ_PART_RUNNING == 1 && CZ_PART_DONE == 2 && CZ_PART_FAILED == 3 &&
                   CZ_PART_CANCELLED == 4,
               "partition states as in the schema");

#define CZ_SQ_BUSY_MS 5000
#define CZ_SQ_BIN 192

/* ---- shared helpers of store.h ------------------------------------------ */

const char *cz_job_state_name(cz_job_state s)
{
    switch (s) {
    case CZ_JOB_QUEUED: return "queued";
    case CZ_JOB_RUNNING: return "running";
    case CZ_JOB_DONE: return "done";
    case CZ_JOB_FAILED: return "failed";
    case CZ_JOB_CANCELLED: return "cancelled";
    }
    return "unknown";
}

const char *cz_part_state_name(cz_part_state s)
{
    switch (s) {
    case CZ_PART_QUEUED: return "queued";
    case CZ_PART_RUNNING: return "running";
    case CZ_PART_DONE: return "done";
    case CZ_PART_FAILED: return "failed";
    case CZ_PART_CANCELLED: return "cancelled";
    }
    return "unknown";
}

int cz_job_state_final(cz_job_state s)
{
    return s == CZ_JOB_DONE || s == CZ_JOB_FAILED || s == CZ_JOB_CANCELLED;
}

void cz_store_parts_free(cz_store_part *parts, size_t n)
{
    if (!parts) return;
    for (size_t i = 0; i < n; i++) {
        free(parts[i].proof_json);
        free(parts[i].public_json);
        free(parts[i].timings_json);
    }
    free(parts);
}

int cz_store_is_pg_url(const char *text)
{
    return text && (!strncmp(text, "postgres://", 11) || !strncmp(text, "postgresql://", 13));
}

void cz_store_close(cz_store *s)
{
    if (s && s->ops && s->ops->close) s->ops->close(s);
}

/* ---- schema --------------------------------------------------------------- */

/* cz_sq_steps[v]: version v -> v + 1. Append only; never edit a step that
 * was released. */
static const char *const cz_sq_steps[] = {
    /* 0 -> 1 */
    "CREATE TABLE keys ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  path TEXT NOT NULL,"
    "  created REAL NOT NULL);"
    "CREATE TABLE jobs ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  key_id TEXT NOT NULL,"
    "  priority TEXT NOT NULL,"
    "  prio INTEGER NOT NULL CHECK (prio BETWEEN 0 AND 3),"
    "  state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
    "  n_parts INTEGER NOT NULL CHECK (n_parts > 0),"
    "  created REAL NOT NULL,"
    "  started REAL NOT NULL DEFAULT 0,"
    "  finished REAL NOT NULL DEFAULT 0,"
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
    "  proof_bin BLOB CHECK (proof_bin IS NULL OR length(proof_bin) = 192),"
    "  PRIMARY KEY (job_id, idx)) WITHOUT ROWID;"
    "CREATE INDEX parts_running ON parts (owner) WHERE state = 1;",
};
#define CZ_SQ_VERSION ((int)CZ_ARRAY_LEN(cz_sq_steps))

/* ---- statements ------------------------------------------------------------ */

enum {
    Q_BEGIN,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_KEY_PUT,
    Q_KEY_GET,
    Q_KEY_DEL,
    Q_KEY_LIST,
    Q_JOB_GET,
    Q_JOB_STATE,
    Q_JOB_IDEM,
    Q_JOB_INSERT,
    Q_PART_INSERT,
    Q_UNFINISHED,
    Q_PARTS,
    Q_PARTS_RES,
    Q_PART_FENCE,
    Q_CLAIM_PART,
    Q_CLAIM_JOB,
    Q_COMPLETE_PART,
    Q_JOB_DONE_IF_ALL,
    Q_REQUEUE_PART,
    Q_JOB_QUEUED_IF_IDLE,
    Q_FAIL_PART,
    Q_FAIL_JOB,
    Q_CANCEL_QUEUED,
    Q_CANCEL_JOB,
    Q_CANCEL_PARTS,
    Q_FETCHED,
    Q_DEL_PARTS,
    Q_DEL_JOB,
    Q_EXPIRED,
    Q_RECOVER_FINAL,
    Q_RECOVER_PARTS,
    Q_RECOVER_JOBS,
    Q_COUNT_STATE,
    Q_COUNT_PRIO,
    Q_COUNT_
};

/* a job row as read_job() takes it, parts_done and parts_failed included */
#define JOB_COLS                                                                                     \
    "j.id, j.key_id, j.priority, j.state, j.n_parts, j.created, j.started, j.finished, j.idem_key, " \
    "j.idem_hash, j.error_code, j.error, j.fetched, "                                                \
    "(SELECT COUNT(*) FROM parts p WHERE p.job_id = j.id AND p.state = 2), "                         \
    "(SELECT COUNT(*) FROM parts p WHERE p.job_id = j.id AND p.state = 3)"
#define PART_COLS "idx, state, witness, spooled, attempts, owner, error"

static const char *const cz_sq_sql[Q_COUNT_] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    [Q_KEY_PUT] = "INSERT INTO keys (id, path, created) VALUES (?1, ?2, ?3) ON CONFLICT (id) DO NOTHING",
    [Q_KEY_GET] = "SELECT id, path, created FROM keys WHERE id = ?1",
    [Q_KEY_DEL] = "DELETE FROM keys WHERE id = ?1",
    [Q_KEY_LIST] = "SELECT id, path, created FROM keys ORDER BY created, id",
    [Q_JOB_GET] = "SELECT " JOB_COLS " FROM jobs j WHERE j.id = ?1",
    [Q_JOB_STATE] = "SELECT state FROM jobs WHERE id = ?1",
    [Q_JOB_IDEM] = "SELECT id, idem_hash FROM jobs WHERE idem_key = ?1 AND idem_key <> ''",
    [Q_JOB_INSERT] = "INSERT INTO jobs (id, key_id, priority, prio, state, n_parts, created, idem_key, idem_hash) "
                     "VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8)",
    [Q_PART_INSERT] = "INSERT INTO parts (job_id, idx, state, witness, spooled) VALUES (?1, ?2, 0, ?3, ?4)",
    [Q_UNFINISHED] = "SELECT " JOB_COLS " FROM jobs j WHERE j.state < 2 ORDER BY j.created, j.rowid",
    [Q_PARTS] = "SELECT " PART_COLS " FROM parts WHERE job_id = ?1 ORDER BY idx",
    [Q_PARTS_RES] = "SELECT " PART_COLS ", proof_json, public_json, timings_json, proof_bin "
                    "FROM parts WHERE job_id = ?1 ORDER BY idx",
    [Q_PART_FENCE] = "SELECT state, attempts, owner, proof_json IS NOT NULL FROM parts WHERE job_id = ?1 AND idx = ?2",
    [Q_CLAIM_PART] = "UPDATE parts SET state = 1, attempts = attempts + 1, owner = ?3 "
                     "WHERE job_id = ?1 AND idx = ?2 AND state = 0",
    [Q_CLAIM_JOB] = "UPDATE jobs SET state = 1, started = CASE WHEN started = 0 THEN ?2 ELSE started END "
                    "WHERE id = ?1 AND state = 0",
    [Q_COMPLETE_PART] = "UPDATE parts SET state = 2, proof_json = ?5, public_json = ?6, timings_json = ?7, "
                        "proof_bin = ?8, error = '' "
                        "WHERE job_id = ?1 AND idx = ?2 AND state = 1 AND owner = ?3 AND attempts = ?4 "
                        "AND proof_json IS NULL",
    [Q_JOB_DONE_IF_ALL] = "UPDATE jobs SET state = 2, finished = ?2 WHERE id = ?1 AND state < 2 "
                          "AND NOT EXISTS (SELECT 1 FROM parts p WHERE p.job_id = ?1 AND p.state <> 2)",
    [Q_REQUEUE_PART] = "UPDATE parts SET state = 0, error = ?5 "
                       "WHERE job_id = ?1 AND idx = ?2 AND state = 1 AND owner = ?3 AND attempts = ?4",
    [Q_JOB_QUEUED_IF_IDLE] = "UPDATE jobs SET state = 0 WHERE id = ?1 AND state = 1 "
                             "AND NOT EXISTS (SELECT 1 FROM parts p WHERE p.job_id = ?1 AND p.state IN (1, 2))",
    [Q_FAIL_PART] = "UPDATE parts SET state = 3, error = ?5 "
                    "WHERE job_id = ?1 AND idx = ?2 AND state = 1 AND owner = ?3 AND attempts = ?4",
    [Q_FAIL_JOB] = "UPDATE jobs SET state = 3, error_code = ?2, error = ?3, finished = ?4 WHERE id = ?1 AND state < 2",
    [Q_CANCEL_QUEUED] = "UPDATE parts SET state = 4 WHERE job_id = ?1 AND state = 0",
    [Q_CANCEL_JOB] = "UPDATE jobs SET state = 4, finished = ?2 WHERE id = ?1 AND state < 2",
    [Q_CANCEL_PARTS] = "UPDATE parts SET state = 4 WHERE job_id = ?1 AND state IN (0, 1)",
    [Q_FETCHED] = "UPDATE jobs SET fetched = 1 WHERE id = ?1",
    [Q_DEL_PARTS] = "DELETE FROM parts WHERE job_id = ?1",
    [Q_DEL_JOB] = "DELETE FROM jobs WHERE id = ?1",
    [Q_EXPIRED] = "SELECT " JOB_COLS " FROM jobs j WHERE j.state >= 2 AND j.finished < ?1 "
                  "AND (?2 = 0 OR j.state <> 2 OR j.fetched <> 0) ORDER BY j.finished, j.rowid LIMIT ?3",
    [Q_RECOVER_FINAL] = "UPDATE parts SET state = 4 WHERE owner = ?1 AND state = 1 "
                        "AND job_id IN (SELECT id FROM jobs WHERE state >= 2)",
    [Q_RECOVER_PARTS] = "UPDATE parts SET state = 0 WHERE owner = ?1 AND state = 1",
    [Q_RECOVER_JOBS] = "UPDATE jobs SET state = 0 WHERE state = 1 AND NOT EXISTS "
                       "(SELECT 1 FROM parts p WHERE p.job_id = jobs.id AND p.state IN (1, 2))",
    [Q_COUNT_STATE] = "SELECT state, COUNT(*) FROM jobs GROUP BY state",
    [Q_COUNT_PRIO] = "SELECT prio, COUNT(*) FROM jobs WHERE state < 2 GROUP BY prio",
};

typedef struct cz_sq {
    cz_store pub;
    sqlite3 *db;
    pthread_mutex_t mu;
    char path[CZ_STORE_PATH_MAX];
    sqlite3_stmt *q[Q_COUNT_];
} cz_sq;

static const char *const cz_sq_prio[4] = {"critical", "high", "normal", "low"};

static int prio_rank(const char *p)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(p, cz_sq_prio[i])) return i;
    return -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 1 when s is a NUL-terminated string of 1..cap-1 bytes */
static int text_ok(const char *s, size_t cap)
{
    if (!s) return 0;
    size_t n = strnlen(s, cap);
    return n > 0 && n < cap;
}

/* copies src into dst[cap], cut at a UTF-8 character boundary */
static void copy_text(char *dst, size_t cap, const unsigned char *src)
{
    size_t n = src ? strlen((const char *)src) : 0;
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && (src[n] & 0xC0) == 0x80) n--;
    }
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

static char *dup_col(sqlite3_stmt *q, int col, int *oom)
{
    const unsigned char *t = sqlite3_column_text(q, col);
    if (!t) {
        if (sqlite3_column_type(q, col) != SQLITE_NULL) *oom = 1;
        return NULL;
    }
    size_t n = (size_t)sqlite3_column_bytes(q, col);
    char *r = malloc(n + 1);
    if (!r) {
        *oom = 1;
        return NULL;
    }
    memcpy(r, t, n);
    r[n] = '\0';
    return r;
}

static cz_status status_of(int rc)
{
    return (rc & 0xff) == SQLITE_NOMEM ? CZ_ERR_NO_MEMORY : CZ_ERR_IO;
}

/* the database's error, with what was being done */
static cz_status db_err(cz_sq *s, cz_error *err, const char *what)
{
    return cz_error_set(err, status_of(sqlite3_errcode(s->db)), "store %s: %s: %s", s->path, what,
                        sqlite3_errmsg(s->db));
}

/* statement `which`, reset and unbound */
static sqlite3_stmt *stmt(cz_sq *s, int which)
{
    sqlite3_stmt *q = s->q[which];
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    return q;
}

/* Runs a statement that returns no rows; *changes (may be NULL) gets the
 * rows it changed. */
static cz_status run(cz_sq *s, sqlite3_stmt *q, const char *what, int *changes, cz_error *err)
{
    int rc = sqlite3_step(q);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        cz_status st = db_err(s, err, what);
        sqlite3_reset(q);
        return st;
    }
    if (changes) *changes = sqlite3_changes(s->db);
    sqlite3_reset(q);
    return CZ_OK;
}

/* Steps a query: 1 a row, 0 the end (q reset), -1 an error (in *st and
 * err, q reset). */
static int next_row(cz_sq *s, sqlite3_stmt *q, const char *what, cz_status *st, cz_error *err)
{
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) return 1;
    if (rc != SQLITE_DONE) *st = db_err(s, err, what);
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? 0 : -1;
}

static cz_status bind_err(cz_sq *s, sqlite3_stmt *q, cz_error *err)
{
    cz_status st = db_err(s, err, "binding a value");
    sqlite3_reset(q);
    return st;
}

static int bind_text(sqlite3_stmt *q, int i, const char *t)
{
    return sqlite3_bind_text(q, i, t ? t : "", -1, SQLITE_STATIC);
}

static int bind_text_or_null(sqlite3_stmt *q, int i, const char *t)
{
    return t ? sqlite3_bind_text(q, i, t, -1, SQLITE_STATIC) : sqlite3_bind_null(q, i);
}

/* BEGIN IMMEDIATE */
static cz_status tx_begin(cz_sq *s, cz_error *err)
{
    return run(s, stmt(s, Q_BEGIN), "BEGIN", NULL, err);
}

/* Ends the transaction: COMMIT when st is CZ_OK, ROLLBACK otherwise.
 * Returns st, or the COMMIT's error. */
static cz_status tx_end(cz_sq *s, cz_status st, cz_error *err)
{
    if (st == CZ_OK) st = run(s, stmt(s, Q_COMMIT), "COMMIT", NULL, err);
    if (st != CZ_OK && !sqlite3_get_autocommit(s->db)) (void)run(s, stmt(s, Q_ROLLBACK), "ROLLBACK", NULL, NULL);
    return st;
}

static cz_sq *ctx_of(cz_store *st)
{
    return st->ctx;
}

/* ---- rows ------------------------------------------------------------------- */

static void read_key(sqlite3_stmt *q, cz_store_key *k)
{
    memset(k, 0, sizeof *k);
    copy_text(k->id, sizeof k->id, sqlite3_column_text(q, 0));
    copy_text(k->path, sizeof k->path, sqlite3_column_text(q, 1));
    k->created = sqlite3_column_double(q, 2);
}

static void read_job(sqlite3_stmt *q, cz_store_job *j)
{
    memset(j, 0, sizeof *j);
    copy_text(j->id, sizeof j->id, sqlite3_column_text(q, 0));
    copy_text(j->key_id, sizeof j->key_id, sqlite3_column_text(q, 1));
    copy_text(j->priority, sizeof j->priority, sqlite3_column_text(q, 2));
    j->state = (cz_job_state)sqlite3_column_int(q, 3);
    j->n_parts = (uint32_t)sqlite3_column_int64(q, 4);
    j->created = sqlite3_column_double(q, 5);
    j->started = sqlite3_column_double(q, 6);
    j->finished = sqlite3_column_double(q, 7);
    copy_text(j->idem_key, sizeof j->idem_key, sqlite3_column_text(q, 8));
    copy_text(j->idem_hash, sizeof j->idem_hash, sqlite3_column_text(q, 9));
    copy_text(j->error_code, sizeof j->error_code, sqlite3_column_text(q, 10));
    copy_text(j->error, sizeof j->error, sqlite3_column_text(q, 11));
    j->fetched = sqlite3_column_int(q, 12) != 0;
    j->parts_done = (uint32_t)sqlite3_column_int64(q, 13);
    j->parts_failed = (uint32_t)sqlite3_column_int64(q, 14);
}

/* job id into *out; *found 0 when there is none */
static cz_status job_read_locked(cz_sq *s, const char *id, cz_store_job *out, int *found, cz_error *err)
{
    *found = 0;
    sqlite3_stmt *q = stmt(s, Q_JOB_GET);
    if (bind_text(q, 1, id)) return bind_err(s, q, err);
    cz_status st = CZ_OK;
    int r = next_row(s, q, "reading a job", &st, err);
    if (r < 0) return st;
    if (r == 1) {
        read_job(q, out);
        *found = 1;
        sqlite3_reset(q);
    }
    return CZ_OK;
}

/* Reads the rows of q (bound) with read_job into a malloc'ed array. */
static cz_status jobs_read_all(cz_sq *s, sqlite3_stmt *q, cz_store_job **out, size_t *n, cz_error *err)
{
    cz_store_job *a = NULL;
    size_t c = 0, cap = 0;
    int r;
    cz_status st = CZ_OK;
    while ((r = next_row(s, q, "reading jobs", &st, err)) == 1) {
        if (c == cap) {
            size_t nc = cap ? 2 * cap : 16;
            cz_store_job *b = realloc(a, nc * sizeof *b);
            if (!b) {
                sqlite3_reset(q);
                free(a);
                return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory reading jobs", s->path);
            }
            a = b;
            cap = nc;
        }
        read_job(q, &a[c++]);
    }
    if (r < 0) {
        free(a);
        return st;
    }
    *out = a;
    *n = c;
    return CZ_OK;
}

/* ---- keys -------------------------------------------------------------------- */

static cz_status sq_key_put(cz_store *st, const cz_store_key *k, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!k || !text_ok(k->id, sizeof k->id) || !text_ok(k->path, sizeof k->path))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_put: a key needs an id and a path", s->path);
    pthread_mutex_lock(&s->mu);
    sqlite3_stmt *q = stmt(s, Q_KEY_PUT);
    cz_status r;
    if (bind_text(q, 1, k->id) || bind_text(q, 2, k->path) ||
        sqlite3_bind_double(q, 3, k->created > 0 ? k->created : now_s()))
        r = bind_err(s, q, err);
    else
        r = run(s, q, "storing a key", NULL, err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status sq_key_get(cz_store *st, const char *id, cz_store_key *out, int *found, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!id || !out || !found) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_get: NULL argument", s->path);
    *found = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK; /* no such key can exist */
    pthread_mutex_lock(&s->mu);
    sqlite3_stmt *q = stmt(s, Q_KEY_GET);
    cz_status r = CZ_OK;
    if (bind_text(q, 1, id)) {
        r = bind_err(s, q, err);
    } else {
        int n = next_row(s, q, "reading a key", &r, err);
        if (n == 1) {
            read_key(q, out);
            *found = 1;
            sqlite3_reset(q);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status sq_key_delete(cz_store *st, const char *id, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!id) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_delete: NULL id", s->path);
    pthread_mutex_lock(&s->mu);
    sqlite3_stmt *q = stmt(s, Q_KEY_DEL);
    cz_status r = bind_text(q, 1, id) ? bind_err(s, q, err) : run(s, q, "deleting a key", NULL, err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status sq_key_list(cz_store *st, cz_store_key **out, size_t *n, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!out || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: key_list: NULL argument", s->path);
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&s->mu);
    sqlite3_stmt *q = stmt(s, Q_KEY_LIST);
    cz_store_key *a = NULL;
    size_t c = 0, cap = 0;
    cz_status r = CZ_OK;
    int k;
    while ((k = next_row(s, q, "listing keys", &r, err)) == 1) {
        if (c == cap) {
            size_t nc = cap ? 2 * cap : 8;
            cz_store_key *b = realloc(a, nc * sizeof *b);
            if (!b) {
                sqlite3_reset(q);
                r = cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory listing keys", s->path);
                break;
            }
            a = b;
            cap = nc;
        }
        read_key(q, &a[c++]);
    }
    pthread_mutex_unlock(&s->mu);
    if (r != CZ_OK) {
        free(a);
        return r;
    }
    *out = a;
    *n = c;
    return CZ_OK;
}

/* ---- submit and reads ------------------------------------------------------- */

static cz_status submit_locked(cz_sq *s, const cz_store_job *in, int prio, const cz_store_part *parts,
                               cz_store_job *out, int *existing, cz_error *err)
{
    cz_status r;
    sqlite3_stmt *q;
    int k;
    if (in->idem_key[0]) {
        q = stmt(s, Q_JOB_IDEM);
        if (bind_text(q, 1, in->idem_key)) return bind_err(s, q, err);
        if ((k = next_row(s, q, "looking up the idempotency key", &r, err)) < 0) return r;
        if (k == 1) {
            char had_id[CZ_STORE_ID_MAX], had_hash[sizeof in->idem_hash];
            copy_text(had_id, sizeof had_id, sqlite3_column_text(q, 0));
            copy_text(had_hash, sizeof had_hash, sqlite3_column_text(q, 1));
            sqlite3_reset(q);
            if (strcmp(had_hash, in->idem_hash))
                return cz_error_set(err, CZ_ERR_MISMATCH,
                                    "store %s: idempotency key '%s' belongs to job %s, which was submitted with "
                                    "another request (hash %s, this one %s)",
                                    s->path, in->idem_key, had_id, had_hash, in->idem_hash);
            int found = 0;
            if ((r = job_read_locked(s, had_id, out, &found, err)) != CZ_OK) return r;
            if (!found) return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: job %s vanished", s->path, had_id);
            *existing = 1;
            return CZ_OK;
        }
    }
    q = stmt(s, Q_JOB_STATE);
    if (bind_text(q, 1, in->id)) return bind_err(s, q, err);
    if ((k = next_row(s, q, "looking up the job id", &r, err)) < 0) return r;
    if (k == 1) {
        sqlite3_reset(q);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: job %s exists already", s->path, in->id);
    }
    q = stmt(s, Q_JOB_INSERT);
    if (bind_text(q, 1, in->id) || bind_text(q, 2, in->key_id) || bind_text(q, 3, in->priority) ||
        sqlite3_bind_int(q, 4, prio) || sqlite3_bind_int64(q, 5, in->n_parts) ||
        sqlite3_bind_double(q, 6, in->created > 0 ? in->created : now_s()) || bind_text(q, 7, in->idem_key) ||
        bind_text(q, 8, in->idem_hash))
        return bind_err(s, q, err);
    if ((r = run(s, q, "inserting a job", NULL, err)) != CZ_OK) return r;
    for (uint32_t i = 0; i < in->n_parts; i++) {
        q = stmt(s, Q_PART_INSERT);
        if (bind_text(q, 1, in->id) || sqlite3_bind_int64(q, 2, parts[i].idx) || bind_text(q, 3, parts[i].witness) ||
            sqlite3_bind_int(q, 4, parts[i].spooled != 0))
            return bind_err(s, q, err);
        if ((r = run(s, q, "inserting a partition", NULL, err)) != CZ_OK) return r;
    }
    int found = 0;
    if ((r = job_read_locked(s, in->id, out, &found, err)) != CZ_OK) return r;
    if (!found) return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: job %s not there after its insert", s->path, in->id);
    return CZ_OK;
}

static cz_status sq_submit(cz_store *st, const cz_store_job *j, const cz_store_part *parts, cz_store_job *out,
                           int *existing, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    int ex = 0;
    if (existing) *existing = 0;
    if (!j || !parts || !out)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: NULL argument", s->path);
    cz_store_job in = *j; /* out may be j */
    if (!text_ok(in.id, sizeof in.id) || !text_ok(in.key_id, sizeof in.key_id))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: a job needs an id and a key id", s->path);
    if (strnlen(in.priority, sizeof in.priority) == sizeof in.priority || prio_rank(in.priority) < 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "store %s: submit: job %s: priority '%.15s': expected critical, high, normal or low",
                            s->path, in.id, in.priority);
    if (strnlen(in.idem_key, sizeof in.idem_key) == sizeof in.idem_key ||
        strnlen(in.idem_hash, sizeof in.idem_hash) == sizeof in.idem_hash)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: job %s: idempotency key or hash too long",
                            s->path, in.id);
    if (in.n_parts == 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: submit: job %s has no partitions", s->path, in.id);
    uint8_t *seen = calloc(in.n_parts, 1);
    if (!seen) return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: submit: out of memory", s->path);
    for (uint32_t i = 0; i < in.n_parts; i++) {
        const cz_store_part *p = &parts[i];
        if (p->idx >= in.n_parts || seen[p->idx] || !text_ok(p->witness, sizeof p->witness)) {
            free(seen);
            return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                "store %s: submit: job %s: partition entry %u: index %u (of %u, each once) and a "
                                "witness path expected",
                                s->path, in.id, i, p->idx, in.n_parts);
        }
        seen[p->idx] = 1;
    }
    free(seen);
    pthread_mutex_lock(&s->mu);
    cz_status r = tx_begin(s, err);
    if (r == CZ_OK) r = tx_end(s, submit_locked(s, &in, prio_rank(in.priority), parts, out, &ex, err), err);
    pthread_mutex_unlock(&s->mu);
    if (r == CZ_OK && existing) *existing = ex;
    return r;
}

static cz_status sq_job_get(cz_store *st, const char *id, cz_store_job *out, int *found, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!id || !out || !found) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job_get: NULL argument", s->path);
    *found = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK;
    pthread_mutex_lock(&s->mu);
    cz_status r = job_read_locked(s, id, out, found, err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status sq_parts_get(cz_store *st, const char *id, int with_results, cz_store_part **parts, size_t *n,
                              cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!id || !parts || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: parts_get: NULL argument", s->path);
    *parts = NULL;
    *n = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK;
    pthread_mutex_lock(&s->mu);
    sqlite3_stmt *q = stmt(s, with_results ? Q_PARTS_RES : Q_PARTS);
    cz_store_part *a = NULL;
    size_t c = 0, cap = 0;
    cz_status r = CZ_OK;
    if (bind_text(q, 1, id)) {
        r = bind_err(s, q, err);
    } else {
        int k, oom = 0;
        while ((k = next_row(s, q, "reading partitions", &r, err)) == 1) {
            if (c == cap) {
                size_t nc = cap ? 2 * cap : 8;
                cz_store_part *b = realloc(a, nc * sizeof *b);
                if (!b) {
                    oom = 1;
                    break;
                }
                a = b;
                cap = nc;
            }
            cz_store_part *p = &a[c++];
            memset(p, 0, sizeof *p);
            p->idx = (uint32_t)sqlite3_column_int64(q, 0);
            p->state = (cz_part_state)sqlite3_column_int(q, 1);
            copy_text(p->witness, sizeof p->witness, sqlite3_column_text(q, 2));
            p->spooled = sqlite3_column_int(q, 3) != 0;
            p->attempts = (uint32_t)sqlite3_column_int64(q, 4);
            copy_text(p->owner, sizeof p->owner, sqlite3_column_text(q, 5));
            copy_text(p->error, sizeof p->error, sqlite3_column_text(q, 6));
            if (with_results) {
                p->proof_json = dup_col(q, 7, &oom);
                p->public_json = dup_col(q, 8, &oom);
                p->timings_json = dup_col(q, 9, &oom);
                const void *b = sqlite3_column_blob(q, 10);
                if (b && sqlite3_column_bytes(q, 10) == CZ_SQ_BIN) {
                    memcpy(p->proof_bin, b, CZ_SQ_BIN);
                    p->has_bin = 1;
                }
                if (oom) break;
            }
        }
        if (oom) {
            sqlite3_reset(q);
            r = cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory reading partitions of %s", s->path, id);
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (r != CZ_OK) {
        cz_store_parts_free(a, c);
        return r;
    }
    *parts = a;
    *n = c;
    return CZ_OK;
}

static cz_status sq_jobs_unfinished(cz_store *st, cz_store_job **out, size_t *n, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!out || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: jobs_unfinished: NULL argument", s->path);
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&s->mu);
    cz_status r = jobs_read_all(s, stmt(s, Q_UNFINISHED), out, n, err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

/* ---- claims and results ---------------------------------------------------- */

/* The partition as the fencing sees it; CZ_ERR_INVALID_ARG when missing. */
typedef struct fence {
    int state;
    uint32_t attempts;
    char owner[64];
    int has_result;
} fence;

static cz_status fence_read(cz_sq *s, const char *id, uint32_t idx, fence *f, cz_error *err)
{
    sqlite3_stmt *q = stmt(s, Q_PART_FENCE);
    if (bind_text(q, 1, id) || sqlite3_bind_int64(q, 2, idx)) return bind_err(s, q, err);
    cz_status st = CZ_OK;
    int k = next_row(s, q, "reading a partition", &st, err);
    if (k < 0) return st;
    if (k == 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job %s has no partition %u", s->path, id, idx);
    f->state = sqlite3_column_int(q, 0);
    f->attempts = (uint32_t)sqlite3_column_int64(q, 1);
    copy_text(f->owner, sizeof f->owner, sqlite3_column_text(q, 2));
    f->has_result = sqlite3_column_int(q, 3) != 0;
    sqlite3_reset(q);
    return CZ_OK;
}

/* CZ_OK when (owner, attempt) is the current claim of a running partition
 * without a result. */
static cz_status fence_check(cz_sq *s, const char *id, uint32_t idx, const char *owner, uint32_t attempt,
                             const char *what, cz_error *err)
{
    fence f;
    cz_status r = fence_read(s, id, idx, &f, err);
    if (r != CZ_OK) return r;
    if (f.state != CZ_PART_RUNNING)
        return cz_error_set(err, CZ_ERR_MISMATCH, "store %s: %s of job %s partition %u refused: it is %s, not running",
                            s->path, what, id, idx, cz_part_state_name((cz_part_state)f.state));
    if (f.attempts != attempt || strcmp(f.owner, owner))
        return cz_error_set(err, CZ_ERR_MISMATCH,
                            "store %s: %s of job %s partition %u refused: attempt %u by '%s' is not the current "
                            "claim (attempt %u by '%s')",
                            s->path, what, id, idx, attempt, owner, f.attempts, f.owner);
    if (f.has_result)
        return cz_error_set(err, CZ_ERR_MISMATCH, "store %s: %s of job %s partition %u refused: a result is stored",
                            s->path, what, id, idx);
    return CZ_OK;
}

static cz_status claim_locked(cz_sq *s, const char *id, uint32_t idx, const char *owner, uint32_t *attempt,
                              cz_error *err)
{
    fence f;
    cz_status r = fence_read(s, id, idx, &f, err);
    if (r != CZ_OK) return r;
    if (f.state != CZ_PART_QUEUED)
        return cz_error_set(err, CZ_ERR_MISMATCH, "store %s: claim of job %s partition %u refused: it is %s, not queued",
                            s->path, id, idx, cz_part_state_name((cz_part_state)f.state));
    sqlite3_stmt *q = stmt(s, Q_CLAIM_PART);
    int ch = 0;
    if (bind_text(q, 1, id) || sqlite3_bind_int64(q, 2, idx) || bind_text(q, 3, owner)) return bind_err(s, q, err);
    if ((r = run(s, q, "claiming a partition", &ch, err)) != CZ_OK) return r;
    if (ch != 1) return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: claim of job %s partition %u changed %d rows",
                                     s->path, id, idx, ch);
    q = stmt(s, Q_CLAIM_JOB);
    if (bind_text(q, 1, id) || sqlite3_bind_double(q, 2, now_s())) return bind_err(s, q, err);
    if ((r = run(s, q, "starting a job", NULL, err)) != CZ_OK) return r;
    *attempt = f.attempts + 1;
    return CZ_OK;
}

static int owner_ok(const char *owner)
{
    return owner && strnlen(owner, 64) < 64;
}

static cz_status sq_claim(cz_store *st, const char *id, uint32_t idx, const char *owner, uint32_t *attempt,
                          cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!text_ok(id, CZ_STORE_ID_MAX) || !owner_ok(owner) || !attempt)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: claim: a job id, an owner (< 64 bytes) and attempt "
                            "expected", s->path);
    uint32_t a = 0;
    pthread_mutex_lock(&s->mu);
    cz_status r = tx_begin(s, err);
    if (r == CZ_OK) r = tx_end(s, claim_locked(s, id, idx, owner, &a, err), err);
    pthread_mutex_unlock(&s->mu);
    if (r == CZ_OK) *attempt = a;
    return r;
}

static cz_status sq_heartbeat(cz_store *st, const char *owner, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!owner_ok(owner)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: heartbeat: bad owner", s->path);
    return CZ_OK; /* one host: nobody takes its claims over */
}

static cz_status complete_locked(cz_sq *s, const char *id, uint32_t idx, const char *owner, uint32_t attempt,
                                 const cz_store_part *res, int *done, cz_error *err)
{
    cz_status r = fence_check(s, id, idx, owner, attempt, "result", err);
    if (r != CZ_OK) return r;
    sqlite3_stmt *q = stmt(s, Q_COMPLETE_PART);
    int ch = 0;
    if (bind_text(q, 1, id) || sqlite3_bind_int64(q, 2, idx) || bind_text(q, 3, owner) ||
        sqlite3_bind_int64(q, 4, attempt) || bind_text(q, 5, res->proof_json) || bind_text(q, 6, res->public_json) ||
        bind_text_or_null(q, 7, res->timings_json) ||
        (res->has_bin ? sqlite3_bind_blob(q, 8, res->proof_bin, CZ_SQ_BIN, SQLITE_STATIC) : sqlite3_bind_null(q, 8)))
        return bind_err(s, q, err);
    if ((r = run(s, q, "storing a result", &ch, err)) != CZ_OK) return r;
    if (ch != 1) return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: result of job %s partition %u changed %d rows",
                                     s->path, id, idx, ch);
    q = stmt(s, Q_JOB_DONE_IF_ALL);
    if (bind_text(q, 1, id) || sqlite3_bind_double(q, 2, now_s())) return bind_err(s, q, err);
    return run(s, q, "finishing a job", done, err);
}

static cz_status sq_complete(cz_store *st, const char *id, uint32_t idx, const char *owner, uint32_t attempt,
                             const cz_store_part *result, int *job_done, cz_error *err)
{
    if (job_done) *job_done = 0;
    cz_sq *s = ctx_of(st);
    if (!text_ok(id, CZ_STORE_ID_MAX) || !owner_ok(owner))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: complete: a job id and an owner expected", s->path);
    if (!result || !result->proof_json || !result->public_json)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "store %s: complete: job %s partition %u: a result needs proof_json and public_json",
                            s->path, id, idx);
    pthread_mutex_lock(&s->mu);
    cz_status r = tx_begin(s, err);
    int done = 0;
    if (r == CZ_OK) r = tx_end(s, complete_locked(s, id, idx, owner, attempt, result, &done, err), err);
    if (r == CZ_OK && job_done) *job_done = done;
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status fail_locked(cz_sq *s, const char *id, uint32_t idx, const char *owner, uint32_t attempt, int requeue,
                             const char *code, const char *msg, cz_error *err)
{
    cz_status r = fence_check(s, id, idx, owner, attempt, requeue ? "requeue" : "failure", err);
    if (r != CZ_OK) return r;
    sqlite3_stmt *q = stmt(s, requeue ? Q_REQUEUE_PART : Q_FAIL_PART);
    int ch = 0;
    if (bind_text(q, 1, id) || sqlite3_bind_int64(q, 2, idx) || bind_text(q, 3, owner) ||
        sqlite3_bind_int64(q, 4, attempt) || bind_text(q, 5, msg))
        return bind_err(s, q, err);
    if ((r = run(s, q, "recording a failure", &ch, err)) != CZ_OK) return r;
    if (ch != 1) return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: failure of job %s partition %u changed %d rows",
                                     s->path, id, idx, ch);
    if (requeue) {
        q = stmt(s, Q_JOB_QUEUED_IF_IDLE);
        if (bind_text(q, 1, id)) return bind_err(s, q, err);
        return run(s, q, "requeueing a job", NULL, err);
    }
    q = stmt(s, Q_FAIL_JOB);
    if (bind_text(q, 1, id) || bind_text(q, 2, code) || bind_text(q, 3, msg) || sqlite3_bind_double(q, 4, now_s()))
        return bind_err(s, q, err);
    if ((r = run(s, q, "failing a job", NULL, err)) != CZ_OK) return r;
    q = stmt(s, Q_CANCEL_QUEUED);
    if (bind_text(q, 1, id)) return bind_err(s, q, err);
    return run(s, q, "cancelling the queued partitions of a failed job", NULL, err);
}

static cz_status sq_fail(cz_store *st, const char *id, uint32_t idx, const char *owner, uint32_t attempt, int requeue,
                         const char *code, const char *msg, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!text_ok(id, CZ_STORE_ID_MAX) || !owner_ok(owner))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: fail: a job id and an owner expected", s->path);
    pthread_mutex_lock(&s->mu);
    cz_status r = tx_begin(s, err);
    if (r == CZ_OK) r = tx_end(s, fail_locked(s, id, idx, owner, attempt, requeue, code, msg, err), err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

/* ---- cancel, fetched, delete, expiry, recovery ------------------------------ */

/* the state of job id in *state; CZ_ERR_INVALID_ARG when missing and
 * !missing_ok, *state = -1 when missing and missing_ok */
static cz_status job_state_locked(cz_sq *s, const char *id, int missing_ok, int *state, cz_error *err)
{
    sqlite3_stmt *q = stmt(s, Q_JOB_STATE);
    if (bind_text(q, 1, id)) return bind_err(s, q, err);
    cz_status st = CZ_OK;
    int k = next_row(s, q, "reading a job", &st, err);
    if (k < 0) return st;
    if (k == 0) {
        *state = -1;
        return missing_ok ? CZ_OK : cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: no job %s", s->path, id);
    }
    *state = sqlite3_column_int(q, 0);
    sqlite3_reset(q);
    return CZ_OK;
}

static cz_status cancel_locked(cz_sq *s, const char *id, int *changed, cz_error *err)
{
    int state;
    cz_status r = job_state_locked(s, id, 0, &state, err);
    if (r != CZ_OK || cz_job_state_final((cz_job_state)state)) return r;
    sqlite3_stmt *q = stmt(s, Q_CANCEL_JOB);
    if (bind_text(q, 1, id) || sqlite3_bind_double(q, 2, now_s())) return bind_err(s, q, err);
    if ((r = run(s, q, "cancelling a job", NULL, err)) != CZ_OK) return r;
    q = stmt(s, Q_CANCEL_PARTS);
    if (bind_text(q, 1, id)) return bind_err(s, q, err);
    if ((r = run(s, q, "cancelling partitions", NULL, err)) != CZ_OK) return r;
    *changed = 1;
    return CZ_OK;
}

static cz_status sq_cancel(cz_store *st, const char *id, int *changed, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    int ch = 0;
    if (changed) *changed = 0;
    if (!text_ok(id, CZ_STORE_ID_MAX)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: cancel: bad job id", s->path);
    pthread_mutex_lock(&s->mu);
    cz_status r = tx_begin(s, err);
    if (r == CZ_OK) r = tx_end(s, cancel_locked(s, id, &ch, err), err);
    pthread_mutex_unlock(&s->mu);
    if (r == CZ_OK && changed) *changed = ch;
    return r;
}

static cz_status sq_mark_fetched(cz_store *st, const char *id, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!text_ok(id, CZ_STORE_ID_MAX))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: mark_fetched: bad job id", s->path);
    pthread_mutex_lock(&s->mu);
    sqlite3_stmt *q = stmt(s, Q_FETCHED);
    int ch = 0;
    cz_status r = bind_text(q, 1, id) ? bind_err(s, q, err) : run(s, q, "marking a job fetched", &ch, err);
    if (r == CZ_OK && ch == 0) r = cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: no job %s", s->path, id);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status delete_locked(cz_sq *s, const char *id, cz_error *err)
{
    int state;
    cz_status r = job_state_locked(s, id, 1, &state, err);
    if (r != CZ_OK || state < 0) return r;
    if (!cz_job_state_final((cz_job_state)state))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job %s is %s: only a finished job can be deleted",
                            s->path, id, cz_job_state_name((cz_job_state)state));
    sqlite3_stmt *q = stmt(s, Q_DEL_PARTS);
    if (bind_text(q, 1, id)) return bind_err(s, q, err);
    if ((r = run(s, q, "deleting partitions", NULL, err)) != CZ_OK) return r;
    q = stmt(s, Q_DEL_JOB);
    if (bind_text(q, 1, id)) return bind_err(s, q, err);
    return run(s, q, "deleting a job", NULL, err);
}

static cz_status sq_job_delete(cz_store *st, const char *id, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!id) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: job_delete: NULL id", s->path);
    if (!text_ok(id, CZ_STORE_ID_MAX)) return CZ_OK; /* not there */
    pthread_mutex_lock(&s->mu);
    cz_status r = tx_begin(s, err);
    if (r == CZ_OK) r = tx_end(s, delete_locked(s, id, err), err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status sq_expired(cz_store *st, double before, int until_fetched, size_t max, cz_store_job **out, size_t *n,
                            cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!out || !n) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: expired: NULL argument", s->path);
    *out = NULL;
    *n = 0;
    if (max == 0) return CZ_OK;
    pthread_mutex_lock(&s->mu);
    sqlite3_stmt *q = stmt(s, Q_EXPIRED);
    cz_status r;
    if (sqlite3_bind_double(q, 1, before) || sqlite3_bind_int(q, 2, until_fetched != 0) ||
        sqlite3_bind_int64(q, 3, max > (size_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)max))
        r = bind_err(s, q, err);
    else
        r = jobs_read_all(s, q, out, n, err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static cz_status recover_locked(cz_sq *s, const char *owner, int *requeued, cz_error *err)
{
    /* running partitions of jobs that ended meanwhile have nothing to resume */
    sqlite3_stmt *q = stmt(s, Q_RECOVER_FINAL);
    cz_status r;
    if (bind_text(q, 1, owner)) return bind_err(s, q, err);
    if ((r = run(s, q, "recovering partitions of final jobs", NULL, err)) != CZ_OK) return r;
    q = stmt(s, Q_RECOVER_PARTS);
    if (bind_text(q, 1, owner)) return bind_err(s, q, err);
    if ((r = run(s, q, "requeueing running partitions", requeued, err)) != CZ_OK) return r;
    return run(s, stmt(s, Q_RECOVER_JOBS), "requeueing jobs", NULL, err);
}

static cz_status sq_recover(cz_store *st, const char *owner, uint64_t *requeued, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (requeued) *requeued = 0;
    if (!owner_ok(owner)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: recover: bad owner", s->path);
    int n = 0;
    pthread_mutex_lock(&s->mu);
    cz_status r = tx_begin(s, err);
    if (r == CZ_OK) r = tx_end(s, recover_locked(s, owner, &n, err), err);
    pthread_mutex_unlock(&s->mu);
    if (r == CZ_OK && requeued) *requeued = (uint64_t)n;
    return r;
}

static uint64_t file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

static cz_status counts_locked(cz_sq *s, cz_store_counts *out, cz_error *err)
{
    sqlite3_stmt *q = stmt(s, Q_COUNT_STATE);
    int k;
    cz_status st = CZ_OK;
    while ((k = next_row(s, q, "counting jobs", &st, err)) == 1) {
        int state = sqlite3_column_int(q, 0);
        if (state >= 0 && state < 5) out->jobs[state] = (uint64_t)sqlite3_column_int64(q, 1);
    }
    if (k < 0) return st;
    q = stmt(s, Q_COUNT_PRIO);
    while ((k = next_row(s, q, "counting jobs by priority", &st, err)) == 1) {
        int p = sqlite3_column_int(q, 0);
        if (p >= 0 && p < 4) out->queued_by_prio[p] = (uint64_t)sqlite3_column_int64(q, 1);
    }
    if (k < 0) return st;
    const char *f = sqlite3_db_filename(s->db, "main");
    if (!f || !*f) f = s->path;
    char wal[CZ_STORE_PATH_MAX + 8];
    snprintf(wal, sizeof wal, "%s-wal", f);
    out->bytes = file_bytes(f) + file_bytes(wal);
    return CZ_OK;
}

static cz_status sq_counts(cz_store *st, cz_store_counts *out, cz_error *err)
{
    cz_sq *s = ctx_of(st);
    if (!out) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store %s: counts: NULL argument", s->path);
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&s->mu);
    cz_status r = counts_locked(s, out, err);
    pthread_mutex_unlock(&s->mu);
    return r;
}

/* ---- open and close -------------------------------------------------------------- */

static void sq_free(cz_sq *s)
{
    for (int i = 0; i < Q_COUNT_; i++) sqlite3_finalize(s->q[i]);
    if (s->db) sqlite3_close(s->db);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static void sq_close(cz_store *st)
{
    if (!st) return;
    sq_free(ctx_of(st));
}

static const cz_store_ops cz_sq_ops = {
    /* .name = */ "sqlite",
    /* .shared = */ 0,
    /* .key_put = */ sq_key_put,
    /* .key_get = */ sq_key_get,
    /* .key_delete = */ sq_key_delete,
    /* .key_list = */ sq_key_list,
    /* .submit = */ sq_submit,
    /* .job_get = */ sq_job_get,
    /* .parts_get = */ sq_parts_get,
    /* .jobs_unfinished = */ sq_jobs_unfinished,
    /* .claim = */ sq_claim,
    /* .heartbeat = */ sq_heartbeat,
    /* .complete = */ sq_complete,
    /* .fail = */ sq_fail,
    /* .cancel = */ sq_cancel,
    /* .mark_fetched = */ sq_mark_fetched,
    /* .job_delete = */ sq_job_delete,
    /* .expired = */ sq_expired,
    /* .recover = */ sq_recover,
    /* .counts = */ sq_counts,
    /* .close = */ sq_close,
    /* .claim_next = */ NULL,
    /* .lease_renew = */ NULL,
    /* .lease_expire = */ NULL,
    /* .hosts = */ NULL,
    /* .wait_hint = */ NULL,
    /* .healthy = */ NULL,
};

/* runs one static SQL text (no values in it) */
static cz_status exec_sql(cz_sq *s, const char *sql, const char *what, cz_error *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc == SQLITE_OK) return CZ_OK;
    cz_status st = cz_error_set(err, status_of(rc), "store %s: %s: %s", s->path, what, msg ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
    return st;
}

/* a one-shot statement; its first column of its first row as text into
 * buf (may be NULL) */
static cz_status query_once(cz_sq *s, const char *sql, int bind_int, sqlite3_int64 v, char *buf, size_t cap,
                            int *row, cz_error *err)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK) return db_err(s, err, "preparing a statement");
    if (bind_int && sqlite3_bind_int64(q, 1, v) != SQLITE_OK) {
        cz_status st = db_err(s, err, "binding a value");
        sqlite3_finalize(q);
        return st;
    }
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        cz_status st = db_err(s, err, sql);
        sqlite3_finalize(q);
        return st;
    }
    if (row) *row = rc == SQLITE_ROW;
    if (buf) copy_text(buf, cap, rc == SQLITE_ROW ? sqlite3_column_text(q, 0) : NULL);
    sqlite3_finalize(q);
    return CZ_OK;
}

static cz_status migrate_end(cz_sq *s, cz_status st, cz_error *err)
{
    if (st == CZ_OK) st = exec_sql(s, "COMMIT", "COMMIT", err);
    if (st != CZ_OK && !sqlite3_get_autocommit(s->db)) (void)exec_sql(s, "ROLLBACK", "ROLLBACK", NULL);
    return st;
}

/* Brings the schema to CZ_SQ_VERSION, one step per transaction. */
static cz_status migrate(cz_sq *s, cz_error *err)
{
    for (;;) {
        cz_status st = exec_sql(s, "BEGIN IMMEDIATE", "BEGIN", err);
        if (st != CZ_OK) return st;
        st = exec_sql(s,
                      "CREATE TABLE IF NOT EXISTS schema_version ("
                      "  id INTEGER PRIMARY KEY CHECK (id = 1),"
                      "  version INTEGER NOT NULL);"
                      "INSERT INTO schema_version (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;",
                      "creating schema_version", err);
        char buf[32] = "";
        int row = 0;
        if (st == CZ_OK)
            st = query_once(s, "SELECT version FROM schema_version WHERE id = 1", 0, 0, buf, sizeof buf, &row, err);
        if (st != CZ_OK) return migrate_end(s, st, err);
        long v = row ? strtol(buf, NULL, 10) : 0;
        if (v > CZ_SQ_VERSION)
            return migrate_end(s,
                               cz_error_set(err, CZ_ERR_UNSUPPORTED,
                                            "store %s: the database has schema version %ld, this cuzkd knows "
                                            "versions up to %d (a newer cuzkd wrote it); refusing to open it",
                                            s->path, v, CZ_SQ_VERSION),
                               err);
        if (v < 0)
            return migrate_end(s, cz_error_set(err, CZ_ERR_FORMAT, "store %s: schema version %ld", s->path, v), err);
        if (v == CZ_SQ_VERSION) return migrate_end(s, CZ_OK, err);
        char what[64];
        snprintf(what, sizeof what, "schema migration %ld -> %ld", v, v + 1);
        st = exec_sql(s, cz_sq_steps[v], what, err);
        if (st == CZ_OK)
            st = query_once(s, "UPDATE schema_version SET version = ?1 WHERE id = 1", 1, v + 1, NULL, 0, NULL, err);
        if ((st = migrate_end(s, st, err)) != CZ_OK) return st;
    }
}

static cz_status open_db(cz_sq *s, cz_error *err)
{
    int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return cz_error_set(err, CZ_ERR_IO, "store %s: cannot open: %s", s->path,
                            s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    sqlite3_busy_timeout(s->db, CZ_SQ_BUSY_MS);
    char mode[16] = "";
    cz_status st = query_once(s, "PRAGMA journal_mode = WAL", 0, 0, mode, sizeof mode, NULL, err);
    if (st != CZ_OK) return st;
    if (strcmp(mode, "wal"))
        return cz_error_set(err, CZ_ERR_IO, "store %s: journal_mode = WAL refused (the journal mode is '%s')", s->path,
                            mode);
    if ((st = exec_sql(s, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;", "setting pragmas", err)) != CZ_OK)
        return st;
    char fk[8] = "";
    if ((st = query_once(s, "PRAGMA foreign_keys", 0, 0, fk, sizeof fk, NULL, err)) != CZ_OK) return st;
    if (strcmp(fk, "1")) return cz_error_set(err, CZ_ERR_UNSUPPORTED, "store %s: foreign keys cannot be enabled", s->path);
    if ((st = migrate(s, err)) != CZ_OK) return st;
    for (int i = 0; i < Q_COUNT_; i++)
        if (sqlite3_prepare_v3(s->db, cz_sq_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->q[i], NULL) != SQLITE_OK)
            return db_err(s, err, "preparing the statements");
    return CZ_OK;
}

cz_status cz_store_sqlite_open(cz_store **out, const char *path, cz_error *err)
{
    if (!out) return cz_error_set(err, CZ_ERR_INVALID_ARG, "store: NULL output");
    *out = NULL;
    if (!text_ok(path, CZ_STORE_PATH_MAX))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "store: a database path (1..%d bytes) expected",
                            CZ_STORE_PATH_MAX - 1);
    if (!sqlite3_threadsafe())
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "store %s: SQLite is built without thread support", path);
    cz_sq *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: out of memory", path);
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "store %s: cannot create a mutex", path);
    }
    memcpy(s->path, path, strlen(path) + 1);
    s->pub.ops = &cz_sq_ops;
    s->pub.ctx = s;
    cz_status st = open_db(s, err);
    if (st != CZ_OK) {
        sq_free(s);
        return st;
    }
    *out = &s->pub;
    return CZ_OK;
}
