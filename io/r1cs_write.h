/*
 * io/r1cs_write: a streaming writer of circom constraint systems (.r1cs v1).
 *
 * DESIGN: the file is written through util/atomic_file (a temporary in the
 * destination's directory, renamed into place by cz_r1cs_writer_finish, removed
 * by cz_r1cs_writer_abort or on any error), so a reader never sees a partial
 * file. Layout (docs/FORMATS.md), sections in the order
 * 1, 2, 3 (readers find sections by id; circom itself writes 2, 1, 3):
 *
 *   "r1cs" u32 1 u32 3
 *   u32 1 u64 64   header: u32 n8 = 32, r (32 bytes LE), u32 nWires,
 *                  u32 nPubOut, u32 nPubIn, u32 nPrvIn, u64 nLabels,
 *                  u32 nConstraints
 *   u32 2 u64 S    constraints: per constraint the linear combinations A, B, C,
 *                  each u32 nTerms then nTerms x (u32 wire, 32-byte coefficient,
 *                  canonical little-endian < r); meaning A.w * B.w = C.w
 *   u32 3 u64 8W   wire -> label map, one u64 per wire
 *
 * Constraints are streamed: nothing but a write buffer is held, whatever the
 * number of constraints. The section-2 size S and nConstraints are patched in
 * place by finish, and every section size is written as a full u64, so files
 * above 4 GiB are correct (circom_runtime's witness writer is not: it splits
 * the u64 through a hex string that is right only below 2^32).
 *
 * Not thread-safe: one writer is driven by one thread at a time. Callers that
 * build constraints in parallel encode them into byte buffers with
 * cz_r1cs_put_* (below) and hand the buffers over in order with
 * cz_r1cs_writer_add_encoded.
 *
 * A wire must not occur twice in one linear combination: snarkjs reads a
 * combination into a map keyed by wire (the last term wins), cuzk's reader
 * adds the terms, so such a file would mean different things to the two.
 * cz_r1cs_writer_add rejects duplicates; add_encoded trusts its caller.
 */
#ifndef CZ_IO_R1CS_WRITE_H
#define CZ_IO_R1CS_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"
#include "util/atomic_file.h"
#include "util/error.h"

typedef struct cz_r1cs_header {
    cz_curve curve;
    uint32_t n_wires; /* incl. wire 0 = ONE */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels; /* 0: n_wires */
} cz_r1cs_header;

typedef struct cz_r1cs_writer {
    cz_atomic_file af;
    cz_r1cs_header h;
    uint64_t n_constraints; /* streamed so far */
    uint64_t sec2_bytes;    /* body bytes of section 2 so far */
    uint64_t bytes;         /* size of the whole file, valid after finish */
    cz_status st;           /* sticky: the first failure */
    char *iobuf;            /* stdio buffer */
} cz_r1cs_writer;

/* One linear combination: n terms (wire[i], coef[i]). coef points at n
 * scalar-field elements: cz_bn254_fr / cz_bls12_381_fr in Montgomery form, or
 * 32-byte canonical little-endian integers, as the add call says. */
typedef struct cz_r1cs_lc {
    uint32_t n;
    const uint32_t *wire;
    const void *coef;
} cz_r1cs_lc;

/* Creates the temporary output and writes the header. Checks the header as
 * the reader does (a known curve, nWires > nPubOut + nPubIn + nPrvIn, and
 * nLabels >= nWires; CZ_ERR_INVALID_ARG). On failure nothing is left on disk
 * and w needs no abort. */
cz_status cz_r1cs_writer_open(cz_r1cs_writer *w, const char *path, const cz_r1cs_header *h, cz_error *err);

/* Appends one constraint A.w * B.w = C.w. montgomery: 1 when the coefficients
 * are field elements in Montgomery form, 0 when they are canonical LE bytes.
 * Checks wires (< nWires, no repeat within a combination) and canonical
 * coefficients (< r); CZ_ERR_INVALID_ARG / CZ_ERR_RANGE leave the writer
 * usable (nothing was written), I/O errors are sticky. */
cz_status cz_r1cs_writer_add(cz_r1cs_writer *w, const cz_r1cs_lc *a, const cz_r1cs_lc *b, const cz_r1cs_lc *c,
                             int montgomery, cz_error *err);

/* Appends count constraints already encoded as section-2 bytes (len bytes,
 * e.g. with cz_r1cs_put_*). Checks that the bytes hold exactly count
 * constraints and that every wire is < nWires; coefficients must be < r
 * (not checked). */
cz_status cz_r1cs_writer_add_encoded(cz_r1cs_writer *w, const void *bytes, size_t len, uint64_t count, cz_error *err);

/* Writes section 3 (labels: nWires label ids, or NULL for label = wire),
 * patches nConstraints and the section-2 size, then flushes, syncs and
 * renames the file into place. CZ_ERR_RANGE if more than 2^32 - 1
 * constraints were streamed. On any failure the temporary is removed. */
cz_status cz_r1cs_writer_finish(cz_r1cs_writer *w, const uint64_t *labels, cz_error *err);

/* Drops the output (removes the temporary). Safe after finish or a failed
 * open. */
void cz_r1cs_writer_abort(cz_r1cs_writer *w);

/* ---- encoding helpers for section-2 bytes ---- */

/* Bytes of one linear combination of n terms. */
static inline size_t cz_r1cs_lc_size(uint32_t n)
{
    return 4 + (size_t)36 * n;
}

static inline uint8_t *cz_r1cs_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    return p + 4;
}

/* One term: wire, then the coefficient given as 4 canonical limbs (< r). */
static inline uint8_t *cz_r1cs_put_term(uint8_t *p, uint32_t wire, const uint64_t coef[4])
{
    p = cz_r1cs_put_u32(p, wire);
    for (int i = 0; i < 4; i++) {
        uint64_t v = coef[i];
        for (int k = 0; k < 8; k++)
            p[8 * i + k] = (uint8_t)(v >> (8 * k));
    }
    return p + 32;
}

#endif
