/*
 * test_merkle: the SHA-256 Merkle path gadget (circuit/gadgets/merkle.h).
 *
 * The reference is computed outside the circuit with the system's
 * libcrypto: a parent is SHA256(left || right) (CZ_MERKLE_SHA256) or
 * SHA256_Transform of the 64 bytes from the IV (CZ_MERKLE_SHA256_COMPRESS,
 * read back from the context's state words). For random paths of several
 * depths and both curves, the gadget's root bits equal the reference's;
 * the three modes of circuit/cs.h agree (witness equal, the PCE's a, b, c
 * equal the record mode's evaluations bit for bit, check passes); a root
 * compared with the reference's by a packing row fails exactly when one
 * sibling bit is flipped, and check mode names that row. The native
 * cz_merkle_root_native is checked against libcrypto too. The constraint
 * counts printed are those of docs/CIRCUITS.md.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1 /* SHA256_Transform: the bare compression */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "circuit/gadgets/merkle.h"
#include "cs_test_util.h"
#include "test_util.h"

#ifdef CZ_HAVE_LIBCRYPTO
#include <openssl/sha.h>
#define REF_NAME "libcrypto"
static void ref_node(cz_merkle_hash h, const uint8_t *l, const uint8_t *r, uint8_t out[32])
{
    uint8_t m[64];
    memcpy(m, l, 32);
    memcpy(m + 32, r, 32);
    if (h == CZ_MERKLE_SHA256) {
        SHA256(m, 64, out);
        return;
    }
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Transform(&c, m);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 4; k++) out[4 * i + k] = (uint8_t)(c.h[i] >> (24 - 8 * k));
}
#else
/* no libcrypto in this build: the native code (itself checked against the
 * FIPS vectors in test_gadgets) */
#define REF_NAME "native sha256 (no libcrypto in this build)"
static void ref_node(cz_merkle_hash h, const uint8_t *l, const uint8_t *r, uint8_t out[32])
{
    cz_merkle_node_native(h, l, r, out);
}
#endif

static void ref_root(cz_merkle_hash h, const uint8_t *leaf, const uint8_t *path, uint64_t index, unsigned depth,
                     uint8_t out[32])
{
    uint8_t cur[32];
    memcpy(cur, leaf, 32);
    for (unsigned i = 0; i < depth; i++) {
        const uint8_t *s = path + 32 * i;
        if ((index >> i) & 1) ref_node(h, s, cur, cur);
        else ref_node(h, cur, s, cur);
    }
    memcpy(out, cur, 32);
}

typedef struct mcase {
    cz_merkle_hash h;
    unsigned depth;
    uint8_t leaf[32], path[32 * 16];
    uint64_t index;
    const uint8_t *claim; /* NULL: none; else the root is packed and compared with this */
    uint8_t root[32];     /* out: the gadget's root bits' values */
} mcase;

static int bit_of(const uint8_t *b, size_t i) { return (b[i / 8] >> (7 - i % 8)) & 1; }

static void mcase_synth(cz_cs *cs, void *arg)
{
    mcase *m = arg;
    cz_bool leaf[256], path[256 * 16], idx[16], root[256];
    cz_cs_push(cs, "leaf");
    for (int i = 0; i < 256; i++) leaf[i] = cz_bool_alloc(cs, bit_of(m->leaf, i));
    cz_cs_pop(cs);
    cz_cs_push(cs, "path");
    for (unsigned i = 0; i < 256 * m->depth; i++) path[i] = cz_bool_alloc(cs, bit_of(m->path, i));
    for (unsigned i = 0; i < m->depth; i++) idx[i] = cz_bool_alloc(cs, (int)((m->index >> i) & 1));
    cz_cs_pop(cs);
    cz_cs_push(cs, "merkle");
    cz_merkle_root(cs, m->h, leaf, path, idx, m->depth, root);
    cz_cs_pop(cs);
    memset(m->root, 0, 32);
    for (int i = 0; i < 256; i++) m->root[i / 8] |= (uint8_t)(root[i].value << (7 - i % 8));
    if (m->claim) {
        /* root == claim: the computed bits packed against the claim's values */
        uint8_t raw[256];
        for (int i = 0; i < 256; i++) raw[i] = (uint8_t)bit_of(m->claim, i);
        cz_fe vals[2];
        cz_pack_values(cs, raw, 256, vals);
        unsigned cap = cz_cs_capacity(cs);
        cz_cs_push(cs, "root");
        for (unsigned j = 0, at = 0; at < 256; j++, at += cap) {
            cz_var in = cz_cs_alloc_input(cs, &vals[j]);
            if (!cz_cs_wants_lc(cs)) {
                cz_cs_enforce(cs, "equal", NULL, NULL, NULL);
                continue;
            }
            cz_lc a = {0}, b = {0}, c = {0};
            cz_fe p2;
            for (unsigned i = 0; i < cap && at + i < 256; i++) {
                cz_fe_pow2(cs, &p2, i);
                cz_bool_lc_add(cs, &a, root[at + i], &p2);
            }
            cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
            cz_lc_add(cs, &c, in, NULL);
            cz_cs_enforce(cs, "equal", &a, &b, &c);
            cz_lc_free(cs, &a);
            cz_lc_free(cs, &b);
            cz_lc_free(cs, &c);
        }
        cz_cs_pop(cs);
    }
}

static uint64_t count_of(cz_merkle_hash h, unsigned depth)
{
    mcase m;
    memset(&m, 0, sizeof m);
    m.h = h;
    m.depth = depth;
    cz_cs *cs = cs_run(mcase_synth, &m, CZ_CURVE_BLS12_381, CZ_CS_WITNESS, NULL);
    uint64_t n = cs ? cz_cs_n_constraints(cs) : 0;
    cz_cs_free(cs);
    return n;
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_merkle");
    static const char *hn[2] = {"sha256", "sha256-compress"};
    for (int h = 0; h < 2; h++) {
        /* the native node against libcrypto */
        for (int it = 0; it < 20; it++) {
            uint8_t l[32], r[32], a[32], b[32];
            for (int i = 0; i < 32; i++) l[i] = (uint8_t)cz_rng_u64(&rng), r[i] = (uint8_t)cz_rng_u64(&rng);
            cz_merkle_node_native((cz_merkle_hash)h, l, r, a);
            ref_node((cz_merkle_hash)h, l, r, b);
            CHECK_MSG(!memcmp(a, b, 32), "%s: native node against %s", hn[h], REF_NAME);
        }
        unsigned depths[] = {0, 1, 2, 3, 5};
        for (unsigned di = 0; di < sizeof depths / sizeof *depths; di++) {
            static mcase m;
            memset(&m, 0, sizeof m);
            m.h = (cz_merkle_hash)h;
            m.depth = depths[di];
            for (int i = 0; i < 32; i++) m.leaf[i] = (uint8_t)cz_rng_u64(&rng);
            for (unsigned i = 0; i < 32 * m.depth; i++) m.path[i] = (uint8_t)cz_rng_u64(&rng);
            m.index = m.depth ? cz_rng_u64(&rng) & ((1ull << m.depth) - 1) : 0;
            uint8_t ref[32], nat[32];
            ref_root(m.h, m.leaf, m.path, m.index, m.depth, ref);
            cz_merkle_root_native(m.h, m.leaf, m.path, m.index, m.depth, nat);
            CHECK_MSG(!memcmp(nat, ref, 32), "%s depth %u: native root", hn[h], m.depth);
            cz_curve curve = di & 1 ? CZ_CURVE_BN254 : CZ_CURVE_BLS12_381;
            m.claim = ref;
            char what[64];
            snprintf(what, sizeof what, "merkle %s depth %u", hn[h], m.depth);
            CHECK(cs_modes_agree(what, mcase_synth, &m, curve, NULL));
            CHECK_MSG(!memcmp(m.root, ref, 32), "%s: the gadget's root against %s", what, REF_NAME);
            if (m.depth == 0) continue;
            /* one sibling bit flipped: the root row fails, named */
            size_t bit = cz_rng_u64(&rng) % (256 * m.depth);
            m.path[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
            cz_cs *chk = cs_run(mcase_synth, &m, curve, CZ_CS_CHECK, NULL);
            uint64_t bad = 0;
            cz_error err = {0};
            CHECK(chk && cz_cs_check_result(chk, &bad, &err) == CZ_ERR_UNSATISFIED);
            CHECK_MSG(strstr(err.msg, "(root/equal)") != NULL, "%s, flipped sibling bit %zu: %s", what, bit, err.msg);
            CHECK(memcmp(m.root, ref, 32) != 0);
            cz_cs_free(chk);
            /* a wrong index bit: the same */
            m.path[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
            m.index ^= 1;
            chk = cs_run(mcase_synth, &m, curve, CZ_CS_CHECK, NULL);
            CHECK(chk && cz_cs_check_result(chk, &bad, &err) == CZ_ERR_UNSATISFIED);
            cz_cs_free(chk);
        }
        /* counts (docs/CIRCUITS.md): bits of leaf + path + index included */
        uint64_t c0 = count_of((cz_merkle_hash)h, 0), c1 = count_of((cz_merkle_hash)h, 1),
                 c4 = count_of((cz_merkle_hash)h, 4);
        CHECK(c0 == 256 && c4 - c0 == 4 * (c1 - c0));
        printf("  %s: %llu constraints a level (256 sibling bits + 1 index bit + 512 swap + the node hash %llu)\n",
               hn[h], (unsigned long long)(c1 - c0), (unsigned long long)(c1 - c0 - 256 - 1 - 512));
    }
    return cz_test_finish("test_merkle");
}
