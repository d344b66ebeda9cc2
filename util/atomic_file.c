#define _GNU_SOURCE /* mkostemp */
/* util/atomic_file: outputs written whole or not at all (contract in
 * atomic_file.h). */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the table of temporaries ----
 * An entry is claimed (live 0 -> 1), its name written, its sequence number
 * bumped and then published (live 2); forgetting it sets live 0 and bumps the
 * sequence again. The signal handler copies a published name and unlinks it
 * only if the sequence number did not move meanwhile, so a name being
 * rewritten by another thread is never used half-written. */
#define TMP_SLOTS 64
static struct {
    atomic_int live;
    atomic_uint seq;
    char path[CZ_PATH_CAP + 16];
} g_tmp[TMP_SLOTS];

static int tmp_enter(const char *path)
{
    size_t n = strlen(path);
    if (n >= sizeof g_tmp[0].path) return -1;
    for (int i = 0; i < TMP_SLOTS; i++) {
        int free_ = 0;
        if (!atomic_compare_exchange_strong(&g_tmp[i].live, &free_, 1)) continue;
        memcpy(g_tmp[i].path, path, n + 1);
        atomic_fetch_add(&g_tmp[i].seq, 1);
        atomic_store(&g_tmp[i].live, 2);
        return i;
    }
    return -1;
}

void cz_tmp_forget(int slot)
{
    if (slot < 0 || slot >= TMP_SLOTS) return;
    atomic_store(&g_tmp[slot].live, 0);
    atomic_fetch_add(&g_tmp[slot].seq, 1);
}

void cz_atomic_file_remove_temporaries(void)
{
    char copy[CZ_PATH_CAP + 16];
    for (int i = 0; i < TMP_SLOTS; i++) {
        unsigned s = atomic_load(&g_tmp[i].seq);
        if (atomic_load(&g_tmp[i].live) != 2) continue;
        size_t k = 0;
        while (k + 1 < sizeof copy && g_tmp[i].path[k]) {
            copy[k] = g_tmp[i].path[k];
            k++;
        }
        copy[k] = '\0';
        if (atomic_load(&g_tmp[i].live) == 2 && atomic_load(&g_tmp[i].seq) == s) (void)unlink(copy);
    }
}

int cz_tmp_create(const char *dest, char *tmp, size_t cap, int *slot)
{
    *slot = -1;
    const char *slash = strrchr(dest, '/');
    size_t dl = slash ? (size_t)(slash - dest) + 1 : 0; /* the directory with its '/' */
    if (dl + 13 > cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(tmp, cap, "%.*s.cuzk-XXXXXX", (int)dl, dest);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int fd = mkostemp(tmp, O_CLOEXEC);
    int e = errno;
    if (fd >= 0) *slot = tmp_enter(tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

/* ---- what a path designates ---- */

int cz_path_fd(const char *path, int *fd)
{
    const char *num = NULL;
    if (!strcmp(path, "/dev/stdout")) {
        *fd = 1;
        return 1;
    }
    if (!strcmp(path, "/dev/stderr")) {
        *fd = 2;
        return 1;
    }
    if (!strncmp(path, "/dev/fd/", 8))
        num = path + 8;
    else if (!strncmp(path, "/proc/self/fd/", 14))
        num = path + 14;
    if (!num || !*num || strlen(num) > 6) return 0;
    int v = 0;
    for (const char *p = num; *p; p++) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10 + (*p - '0');
    }
    *fd = v;
    return 1;
}

/* the directory part of p ("." for none, "/" for the root) into out */
static void dir_of(const char *p, char *out, size_t cap)
{
    const char *slash = strrchr(p, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else if (slash == p)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(slash - p), p);
}

cz_status cz_output_classify(const char *path, cz_output_kind *kind, char *dest, size_t cap, int *fd, cz_error *err)
{
    if (!path || !*path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "an output path is empty");
    if (strlen(path) >= cap || strlen(path) >= CZ_PATH_CAP)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%.200s...: path too long", path);
    char cur[CZ_PATH_CAP], target[CZ_PATH_CAP], dir[CZ_PATH_CAP];
    snprintf(cur, sizeof cur, "%s", path);
    /* follow the links of the last component; a descriptor name ends it */
    for (int hop = 0;; hop++) {
        if (cz_path_fd(cur, fd)) {
            struct stat sb;
            if (fstat(*fd, &sb) != 0)
                return cz_error_set(err, CZ_ERR_IO, "%s: descriptor %d is not open: %s", path, *fd, strerror(errno));
            if (S_ISDIR(sb.st_mode)) return cz_error_set(err, CZ_ERR_IO, "%s: is a directory", path);
            *kind = CZ_OUTPUT_FD;
            snprintf(dest, cap, "%s", cur);
            return CZ_OK;
        }
        struct stat lsb;
        if (lstat(cur, &lsb) != 0 || !S_ISLNK(lsb.st_mode)) break;
        if (hop == 40) return cz_error_set(err, CZ_ERR_IO, "%s: too many levels of symbolic links", path);
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) return cz_error_set(err, CZ_ERR_IO, "%s: cannot read the link: %s", path, strerror(errno));
        target[n] = '\0';
        if (target[0] == '/' || !strchr(cur, '/')) {
            snprintf(cur, sizeof cur, "%s", target);
        } else {
            dir_of(cur, dir, sizeof dir);
            if (strlen(dir) + 1 + (size_t)n >= sizeof cur)
                return cz_error_set(err, CZ_ERR_IO, "%s: the link's target makes a path too long", path);
            size_t dirl = strlen(dir);
            memcpy(cur, dir, dirl);
            cur[dirl] = '/';
            memcpy(cur + dirl + 1, target, (size_t)n + 1);
        }
    }
    if (strlen(cur) >= cap) return cz_error_set(err, CZ_ERR_IO, "%s: the link's target makes a path too long", path);
    snprintf(dest, cap, "%s", cur);
    size_t dl = strlen(cur);
    if (cur[dl - 1] == '/') return cz_error_set(err, CZ_ERR_IO, "%s: names a directory", path);
    struct stat sb;
    if (stat(cur, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) return cz_error_set(err, CZ_ERR_IO, "%s: is a directory", path);
        if (!S_ISREG(sb.st_mode)) {
            *kind = CZ_OUTPUT_DEVICE;
            return CZ_OK;
        }
        if (access(cur, W_OK) != 0 && errno == EACCES)
            return cz_error_set(err, CZ_ERR_IO, "%s: the file is read-only: not replaced", path);
    } else if (errno != ENOENT) {
        return cz_error_set(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    }
    *kind = CZ_OUTPUT_REPLACE;
    return CZ_OK;
}

/* ---- the file ---- */

/* The process's umask, read without changing it (umask() sets and returns,
 * racing with other threads creating files); 022 when /proc does not say. */
static mode_t process_umask(void)
{
    mode_t m = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return m;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Umask:", 6)) {
            m = (mode_t)strtoul(line + 6, NULL, 8) & 0777;
            break;
        }
    fclose(f);
    return m;
}

cz_status cz_atomic_file_open(cz_atomic_file *af, const char *path, cz_error *err)
{
    memset(af, 0, sizeof *af);
    af->slot = -1;
    if (!path || !*path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "an output path is empty");
    if (strlen(path) >= sizeof af->path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%.200s...: path too long", path);
    snprintf(af->path, sizeof af->path, "%s", path);
    cz_output_kind kind;
    int dfd = -1;
    cz_status st = cz_output_classify(path, &kind, af->dest, sizeof af->dest, &dfd, err);
    if (st != CZ_OK) return st;
    int fd;
    if (kind == CZ_OUTPUT_FD) {
        if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3)) < 0)
            return cz_error_set(err, CZ_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        af->in_place = 1;
    } else if (kind == CZ_OUTPUT_DEVICE) {
        if ((fd = open(af->dest, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
            return cz_error_set(err, CZ_ERR_IO, "%s: cannot open output file: %s", path, strerror(errno));
        af->in_place = 1;
    } else {
        if ((fd = cz_tmp_create(af->dest, af->tmp, sizeof af->tmp, &af->slot)) < 0)
            return cz_error_set(err, CZ_ERR_IO, "%s: cannot create output file: %s", path, strerror(errno));
        /* mkstemp creates 0600; outputs get the usual 0666 & ~umask */
        (void)fchmod(fd, 0666 & ~process_umask());
    }
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int e = errno;
        close(fd);
        if (!af->in_place) unlink(af->tmp);
        cz_tmp_forget(af->slot);
        af->slot = -1;
        return cz_error_set(err, CZ_ERR_IO, "%s: cannot open output file: %s", path, strerror(e));
    }
    return CZ_OK;
}

cz_status cz_atomic_file_commit(cz_atomic_file *af, cz_error *err)
{
    if (!af->fp) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: output file is not open", af->path);
    errno = 0;
    int bad = ferror(af->fp) || fflush(af->fp) != 0 || (!af->in_place && fsync(fileno(af->fp)) != 0);
    int e = errno ? errno : EIO;
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->fp = NULL;
    if (bad) {
        if (!af->in_place) unlink(af->tmp);
        cz_tmp_forget(af->slot);
        af->slot = -1;
        return cz_error_set(err, CZ_ERR_IO, "%s: write failed: %s", af->path, strerror(e));
    }
    if (af->in_place) return CZ_OK;
    if (rename(af->tmp, af->dest) != 0) {
        e = errno;
        unlink(af->tmp);
        cz_tmp_forget(af->slot);
        af->slot = -1;
        return cz_error_set(err, CZ_ERR_IO, "%s: cannot rename the finished file into place: %s", af->path,
                            strerror(e));
    }
    cz_tmp_forget(af->slot);
    af->slot = -1;
    return CZ_OK;
}

void cz_atomic_file_abort(cz_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
        if (!af->in_place) unlink(af->tmp);
        cz_tmp_forget(af->slot);
        af->slot = -1;
    }
}
