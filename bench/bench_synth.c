/*
 * bench_synth: synthesis of the porep-like circuit (circuit/examples/
 * porep_like.c, BLS12-381, 6 parents, depth 5) at 2^20, 2^22 and (--big)
 * 2^24 constraints: full recording synthesis against witness-only + the
 * pre-compiled evaluator's SpMV.
 *
 * DESIGN: every measurement runs in its own child process (fork), so that
 * its peak resident set (wait4's ru_maxrss) is its own:
 *   - record: the full synthesis of bellperson's ProvingAssignment: record
 *     mode with the evaluations (CSR matrices A, B, C and a, b, c of every
 *     constraint), unhinted, as a first synthesis of a shape runs; the last
 *     run's recording is saved as a PCE file for the next child;
 *   - pce: the recording loaded from that file (mmap, as the engine's
 *     pce_dir cache does), then per run witness-only synthesis (hinted by
 *     the recording's counts) and the SpMV a = A.w, b = B.w, c = C.w (which
 *     also checks a*b = c on every row) into a, b, c buffers allocated and
 *     touched once (the engine's pool buffers);
 *   - throughput: P partitions in parallel, one thread each (the SpMV on a
 *     one-thread pool per partition), each on its own input (another
 *     sample seed), for both paths: partitions per second.
 * Times are the median of --reps runs (default 3; 1 with --quick) after one
 * untimed warm-up run; the record/pce ratio is the speedup on the same two
 * cores (the SpMV uses every core of the pool given; witness-only and
 * recording are one thread: the cs is driven by one thread).
 *
 * Flags (besides the harness's): --big (adds 2^24), --sizes=20,22 (log2 of
 * the sizes: 20 -> 1 challenge, each +2 -> 4x the challenges), --reps=N,
 * --parallel=P (the largest P of the throughput table, default the cores).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "circuit/native.h"
#include "circuit/pce.h"
#include "util/thread.h"

typedef struct {
    double median_s, rows_per_s;
    double witness_s, spmv_s; /* pce: the parts */
    uint64_t n_constraints, nnz;
    long peak_kib;
    int ok;
} result;

static const cz_native_circuit *circ;
static uint64_t params[CZ_NATIVE_MAX_PARAMS];
static const cz_curve CURVE = CZ_CURVE_BLS12_381;
static char pce_path[256];

static double now_s(void) { return (double)cz_bench_now_ns() * 1e-9; }

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *sample(uint64_t seed)
{
    void *in = NULL;
    cz_error err = {0};
    if (circ->sample(params, CURVE, seed, &in, &err) != CZ_OK) {
        fprintf(stderr, "bench_synth: sample: %s\n", err.msg);
        return NULL;
    }
    return in;
}

/* one full recording synthesis (+ evaluations); *out kept when asked */
static int record_once(void *in, cz_cs **keep, uint64_t *ncons, uint64_t *nnz)
{
    cz_cs *cs = NULL;
    cz_error err = {0};
    if (cz_native_run(circ, params, in, CURVE, CZ_CS_RECORD, 1, NULL, NULL, &cs, &err) != CZ_OK) {
        fprintf(stderr, "bench_synth: record: %s\n", err.msg);
        return 0;
    }
    cz_cs_hint h;
    cz_cs_counts(cs, &h);
    if (ncons) *ncons = h.n_constraints;
    if (nnz) *nnz = h.nnz[0] + h.nnz[1] + h.nnz[2];
    if (keep) *keep = cs;
    else cz_cs_free(cs);
    return 1;
}

/* witness-only + SpMV of one partition into abc (3 x n_constraints) */
static int pce_once(const cz_pce *p, void *in, cz_fe *abc, cz_pool *pool, double *tw, double *ts)
{
    cz_cs_hint h = {p->n_inputs, p->n_aux, p->n_constraints, {0, 0, 0}};
    cz_cs *cs = NULL;
    cz_error err = {0};
    double t0 = now_s();
    if (cz_native_run(circ, params, in, CURVE, CZ_CS_WITNESS, 0, &h, NULL, &cs, &err) != CZ_OK) {
        fprintf(stderr, "bench_synth: witness: %s\n", err.msg);
        return 0;
    }
    double t1 = now_s();
    uint32_t n;
    const cz_fe *w = cz_cs_witness(cs, &n);
    uint64_t bad;
    cz_status st = cz_pce_abc(p, w, n, abc, abc + p->n_constraints, abc + 2 * (size_t)p->n_constraints, &bad, pool, &err);
    double t2 = now_s();
    cz_cs_free(cs);
    if (st != CZ_OK || bad != UINT64_MAX) {
        fprintf(stderr, "bench_synth: spmv: %s (first bad row %llu)\n", st != CZ_OK ? err.msg : "unsatisfied",
                (unsigned long long)bad);
        return 0;
    }
    if (tw) *tw = t1 - t0;
    if (ts) *ts = t2 - t1;
    return 1;
}

/* ---- the children ---- */

static void child_record(result *r, int reps)
{
    void *in = sample(1);
    if (!in) return;
    double t[32];
    cz_cs *last = NULL;
    if (!record_once(in, NULL, NULL, NULL)) return; /* warm-up */
    for (int i = 0; i < reps; i++) {
        double t0 = now_s();
        if (!record_once(in, i == reps - 1 ? &last : NULL, &r->n_constraints, &r->nnz)) return;
        t[i] = now_s() - t0;
    }
    r->median_s = median(t, reps);
    /* the recording for the pce child */
    cz_pce p;
    uint8_t key[32];
    cz_error err = {0};
    cz_pce_key(key, "bench_synth", "", 1, CURVE);
    if (cz_pce_from_cs(&p, last, key, &err) != CZ_OK || cz_pce_save(&p, pce_path, &err) != CZ_OK) {
        fprintf(stderr, "bench_synth: pce file: %s\n", err.msg);
        return;
    }
    cz_pce_free(&p);
    cz_cs_free(last);
    circ->free_input(in);
    r->ok = 1;
}

static int load_pce(cz_pce *p)
{
    cz_error err = {0};
    if (cz_pce_load(p, pce_path, NULL, &err) != CZ_OK) {
        fprintf(stderr, "bench_synth: %s\n", err.msg);
        return 0;
    }
    return 1;
}

static void child_pce(result *r, int reps)
{
    cz_pce p;
    if (!load_pce(&p)) return;
    void *in = sample(1);
    size_t nb = 3 * (size_t)p.n_constraints * sizeof(cz_fe);
    cz_fe *abc = malloc(nb);
    if (!in || !abc) return;
    memset(abc, 0, nb);
    double tw[32], ts[32], tt[32];
    if (!pce_once(&p, in, abc, NULL, NULL, NULL)) return; /* warm-up: the mapping's pages */
    for (int i = 0; i < reps; i++) {
        if (!pce_once(&p, in, abc, NULL, &tw[i], &ts[i])) return;
        tt[i] = tw[i] + ts[i];
    }
    r->median_s = median(tt, reps);
    r->witness_s = median(tw, reps);
    r->spmv_s = median(ts, reps);
    r->n_constraints = p.n_constraints;
    r->nnz = p.A.nnz + p.B.nnz + p.C.nnz;
    free(abc);
    circ->free_input(in);
    cz_pce_free(&p);
    r->ok = 1;
}

typedef struct {
    int pce; /* 1: witness-only + SpMV, 0: recording */
    const cz_pce *p;
    int parts;
    uint64_t seed;
    int ok;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    cz_pool *pool = cz_pool_create(1);
    cz_fe *abc = NULL;
    if (w->pce) {
        size_t nb = 3 * (size_t)w->p->n_constraints * sizeof(cz_fe);
        if (!(abc = malloc(nb))) return NULL;
        memset(abc, 0, nb);
    }
    w->ok = pool != NULL;
    for (int i = 0; i < w->parts && w->ok; i++) {
        void *in = sample(w->seed + (uint64_t)i);
        if (!in) {
            w->ok = 0;
            break;
        }
        w->ok = w->pce ? pce_once(w->p, in, abc, pool, NULL, NULL) : record_once(in, NULL, NULL, NULL);
        circ->free_input(in);
    }
    free(abc);
    cz_pool_free(pool);
    return NULL;
}

/* P threads, parts partitions each: partitions per second */
static void child_parallel(result *r, int pce, int P, int parts)
{
    cz_pce p;
    memset(&p, 0, sizeof p);
    if (pce && !load_pce(&p)) return;
    worker w[64];
    pthread_t th[64];
    double t0 = now_s();
    for (int i = 0; i < P; i++) {
        w[i] = (worker){pce, &p, parts, 1000 + 100 * (uint64_t)i, 0};
        pthread_create(&th[i], NULL, worker_main, &w[i]);
    }
    int ok = 1;
    for (int i = 0; i < P; i++) {
        pthread_join(th[i], NULL);
        ok &= w[i].ok;
    }
    double dt = now_s() - t0;
    r->median_s = dt;
    r->rows_per_s = (double)(P * parts) / dt; /* partitions per second */
    if (pce) cz_pce_free(&p);
    r->ok = ok;
}

/* Runs fn in a child; its result and its peak RSS. */
typedef struct {
    int kind; /* 0 record, 1 pce, 2 parallel record, 3 parallel pce */
    int reps, P, parts;
} job;

static result run_child(const job *j)
{
    result r;
    memset(&r, 0, sizeof r);
    int fd[2];
    if (pipe(fd) != 0) return r;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        result c;
        memset(&c, 0, sizeof c);
        if (j->kind == 0) child_record(&c, j->reps);
        else if (j->kind == 1) child_pce(&c, j->reps);
        else child_parallel(&c, j->kind == 3, j->P, j->parts);
        ssize_t wr = write(fd[1], &c, sizeof c);
        _exit(wr == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = pid > 0 ? read(fd[0], &r, sizeof r) : -1;
    close(fd[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    if (pid > 0) wait4(pid, &status, 0, &ru);
    if (got != (ssize_t)sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0) r.ok = 0;
    r.peak_kib = ru.ru_maxrss;
    return r;
}

static double gib(long kib) { return (double)kib / (1024.0 * 1024.0); }

static void git_commit(char *out, size_t cap)
{
    const char *here = __FILE__, *slash = strrchr(here, '/');
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "git -C '%.*s' describe --always --dirty 2>/dev/null", slash ? (int)(slash - here) : 1,
             slash ? here : ".");
    snprintf(out, cap, "unknown");
    FILE *f = popen(cmd, "r");
    if (!f) return;
    if (fgets(out, (int)cap, f)) out[strcspn(out, "\n")] = 0;
    pclose(f);
}

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--big", "--sizes", "--reps", "--parallel", NULL};
    int rc = cz_bench_init(&b, "bench_synth", argc, argv, own,
                           "  --big          include 2^24\n"
                           "  --sizes=K,...  log2 sizes, even, 20..26 (default 20,22; 20,22,24 with --big)\n"
                           "  --reps=N       timed runs per measurement (default 3; --quick 1)\n"
                           "  --parallel=P   the most partitions in parallel (default: the cores)\n");
    if (rc >= 0) return rc;
    circ = cz_native_find("porep-like");
    if (!circ) return 1;
    int reps = (int)cz_bench_opt_long(&b, "--reps", b.quick ? 1 : 3);
    if (reps < 1 || reps > 32) reps = 3;
    int maxP = (int)cz_bench_opt_long(&b, "--parallel", cz_cpu_count());
    if (maxP < 1 || maxP > 64) maxP = 2;
    int sizes[8], ns = 0;
    const char *sz = cz_bench_opt_str(&b, "--sizes");
    if (sz && *sz) {
        for (const char *s = sz; *s && ns < 8;) {
            int k = atoi(s);
            if (k >= 20 && k <= 26 && k % 2 == 0) sizes[ns++] = k;
            while (*s && *s != ',') s++;
            if (*s) s++;
        }
    } else {
        sizes[ns++] = 20;
        sizes[ns++] = 22;
        if (cz_bench_has(&b, "--big")) sizes[ns++] = 24;
    }
    if (b.quick && !sz) ns = 1;
    snprintf(pce_path, sizeof pce_path, "/tmp/bench_synth.%d.pce", (int)getpid());
    char commit[64];
    git_commit(commit, sizeof commit);
    cz_bench_note(&b,
                  "porep-like on BLS12-381 (parents=6 depth=5; challenges = 4^((K - 20) / 2): the sizes of "
                  "docs/CIRCUITS.md), cuzk %s. record = full recording synthesis (record mode with the "
                  "evaluations: CSR A, B, C and a, b, c per constraint, unhinted: a first synthesis of the shape, "
                  "bellperson's ProvingAssignment). pce = the recording mmap'ed from its file, witness-only "
                  "synthesis (hinted) + the SpMV a = A.w, b = B.w, c = C.w, checking a*b = c on every row (on a "
                  "pool of %d threads). Median of %d runs after a warm-up; each row in its own process: peak RSS "
                  "is that process's (wait4).",
                  commit, cz_cpu_count(), reps);
    cz_bench_table t;
    cz_bench_table_init(&t, "One partition",
                        "size|challenges|constraints|terms (A+B+C)|record s|pce s|witness s|SpMV s|record / pce|peak "
                        "RSS record GiB|peak RSS pce GiB");
    cz_bench_table tp;
    cz_bench_table_init(&tp, "Partitions in parallel (one thread each, each on its own input)",
                        "size|P|record partitions/s|pce partitions/s|pce / record|peak RSS record GiB|peak RSS pce "
                        "GiB");
    for (int si = 0; si < ns; si++) {
        int k = sizes[si];
        params[0] = (uint64_t)1 << (k - 20); /* challenges */
        params[1] = 6;
        params[2] = 5;
        fprintf(stderr, "bench_synth: 2^%d (%llu challenges) ...\n", k, (unsigned long long)params[0]);
        job jr = {0, reps, 0, 0}, jp = {1, reps, 0, 0};
        result rr = run_child(&jr);
        result rp = rr.ok ? run_child(&jp) : rr;
        if (!rr.ok || !rp.ok) {
            fprintf(stderr, "bench_synth: 2^%d failed\n", k);
            unlink(pce_path);
            return 1;
        }
        cz_bench_table_addf(&t, "2^%d|%llu|%llu|%llu|%.3f|%.3f|%.3f|%.3f|%.2fx|%.2f|%.2f", k,
                            (unsigned long long)params[0], (unsigned long long)rr.n_constraints,
                            (unsigned long long)rr.nnz, rr.median_s, rp.median_s, rp.witness_s, rp.spmv_s,
                            rr.median_s / rp.median_s, gib(rr.peak_kib), gib(rp.peak_kib));
        for (int P = 1; P <= maxP; P *= 2) {
            int parts = b.quick ? 1 : 2;
            job a = {2, 0, P, parts}, c = {3, 0, P, parts};
            result ra = run_child(&a), rc2 = run_child(&c);
            if (!ra.ok || !rc2.ok) {
                fprintf(stderr, "bench_synth: 2^%d, %d in parallel failed\n", k, P);
                unlink(pce_path);
                return 1;
            }
            cz_bench_table_addf(&tp, "2^%d|%d|%.3f|%.3f|%.2fx|%.2f|%.2f", k, P, ra.rows_per_s, rc2.rows_per_s,
                                rc2.rows_per_s / ra.rows_per_s, gib(ra.peak_kib), gib(rc2.peak_kib));
            if (P * 2 > maxP && P != maxP) P = maxP / 2; /* end on maxP */
        }
        unlink(pce_path);
    }
    cz_bench_table_print(&b, &t);
    cz_bench_table_print(&b, &tp);
    return cz_bench_finish(&b);
}
