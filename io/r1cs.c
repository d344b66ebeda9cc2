#include "io/r1cs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ff/ff.h"
#include "io/binfile.h"

/* Walks all constraints; with fill = 0 validates and counts nnz per matrix,
 * with fill = 1 writes the CSR arrays. */
static cz_status walk(cz_r1cs *rc, const cz_binfile *f, int fill, uint64_t nnz[3], cz_error *err)
{
    const cz_field *fr = cz_field_fr(rc->curve); /* 4 limbs; r1cs_read checked the curve */
    cz_reader rd;
    cz_status st = cz_reader_init(&rd, f, 2, err);
    if (st != CZ_OK) return st;
    cz_csr *mats[3] = {&rc->A, &rc->B, &rc->C};
    uint64_t pos[3] = {0, 0, 0};
    static const char names[3] = {'A', 'B', 'C'};
    for (uint32_t c = 0; c < rc->n_constraints; c++) {
        for (int m = 0; m < 3; m++) {
            uint32_t nt;
            if (rd.end - rd.pos < 4)
                return cz_error_set(err, CZ_ERR_FORMAT,
                                    "%s: section 2, offset %" PRIu64 ": constraint %u of %u: %c term count is cut off "
                                    "(truncated file?)",
                                    f->path, rd.pos, c, rc->n_constraints, names[m]);
            nt = cz_load_u32(rd.p);
            rd.p += 4;
            rd.pos += 4;
            /* each term is 36 bytes: a cheap bound before looping */
            if ((uint64_t)nt * 36 > rd.end - rd.pos)
                return cz_error_set(err, CZ_ERR_FORMAT,
                                    "%s: section 2, offset %" PRIu64 ": constraint %u %c has %u terms, more than the %" PRIu64
                                    " bytes left can hold (truncated file?)",
                                    f->path, rd.pos - 4, c, names[m], nt, rd.end - rd.pos);
            for (uint32_t t = 0; t < nt; t++) {
                const uint8_t *p;
                uint64_t off = rd.pos;
                if ((st = cz_rd_bytes(&rd, &p, 36, "term", err)) != CZ_OK) return st;
                uint32_t wire = cz_load_u32(p);
                uint64_t limbs[4];
                for (int k = 0; k < 4; k++) limbs[k] = cz_load_u64(p + 4 + 8 * k);
                if (!fill) {
                    if (wire >= rc->n_wires)
                        return cz_error_set(err, CZ_ERR_FORMAT,
                                            "%s: section 2, offset %" PRIu64 ": constraint %u %c term %u: wire %u >= nWires %u",
                                            f->path, off, c, names[m], t, wire, rc->n_wires);
                    if (cz_limbs_cmp(limbs, fr->modulus, 4) >= 0)
                        return cz_error_set(err, CZ_ERR_RANGE,
                                            "%s: section 2, offset %" PRIu64 ": constraint %u %c term %u: coefficient >= r",
                                            f->path, off + 4, c, names[m], t);
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
    return cz_rd_expect_end(&rd, "the last constraint", err);
}

static cz_status r1cs_read(cz_r1cs *rc, const cz_binfile *f, int header_only, const cz_allocator *alloc, cz_error *err)
{
    cz_status st;
    cz_reader r;
    uint32_t n8;
    const uint8_t *prime;
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
    if (header_only) goto done;
    uint64_t nnz[3] = {0, 0, 0};
    if ((st = walk(rc, f, 0, nnz, err)) != CZ_OK) goto done;
    cz_csr *mats[3] = {&rc->A, &rc->B, &rc->C};
    for (int m = 0; m < 3; m++) {
        if (cz_csr_alloc(mats[m], rc->n_constraints, rc->n_wires, nnz[m], alloc) != CZ_OK) {
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for %" PRIu64 " matrix entries", f->path, nnz[m]);
            goto done;
        }
    }
    st = walk(rc, f, 1, nnz, err);
done:
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
