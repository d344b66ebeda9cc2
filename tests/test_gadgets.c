/* tests/test_gadgets: booleans, uint32, SHA-256 and packing
 * (circuit/gadgets/) against native arithmetic, the FIPS 180-4 vectors and
 * the system's libcrypto; every gadget in the three modes of circuit/cs.h
 * with the PCE's a, b, c equal to full synthesis; constraint counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/gadgets/boolean.h"
#include "circuit/gadgets/sha256.h"
#include "circuit/gadgets/uint32.h"
#include "cs_test_util.h"
#include "test_util.h"
#include "util/sha256.h"

#ifdef CZ_HAVE_LIBCRYPTO
#include <openssl/sha.h>
#define REF_SHA256(m, n, out) SHA256((m), (n), (out))
#define REF_NAME "libcrypto"
#else
/* no libcrypto in this build: the native code, itself checked against the
 * FIPS vectors above, is the reference */
#define REF_SHA256(m, n, out) cz_sha256_bytes((out), (m), (n))
#define REF_NAME "native sha256 (no libcrypto in this build)"
#endif

static cz_rng rng;

static cz_cs *new_cs(cz_curve curve, cz_cs_mode mode)
{
    cz_cs_opts o = {curve, mode, 0, NULL, NULL, 0};
    cz_cs *cs = NULL;
    cz_error err = {0};
    cz_cs_new(&cs, &o, &err);
    return cs;
}

static int check_ok(cz_cs *cs)
{
    uint64_t bad;
    cz_error err = {0};
    cz_status st = cz_cs_check_result(cs, &bad, &err);
    if (st != CZ_OK) fprintf(stderr, "  %s\n", err.msg);
    return st == CZ_OK;
}

/* a boolean of each kind: const 0/1, var 0/1, not var 0/1 */
static cz_bool make_bool(cz_cs *cs, int kind)
{
    switch (kind) {
    case 0: return cz_bool_const(0);
    case 1: return cz_bool_const(1);
    case 2: return cz_bool_alloc(cs, 0);
    case 3: return cz_bool_alloc(cs, 1);
    case 4: return cz_bool_not(cz_bool_alloc(cs, 0));
    default: return cz_bool_not(cz_bool_alloc(cs, 1));
    }
}

static int bool_val(cz_cs *cs, cz_bool b)
{
    if (b.kind == CZ_BOOL_CONST) return b.value;
    const cz_fe *v = cz_cs_value(cs, b.v);
    int x = cz_fe_eq(v, &cz_cs_fr(cs)->one) ? 1 : cz_fe_is_zero(v) ? 0 : -1;
    return b.kind == CZ_BOOL_NOT ? 1 - x : x;
}

static void test_bool(void)
{
    for (int ka = 0; ka < 6; ka++)
        for (int kb = 0; kb < 6; kb++)
            for (int kc = 0; kc < 6; kc++) {
                cz_cs *cs = new_cs(CZ_CURVE_BN254, CZ_CS_CHECK);
                cz_bool a = make_bool(cs, ka), b = make_bool(cs, kb), c = make_bool(cs, kc);
                int va = a.value, vb = b.value, vc = c.value;
                uint64_t before = cz_cs_n_constraints(cs);
                cz_bool x = cz_bool_xor(cs, a, b);
                uint64_t n_xor = cz_cs_n_constraints(cs) - before;
                cz_bool y = cz_bool_and(cs, a, b);
                cz_bool o = cz_bool_or(cs, a, b);
                before = cz_cs_n_constraints(cs);
                cz_bool ch = cz_bool_ch(cs, a, b, c);
                uint64_t n_ch = cz_cs_n_constraints(cs) - before;
                before = cz_cs_n_constraints(cs);
                cz_bool mj = cz_bool_maj(cs, a, b, c);
                uint64_t n_maj = cz_cs_n_constraints(cs) - before;
                CHECK(x.value == (va ^ vb) && bool_val(cs, x) == (va ^ vb));
                CHECK(y.value == (va & vb) && bool_val(cs, y) == (va & vb));
                CHECK(o.value == (va | vb) && bool_val(cs, o) == (va | vb));
                CHECK(bool_val(cs, ch) == (va ? vb : vc));
                CHECK(bool_val(cs, mj) == ((va & vb) | (va & vc) | (vb & vc)));
                CHECK(n_xor <= 1 && n_ch <= 1 && n_maj <= 2);
                if (ka < 2 || kb < 2) CHECK(n_xor == 0);
                cz_bool_enforce_equal(cs, x, cz_bool_const(va ^ vb));
                CHECK(check_ok(cs));
                /* an equality that does not hold */
                cz_bool_enforce_equal(cs, y, cz_bool_const(!(va & vb)));
                uint64_t bad;
                CHECK(cz_cs_check_result(cs, &bad, NULL) == CZ_ERR_UNSATISFIED);
                cz_cs_free(cs);
            }
    /* a bit whose value is 2 fails its booleanity constraint */
    cz_cs *cs = new_cs(CZ_CURVE_BN254, CZ_CS_CHECK);
    cz_fe two;
    cz_fe_from_u64(cs, &two, 2);
    cz_var v = cz_cs_alloc(cs, &two);
    cz_lc a = {0}, b = {0};
    cz_fe m1;
    cz_fe_neg(cs, &m1, &cz_cs_fr(cs)->one);
    cz_lc_add(cs, &a, v, NULL);
    cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
    cz_lc_add(cs, &b, v, &m1);
    cz_cs_enforce(cs, "boolean", &a, &b, NULL);
    cz_lc_free(cs, &a);
    cz_lc_free(cs, &b);
    uint64_t bad;
    CHECK(cz_cs_check_result(cs, &bad, NULL) == CZ_ERR_UNSATISFIED && bad == 0);
    cz_cs_free(cs);
}

/* bit decomposition with the strict range check */
static void test_bits(cz_curve curve)
{
    for (int it = 0; it < 4; it++) {
        cz_cs *cs = new_cs(curve, CZ_CS_CHECK);
        unsigned nb = cz_cs_field_bits(cs);
        uint64_t c[4];
        for (int i = 0; i < 4; i++) c[i] = cz_rng_u64(&rng);
        if (it == 0) {
            memcpy(c, cz_cs_fr(cs)->p, 32);
            c[0] -= 1; /* p - 1: the largest */
        } else {
            c[3] &= (1ull << ((nb - 1) & 63)) - 1;
        }
        cz_fe x;
        cz_fe_from_canonical(cs, &x, c);
        cz_var vx = cz_cs_alloc(cs, &x);
        cz_bool bits[256];
        uint64_t before = cz_cs_n_constraints(cs);
        cz_bits_of(cs, vx, &x, nb, 1, bits);
        uint64_t cost = cz_cs_n_constraints(cs) - before;
        CHECK(check_ok(cs));
        for (unsigned i = 0; i < nb; i++) CHECK(bits[i].value == ((c[i >> 6] >> (i & 63)) & 1));
        if (it == 0) printf("  bits of a %s element, strict: %llu constraints (%u bits)\n", cz_curve_name(curve),
                            (unsigned long long)cost, nb);
        cz_cs_free(cs);
    }
    /* x + p written in the field's bit length passes the packing row (mod p)
     * but not the range check; only where x + p < 2^bits (BLS12-381) */
    if (curve == CZ_CURVE_BLS12_381) {
        cz_cs *cs = new_cs(curve, CZ_CS_CHECK);
        unsigned nb = cz_cs_field_bits(cs);
        uint64_t c[4] = {12345, 0, 0, 0}, e[4];
        unsigned __int128 carry = 0;
        for (int i = 0; i < 4; i++) {
            carry += (unsigned __int128)c[i] + cz_cs_fr(cs)->p[i];
            e[i] = (uint64_t)carry;
            carry >>= 64;
        }
        CHECK(carry == 0 && (e[3] >> 63) == 0);
        cz_bool bits[256];
        for (unsigned i = 0; i < nb; i++) bits[i] = cz_bool_alloc(cs, (int)((e[i >> 6] >> (i & 63)) & 1));
        CHECK(check_ok(cs));
        cz_bits_enforce_below_p(cs, bits);
        uint64_t bad;
        cz_error err = {0};
        CHECK(cz_cs_check_result(cs, &bad, &err) == CZ_ERR_UNSATISFIED && strstr(err.msg, "range"));
        cz_cs_free(cs);
    }
}

static void test_u32(void)
{
    long iters = cz_test_iters(200);
    for (long it = 0; it < iters; it++) {
        cz_cs *cs = new_cs(it & 1 ? CZ_CURVE_BN254 : CZ_CURVE_BLS12_381, CZ_CS_CHECK);
        uint32_t v[7];
        cz_u32 x[7];
        const cz_u32 *ops[7];
        for (int i = 0; i < 7; i++) {
            v[i] = (uint32_t)cz_rng_u64(&rng);
            x[i] = i == 3 ? cz_u32_const(v[i]) : cz_u32_alloc(cs, v[i]);
            ops[i] = &x[i];
        }
        unsigned r = (unsigned)(cz_rng_u64(&rng) % 32);
        cz_u32 ro = cz_u32_rotr(&x[0], r), sh = cz_u32_shr(&x[1], r), xo = cz_u32_xor(cs, &x[0], &x[1]);
        CHECK(ro.value == (r ? (v[0] >> r) | (v[0] << (32 - r)) : v[0]) && sh.value == v[1] >> r);
        CHECK(xo.value == (v[0] ^ v[1]));
        unsigned k = 2 + (unsigned)(it % 6);
        uint64_t before = cz_cs_n_constraints(cs);
        cz_u32 s = cz_u32_addmany(cs, ops, k);
        uint64_t cost = cz_cs_n_constraints(cs) - before;
        uint32_t want = 0;
        for (unsigned i = 0; i < k; i++) want += v[i];
        CHECK(s.value == want);
        uint32_t got = 0;
        for (int i = 0; i < 32; i++) got |= (uint32_t)bool_val(cs, s.b[i]) << i;
        for (int i = 0; i < 32; i++) CHECK(bool_val(cs, xo.b[i]) == (int)(((v[0] ^ v[1]) >> i) & 1));
        CHECK(got == want);
        /* bits of the largest sum + 1 packing row */
        uint64_t max = 0;
        for (unsigned i = 0; i < k; i++) max += i == 3 ? v[3] : 0xffffffffull;
        unsigned nbits = 0;
        while (max >> nbits) nbits++;
        CHECK_MSG(cost == nbits + 1, "addmany of %u: %llu constraints", k, (unsigned long long)cost);
        CHECK(check_ok(cs));
        cz_cs_free(cs);
    }
}

/* ---- SHA-256 ---- */

typedef struct {
    const uint8_t *msg;
    size_t len;
    uint8_t out[32];
} sha_case;

static void sha_synth(cz_cs *cs, void *arg)
{
    sha_case *c = arg;
    size_t nbits = c->len * 8;
    cz_bool *in = malloc((nbits ? nbits : 1) * sizeof *in), out[256];
    for (size_t i = 0; i < nbits; i++) in[i] = cz_bool_alloc(cs, (c->msg[i / 8] >> (7 - i % 8)) & 1);
    cz_sha256(cs, in, nbits, out);
    memset(c->out, 0, 32);
    for (int i = 0; i < 256; i++) c->out[i / 8] |= (uint8_t)(out[i].value << (7 - i % 8));
    /* the digest as public inputs */
    cz_pack_inputs(cs, out, 256);
    free(in);
}

static int hex_eq(const uint8_t *d, const char *hex)
{
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v != d[i]) return 0;
    }
    return 1;
}

static void test_sha256(void)
{
    /* FIPS 180-4 / NIST CSHA examples */
    static const struct {
        const char *msg, *hex;
    } vec[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        sha_case c = {(const uint8_t *)vec[i].msg, strlen(vec[i].msg), {0}};
        cz_cs *cs = new_cs(CZ_CURVE_BN254, CZ_CS_CHECK);
        sha_synth(cs, &c);
        CHECK_MSG(hex_eq(c.out, vec[i].hex), "sha256 gadget of \"%s\"", vec[i].msg);
        CHECK(check_ok(cs));
        uint8_t nat[32];
        cz_sha256_bytes(nat, c.msg, c.len);
        CHECK(hex_eq(nat, vec[i].hex));
        cz_cs_free(cs);
    }
    /* random messages of every padding case against libcrypto */
    long iters = cz_test_iters(12);
    for (long it = 0; it < iters; it++) {
        size_t len = it < 4 ? (size_t[]){55, 56, 63, 64}[it] : (size_t)(cz_rng_u64(&rng) % 150);
        uint8_t *m = malloc(len + 1), ref[32], nat[32];
        for (size_t i = 0; i < len; i++) m[i] = (uint8_t)cz_rng_u64(&rng);
        REF_SHA256(m, len, ref);
        cz_sha256_bytes(nat, m, len);
        CHECK_MSG(!memcmp(nat, ref, 32), "native sha256 of %zu bytes", len);
        sha_case c = {m, len, {0}};
        cz_cs *cs = new_cs(it & 1 ? CZ_CURVE_BLS12_381 : CZ_CURVE_BN254, CZ_CS_CHECK);
        sha_synth(cs, &c);
        CHECK_MSG(!memcmp(c.out, ref, 32), "sha256 gadget of %zu bytes against %s", len, REF_NAME);
        CHECK(check_ok(cs));
        /* a public input that is not the digest: the packing row fails */
        cz_cs_free(cs);
        free(m);
    }
    /* long input through the native streaming API */
    {
        size_t len = 100000;
        uint8_t *m = malloc(len), ref[32], nat[32];
        for (size_t i = 0; i < len; i++) m[i] = (uint8_t)(i * 131 + 7);
        REF_SHA256(m, len, ref);
        cz_sha256_ctx x;
        cz_sha256_init(&x);
        for (size_t off = 0; off < len; off += 777) cz_sha256_update(&x, m + off, len - off < 777 ? len - off : 777);
        cz_sha256_final(&x, nat);
        CHECK(!memcmp(nat, ref, 32));
        free(m);
    }
    /* counts: one compression of a variable block, and the 64-byte message */
    {
        cz_cs *cs = new_cs(CZ_CURVE_BLS12_381, CZ_CS_CHECK);
        cz_bool blk[512];
        for (int i = 0; i < 512; i++) blk[i] = cz_bool_alloc(cs, (int)(cz_rng_u64(&rng) & 1));
        cz_u32 st[8];
        cz_sha256_iv(st);
        uint64_t before = cz_cs_n_constraints(cs);
        cz_sha256_compress(cs, st, blk);
        uint64_t one = cz_cs_n_constraints(cs) - before;
        before = cz_cs_n_constraints(cs);
        cz_sha256_compress(cs, st, blk); /* a second one: its state is variable */
        uint64_t two = cz_cs_n_constraints(cs) - before;
        CHECK(check_ok(cs));
        printf("  sha256 compression: %llu constraints (IV state), %llu (variable state)\n", (unsigned long long)one,
               (unsigned long long)two);
        CHECK(one > 20000 && one < 30000 && two >= one);
        cz_cs_free(cs);
    }
    /* a preimage circuit against a wrong digest: the equality of bit 5 fails */
    {
        uint8_t m[64], d[32];
        for (int i = 0; i < 64; i++) m[i] = (uint8_t)i;
        cz_sha256_bytes(d, m, 64);
        d[0] ^= 0x04; /* bit 5 in SHA-256's order */
        cz_cs *cs = new_cs(CZ_CURVE_BN254, CZ_CS_CHECK);
        cz_bool in[512], out[256];
        for (size_t i = 0; i < 512; i++) in[i] = cz_bool_alloc(cs, (m[i / 8] >> (7 - i % 8)) & 1);
        cz_sha256(cs, in, 512, out);
        cz_cs_push(cs, "digest");
        for (int i = 0; i < 256; i++) cz_bool_enforce_equal(cs, out[i], cz_bool_const((d[i / 8] >> (7 - i % 8)) & 1));
        cz_cs_pop(cs);
        uint64_t bad;
        cz_error err = {0};
        CHECK(cz_cs_check_result(cs, &bad, &err) == CZ_ERR_UNSATISFIED && strstr(err.msg, "digest/equal"));
        CHECK(bad == cz_cs_n_constraints(cs) - 256 + 5);
        cz_cs_free(cs);
    }
    /* the three modes and the PCE: 64 bytes (2 compressions) on both curves */
    uint8_t m[64];
    for (int i = 0; i < 64; i++) m[i] = (uint8_t)cz_rng_u64(&rng);
    sha_case c = {m, 64, {0}};
    cz_cs_hint h = {0};
    CHECK(cs_modes_agree("sha256-64", sha_synth, &c, CZ_CURVE_BN254, &h));
    printf("  sha256 of 64 bytes with its 512 input bits and 2 packed inputs: %llu constraints, %u inputs, %u aux\n",
           (unsigned long long)h.n_constraints, h.n_inputs, h.n_aux);
    CHECK(h.n_inputs == 3);
    CHECK(cs_modes_agree("sha256-64", sha_synth, &c, CZ_CURVE_BLS12_381, NULL));
}

static void test_pack(void)
{
    cz_cs *cs = new_cs(CZ_CURVE_BN254, CZ_CS_CHECK);
    cz_bool bits[600];
    uint8_t raw[600];
    for (int i = 0; i < 600; i++) {
        raw[i] = (uint8_t)(cz_rng_u64(&rng) & 1);
        bits[i] = i % 7 == 3 ? cz_bool_const(raw[i]) : cz_bool_alloc(cs, raw[i]);
    }
    uint64_t before = cz_cs_n_constraints(cs);
    uint32_t n = cz_pack_inputs(cs, bits, 600);
    CHECK(n == 3 && cz_cs_capacity(cs) == 253 && cz_cs_n_constraints(cs) - before == 3);
    cz_fe vals[3];
    cz_pack_values(cs, raw, 600, vals);
    for (uint32_t i = 0; i < n; i++) CHECK(cz_fe_eq(cz_cs_value(cs, CZ_VAR_INPUT | (i + 1)), &vals[i]));
    CHECK(check_ok(cs));
    cz_cs_free(cs);
}

int main(void)
{
    cz_test_seed(&rng, "test_gadgets");
    test_bool();
    test_bits(CZ_CURVE_BN254);
    test_bits(CZ_CURVE_BLS12_381);
    test_u32();
    test_pack();
    test_sha256();
    return cz_test_finish("test_gadgets");
}
