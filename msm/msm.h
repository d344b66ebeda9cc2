/*
 * msm: multi-scalar multiplication, result = sum_i s_i * P_i, in G1 and G2 of
 * BLS12-381 and BN254 on the CPU.
 *
 * DESIGN: Pippenger's bucket method with signed (Booth) digits, multithreaded
 * over windows and point ranges, with batch-affine bucket accumulation.
 *
 *  1. Preparation (parallel over point ranges): scalars are read (converted
 *     from Montgomery form if asked) and range-checked; scalar 0 and bases at
 *     infinity are dropped, scalar 1 is summed directly (the many 0/1 witness
 *     values of a Groth16 prover cost no window work), the rest are compacted
 *     into (canonical scalar, base index) pairs in scratch.
 *  2. Windows: a scalar k < 2^bits is cut into W = ceil((bits + 1) / c)
 *     Booth digits d_w = b[wc-1] + sum_{j<c-1} b[wc+j] 2^j - b[wc+c-1] 2^(c-1)
 *     in [-2^(c-1), 2^(c-1)], which satisfy k = sum_w d_w 2^(wc) and need no
 *     carry between windows, so each window's digits are computed on the fly
 *     and independently. A digit d != 0 sends +-P to bucket |d| - 1: 2^(c-1)
 *     buckets per window, half of the unsigned method; zero digits cost
 *     nothing.
 *  3. Tasks = windows x point ranges, taken by the pool's threads; the split
 *     count S and c come from a cost model over the thread count (so that 16
 *     threads with 16 windows still split point ranges where that balances
 *     better), and c never leaves a nearly empty top window, because the
 *     model charges a full pass over the points for every window.
 *  4. Bucket accumulation, per task in per-thread scratch:
 *     - batch affine (the automatic plan: c >= CZ_MSM_BATCH_MIN_WINDOW):
 *       buckets are affine points; additions are queued and run in batches
 *       of 2^(c-1)/8, at most CZ_MSM_BATCH, additions sharing one inversion
 *       (ec/ec_batch.h, ~6M per addition). A point whose bucket is already queued in the current
 *       batch is deferred; deferred points are summed among themselves by a
 *       pairwise tree, again in batches, then merged into their buckets, so
 *       even all points landing in one bucket cost ~6M each.
 *     - XYZZ buckets (small c, where batches would be tiny): mixed XYZZ
 *       additions, 8M + 2S.
 *     Each task ends with the running-sum reduction sum_k (k+1) B_k, which
 *     jumps over runs of empty buckets (a gap of g costs log g doublings).
 *  5. The caller's thread combines the windows (c doublings each, Horner).
 *  Small inputs (after step 1) use Straus' interleaved method instead: one
 *  shared chain of doublings and a table of 1..8 P per point (signed 4-bit
 *  digits), split over threads by point ranges.
 *  More than CZ_MSM_CHUNK points are processed in chunks of that size whose
 *  results are added, which bounds the scratch memory.
 *
 * Contract (every group, <g> = cz_<curve>_g1, cz_<curve>_g2; declared by
 * msm/msm_tmpl.h, implemented by msm/msm_tmpl_impl.h):
 *
 *   cz_status <g>_msm(<g> *r, const <g>_affine *bases, const uint8_t *scalars,
 *                     size_t n, const cz_msm_opts *opts)
 *       r = sum_{i<n} s_i * bases[i] (Jacobian; infinity for n = 0).
 *       bases: n affine points of the prime-order subgroup, or the all-zero
 *       encoding of infinity (which counts as the identity); not validated
 *       here (the io layer validates keys). scalars: n 32-byte little-endian
 *       values (the in-memory layout of cz_<curve>_fr on little-endian hosts),
 *       read according to opts->form: canonical integers, or Montgomery-form
 *       field elements x*R mod r. Either way each stored 256-bit integer must
 *       be < r; otherwise the call returns CZ_ERR_RANGE (no reduction is done)
 *       and r is set to infinity. opts may be NULL (defaults: canonical
 *       scalars, default pool, internal scratch, automatic method).
 *       Returns CZ_OK, CZ_ERR_INVALID_ARG (NULL pointers with n > 0, a given
 *       scratch smaller than needed, a forced window/method/splits that
 *       admits no plan),
 *       CZ_ERR_RANGE, or CZ_ERR_NO_MEMORY. r may not alias bases or scalars.
 *       Variable time: the running time depends on the scalars (zeros, ones,
 *       digit values, bucket collisions). The witness is secret, but like
 *       other fast provers (bellperson, rapidsnark) cuzk accepts this for the
 *       witness MSMs; the blinding scalars use ec mul_fr_ct instead.
 *       Thread safety: concurrent calls are allowed; calls that share a pool
 *       run their parallel phases one at a time.
 *
 *   size_t <g>_msm_scratch_size(size_t n, int threads)
 *       Bytes of scratch an msm call over n points with a pool of `threads`
 *       threads (<= 0: the default pool's size) and default method/window
 *       needs: a caller holding a memory budget reserves this much and passes
 *       it as opts->scratch. An upper bound, independent of the scalars.
 *       Forcing method/window may need more: <g>_msm_scratch_size_opts.
 *
 *   size_t <g>_msm_scratch_size_opts(size_t n, int threads, const cz_msm_opts *opts)
 *       The same for a given configuration (opts may be NULL).
 */
#ifndef CZ_MSM_MSM_H
#define CZ_MSM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ec/ec.h"
#include "util/thread.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the 32-byte scalars are to be read. */
typedef enum cz_msm_scalar_form {
    CZ_MSM_CANONICAL = 0,  /* the integer s itself, s < r */
    CZ_MSM_MONTGOMERY = 1, /* Montgomery form s*R mod r (a cz_<curve>_fr in memory) */
} cz_msm_scalar_form;

/* Bucket-accumulation method; AUTO picks from the size (tests force others). */
typedef enum cz_msm_method {
    CZ_MSM_AUTO = 0,
    CZ_MSM_STRAUS = 1,         /* interleaved signed 4-bit windows, for small n */
    CZ_MSM_PIPPENGER_XYZZ = 2, /* Pippenger, XYZZ buckets */
    CZ_MSM_PIPPENGER_BATCH = 3 /* Pippenger, batch-affine buckets */
} cz_msm_method;

/* What a call did (for benchmarks and logs), filled when opts->info is set. */
typedef struct cz_msm_info {
    cz_msm_method method; /* plan of the first chunk with work; CZ_MSM_AUTO if none had any */
    int window, windows, splits, threads;
    size_t points; /* points that went through buckets or Straus (not 0, not 1, not infinity) */
    size_t chunks;
} cz_msm_info;

typedef struct cz_msm_opts {
    cz_msm_scalar_form form; /* default CZ_MSM_CANONICAL */
    cz_pool *pool;           /* NULL: cz_pool_default() */
    void *scratch;           /* NULL: allocated (and freed) inside the call */
    size_t scratch_len;      /* bytes at scratch, >= <g>_msm_scratch_size_opts() */
    /* tuning and testing knobs; 0 = automatic */
    cz_msm_method method;
    int window;        /* Pippenger window c in [2, CZ_MSM_MAX_WINDOW] */
    int splits;        /* point ranges per window, >= 1 */
    size_t chunk;      /* points per chunk, >= 1 (default CZ_MSM_CHUNK) */
    size_t batch;      /* batch-affine additions per inversion, >= 1 (default from c) */
    cz_msm_info *info; /* if not NULL: filled in by the call */
} cz_msm_opts;

#define CZ_MSM_MAX_WINDOW 16           /* largest window c: 2^15 buckets per task */
#define CZ_MSM_BATCH_MIN_WINDOW 8      /* smallest c the automatic plan gives batch-affine buckets */
#define CZ_MSM_BATCH 256               /* additions per shared inversion (automatic), at most */
#define CZ_MSM_CHUNK ((size_t)1 << 22) /* points per chunk */

#define CZ_TMPL "msm/msm_tmpl.h"
#include "util/foreach_group.h"

#ifdef __cplusplus
}
#endif

#endif
