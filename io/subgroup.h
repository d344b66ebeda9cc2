/*
 * io/subgroup: prime-order subgroup checks of the point tables read from
 * files (proving keys).
 *
 * DESIGN: a point of the curve lies in the order-r subgroup or has a
 * component in the cofactor part, a group of order h whose prime factors
 * are listed in io/subgroup.c (BN254 G1: h = 1, nothing to check). An exact
 * per-point test costs a 64-bit scalar multiplication (ec's in_subgroup,
 * ~50 us), hundreds of times the on-curve check, so a large table is
 * checked with one random linear combination instead, in one pass of one
 * mixed addition per point:
 *
 *   - each point i gets a bucket c_i, uniform in [0, b^m), from a seed drawn
 *     fresh from the OS CSPRNG (getrandom) for every table; b is the
 *     smallest prime of the cofactor, m digits;
 *   - buckets B_j = sum of the points with c_i = j;
 *   - for each digit position t: S_t = sum_j digit_t(j) B_j (the digit sums
 *     of all positions from the buckets by recursive contraction, about
 *     2 b^m additions), then S_t must be in the subgroup.
 *
 * S_t = sum_i digit_t(c_i) P_i with digits independent and uniform in
 * [0, b). A point whose cofactor component Q is not 0 is detected unless
 * every S_t misses it; given the other points, d Q takes b distinct values
 * for d in [0, b) (every prime of the order of Q is >= b), so each S_t
 * misses with probability <= 1/b and all m of them with <= b^-m. A linear
 * test cannot do better per pass than one over its number of buckets; with
 * b = 3 (BLS12-381 G1) even 64-bit coefficients would miss a 3-torsion
 * component with probability 1/3, which is why the digits are base b.
 * The buckets are split between the threads (each thread scans all the
 * bucket indices, adds the points of its own buckets), so the memory is
 * b^m points in all, never per thread.
 *
 * Inputs must be on the curve (the callers check that first: the addition
 * formulas assume it). Variable time: for public data only.
 */
#ifndef CZ_IO_SUBGROUP_H
#define CZ_IO_SUBGROUP_H

#include <stdint.h>

#include "cuzk/curve.h"
#include "util/error.h"

/* 1 if every point of the curve in this group (1 or 2) lies in the
 * prime-order subgroup (cofactor 1: BN254 G1), 0 otherwise. */
int cz_subgroup_trivial(cz_curve c, int group);

/* The smallest i < n with pts[i] (affine, the curve's type, on the curve)
 * outside the subgroup, or UINT64_MAX: the exact test of every point, in
 * parallel (slow: ~50 us a point). */
uint64_t cz_subgroup_first_bad(cz_curve c, int group, const void *pts, uint64_t n);

/* Checks n affine on-curve points: the exact test for small n, the random
 * combination above otherwise. CZ_OK: every point passed (the exact test),
 * or the combination found nothing (a point outside the subgroup escapes it
 * with probability at most 2^-*miss_bits; miss_bits may be NULL; infinity
 * for the exact test). CZ_ERR_NOT_IN_SUBGROUP: a point is outside (certain:
 * then cz_subgroup_first_bad names it). CZ_ERR_RANDOM: the OS CSPRNG
 * refused; CZ_ERR_NO_MEMORY; CZ_ERR_INVALID_ARG for no curve or group.
 * No message: the caller names the file and the table. */
cz_status cz_subgroup_check(cz_curve c, int group, const void *pts, uint64_t n, double *miss_bits);

#endif
