/*
 * msm/fixed_base: many scalars times ONE fixed base point, out_i = s_i * P,
 * in G1 and G2 of BLS12-381 and BN254 (the work of a trusted setup, where
 * every key point is a known scalar times the generator).
 *
 * DESIGN: a table of multiples per window, signed digits, and batch-affine
 * accumulation.
 *
 *  1. Table: with a window of w bits and W = ceil((bits(r) + 1) / w) windows,
 *     T[k][m] = (m + 1) * 2^(w k) * P for k < W, m < 2^(w-1), in affine form
 *     (W * 2^(w-1) points; w = 16 on 255-bit scalars: 16 x 32768 points,
 *     2 MiB per window for BN254 G1). Built once, in parallel over
 *     (window, range) tasks: Jacobian running sums, one batch normalisation
 *     per task.
 *  2. Digits: s = sum_k d_k 2^(w k) with d_k in (-2^(w-1), 2^(w-1)], from the
 *     usual signed recoding (a digit above 2^(w-1) becomes d - 2^w and
 *     carries 1). s < r < 2^bits leaves the top window room for the last
 *     carry, so W windows always suffice and s * P = sum_k sign(d_k)
 *     T[k][|d_k| - 1]: at most W - 1 additions and no doubling at all.
 *  3. Outputs are processed in blocks of CZ_FB_BLOCK scalars; a block runs
 *     window by window (so one window's 2^(w-1) entries are the hot part of
 *     the table), gathering +-T[k][|d|-1] for every scalar with d != 0 and
 *     adding them into the outputs (which serve as affine accumulators) with
 *     ec/ec_batch's batch-affine addition: one shared inversion per window
 *     and block, ~6 field products per addition, and the results are affine
 *     with no final normalisation. The first non-zero digit of a scalar is
 *     a copy (its accumulator is still at infinity). Exceptional pairs
 *     (accumulator = +-entry, which partial sums near r can produce) are
 *     handled by ec_batch.
 *  4. Blocks are spread over the pool's threads; each thread has its own
 *     scratch (digits, gathered points, indices, batch scratch).
 *  Cost per output: about (W - 1) * (5M + 1S + 3M of the shared inversion);
 *  w = 16 gives 15 additions per 255-bit scalar, against ~255 doublings and
 *  ~128 additions of a plain double-and-add.
 *
 * Contract (every group <g> = cz_<curve>_g1, cz_<curve>_g2, declared by
 * msm/fixed_base_tmpl.h;
 * <g>_fb is opaque and read-only once built, so concurrent mul calls may
 * share it):
 *
 *   cz_status <g>_fb_create(<g>_fb **out, const <g>_affine *base, size_t n_hint,
 *                           int window, cz_pool *pool)
 *       Builds the table for base (any point of the group; infinity gives
 *       all-infinity results). window: w in [2, CZ_FB_MAX_WINDOW], or 0 to
 *       choose from n_hint, the number of scalars the table will serve
 *       (minimising n_hint * W + table build cost, with the table below
 *       CZ_FB_MAX_TABLE bytes). pool NULL: the default pool. Returns CZ_OK,
 *       CZ_ERR_INVALID_ARG (NULL pointers, bad window) or CZ_ERR_NO_MEMORY;
 *       *out is NULL on failure.
 *   void <g>_fb_free(<g>_fb *t)              (NULL is fine)
 *   int <g>_fb_window(const <g>_fb *t)       the window w
 *   size_t <g>_fb_table_bytes(const <g>_fb *t)  bytes the table holds
 *   size_t <g>_fb_table_bytes_for(int window)   the same before building it
 *   int <g>_fb_auto_window(size_t n_hint)    the window create() picks for 0
 *
 *   cz_status <g>_fb_mul(const <g>_fb *t, <g>_affine *out, const uint8_t *scalars,
 *                        size_t n, cz_msm_scalar_form form, cz_pool *pool)
 *       out[i] = s_i * P for i < n, affine, the point at infinity as (0, 0)
 *       (so out is the snarkjs zkey encoding; s_i = 0 gives infinity).
 *       scalars: n 32-byte little-endian values read as canonical integers
 *       or Montgomery-form field elements (form); each stored integer must be
 *       < r, otherwise CZ_ERR_RANGE and out is unspecified (no reduction).
 *       out may not overlap scalars. Returns CZ_OK, CZ_ERR_INVALID_ARG,
 *       CZ_ERR_RANGE or CZ_ERR_NO_MEMORY (per-thread scratch: about
 *       CZ_FB_BLOCK x (2 points + 40 bytes)). Variable time in the scalars:
 *       a development setup only, never for secrets that must stay secret.
 */
#ifndef CZ_MSM_FIXED_BASE_H
#define CZ_MSM_FIXED_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ec/ec.h"
#include "msm/msm.h"
#include "util/thread.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_FB_MAX_WINDOW 18                 /* largest window w */
#define CZ_FB_MAX_TABLE ((size_t)160 << 20) /* automatic windows keep the table below this */
#define CZ_FB_BLOCK 1024                    /* outputs per block (one inversion per window) */

#define CZ_TMPL "msm/fixed_base_tmpl.h"
#include "util/foreach_group.h"

#ifdef __cplusplus
}
#endif

#endif
