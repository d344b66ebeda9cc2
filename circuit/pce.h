/*
 * circuit/pce: the pre-compiled constraint evaluator.
 *
 * DESIGN: a native circuit's R1CS is recorded once per shape (circuit/cs.h,
 * record mode) into three CSR matrices over wire columns (inputs first); a
 * later synthesis of that shape runs in witness-only mode and gets
 *   a = A.w, b = B.w, c = C.w
 * by sparse matrix-vector products, in parallel over rows. The same pass
 * compares a*b with c row by row, so an unsatisfied witness is caught there
 * (the first failing row) at the price of one product per row (none where
 * b is 0 or 1). The witness's wires are first classed as 0, 1 or other: a
 * term on a 0 wire is skipped, on a 1 wire its coefficient is added, only
 * the others take a product (most wires of a circuit over bits are 0 or 1);
 * the sums are the same reduced values bit for bit.
 *
 * The recording is kept in a file (cz_pce_save / cz_pce_load), keyed by a
 * 32-byte structure key (cz_pce_key: SHA-256 of the circuit's name, its
 * structural parameters, its structure version and the curve). Layout,
 * little-endian, every part 8-byte aligned:
 *   header (128 bytes): "cuzk-pce" | u32 version (1) | u32 curve |
 *     key[32] | u32 n_inputs | u32 n_aux | u32 n_constraints | u32 0 |
 *     u64 nnz[3] | u64 body bytes | u64 body checksum | u64 header checksum
 *     | zero padding
 *   body: for A, B, C: values (nnz x 32, Montgomery), row_ptr ((rows + 1)
 *     x u64), columns (nnz x u32, padded to 8 bytes); then the density
 *     bitmaps (A over aux, B over inputs, B over aux: ceil(n / 64) u64
 *     each).
 * The file is written through util/atomic_file (whole or not at all) and
 * read by mmap: the matrices point into the read-only mapping, nothing is
 * copied. A load checks the magic, the version, the key (another key or
 * version: CZ_ERR_MISMATCH, "stale"), the sizes, both checksums and the
 * structure (row pointers monotone, columns < n_inputs + n_aux) and refuses
 * the file otherwise (CZ_ERR_FORMAT, "corrupt"); cz_pce_get then records
 * afresh and replaces it.
 */
#ifndef CZ_CIRCUIT_PCE_H
#define CZ_CIRCUIT_PCE_H

#include <stddef.h>
#include <stdint.h>

#include "circuit/cs.h"
#include "io/zkey.h"
#include "util/error.h"
#include "util/thread.h"

#define CZ_PCE_VERSION 1

typedef struct cz_pce {
    cz_curve curve;
    uint8_t key[32];
    uint32_t n_inputs, n_aux, n_constraints;
    cz_csr A, B, C;       /* n_constraints rows, n_inputs + n_aux columns */
    uint64_t *density[3]; /* A over aux, B over inputs, B over aux (bit per column) */
    void *map;            /* the file mapping the arrays point into, or NULL (heap) */
    size_t map_len;
} cz_pce;

/* The structure key of a circuit shape. */
void cz_pce_key(uint8_t key[32], const char *circuit, const char *params, uint32_t structure_version, cz_curve curve);

/* Takes the matrices of a finished record-mode cs (cz_cs_take_matrices) and
 * builds the density bitmaps. */
cz_status cz_pce_from_cs(cz_pce *p, cz_cs *cs, const uint8_t key[32], cz_error *err);
void cz_pce_free(cz_pce *p);

/* a, b, c (n_constraints elements each; c may be NULL: computed for the
 * check, not kept) from the witness w (n_inputs + n_aux
 * values): CZ_ERR_MISMATCH if n differs; first_bad (may be NULL) gets the
 * first row where a*b != c, UINT64_MAX when none. pool NULL: the default. */
cz_status cz_pce_abc(const cz_pce *p, const cz_fe *w, uint32_t n, cz_fe *a, cz_fe *b, cz_fe *c, uint64_t *first_bad,
                     cz_pool *pool, cz_error *err);

/* Bytes of the file of p. */
uint64_t cz_pce_file_bytes(const cz_pce *p);
cz_status cz_pce_save(const cz_pce *p, const char *path, cz_error *err);
/* key NULL: any key. On failure p is left empty. */
cz_status cz_pce_load(cz_pce *p, const char *path, const uint8_t key[32], cz_error *err);

/* The density bit of column j of bitmap k. */
static inline int cz_pce_density(const cz_pce *p, int k, uint32_t j)
{
    return (int)((p->density[k][j >> 6] >> (j & 63)) & 1);
}

#endif
