/* circuit/gadgets/sha256: the SHA-256 gadget (contract in sha256.h). */
#include "circuit/gadgets/sha256.h"

#include <stdlib.h>

#include "util/sha256.h" /* the constants */

void cz_sha256_iv(cz_u32 state[8])
{
    for (int i = 0; i < 8; i++) state[i] = cz_u32_const(cz_sha256_IV[i]);
}

static cz_u32 xor3(cz_cs *cs, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c)
{
    cz_u32 t = cz_u32_xor(cs, a, b);
    return cz_u32_xor(cs, &t, c);
}

static cz_u32 big_sigma(cz_cs *cs, const cz_u32 *x, unsigned r1, unsigned r2, unsigned r3)
{
    cz_u32 a = cz_u32_rotr(x, r1), b = cz_u32_rotr(x, r2), c = cz_u32_rotr(x, r3);
    return xor3(cs, &a, &b, &c);
}

static cz_u32 small_sigma(cz_cs *cs, const cz_u32 *x, unsigned r1, unsigned r2, unsigned s)
{
    cz_u32 a = cz_u32_rotr(x, r1), b = cz_u32_rotr(x, r2), c = cz_u32_shr(x, s);
    return xor3(cs, &a, &b, &c);
}

void cz_sha256_compress(cz_cs *cs, cz_u32 state[8], const cz_bool *block)
{
    cz_u32 *w = malloc(64 * sizeof *w);
    if (!w) {
        cz_cs_fail(cs, CZ_ERR_NO_MEMORY, "out of memory in sha256");
        return;
    }
    cz_cs_push(cs, "schedule");
    for (int t = 0; t < 16; t++) w[t] = cz_u32_from_be_bits(block + 32 * t);
    for (int t = 16; t < 64; t++) {
        cz_cs_push(cs, "w%d", t);
        cz_u32 s0 = small_sigma(cs, &w[t - 15], 7, 18, 3);
        cz_u32 s1 = small_sigma(cs, &w[t - 2], 17, 19, 10);
        const cz_u32 *ops[4] = {&w[t - 16], &s0, &w[t - 7], &s1};
        w[t] = cz_u32_addmany(cs, ops, 4);
        cz_cs_pop(cs);
    }
    cz_cs_pop(cs);
    cz_u32 a = state[0], b = state[1], c = state[2], d = state[3];
    cz_u32 e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; t++) {
        cz_cs_push(cs, "round %d", t);
        cz_u32 S1 = big_sigma(cs, &e, 6, 11, 25);
        cz_u32 ch;
        for (int i = 0; i < 32; i++) ch.b[i] = cz_bool_ch(cs, e.b[i], f.b[i], g.b[i]);
        ch.value = (e.value & f.value) ^ (~e.value & g.value);
        cz_u32 S0 = big_sigma(cs, &a, 2, 13, 22);
        cz_u32 maj;
        for (int i = 0; i < 32; i++) maj.b[i] = cz_bool_maj(cs, a.b[i], b.b[i], c.b[i]);
        maj.value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
        cz_u32 k = cz_u32_const(cz_sha256_K[t]);
        const cz_u32 *eops[6] = {&d, &h, &S1, &ch, &k, &w[t]};
        cz_u32 ne = cz_u32_addmany(cs, eops, 6);
        const cz_u32 *aops[7] = {&h, &S1, &ch, &k, &w[t], &S0, &maj};
        cz_u32 na = cz_u32_addmany(cs, aops, 7);
        h = g;
        g = f;
        f = e;
        e = ne;
        d = c;
        c = b;
        b = a;
        a = na;
        cz_cs_pop(cs);
    }
    cz_u32 v[8] = {a, b, c, d, e, f, g, h};
    cz_cs_push(cs, "final");
    for (int i = 0; i < 8; i++) {
        const cz_u32 *ops[2] = {&state[i], &v[i]};
        state[i] = cz_u32_addmany(cs, ops, 2);
    }
    cz_cs_pop(cs);
    free(w);
}

void cz_sha256(cz_cs *cs, const cz_bool *bits, size_t nbits, cz_bool *out)
{
    size_t nblk = cz_sha256_blocks(nbits);
    cz_bool *m = malloc(nblk * 512 * sizeof *m);
    if (!m) {
        cz_cs_fail(cs, CZ_ERR_NO_MEMORY, "out of memory in sha256");
        return;
    }
    for (size_t i = 0; i < nbits; i++) m[i] = bits[i];
    m[nbits] = cz_bool_const(1);
    for (size_t i = nbits + 1; i < nblk * 512 - 64; i++) m[i] = cz_bool_const(0);
    for (int i = 0; i < 64; i++) m[nblk * 512 - 64 + i] = cz_bool_const((int)(((uint64_t)nbits >> (63 - i)) & 1));
    cz_u32 st[8];
    cz_sha256_iv(st);
    cz_cs_push(cs, "sha256");
    for (size_t k = 0; k < nblk; k++) {
        cz_cs_push(cs, "block %zu", k);
        cz_sha256_compress(cs, st, m + 512 * k);
        cz_cs_pop(cs);
    }
    cz_cs_pop(cs);
    for (int i = 0; i < 8; i++) cz_u32_to_be_bits(&st[i], out + 32 * i);
    free(m);
}
