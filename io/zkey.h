/*
 * io/zkey: snarkjs Groth16 proving keys (.zkey, protocol 1).
 *
 * DESIGN: the file is read (io/binfile: pread, never a mapping) section by
 * section (see docs/FORMATS.md): 1 protocol, 2 Groth16 header (primes,
 * nVars, nPublic, domainSize, alpha1 beta1 beta2 gamma2 delta1 delta2), 3 IC,
 * 4 the A/B coefficients, 5 A, 6 B1, 7 B2, 8 C, 9 H, 10 contributions
 * (ignored). The curve comes from the primes, never from the caller.
 *
 * Points are stored in the zkey as "LEM affine" (Montgomery little-endian x||y,
 * all-zero = infinity), which is exactly the in-memory layout of the ec
 * *_affine types, so each point section is read straight into an aligned
 * array, in parallel chunks, and every coordinate is checked there (< q) and
 * every point on the curve. The six verifying-key points of section 2 must
 * not be infinity and, like every IC point, pass the exact subgroup test;
 * each table (A, B1, B2, C, H) passes one random linear combination
 * (io/subgroup.h), and when it does not, the exact search names the first
 * point outside the subgroup. Section 4 becomes two CSR matrices
 * A and B over domainSize rows with values in Montgomery form (the file's
 * coef*R^2 reduced once to coef*R), so a row of a = A.w is a dot product of
 * Montgomery elements. C is not stored: for a satisfying witness c = a o b.
 */
#ifndef CZ_IO_ZKEY_H
#define CZ_IO_ZKEY_H

#include <stdint.h>

#include "cuzk/curve.h"
#include "util/alloc.h"
#include "util/error.h"

/* Sparse matrix in compressed rows; values are scalar-field elements
 * (32 bytes, Montgomery form). */
typedef struct cz_csr {
    uint32_t nrows, ncols;
    uint64_t nnz;
    uint64_t *row_ptr; /* nrows + 1 */
    uint32_t *col;     /* nnz */
    void *val;         /* nnz x 32 bytes */
} cz_csr;

typedef struct cz_zkey {
    cz_curve curve;
    uint32_t n8q, n8r;
    uint32_t n_vars;      /* witness length, w[0] = 1 */
    uint32_t n_public;    /* public signals, not counting w[0] */
    uint32_t domain_size; /* n, a power of two */
    uint32_t log_domain;
    uint64_t n_coef;
    /* verifying-key points, in the curve's affine types (G1 96 B / G2 192 B
     * at most; 8-byte aligned storage) */
    uint64_t alpha1[12], beta1[12], delta1[12];
    uint64_t beta2[24], gamma2[24], delta2[24];
    /* point tables (curve's affine types), owned */
    void *ic; /* n_public + 1 G1 */
    void *a;  /* n_vars G1 */
    void *b1; /* n_vars G1 */
    void *b2; /* n_vars G2 */
    void *c;  /* n_vars - n_public - 1 G1 (private wires) */
    void *h;  /* domain_size G1 */
    cz_csr A, B;
    const cz_allocator *alloc;        /* the point tables */
    const cz_allocator *matrix_alloc; /* A and B */
    uint64_t bytes; /* host memory held by this key */
} cz_zkey;

typedef struct cz_zkey_opts {
    const cz_allocator *alloc; /* NULL: default heap */
    const cz_allocator *matrix_alloc; /* A and B (NULL: alloc) */
    int header_only;           /* read sections 1-3 (header, vkey points, IC) only */
    int skip_point_checks;     /* skip the on-curve and subgroup checks of the tables A, B1, B2, C, H
                                  (range checks, section 2 and IC are always checked) */
} cz_zkey_opts;

/* Loads path. opts may be NULL. On failure z is left empty. Statuses: the
 * readers' (CZ_ERR_IO for a file that is not a regular file or changed
 * while it was read, CZ_ERR_FORMAT, CZ_ERR_RANGE, CZ_ERR_NOT_ON_CURVE,
 * CZ_ERR_NOT_IN_SUBGROUP, CZ_ERR_UNSUPPORTED), CZ_ERR_NO_MEMORY, and
 * CZ_ERR_RANDOM when the OS CSPRNG refuses the subgroup check's seed. */
cz_status cz_zkey_load(cz_zkey *z, const char *path, const cz_zkey_opts *opts, cz_error *err);
/* Same from memory (name labels errors). */
cz_status cz_zkey_load_mem(cz_zkey *z, const void *data, size_t len, const char *name, const cz_zkey_opts *opts,
                           cz_error *err);
void cz_zkey_free(cz_zkey *z);
/* The host memory a full load of this key takes (its bytes field after
 * cz_zkey_load), from the header fields alone (a header_only load gives
 * them, n_coef included). */
uint64_t cz_zkey_expected_bytes(const cz_zkey *z);
/* Allocates a matrix of nrows rows and nnz entries (row_ptr zeroed). On
 * CZ_ERR_NO_MEMORY, what was allocated stays in m for cz_csr_free. */
cz_status cz_csr_alloc(cz_csr *m, uint32_t nrows, uint32_t ncols, uint64_t nnz, const cz_allocator *alloc);
void cz_csr_free(cz_csr *m, const cz_allocator *alloc);

#endif
