/* daemon/spool: uploaded witness files on disk (contract in spool.h). */
#include "daemon/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/rng.h"

struct cz_spool {
    char dir[4096];
    char tmpname[80]; /* "tmp", or "tmp-HOST" in a shared spool */
    char mark[80];    /* "", or ".by-HOST" in a shared spool: the job directories this host made */
    pthread_mutex_t mu;
    uint64_t bytes;
};

static void add_bytes(cz_spool *s, int64_t d)
{
    pthread_mutex_lock(&s->mu);
    if (d < 0 && (uint64_t)-d > s->bytes)
        s->bytes = 0;
    else
        s->bytes += (uint64_t)d;
    pthread_mutex_unlock(&s->mu);
}

static int fsync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int mkdir_p1(const char *path)
{
    if (mkdir(path, 0700) == 0 || errno == EEXIST) return 0;
    return -1;
}

/* out = a "/" b; 0 when it does not fit (a cut path would name another file) */
static int join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s/%s", a, b);
    return n >= 0 && (size_t)n < cap;
}

/* Removes every file of dir and dir itself; the bytes removed. */
static uint64_t remove_dir(const char *dir)
{
    uint64_t bytes = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[4400];
        struct stat st;
        if (!join(p, sizeof p, dir, e->d_name)) continue;
        if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) bytes += (uint64_t)st.st_size;
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
    return bytes;
}

/* bytes of the regular files of dir (one level) */
static uint64_t dir_bytes(const char *dir)
{
    uint64_t bytes = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[4400];
        struct stat st;
        if (join(p, sizeof p, dir, e->d_name) && lstat(p, &st) == 0 && S_ISREG(st.st_mode)) bytes += (uint64_t)st.st_size;
    }
    closedir(d);
    return bytes;
}

static int is_tmp(const char *name)
{
    return !strncmp(name, "tmp", 3);
}

/* a job directory's name: one path component, not tmp* nor hidden */
static int job_name_ok(const char *job)
{
    return job && *job && !strchr(job, '/') && !is_tmp(job) && job[0] != '.';
}

cz_status cz_spool_open(cz_spool **out, const char *dir, cz_error *err)
{
    return cz_spool_open_host(out, dir, NULL, err);
}

cz_status cz_spool_open_host(cz_spool **out, const char *dir, const char *host, cz_error *err)
{
    *out = NULL;
    if (host && (!*host || strchr(host, '/') || host[0] == '.' || strlen(host) > 64))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "spool %s: host name '%s' cannot name a directory", dir, host);
    cz_spool *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_ERR_NO_MEMORY, "spool: out of memory");
    if (host) {
        snprintf(s->tmpname, sizeof s->tmpname, "tmp-%s", host);
        snprintf(s->mark, sizeof s->mark, ".by-%s", host);
    } else
        snprintf(s->tmpname, sizeof s->tmpname, "tmp");
    if (snprintf(s->dir, sizeof s->dir, "%s", dir) >= (int)sizeof s->dir) {
        free(s);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "spool %s: path too long", dir);
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/%s", s->dir, s->tmpname);
    if (mkdir_p1(s->dir) != 0 || mkdir_p1(tmp) != 0) {
        cz_status st = cz_error_set(err, CZ_ERR_IO, "spool %s: cannot create it: %s", s->dir, strerror(errno));
        free(s);
        return st;
    }
    /* uploads of requests that were never accepted */
    remove_dir(tmp);
    if (mkdir_p1(tmp) != 0) {
        cz_status st = cz_error_set(err, CZ_ERR_IO, "spool %s: cannot create it: %s", tmp, strerror(errno));
        free(s);
        return st;
    }
    pthread_mutex_init(&s->mu, NULL);
    DIR *d = opendir(s->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || is_tmp(e->d_name)) continue;
            char p[4400];
            snprintf(p, sizeof p, "%s/%s", s->dir, e->d_name);
            s->bytes += dir_bytes(p);
        }
        closedir(d);
    }
    *out = s;
    return CZ_OK;
}

void cz_spool_close(cz_spool *s)
{
    if (!s) return;
    pthread_mutex_destroy(&s->mu);
    free(s);
}

const char *cz_spool_dir(const cz_spool *s) { return s->dir; }

uint64_t cz_spool_bytes(cz_spool *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t b = s->bytes;
    pthread_mutex_unlock(&s->mu);
    return b;
}

cz_status cz_spool_begin(cz_spool *s, cz_spool_file *f, cz_error *err)
{
    memset(f, 0, sizeof *f);
    f->spool = s;
    f->fd = -1;
    uint8_t r[8];
    cz_status st = cz_os_random(r, sizeof r);
    if (st != CZ_OK) return cz_error_set(err, st, "spool: the OS random source failed");
    snprintf(f->tmp, sizeof f->tmp, "%s/%s/up-%02x%02x%02x%02x%02x%02x%02x%02x", s->dir, s->tmpname, r[0], r[1], r[2], r[3],
             r[4], r[5], r[6], r[7]);
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (f->fd < 0) return cz_error_set(err, CZ_ERR_IO, "spool: cannot create %s: %s", f->tmp, strerror(errno));
    gnutls_hash_hd_t h;
    if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0) {
        cz_spool_abort(f);
        return cz_error_set(err, CZ_ERR_INTERNAL, "spool: SHA-256 is not available");
    }
    f->hash = h;
    return CZ_OK;
}

cz_status cz_spool_write(cz_spool_file *f, const void *data, size_t n, cz_error *err)
{
    const uint8_t *p = data;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(f->fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            return cz_error_set(err, CZ_ERR_IO, "spool: writing %s: %s", f->tmp, strerror(errno));
        }
        p += w;
        left -= (size_t)w;
    }
    gnutls_hash((gnutls_hash_hd_t)f->hash, data, n);
    f->bytes += n;
    add_bytes(f->spool, (int64_t)n);
    return CZ_OK;
}

cz_status cz_spool_finish(cz_spool_file *f, cz_error *err)
{
    if (f->hash) {
        gnutls_hash_deinit((gnutls_hash_hd_t)f->hash, f->sha256);
        f->hash = NULL;
    }
    if (f->fd < 0) return CZ_OK;
    int rc = fsync(f->fd);
    int e = errno;
    rc |= close(f->fd);
    f->fd = -1;
    if (rc != 0) return cz_error_set(err, CZ_ERR_IO, "spool: syncing %s: %s", f->tmp, strerror(e));
    return CZ_OK;
}

void cz_spool_abort(cz_spool_file *f)
{
    if (!f || !f->spool) return;
    if (f->hash) {
        gnutls_hash_deinit((gnutls_hash_hd_t)f->hash, NULL);
        f->hash = NULL;
    }
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->tmp[0] && unlink(f->tmp) == 0) add_bytes(f->spool, -(int64_t)f->bytes);
    f->tmp[0] = '\0';
    f->bytes = 0;
}

cz_status cz_spool_commit(cz_spool *s, const char *job, cz_spool_file *files, size_t n, char (*paths)[4200],
                          cz_error *err)
{
    char dir[4200];
    if (!join(dir, sizeof dir - 32, s->dir, job)) /* room for "/<n>.wtns" */
        return cz_error_set(err, CZ_ERR_IO, "spool: the job directory of %s under %s is too long a path", job, s->dir);
    if (mkdir(dir, 0700) != 0) return cz_error_set(err, CZ_ERR_IO, "spool: cannot create %s: %s", dir, strerror(errno));
    char mark[4300] = "";
    if (s->mark[0]) { /* empty: its name says whose (cz_spool_job_ours) */
        int fd = -1;
        if (join(mark, sizeof mark, dir, s->mark)) fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            int e = errno;
            rmdir(dir);
            return cz_error_set(err, CZ_ERR_IO, "spool: cannot create %s/%s: %s", dir, s->mark, strerror(e));
        }
        close(fd);
    }
    size_t moved = 0;
    for (; moved < n; moved++) {
        char name[32];
        snprintf(name, sizeof name, "%zu.wtns", moved);
        if (!join(paths[moved], sizeof paths[moved], dir, name)) break; /* cannot happen: room kept above */
        if (rename(files[moved].tmp, paths[moved]) != 0) break;
    }
    if (moved == n && fsync_dir(dir) == 0 && fsync_dir(s->dir) == 0) {
        for (size_t i = 0; i < n; i++) files[i].tmp[0] = '\0'; /* theirs no longer */
        return CZ_OK;
    }
    int e = errno;
    for (size_t i = 0; i < moved; i++) rename(paths[i], files[i].tmp); /* back where they were */
    if (mark[0]) unlink(mark);
    rmdir(dir);
    return cz_error_set(err, CZ_ERR_IO, "spool: cannot move the uploads to %s: %s", dir, strerror(e));
}

void cz_spool_remove_job(cz_spool *s, const char *job)
{
    if (!job_name_ok(job)) return;
    char dir[4200];
    if (!join(dir, sizeof dir, s->dir, job)) return;
    uint64_t b = remove_dir(dir);
    add_bytes(s, -(int64_t)b);
}

int cz_spool_job_ours(cz_spool *s, const char *job, double *made)
{
    char dir[4200], mark[4300];
    struct stat st;
    if (!s->mark[0] || !job_name_ok(job) ||
        !join(dir, sizeof dir, s->dir, job) || !join(mark, sizeof mark, dir, s->mark) || lstat(mark, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return 0;
    *made = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9;
    return 1;
}

void cz_spool_gc(cz_spool *s, int (*keep)(void *ctx, const char *job), void *ctx)
{
    DIR *d = opendir(s->dir);
    if (!d) return;
    char names[256][64];
    int n = 0;
    struct dirent *e;
    for (;;) {
        while (n < 256 && (e = readdir(d))) {
            if (e->d_name[0] == '.' || is_tmp(e->d_name) || strlen(e->d_name) >= sizeof names[0]) continue;
            if (!keep(ctx, e->d_name)) snprintf(names[n++], sizeof names[0], "%s", e->d_name);
        }
        if (n == 0) break;
        for (int i = 0; i < n; i++) cz_spool_remove_job(s, names[i]);
        n = 0;
        rewinddir(d);
        /* (a second pass finds only what keep() holds) */
        int again = 0;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.' && !is_tmp(e->d_name) && strlen(e->d_name) < sizeof names[0] &&
                !keep(ctx, e->d_name)) {
                again = 1;
                break;
            }
        if (!again) break;
        rewinddir(d);
    }
    closedir(d);
}
