/* cuzk info: describes a .zkey, .r1cs or .wtns file (kind from its magic). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "ff/ff.h"
#include "groth16/groth16.h"
#include "io/binfile.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"

const char USAGE_INFO[] =
    "usage: cuzk info [options] FILE\n"
    "\n"
    "Describes a snarkjs .zkey, a circom .r1cs or a .wtns file: curve, number of\n"
    "constraints, variables and public inputs, domain size, and sizes. The kind\n"
    "of file is read from its magic bytes.\n"
    "\n"
    "options:\n"
    "  -h, --help            this text\n";

/* path: the file, size: its size (human_bytes) */
static int info_zkey(const char *path, const char *size, cz_error *err)
{
    cz_zkey zk;
    cz_status st;
    if ((st = cz_zkey_load(&zk, path, NULL, err)) != CZ_OK) return fail(st, err);
    /* constraint rows with an A or B term, public-input rows excluded */
    uint32_t used = 0;
    for (uint32_t i = 0; i < zk.domain_size; i++)
        if (zk.A.row_ptr[i + 1] > zk.A.row_ptr[i] || zk.B.row_ptr[i + 1] > zk.B.row_ptr[i]) used = i + 1;
    char kb[32];
    human_bytes(kb, sizeof kb, zk.bytes);
    printf("file:            %s (%s)\n", path, size);
    printf("kind:            snarkjs Groth16 proving key (zkey v1)\n");
    printf("curve:           %s (snarkjs: %s)\n", cz_curve_name(zk.curve), cz_curve_snarkjs_name(zk.curve));
    printf("variables:       %u (wire 0 = 1, %u public, %u private)\n", zk.n_vars, zk.n_public,
           zk.n_vars - zk.n_public - 1);
    printf("public inputs:   %u\n", zk.n_public);
    printf("constraints:     <= %u (rows with A/B terms, before the %u public-input rows)\n",
           used > zk.n_public + 1 ? used - zk.n_public - 1 : 0, zk.n_public + 1);
    printf("domain size:     %u (2^%u)\n", zk.domain_size, zk.log_domain);
    printf("coefficients:    %" PRIu64 " (A %" PRIu64 ", B %" PRIu64 ")\n", zk.n_coef, zk.A.nnz, zk.B.nnz);
    printf("points:          A %u, B1 %u, B2 %u (G2), C %u, H %u, IC %u\n", zk.n_vars, zk.n_vars, zk.n_vars,
           zk.n_vars - zk.n_public - 1, zk.domain_size, zk.n_public + 1);
    printf("memory loaded:   %s\n", kb);
    printf("prover working set: %zu bytes for a, b\n", cz_ab_bytes(zk.domain_size));
    cz_zkey_free(&zk);
    return EXIT_OK;
}

/* The distinct columns (wires) of each matrix, and the share of the private
 * wires (after ONE and the public signals) among them. */
static int info_r1cs_shape(const cz_r1cs *r, uint32_t npub, cz_error *err)
{
    uint8_t *seen = calloc(r->n_wires, 1);
    if (!seen) {
        cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        return fail(CZ_ERR_NO_MEMORY, err);
    }
    uint64_t nprv = (uint64_t)r->n_wires - 1 - npub;
    double rows = r->n_constraints ? (double)r->n_constraints : 1.0;
    printf("shape:           %u rows x %u columns; per row A %.2f, B %.2f, C %.2f terms\n", r->n_constraints,
           r->n_wires, (double)r->A.nnz / rows, (double)r->B.nnz / rows, (double)r->C.nnz / rows);
    const cz_csr *mats[3] = {&r->A, &r->B, &r->C};
    for (int m = 0; m < 3; m++) {
        memset(seen, 0, r->n_wires);
        for (uint64_t i = 0; i < mats[m]->nnz; i++) seen[mats[m]->col[i]] = 1;
        uint64_t cols = 0, prv = 0;
        for (uint32_t i = 0; i < r->n_wires; i++) {
            cols += seen[i];
            if (i > npub) prv += seen[i];
        }
        printf("columns of %c:    %" PRIu64 " distinct; private wires %" PRIu64 " of %" PRIu64 " (%.1f%%)\n",
               "ABC"[m], cols, prv, nprv, nprv ? 100.0 * (double)prv / (double)nprv : 0.0);
    }
    free(seen);
    return EXIT_OK;
}

static int info_r1cs(const char *path, const char *size, cz_error *err)
{
    cz_r1cs r;
    cz_status st;
    if ((st = cz_r1cs_load(&r, path, 0, NULL, err)) != CZ_OK) return fail(st, err);
    uint32_t npub = r.n_pub_out + r.n_pub_in;
    uint32_t k = 0;
    while (((uint64_t)1 << k) <= (uint64_t)r.n_constraints + npub) k++;
    printf("file:            %s (%s)\n", path, size);
    printf("kind:            circom constraint system (r1cs v1)\n");
    printf("curve:           %s (snarkjs: %s)\n", cz_curve_name(r.curve), cz_curve_snarkjs_name(r.curve));
    printf("constraints:     %u\n", r.n_constraints);
    printf("wires:           %u (outputs %u, public inputs %u, private inputs %u, labels %" PRIu64 ")\n", r.n_wires,
           r.n_pub_out, r.n_pub_in, r.n_prv_in, r.n_labels);
    printf("public inputs:   %u\n", npub);
    printf("non-zeros:       A %" PRIu64 ", B %" PRIu64 ", C %" PRIu64 "\n", r.A.nnz, r.B.nnz, r.C.nnz);
    printf("domain size:     2^%u (snarkjs: smallest power of two > constraints + public)\n", k);
    int rc = info_r1cs_shape(&r, npub, err);
    cz_r1cs_free(&r);
    return rc;
}

static int info_wtns(const char *path, const char *size, cz_error *err)
{
    cz_wtns w;
    cz_status st;
    if ((st = cz_wtns_load(&w, path, NULL, err)) != CZ_OK) return fail(st, err);
    /* share of 0/1 values: the MSMs skip 0 and sum 1 cheaply */
    uint64_t zeros = 0, ones = 0;
    /* 0 and the Montgomery one of the witness's field: 0 and R mod r */
    const cz_field *fr = cz_field_fr(w.curve);
    uint64_t one[8] = {0}, r2[8] = {0}, canon_one[8] = {1};
    memcpy(r2, fr->r2, fr->bytes);
    cz_mont_mul(one, canon_one, r2, fr->modulus, fr->pinv, fr->limbs); /* 1 * R^2 / R = R */
    static const uint8_t zero[64];
    for (uint32_t i = 0; i < w.n; i++) {
        const uint8_t *v = (const uint8_t *)w.values + fr->bytes * i;
        zeros += memcmp(v, zero, fr->bytes) == 0;
        ones += memcmp(v, one, fr->bytes) == 0;
    }
    printf("file:            %s (%s)\n", path, size);
    printf("kind:            witness (wtns v2)\n");
    printf("curve:           %s (snarkjs: %s)\n", cz_curve_name(w.curve), cz_curve_snarkjs_name(w.curve));
    printf("values:          %u\n", w.n);
    printf("zeros / ones:    %" PRIu64 " (%.1f%%) / %" PRIu64 " (%.1f%%)\n", zeros, 100.0 * (double)zeros / w.n,
           ones, 100.0 * (double)ones / w.n);
    cz_wtns_free(&w);
    return EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(USAGE_INFO, stdout); return EXIT_OK;
        default: fputs(USAGE_INFO, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        msg("info needs 1 argument: a .zkey, .r1cs or .wtns file (got %d)", argc - optind);
        fputs(USAGE_INFO, stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    cz_error err;
    cz_error_clear(&err);
    uint8_t magic[4] = {0};
    size_t got = 0;
    cz_status st = cz_io_read_magic(path, magic, &got, &err); /* refuses a FIFO, a device or a directory */
    if (st != CZ_OK) return fail(st, &err);
    struct stat sb;
    char hb[32];
    human_bytes(hb, sizeof hb, stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0);
    if (got == 4 && memcmp(magic, "zkey", 4) == 0) return info_zkey(path, hb, &err);
    if (got == 4 && memcmp(magic, "r1cs", 4) == 0) return info_r1cs(path, hb, &err);
    if (got == 4 && memcmp(magic, "wtns", 4) == 0) return info_wtns(path, hb, &err);
    cz_error_set(&err, CZ_ERR_FORMAT, "%s: not a .zkey, .r1cs or .wtns file (magic bytes '%.4s')", path,
                 got == 4 ? (const char *)magic : "");
    return fail(CZ_ERR_FORMAT, &err);
}
