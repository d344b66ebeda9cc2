#include "io/r1cs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ff/ff.h"
#include "io/binfile.h"

/* the smallest constraint: three empty linear combinations (u32 nTerms = 0) */
enum { MIN_CONSTRAINT_BYTES = 12, TERM_BYTES = 36 };

/* Walks all constraints through a buffered cursor; with fill = 0 validates
 * and counts nnz per matrix, with fill = 1 writes the CSR arrays, checking
 * everything again: the file is read twice and may have changed between
 * the passes, so the second pass never writes beyond what the first
 * counted, nor an index or value the first did not see. */
static cz_status walk(cz_r1cs *rc, const cz_binfile *f, int fill, uint64_t nnz[3], cz_error *err)
{
    const cz_field *fr = cz_field_fr(rc->curve); /* 4 limbs; r1cs_read checked the curve */
    cz_reader rd;
    cz_status st = cz_reader_init(&rd, f, 2, err);
    if (st != CZ_OK) goto out;
    cz_csr *mats[3] = {&rc->A, &rc->B, &rc->C};
    uint64_t pos[3] = {0, 0, 0};
    static const char names[3] = {'A', 'B', 'C'};
    for (uint32_t c = 0; c < rc->n_constraints; c++) {
        for (int m = 0; m < 3; m++) {
            uint32_t nt;
            const uint8_t *p;
            if (rd.end - rd.pos < 4) {
                st = cz_error_set(err, CZ_ERR_FORMAT,
                                  "%s: section 2, offset %" PRIu64 ": constraint %u of %u: %c term count is cut off "
                                  "(truncated file?)",
                                  f->path, rd.pos, c, rc->n_constraints, names[m]);
                goto out;
            }
            if ((st = cz_rd_bytes(&rd, &p, 4, "term count", err)) != CZ_OK) goto out;
            nt = cz_load_u32(p);
            /* each term is 36 bytes: a cheap bound before looping */
            if ((uint64_t)nt * TERM_BYTES > rd.end - rd.pos) {
                st = cz_error_set(err, CZ_ERR_FORMAT,
                                  "%s: section 2, offset %" PRIu64
                                  ": constraint %u %c has %u terms, more than the %" PRIu64
                                  " bytes left can hold (truncated file?)",
                                  f->path, rd.pos - 4, c, names[m], nt, rd.end - rd.pos);
                goto out;
            }
            if (fill && nt > mats[m]->nnz - pos[m]) {
                st = cz_error_set(err, CZ_ERR_IO,
                                  "%s: section 2, offset %" PRIu64 ": constraint %u %c has %u terms on the second "
                                  "reading, more than the first: the file changed while it was read",
                                  f->path, rd.pos - 4, c, names[m], nt);
                goto out;
            }
            for (uint32_t t = 0; t < nt; t++) {
                uint64_t off = rd.pos;
                if ((st = cz_rd_bytes(&rd, &p, TERM_BYTES, "term", err)) != CZ_OK) goto out;
                uint32_t wire = cz_load_u32(p);
                uint64_t limbs[4];
                for (int k = 0; k < 4; k++) limbs[k] = cz_load_u64(p + 4 + 8 * k);
                if (wire >= rc->n_wires) {
                    st = cz_error_set(err, CZ_ERR_FORMAT,
                                      "%s: section 2, offset %" PRIu64
                                      ": constraint %u %c term %u: wire %u >= nWires %u",
                                      f->path, off, c, names[m], t, wire, rc->n_wires);
                    goto out;
                }
                if (cz_limbs_cmp(limbs, fr->modulus, 4) >= 0) {
                    st = cz_error_set(err, CZ_ERR_RANGE,
                                      "%s: section 2, offset %" PRIu64 ": constraint %u %c term %u: coefficient >= r",
                                      f->path, off + 4, c, names[m], t);
                    goto out;
                }
                if (!fill) {
                    nnz[m]++;
                } else {
                    uint64_t slot = pos[m]++;
                    mats[m]->col[slot] = wire;
                    void *dst = (uint8_t *)mats[m]->val + 32 * slot;
                    cz_mont_mul(dst, limbs, fr->r2, fr->modulus, fr->pinv, 4); /* Montgomery form */
                }
            }
            if (fill) mats[m]->row_ptr[c + 1] = pos[m];
        }
    }
    if ((st = cz_rd_expect_end(&rd, "the last constraint", err)) != CZ_OK) goto out;
    for (int m = 0; fill && m < 3; m++)
        if (pos[m] != mats[m]->nnz) {
            st = cz_error_set(err, CZ_ERR_IO,
                              "%s: section 2: %" PRIu64 " %c terms on the second reading, %" PRIu64
                              " on the first: the file changed while it was read",
                              f->path, pos[m], names[m], mats[m]->nnz);
            goto out;
        }
out:
    cz_reader_free(&rd);
    return st;
}

static cz_status r1cs_read(cz_r1cs *rc, const cz_binfile *f, int header_only, const cz_allocator *alloc, cz_error *err)
{
    cz_status st;
    cz_reader r;
    uint32_t n8;
    const uint8_t *prime;
    memset(&r, 0, sizeof r);
    if ((st = cz_reader_init(&r, f, 1, err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &n8, "field size n8", err)) != CZ_OK) goto done;
    if (n8 != 32) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: header: field size n8 = %u, expected 32", f->path, n8);
        goto done;
    }
    if ((st = cz_rd_bytes(&r, &prime, n8, "prime", err)) != CZ_OK) goto done;
    rc->curve = cz_curve_from_r(prime, n8);
    if (rc->curve == CZ_CURVE_NONE) {
        st = cz_error_set(err, CZ_ERR_UNSUPPORTED, "%s: header: the prime is not the scalar field of bn128 or bls12381",
                          f->path);
        goto done;
    }
    if ((st = cz_rd_u32(&r, &rc->n_wires, "nWires", err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &rc->n_pub_out, "nPubOut", err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &rc->n_pub_in, "nPubIn", err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &rc->n_prv_in, "nPrvIn", err)) != CZ_OK) goto done;
    if ((st = cz_rd_u64(&r, &rc->n_labels, "nLabels", err)) != CZ_OK) goto done;
    if ((st = cz_rd_u32(&r, &rc->n_constraints, "nConstraints", err)) != CZ_OK) goto done;
    if ((st = cz_rd_expect_end(&r, "the r1cs header", err)) != CZ_OK) goto done;
    if (rc->n_wires == 0 || (uint64_t)rc->n_pub_out + rc->n_pub_in + rc->n_prv_in >= rc->n_wires) {
        st = cz_error_set(err, CZ_ERR_FORMAT,
                          "%s: header: nWires = %u cannot hold ONE + %u outputs + %u public + %u private inputs", f->path,
                          rc->n_wires, rc->n_pub_out, rc->n_pub_in, rc->n_prv_in);
        goto done;
    }
    if (cz_binfile_has(f, 4) || cz_binfile_has(f, 5)) {
        st = cz_error_set(err, CZ_ERR_UNSUPPORTED, "%s: custom gates (sections 4/5) are PLONK-only, not Groth16", f->path);
        goto done;
    }
    /* The header's counts against the bytes that hold them, before anything
     * is allocated for them (here or by the callers: a matrix row per
     * constraint, a witness value or point per wire): every wire has a
     * label in section 3 (8 bytes each), every constraint takes at least 12
     * bytes of section 2. */
    const cz_binsection *s2, *s3;
    if ((st = cz_binfile_section(f, 3, &s3, err)) != CZ_OK) goto done;
    if (s3->size != (uint64_t)rc->n_wires * 8) {
        st = cz_error_set(err, CZ_ERR_FORMAT,
                          "%s: section 3 (wire map), offset %" PRIu64 ": %" PRIu64
                          " bytes, but nWires = %u in the header needs %u x 8 = %" PRIu64,
                          f->path, s3->offset - 12, s3->size, rc->n_wires, rc->n_wires, (uint64_t)rc->n_wires * 8);
        goto done;
    }
    if ((st = cz_binfile_section(f, 2, &s2, err)) != CZ_OK) goto done;
    if ((uint64_t)rc->n_constraints * MIN_CONSTRAINT_BYTES > s2->size) {
        st = cz_error_set(err, CZ_ERR_FORMAT,
                          "%s: section 2 (constraints), offset %" PRIu64 ": %" PRIu64
                          " bytes cannot hold the nConstraints = %u of the header (at least %d bytes each, %" PRIu64
                          " in all)",
                          f->path, s2->offset - 12, s2->size, rc->n_constraints, MIN_CONSTRAINT_BYTES,
                          (uint64_t)rc->n_constraints * MIN_CONSTRAINT_BYTES);
        goto done;
    }
    if (header_only) {
        st = cz_binfile_check_unchanged(f, err);
        goto done;
    }
    uint64_t nnz[3] = {0, 0, 0};
    if ((st = walk(rc, f, 0, nnz, err)) != CZ_OK) goto done;
    cz_csr *mats[3] = {&rc->A, &rc->B, &rc->C};
    for (int m = 0; m < 3; m++) {
        if (cz_csr_alloc(mats[m], rc->n_constraints, rc->n_wires, nnz[m], alloc) != CZ_OK) {
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for %" PRIu64 " matrix entries", f->path, nnz[m]);
            goto done;
        }
    }
    if ((st = walk(rc, f, 1, nnz, err)) != CZ_OK) goto done;
    st = cz_binfile_check_unchanged(f, err);
done:
    cz_reader_free(&r);
    return st;
}

cz_status cz_r1cs_load(cz_r1cs *rc, const char *path, int header_only, const cz_allocator *alloc, cz_error *err)
{
    memset(rc, 0, sizeof *rc);
    rc->alloc = alloc;
    cz_binfile f;
    cz_status st = cz_binfile_open(&f, path, "r1cs", 1, 1, err);
    if (st != CZ_OK) return st;
    st = r1cs_read(rc, &f, header_only, alloc, err);
    cz_binfile_close(&f);
    if (st != CZ_OK) cz_r1cs_free(rc);
    return st;
}

cz_status cz_r1cs_load_mem(cz_r1cs *rc, const void *data, size_t len, const char *name, int header_only,
                           const cz_allocator *alloc, cz_error *err)
{
    memset(rc, 0, sizeof *rc);
    rc->alloc = alloc;
    cz_binfile f;
    cz_status st = cz_binfile_open_mem(&f, data, len, name, "r1cs", 1, 1, err);
    if (st != CZ_OK) return st;
    st = r1cs_read(rc, &f, header_only, alloc, err);
    cz_binfile_close(&f);
    if (st != CZ_OK) cz_r1cs_free(rc);
    return st;
}

void cz_r1cs_free(cz_r1cs *rc)
{
    cz_csr_free(&rc->A, rc->alloc);
    cz_csr_free(&rc->B, rc->alloc);
    cz_csr_free(&rc->C, rc->alloc);
    const cz_allocator *a = rc->alloc;
    memset(rc, 0, sizeof *rc);
    rc->alloc = a;
}
