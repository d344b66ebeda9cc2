/*
 * Batch-affine addition (see ec/ec_batch.h for the contract): the
 * declarations, instantiated from ec/ec_batch.h once per group by
 * util/foreach_group.h with CZ_EC (the group prefix).
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)

size_t CZ_EFN(batch_scratch_size)(size_t n);
cz_status CZ_EFN(batch_add_affine)(CZ_EC_A *r, const CZ_EC_A *a, const CZ_EC_A *b, size_t n, void *scratch);
void CZ_EFN(batch_acc_affine)(CZ_EC_A *acc, const uint32_t *ai, const CZ_EC_A *q, const uint32_t *qi, size_t n,
                              void *scratch);

#undef CZ_EFN
#undef CZ_EC_A
