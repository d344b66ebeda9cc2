/*
 * daemon/spool: witness files uploaded to the daemon, on disk.
 *
 * DESIGN: an upload is streamed into a temporary file of <dir>/tmp/ as it
 * arrives (never held in memory whole), hashed on the way (SHA-256, for the
 * idempotency check); cz_spool_finish fsyncs it. When the request is
 * accepted, cz_spool_commit moves the files of one job to <dir>/<job id>/
 * (named 0.wtns, 1.wtns, ... by partition) and fsyncs the files' directory
 * and the spool, so that the paths the store records exist after a crash.
 * A job's directory is removed when the job ends (its results are in the
 * store) or is deleted. On start, cz_spool_open empties tmp/ (uploads of
 * requests that were never accepted) and cz_spool_gc removes job
 * directories the store does not know (a crash between the move and the
 * commit of the store). In a shared spool each job directory holds an empty
 * ".by-HOST", so that a host started again can tell its own from the others'
 * (whose commits may be in progress).
 *
 * The spool counts its bytes (committed plus uploads in progress) so the
 * daemon can refuse uploads past its limit. Thread-safe.
 */
#ifndef CZ_DAEMON_SPOOL_H
#define CZ_DAEMON_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct cz_spool cz_spool;

/* An upload in progress (owned by one request). */
typedef struct cz_spool_file {
    cz_spool *spool;
    int fd;
    char tmp[4200];
    uint64_t bytes;
    void *hash;       /* running SHA-256 */
    uint8_t sha256[32]; /* after cz_spool_finish */
} cz_spool_file;

cz_status cz_spool_open(cz_spool **out, const char *dir, cz_error *err);
/* The same, for a spool directory that several hosts share: this host's
 * uploads in progress go to <dir>/tmp-HOST/ (emptied at open; the other
 * hosts' are theirs), and the job directories are everyone's. */
cz_status cz_spool_open_host(cz_spool **out, const char *dir, const char *host, cz_error *err);
void cz_spool_close(cz_spool *s);
const char *cz_spool_dir(const cz_spool *s);

cz_status cz_spool_begin(cz_spool *s, cz_spool_file *f, cz_error *err);
cz_status cz_spool_write(cz_spool_file *f, const void *data, size_t n, cz_error *err);
/* fsync + close; the hash in f->sha256. */
cz_status cz_spool_finish(cz_spool_file *f, cz_error *err);
/* Removes the temporary (any state; idempotent). */
void cz_spool_abort(cz_spool_file *f);

/* Moves n finished uploads to <dir>/<job>/<i>.wtns (paths[i] gets each
 * path) and makes that durable. On failure nothing of the job's directory
 * is left and the uploads stay where they were (the caller aborts them). */
cz_status cz_spool_commit(cz_spool *s, const char *job, cz_spool_file *files, size_t n, char (*paths)[4200],
                          cz_error *err);
/* In a shared spool: 1 when the job's directory was made by this host
 * (cz_spool_commit leaves an empty ".by-HOST" in it), with *made the time it
 * did (seconds since the epoch); 0 for another host's, in a spool of one host,
 * or when there is no such directory. */
int cz_spool_job_ours(cz_spool *s, const char *job, double *made);
/* Removes the directory of a job (no-op when there is none). */
void cz_spool_remove_job(cz_spool *s, const char *job);
/* Removes every job directory for which keep(ctx, name) is 0. */
void cz_spool_gc(cz_spool *s, int (*keep)(void *ctx, const char *job), void *ctx);

uint64_t cz_spool_bytes(cz_spool *s);

#endif
