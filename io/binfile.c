#include "io/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- shared helpers ---- */

cz_status cz_io_status(int errnum)
{
    return errnum == ENOMEM ? CZ_ERR_NO_MEMORY : CZ_ERR_IO;
}

const char *cz_io_file_kind(mode_t mode)
{
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

cz_status cz_io_open_regular(const char *path, int *fdp, struct stat *st, cz_error *err)
{
    *fdp = -1;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        return cz_error_set(err, cz_io_status(e), "%s: cannot open: %s", path, strerror(e));
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return cz_error_set(err, cz_io_status(e), "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        if (S_ISDIR(st->st_mode)) return cz_error_set(err, CZ_ERR_IO, "%s: is a directory, not a file", path);
        return cz_error_set(err, CZ_ERR_IO, "%s: is %s, not a regular file", path, cz_io_file_kind(st->st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return cz_error_set(err, cz_io_status(e), "%s: cannot set the descriptor blocking: %s", path, strerror(e));
    }
    *fdp = fd;
    return CZ_OK;
}

cz_status cz_io_read_magic(const char *path, uint8_t magic[4], size_t *got, cz_error *err)
{
    *got = 0;
    int fd;
    struct stat st;
    cz_status s = cz_io_open_regular(path, &fd, &st, err);
    if (s != CZ_OK) return s;
    while (*got < 4) {
        ssize_t n = pread(fd, magic + *got, 4 - *got, (off_t)*got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return cz_error_set(err, cz_io_status(e), "%s: read failed: %s", path, strerror(e));
        }
        if (n == 0) break;
        *got += (size_t)n;
    }
    close(fd);
    return CZ_OK;
}

/* ---- reading ---- */

cz_status cz_binfile_read(const cz_binfile *f, uint64_t offset, void *dst, uint64_t n, cz_error *err)
{
    if (offset > f->size || n > f->size - offset)
        return cz_error_set(err, CZ_ERR_FORMAT,
                            "%s: offset %" PRIu64 ": %" PRIu64 " bytes needed but the file has %" PRIu64, f->path,
                            offset, n, f->size);
    if (f->fd < 0) {
        if (n) memcpy(dst, f->mem + offset, (size_t)n);
        return CZ_OK;
    }
    uint64_t done = 0;
    while (done < n) {
        uint64_t want = n - done < ((uint64_t)1 << 30) ? n - done : ((uint64_t)1 << 30);
        ssize_t got = pread(f->fd, (uint8_t *)dst + done, (size_t)want, (off_t)(offset + done));
        if (got < 0) {
            int e = errno;
            if (e == EINTR) continue;
            return cz_error_set(err, cz_io_status(e), "%s: offset %" PRIu64 ": read failed: %s", f->path, offset + done,
                                strerror(e));
        }
        if (got == 0) {
            struct stat st;
            uint64_t now = fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : offset + done;
            return cz_error_set(err, CZ_ERR_IO,
                                "%s: offset %" PRIu64 ": the file now ends before that (%" PRIu64 " bytes now, %" PRIu64
                                " when it was opened): it was truncated while it was read",
                                f->path, offset + done, now, f->size);
        }
        done += (uint64_t)got;
    }
    return CZ_OK;
}

cz_status cz_binfile_check_unchanged(const cz_binfile *f, cz_error *err)
{
    if (f->fd < 0) return CZ_OK;
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        int e = errno;
        return cz_error_set(err, cz_io_status(e), "%s: cannot stat: %s", f->path, strerror(e));
    }
    if ((uint64_t)st.st_size != f->size)
        return cz_error_set(err, CZ_ERR_IO,
                            "%s: the file changed while it was read (%" PRIu64 " bytes when opened, %" PRIu64 " now)",
                            f->path, f->size, (uint64_t)st.st_size);
    if (st.st_mtim.tv_sec != f->mtime.tv_sec || st.st_mtim.tv_nsec != f->mtime.tv_nsec)
        return cz_error_set(err, CZ_ERR_IO, "%s: the file was modified while it was read", f->path);
    return CZ_OK;
}

/* ---- the container index ---- */

enum { INDEX_WINDOW = 1 << 16 };

/* the 12 bytes at pos through a window (section headers are read in file
 * order; consecutive small sections share one read) */
typedef struct {
    uint8_t buf[INDEX_WINDOW];
    uint64_t off, len;
} index_window;

static cz_status window_get(const cz_binfile *f, index_window *w, uint64_t pos, const uint8_t **p, cz_error *err)
{
    if (pos < w->off || pos + 12 > w->off + w->len) {
        uint64_t n = f->size - pos < INDEX_WINDOW ? f->size - pos : INDEX_WINDOW;
        cz_status st = cz_binfile_read(f, pos, w->buf, n, err);
        if (st != CZ_OK) return st;
        w->off = pos;
        w->len = n;
    }
    *p = w->buf + (pos - w->off);
    return CZ_OK;
}

static cz_status index_container(cz_binfile *f, const char *magic, uint32_t vmin, uint32_t vmax, cz_error *err)
{
    index_window *w = malloc(sizeof *w);
    if (!w) return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", f->path);
    w->off = w->len = 0;
    const uint8_t *h;
    cz_status st = window_get(f, w, 0, &h, err);
    if (st != CZ_OK) goto out;
    memcpy(f->magic, h, 4);
    f->magic[4] = '\0';
    if (memcmp(h, magic, 4) != 0) {
        char shown[5];
        for (int i = 0; i < 4; i++)
            shown[i] = (h[i] >= 32 && h[i] < 127) ? (char)h[i] : '?';
        shown[4] = 0;
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: offset 0: magic is '%s', expected '%s'", f->path, shown, magic);
        goto out;
    }
    f->version = cz_load_u32(h + 4);
    if (f->version < vmin || f->version > vmax) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: offset 4: %s version %u, expected %u%s", f->path, magic, f->version,
                          vmin, vmin == vmax ? "" : " or later");
        goto out;
    }
    uint32_t ns = cz_load_u32(h + 8);
    /* each section header is 12 bytes: bound the count by the file size */
    if ((uint64_t)ns > (f->size - 12) / 12) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: offset 8: %u sections cannot fit in %" PRIu64 " bytes", f->path, ns,
                          f->size);
        goto out;
    }
    f->sections = calloc(ns ? ns : 1, sizeof *f->sections);
    if (!f->sections) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory indexing %u sections", f->path, ns);
        goto out;
    }
    uint64_t pos = 12;
    for (uint32_t i = 0; i < ns; i++) {
        if (f->size - pos < 12) {
            st = cz_error_set(err, CZ_ERR_FORMAT,
                              "%s: offset %" PRIu64 ": section header %u of %u is truncated (file ends at %" PRIu64 ")",
                              f->path, pos, i + 1, ns, f->size);
            goto out;
        }
        if ((st = window_get(f, w, pos, &h, err)) != CZ_OK) goto out;
        uint32_t id = cz_load_u32(h);
        uint64_t sz = cz_load_u64(h + 4);
        pos += 12;
        if (sz > f->size - pos) {
            st = cz_error_set(err, CZ_ERR_FORMAT,
                              "%s: offset %" PRIu64 ": section id %u claims %" PRIu64 " bytes but only %" PRIu64
                              " remain (truncated file?)",
                              f->path, pos - 12, id, sz, f->size - pos);
            goto out;
        }
        f->sections[i].id = id;
        f->sections[i].offset = pos;
        f->sections[i].size = sz;
        pos += sz;
    }
    f->nsections = ns;
out:
    free(w);
    return st;
}

cz_status cz_binfile_open(cz_binfile *f, const char *path, const char *magic, uint32_t vmin, uint32_t vmax,
                          cz_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    snprintf(f->path, sizeof f->path, "%s", path);
    struct stat st;
    int fd;
    cz_status s = cz_io_open_regular(path, &fd, &st, err);
    if (s != CZ_OK) return s;
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    f->mtime = st.st_mtim;
    if (f->size < 12) {
        cz_binfile_close(f);
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: file is %" PRIu64 " bytes, too short for a '%s' header (12 bytes)",
                            path, (uint64_t)st.st_size, magic);
    }
    s = index_container(f, magic, vmin, vmax, err);
    if (s != CZ_OK) cz_binfile_close(f);
    return s;
}

cz_status cz_binfile_open_mem(cz_binfile *f, const void *data, uint64_t size, const char *name, const char *magic,
                              uint32_t vmin, uint32_t vmax, cz_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    snprintf(f->path, sizeof f->path, "%s", name);
    f->size = size;
    f->mem = data;
    if (size < 12)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: %" PRIu64 " bytes, too short for a '%s' header (12 bytes)", name,
                            size, magic);
    cz_status st = index_container(f, magic, vmin, vmax, err);
    if (st != CZ_OK) cz_binfile_close(f);
    return st;
}

void cz_binfile_close(cz_binfile *f)
{
    if (f->fd >= 0) close(f->fd);
    free(f->sections);
    f->fd = -1;
    f->mem = NULL;
    f->sections = NULL;
    f->nsections = 0;
}

int cz_binfile_has(const cz_binfile *f, uint32_t id)
{
    for (uint32_t i = 0; i < f->nsections; i++)
        if (f->sections[i].id == id) return 1;
    return 0;
}

cz_status cz_binfile_section(const cz_binfile *f, uint32_t id, const cz_binsection **out, cz_error *err)
{
    const cz_binsection *found = NULL;
    for (uint32_t i = 0; i < f->nsections; i++) {
        if (f->sections[i].id != id) continue;
        if (found)
            return cz_error_set(err, CZ_ERR_FORMAT,
                                "%s: section id %u occurs twice (offsets %" PRIu64 " and %" PRIu64 ")", f->path, id,
                                found->offset - 12, f->sections[i].offset - 12);
        found = &f->sections[i];
    }
    if (!found) return cz_error_set(err, CZ_ERR_FORMAT, "%s: section id %u is missing", f->path, id);
    *out = found;
    return CZ_OK;
}

/* ---- the cursor ---- */

cz_status cz_reader_init(cz_reader *r, const cz_binfile *f, uint32_t section, cz_error *err)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->section = section;
    const cz_binsection *s = NULL;
    cz_status st = cz_binfile_section(f, section, &s, err);
    if (st != CZ_OK) return st;
    r->pos = s->offset;
    r->end = s->offset + s->size;
    r->boff = s->offset;
    if (f->fd < 0) {
        /* memory: the window is the whole section */
        r->buf = (uint8_t *)(uintptr_t)(f->mem + s->offset);
        r->blen = r->cap = s->size;
        return CZ_OK;
    }
    r->cap = s->size < CZ_READER_WINDOW ? s->size : CZ_READER_WINDOW;
    r->buf = malloc(r->cap ? (size_t)r->cap : 1);
    if (!r->buf)
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: section %u: out of memory for a %" PRIu64 "-byte read buffer",
                            f->path, section, r->cap);
    r->owned = 1;
    return CZ_OK;
}

void cz_reader_free(cz_reader *r)
{
    if (r->owned) free(r->buf);
    r->buf = NULL;
    r->owned = 0;
}

static cz_status short_read(cz_reader *r, uint64_t n, const char *field, cz_error *err)
{
    return cz_error_set(err, CZ_ERR_FORMAT,
                        "%s: section %u, offset %" PRIu64 ": %s needs %" PRIu64
                        " bytes but the section ends after %" PRIu64,
                        r->f->path, r->section, r->pos, field, n, r->end - r->pos);
}

/* the n bytes at r->pos, in the window */
static cz_status ensure(cz_reader *r, uint64_t n, const char *field, const uint8_t **p, cz_error *err)
{
    if (r->end - r->pos < n) return short_read(r, n, field, err);
    if (r->pos < r->boff || r->pos + n > r->boff + r->blen) {
        if (n > r->cap)
            return cz_error_set(err, CZ_ERR_INTERNAL, "%s: section %u: a read of %" PRIu64 " bytes exceeds the window",
                                r->f->path, r->section, n);
        uint64_t len = r->end - r->pos < r->cap ? r->end - r->pos : r->cap;
        cz_status st = cz_binfile_read(r->f, r->pos, r->buf, len, err);
        if (st != CZ_OK) return st;
        r->boff = r->pos;
        r->blen = len;
    }
    *p = r->buf + (r->pos - r->boff);
    r->pos += n;
    return CZ_OK;
}

cz_status cz_rd_u32(cz_reader *r, uint32_t *v, const char *field, cz_error *err)
{
    const uint8_t *p = NULL;
    cz_status st = ensure(r, 4, field, &p, err);
    if (st == CZ_OK) *v = cz_load_u32(p);
    return st;
}

cz_status cz_rd_u64(cz_reader *r, uint64_t *v, const char *field, cz_error *err)
{
    const uint8_t *p = NULL;
    cz_status st = ensure(r, 8, field, &p, err);
    if (st == CZ_OK) *v = cz_load_u64(p);
    return st;
}

cz_status cz_rd_bytes(cz_reader *r, const uint8_t **p, uint64_t n, const char *field, cz_error *err)
{
    return ensure(r, n, field, p, err);
}

cz_status cz_rd_expect_end(cz_reader *r, const char *what, cz_error *err)
{
    if (r->pos == r->end) return CZ_OK;
    return cz_error_set(err, CZ_ERR_FORMAT, "%s: section %u, offset %" PRIu64 ": %" PRIu64 " unexpected bytes after %s",
                        r->f->path, r->section, r->pos, r->end - r->pos, what);
}
