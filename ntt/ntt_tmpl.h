/*
 * NTT template: instantiated from ntt/ntt.h once per curve by
 * util/foreach_curve.h; from CZ_G, CZ_G_C:
 *   CZ_NTT    the prefix of the functions      (e.g. cz_bn254_ntt)
 *   CZ_NTT_F  the field type                   (e.g. cz_bn254_fr, 4 limbs)
 *   CZ_NTT_C  the prefix of its constants      (e.g. CZ_BN254_FR: _S, _ROOT, _NQR)
 *
 * Contract for every transform below: a points to n = 2^k elements of
 * CZ_NTT_F in Montgomery form, fully reduced (as ff/ produces them); they are
 * overwritten with the result, fully reduced. pool may be NULL (the default
 * pool). Returns CZ_OK, CZ_ERR_INVALID_ARG (NULL domain/array, zero coset
 * generator) or CZ_ERR_NO_MEMORY (the per-call scratch, see scratch_bytes,
 * could not be allocated; a is then unchanged).
 */
#define CZ_NTT CZ_CAT(CZ_G, _ntt)
#define CZ_NTT_F CZ_CAT(CZ_G, _fr)
#define CZ_NTT_C CZ_CAT(CZ_G_C, _FR)
#define CZ_NN(x) CZ_CAT(CZ_CAT(CZ_NTT, _), x)

/* Largest supported log2 size: the 2-adicity s of r - 1. */
enum { CZ_NN(MAX_LOG) = CZ_CAT(CZ_NTT_C, _S) };

/* Precomputed twiddles for one size n = 2^k; opaque, read-only once built. */
typedef struct CZ_NN(domain) CZ_NN(domain);

/* r = w[k], the primitive 2^k-th root of unity of the snarkjs convention
 * (w[0] = 1, w[1] = -1). CZ_ERR_RANGE (r untouched) when k > MAX_LOG. */
cz_status CZ_NN(root_of_unity)(CZ_NTT_F *r, unsigned k);

/* The coset generator snarkjs uses for the H polynomial of a domain of size
 * 2^k: w[k+1] (a primitive 2^(k+1)-th root) for k < s, and nqr^2 = 25 for
 * k = s. CZ_ERR_RANGE when k > s. */
cz_status CZ_NN(coset_shift)(CZ_NTT_F *g, unsigned k);

/* Builds the domain of size 2^k. CZ_ERR_RANGE when k > MAX_LOG,
 * CZ_ERR_NO_MEMORY, CZ_ERR_INVALID_ARG for out == NULL. *out is NULL on
 * failure. */
cz_status CZ_NN(domain_create)(CZ_NN(domain) * *out, unsigned k);
void CZ_NN(domain_free)(CZ_NN(domain) * d);
/* Bytes the domain holds (struct + twiddle tables). */
size_t CZ_NN(domain_bytes)(const CZ_NN(domain) * d);
/* The same figure before building it (0 when k > MAX_LOG). */
size_t CZ_NN(domain_bytes_for)(unsigned k);
/* Upper bound of the temporary memory one transform of size 2^k allocates
 * when run on a pool of `threads` threads (column scratch). */
size_t CZ_NN(scratch_bytes)(unsigned k, int threads);
unsigned CZ_NN(domain_log_size)(const CZ_NN(domain) * d);
size_t CZ_NN(domain_size)(const CZ_NN(domain) * d);
/* omega = w[k] and its inverse */
void CZ_NN(domain_omega)(const CZ_NN(domain) * d, CZ_NTT_F *omega, CZ_NTT_F *omega_inv);

/* Natural order in and out. */
cz_status CZ_NN(forward)(const CZ_NN(domain) * d, CZ_NTT_F *a, cz_pool *pool);
cz_status CZ_NN(inverse)(const CZ_NN(domain) * d, CZ_NTT_F *a, cz_pool *pool);
/* g: the coset generator (non-zero), e.g. from coset_shift(). */
cz_status CZ_NN(coset_forward)(const CZ_NN(domain) * d, CZ_NTT_F *a, const CZ_NTT_F *g, cz_pool *pool);
cz_status CZ_NN(coset_inverse)(const CZ_NN(domain) * d, CZ_NTT_F *a, const CZ_NTT_F *g, cz_pool *pool);

/* Bit-reversed-order variants: forward_to_bitrev leaves out[i] at index
 * bitrev_k(i); inverse_from_bitrev expects its input there (as produced by
 * forward_to_bitrev) and returns natural order. Likewise for cosets. */
cz_status CZ_NN(forward_to_bitrev)(const CZ_NN(domain) * d, CZ_NTT_F *a, cz_pool *pool);
cz_status CZ_NN(inverse_from_bitrev)(const CZ_NN(domain) * d, CZ_NTT_F *a, cz_pool *pool);
cz_status CZ_NN(coset_forward_to_bitrev)(const CZ_NN(domain) * d, CZ_NTT_F *a, const CZ_NTT_F *g, cz_pool *pool);
cz_status CZ_NN(coset_inverse_from_bitrev)(const CZ_NN(domain) * d, CZ_NTT_F *a, const CZ_NTT_F *g, cz_pool *pool);

/* Permutes a[0..2^k) in place: a[i] <-> a[bitrev_k(i)]. Cache-blocked,
 * parallel. CZ_ERR_INVALID_ARG for a NULL array or k > 63. */
cz_status CZ_NN(bit_reverse)(CZ_NTT_F *a, unsigned k, cz_pool *pool);

#undef CZ_NTT
#undef CZ_NTT_F
#undef CZ_NTT_C
#undef CZ_NN
