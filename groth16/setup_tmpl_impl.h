/*
 * The development setup for one curve (see groth16/setup.h), instantiated
 * from groth16/setup.c once per curve by util/foreach_curve.h; from CZ_G,
 * CZ_G_CURVE:
 *   SU(x)     the static functions: CZ_G##_su_##x (cz_bn254_su_run, ...)
 *   SU_CURVE  the cz_curve value
 *   SU_FR     the scalar field (cz_bn254_fr, ...)
 *   SU_G1, SU_G2  the group prefixes
 *   SU_NTT    the NTT prefix (roots of unity and the coset shift)
 * setup.c defines before the include: setup_state (common state), the
 * writer thread (aw_*), progress().
 */
#define SU_CURVE CZ_G_CURVE
#define SU_FR CZ_CAT(CZ_G, _fr)
#define SU_G1 CZ_CAT(CZ_G, _g1)
#define SU_G2 CZ_CAT(CZ_G, _g2)
#define SU_NTT CZ_CAT(CZ_G, _ntt)
#define SU(x) CZ_CAT(CZ_CAT(CZ_G, _su_), x)
#define FR(x) CZ_CAT(CZ_CAT(SU_FR, _), x)
#define G1(x) CZ_CAT(CZ_CAT(SU_G1, _), x)
#define G2(x) CZ_CAT(CZ_CAT(SU_G2, _), x)
#define NTT(x) CZ_CAT(CZ_CAT(SU_NTT, _), x)
#define G1A CZ_CAT(SU_G1, _affine)
#define G2A CZ_CAT(SU_G2, _affine)
#define G1FB CZ_CAT(SU_G1, _fb)
#define G2FB CZ_CAT(SU_G2, _fb)

#ifndef SU_ROW_BLOCK
#define SU_ROW_BLOCK ((size_t)1 << 18) /* rows per block of Lagrange values (8 MiB) */
#endif

/* ---- toxic waste ---- */

static const char *const SU(toxic_names)[4] = {"tau", "alpha", "beta", "delta"};

/* out = tau, alpha, beta, delta (Montgomery). */
static cz_status SU(toxic)(unsigned log_n, const cz_setup_opts *o, SU_FR out[4], cz_error *err)
{
    cz_rng rng;
    if (o->use_seed)
        cz_rng_seed(&rng, o->seed);
    else
        cz_rng_os(&rng);
    const uint8_t *fixed[4] = {o->tau, o->alpha, o->beta, o->delta};
    cz_status st = CZ_OK;
    SU_FR g, gn, tn;
    if (NTT(coset_shift)(&g, log_n) != CZ_OK) {
        st = cz_error_set(err, CZ_ERR_RANGE, "setup: domain 2^%u is larger than the curve allows", log_n);
        goto done;
    }
    FR(pow_u64)(&gn, &g, (uint64_t)1 << log_n);
    for (int i = 0; i < 4; i++) {
        for (;;) {
            if (fixed[i]) {
                if (FR(from_bytes_le)(&out[i], fixed[i]) != CZ_OK) {
                    st =
                        cz_error_set(err, CZ_ERR_INVALID_ARG, "setup: the fixed %s is not below r", SU(toxic_names)[i]);
                    goto done;
                }
            } else {
                FR(random)(&out[i], &rng);
                if (cz_rng_status(&rng) != CZ_OK) { /* never toxic waste from a substitute */
                    st = cz_error_set(err, CZ_ERR_RANDOM,
                                      "setup: no secure randomness for %s: the OS CSPRNG (getrandom) failed: %s",
                                      SU(toxic_names)[i], rng.error > 0 ? strerror(rng.error) : "refused");
                    goto done;
                }
            }
            int bad = FR(is_zero)(&out[i]);
            if (i == 0 && !bad) {
                /* tau on the domain (tau^n = 1) or on the prover's coset
                 * (tau^n = g^n) would divide by zero in the Lagrange bases */
                FR(pow_u64)(&tn, &out[0], (uint64_t)1 << log_n);
                bad = FR(is_one)(&tn) || FR(eq)(&tn, &gn);
            }
            if (!bad) break;
            if (fixed[i]) {
                st = cz_error_set(err, CZ_ERR_INVALID_ARG, "setup: the fixed %s is %s", SU(toxic_names)[i],
                                  i ? "zero" : "zero or a root of the domain or its coset");
                goto done;
            }
        }
    }
done:
    explicit_bzero(&rng, sizeof rng);
    explicit_bzero(&tn, sizeof tn);
    return st;
}

/* ---- Lagrange bases: out[i] = K * x_i / (tau - x_i), x_i = x0 * omega^(i0 + i) ---- */

typedef struct {
    SU_FR *out;
    SU_FR tau, omega, x0, K;
    size_t i0;
} SU(lag_ctx);

static void SU(lag_range)(void *arg, size_t b, size_t e, int thread)
{
    SU(lag_ctx) *c = arg;
    enum { SUB = 256 };
    SU_FR num[SUB], den[SUB], scr[SUB], x, t;
    (void)thread;
    FR(pow_u64)(&x, &c->omega, (uint64_t)(c->i0 + b));
    FR(mul)(&x, &x, &c->x0);
    for (size_t s = b; s < e; s += SUB) {
        size_t m = e - s < SUB ? e - s : SUB;
        for (size_t i = 0; i < m; i++) {
            num[i] = x;
            FR(sub)(&den[i], &c->tau, &x);
            FR(mul)(&x, &x, &c->omega);
        }
        FR(batch_inv)(den, den, m, scr);
        for (size_t i = 0; i < m; i++) {
            FR(mul)(&t, &num[i], &den[i]);
            FR(mul)(&c->out[s + i], &t, &c->K);
        }
    }
}

/* ---- per-variable evaluations ---- */

typedef struct {
    const cz_csr *m[3];
    SU_FR *dst[3];
    const SU_FR *L; /* L[row - row0] for the rows of the block */
    uint32_t row0, row1;
    uint32_t nvars;
    size_t ntasks;
} SU(eval_ctx);

/* Task t owns the variables [j0, j1) and scans the block's rows for them. */
static void SU(eval_task)(void *arg, size_t t, int thread)
{
    SU(eval_ctx) *c = arg;
    (void)thread;
    uint32_t j0 = (uint32_t)((uint64_t)c->nvars * t / c->ntasks);
    uint32_t j1 = (uint32_t)((uint64_t)c->nvars * (t + 1) / c->ntasks);
    uint32_t span = j1 - j0;
    if (!span) return;
    for (int k = 0; k < 3; k++) {
        const cz_csr *m = c->m[k];
        const SU_FR *val = m->val;
        SU_FR *dst = c->dst[k], p;
        for (uint32_t row = c->row0; row < c->row1; row++) {
            const SU_FR *l = &c->L[row - c->row0];
            for (uint64_t e = m->row_ptr[row], end = m->row_ptr[row + 1]; e < end; e++) {
                uint32_t j = m->col[e];
                if (j - j0 < span) {
                    FR(mul)(&p, &val[e], l);
                    FR(add)(&dst[j], &dst[j], &p);
                }
            }
        }
    }
}

typedef struct {
    SU_FR *a, *b, *c;
    SU_FR alpha, beta, delta_inv;
    uint32_t npub;
} SU(combine_ctx);

/* c_j <- beta a_j + alpha b_j + c_j, divided by delta for private j */
static void SU(combine_range)(void *arg, size_t b, size_t e, int thread)
{
    SU(combine_ctx) *c = arg;
    (void)thread;
    for (size_t j = b; j < e; j++) {
        SU_FR t, u;
        FR(mul)(&t, &c->beta, &c->a[j]);
        FR(mul)(&u, &c->alpha, &c->b[j]);
        FR(add)(&t, &t, &u);
        FR(add)(&t, &t, &c->c[j]);
        if (j > c->npub) FR(mul)(&t, &t, &c->delta_inv);
        c->c[j] = t;
    }
}

/* ---- section 4 ---- */

typedef struct {
    const cz_r1cs *r;
    uint8_t *buf;
    uint64_t e0;  /* first entry of the chunk */
    uint64_t nab; /* r1cs A + B entries (before the public-input rows) */
} SU(coef_ctx);

static void SU(coef_range)(void *arg, size_t b, size_t e, int thread)
{
    SU(coef_ctx) *c = arg;
    const cz_csr *A = &c->r->A, *B = &c->r->B;
    (void)thread;
    uint64_t g = c->e0 + b;
    /* the row holding entry g: the last row with A.rp + B.rp <= g */
    uint32_t lo = 0, hi = A->nrows; /* answer in [lo, hi) when g < nab */
    if (g < c->nab) {
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (A->row_ptr[mid] + B->row_ptr[mid] <= g)
                lo = mid;
            else
                hi = mid;
        }
    }
    uint32_t row = lo;
    for (size_t i = b; i < e; i++, g++) {
        uint8_t *out = c->buf + i * CZ_ZKEY_COEF_BYTES;
        if (g >= c->nab) {
            /* public-input rows: A[nConstraints + s][s] = 1 */
            uint32_t s = (uint32_t)(g - c->nab);
            cz_zkey_coef_encode(out, SU_CURVE, 0, A->nrows + s, s, &FR(ONE));
            continue;
        }
        while (A->row_ptr[row + 1] + B->row_ptr[row + 1] <= g)
            row++;
        uint64_t local = g - (A->row_ptr[row] + B->row_ptr[row]);
        uint64_t na = A->row_ptr[row + 1] - A->row_ptr[row];
        if (local < na) {
            uint64_t k = A->row_ptr[row] + local;
            cz_zkey_coef_encode(out, SU_CURVE, 0, row, A->col[k], (const SU_FR *)A->val + k);
        } else {
            uint64_t k = B->row_ptr[row] + (local - na);
            cz_zkey_coef_encode(out, SU_CURVE, 1, row, B->col[k], (const SU_FR *)B->val + k);
        }
    }
}

/* ---- the run ---- */

typedef struct {
    setup_state s; /* common part (writer, chunk buffers, progress) */
    const cz_r1cs *r;
    SU_FR toxic[4]; /* tau, alpha, beta, delta */
    SU_FR *a, *b, *c;
    G1FB *t1;
    G2FB *t2;
    SU(lag_ctx) hctx; /* H scalars: K, x0 = g */
} SU(run_state);

static void SU(free_state)(SU(run_state) * R)
{
    explicit_bzero(R->toxic, sizeof R->toxic);
    explicit_bzero(&R->hctx, sizeof R->hctx);
    free(R->a);
    free(R->b);
    free(R->c);
    G1(fb_free)(R->t1);
    G2(fb_free)(R->t2);
    setup_state_free(&R->s);
}

/* Section id: count points, scalars src (Montgomery) or the H scalars
 * (src NULL), each chunk handed to the writer thread. */
static cz_status SU(points)(SU(run_state) * R, uint32_t id, int group, const SU_FR *src, size_t count, const char *name,
                            cz_error *err)
{
    setup_state *S = &R->s;
    double t0 = cz_now();
    size_t psize = group == 1 ? sizeof(G1A) : sizeof(G2A);
    cz_status st = cz_zkey_writer_begin(&S->w, id, err);
    for (size_t off = 0; st == CZ_OK && off < count; off += S->chunk) {
        size_t m = count - off < S->chunk ? count - off : S->chunk;
        const SU_FR *sc = src ? src + off : NULL;
        if (!src) {
            R->hctx.out = (SU_FR *)S->hbuf;
            R->hctx.i0 = off;
            cz_parallel_for(S->pool, m, 1024, SU(lag_range), &R->hctx);
            sc = (const SU_FR *)S->hbuf;
        }
        void *buf = S->pbuf[S->cur];
        st = group == 1 ? G1(fb_mul)(R->t1, buf, (const uint8_t *)sc, m, CZ_MSM_MONTGOMERY, S->pool)
                        : G2(fb_mul)(R->t2, buf, (const uint8_t *)sc, m, CZ_MSM_MONTGOMERY, S->pool);
        if (st != CZ_OK) {
            cz_error_set(err, st, "setup: section %u (%s): fixed-base multiplication failed: %s", id, name,
                         cz_status_str(st));
            break;
        }
        st = aw_submit(S, buf, m * psize, err);
        S->cur ^= 1;
        progress(S, name, off + m, count);
    }
    if (st == CZ_OK) st = aw_wait(S, err);
    if (st == CZ_OK) st = cz_zkey_writer_end(&S->w, err);
    S->stats->t_sections[id] = cz_now() - t0;
    return st;
}

static cz_status SU(coefficients)(SU(run_state) * R, uint64_t ncoef, cz_error *err)
{
    setup_state *S = &R->s;
    double t0 = cz_now();
    cz_status st = cz_zkey_writer_begin(&S->w, 4, err);
    if (st == CZ_OK) st = cz_zkey_writer_put_u32(&S->w, (uint32_t)ncoef, err);
    size_t per = S->pbuf_bytes / CZ_ZKEY_COEF_BYTES;
    SU(coef_ctx) c = {R->r, NULL, 0, R->r->A.nnz + R->r->B.nnz};
    for (uint64_t off = 0; st == CZ_OK && off < ncoef; off += per) {
        size_t m = ncoef - off < per ? (size_t)(ncoef - off) : per;
        c.buf = S->pbuf[S->cur];
        c.e0 = off;
        cz_parallel_for(S->pool, m, 4096, SU(coef_range), &c);
        st = aw_submit(S, c.buf, m * CZ_ZKEY_COEF_BYTES, err);
        S->cur ^= 1;
        progress(S, "coefficients", off + m, ncoef);
    }
    if (st == CZ_OK) st = aw_wait(S, err);
    if (st == CZ_OK) st = cz_zkey_writer_end(&S->w, err);
    S->stats->t_sections[4] = cz_now() - t0;
    return st;
}

static cz_status SU(run)(const cz_r1cs *r, const char *path, const cz_setup_opts *o, cz_setup_stats *stats,
                         cz_error *err)
{
    SU(run_state) R;
    memset(&R, 0, sizeof R);
    R.r = r;
    double t_start = cz_now();
    cz_status st;
    const uint32_t nvars = r->n_wires, npub = r->n_pub_out + r->n_pub_in, ncons = r->n_constraints;
    const unsigned k = cz_groth16_domain_log(ncons, npub);
    if (k > (unsigned)NTT(MAX_LOG) || k > 31)
        return cz_error_set(err, CZ_ERR_RANGE,
                            "setup: %u constraints + %u public inputs need a domain of 2^%u, above the %s limit 2^%u",
                            ncons, npub, k, cz_curve_name(SU_CURVE), NTT(MAX_LOG) < 31 ? NTT(MAX_LOG) : 31);
    const size_t n = (size_t)1 << k;
    const uint64_t ncoef = r->A.nnz + r->B.nnz + (uint64_t)npub + 1;
    if (ncoef >= ((uint64_t)1 << 32))
        return cz_error_set(err, CZ_ERR_RANGE, "setup: %" PRIu64 " A/B coefficients do not fit the zkey's u32 count",
                            ncoef);
    stats->curve = SU_CURVE;
    stats->n_vars = nvars;
    stats->n_public = npub;
    stats->domain_size = (uint32_t)n;
    stats->log_domain = k;
    stats->n_coef = ncoef;

    if ((st = SU(toxic)(k, o, R.toxic, err)) != CZ_OK) {
        explicit_bzero(R.toxic, sizeof R.toxic);
        return st;
    }

    /* ---- scalars ---- */
    setup_state *S = &R.s;
    setup_state_init(S, o, stats);
    double t0 = cz_now();
    /* the Lagrange basis is made and consumed per block of rows */
    const size_t rb0 = o->row_block ? o->row_block : SU_ROW_BLOCK;
    const size_t rb = n < rb0 ? n : rb0;
    SU_FR *L = malloc(rb * sizeof(SU_FR));
    R.a = calloc(nvars, sizeof(SU_FR));
    R.b = calloc(nvars, sizeof(SU_FR));
    R.c = calloc(nvars, sizeof(SU_FR));
    uint64_t work = (uint64_t)rb * sizeof(SU_FR) + 3ull * nvars * sizeof(SU_FR);
    if (!L || !R.a || !R.b || !R.c) {
        free(L);
        SU(free_state)(&R);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "setup: out of memory for the scalars (%" PRIu64 " bytes)", work);
    }
    {
        SU(lag_ctx) lc;
        memset(&lc, 0, sizeof lc);
        lc.out = L;
        lc.tau = R.toxic[0];
        NTT(root_of_unity)(&lc.omega, k);
        FR(set_one)(&lc.x0);
        /* K = (tau^n - 1) / n */
        SU_FR tn, nn;
        FR(pow_u64)(&tn, &lc.tau, (uint64_t)n);
        FR(sub)(&tn, &tn, &FR(ONE));
        FR(from_u64)(&nn, (uint64_t)n);
        FR(inv)(&nn, &nn);
        FR(mul)(&lc.K, &tn, &nn);
        SU(eval_ctx) ec = {{&r->A, &r->B, &r->C}, {R.a, R.b, R.c}, L, 0, 0, nvars, (size_t)cz_pool_threads(S->pool)};
        if (ec.ntasks > nvars) ec.ntasks = nvars;
        /* rows 0..ncons-1: the r1cs; then the public-input rows
         * ncons + s, s = 0..npub, which add L_{ncons+s} to A_s */
        const uint64_t rows = (uint64_t)ncons + npub + 1;
        for (uint64_t r0 = 0; r0 < rows; r0 += rb) {
            size_t m = rows - r0 < rb ? (size_t)(rows - r0) : rb;
            double tl = cz_now();
            lc.i0 = r0;
            cz_parallel_for(S->pool, m, 4096, SU(lag_range), &lc);
            stats->t_lagrange += cz_now() - tl;
            if (r0 < ncons) {
                ec.row0 = (uint32_t)r0;
                ec.row1 = (uint32_t)(r0 + m < ncons ? r0 + m : ncons);
                cz_pool_run(S->pool, ec.ntasks, SU(eval_task), &ec);
            }
            for (uint64_t row = r0 + m; row-- > r0 && row >= ncons;) {
                uint32_t sg = (uint32_t)(row - ncons);
                FR(add)(&R.a[sg], &R.a[sg], &L[row - r0]);
            }
            progress(S, "evaluate", r0 + m, rows);
        }
        explicit_bzero(&lc, sizeof lc);
        explicit_bzero(L, rb * sizeof(SU_FR));
        free(L);
        SU(combine_ctx) cc = {R.a, R.b, R.c, R.toxic[1], R.toxic[2], R.toxic[3], npub};
        FR(inv)(&cc.delta_inv, &R.toxic[3]);
        cz_parallel_for(S->pool, nvars, 4096, SU(combine_range), &cc);
        explicit_bzero(&cc, sizeof cc);
    }
    stats->t_eval = cz_now() - t0 - stats->t_lagrange;

    /* ---- H scalars: K_H * x_i / (tau - x_i), x_i = g omega^i ---- */
    {
        SU(lag_ctx) *h = &R.hctx;
        SU_FR g, gn, tn, t, u;
        h->tau = R.toxic[0];
        NTT(root_of_unity)(&h->omega, k);
        NTT(coset_shift)(&g, k);
        h->x0 = g;
        FR(pow_u64)(&gn, &g, (uint64_t)n);
        FR(pow_u64)(&tn, &h->tau, (uint64_t)n);
        /* K_H = (tau^n - 1)(tau^n - g^n) / (n g^n (g^n - 1) delta) */
        FR(sub)(&t, &tn, &FR(ONE));
        FR(sub)(&u, &tn, &gn);
        FR(mul)(&h->K, &t, &u);
        FR(from_u64)(&t, (uint64_t)n);
        FR(mul)(&t, &t, &gn);
        FR(sub)(&u, &gn, &FR(ONE));
        FR(mul)(&t, &t, &u);
        FR(mul)(&t, &t, &R.toxic[3]);
        FR(inv)(&t, &t);
        FR(mul)(&h->K, &h->K, &t);
    }

    /* ---- fixed-base tables, buffers ---- */
    t0 = cz_now();
    const G1A *g1 = G1(generator)();
    const G2A *g2 = G2(generator)();
    uint64_t n1 = 3ull * nvars + n;
    if ((st = G1(fb_create)(&R.t1, g1, (size_t)n1, o->window, S->pool)) != CZ_OK ||
        (st = G2(fb_create)(&R.t2, g2, nvars, o->window, S->pool)) != CZ_OK) {
        SU(free_state)(&R);
        return cz_error_set(err, st, "setup: cannot build the fixed-base tables: %s", cz_status_str(st));
    }
    stats->window_g1 = G1(fb_window)(R.t1);
    stats->window_g2 = G2(fb_window)(R.t2);
    stats->t_tables = cz_now() - t0;
    progress(S, "tables", 1, 1);
    if ((st = setup_state_buffers(S, sizeof(G2A), sizeof(SU_FR), err)) != CZ_OK) {
        SU(free_state)(&R);
        return st;
    }
    /* peak: the scalar arrays with the tables and chunks (the row block of
     * Lagrange values is gone by then, and smaller) */
    stats->work_bytes = 3ull * nvars * sizeof(SU_FR) + G1(fb_table_bytes)(R.t1) + G2(fb_table_bytes)(R.t2) +
                        2 * S->pbuf_bytes + S->chunk * sizeof(SU_FR);
    if (work > stats->work_bytes) stats->work_bytes = work;

    /* ---- header points ---- */
    G1A alpha1, beta1, delta1, gen1[3];
    G2A beta2, delta2, gen2[2];
    {
        uint8_t sc[3][32];
        FR(to_bytes_le)(sc[0], &R.toxic[1]);
        FR(to_bytes_le)(sc[1], &R.toxic[2]);
        FR(to_bytes_le)(sc[2], &R.toxic[3]);
        if ((st = G1(fb_mul)(R.t1, gen1, sc[0], 3, CZ_MSM_CANONICAL, S->pool)) == CZ_OK) {
            /* G2: beta, delta */
            memcpy(sc[0], sc[1], 32);
            memcpy(sc[1], sc[2], 32);
            st = G2(fb_mul)(R.t2, gen2, sc[0], 2, CZ_MSM_CANONICAL, S->pool);
        }
        explicit_bzero(sc, sizeof sc);
        if (st != CZ_OK) {
            SU(free_state)(&R);
            return cz_error_set(err, st, "setup: header points: %s", cz_status_str(st));
        }
        alpha1 = gen1[0];
        beta1 = gen1[1];
        delta1 = gen1[2];
        beta2 = gen2[0];
        delta2 = gen2[1];
    }

    /* ---- the file ---- */
    char name[CZ_ZKEY_NAME_MAX + 1];
    setup_contribution_name(name, sizeof name, o);
    cz_zkey_contribution contrib;
    memset(&contrib, 0, sizeof contrib);
    contrib.delta_after = &delta1;
    contrib.g1_s = g1;
    contrib.g1_sx = &delta1;
    contrib.g2_spx = &delta2;
    contrib.name = name;
    cz_zkey_layout lay = {SU_CURVE, nvars, npub, (uint32_t)n, ncoef, cz_zkey_mpc_bytes(SU_CURVE, &contrib, 1)};
    stats->file_bytes = cz_zkey_file_size(&lay);
    if ((st = cz_zkey_writer_open(&S->w, path, &lay, err)) != CZ_OK) {
        SU(free_state)(&R);
        return st;
    }
    S->w_open = 1;
    if ((st = setup_writer_start(S, err)) != CZ_OK) goto fail;
    if ((st = cz_zkey_write_header(&S->w, &alpha1, &beta1, &beta2, g2, &delta1, &delta2, err)) != CZ_OK) goto fail;
    if ((st = SU(points)(&R, 3, 1, R.c, (size_t)npub + 1, "IC", err)) != CZ_OK) goto fail;
    if ((st = SU(coefficients)(&R, ncoef, err)) != CZ_OK) goto fail;
    if ((st = SU(points)(&R, 5, 1, R.a, nvars, "A", err)) != CZ_OK) goto fail;
    if ((st = SU(points)(&R, 6, 1, R.b, nvars, "B1", err)) != CZ_OK) goto fail;
    if ((st = SU(points)(&R, 7, 2, R.b, nvars, "B2", err)) != CZ_OK) goto fail;
    if ((st = SU(points)(&R, 8, 1, R.c + npub + 1, (size_t)nvars - npub - 1, "C", err)) != CZ_OK) goto fail;
    if ((st = SU(points)(&R, 9, 1, NULL, n, "H", err)) != CZ_OK) goto fail;
    if ((st = cz_zkey_write_mpc(&S->w, (const uint8_t *)CZ_SETUP_CS_MARKER, &contrib, 1, err)) != CZ_OK) goto fail;
    setup_writer_stop(S);
    progress(S, "sync", 0, 1);
    t0 = cz_now();
    S->w_open = 0;
    if ((st = cz_zkey_writer_commit(&S->w, err)) != CZ_OK) {
        SU(free_state)(&R);
        return st;
    }
    stats->t_sync = cz_now() - t0;
    progress(S, "sync", 1, 1);
    SU(free_state)(&R);
    stats->t_total = cz_now() - t_start;
    return CZ_OK;
fail:
    SU(free_state)(&R); /* stops the writer thread, drops the temporary file */
    return st;
}

static cz_status SU(toxic_bytes)(unsigned log_n, const cz_setup_opts *o, uint8_t *out[4], cz_error *err)
{
    SU_FR t[4];
    cz_status st = SU(toxic)(log_n, o, t, err);
    if (st == CZ_OK)
        for (int i = 0; i < 4; i++)
            FR(to_bytes_le)(out[i], &t[i]);
    explicit_bzero(t, sizeof t);
    return st;
}

#undef SU_CURVE
#undef SU_FR
#undef SU_G1
#undef SU_G2
#undef SU_NTT
#undef SU
#undef FR
#undef G1
#undef G2
#undef NTT
#undef G1A
#undef G2A
#undef G1FB
#undef G2FB
