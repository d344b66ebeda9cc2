/*
 * io/binfile: the snarkjs/circom binary container (.r1cs, .wtns, .zkey).
 *
 * DESIGN: the file is opened once (a regular file only: FIFOs, devices and
 * directories are refused before anything blocks), its size taken from
 * fstat, and indexed:
 *   magic[4] | u32 version | u32 nSections | { u32 id | u64 size | body }*
 * Sections are found by id, never by position (real files order them
 * differently); an id that occurs twice is an error when it is read, unknown
 * ids are ignored. Nothing is memory-mapped: every byte is read with pread()
 * into the reader's own buffers (a point table straight into its final
 * array), and every read is checked against the size fstat gave, so a file
 * that shrinks while it is read yields an error naming the file and the
 * offset (never a SIGBUS), and cz_binfile_check_unchanged() tells a reader
 * whether the file was modified while it was read. Reads at distinct offsets
 * may run in parallel. Small fields go through a bounds-checked, buffered
 * cursor (cz_rd_*), so a truncated or corrupted file yields CZ_ERR_FORMAT
 * with a message naming the file, the section, the byte offset and what was
 * expected — never a read outside the section.
 */
#ifndef CZ_IO_BINFILE_H
#define CZ_IO_BINFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "util/error.h"

typedef struct {
    uint32_t id;
    uint64_t offset; /* of the body, from the start of the file */
    uint64_t size;
} cz_binsection;

typedef struct cz_binfile {
    char path[512];
    int fd;                /* -1: caller memory (cz_binfile_open_mem) */
    const uint8_t *mem;    /* caller memory, or NULL */
    uint64_t size;         /* fstat's size at open (or the memory's length) */
    struct timespec mtime; /* fstat's modification time at open */
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
/* 1 if a section with this id exists */
int cz_binfile_has(const cz_binfile *f, uint32_t id);

/* Reads the n bytes at offset into dst. Safe to call from several threads
 * at once. CZ_ERR_IO when the file ends early (it shrank since it was
 * opened: the message names the file, the offset and both sizes) or a read
 * fails (CZ_ERR_NO_MEMORY for ENOMEM); CZ_ERR_FORMAT for a range beyond the
 * size at open. */
cz_status cz_binfile_read(const cz_binfile *f, uint64_t offset, void *dst, uint64_t n, cz_error *err);
/* CZ_OK if the file's size and modification time are those it had when it
 * was opened (always for memory); else CZ_ERR_IO "changed while it was
 * read". Readers call it once they have read what they need. */
cz_status cz_binfile_check_unchanged(const cz_binfile *f, cz_error *err);

/* Bounds-checked cursor over one section, reading through a window of at
 * most CZ_READER_WINDOW bytes (for memory: the section itself). */
enum { CZ_READER_WINDOW = 1 << 20 };
typedef struct {
    const cz_binfile *f;
    uint32_t section;
    uint64_t pos, end; /* absolute file offsets */
    uint8_t *buf;      /* window over [boff, boff + blen) */
    uint64_t boff, blen, cap;
    int owned; /* buf is malloc'ed */
} cz_reader;

/* Must be paired with cz_reader_free (also after an error). */
cz_status cz_reader_init(cz_reader *r, const cz_binfile *f, uint32_t section, cz_error *err);
void cz_reader_free(cz_reader *r);
/* field names the value being read, for the error message */
cz_status cz_rd_u32(cz_reader *r, uint32_t *v, const char *field, cz_error *err);
cz_status cz_rd_u64(cz_reader *r, uint64_t *v, const char *field, cz_error *err);
/* Points *p at the next n bytes (n <= CZ_READER_WINDOW) and advances; the
 * bytes stay valid until the next read from r. */
cz_status cz_rd_bytes(cz_reader *r, const uint8_t **p, uint64_t n, const char *field, cz_error *err);
/* CZ_ERR_FORMAT unless the cursor is exactly at the end of the section. */
cz_status cz_rd_expect_end(cz_reader *r, const char *what, cz_error *err);

/* ---- shared by the io readers ---- */

/* The status of a failed system call: CZ_ERR_NO_MEMORY for ENOMEM, else
 * CZ_ERR_IO. */
cz_status cz_io_status(int errnum);
/* "a directory", "a FIFO (named pipe)", "a character device", ... */
const char *cz_io_file_kind(mode_t mode);
/* Opens path for reading without blocking on a FIFO (O_NONBLOCK, cleared
 * once fstat says it is a regular file) and fills *st. Anything but a
 * regular file is refused with CZ_ERR_IO naming the file and what it is
 * ("is a directory", "is a FIFO (named pipe), not a regular file"). */
cz_status cz_io_open_regular(const char *path, int *fd, struct stat *st, cz_error *err);
/* The first (up to) 4 bytes of path, opened as cz_io_open_regular opens it
 * (so a FIFO is refused, never waited on): for telling the kinds of file
 * apart. *got: how many were read (< 4 for a shorter file). */
cz_status cz_io_read_magic(const char *path, uint8_t magic[4], size_t *got, cz_error *err);

static inline uint32_t cz_load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t cz_load_u64(const uint8_t *p) { return cz_load_u32(p) | (uint64_t)cz_load_u32(p + 4) << 32; }

#endif
