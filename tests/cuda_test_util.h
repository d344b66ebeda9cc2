/*
 * tests/cuda_test_util.h: helpers of the tests of cuda/ff.cuh's lazy forms
 * (values in [0, 2p)), shared by the host tests (test_cuda_ff, test_cuda_ntt)
 * and the GPU test (gpu/test_gpu_ff).
 */
#ifndef CZ_TESTS_CUDA_TEST_UTIL_H
#define CZ_TESTS_CUDA_TEST_UTIL_H

#include <stdint.h>

#include "cuda/ff.cuh"

/* x + p as limbs: for x < p, the same residue below 2p */
template <class D> CZ_HD D cz_test_plus_p(const D &x)
{
    D r;
    uint64_t c = 0;
    for (int i = 0; i < D::N; i++) {
        c += (uint64_t)x.l[i] + D::P_::p(i);
        r.l[i] = (uint32_t)c;
        c >>= 32;
    }
    return r;
}

/* x < 2p as integers */
template <class D> CZ_HD bool cz_test_below_2p(const D &x)
{
    for (int i = D::N - 1; i >= 0; i--)
        if (x.l[i] != D::p2(i)) return x.l[i] < D::p2(i);
    return false;
}

/* 1 unless r is below 2p and reduces to want */
template <class D> CZ_HD long cz_test_lazy_bad(const D &r, const D &want)
{
    return !cz_test_below_2p(r) || !(r.reduced() == want);
}

#endif
