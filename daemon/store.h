/*
 * daemon/store: the daemon's durable job store, behind one interface.
 *
 * DESIGN: everything the daemon accepted lives here, so that a crash or a
 * restart loses nothing: registered keys, jobs (key, priority class,
 * idempotency key and a hash of the request), their partitions (witness
 * file, state, attempts, owner) and, once proved, each partition's results
 * (proof.json and public.json text, the 192-byte bellperson proof on
 * BLS12-381, the stage timings as JSON). The witness bytes themselves are
 * files in the spool (daemon/spool.h); the store holds their paths.
 *
 * A job is accepted when cz_store_submit returns CZ_OK: the row and its
 * partitions are committed (durably: SQLite in WAL mode with synchronous =
 * FULL). Partitions move queued -> running (claim) -> done | failed; a job
 * is done when every partition is, failed when one failed, cancelled when
 * cancelled. On restart cz_store_recover puts every running partition back
 * to queued (its work was lost with the process) and the daemon proves
 * what is queued; a done partition is never proved again.
 *
 * Claims carry an owner (the host) and an attempt number; a result is
 * accepted only from the current owner and attempt (a fencing check: a
 * late writer from an earlier attempt is refused with CZ_ERR_MISMATCH and
 * writes nothing), and a result is written at most once. A heartbeat
 * renews the owner's leases; a single host (SQLite) has no competitors, a
 * PostgreSQL implementation uses the same calls to share work between
 * hosts.
 *
 * Implementations: cz_store_sqlite_open (daemon/store_sqlite.c), one host;
 * cz_store_pg_open (daemon/store_pg.c), a PostgreSQL database that several
 * hosts share (ops->shared = 1). A shared store also has the members marked
 * "shared" below (NULL in a store of one host): hosts pull work with
 * claim_next, a lease_renew heartbeat keeps what they hold, lease_expire
 * takes back what a silent host held, hosts lists them. Every function is
 * thread-safe; errors come back as a cz_status with a message (the
 * database's own text included).
 */
#ifndef CZ_DAEMON_STORE_H
#define CZ_DAEMON_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define CZ_STORE_ID_MAX 40    /* ids: "k_" / "j_" + hex */
#define CZ_STORE_IDEM_MAX 128 /* idempotency keys */
#define CZ_STORE_PATH_MAX 4200

typedef enum cz_job_state {
    CZ_JOB_QUEUED = 0, /* accepted, no partition started */
    CZ_JOB_RUNNING,    /* a partition started */
    CZ_JOB_DONE,       /* every partition proved */
    CZ_JOB_FAILED,     /* a partition failed (error_code, error) */
    CZ_JOB_CANCELLED,
} cz_job_state;

typedef enum cz_part_state {
    CZ_PART_QUEUED = 0,
    CZ_PART_RUNNING,
    CZ_PART_DONE,
    CZ_PART_FAILED,
    CZ_PART_CANCELLED,
} cz_part_state;

const char *cz_job_state_name(cz_job_state s);   /* "queued", "running", "done", "failed", "cancelled" */
const char *cz_part_state_name(cz_part_state s);
int cz_job_state_final(cz_job_state s);          /* done, failed or cancelled */

typedef struct cz_store_key {
    char id[CZ_STORE_ID_MAX];
    char path[CZ_STORE_PATH_MAX]; /* canonical (realpath) */
    double created;
} cz_store_key;

typedef struct cz_store_job {
    char id[CZ_STORE_ID_MAX];
    char key_id[CZ_STORE_ID_MAX];
    char priority[16];  /* class: critical, high, normal, low */
    cz_job_state state;
    uint32_t n_parts;
    uint32_t parts_done, parts_failed; /* filled by the store on reads */
    double created, started, finished; /* unix seconds; 0: not yet */
    char idem_key[CZ_STORE_IDEM_MAX];  /* "" when none */
    char idem_hash[72];                /* hash of the request the key came with */
    char error_code[32];               /* failed: "unsatisfied", "input", "device", ... */
    char error[512];
    int fetched;                       /* a result was downloaded */
} cz_store_job;

typedef struct cz_store_part {
    uint32_t idx;
    cz_part_state state;
    char witness[CZ_STORE_PATH_MAX]; /* the .wtns file */
    int spooled;                     /* 1: in the spool (deleted with the job) */
    uint32_t attempts;
    char owner[64];                  /* host that claimed it last */
    /* results (done): malloc'ed by reads, NULL otherwise */
    char *proof_json, *public_json, *timings_json;
    uint8_t proof_bin[192];
    int has_bin;
    char error[512];
} cz_store_part;

void cz_store_parts_free(cz_store_part *parts, size_t n);

/* What the daemon's status and metrics show. */
typedef struct cz_store_counts {
    uint64_t jobs[5];         /* by cz_job_state */
    uint64_t queued_by_prio[4]; /* queued or running jobs by class: critical, high, normal, low */
    uint64_t bytes;           /* the database's size on disk */
} cz_store_counts;

/* A partition claimed by claim_next (or held, in lease_renew's answer). */
typedef struct cz_store_claim {
    char job_id[CZ_STORE_ID_MAX];
    uint32_t idx;
    uint32_t attempt;
    char key_id[CZ_STORE_ID_MAX];
    char priority[16];
    uint32_t n_parts;
    char witness[CZ_STORE_PATH_MAX];
} cz_store_claim;

/* A host of a shared store, as its heartbeat left it. */
typedef struct cz_store_host {
    char id[64];
    double heartbeat;    /* unix seconds, the database's clock */
    double age_s;        /* since that heartbeat, the database's clock */
    double started;
    char devices[256];
    char version[32];
    uint32_t running;    /* partitions it holds */
    uint64_t done;       /* partitions it proved since it started */
} cz_store_host;

typedef struct cz_store cz_store;

typedef struct cz_store_ops {
    const char *name; /* "sqlite", "postgres" */
    int shared;       /* 1: several hosts share it (the "shared" members are set) */
    /* keys */
    cz_status (*key_put)(cz_store *s, const cz_store_key *k, cz_error *err); /* insert or keep */
    cz_status (*key_get)(cz_store *s, const char *id, cz_store_key *out, int *found, cz_error *err);
    cz_status (*key_delete)(cz_store *s, const char *id, cz_error *err);
    cz_status (*key_list)(cz_store *s, cz_store_key **out, size_t *n, cz_error *err); /* malloc'ed */
    /* Accepts a job and its partitions in one transaction. With an
     * idempotency key already known: *existing = 1 and out = that job (no
     * change) when the hash matches, CZ_ERR_MISMATCH when it does not. */
    cz_status (*submit)(cz_store *s, const cz_store_job *j, const cz_store_part *parts, cz_store_job *out,
                        int *existing, cz_error *err);
    cz_status (*job_get)(cz_store *s, const char *id, cz_store_job *out, int *found, cz_error *err);
    /* parts: n_parts entries, results included when with_results */
    cz_status (*parts_get)(cz_store *s, const char *id, int with_results, cz_store_part **parts, size_t *n,
                           cz_error *err);
    /* Jobs not final (oldest first), for recovery and scheduling. */
    cz_status (*jobs_unfinished)(cz_store *s, cz_store_job **out, size_t *n, cz_error *err);
    /* Partition idx of job id to running by owner: its attempt number in
     * *attempt (1 on the first claim). CZ_ERR_MISMATCH when it is not
     * queued. The job becomes running. */
    cz_status (*claim)(cz_store *s, const char *id, uint32_t idx, const char *owner, uint32_t *attempt,
                       cz_error *err);
    /* Renews the leases of owner (no-op for one host). */
    cz_status (*heartbeat)(cz_store *s, const char *owner, cz_error *err);
    /* The results of a claimed partition, fenced by owner and attempt
     * (CZ_ERR_MISMATCH, nothing written, when they are not the current
     * ones or the partition is not running). When it was the last, the job
     * becomes done (finished now) and *job_done (may be NULL) is 1. */
    cz_status (*complete)(cz_store *s, const char *id, uint32_t idx, const char *owner, uint32_t attempt,
                          const cz_store_part *result, int *job_done, cz_error *err);
    /* The partition failed (fenced the same way): the job becomes failed
     * with code and message. requeue = 1 instead puts it back to queued
     * (a device error: another attempt). */
    cz_status (*fail)(cz_store *s, const char *id, uint32_t idx, const char *owner, uint32_t attempt, int requeue,
                      const char *code, const char *msg, cz_error *err);
    /* Cancels a job that is not final (its queued and running partitions
     * become cancelled). CZ_OK also when it was final already (*changed 0). */
    cz_status (*cancel)(cz_store *s, const char *id, int *changed, cz_error *err);
    cz_status (*mark_fetched)(cz_store *s, const char *id, cz_error *err);
    /* Removes a final job and its partitions. */
    cz_status (*job_delete)(cz_store *s, const char *id, cz_error *err);
    /* Final jobs finished before `before` (and fetched, when until_fetched),
     * oldest first, at most max of them (malloc'ed). until_fetched holds
     * back done jobs only: failed and cancelled ones have no result to
     * fetch and expire on time alone. */
    cz_status (*expired)(cz_store *s, double before, int until_fetched, size_t max, cz_store_job **out, size_t *n,
                         cz_error *err);
    /* Every running partition of owner back to queued (after a restart). */
    cz_status (*recover)(cz_store *s, const char *owner, uint64_t *requeued, cz_error *err);
    cz_status (*counts)(cz_store *s, cz_store_counts *out, cz_error *err);
    void (*close)(cz_store *s);

    /* ---- shared ---- */
    /* Claims up to max queued partitions for owner, in one transaction:
     * the highest priority class first, then those of the keys in prefer
     * (the ones this host has loaded), then the oldest; never those of the
     * keys in avoid (the ones this host cannot fit); rows another host is
     * claiming at the same moment are skipped, never waited for. Each
     * becomes running with attempt + 1 and a lease of the store's lease
     * time; its job becomes running. *n may be 0. */
    cz_status (*claim_next)(cz_store *s, const char *owner, const char *const *prefer, size_t n_prefer,
                            const char *const *avoid, size_t n_avoid, size_t max, cz_store_claim *out, size_t *n,
                            cz_error *err);
    /* The heartbeat of host h (its row in hosts updated): renews the lease
     * of every partition h->id holds and returns them (malloc'ed, may be
     * NULL with *n 0). A partition the caller holds that is not in the
     * answer was lost (taken over, cancelled, failed): its result would be
     * refused. */
    cz_status (*lease_renew)(cz_store *s, const cz_store_host *h, cz_store_claim **held, size_t *n, cz_error *err);
    /* Takes back the partitions whose lease ran out: queued again, or,
     * when they had max_attempts claims, failed with their last error
     * (their job with them). Counts in *requeued and *failed. */
    cz_status (*lease_expire)(cz_store *s, uint32_t max_attempts, uint64_t *requeued, uint64_t *failed,
                              cz_error *err);
    /* The hosts seen (heartbeat within the last hour), by id (malloc'ed). */
    cz_status (*hosts)(cz_store *s, cz_store_host **out, size_t *n, cz_error *err);
    /* Waits up to timeout_s for a hint that there is work (new or
     * requeued partitions: bit 1) or a job ended (bit 2); 0 on timeout.
     * Only a hint (polling is the truth): the caller polls anyway. */
    int (*wait_hint)(cz_store *s, double timeout_s);
    /* 1 when the database answered the last call; 0 with the reason in
     * msg while it does not (calls retry with back-off meanwhile). */
    int (*healthy)(cz_store *s, char *msg, size_t cap);
} cz_store_ops;

struct cz_store {
    const cz_store_ops *ops;
    void *ctx;
};

/* Opens (creating and migrating the schema) the SQLite store at path. */
cz_status cz_store_sqlite_open(cz_store **out, const char *path, cz_error *err);
/* Opens (creating and migrating the schema) the PostgreSQL store at url (a
 * libpq connection URL or keyword string), leases of lease_s seconds.
 * CZ_ERR_UNSUPPORTED when cuzkd was built without libpq. */
cz_status cz_store_pg_open(cz_store **out, const char *url, double lease_s, cz_error *err);
/* 1 when text names a PostgreSQL store (postgres:// or postgresql://). */
int cz_store_is_pg_url(const char *text);
void cz_store_close(cz_store *s);

#endif
