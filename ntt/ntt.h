/*
 * ntt: number-theoretic transforms over the scalar fields of BN254 and
 * BLS12-381 (both 4-limb Montgomery fields).
 *
 * DESIGN: one template (ntt/ntt_tmpl.h, implemented in ntt/ntt_tmpl_impl.h,
 * compiled in ntt/ntt.c) instantiated per curve (util/foreach_curve.h):
 *
 *   prefix            field             2-adicity s
 *   cz_bn254_ntt      cz_bn254_fr       28
 *   cz_bls12_381_ntt  cz_bls12_381_fr   32
 *
 * Roots of unity follow snarkjs/ffjavascript exactly: w[s] = 5^((r-1)/2^s)
 * (5 is the smallest quadratic non-residue of both fields) and
 * w[i] = w[i+1]^2, so omega_n = w[log2 n]. For BLS12-381 this is NOT the root
 * that arkworks/blst/zcash derive from the generator 7; proofs checked against
 * a snarkjs zkey need this one.
 *
 * Transforms (n = 2^k, arrays of n Montgomery-form elements, in place):
 *   forward          out[i] = sum_j a_j * omega^(i*j)
 *   inverse          the exact inverse of forward (includes the 1/n)
 *   coset_forward    out[i] = sum_j a_j * g^j * omega^(i*j)   (evaluation on g<omega>)
 *   coset_inverse    the exact inverse of coset_forward
 * The natural-order functions take and return natural order. The *_to_bitrev
 * / *_from_bitrev variants skip the one bit-reversal permutation the
 * natural-order versions pay (output resp. input in bit-reversed order), for
 * callers that can consume that order (e.g. h = A*B - C is elementwise, so the
 * prover may bit-reverse once at the end instead of three times).
 *
 * The Groth16 H step of snarkjs (docs/FORMATS.md, the H step) for
 * each of A, B, C given at the domain points: inverse(), then
 * coset_forward() with g = coset_shift(k), which yields X(g * omega^i).
 *
 * Algorithm: a radix-2 transform whose butterfly twiddle is constant per block
 * (Cooley-Tukey from natural to bit-reversed order; Gentleman-Sande back),
 * with the coset shift g folded into the per-level twiddles (no separate
 * g^j scaling pass: a coset transform costs a plain one plus the products
 * its level-0 blocks would otherwise skip) and the 1/n of the inverse folded
 * into its last level. Sizes up to 2^12 (2^14 on a one-thread pool) run as
 * one kernel, depth first so that the lower levels work in L1. Larger sizes
 * are split four-step style into k1 = floor(k/2) "column" levels, run on
 * gathered batches of adjacent columns in a per-thread scratch (about
 * 256 KiB), and k2 = k - k1 "row" levels, each contiguous row of 2^k2
 * elements in cache: two passes over memory plus the bit reversal, spread
 * over the pool. Twiddle tables are O(sqrt n): a bit-reversed root table of
 * 2^(k2-1) entries and 2^k1 row factors per direction (for 2^20: 96 KiB);
 * rows pay one extra product per block to form their twiddles from them
 * (about n products per transform, ~10% at 2^20), instead of an n/2-entry
 * table.
 *
 * Threads: every transform takes a cz_pool; NULL means cz_pool_default()
 * (sized by cz_set_threads). Results do not depend on the thread count.
 * A domain is read-only after creation and may be shared by concurrent calls.
 */
#ifndef CZ_NTT_NTT_H
#define CZ_NTT_NTT_H

#include <stddef.h>

#include "cuzk/status.h"
#include "ff/ff.h"
#include "util/thread.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_TMPL "ntt/ntt_tmpl.h"
#include "util/foreach_curve.h"

/* The bit-reversal of the low k bits of i (k <= 63). */
size_t cz_ntt_bitrev_index(size_t i, unsigned k);

#ifdef __cplusplus
}
#endif

#endif /* CZ_NTT_NTT_H */
