/*
 * io/r1cs: circom constraint systems (.r1cs, version 1).
 *
 * DESIGN: section 1 header (u32 n8, prime = r, nWires, nPubOut, nPubIn,
 * nPrvIn, u64 nLabels, nConstraints), section 2 constraints: for each, the
 * linear combinations A, B, C as u32 nTerms then nTerms x (u32 wire, n8 bytes
 * coefficient, standard LE), meaning A.w * B.w = C.w; section 3, one u64
 * label per wire. The header's counts are checked against the sections that
 * hold them (section 3 = 8 nWires bytes, section 2 >= 12 nConstraints) before
 * anything is allocated for them. Read into three CSR matrices (row =
 * constraint) with Montgomery-form values. Two passes over section 2
 * through a buffered reader (io/binfile): the first validates and counts,
 * the second fills, checking everything again (the file may have changed
 * in between). Custom-gate sections (PLONK only) are rejected.
 */
#ifndef CZ_IO_R1CS_H
#define CZ_IO_R1CS_H

#include "io/zkey.h"

typedef struct cz_r1cs {
    cz_curve curve;
    uint32_t n_wires; /* = witness length, wire 0 = ONE */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    cz_csr A, B, C; /* n_constraints rows, n_wires columns */
    const cz_allocator *alloc;
} cz_r1cs;

/* header_only: fill the counts, leave the matrices empty. */
cz_status cz_r1cs_load(cz_r1cs *r, const char *path, int header_only, const cz_allocator *alloc, cz_error *err);
cz_status cz_r1cs_load_mem(cz_r1cs *r, const void *data, size_t len, const char *name, int header_only,
                           const cz_allocator *alloc, cz_error *err);
void cz_r1cs_free(cz_r1cs *r);

#endif
