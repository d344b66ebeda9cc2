/*
 * Fast subgroup checks and the endomorphisms they use (see ec/ec_subgroup.h
 * for the DESIGN and the references). All of this is variable time: it runs
 * on public points (decoded keys, proofs), never on secrets.
 */
#include "ec/ec_subgroup.h"

#include "ec/ec_endo_consts.inc"

/* r = k*p for a 64-bit k by double-and-add from the top bit: |z| has 6 set
 * bits (BLS12-381) resp. 28 (BN254), so this beats the 4-bit window of
 * <g>_mul, whose table alone costs 14 additions. */
#define CZ_DEFINE_MUL_U64(G)                                                                                           \
    static void G##_mul_u64_(G *r, const G *p, uint64_t k)                                                             \
    {                                                                                                                  \
        G acc, base = *p;                                                                                              \
        G##_set_inf(&acc);                                                                                             \
        for (int i = 63; i >= 0; i--) {                                                                                \
            G##_dbl(&acc, &acc);                                                                                       \
            if ((k >> i) & 1) G##_add(&acc, &acc, &base);                                                              \
        }                                                                                                              \
        *r = acc;                                                                                                      \
    }
CZ_DEFINE_MUL_U64(cz_bls12_381_g1)
CZ_DEFINE_MUL_U64(cz_bls12_381_g2)
CZ_DEFINE_MUL_U64(cz_bn254_g2)
#undef CZ_DEFINE_MUL_U64

/* ---- BLS12-381 G1 ---- */

static const cz_bls12_381_fq cz_bls12_381_g1_beta_ = CZ_BLS12_381_G1_BETA;

void cz_bls12_381_g1_phi(cz_bls12_381_g1 *r, const cz_bls12_381_g1 *p)
{
    /* x = X/Z^2, so (beta X, Y, Z) represents (beta x, y) */
    cz_bls12_381_fq_mul(&r->X, &p->X, &cz_bls12_381_g1_beta_);
    r->Y = p->Y;
    r->Z = p->Z;
}

int cz_bls12_381_g1_in_subgroup(const cz_bls12_381_g1 *p)
{
    if (!cz_bls12_381_g1_is_on_curve(p)) return 0;
    if (cz_bls12_381_g1_is_inf(p)) return 1;
    /* phi(P) == -z^2 P; z^2 > 0, so -z^2 P = -(|z| (|z| P)) */
    cz_bls12_381_g1 t, e;
    cz_bls12_381_g1_mul_u64_(&t, p, CZ_BLS12_381_Z_ABS);
    cz_bls12_381_g1_mul_u64_(&t, &t, CZ_BLS12_381_Z_ABS);
    cz_bls12_381_g1_neg(&t, &t);
    cz_bls12_381_g1_phi(&e, p);
    return cz_bls12_381_g1_eq(&e, &t);
}

/* ---- BLS12-381 G2 ---- */

static const cz_bls12_381_fq2 cz_bls12_381_g2_psi_x_ = CZ_BLS12_381_G2_PSI_X;
static const cz_bls12_381_fq2 cz_bls12_381_g2_psi_y_ = CZ_BLS12_381_G2_PSI_Y;

void cz_bls12_381_g2_psi(cz_bls12_381_g2 *r, const cz_bls12_381_g2 *p)
{
    /* Frobenius is a field automorphism: conj(X)/conj(Z)^2 = conj(X/Z^2) */
    cz_bls12_381_fq2_conj(&r->X, &p->X);
    cz_bls12_381_fq2_mul(&r->X, &r->X, &cz_bls12_381_g2_psi_x_);
    cz_bls12_381_fq2_conj(&r->Y, &p->Y);
    cz_bls12_381_fq2_mul(&r->Y, &r->Y, &cz_bls12_381_g2_psi_y_);
    cz_bls12_381_fq2_conj(&r->Z, &p->Z);
}

int cz_bls12_381_g2_in_subgroup(const cz_bls12_381_g2 *p)
{
    if (!cz_bls12_381_g2_is_on_curve(p)) return 0;
    if (cz_bls12_381_g2_is_inf(p)) return 1;
    /* psi(P) == z P with z < 0 */
    cz_bls12_381_g2 t, e;
    cz_bls12_381_g2_mul_u64_(&t, p, CZ_BLS12_381_Z_ABS);
    cz_bls12_381_g2_neg(&t, &t);
    cz_bls12_381_g2_psi(&e, p);
    return cz_bls12_381_g2_eq(&e, &t);
}

/* ---- BN254 G1: prime order, the curve equation is the whole test ---- */

int cz_bn254_g1_in_subgroup(const cz_bn254_g1 *p)
{
    return cz_bn254_g1_is_on_curve(p);
}

/* ---- BN254 G2 ---- */

static const cz_bn254_fq2 cz_bn254_g2_psi_x_ = CZ_BN254_G2_PSI_X;
static const cz_bn254_fq2 cz_bn254_g2_psi_y_ = CZ_BN254_G2_PSI_Y;

void cz_bn254_g2_psi(cz_bn254_g2 *r, const cz_bn254_g2 *p)
{
    cz_bn254_fq2_conj(&r->X, &p->X);
    cz_bn254_fq2_mul(&r->X, &r->X, &cz_bn254_g2_psi_x_);
    cz_bn254_fq2_conj(&r->Y, &p->Y);
    cz_bn254_fq2_mul(&r->Y, &r->Y, &cz_bn254_g2_psi_y_);
    cz_bn254_fq2_conj(&r->Z, &p->Z);
}

int cz_bn254_g2_in_subgroup(const cz_bn254_g2 *p)
{
    if (!cz_bn254_g2_is_on_curve(p)) return 0;
    if (cz_bn254_g2_is_inf(p)) return 1;
    /* [z+1]P + psi([z]P) + psi^2([z]P) - psi^3([2z]P) == O */
    cz_bn254_g2 a, b, c, t;
    cz_bn254_g2_mul_u64_(&a, p, CZ_BN254_Z); /* a = [z]P */
    cz_bn254_g2_psi(&b, &a);                 /* b = psi([z]P) */
    cz_bn254_g2_add(&a, &a, p);              /* a = [z+1]P */
    cz_bn254_g2_psi(&t, &b);                 /* t = psi^2([z]P) */
    cz_bn254_g2_add(&c, &t, &b);
    cz_bn254_g2_add(&c, &c, &a); /* c = left-hand side */
    cz_bn254_g2_psi(&t, &t);     /* t = psi^3([z]P) */
    cz_bn254_g2_dbl(&t, &t);     /* psi is linear: psi^3([2z]P) = 2 psi^3([z]P) */
    return cz_bn254_g2_eq(&t, &c);
}
