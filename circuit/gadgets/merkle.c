/* circuit/gadgets/merkle: SHA-256 Merkle paths (contract in merkle.h). */
#include "circuit/gadgets/merkle.h"

#include <string.h>

#include "circuit/gadgets/sha256.h"
#include "util/sha256.h"

void cz_merkle_node(cz_cs *cs, cz_merkle_hash h, const cz_bool *left, const cz_bool *right, cz_bool *out)
{
    cz_bool block[512];
    memcpy(block, left, 256 * sizeof *block);
    memcpy(block + 256, right, 256 * sizeof *block);
    if (h == CZ_MERKLE_SHA256) {
        cz_sha256(cs, block, 512, out);
        return;
    }
    cz_u32 st[8];
    cz_sha256_iv(st);
    cz_cs_push(cs, "compress");
    cz_sha256_compress(cs, st, block);
    cz_cs_pop(cs);
    for (int i = 0; i < 8; i++) cz_u32_to_be_bits(&st[i], out + 32 * i);
}

/* x = a + bit (b - a) as a new variable: bit * (b - a) = x - a */
static cz_bool select_bit(cz_cs *cs, cz_bool bit, cz_bool a, cz_bool b, const cz_fe *m1)
{
    int v = bit.value ? b.value : a.value;
    if (bit.kind == CZ_BOOL_CONST) return bit.value ? b : a;
    if (a.kind == b.kind && a.v == b.v && a.value == b.value) return a; /* the same bit either way */
    cz_fe fv;
    cz_fe_from_u64(cs, &fv, (uint64_t)v);
    cz_bool x = {cz_cs_alloc(cs, &fv), CZ_BOOL_VAR, (uint8_t)v};
    if (!cz_cs_wants_lc(cs)) {
        cz_cs_enforce(cs, "swap", NULL, NULL, NULL);
        return x;
    }
    cz_lc la = {0}, lb = {0}, lc = {0};
    cz_bool_lc_add(cs, &la, bit, NULL);
    cz_bool_lc_add(cs, &lb, b, NULL);
    cz_bool_lc_add(cs, &lb, a, m1);
    cz_bool_lc_add(cs, &lc, x, NULL);
    cz_bool_lc_add(cs, &lc, a, m1);
    cz_cs_enforce(cs, "swap", &la, &lb, &lc);
    cz_lc_free(cs, &la);
    cz_lc_free(cs, &lb);
    cz_lc_free(cs, &lc);
    return x;
}

void cz_merkle_swap(cz_cs *cs, cz_bool bit, const cz_bool *a, const cz_bool *b, unsigned n, cz_bool *l, cz_bool *r)
{
    cz_fe m1;
    cz_fe_neg(cs, &m1, &cz_cs_fr(cs)->one);
    for (unsigned i = 0; i < n; i++) {
        cz_bool li = select_bit(cs, bit, a[i], b[i], &m1);
        cz_bool ri = select_bit(cs, bit, b[i], a[i], &m1);
        l[i] = li;
        r[i] = ri;
    }
}

void cz_merkle_root(cz_cs *cs, cz_merkle_hash h, const cz_bool *leaf, const cz_bool *path, const cz_bool *index,
                    unsigned depth, cz_bool *root)
{
    cz_bool cur[256], l[256], r[256];
    memcpy(cur, leaf, sizeof cur);
    for (unsigned i = 0; i < depth && cz_cs_status(cs) == CZ_OK; i++) {
        cz_cs_push(cs, "level %u", i);
        cz_merkle_swap(cs, index[i], cur, path + 256 * (size_t)i, 256, l, r);
        cz_merkle_node(cs, h, l, r, cur);
        cz_cs_pop(cs);
    }
    memcpy(root, cur, sizeof cur);
}

void cz_merkle_node_native(cz_merkle_hash h, const uint8_t left[32], const uint8_t right[32], uint8_t out[32])
{
    uint8_t m[64];
    memcpy(m, left, 32);
    memcpy(m + 32, right, 32);
    if (h == CZ_MERKLE_SHA256) {
        cz_sha256_bytes(out, m, 64);
        return;
    }
    uint32_t s[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    cz_sha256_block(s, m);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 4; k++) out[4 * i + k] = (uint8_t)(s[i] >> (24 - 8 * k));
}

void cz_merkle_root_native(cz_merkle_hash h, const uint8_t leaf[32], const uint8_t *path, uint64_t index,
                           unsigned depth, uint8_t root[32])
{
    uint8_t cur[32];
    memcpy(cur, leaf, 32);
    for (unsigned i = 0; i < depth; i++) {
        const uint8_t *sib = path + 32 * (size_t)i;
        if ((index >> i) & 1) cz_merkle_node_native(h, sib, cur, cur);
        else cz_merkle_node_native(h, cur, sib, cur);
    }
    memcpy(root, cur, 32);
}
