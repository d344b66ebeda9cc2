/* circuit/gadgets/boolean: bits, their operations, bit decomposition and
 * packing into public inputs (contract in boolean.h). */
#include "circuit/gadgets/boolean.h"

#include <string.h>

static cz_bool new_bit(cz_cs *cs, int b, int input)
{
    const cz_cs_field *f = cz_cs_fr(cs);
    cz_bool r = {0, CZ_BOOL_VAR, (uint8_t)(b != 0)};
    r.v = input ? cz_cs_alloc_input(cs, b ? &f->one : &f->zero) : cz_cs_alloc(cs, b ? &f->one : &f->zero);
    return r;
}

/* v * (1 - v) = 0 */
static void booleanity(cz_cs *cs, cz_var v)
{
    if (!cz_cs_wants_lc(cs)) {
        cz_cs_enforce(cs, "boolean", NULL, NULL, NULL);
        return;
    }
    cz_lc a = {0}, b = {0};
    cz_fe m1;
    cz_fe_neg(cs, &m1, &cz_cs_fr(cs)->one);
    cz_lc_add(cs, &a, v, NULL);
    cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
    cz_lc_add(cs, &b, v, &m1);
    cz_cs_enforce(cs, "boolean", &a, &b, NULL);
    cz_lc_free(cs, &a);
    cz_lc_free(cs, &b);
}

cz_bool cz_bool_alloc(cz_cs *cs, int b)
{
    cz_bool r = new_bit(cs, b, 0);
    booleanity(cs, r.v);
    return r;
}

cz_bool cz_bool_alloc_input(cz_cs *cs, int b)
{
    cz_bool r = new_bit(cs, b, 1);
    booleanity(cs, r.v);
    return r;
}

void cz_bool_lc_add(cz_cs *cs, cz_lc *lc, cz_bool a, const cz_fe *coef)
{
    if (!cz_cs_wants_lc(cs)) return;
    switch (a.kind) {
    case CZ_BOOL_CONST:
        if (a.value) cz_lc_add(cs, lc, CZ_VAR_ONE, coef);
        break;
    case CZ_BOOL_VAR:
        cz_lc_add(cs, lc, a.v, coef);
        break;
    default: { /* coef * (1 - v) */
        cz_fe n;
        cz_fe_neg(cs, &n, coef ? coef : &cz_cs_fr(cs)->one);
        cz_lc_add(cs, lc, CZ_VAR_ONE, coef);
        cz_lc_add(cs, lc, a.v, &n);
    }
    }
}

cz_bool cz_bool_xor(cz_cs *cs, cz_bool a, cz_bool b)
{
    if (a.kind == CZ_BOOL_CONST) return a.value ? cz_bool_not(b) : b;
    if (b.kind == CZ_BOOL_CONST) return b.value ? cz_bool_not(a) : a;
    /* xor(~x, y) = ~xor(x, y): compute on the variables, negate after */
    int neg = (a.kind == CZ_BOOL_NOT) ^ (b.kind == CZ_BOOL_NOT);
    if (a.kind == CZ_BOOL_NOT) a = cz_bool_not(a);
    if (b.kind == CZ_BOOL_NOT) b = cz_bool_not(b);
    cz_bool c = new_bit(cs, a.value ^ b.value, 0);
    if (cz_cs_wants_lc(cs)) {
        /* (2a) * b = a + b - c */
        const cz_cs_field *f = cz_cs_fr(cs);
        cz_fe two, m1;
        cz_fe_add(cs, &two, &f->one, &f->one);
        cz_fe_neg(cs, &m1, &f->one);
        cz_lc la = {0}, lb = {0}, lc = {0};
        cz_lc_add(cs, &la, a.v, &two);
        cz_lc_add(cs, &lb, b.v, NULL);
        cz_lc_add(cs, &lc, a.v, NULL);
        cz_lc_add(cs, &lc, b.v, NULL);
        cz_lc_add(cs, &lc, c.v, &m1);
        cz_cs_enforce(cs, "xor", &la, &lb, &lc);
        cz_lc_free(cs, &la);
        cz_lc_free(cs, &lb);
        cz_lc_free(cs, &lc);
    } else {
        cz_cs_enforce(cs, "xor", NULL, NULL, NULL);
    }
    return neg ? cz_bool_not(c) : c;
}

cz_bool cz_bool_and(cz_cs *cs, cz_bool a, cz_bool b)
{
    if (a.kind == CZ_BOOL_CONST) return a.value ? b : cz_bool_const(0);
    if (b.kind == CZ_BOOL_CONST) return b.value ? a : cz_bool_const(0);
    cz_bool c = new_bit(cs, a.value & b.value, 0);
    if (cz_cs_wants_lc(cs)) {
        cz_lc la = {0}, lb = {0}, lc = {0};
        cz_bool_lc_add(cs, &la, a, NULL);
        cz_bool_lc_add(cs, &lb, b, NULL);
        cz_lc_add(cs, &lc, c.v, NULL);
        cz_cs_enforce(cs, "and", &la, &lb, &lc);
        cz_lc_free(cs, &la);
        cz_lc_free(cs, &lb);
        cz_lc_free(cs, &lc);
    } else {
        cz_cs_enforce(cs, "and", NULL, NULL, NULL);
    }
    return c;
}

cz_bool cz_bool_or(cz_cs *cs, cz_bool a, cz_bool b)
{
    return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(b)));
}

cz_bool cz_bool_ch(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c)
{
    int v = a.value ? b.value : c.value;
    if (a.kind == CZ_BOOL_CONST) return a.value ? b : c;
    if (b.kind == CZ_BOOL_CONST && c.kind == CZ_BOOL_CONST) {
        if (b.value == c.value) return b;
        return b.value ? a : cz_bool_not(a);
    }
    cz_bool r = new_bit(cs, v, 0);
    if (cz_cs_wants_lc(cs)) {
        /* a * (b - c) = r - c */
        cz_fe m1;
        cz_fe_neg(cs, &m1, &cz_cs_fr(cs)->one);
        cz_lc la = {0}, lb = {0}, lc = {0};
        cz_bool_lc_add(cs, &la, a, NULL);
        cz_bool_lc_add(cs, &lb, b, NULL);
        cz_bool_lc_add(cs, &lb, c, &m1);
        cz_lc_add(cs, &lc, r.v, NULL);
        cz_bool_lc_add(cs, &lc, c, &m1);
        cz_cs_enforce(cs, "ch", &la, &lb, &lc);
        cz_lc_free(cs, &la);
        cz_lc_free(cs, &lb);
        cz_lc_free(cs, &lc);
    } else {
        cz_cs_enforce(cs, "ch", NULL, NULL, NULL);
    }
    return r;
}

cz_bool cz_bool_maj(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c)
{
    int v = (a.value & b.value) | (a.value & c.value) | (b.value & c.value);
    int consts = (a.kind == CZ_BOOL_CONST) + (b.kind == CZ_BOOL_CONST) + (c.kind == CZ_BOOL_CONST);
    if (consts == 3) return cz_bool_const(v);
    if (consts >= 1) { /* maj(k, x, y) = k ? x | y : x & y */
        cz_bool k = a.kind == CZ_BOOL_CONST ? a : b.kind == CZ_BOOL_CONST ? b : c;
        cz_bool x = a.kind == CZ_BOOL_CONST ? b : a;
        cz_bool y = a.kind == CZ_BOOL_CONST ? c : b.kind == CZ_BOOL_CONST ? c : b;
        return k.value ? cz_bool_or(cs, x, y) : cz_bool_and(cs, x, y);
    }
    cz_bool bc = cz_bool_and(cs, b, c);
    cz_bool r = new_bit(cs, v, 0);
    if (cz_cs_wants_lc(cs)) {
        /* a * (b + c - 2bc) = r - bc */
        const cz_cs_field *f = cz_cs_fr(cs);
        cz_fe m2, m1;
        cz_fe_neg(cs, &m1, &f->one);
        cz_fe_add(cs, &m2, &m1, &m1);
        cz_lc la = {0}, lb = {0}, lc = {0};
        cz_bool_lc_add(cs, &la, a, NULL);
        cz_bool_lc_add(cs, &lb, b, NULL);
        cz_bool_lc_add(cs, &lb, c, NULL);
        cz_bool_lc_add(cs, &lb, bc, &m2);
        cz_lc_add(cs, &lc, r.v, NULL);
        cz_bool_lc_add(cs, &lc, bc, &m1);
        cz_cs_enforce(cs, "maj", &la, &lb, &lc);
        cz_lc_free(cs, &la);
        cz_lc_free(cs, &lb);
        cz_lc_free(cs, &lc);
    } else {
        cz_cs_enforce(cs, "maj", NULL, NULL, NULL);
    }
    return r;
}

void cz_bool_enforce_equal(cz_cs *cs, cz_bool a, cz_bool b)
{
    if (!cz_cs_wants_lc(cs)) {
        cz_cs_enforce(cs, "equal", NULL, NULL, NULL);
        return;
    }
    cz_fe m1;
    cz_fe_neg(cs, &m1, &cz_cs_fr(cs)->one);
    cz_lc la = {0}, lb = {0};
    cz_bool_lc_add(cs, &la, a, NULL);
    cz_bool_lc_add(cs, &la, b, &m1);
    cz_lc_add(cs, &lb, CZ_VAR_ONE, NULL);
    cz_cs_enforce(cs, "equal", &la, &lb, NULL);
    cz_lc_free(cs, &la);
    cz_lc_free(cs, &lb);
}

unsigned cz_cs_field_bits(const cz_cs *cs)
{
    const uint64_t *p = cz_cs_fr(cs)->p;
    for (int i = 255; i >= 0; i--)
        if ((p[i >> 6] >> (i & 63)) & 1) return (unsigned)i + 1;
    return 0;
}

unsigned cz_cs_capacity(const cz_cs *cs) { return cz_cs_field_bits(cs) - 1; }

void cz_bits_of(cz_cs *cs, cz_var x, const cz_fe *xv, unsigned n, int strict, cz_bool *bits)
{
    unsigned nb = cz_cs_field_bits(cs);
    if (n == 0 || n > nb) {
        cz_cs_fail(cs, CZ_ERR_RANGE, "a bit decomposition into %u bits (the field has %u)", n, nb);
        return;
    }
    uint64_t c[4];
    cz_fe_to_canonical(cs, c, xv);
    for (unsigned i = 0; i < n; i++) bits[i] = cz_bool_alloc(cs, (int)((c[i >> 6] >> (i & 63)) & 1));
    /* sum 2^i bits_i = x */
    if (cz_cs_wants_lc(cs)) {
        cz_lc la = {0}, lb = {0}, lc = {0};
        cz_fe p2;
        for (unsigned i = 0; i < n; i++) {
            cz_fe_pow2(cs, &p2, i);
            cz_bool_lc_add(cs, &la, bits[i], &p2);
        }
        cz_lc_add(cs, &lb, CZ_VAR_ONE, NULL);
        cz_lc_add(cs, &lc, x, NULL);
        cz_cs_enforce(cs, "pack", &la, &lb, &lc);
        cz_lc_free(cs, &la);
        cz_lc_free(cs, &lb);
        cz_lc_free(cs, &lc);
    } else {
        cz_cs_enforce(cs, "pack", NULL, NULL, NULL);
    }
    if (strict && n == nb) cz_bits_enforce_below_p(cs, bits);
}

void cz_bits_enforce_below_p(cz_cs *cs, const cz_bool *bits)
{
    /* bits <= p - 1, from the top: eq = "the bits so far equal those of
     * p - 1"; where p - 1 has a 1, eq &= bit; where it has a 0, eq * bit = 0 */
    unsigned n = cz_cs_field_bits(cs);
    uint64_t pm1[4];
    memcpy(pm1, cz_cs_fr(cs)->p, sizeof pm1);
    pm1[0] -= 1;
    cz_bool eq = cz_bool_const(1);
    cz_cs_push(cs, "range");
    for (int i = (int)n - 1; i >= 0; i--) {
        int pb = (int)((pm1[i >> 6] >> (i & 63)) & 1);
        if (pb) {
            eq = cz_bool_and(cs, eq, bits[i]);
        } else if (eq.kind == CZ_BOOL_CONST) {
            if (eq.value) cz_bool_enforce_equal(cs, bits[i], cz_bool_const(0));
        } else {
            if (cz_cs_wants_lc(cs)) {
                cz_lc la = {0}, lb = {0};
                cz_bool_lc_add(cs, &la, eq, NULL);
                cz_bool_lc_add(cs, &lb, bits[i], NULL);
                cz_cs_enforce(cs, "below p", &la, &lb, NULL);
                cz_lc_free(cs, &la);
                cz_lc_free(cs, &lb);
            } else {
                cz_cs_enforce(cs, "below p", NULL, NULL, NULL);
            }
        }
    }
    cz_cs_pop(cs);
}

uint32_t cz_pack_inputs(cz_cs *cs, const cz_bool *bits, size_t n)
{
    unsigned cap = cz_cs_capacity(cs);
    uint32_t made = 0;
    for (size_t at = 0; at < n; at += cap, made++) {
        size_t k = n - at < cap ? n - at : cap;
        uint64_t v[4] = {0};
        for (size_t i = 0; i < k; i++)
            if (bits[at + i].value) v[i >> 6] |= (uint64_t)1 << (i & 63);
        cz_fe fv;
        cz_fe_from_canonical(cs, &fv, v);
        cz_var in = cz_cs_alloc_input(cs, &fv);
        if (!cz_cs_wants_lc(cs)) {
            cz_cs_enforce(cs, "packed input", NULL, NULL, NULL);
            continue;
        }
        cz_lc la = {0}, lb = {0}, lc = {0};
        cz_fe p2;
        for (size_t i = 0; i < k; i++) {
            cz_fe_pow2(cs, &p2, (unsigned)i);
            cz_bool_lc_add(cs, &la, bits[at + i], &p2);
        }
        cz_lc_add(cs, &lb, CZ_VAR_ONE, NULL);
        cz_lc_add(cs, &lc, in, NULL);
        cz_cs_enforce(cs, "packed input", &la, &lb, &lc);
        cz_lc_free(cs, &la);
        cz_lc_free(cs, &lb);
        cz_lc_free(cs, &lc);
    }
    return made;
}

void cz_pack_values(const cz_cs *cs, const uint8_t *bits, size_t n, cz_fe *out)
{
    unsigned cap = cz_cs_capacity(cs);
    for (size_t at = 0, j = 0; at < n; at += cap, j++) {
        size_t k = n - at < cap ? n - at : cap;
        uint64_t v[4] = {0};
        for (size_t i = 0; i < k; i++)
            if (bits[at + i]) v[i >> 6] |= (uint64_t)1 << (i & 63);
        cz_fe_from_canonical(cs, &out[j], v);
    }
}
