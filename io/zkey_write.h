/*
 * io/zkey_write: writing snarkjs Groth16 proving keys (.zkey, protocol 1).
 *
 * DESIGN: a streaming writer. The caller states the key's counts up front
 * (cz_zkey_layout), which fixes every section's size and so the whole file
 * size before a byte is written: section headers are written as each
 * section starts (no seeking back), the file is preallocated (a full disk
 * fails at once, not after minutes of work), and cz_zkey_writer_end checks
 * that each section got exactly its size. Sections are written in id order
 * 1..10 (the order `snarkjs zkey contribute` writes; readers find sections
 * by id). Output goes through util/atomic_file: a temporary file in the
 * destination's directory, renamed into place by cz_zkey_writer_commit, so
 * a failed or aborted write leaves nothing behind. Large sections are
 * written in chunks as they are computed; the writer asks the kernel to
 * start write-back every CZ_ZKEY_WRITEBACK bytes so that a multi-gigabyte
 * key does not pile up as dirty page cache until the final fsync.
 *
 * Encodings (docs/FORMATS.md): points are LEM affine, i.e.
 * the in-memory bytes of the ec *_affine types (infinity = all zero);
 * coefficients are {u32 matrix, u32 row, u32 signal, coef*R^2 mod r standard
 * LE} (cz_zkey_coef_encode); section 10 is the 64-byte circuit hash, a u32
 * count and the contributions in the layout of snarkjs's zkey_utils.js
 * (writeContribution): deltaAfter G1, g1_s G1, g1_sx G1, g2_spx G2,
 * transcript[64], u32 type, u32 params length, params (1 = name: u8 length,
 * UTF-8 bytes, at most 64).
 */
#ifndef CZ_IO_ZKEY_WRITE_H
#define CZ_IO_ZKEY_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "io/zkey.h"
#include "util/atomic_file.h"

#define CZ_ZKEY_WRITEBACK ((uint64_t)256 << 20)
#define CZ_ZKEY_NAME_MAX 64 /* contribution names longer than this are cut */

/* One contribution record of section 10. Points are in the curve's affine
 * types (the file's bytes). */
typedef struct cz_zkey_contribution {
    const void *delta_after;  /* G1: delta_1 after this contribution */
    const void *g1_s, *g1_sx; /* G1: proof of knowledge of the contribution's delta */
    const void *g2_spx;       /* G2 */
    uint8_t transcript[64];
    uint32_t type;    /* 0 = contribution (type 1 = beacon is not written here) */
    const char *name; /* NULL: no name */
} cz_zkey_contribution;

/* The counts that fix a key's layout. */
typedef struct cz_zkey_layout {
    cz_curve curve;
    uint32_t n_vars, n_public, domain_size;
    uint64_t n_coef;    /* section 4 entries (< 2^32) */
    uint64_t mpc_bytes; /* section 10 body, from cz_zkey_mpc_bytes */
} cz_zkey_layout;

/* Body size of section 10 with these contributions (n may be 0). */
uint64_t cz_zkey_mpc_bytes(cz_curve c, const cz_zkey_contribution *contribs, size_t n);
/* sizes[id] = body bytes of section id (1..10; sizes[0] = 0). CZ_ERR_INVALID_ARG
 * for an unknown curve, n_public >= n_vars, a non-power-of-two domain, or
 * n_coef >= 2^32. */
cz_status cz_zkey_layout_sizes(const cz_zkey_layout *l, uint64_t sizes[11]);
/* The whole file: 12 bytes of container header, 12 per section, the bodies. */
uint64_t cz_zkey_file_size(const cz_zkey_layout *l);

typedef struct cz_zkey_writer {
    cz_atomic_file af;
    cz_zkey_layout layout;
    uint64_t sizes[11];
    uint32_t section; /* open section, 0 = none */
    uint32_t last;    /* last section finished */
    uint64_t left;    /* bytes still due in the open section */
    uint64_t written; /* bytes written so far (file offset) */
    uint64_t synced;  /* write-back requested up to here */
} cz_zkey_writer;

/* Creates the temporary output and writes the container header. */
cz_status cz_zkey_writer_open(cz_zkey_writer *w, const char *path, const cz_zkey_layout *l, cz_error *err);
/* Starts section id; sections must come in order 1..10, each once. */
cz_status cz_zkey_writer_begin(cz_zkey_writer *w, uint32_t id, cz_error *err);
/* Appends n bytes to the open section (CZ_ERR_INVALID_ARG past its size). */
cz_status cz_zkey_writer_put(cz_zkey_writer *w, const void *p, size_t n, cz_error *err);
cz_status cz_zkey_writer_put_u32(cz_zkey_writer *w, uint32_t v, cz_error *err);
/* Ends the open section; CZ_ERR_INTERNAL unless exactly its size was put. */
cz_status cz_zkey_writer_end(cz_zkey_writer *w, cz_error *err);
/* All 10 sections done: sync and rename into place. On failure nothing is
 * left behind. */
cz_status cz_zkey_writer_commit(cz_zkey_writer *w, cz_error *err);
/* Drops the temporary file (safe after a failed call, or twice). */
void cz_zkey_writer_abort(cz_zkey_writer *w);

/* Sections 1 and 2 at once: protocol, primes, counts and the six
 * verifying-key points (curve's affine types). */
cz_status cz_zkey_write_header(cz_zkey_writer *w, const void *alpha1, const void *beta1, const void *beta2,
                               const void *gamma2, const void *delta1, const void *delta2, cz_error *err);
/* Section 10 (its size must be what cz_zkey_mpc_bytes gave the layout). */
cz_status cz_zkey_write_mpc(cz_zkey_writer *w, const uint8_t cs_hash[64], const cz_zkey_contribution *contribs,
                            size_t n, cz_error *err);

enum { CZ_ZKEY_COEF_BYTES = 12 + 32 };
/* One section-4 entry: coef_mont is the coefficient in Montgomery form
 * (coef*R, a cz_<curve>_fr, as in the r1cs and zkey CSR matrices); the
 * file holds coef*R^2 mod r in standard little-endian form (a zero value for
 * a c that is no curve; cz_zkey_writer_open refuses those). */
void cz_zkey_coef_encode(uint8_t out[CZ_ZKEY_COEF_BYTES], cz_curve c, uint32_t matrix, uint32_t row, uint32_t signal,
                         const void *coef_mont);

/* Writes a fully loaded key (cz_zkey_load without header_only) to path:
 * sections 1..9 hold the same bytes snarkjs wrote (A and B entries per row
 * in the loaded order), section 10 has the given circuit hash (NULL: zero)
 * and no contributions. */
cz_status cz_zkey_save(const cz_zkey *z, const char *path, const uint8_t *cs_hash, cz_error *err);

#endif
