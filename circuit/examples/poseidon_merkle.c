/*
 * circuit/examples/poseidon_merkle: membership in a Poseidon Merkle tree
 * (BN254, circomlib's Poseidon of 2 inputs per node: parent =
 * Poseidon(left, right)).
 *
 * Private: the leaf, the depth siblings, the leaf index's depth bits (bit i
 * chooses at level i whether the current node is the right child). Public:
 * the root. Per level: the index bit (1 constraint), the ordered pair by one
 * conditional swap (bit * (sibling - cur) = left - cur, right = cur +
 * sibling - left: 1 constraint), Poseidon (244); then root: (node - root) *
 * 1 = 0. A path that does not lead to the root leaves "root" unsatisfied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/gadgets/boolean.h"
#include "circuit/gadgets/poseidon.h"
#include "circuit/native.h"

typedef struct {
    unsigned depth;
    cz_bn254_fr leaf, root;
    int has_root;
    uint64_t index;
    cz_bn254_fr *path;
} pm_input;

static void pm_free(void *in)
{
    pm_input *x = in;
    if (!x) return;
    free(x->path);
    free(x);
}

static cz_status fe_field(const cz_json *v, const char *what, const char *name, cz_bn254_fr *out, cz_error *err)
{
    if (!v || (v->type != CZ_JSON_STRING && v->type != CZ_JSON_NUMBER))
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: %s must be a decimal string", name, what);
    cz_status st = cz_bn254_fr_from_dec(out, v->str, strlen(v->str));
    if (st != CZ_OK)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: %s: \"%s\" is not a decimal number below the BN254 scalar field's r",
                            name, what, v->str);
    return CZ_OK;
}

static void native_root(const pm_input *x, cz_bn254_fr *out)
{
    cz_bn254_fr cur = x->leaf, pair[2];
    for (unsigned i = 0; i < x->depth; i++) {
        int bit = (int)((x->index >> i) & 1);
        pair[bit] = cur;
        pair[!bit] = x->path[i];
        cz_poseidon_bn254(&cur, pair, 2);
    }
    *out = cur;
}

static cz_status pm_parse(const cz_json *in, const uint64_t *params, const char *name, void **out, cz_error *err)
{
    *out = NULL;
    unsigned depth = (unsigned)params[0];
    if (!in || in->type != CZ_JSON_OBJECT) return cz_error_set(err, CZ_ERR_FORMAT, "%s: expected a JSON object", name);
    for (size_t i = 0; i < in->nchild; i++) {
        const char *k = in->child[i]->key;
        if (strcmp(k, "leaf") && strcmp(k, "path") && strcmp(k, "index") && strcmp(k, "root"))
            return cz_error_set(err, CZ_ERR_FORMAT, "%s: unknown field \"%s\" (expected leaf, path, index, root)", name,
                                k);
    }
    pm_input *x = calloc(1, sizeof *x);
    if (!x || !(x->path = malloc((depth ? depth : 1) * sizeof *x->path))) {
        pm_free(x);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    x->depth = depth;
    cz_status st = fe_field(cz_json_get(in, "leaf"), "\"leaf\"", name, &x->leaf, err);
    const cz_json *p = cz_json_get(in, "path");
    if (st == CZ_OK && (!p || p->type != CZ_JSON_ARRAY || p->nchild != depth))
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: \"path\" must be an array of %u siblings (--param depth=%u)", name,
                          depth, depth);
    for (unsigned i = 0; st == CZ_OK && i < depth; i++) {
        char what[32];
        snprintf(what, sizeof what, "\"path\"[%u]", i);
        st = fe_field(p->child[i], what, name, &x->path[i], err);
    }
    const cz_json *ix = cz_json_get(in, "index");
    if (st == CZ_OK && (!ix || cz_json_uint(ix, depth >= 64 ? UINT64_MAX : ((uint64_t)1 << depth) - 1, &x->index) != CZ_OK))
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s: \"index\" must be an integer in [0, 2^%u)", name, depth);
    if (st == CZ_OK && cz_json_get(in, "root")) {
        st = fe_field(cz_json_get(in, "root"), "\"root\"", name, &x->root, err);
        x->has_root = 1;
    }
    if (st != CZ_OK) {
        pm_free(x);
        return st;
    }
    if (!x->has_root) native_root(x, &x->root);
    *out = x;
    return CZ_OK;
}

static cz_status pm_sample(const uint64_t *params, cz_curve curve, uint64_t seed, void **out, cz_error *err)
{
    (void)curve;
    pm_input *x = calloc(1, sizeof *x);
    unsigned depth = (unsigned)params[0];
    if (!x || !(x->path = malloc((depth ? depth : 1) * sizeof *x->path))) {
        pm_free(x);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    x->depth = depth;
    cz_bn254_fr_from_u64(&x->leaf, seed + 1);
    for (unsigned i = 0; i < depth; i++) cz_bn254_fr_from_u64(&x->path[i], seed * 1000 + i + 7);
    x->index = seed & (depth >= 64 ? UINT64_MAX : ((uint64_t)1 << depth) - 1);
    native_root(x, &x->root);
    *out = x;
    return CZ_OK;
}

static void pm_shape(const uint64_t *params, const void *in, char *buf, size_t cap)
{
    (void)in;
    snprintf(buf, cap, "depth=%llu", (unsigned long long)params[0]);
}

static void pm_synth(cz_cs *cs, const uint64_t *params, const void *arg)
{
    (void)params;
    const pm_input *x = arg;
    const cz_cs_field *f = cz_cs_fr(cs);
    cz_fe cur;
    memcpy(&cur, &x->leaf, 32);
    cz_var vcur = cz_cs_alloc(cs, &cur);
    cz_fe m1;
    cz_fe_neg(cs, &m1, &f->one);
    for (unsigned i = 0; i < x->depth && cz_cs_status(cs) == CZ_OK; i++) {
        cz_cs_push(cs, "level %u", i);
        cz_fe sib;
        memcpy(&sib, &x->path[i], 32);
        cz_var vsib = cz_cs_alloc(cs, &sib);
        cz_bool bit = cz_bool_alloc(cs, (int)((x->index >> i) & 1));
        cz_fe l = bit.value ? sib : cur, r = bit.value ? cur : sib;
        cz_var vl = cz_cs_alloc(cs, &l);
        cz_lc in[2] = {{0}, {0}};
        if (cz_cs_wants_lc(cs)) {
            /* bit * (sib - cur) = l - cur */
            cz_lc a = {0}, b = {0}, c = {0};
            cz_lc_add(cs, &a, bit.v, NULL);
            cz_lc_add(cs, &b, vsib, NULL);
            cz_lc_add(cs, &b, vcur, &m1);
            cz_lc_add(cs, &c, vl, NULL);
            cz_lc_add(cs, &c, vcur, &m1);
            cz_cs_enforce(cs, "swap", &a, &b, &c);
            cz_lc_free(cs, &a);
            cz_lc_free(cs, &b);
            cz_lc_free(cs, &c);
            cz_lc_add(cs, &in[0], vl, NULL);
            /* r = cur + sib - l */
            cz_lc_add(cs, &in[1], vcur, NULL);
            cz_lc_add(cs, &in[1], vsib, NULL);
            cz_lc_add(cs, &in[1], vl, &m1);
        } else {
            cz_cs_enforce(cs, "swap", NULL, NULL, NULL);
        }
        cz_fe vals[2] = {l, r};
        vcur = cz_poseidon_gadget(cs, in, vals, 2, &cur);
        cz_lc_free(cs, &in[0]);
        cz_lc_free(cs, &in[1]);
        cz_cs_pop(cs);
    }
    cz_fe root;
    memcpy(&root, &x->root, 32);
    cz_var vroot = cz_cs_alloc_input(cs, &root);
    if (cz_cs_wants_lc(cs)) {
        cz_lc a = {0}, b = {0};
        cz_lc_add(cs, &a, vcur, NULL);
        cz_lc_add(cs, &a, vroot, &m1);
        cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
        cz_cs_enforce(cs, "root", &a, &b, NULL);
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
    } else {
        cz_cs_enforce(cs, "root", NULL, NULL, NULL);
    }
}

static const cz_native_param pm_params[] = {
    {"depth", 32, 1, 64, "levels of the tree (2^depth leaves)"},
};

const cz_native_circuit cz_circuit_poseidon_merkle = {
    /* .name              = */ "poseidon-merkle",
    /* .summary           = */ "membership of a leaf in a Poseidon Merkle tree (BN254); public: the root",
    /* .input_help        = */
    "  {\"leaf\": \"<decimal>\", \"path\": [\"<decimal>\", ...], \"index\": N, \"root\": \"<decimal>\"}\n"
    "      leaf, siblings and root: decimal strings below the BN254 scalar field's r;\n"
    "      path: depth siblings from the leaf's level up; index: the leaf's position\n"
    "      (bit i = 1: the node at level i is a right child); parent =\n"
    "      Poseidon(left, right) with circomlib's Poseidon(2). root is optional\n"
    "      (default: the root the path leads to); a path that does not lead to the\n"
    "      given root leaves the constraint \"root\" unsatisfied.\n"
    "  Public inputs: the root.\n",
    /* .default_curve     = */ CZ_CURVE_BN254,
    /* .curves            = */ 1u << CZ_CURVE_IDX_BN254,
    /* .structure_version = */ 1,
    /* .params            = */ pm_params,
    /* .n_params          = */ 1,
    /* .parse             = */ pm_parse,
    /* .free_input        = */ pm_free,
    /* .sample            = */ pm_sample,
    /* .shape             = */ pm_shape,
    /* .synthesize        = */ pm_synth,
};
