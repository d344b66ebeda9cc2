/*
 * io/binfile: the snarkjs/circom binary container (.r1cs, .wtns, .zkey).
 *
 * DESIGN: the file is memory-mapped read-only and indexed once:
 *   magic[4] | u32 version | u32 nSections | { u32 id | u64 size | body }*
 * Sections are found by id, never by position (real files order them
 * differently); an id that occurs twice is an error when it is read, unknown
 * ids are ignored. Every read goes through a bounds-checked cursor
 * (cz_rd_*), so a truncated or corrupted file yields CZ_ERR_FORMAT with a
 * message naming the file, the section, the byte offset and what was
 * expected — never a read outside the mapping.
 */
#ifndef CZ_IO_BINFILE_H
#define CZ_IO_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct {
    uint32_t id;
    uint64_t offset; /* of the body, from the start of the file */
    uint64_t size;
} cz_binsection;

typedef struct cz_binfile {
    char path[512];
    const uint8_t *data; /* mapping, or caller memory */
    int mapped;
    uint64_t size;
    char magic[5];
    uint32_t version;
    uint32_t nsections;
    cz_binsection *sections; /* in file order */
} cz_binfile;

/* Opens and indexes path; checks magic (4 chars) and version in
 * [vmin, vmax]. On failure nothing stays open. */
cz_status cz_binfile_open(cz_binfile *f, const char *path, const char *magic, uint32_t vmin, uint32_t vmax,
                          cz_error *err);
/* Same over caller-owned memory (fuzzing, embedded keys); name labels errors.
 * The memory must outlive f. */
cz_status cz_binfile_open_mem(cz_binfile *f, const void *data, uint64_t size, const char *name, const char *magic,
                              uint32_t vmin, uint32_t vmax, cz_error *err);
void cz_binfile_close(cz_binfile *f);

/* The unique section with this id. CZ_ERR_FORMAT if it is missing or occurs
 * more than once. */
cz_status cz_binfile_section(const cz_binfile *f, uint32_t id, const cz_binsection **out, cz_error *err);
/* Tells the kernel the mapped bytes [offset, offset + size) will not be read
 * again (madvise DONTNEED on the whole pages inside), so a reader that
 * copied a section out does not keep the file's pages resident as well.
 * No effect on caller memory (cz_binfile_open_mem). */
void cz_binfile_release(const cz_binfile *f, uint64_t offset, uint64_t size);
/* 1 if a section with this id exists */
int cz_binfile_has(const cz_binfile *f, uint32_t id);

/* Bounds-checked cursor over one section. */
typedef struct {
    const cz_binfile *f;
    uint32_t section;
    const uint8_t *p;
    uint64_t pos, end; /* absolute file offsets */
} cz_reader;

cz_status cz_reader_init(cz_reader *r, const cz_binfile *f, uint32_t section, cz_error *err);
/* field names the value being read, for the error message */
cz_status cz_rd_u32(cz_reader *r, uint32_t *v, const char *field, cz_error *err);
cz_status cz_rd_u64(cz_reader *r, uint64_t *v, const char *field, cz_error *err);
/* Returns a pointer to the next n bytes and advances. */
cz_status cz_rd_bytes(cz_reader *r, const uint8_t **p, uint64_t n, const char *field, cz_error *err);
/* CZ_ERR_FORMAT unless the cursor is exactly at the end of the section. */
cz_status cz_rd_expect_end(cz_reader *r, const char *what, cz_error *err);

static inline uint32_t cz_load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t cz_load_u64(const uint8_t *p) { return cz_load_u32(p) | (uint64_t)cz_load_u32(p + 4) << 32; }

#endif
