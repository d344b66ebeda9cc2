#include "io/binfile.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static cz_status index_container(cz_binfile *f, const char *magic, uint32_t vmin, uint32_t vmax, cz_error *err)
{
    memcpy(f->magic, f->data, 4);
    f->magic[4] = '\0';
    if (memcmp(f->data, magic, 4) != 0) {
        char shown[20];
        for (int i = 0; i < 4; i++)
            shown[i] = (f->data[i] >= 32 && f->data[i] < 127) ? (char)f->data[i] : '?';
        shown[4] = 0;
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: offset 0: magic is '%s', expected '%s'", f->path, shown, magic);
    }
    f->version = cz_load_u32(f->data + 4);
    if (f->version < vmin || f->version > vmax) {
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: offset 4: %s version %u, expected %u%s", f->path, magic,
                            f->version, vmin, vmin == vmax ? "" : " or later");
    }
    uint32_t ns = cz_load_u32(f->data + 8);
    /* each section header is 12 bytes: bound the count by the file size */
    if ((uint64_t)ns > (f->size - 12) / 12) {
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: offset 8: %u sections cannot fit in %" PRIu64 " bytes", f->path,
                            ns, f->size);
    }
    f->sections = calloc(ns ? ns : 1, sizeof *f->sections);
    if (!f->sections) {
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory indexing %u sections", f->path, ns);
    }
    uint64_t pos = 12;
    for (uint32_t i = 0; i < ns; i++) {
        if (f->size - pos < 12) {
            return cz_error_set(err, CZ_ERR_FORMAT,
                                "%s: offset %" PRIu64 ": section header %u of %u is truncated (file ends at %" PRIu64
                                ")",
                                f->path, pos, i + 1, ns, f->size);
        }
        uint32_t id = cz_load_u32(f->data + pos);
        uint64_t sz = cz_load_u64(f->data + pos + 4);
        pos += 12;
        if (sz > f->size - pos) {
            return cz_error_set(err, CZ_ERR_FORMAT,
                                "%s: offset %" PRIu64 ": section id %u claims %" PRIu64 " bytes but only %" PRIu64
                                " remain (truncated file?)",
                                f->path, pos - 12, id, sz, f->size - pos);
        }
        f->sections[i].id = id;
        f->sections[i].offset = pos;
        f->sections[i].size = sz;
        pos += sz;
    }
    f->nsections = ns;
    return CZ_OK;
}

cz_status cz_binfile_open(cz_binfile *f, const char *path, const char *magic, uint32_t vmin, uint32_t vmax,
                          cz_error *err)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_error_set(err, CZ_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cz_error_set(err, CZ_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cz_error_set(err, CZ_ERR_IO, "%s: not a regular file", path);
    }
    f->size = (uint64_t)st.st_size;
    if (f->size < 12) {
        close(fd);
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: file is %" PRIu64 " bytes, too short for a '%s' header (12 bytes)",
                            path, f->size, magic);
    }
    void *m = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) return cz_error_set(err, CZ_ERR_IO, "%s: cannot map: %s", path, strerror(e));
    f->data = m;

    f->mapped = 1;
    cz_status st2 = index_container(f, magic, vmin, vmax, err);
    if (st2 != CZ_OK) cz_binfile_close(f);
    return st2;
}

cz_status cz_binfile_open_mem(cz_binfile *f, const void *data, uint64_t size, const char *name, const char *magic,
                              uint32_t vmin, uint32_t vmax, cz_error *err)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", name);
    f->size = size;
    f->data = data;
    if (size < 12)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: %" PRIu64 " bytes, too short for a '%s' header (12 bytes)", name,
                            size, magic);
    cz_status st = index_container(f, magic, vmin, vmax, err);
    if (st != CZ_OK) cz_binfile_close(f);
    return st;
}

void cz_binfile_close(cz_binfile *f)
{
    if (f->data && f->mapped) munmap((void *)f->data, (size_t)f->size);
    free(f->sections);
    f->data = NULL;
    f->mapped = 0;
    f->sections = NULL;
    f->nsections = 0;
}

void cz_binfile_release(const cz_binfile *f, uint64_t offset, uint64_t size)
{
    if (!f->mapped || !f->data || size == 0 || offset >= f->size) return;
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
    uint64_t end = offset + size < f->size ? offset + size : f->size;
    uint64_t lo = (offset + page - 1) / page * page, hi = end / page * page;
    if (hi > lo) (void)madvise((void *)(f->data + lo), (size_t)(hi - lo), MADV_DONTNEED);
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

cz_status cz_reader_init(cz_reader *r, const cz_binfile *f, uint32_t section, cz_error *err)
{
    const cz_binsection *s = NULL;
    cz_status st = cz_binfile_section(f, section, &s, err);
    if (st != CZ_OK) return st;
    r->f = f;
    r->section = section;
    r->pos = s->offset;
    r->end = s->offset + s->size;
    r->p = f->data + s->offset;
    return CZ_OK;
}

static cz_status short_read(cz_reader *r, uint64_t n, const char *field, cz_error *err)
{
    return cz_error_set(err, CZ_ERR_FORMAT,
                        "%s: section %u, offset %" PRIu64 ": %s needs %" PRIu64
                        " bytes but the section ends after %" PRIu64,
                        r->f->path, r->section, r->pos, field, n, r->end - r->pos);
}

cz_status cz_rd_u32(cz_reader *r, uint32_t *v, const char *field, cz_error *err)
{
    if (r->end - r->pos < 4) return short_read(r, 4, field, err);
    *v = cz_load_u32(r->p);
    r->p += 4;
    r->pos += 4;
    return CZ_OK;
}

cz_status cz_rd_u64(cz_reader *r, uint64_t *v, const char *field, cz_error *err)
{
    if (r->end - r->pos < 8) return short_read(r, 8, field, err);
    *v = cz_load_u64(r->p);
    r->p += 8;
    r->pos += 8;
    return CZ_OK;
}

cz_status cz_rd_bytes(cz_reader *r, const uint8_t **p, uint64_t n, const char *field, cz_error *err)
{
    if (r->end - r->pos < n) return short_read(r, n, field, err);
    *p = r->p;
    r->p += n;
    r->pos += n;
    return CZ_OK;
}

cz_status cz_rd_expect_end(cz_reader *r, const char *what, cz_error *err)
{
    if (r->pos == r->end) return CZ_OK;
    return cz_error_set(err, CZ_ERR_FORMAT, "%s: section %u, offset %" PRIu64 ": %" PRIu64 " unexpected bytes after %s",
                        r->f->path, r->section, r->pos, r->end - r->pos, what);
}
