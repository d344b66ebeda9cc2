/*
 * circuit/examples/sha256_preimage: knowledge of a SHA-256 preimage.
 *
 * Private: the preimage bytes (any length, as bits, each booleanity-checked).
 * Public: the digest, its 256 bits packed little-endian (SHA-256's bit order)
 * into ceil(256 / capacity) inputs (2 on both curves). The input JSON may
 * also claim a digest: the public inputs then take the claimed digest's
 * values, and a preimage that does not hash to it leaves a packing row
 * unsatisfied. Shape: the preimage length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/gadgets/sha256.h"
#include "circuit/native.h"
#include "util/sha256.h"

typedef struct {
    uint8_t *msg;
    size_t len;
    int claimed;
    uint8_t digest[32];
} sha_input;

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static cz_status parse_hex(const cz_json *v, const char *field, const char *name, uint8_t **out, size_t *len,
                           cz_error *err)
{
    if (!v || v->type != CZ_JSON_STRING)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: \"%s\" must be a string of hex digits", name, field);
    const char *s = v->str;
    size_t n = v->len;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2, n -= 2;
    if (n % 2) return cz_error_set(err, CZ_ERR_FORMAT, "%s: \"%s\" has an odd number of hex digits", name, field);
    uint8_t *b = malloc(n / 2 + 1);
    if (!b) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return cz_error_set(err, CZ_ERR_FORMAT, "%s: \"%s\": '%c' at %zu is not a hex digit", name, field,
                                hi < 0 ? s[2 * i] : s[2 * i + 1], hi < 0 ? 2 * i : 2 * i + 1);
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = b;
    *len = n / 2;
    return CZ_OK;
}

static void sha_free(void *in)
{
    sha_input *s = in;
    if (!s) return;
    free(s->msg);
    free(s);
}

static cz_status sha_parse(const cz_json *in, const uint64_t *params, const char *name, void **out, cz_error *err)
{
    (void)params;
    *out = NULL;
    if (!in || in->type != CZ_JSON_OBJECT) return cz_error_set(err, CZ_ERR_FORMAT, "%s: expected a JSON object", name);
    for (size_t i = 0; i < in->nchild; i++)
        if (strcmp(in->child[i]->key, "preimage") && strcmp(in->child[i]->key, "digest"))
            return cz_error_set(err, CZ_ERR_FORMAT, "%s: unknown field \"%s\" (expected preimage, digest)", name,
                                in->child[i]->key);
    sha_input *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    cz_status st = parse_hex(cz_json_get(in, "preimage"), "preimage", name, &s->msg, &s->len, err);
    if (st == CZ_OK && cz_json_get(in, "digest")) {
        uint8_t *d = NULL;
        size_t dl = 0;
        st = parse_hex(cz_json_get(in, "digest"), "digest", name, &d, &dl, err);
        if (st == CZ_OK && dl != 32) st = cz_error_set(err, CZ_ERR_FORMAT, "%s: \"digest\" must be 32 bytes", name);
        if (st == CZ_OK) {
            memcpy(s->digest, d, 32);
            s->claimed = 1;
        }
        free(d);
    }
    if (st != CZ_OK) {
        sha_free(s);
        return st;
    }
    *out = s;
    return CZ_OK;
}

static cz_status sha_sample(const uint64_t *params, cz_curve curve, uint64_t seed, void **out, cz_error *err)
{
    (void)curve;
    sha_input *s = calloc(1, sizeof *s);
    size_t len = params[0];
    if (!s || !(s->msg = malloc(len + 1))) {
        free(s);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < len; i++) s->msg[i] = (uint8_t)((seed + i) * 0x9e3779b97f4a7c15ull >> 56);
    s->len = len;
    *out = s;
    return CZ_OK;
}

static void sha_shape(const uint64_t *params, const void *in, char *buf, size_t cap)
{
    (void)params;
    snprintf(buf, cap, "len=%zu", ((const sha_input *)in)->len);
}

static void sha_synth(cz_cs *cs, const uint64_t *params, const void *arg)
{
    (void)params;
    const sha_input *s = arg;
    size_t nbits = s->len * 8;
    cz_bool *bits = malloc((nbits ? nbits : 1) * sizeof *bits), out[256];
    if (!bits) {
        cz_cs_fail(cs, CZ_ERR_NO_MEMORY, "out of memory");
        return;
    }
    cz_cs_push(cs, "preimage");
    for (size_t i = 0; i < nbits; i++) bits[i] = cz_bool_alloc(cs, (s->msg[i / 8] >> (7 - i % 8)) & 1);
    cz_cs_pop(cs);
    cz_sha256(cs, bits, nbits, out);
    free(bits);
    cz_cs_push(cs, "digest");
    if (!s->claimed) {
        cz_pack_inputs(cs, out, 256);
    } else {
        /* the claimed digest's values as the inputs, the computed bits packed against them */
        uint8_t raw[256];
        for (int i = 0; i < 256; i++) raw[i] = (s->digest[i / 8] >> (7 - i % 8)) & 1;
        unsigned capb = cz_cs_capacity(cs);
        cz_fe vals[2];
        cz_pack_values(cs, raw, 256, vals);
        for (unsigned j = 0, at = 0; at < 256; j++, at += capb) {
            unsigned k = 256 - at < capb ? 256 - at : capb;
            cz_var in = cz_cs_alloc_input(cs, &vals[j]);
            if (!cz_cs_wants_lc(cs)) {
                cz_cs_enforce(cs, "packed input", NULL, NULL, NULL);
                continue;
            }
            cz_lc la = {0}, lb = {0}, lc = {0};
            cz_fe p2;
            for (unsigned i = 0; i < k; i++) {
                cz_fe_pow2(cs, &p2, i);
                cz_bool_lc_add(cs, &la, out[at + i], &p2);
            }
            cz_lc_add(cs, &lb, CZ_VAR_ONE, NULL);
            cz_lc_add(cs, &lc, in, NULL);
            cz_cs_enforce(cs, "packed input", &la, &lb, &lc);
            cz_lc_free(cs, &la);
            cz_lc_free(cs, &lb);
            cz_lc_free(cs, &lc);
        }
    }
    cz_cs_pop(cs);
}

static const cz_native_param sha_params[] = {
    {"sample-len", 64, 0, 1 << 20, "preimage length of the sample input (benchmarks; an input file sets its own)"},
};

const cz_native_circuit cz_circuit_sha256 = {
    /* .name              = */ "sha256",
    /* .summary           = */ "knowledge of a SHA-256 preimage (any length); public: the digest, packed",
    /* .input_help        = */
    "  {\"preimage\": \"<hex bytes>\"}            any length, e.g. \"616263\" for \"abc\"\n"
    "  {\"preimage\": \"...\", \"digest\": \"<64 hex digits>\"}\n"
    "      optional: the digest the proof claims; a preimage that does not hash\n"
    "      to it leaves the constraint digest/packed input unsatisfied\n"
    "  Public inputs: the 256 digest bits in SHA-256's order (bit 0 = the top bit\n"
    "  of byte 0), packed little-endian, 253 (BN254) / 254 (BLS12-381) bits per\n"
    "  input: 2 inputs.\n",
    /* .default_curve     = */ CZ_CURVE_BN254,
    /* .curves            = */ (1u << CZ_CURVE_IDX_BN254) | (1u << CZ_CURVE_IDX_BLS12_381),
    /* .structure_version = */ 1,
    /* .params            = */ sha_params,
    /* .n_params          = */ 1,
    /* .parse             = */ sha_parse,
    /* .free_input        = */ sha_free,
    /* .sample            = */ sha_sample,
    /* .shape             = */ sha_shape,
    /* .synthesize        = */ sha_synth,
};
