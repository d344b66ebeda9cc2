/*
 * Batch-affine addition (see ec/ec_batch.h), instantiated from ec/ec_batch.c
 * once per group by util/foreach_group.h, with CZ_EC (group prefix) and
 * CZ_EC_F (coordinate field).
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EF(x) CZ_CAT(CZ_CAT(CZ_EC_F, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)

size_t CZ_EFN(batch_scratch_size)(size_t n)
{
    /* prefix products, then one kind byte per pair (rounded to 8 bytes) */
    return n * sizeof(CZ_EC_F) + ((n + 7) & ~(size_t)7);
}

/*
 * Montgomery's trick over two interleaved chains: live pairs alternate
 * between chain 0 and chain 1, each with its own prefix product, so the two
 * chains of dependent products (forward, and backward unwinding) overlap in
 * the CPU instead of waiting on each product's latency. Three more products
 * per batch join the chains around the single inversion.
 */
void CZ_EFN(batch_acc_affine)(CZ_EC_A *acc, const uint32_t *ai, const CZ_EC_A *q, const uint32_t *qi, size_t n,
                              void *scratch)
{
    enum { DONE = 0, ADD = 1, DBL = 2, CHAIN1 = 4 };
    CZ_EC_F *pre = (CZ_EC_F *)scratch;
    uint8_t *kind = (uint8_t *)(pre + n);
    CZ_EC_F prod[2], den;
    size_t cnt[2] = {0, 0}, live = 0;

    /* Forward: settle the exceptional pairs at once, and store for each
     * remaining pair the product of the denominators before it in its chain. */
    for (size_t i = 0; i < n; i++) {
        CZ_EC_A *a = &acc[ai ? ai[i] : i];
        const CZ_EC_A *b = &q[qi ? qi[i] : i];
        kind[i] = DONE;
        if (CZ_EFN(affine_is_inf)(b)) continue;
        if (CZ_EFN(affine_is_inf)(a)) {
            *a = *b;
            continue;
        }
        uint8_t k;
        if (CZ_EF(eq)(&a->x, &b->x)) {
            /* same x: b = a (tangent) or b = -a (sum at infinity); a point
             * with y = 0 has order 2 and doubles to infinity */
            if (!CZ_EF(eq)(&a->y, &b->y) || CZ_EF(is_zero)(&a->y)) {
                CZ_EFN(affine_set_inf)(a);
                continue;
            }
            k = DBL;
            CZ_EF(dbl)(&den, &a->y);
        } else {
            k = ADD;
            CZ_EF(sub)(&den, &b->x, &a->x);
        }
        int c = (int)(live++ & 1);
        kind[i] = (uint8_t)(k | (c ? CHAIN1 : 0));
        if (cnt[c]++) {
            pre[i] = prod[c];
            CZ_EF(mul_inl)(&prod[c], &prod[c], &den);
        } else {
            prod[c] = den; /* pre[i] = 1, never read */
        }
    }
    if (live == 0) return;

    /* inv[c] = 1 / prod[c], from one inversion of prod[0] prod[1] (non-zero) */
    CZ_EC_F inv[2];
    if (cnt[1] == 0) {
        (void)CZ_EF(inv)(&inv[0], &prod[0]);
    } else {
        CZ_EC_F all;
        CZ_EF(mul_inl)(&all, &prod[0], &prod[1]);
        (void)CZ_EF(inv)(&all, &all);
        CZ_EF(mul_inl)(&inv[0], &all, &prod[1]);
        CZ_EF(mul_inl)(&inv[1], &all, &prod[0]);
    }

    /* Backward: inv[c] = 1 / (product of chain c's denominators up to pair i).
     * Two live pairs at a time, the next two going down (one of each chain,
     * as live pairs alternate): each step's products of the two pairs are
     * independent and issued next to each other, so the core overlaps the
     * dependent chain of one pair (1/den, lam, lam^2, lam (x1 - x3)) with
     * the other's instead of waiting on each product's latency. */
    size_t i = n;
    for (;;) {
        size_t sel[2];
        int k = 0;
        while (k < 2 && i > 0) {
            i--;
            if (kind[i] != DONE) sel[k++] = i;
        }
        if (k == 0) break;
        CZ_EC_A *A[2];
        const CZ_EC_A *B[2];
        CZ_EC_F lam[2], num[2], dn[2], t[2], x3[2];
        for (int u = 0; u < k; u++) {
            size_t j = sel[u];
            A[u] = &acc[ai ? ai[j] : j];
            B[u] = &q[qi ? qi[j] : j];
            if (kind[j] & ADD) {
                CZ_EF(sub)(&dn[u], &B[u]->x, &A[u]->x);
                CZ_EF(sub)(&num[u], &B[u]->y, &A[u]->y);
            } else {
                CZ_EF(dbl)(&dn[u], &A[u]->y);
                CZ_EF(sqr_inl)(&t[u], &A[u]->x);
                CZ_EF(dbl)(&num[u], &t[u]);
                CZ_EF(add)(&num[u], &num[u], &t[u]);
            }
        }
        for (int u = 0; u < k; u++) {
            int c = (kind[sel[u]] & CHAIN1) ? 1 : 0;
            if (--cnt[c]) {
                CZ_EF(mul_inl)(&t[u], &inv[c], &pre[sel[u]]); /* 1 / den */
                CZ_EF(mul_inl)(&inv[c], &inv[c], &dn[u]);
            } else {
                t[u] = inv[c]; /* the chain's first pair */
            }
        }
        for (int u = 0; u < k; u++)
            CZ_EF(mul_inl)(&lam[u], &num[u], &t[u]);
        /* x3 = lam^2 - x1 - x2, y3 = lam (x1 - x3) - y1 (x2 = x1 when doubling) */
        for (int u = 0; u < k; u++) {
            CZ_EF(sqr_inl)(&x3[u], &lam[u]);
            CZ_EF(sub)(&x3[u], &x3[u], &A[u]->x);
            CZ_EF(sub)(&x3[u], &x3[u], &B[u]->x);
        }
        for (int u = 0; u < k; u++) {
            CZ_EF(sub)(&t[u], &A[u]->x, &x3[u]);
            CZ_EF(mul_inl)(&t[u], &lam[u], &t[u]);
        }
        for (int u = 0; u < k; u++) {
            CZ_EF(sub)(&A[u]->y, &t[u], &A[u]->y);
            A[u]->x = x3[u];
        }
    }
}

cz_status CZ_EFN(batch_add_affine)(CZ_EC_A *r, const CZ_EC_A *a, const CZ_EC_A *b, size_t n, void *scratch)
{
    if (n == 0) return CZ_OK;
    void *own = NULL;
    if (!scratch) {
        own = malloc(CZ_EFN(batch_scratch_size)(n));
        if (!own) return CZ_ERR_NO_MEMORY;
        scratch = own;
    }
    if (r == b) { /* addition commutes: accumulate a into r = b */
        const CZ_EC_A *t = a;
        a = b;
        b = t;
    }
    if (r != a) memcpy(r, a, n * sizeof(CZ_EC_A));
    CZ_EFN(batch_acc_affine)(r, NULL, b, NULL, n, scratch);
    free(own);
    return CZ_OK;
}

#undef CZ_EFN
#undef CZ_EF
#undef CZ_EC_A
