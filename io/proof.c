#include "io/proof.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ec/ec.h"
#include "ec/ec_serde.h"
#include "io/json.h"
#include "util/atomic_file.h"

/* ---- per-curve coordinate helpers: the field and group tables of ff/, ec/
 * (the entry points refuse a curve that has none) ---- */

static cz_status curve_known(cz_curve c, const char *path, cz_error *err)
{
    if (cz_curve_info_get(c)) return CZ_OK;
    return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown curve %d", path, (int)c);
}

static int nq_limbs(cz_curve c) { return cz_field_fq(c)->limbs; }

static void fq_dec(cz_curve c, char *buf, const uint64_t *limbs) { cz_field_fq(c)->to_dec(buf, CZ_FP_DEC_MAX, limbs); }

static cz_status fq_parse(cz_curve c, uint64_t *limbs, const char *s, size_t len)
{
    return cz_field_fq(c)->from_dec(limbs, s, len);
}

static void fr_dec(cz_curve c, char *buf, const void *v) { cz_field_fr(c)->to_dec(buf, CZ_FP_DEC_MAX, v); }

static cz_status fr_parse(cz_curve c, void *v, const char *s, size_t len) { return cz_field_fr(c)->from_dec(v, s, len); }

/* Jacobian (x, y, z) in limbs -> affine; on-curve and (optionally) subgroup
 * check. group 1 or 2. Returns 0 ok, 1 not on curve, 2 not in subgroup. */
static int finish_point(cz_curve c, int group, uint64_t *aff, const uint64_t *jac, int subgroup)
{
    const cz_group *g = group == 1 ? cz_group_g1(c) : cz_group_g2(c);
    if (!g->is_on_curve(jac)) return 1;
    if (subgroup && !g->in_subgroup(jac)) return 2;
    g->to_affine(aff, jac);
    return 0;
}

static int affine_is_inf(cz_curve c, int group, const uint64_t *aff)
{
    int words = nq_limbs(c) * 2 * group;
    for (int i = 0; i < words; i++)
        if (aff[i]) return 0;
    return 1;
}

/* ---- writing ---- */

static void write_g1(FILE *f, cz_curve c, const uint64_t *p, const char *indent)
{
    char x[CZ_FP_DEC_MAX], y[CZ_FP_DEC_MAX];
    if (affine_is_inf(c, 1, p)) {
        fprintf(f, "[\n%s \"0\",\n%s \"1\",\n%s \"0\"\n%s]", indent, indent, indent, indent);
        return;
    }
    int n = nq_limbs(c);
    fq_dec(c, x, p);
    fq_dec(c, y, p + n);
    fprintf(f, "[\n%s \"%s\",\n%s \"%s\",\n%s \"1\"\n%s]", indent, x, indent, y, indent, indent);
}

static void write_g2(FILE *f, cz_curve c, const uint64_t *p, const char *indent)
{
    char v[4][CZ_FP_DEC_MAX];
    int n = nq_limbs(c);
    if (affine_is_inf(c, 2, p)) {
        fprintf(f, "[\n%s [\n%s  \"0\",\n%s  \"0\"\n%s ],\n%s [\n%s  \"1\",\n%s  \"0\"\n%s ],\n%s [\n%s  \"0\",\n%s  \"0\"\n%s ]\n%s]",
                indent, indent, indent, indent, indent, indent, indent, indent, indent, indent, indent, indent, indent);
        return;
    }
    for (int i = 0; i < 4; i++) fq_dec(c, v[i], p + i * n);
    fprintf(f,
            "[\n%s [\n%s  \"%s\",\n%s  \"%s\"\n%s ],\n%s [\n%s  \"%s\",\n%s  \"%s\"\n%s ],\n%s [\n%s  \"1\",\n%s  \"0\"\n%s ]\n%s]",
            indent, indent, v[0], indent, v[1], indent, indent, indent, v[2], indent, v[3], indent, indent, indent,
            indent, indent, indent);
}

static void emit_proof(FILE *f, const cz_proof *p)
{
    fprintf(f, "{\n \"pi_a\": ");
    write_g1(f, p->curve, p->a, " ");
    fprintf(f, ",\n \"pi_b\": ");
    write_g2(f, p->curve, p->b, " ");
    fprintf(f, ",\n \"pi_c\": ");
    write_g1(f, p->curve, p->c, " ");
    fprintf(f, ",\n \"protocol\": \"groth16\",\n \"curve\": \"%s\"\n}", cz_curve_snarkjs_name(p->curve));
}

static void emit_public(FILE *f, cz_curve curve, const void *values, size_t n)
{
    char buf[CZ_FP_DEC_MAX];
    fprintf(f, "[");
    for (size_t i = 0; i < n; i++) {
        fr_dec(curve, buf, (const uint8_t *)values + 32 * i);
        fprintf(f, "%s\n \"%s\"", i ? "," : "", buf);
    }
    fprintf(f, "%s]", n ? "\n" : "");
}

cz_status cz_proof_write_json(const char *path, const cz_proof *p, cz_error *err)
{
    cz_status st = curve_known(p->curve, path, err);
    if (st != CZ_OK) return st;
    cz_atomic_file af;
    st = cz_atomic_file_open(&af, path, err);
    if (st != CZ_OK) return st;
    emit_proof(af.fp, p);
    return cz_atomic_file_commit(&af, err);
}

cz_status cz_public_write_json(const char *path, cz_curve curve, const void *values, size_t n, cz_error *err)
{
    cz_status st = curve_known(curve, path, err);
    if (st != CZ_OK) return st;
    cz_atomic_file af;
    st = cz_atomic_file_open(&af, path, err);
    if (st != CZ_OK) return st;
    emit_public(af.fp, curve, values, n);
    return cz_atomic_file_commit(&af, err);
}

static void emit_vkey(FILE *f, const cz_vkey *vk, const void *alphabeta)
{
    cz_curve c = vk->curve;
    fprintf(f, "{\n \"protocol\": \"groth16\",\n \"curve\": \"%s\",\n \"nPublic\": %u,\n \"vk_alpha_1\": ",
            cz_curve_snarkjs_name(c), vk->n_public);
    write_g1(f, c, vk->alpha1, " ");
    fprintf(f, ",\n \"vk_beta_2\": ");
    write_g2(f, c, vk->beta2, " ");
    fprintf(f, ",\n \"vk_gamma_2\": ");
    write_g2(f, c, vk->gamma2, " ");
    fprintf(f, ",\n \"vk_delta_2\": ");
    write_g2(f, c, vk->delta2, " ");
    /* Fq12 = (Fq6, Fq6), Fq6 = (Fq2, Fq2, Fq2), Fq2 = (c0, c1) */
    fprintf(f, ",\n \"vk_alphabeta_12\": [");
    const uint64_t *ab = alphabeta;
    int n = nq_limbs(c);
    char buf[CZ_FP_DEC_MAX];
    for (int i6 = 0; i6 < 2; i6++) {
        fprintf(f, "%s\n  [", i6 ? "," : "");
        for (int i2 = 0; i2 < 3; i2++) {
            fprintf(f, "%s\n   [", i2 ? "," : "");
            for (int k = 0; k < 2; k++) {
                fq_dec(c, buf, ab + ((i6 * 3 + i2) * 2 + k) * n);
                fprintf(f, "%s\n    \"%s\"", k ? "," : "", buf);
            }
            fprintf(f, "\n   ]");
        }
        fprintf(f, "\n  ]");
    }
    fprintf(f, "\n ],\n \"IC\": [");
    for (uint32_t i = 0; i <= vk->n_public; i++) {
        fprintf(f, "%s\n  ", i ? "," : "");
        write_g1(f, c, vk->ic + 12 * (size_t)i, "  ");
    }
    fprintf(f, "\n ]\n}");
}

cz_status cz_vkey_write_json(const char *path, const cz_vkey *vk, const void *alphabeta, cz_error *err)
{
    cz_status st = curve_known(vk->curve, path, err);
    if (st != CZ_OK) return st;
    cz_atomic_file af;
    st = cz_atomic_file_open(&af, path, err);
    if (st != CZ_OK) return st;
    emit_vkey(af.fp, vk, alphabeta);
    return cz_atomic_file_commit(&af, err);
}

/* text of one emit_* into a malloc'ed string */
#define CZ_FORMAT_TO_STRING(out, err, call)                                                                           \
    do {                                                                                                            \
        size_t len_ = 0;                                                                                            \
        *(out) = NULL;                                                                                              \
        FILE *f = open_memstream((out), &len_);                                                                     \
        if (!f) return cz_error_set((err), CZ_ERR_NO_MEMORY, "out of memory");                                      \
        call;                                                                                                       \
        if (fclose(f) != 0) {                                                                                       \
            free(*(out));                                                                                           \
            *(out) = NULL;                                                                                          \
            return cz_error_set((err), CZ_ERR_NO_MEMORY, "out of memory");                                          \
        }                                                                                                           \
        return CZ_OK;                                                                                               \
    } while (0)

cz_status cz_proof_format_json(const cz_proof *p, char **out, cz_error *err)
{
    *out = NULL;
    if (curve_known(p->curve, "proof.json", err) != CZ_OK) return CZ_ERR_INVALID_ARG;
    CZ_FORMAT_TO_STRING(out, err, emit_proof(f, p));
}

cz_status cz_public_format_json(cz_curve curve, const void *values, size_t n, char **out, cz_error *err)
{
    *out = NULL;
    if (curve_known(curve, "public.json", err) != CZ_OK) return CZ_ERR_INVALID_ARG;
    CZ_FORMAT_TO_STRING(out, err, emit_public(f, curve, values, n));
}

cz_status cz_vkey_format_json(const cz_vkey *vk, const void *alphabeta, char **out, cz_error *err)
{
    *out = NULL;
    if (curve_known(vk->curve, "verification_key.json", err) != CZ_OK) return CZ_ERR_INVALID_ARG;
    CZ_FORMAT_TO_STRING(out, err, emit_vkey(f, vk, alphabeta));
}

/* ---- reading ---- */

static cz_status want_coord(cz_curve c, uint64_t *limbs, const cz_json *v, const char *path, const char *what,
                            cz_error *err)
{
    if (!v || v->type != CZ_JSON_STRING)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: %s: expected a decimal string", path, what);
    cz_status st = fq_parse(c, limbs, v->str, v->len);
    if (st == CZ_ERR_RANGE) return cz_error_set(err, st, "%s: %s: value >= the base field prime q", path, what);
    if (st != CZ_OK) return cz_error_set(err, CZ_ERR_FORMAT, "%s: %s: '%.40s' is not a decimal integer", path, what, v->str);
    return CZ_OK;
}

/* Parses a G1 ([x,y,z]) or G2 ([[x0,x1],[y0,y1],[z0,z1]]) JSON point. */
static cz_status read_point(cz_curve c, int group, uint64_t *aff, const cz_json *v, int subgroup, const char *path,
                            const char *name, cz_error *err)
{
    char what[128];
    if (!v) return cz_error_set(err, CZ_ERR_FORMAT, "%s: %s is missing", path, name);
    if (v->type != CZ_JSON_ARRAY || v->nchild != 3)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: %s: expected an array of 3 coordinates", path, name);
    int n = nq_limbs(c);
    uint64_t jac[3 * 2 * 6] = {0}; /* X, Y, Z each group x n limbs */
    static const char *cn = "xyz";
    for (int k = 0; k < 3; k++) {
        const cz_json *e = v->child[k];
        if (group == 1) {
            snprintf(what, sizeof what, "%s.%c", name, cn[k]);
            cz_status st = want_coord(c, jac + k * n, e, path, what, err);
            if (st != CZ_OK) return st;
        } else {
            if (e->type != CZ_JSON_ARRAY || e->nchild != 2)
                return cz_error_set(err, CZ_ERR_FORMAT, "%s: %s.%c: expected [c0, c1]", path, name, cn[k]);
            for (int j = 0; j < 2; j++) {
                snprintf(what, sizeof what, "%s.%c.c%d", name, cn[k], j);
                cz_status st = want_coord(c, jac + (2 * k + j) * n, e->child[j], path, what, err);
                if (st != CZ_OK) return st;
            }
        }
    }
    /* internal limbs are Montgomery: z == 0 checks are representation-free */
    int zlen = n * group;
    int zzero = 1;
    for (int i = 0; i < zlen; i++) zzero &= jac[2 * zlen + i] == 0;
    if (zzero) {
        memset(aff, 0, (size_t)2 * zlen * 8);
        return CZ_OK;
    }
    int r = finish_point(c, group, aff, jac, subgroup);
    if (r == 1) return cz_error_set(err, CZ_ERR_NOT_ON_CURVE, "%s: %s is not on the curve", path, name);
    if (r == 2) return cz_error_set(err, CZ_ERR_NOT_IN_SUBGROUP, "%s: %s is not in the prime-order subgroup", path, name);
    return CZ_OK;
}

cz_status cz_proof_read_json(cz_proof *p, cz_curve curve, const char *path, cz_error *err)
{
    memset(p, 0, sizeof *p);
    cz_status st = curve_known(curve, path, err);
    if (st != CZ_OK) return st;
    cz_json_doc *doc;
    cz_json *root;
    st = cz_json_parse_file_max(&doc, &root, path, CZ_PROOF_JSON_MAX, "a proof", err);
    if (st != CZ_OK) return st;
    if (root->type != CZ_JSON_OBJECT) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: expected a JSON object with pi_a, pi_b, pi_c", path);
        goto done;
    }
    const cz_json *pc = cz_json_get(root, "curve");
    if (pc && pc->type == CZ_JSON_STRING && cz_curve_parse(pc->str) != curve) {
        st = cz_error_set(err, CZ_ERR_MISMATCH, "%s: proof is for curve '%s', the verifying key for %s", path, pc->str,
                          cz_curve_snarkjs_name(curve));
        goto done;
    }
    p->curve = curve;
    if ((st = read_point(curve, 1, p->a, cz_json_get(root, "pi_a"), 1, path, "pi_a", err)) != CZ_OK) goto done;
    if ((st = read_point(curve, 2, p->b, cz_json_get(root, "pi_b"), 1, path, "pi_b", err)) != CZ_OK) goto done;
    if ((st = read_point(curve, 1, p->c, cz_json_get(root, "pi_c"), 1, path, "pi_c", err)) != CZ_OK) goto done;
done:
    cz_json_free(doc);
    return st;
}

cz_status cz_public_read_json(void **values, size_t *n, cz_curve curve, const char *path, cz_error *err)
{
    *values = NULL;
    *n = 0;
    cz_status st = curve_known(curve, path, err);
    if (st != CZ_OK) return st;
    cz_json_doc *doc;
    cz_json *root;
    st = cz_json_parse_file_max(&doc, &root, path, CZ_PUBLIC_JSON_MAX, "public signals", err);
    if (st != CZ_OK) return st;
    if (root->type != CZ_JSON_ARRAY) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: expected a JSON array of decimal strings", path);
        goto done;
    }
    if (root->nchild > CZ_JSON_MAX_PUBLIC) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: %zu public signals, more than the %zu cuzk reads", path,
                          root->nchild, CZ_JSON_MAX_PUBLIC);
        goto done;
    }
    uint8_t *v = malloc(root->nchild ? root->nchild * 32 : 1);
    if (!v) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", path);
        goto done;
    }
    for (size_t i = 0; i < root->nchild; i++) {
        const cz_json *e = root->child[i];
        if (e->type == CZ_JSON_NUMBER) {
            st = cz_error_set(err, CZ_ERR_FORMAT,
                              "%s: element %zu: %.40s is a JSON number, expected a decimal string (\"%.40s\"), as "
                              "snarkjs requires",
                              path, i, e->str, e->str);
            break;
        }
        if (e->type != CZ_JSON_STRING) {
            st = cz_error_set(err, CZ_ERR_FORMAT, "%s: element %zu: expected a decimal string", path, i);
            break;
        }
        st = fr_parse(curve, v + 32 * i, e->str, e->len);
        if (st == CZ_ERR_RANGE) {
            st = cz_error_set(err, st, "%s: element %zu: public signal >= the scalar field prime r", path, i);
            break;
        }
        if (st != CZ_OK) {
            st = cz_error_set(err, CZ_ERR_FORMAT, "%s: element %zu: '%.40s' is not a decimal integer", path, i, e->str);
            break;
        }
    }
    if (st != CZ_OK) {
        free(v);
        goto done;
    }
    *values = v;
    *n = root->nchild;
done:
    cz_json_free(doc);
    return st;
}

void cz_vkey_free(cz_vkey *vk)
{
    free(vk->ic);
    vk->ic = NULL;
}

cz_status cz_vkey_read_json(cz_vkey *vk, const char *path, cz_error *err)
{
    memset(vk, 0, sizeof *vk);
    cz_json_doc *doc;
    cz_json *root;
    cz_status st = cz_json_parse_file_max(&doc, &root, path, CZ_VKEY_JSON_MAX, "a verification key", err);
    if (st != CZ_OK) return st;
    const cz_json *proto = cz_json_get(root, "protocol"), *curve = cz_json_get(root, "curve");
    const cz_json *ic = cz_json_get(root, "IC"), *np = cz_json_get(root, "nPublic");
    if (root->type != CZ_JSON_OBJECT) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: expected a JSON object (a snarkjs verification key)", path);
        goto done;
    }
    if (!proto || proto->type != CZ_JSON_STRING || strcmp(proto->str, "groth16") != 0) {
        st = cz_error_set(err, CZ_ERR_UNSUPPORTED, "%s: protocol is %s%s%s, expected \"groth16\"", path,
                          proto && proto->type == CZ_JSON_STRING ? "\"" : "",
                          proto && proto->type == CZ_JSON_STRING ? proto->str : "missing",
                          proto && proto->type == CZ_JSON_STRING ? "\"" : "");
        goto done;
    }
    vk->curve = curve && curve->type == CZ_JSON_STRING ? cz_curve_parse(curve->str) : CZ_CURVE_NONE;
    if (vk->curve == CZ_CURVE_NONE) {
        st = cz_error_set(err, CZ_ERR_UNSUPPORTED, "%s: curve is %s, expected \"bn128\" or \"bls12381\"", path,
                          curve && curve->type == CZ_JSON_STRING ? curve->str : "missing");
        goto done;
    }
    if (!ic || ic->type != CZ_JSON_ARRAY || ic->nchild == 0) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: IC: expected a non-empty array of G1 points", path);
        goto done;
    }
    if (ic->nchild > CZ_JSON_MAX_PUBLIC + 1) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: IC: %zu points, more than the %zu (public signals + 1) cuzk reads",
                          path, ic->nchild, CZ_JSON_MAX_PUBLIC + 1);
        goto done;
    }
    vk->n_public = (uint32_t)(ic->nchild - 1);
    if (np) {
        uint64_t v = 0;
        cz_status s2 = cz_json_uint(np, UINT32_MAX, &v);
        if (s2 != CZ_OK) {
            st = cz_error_set(err, CZ_ERR_FORMAT,
                              "%s: nPublic = %.40s: expected an integer in [0, 2^32) (digits only: "
                              "no sign, fraction or exponent)",
                              path,
                              np->type == CZ_JSON_NUMBER   ? np->str
                              : np->type == CZ_JSON_STRING ? "(a string)"
                                                           : "(not a number)");
            goto done;
        }
        if (v != vk->n_public) {
            st = cz_error_set(err, CZ_ERR_FORMAT,
                              "%s: nPublic = %" PRIu64 " does not match the %zu IC points (nPublic + 1)", path, v,
                              ic->nchild);
            goto done;
        }
    }
    cz_curve c = vk->curve;
    if ((st = read_point(c, 1, vk->alpha1, cz_json_get(root, "vk_alpha_1"), 1, path, "vk_alpha_1", err)) != CZ_OK) goto done;
    if ((st = read_point(c, 2, vk->beta2, cz_json_get(root, "vk_beta_2"), 1, path, "vk_beta_2", err)) != CZ_OK) goto done;
    if ((st = read_point(c, 2, vk->gamma2, cz_json_get(root, "vk_gamma_2"), 1, path, "vk_gamma_2", err)) != CZ_OK) goto done;
    if ((st = read_point(c, 2, vk->delta2, cz_json_get(root, "vk_delta_2"), 1, path, "vk_delta_2", err)) != CZ_OK) goto done;
    vk->ic = calloc(ic->nchild, 12 * sizeof(uint64_t));
    if (!vk->ic) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", path);
        goto done;
    }
    for (size_t i = 0; i < ic->nchild; i++) {
        char name[32];
        snprintf(name, sizeof name, "IC[%zu]", i);
        if ((st = read_point(c, 1, vk->ic + 12 * i, ic->child[i], 1, path, name, err)) != CZ_OK) goto done;
    }
done:
    cz_json_free(doc);
    if (st != CZ_OK) cz_vkey_free(vk);
    return st;
}

/* ---- bellperson binary proof ---- */

_Static_assert(sizeof(cz_bls12_381_g1_affine) == sizeof(((cz_proof *)0)->a), "cz_proof.a holds a BLS12-381 G1 point");
_Static_assert(sizeof(cz_bls12_381_g2_affine) == sizeof(((cz_proof *)0)->b), "cz_proof.b holds a BLS12-381 G2 point");
_Static_assert(48 + 96 + 48 == CZ_PROOF_BIN_BYTES, "A || B || C compressed");

cz_status cz_proof_to_bellperson(uint8_t out[CZ_PROOF_BIN_BYTES], const cz_proof *p, cz_error *err)
{
    if (p->curve != CZ_CURVE_BLS12_381)
        return cz_error_set(err, CZ_ERR_UNSUPPORTED,
                            "the bellperson binary proof is for BLS12-381 only; this proof is on %s",
                            cz_curve_name(p->curve));
    cz_bls12_381_g1_to_compressed(out, (const cz_bls12_381_g1_affine *)p->a);
    cz_bls12_381_g2_to_compressed(out + 48, (const cz_bls12_381_g2_affine *)p->b);
    cz_bls12_381_g1_to_compressed(out + 144, (const cz_bls12_381_g1_affine *)p->c);
    return CZ_OK;
}

cz_status cz_proof_from_bellperson(cz_proof *p, const uint8_t in[CZ_PROOF_BIN_BYTES], cz_error *err)
{
    cz_bls12_381_g1_affine a, c;
    cz_bls12_381_g2_affine b;
    cz_status st;
    if ((st = cz_bls12_381_g1_from_compressed(&a, in, 0)) != CZ_OK)
        return cz_error_set(err, st, "bellperson proof: A (G1) at byte offset 0: %s", cz_status_str(st));
    if ((st = cz_bls12_381_g2_from_compressed(&b, in + 48, 0)) != CZ_OK)
        return cz_error_set(err, st, "bellperson proof: B (G2) at byte offset 48: %s", cz_status_str(st));
    if ((st = cz_bls12_381_g1_from_compressed(&c, in + 144, 0)) != CZ_OK)
        return cz_error_set(err, st, "bellperson proof: C (G1) at byte offset 144: %s", cz_status_str(st));
    memset(p, 0, sizeof *p);
    p->curve = CZ_CURVE_BLS12_381;
    memcpy(p->a, &a, sizeof a);
    memcpy(p->b, &b, sizeof b);
    memcpy(p->c, &c, sizeof c);
    return CZ_OK;
}

cz_status cz_proof_write_bin(const char *path, const cz_proof *p, cz_error *err)
{
    uint8_t buf[CZ_PROOF_BIN_BYTES];
    cz_error e;
    cz_error_clear(&e);
    cz_status st = cz_proof_to_bellperson(buf, p, &e);
    if (st != CZ_OK) return cz_error_set(err, st, "%s: %s", path, cz_error_msg(&e));
    cz_atomic_file af;
    if ((st = cz_atomic_file_open(&af, path, err)) != CZ_OK) return st;
    if (fwrite(buf, 1, sizeof buf, af.fp) != sizeof buf) {
        cz_atomic_file_abort(&af);
        return cz_error_set(err, CZ_ERR_IO, "%s: write failed", path);
    }
    return cz_atomic_file_commit(&af, err);
}
