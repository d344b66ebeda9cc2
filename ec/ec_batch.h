/*
 * ec/ec_batch: affine point additions in batches sharing one field inversion.
 *
 * DESIGN: adding affine points needs one division, lambda = (y2 - y1) /
 * (x2 - x1) (or 3x^2 / 2y for a doubling). n independent additions share a
 * single inversion by Montgomery's trick: prefix products of the n
 * denominators going forward, one inversion of the total, then each inverse
 * peeled off going backward. Each addition then costs 5M + 1S plus 1/n of an
 * inversion, against 8M + 2S for the cheapest projective (XYZZ) mixed
 * addition, which makes this the bucket accumulation of Pippenger MSMs on
 * CPUs (msm/) and the fastest way to sum many points generally.
 *
 * Every exceptional case is handled per pair, inside the same batch: an
 * operand at infinity (the all-zero affine encoding of ec/ec_tmpl.h), P + P
 * (a tangent: lambda = 3x^2 / 2y, sharing the inversion), P + (-P) =
 * infinity, and a point of order 2 (y = 0; none exists in the prime-order
 * groups, but it is not divided by). Inputs are assumed on the curve.
 * Variable time (branches on the operands): for public points only.
 *
 * Instantiated for every group <g> = cz_<curve>_g1, cz_<curve>_g2
 * (ec/ec_batch_tmpl.h, ec/ec_batch_tmpl_impl.h compiled in ec/ec_batch.c):
 *
 *   size_t    <g>_batch_scratch_size(size_t n)
 *       Bytes of scratch that batch_add_affine / batch_acc_affine need for n
 *       pairs: n field elements and n bytes.
 *
 *   cz_status <g>_batch_add_affine(<g>_affine *r, const <g>_affine *a,
 *                                   const <g>_affine *b, size_t n, void *scratch)
 *       r[i] = a[i] + b[i] for i < n, with one inversion in all. r may be the
 *       same array as a or as b (element-wise), or disjoint from both; partial
 *       overlaps are not allowed. scratch: batch_scratch_size(n) bytes, or NULL
 *       to allocate it (CZ_ERR_NO_MEMORY if that fails; r is then untouched).
 *       CZ_OK otherwise, also for n = 0.
 *
 *   void      <g>_batch_acc_affine(<g>_affine *acc, const uint32_t *ai,
 *                                  const <g>_affine *q, const uint32_t *qi,
 *                                  size_t n, void *scratch)
 *       The accumulating form used by bucket methods: for i < n,
 *       acc[ai[i]] += q[qi[i]] (ai == NULL means ai[i] = i, likewise qi), with
 *       one inversion. The accumulators acc[ai[i]] must be pairwise distinct,
 *       and no q[qi[j]] may be an accumulator acc[ai[i]] with i != j (q[qi[i]]
 *       may be acc[ai[i]] itself: a doubling). scratch is required:
 *       batch_scratch_size(n) bytes, 8-byte aligned.
 */
#ifndef CZ_EC_EC_BATCH_H
#define CZ_EC_EC_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "ec/ec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_TMPL "ec/ec_batch_tmpl.h"
#include "util/foreach_group.h"

#ifdef __cplusplus
}
#endif

#endif
