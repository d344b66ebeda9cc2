/* circuit/gadgets/uint32: 32-bit words (contract in uint32.h). */
#include "circuit/gadgets/uint32.h"

cz_u32 cz_u32_const(uint32_t v)
{
    cz_u32 r;
    r.value = v;
    for (int i = 0; i < 32; i++) r.b[i] = cz_bool_const((int)((v >> i) & 1));
    return r;
}

cz_u32 cz_u32_alloc(cz_cs *cs, uint32_t v)
{
    cz_u32 r;
    r.value = v;
    for (int i = 0; i < 32; i++) r.b[i] = cz_bool_alloc(cs, (int)((v >> i) & 1));
    return r;
}

cz_u32 cz_u32_from_be_bits(const cz_bool *bits)
{
    cz_u32 r;
    r.value = 0;
    for (int i = 0; i < 32; i++) {
        r.b[i] = bits[31 - i];
        r.value |= (uint32_t)r.b[i].value << i;
    }
    return r;
}

void cz_u32_to_be_bits(const cz_u32 *x, cz_bool *bits)
{
    for (int i = 0; i < 32; i++) bits[31 - i] = x->b[i];
}

cz_u32 cz_u32_rotr(const cz_u32 *x, unsigned n)
{
    cz_u32 r;
    n &= 31;
    for (unsigned i = 0; i < 32; i++) r.b[i] = x->b[(i + n) & 31];
    r.value = n ? (x->value >> n) | (x->value << (32 - n)) : x->value;
    return r;
}

cz_u32 cz_u32_shr(const cz_u32 *x, unsigned n)
{
    cz_u32 r;
    for (unsigned i = 0; i < 32; i++) r.b[i] = i + n < 32 ? x->b[i + n] : cz_bool_const(0);
    r.value = n < 32 ? x->value >> n : 0;
    return r;
}

cz_u32 cz_u32_xor(cz_cs *cs, const cz_u32 *a, const cz_u32 *b)
{
    cz_u32 r;
    for (int i = 0; i < 32; i++) r.b[i] = cz_bool_xor(cs, a->b[i], b->b[i]);
    r.value = a->value ^ b->value;
    return r;
}

cz_u32 cz_u32_addmany(cz_cs *cs, const cz_u32 *const *ops, unsigned k)
{
    uint64_t sum = 0, max = 0;
    int all_const = 1;
    for (unsigned j = 0; j < k; j++) {
        sum += ops[j]->value;
        int c = 1;
        for (int i = 0; i < 32 && c; i++) c = ops[j]->b[i].kind == CZ_BOOL_CONST;
        max += c ? ops[j]->value : 0xffffffffu;
        all_const &= c;
    }
    if (all_const) return cz_u32_const((uint32_t)sum);
    unsigned nbits = 0;
    while (nbits < 64 && (max >> nbits)) nbits++;
    cz_bool out[40];
    for (unsigned i = 0; i < nbits; i++) out[i] = cz_bool_alloc(cs, (int)((sum >> i) & 1));
    if (cz_cs_wants_lc(cs)) {
        /* weights 2^0 .. 2^(nbits - 1), nbits <= 36 */
        cz_fe w[40];
        w[0] = cz_cs_fr(cs)->one;
        for (unsigned i = 1; i < nbits; i++) cz_fe_add(cs, &w[i], &w[i - 1], &w[i - 1]);
        cz_lc la = {0}, lb = {0}, lc = {0};
        uint64_t konst = 0;
        for (unsigned j = 0; j < k; j++)
            for (int i = 0; i < 32; i++) {
                cz_bool x = ops[j]->b[i];
                if (x.kind == CZ_BOOL_CONST)
                    konst += (uint64_t)x.value << i;
                else
                    cz_bool_lc_add(cs, &la, x, &w[i]);
            }
        if (konst) {
            cz_fe kc;
            cz_fe_from_u64(cs, &kc, konst);
            cz_lc_add(cs, &la, CZ_VAR_ONE, &kc);
        }
        cz_lc_add(cs, &lb, CZ_VAR_ONE, NULL);
        for (unsigned i = 0; i < nbits; i++) cz_lc_add(cs, &lc, out[i].v, &w[i]);
        cz_cs_enforce(cs, "addmany", &la, &lb, &lc);
        cz_lc_free(cs, &la);
        cz_lc_free(cs, &lb);
        cz_lc_free(cs, &lc);
    } else {
        cz_cs_enforce(cs, "addmany", NULL, NULL, NULL);
    }
    cz_u32 r;
    for (int i = 0; i < 32; i++) r.b[i] = out[i];
    r.value = (uint32_t)sum;
    return r;
}
