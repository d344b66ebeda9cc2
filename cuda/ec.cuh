/*
 * cuda/ec.cuh: G1 and G2 point arithmetic of both curves on the GPU.
 *
 * DESIGN: two point types over any field F of cuda/ff.cuh (fp or fp2), all
 * curves being y^2 = x^3 + b (a = 0, so b never enters the formulas):
 *
 *   affine<F>  (x, y); infinity = (0, 0): the snarkjs zkey layout and the
 *              CPU <g>_affine layout byte for byte (bases are uploaded as is)
 *   xyzz<F>    extended Jacobian (X, Y, ZZ, ZZZ), x = X/ZZ, y = Y/ZZZ,
 *              ZZ^3 = ZZZ^2; infinity ZZ = 0: the bucket type of the MSM
 *              (mixed add 8M + 2S, full add 12M + 2S), byte-compatible with
 *              the CPU <g>_xyzz so results go back to the host as they are
 *              (ec/ec.h from_xyzz turns them into Jacobian points).
 *
 * Formulas: EFD "madd-2008-s", "add-2008-s", "dbl-2008-s-1", "mdbl-2008-s-1";
 * each handles P + P, P + (-P) and infinity on either side, so callers need
 * no special cases. Each one's Y3 = A B - C D is F::mul_sub (one reduction
 * for the two products in CZ_CUDA_PTX device code), its squares F::sqr (a
 * dedicated squaring there). Everything is __host__ __device__: tests/test_cuda_ff.cu
 * runs the same code on the host against the CPU curves.
 */
#ifndef CZ_CUDA_EC_CUH
#define CZ_CUDA_EC_CUH

#include "cuda/ff.cuh"

namespace cz_dev {

template <class F> struct affine {
    F x, y;
    CZ_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
    CZ_HD static affine inf() { return affine{F::zero(), F::zero()}; }
    CZ_HD affine operator-() const { return is_inf() ? *this : affine{x, -y}; }
};

template <class F> struct xyzz {
    F X, Y, ZZ, ZZZ;

    CZ_HD static xyzz inf() { return xyzz{F::zero(), F::zero(), F::zero(), F::zero()}; }
    CZ_HD bool is_inf() const { return ZZ.is_zero(); }
    CZ_HD static xyzz from_affine(const affine<F> &q)
    {
        if (q.is_inf()) return inf();
        return xyzz{q.x, q.y, F::one(), F::one()};
    }
    CZ_HD xyzz operator-() const { return xyzz{X, -Y, ZZ, ZZZ}; }

    /* 2 q for affine q (mdbl-2008-s-1) */
    CZ_HD static xyzz dbl_affine(const affine<F> &q) { return dbl_affine_(q); }
    CZ_HD_CALL static xyzz dbl_affine_(affine<F> q)
    {
        if (q.is_inf() || q.y.is_zero()) return inf();
        F U = q.y.dbl(), V = U.sqr(), W = U * V, S = q.x * V;
        F xx = q.x.sqr();
        F M = xx.dbl() + xx;
        F X3 = M.sqr() - S.dbl();
        F Y3 = F::mul_sub(M, S - X3, W, q.y);
        return xyzz{X3, Y3, V, W};
    }

    /* 2 this (dbl-2008-s-1) */
    CZ_HD xyzz dbl() const { return dbl_(*this); }
    CZ_HD_CALL static xyzz dbl_(xyzz p)
    {
        if (p.is_inf() || p.Y.is_zero()) return inf();
        F U = p.Y.dbl(), V = U.sqr(), W = U * V, S = p.X * V;
        F xx = p.X.sqr();
        F M = xx.dbl() + xx;
        F X3 = M.sqr() - S.dbl();
        F Y3 = F::mul_sub(M, S - X3, W, p.Y);
        return xyzz{X3, Y3, V * p.ZZ, W * p.ZZZ};
    }

    /* this + q for affine q (madd-2008-s) */
    CZ_HD xyzz add_affine(const affine<F> &q) const { return add_affine_(*this, q); }
    CZ_HD_CALL static xyzz add_affine_(xyzz p, affine<F> q) { return madd(p, q); }
    /* the same inlined (the products stay F's: called for the 381-bit
     * field): the level-0 loop of the MSM, where nearly all of its time goes */
    CZ_HD xyzz add_affine_inline(const affine<F> &q) const { return madd(*this, q); }
    CZ_HD static xyzz madd(const xyzz &p, const affine<F> &q)
    {
        if (q.is_inf()) return p;
        if (p.is_inf()) return from_affine(q);
        F U2 = q.x * p.ZZ, S2 = q.y * p.ZZZ;
        F P = U2 - p.X, R = S2 - p.Y;
        if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : inf();
        F PP = P.sqr(), PPP = P * PP, Q = p.X * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        if constexpr (F::DEGREE == 1) {
            /* G1: ZZ3 and ZZZ3 before Y3, an order measured 5% faster for
             * the BN254 G1 MSM (bench/RESULTS.md, 2026-12-02) and 2%
             * slower for BLS12-381 G2, which keeps the other */
            F ZZ3 = p.ZZ * PP, ZZZ3 = p.ZZZ * PPP;
            F Y3 = F::mul_sub(R, Q - X3, p.Y, PPP);
            return xyzz{X3, Y3, ZZ3, ZZZ3};
        } else {
            F Y3 = F::mul_sub(R, Q - X3, p.Y, PPP);
            return xyzz{X3, Y3, p.ZZ * PP, p.ZZZ * PPP};
        }
    }
    CZ_HD xyzz sub_affine(const affine<F> &q) const { return add_affine(-q); }

    /* this + q (add-2008-s) */
    CZ_HD xyzz add(const xyzz &q) const { return add_(*this, q); }
    CZ_HD_CALL static xyzz add_(xyzz p, xyzz q)
    {
        if (q.is_inf()) return p;
        if (p.is_inf()) return q;
        F U1 = p.X * q.ZZ, U2 = q.X * p.ZZ;
        F S1 = p.Y * q.ZZZ, S2 = q.Y * p.ZZZ;
        F P = U2 - U1, R = S2 - S1;
        if (P.is_zero()) return R.is_zero() ? p.dbl() : inf();
        F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        F Y3 = F::mul_sub(R, Q - X3, S1, PPP);
        return xyzz{X3, Y3, p.ZZ * q.ZZ * PP, p.ZZZ * q.ZZZ * PPP};
    }
};

/* SHORT_g1_affine, SHORT_g2_affine, SHORT_g1_xyzz, SHORT_g2_xyzz per curve */
#define CZ_DEV_POINTS_(ID, VALUE, SYM, CONST, SHORT, ...)                                                                     \
    typedef affine<SHORT##_fq> SHORT##_g1_affine;                                                                      \
    typedef affine<SHORT##_fq2> SHORT##_g2_affine;                                                                     \
    typedef xyzz<SHORT##_fq> SHORT##_g1_xyzz;                                                                          \
    typedef xyzz<SHORT##_fq2> SHORT##_g2_xyzz;
CZ_CURVE_LIST(CZ_DEV_POINTS_)
#undef CZ_DEV_POINTS_

} // namespace cz_dev

#endif
