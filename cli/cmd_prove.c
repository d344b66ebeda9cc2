/*
 * cuzk prove: a Groth16 proof from a snarkjs proving key and a circom
 * witness, verified before it is written.
 *
 * The command runs in four steps over one prove_cmd: options, loading (the
 * backend, the key, the witness, --check), proving (--repeat: warm proofs
 * with the key resident and pooled a, b buffers; the stage times become
 * the medians of proofs 2..N), writing the outputs (all or none).
 *
 * Memory: one budget (mem/budget.h, detected or --budget) governs the
 * command as it governs the engine: the key's point tables and matrices,
 * the witness, the a, b working set (or the pool's buffers with
 * --repeat), the backend's scratch and its kept twiddle tables are each
 * reserved before they are allocated; what does not fit ends the command
 * with exit 6 and the bytes it needed.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "groth16/groth16.h"
#include "mem/budget.h"
#include "mem/bufpool.h"
#include "io/proof.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/outputs.h"
#include "util/stats.h"
#include "util/timer.h"

const char USAGE_PROVE[] =
    "usage: cuzk prove [options] circuit.zkey witness.wtns proof.json public.json\n"
    "       cuzk prove [options] --circuit NAME --input in.json [--param K=V ...]\n"
    "                  circuit.zkey proof.json public.json\n"
    "\n"
    "Makes a Groth16 proof from a snarkjs proving key and a circom witness, or\n"
    "from a circuit built into cuzk and its input (--circuit: the witness and a,\n"
    "b, c are synthesized in this process, nothing is read but the input; the key\n"
    "is one made from that circuit's exported .r1cs, `cuzk circuit NAME -o BASE`\n"
    "then `cuzk setup --insecure-dev BASE.r1cs`). The\n"
    "curve is read from the files. The proof is verified before it is written;\n"
    "a witness that does not satisfy the circuit ends with exit code 4 and no\n"
    "output files. Blinding scalars come from the OS CSPRNG (getrandom); if it\n"
    "refuses, the command ends with exit code 7 and no output files.\n"
    "On a GPU, CZ_MSM_TABLE=auto|off|eager sets the MSM's tables of multiples\n"
    "of the resident key (auto: built on a section's second use, with --repeat;\n"
    "eager: on its first; -v names each one built); CZ_MSM_TABLE_WINDOWS=\n"
    "whole|fit|K: whole tables only (the default), or the largest that fits in\n"
    "VRAM (a partial table: fewer windows, one bucket set per group), or at most\n"
    "K windows. A bad value of either is a usage error (exit 2).\n"
    "\n"
    "The outputs appear together or not at all (see `cuzk --help`); proof.json or\n"
    "public.json may be '-', standard output. An output that is an input or\n"
    "another output is refused (exit 2).\n"
    "\n"
    "options:\n"
    "  -d, --device DEV      auto (default; CUDA when a usable GPU is present),\n"
    "                        cpu, cuda or cuda:N\n"
    "      --budget BYTES    memory budget (\"123\" or \"2^K\"; default: detected, the\n"
    "                        cgroup limit or MemAvailable minus a margin)\n"
    "  -t, --threads N       CPU threads (default: all cores)\n"
    "  -c, --check FILE      with the circuit's .r1cs: check every constraint first\n"
    "                        and report the first unsatisfied one by index\n"
    "  -b, --proof-bin FILE  also write the 192-byte bellperson binary proof\n"
    "                        (A||B||C compressed; BLS12-381 only)\n"
    "      --no-verify       skip the verification of the proof (not recommended)\n"
    "  -r, --repeat N        prove N times in this process (a benchmark of warm\n"
    "                        proofs: the key stays resident on the device and the\n"
    "                        a, b buffers are pinned once and reused); with -v,\n"
    "                        each proof's stage times and their medians; the last\n"
    "                        proof is written (default 1)\n"
    CLI_NATIVE_USAGE
    "  -q, --quiet           no progress output\n"
    "  -v, --verbose         print the time of each stage\n"
    "  -h, --help            this text\n";

typedef struct prove_cmd {
    /* options and arguments */
    const char *device, *check, *bin;
    int no_verify, repeat;
    int device_failed; /* the backend could not be made: exit 6 */
    cz_backend_opts bo; /* the backend's options (CZ_MSM_TABLE[_WINDOWS] read by prove_parse) */
    size_t budget_bytes;
    const char *zkey_path, *wtns_path, *proof_path, *public_path;
    /* what was loaded */
    cz_backend *be;
    cz_budget *budget;
    cz_budget_alloc ka, ma, wa, ab; /* key tables, matrices, witness, a/b: each reserved in the budget */
    cz_zkey zk;
    cz_wtns w;
    int have_zk, have_w;
    cli_native nat; /* --circuit */
    cz_synth *synth; /* its partition (owns the witness w then points at) */
    /* the result: the (last) proof and its stage times (--repeat: medians) */
    cz_proof proof;
    cz_prove_timings tm;
    double t0, t_key, t_wtns;
    cz_error err;
} prove_cmd;

/* Options and arguments into pc; -1 to go on, else the exit code. */
static int prove_parse(prove_cmd *pc, int argc, char **argv)
{
    static const struct option opts[] = {{"device", required_argument, 0, 'd'}, {"threads", required_argument, 0, 't'},
                                         {"check", required_argument, 0, 'c'},  {"proof-bin", required_argument, 0, 'b'},
                                         {"no-verify", no_argument, 0, 'N'},    {"quiet", no_argument, 0, 'q'},
                                         {"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
                                         {"repeat", required_argument, 0, 'r'}, {"budget", required_argument, 0, 'B'},
                                         CLI_NATIVE_OPTIONS,                    {0, 0, 0, 0}};
    pc->device = "auto";
    pc->repeat = 1;
    int c;
    while ((c = getopt_long(argc, argv, "d:t:c:b:r:qvh", opts, NULL)) != -1) {
        switch (c) {
        case 'r': {
            uint64_t v;
            if (!opt_count("--repeat", optarg, 1, 1000, &v)) return EXIT_USAGE;
            pc->repeat = (int)v;
            break;
        }
        case 'd': pc->device = optarg; break;
        case 'B': {
            uint64_t v;
            if (!parse_count(optarg, &v) || v == 0) {
                msg("--budget: '%s' is not a byte count (\"123\" or \"2^K\")", optarg);
                return EXIT_USAGE;
            }
            pc->budget_bytes = (size_t)v;
            break;
        }
        case 't':
            if (!opt_threads(optarg)) return EXIT_USAGE;
            break;
        case 'c': pc->check = optarg; break;
        case 'b': pc->bin = optarg; break;
        case 'N': pc->no_verify = 1; break;
        case 'q': cli_quiet = 1; break;
        case 'v': cli_verbose = 1; break;
        case 'h': fputs(USAGE_PROVE, stdout); return EXIT_OK;
        case CLI_OPT_CIRCUIT:
        case CLI_OPT_INPUT:
        case CLI_OPT_PARAM:
        case CLI_OPT_PCE_DIR:
            if (!cli_native_opt(&pc->nat, c, optarg)) return EXIT_USAGE;
            break;
        default: fputs(USAGE_PROVE, stderr); return EXIT_USAGE;
        }
    }
    if (!cli_native_check(&pc->nat)) return EXIT_USAGE;
    const int native = pc->nat.name != NULL;
    if (argc - optind != 4 - native) {
        if (native)
            msg("prove --circuit needs 3 arguments: circuit.zkey proof.json public.json (got %d)", argc - optind);
        else
            msg("prove needs 4 arguments: circuit.zkey witness.wtns proof.json public.json (got %d)", argc - optind);
        fputs(USAGE_PROVE, stderr);
        return EXIT_USAGE;
    }
    pc->zkey_path = argv[optind];
    pc->wtns_path = native ? NULL : argv[optind + 1];
    pc->proof_path = argv[optind + 2 - native];
    pc->public_path = argv[optind + 3 - native];
    if (!cli_device(pc->device, 1, 1)) return EXIT_USAGE;
    if (!cli_msm_table_env(&pc->bo)) return EXIT_USAGE;
    const char *in[3] = {pc->zkey_path, native ? pc->nat.input : pc->wtns_path, pc->check}, *out[3] = {pc->proof_path, pc->public_path, pc->bin};
    const int dash[3] = {1, 1, 0};
    int rc = cli_files(in, 3, out, dash, 3);
    if (rc >= 0) return rc;
    pc->proof_path = out[0];
    pc->public_path = out[1];
    return -1;
}

/* The backend, the key and the witness (checked against each other and,
 * with --check, against the circuit's constraints). */
/* a load that failed because the budget refused: that refusal says why */
static cz_status budget_refused(prove_cmd *pc, cz_status st, const cz_budget_alloc *a, const cz_budget_alloc *b,
                                const char *what)
{
    const cz_error *r = a && a->refusal.status != CZ_OK ? &a->refusal : b && b->refusal.status != CZ_OK ? &b->refusal : NULL;
    if (st == CZ_OK || !r) return st;
    cz_error_clear(&pc->err);
    return cz_error_set(&pc->err, r->status, "%s does not fit the memory budget: %s", what, cz_error_msg(r));
}

static cz_status prove_load(prove_cmd *pc)
{
    cz_status st;
    /* one budget for everything this command holds */
    size_t limit = pc->budget_bytes;
    if (!limit && !cz_budget_detect(NULL, NULL)) limit = SIZE_MAX / 4; /* nothing to detect: no limit */
    if ((st = cz_budget_create(&pc->budget, limit, 0, &pc->err)) != CZ_OK) return st;
    cz_budget_alloc_init(&pc->ka, pc->budget, CZ_MEM_KEY, NULL);
    cz_budget_alloc_init(&pc->ma, pc->budget, CZ_MEM_MATRIX, NULL);
    cz_budget_alloc_join(&pc->ma, &pc->ka);
    cz_budget_alloc_init(&pc->wa, pc->budget, CZ_MEM_WITNESS, NULL);
    cz_budget_alloc_init(&pc->ab, pc->budget, CZ_MEM_WORKSET, NULL);
    pc->ka.timeout_s = pc->ma.timeout_s = pc->wa.timeout_s = pc->ab.timeout_s = 0; /* nobody else frees */
    cz_backend_opts bo = pc->bo; /* the table settings */
    bo.budget = pc->budget;
    /* -v: the device's notes too (an MSM table built, bases streamed) */
    cz_logger blog = cli_log;
    if (cli_verbose && blog.level < CZ_LOG_INFO) blog.level = CZ_LOG_INFO;
    bo.log = &blog;
    bo.fallback = 1;
    if ((st = cz_backend_create(&pc->be, pc->device, &bo, &pc->err)) != CZ_OK) {
        pc->device_failed = 1; /* the spec parsed (prove_parse): the device is missing or failed */
        return st;
    }
    if (cli_verbose) msg("device: %s", pc->be->name);
    stage("loading the proving key");
    cz_zkey_opts zo;
    memset(&zo, 0, sizeof zo);
    zo.alloc = &pc->ka.a;
    zo.matrix_alloc = &pc->ma.a;
    st = cz_zkey_load(&pc->zk, pc->zkey_path, &zo, &pc->err);
    if (st != CZ_OK && (pc->ka.refusal.status != CZ_OK || pc->ma.refusal.status != CZ_OK)) {
        /* the whole need, from the header (not the piece that was refused) */
        cz_zkey hdr;
        cz_zkey_opts ho;
        memset(&ho, 0, sizeof ho);
        ho.header_only = 1;
        if (cz_zkey_load(&hdr, pc->zkey_path, &ho, NULL) == CZ_OK) {
            char need[32], lim[32];
            const uint64_t n = cz_zkey_expected_bytes(&hdr);
            cz_zkey_free(&hdr);
            human_bytes(need, sizeof need, n);
            human_bytes(lim, sizeof lim, cz_budget_limit(pc->budget));
            cz_error_clear(&pc->err);
            return cz_error_set(&pc->err, CZ_ERR_BUDGET,
                                "%s does not fit the memory budget: the key needs %llu bytes (%s), the budget is %zu "
                                "bytes (%s)%s",
                                pc->zkey_path, (unsigned long long)n, need, cz_budget_limit(pc->budget), lim,
                                pc->budget_bytes ? "" : "; --budget sets another");
        }
    }
    if ((st = budget_refused(pc, st, &pc->ka, &pc->ma, pc->zkey_path)) != CZ_OK) return st;
    pc->have_zk = 1;
    pc->t_key = stage_done();
    if (pc->nat.name) {
        /* the circuit's witness, synthesized into the budget (its a, b
         * come from its recorded R1CS, in prove_one) */
        stage("synthesizing the witness");
        if ((st = cli_native_open(&pc->nat, &pc->err)) != CZ_OK) return st;
        if ((st = cli_native_synth(&pc->nat, pc->zk.curve, NULL, &pc->synth, &pc->err)) != CZ_OK) return st;
        if ((st = cz_synth_check(pc->synth, &pc->zk, pc->zkey_path, &pc->err)) != CZ_OK) return st;
        st = cz_synth_prepare(pc->synth, &pc->wa.a, &pc->err);
        if ((st = budget_refused(pc, st, &pc->wa, NULL, "the circuit's witness")) != CZ_OK) return st;
        pc->w = *cz_synth_witness(pc->synth);
        pc->t_wtns = stage_done();
    } else {
        stage("loading the witness");
        st = cz_wtns_load(&pc->w, pc->wtns_path, &pc->wa.a, &pc->err);
        if ((st = budget_refused(pc, st, &pc->wa, NULL, pc->wtns_path)) != CZ_OK) return st;
        pc->have_w = 1;
        pc->t_wtns = stage_done();
    }
    if ((st = cz_groth16_check_inputs(&pc->zk, &pc->w, pc->zkey_path, pc->wtns_path ? pc->wtns_path : pc->nat.name,
                                      &pc->err)) != CZ_OK)
        return st;
    if (pc->bin && pc->zk.curve != CZ_CURVE_BLS12_381)
        return cz_error_set(&pc->err, CZ_ERR_UNSUPPORTED,
                            "--proof-bin: the bellperson binary proof is for BLS12-381 only; %s is %s", pc->zkey_path,
                            cz_curve_name(pc->zk.curve));
    if (pc->check) {
        cz_r1cs r1;
        uint64_t first;
        stage("checking the constraints");
        if ((st = cz_r1cs_load(&r1, pc->check, 0, NULL, &pc->err)) != CZ_OK) return st;
        st = cz_r1cs_check(&r1, &pc->w, &first, &pc->err);
        cz_r1cs_free(&r1);
        if (st != CZ_OK) return st;
        stage_done();
    }
    return CZ_OK;
}

/* tm's stage times become the medians of runs[1..n) (the warm proofs); left
 * as they are if the memory for that is missing. */
static void median_timings(cz_prove_timings *tm, const cz_prove_timings *runs, int n)
{
    static const size_t fields[] = {
        offsetof(cz_prove_timings, synth),  offsetof(cz_prove_timings, h),        offsetof(cz_prove_timings, msm_a),
        offsetof(cz_prove_timings, msm_b1), offsetof(cz_prove_timings, msm_b2),   offsetof(cz_prove_timings, msm_c),
        offsetof(cz_prove_timings, msm_h),  offsetof(cz_prove_timings, finalize), offsetof(cz_prove_timings, verify),
        offsetof(cz_prove_timings, total)};
    size_t m = (size_t)n - 1;
    double *col = malloc(m * sizeof *col);
    for (size_t f = 0; col && f < sizeof fields / sizeof *fields; f++) {
        for (size_t i = 0; i < m; i++) memcpy(&col[i], (const char *)&runs[i + 1] + fields[f], sizeof(double));
        cz_stats_summary s;
        if (cz_stats_summarize(&s, col, m, NULL) == CZ_OK) memcpy((char *)tm + fields[f], &s.p50, sizeof(double));
    }
    free(col);
}

/* --repeat: warm proofs as the engine runs them: the key resident, a, b
 * in pinned buffers from a pool (pinned once, reused); pageable buffers if
 * the pool cannot be made. */
typedef struct warm_pool {
    cz_bufpool *bufs;
} warm_pool;

static void warm_pool_open(warm_pool *wp, cz_budget *budget, cz_backend *be, cz_prove_opts *po)
{
    cz_error err;
    cz_error_clear(&err);
    memset(wp, 0, sizeof *wp);
    po->keep_resident = 1;
    if (!be->ops->host_allocator) return;
    if (cz_bufpool_create(&wp->bufs, budget, be->ops->host_allocator(be), &cli_log, &err) == CZ_OK)
        po->alloc = cz_bufpool_allocator(wp->bufs);
}

static void warm_pool_close(warm_pool *wp) { cz_bufpool_free(wp->bufs); }

/* One proof as cz_groth16_prove makes it, a, b from the synth with
 * --circuit (the recorded R1CS's SpMV, checking every row); c = a o b is
 * the backend's. */
static cz_status prove_one(prove_cmd *pc, const cz_prove_opts *po, cz_prove_timings *tm)
{
    if (!pc->synth) return cz_groth16_prove(&pc->proof, &pc->zk, &pc->w, po, tm, &pc->err);
    memset(tm, 0, sizeof *tm);
    const double t0 = cz_now();
    const size_t bytes = cz_ab_bytes(pc->zk.domain_size), each = bytes / 2;
    uint8_t *ab = cz_alloc(po->alloc, bytes);
    if (!ab) return cz_error_set(&pc->err, CZ_ERR_NO_MEMORY, "out of memory for the a, b vectors (%zu bytes)", bytes);
    cz_status st = cz_synth_ab(pc->synth, &pc->zk, ab, NULL, &pc->err);
    tm->synth = cz_now() - t0;
    if (st == CZ_OK) st = cz_groth16_prove_abc(&pc->proof, &pc->zk, &pc->w, ab, ab + each, NULL, po, tm, &pc->err);
    cz_free(po->alloc, ab, bytes);
    tm->total = cz_now() - t0;
    return st;
}

/* pc->repeat proofs; the last one and its times (medians) stay in pc. */
static cz_status prove_run(prove_cmd *pc)
{
    cz_prove_opts po;
    memset(&po, 0, sizeof po);
    po.backend = pc->be;
    po.skip_verify = pc->no_verify;
    po.alloc = &pc->ab.a; /* a, b in the budget (the pool with --repeat) */
    const int repeat = pc->repeat;
    cz_prove_timings *runs = NULL;
    warm_pool wp = {NULL};
    /* the backend's scratch of this shape, for the whole run */
    const cz_zkey *zk = &pc->zk;
    const size_t scratch =
        cz_backend_scratch_bytes(pc->be, zk->curve, zk->log_domain, zk->n_vars > zk->domain_size ? zk->n_vars : zk->domain_size);
    cz_status st = cz_budget_reserve(pc->budget, CZ_MEM_SCRATCH, scratch, 0, NULL, &pc->err);
    if (st != CZ_OK) return st;
    if (repeat > 1) {
        warm_pool_open(&wp, pc->budget, pc->be, &po);
        if (!(runs = calloc((size_t)repeat, sizeof *runs))) {
            warm_pool_close(&wp);
            cz_budget_release(pc->budget, CZ_MEM_SCRATCH, scratch);
            return cz_error_set(&pc->err, CZ_ERR_NO_MEMORY, "out of memory");
        }
    }
    stage(pc->no_verify ? "proving" : "proving and verifying");
    cz_prove_timings *tm = &pc->tm;
    for (int i = 0; i < repeat; i++) {
        if ((st = prove_one(pc, &po, tm)) != CZ_OK) {
            if (st == CZ_ERR_NO_MEMORY) st = budget_refused(pc, st, &pc->ab, NULL, "the a, b working set");
            break;
        }
        if (runs) {
            runs[i] = *tm;
            if (cli_verbose)
                msg("proof %d/%d: synthesis %.3f, h %.3f, msm A %.3f B1 %.3f B2 %.3f C %.3f H %.3f, finalize %.3f, "
                    "verify %.3f, total %.3f s",
                    i + 1, repeat, tm->synth, tm->h, tm->msm_a, tm->msm_b1, tm->msm_b2, tm->msm_c, tm->msm_h,
                    tm->finalize, tm->verify, tm->total);
        }
    }
    cz_groth16_drop_resident(pc->be, &pc->zk); /* no-op unless keep_resident */
    warm_pool_close(&wp);
    cz_budget_release(pc->budget, CZ_MEM_SCRATCH, scratch);
    if (st == CZ_OK && runs) median_timings(tm, runs, repeat); /* reported: medians over the proofs after the first */
    free(runs);
    if (st != CZ_OK) return st;
    stage_done();
    return CZ_OK;
}

/* output i of prove_write (0 public.json, 1 the binary proof, 2 proof.json) at path */
static cz_status write_output(prove_cmd *pc, int i, const char *path)
{
    if (i == 0)
        return cz_public_write_json(path, pc->zk.curve, (const uint8_t *)pc->w.values + 32, pc->zk.n_public, &pc->err);
    if (i == 1) return cz_proof_write_bin(path, &pc->proof, &pc->err);
    return cz_proof_write_json(path, &pc->proof, &pc->err);
}

/* public.json, the binary proof (--proof-bin), proof.json: all or none
 * (util/outputs): each written to a placeholder beside it, those written in
 * place (a device, a FIFO, standard output) after the others, then all
 * renamed into place; a failure removes the placeholders and nothing else. */
static cz_status prove_write(prove_cmd *pc)
{
    const char *dest[3] = {pc->public_path, pc->bin, pc->proof_path}, *wp[3] = {NULL, NULL, NULL};
    int gi[3] = {-1, -1, -1};
    cz_outputs g;
    cz_outputs_init(&g);
    cz_status st = CZ_OK;
    stage("writing");
    for (int i = 0; i < 3 && st == CZ_OK; i++)
        if (dest[i] && (st = cz_outputs_add(&g, dest[i], &wp[i], &pc->err)) == CZ_OK) gi[i] = g.n - 1;
    for (int in_place = 0; in_place < 2 && st == CZ_OK; in_place++)
        for (int i = 0; i < 3 && st == CZ_OK; i++)
            if (gi[i] >= 0 && cz_outputs_in_place(&g, gi[i]) == in_place) st = write_output(pc, i, wp[i]);
    if (st == CZ_OK) st = cz_outputs_commit(&g, &pc->err);
    cz_outputs_explain(&g, &pc->err);
    cz_outputs_abort(&g); /* (empty after a commit) */
    if (st != CZ_OK) return st;
    stage_done();
    return CZ_OK;
}

/* -v: the key's facts and the time of each stage */
static void prove_report(const prove_cmd *pc)
{
    const cz_zkey *zk = &pc->zk;
    const cz_prove_timings *tm = &pc->tm;
    msg("%s: %s, domain %u (2^%u), %u variables, %u public", pc->zkey_path, cz_curve_name(zk->curve), zk->domain_size,
        zk->log_domain, zk->n_vars, zk->n_public);
    msg("time: load key %.3fs, witness %.3fs", pc->t_key, pc->t_wtns);
    if (pc->repeat > 1) msg("time: medians of proofs 2..%d (warm: key resident, pinned buffers):", pc->repeat);
    msg("time: synthesis (a,b,c) %.3fs, h (3 iNTT + 3 coset NTT) %.3fs", tm->synth, tm->h);
    msg("time: msm A %.3fs, B1 %.3fs, B2 (G2) %.3fs, C %.3fs, H %.3fs", tm->msm_a, tm->msm_b1, tm->msm_b2, tm->msm_c,
        tm->msm_h);
    msg("time: finalize %.3fs, verify %.3fs, prove total %.3fs, command %.3fs", tm->finalize, tm->verify, tm->total,
        cz_now() - pc->t0);
}

static void prove_free(prove_cmd *pc)
{
    if (pc->have_w) cz_wtns_free(&pc->w);
    cz_synth_free(pc->synth); /* the witness w pointed at, back to the budget */
    cli_native_close(&pc->nat);
    if (pc->have_zk) cz_zkey_free(&pc->zk);
    cz_backend_free(pc->be); /* its kept twiddle tables leave the budget */
    cz_budget_free(pc->budget);
}

int cmd_prove(int argc, char **argv)
{
    prove_cmd pc;
    memset(&pc, 0, sizeof pc);
    int rc = prove_parse(&pc, argc, argv);
    if (rc >= 0) return rc;
    cli_progress_init();
    cz_error_clear(&pc.err);
    pc.t0 = cz_now();
    int writing = 0;
    cz_status st = prove_load(&pc);
    if (st == CZ_OK) st = prove_run(&pc);
    if (st == CZ_OK) {
        writing = 1;
        st = prove_write(&pc);
    }
    if (st == CZ_OK && cli_verbose) prove_report(&pc);
    prove_free(&pc);
    if (st == CZ_OK) return EXIT_OK;
    stage_abort();
    if (pc.device_failed) {
        msg("error: %s", cz_error_msg(&pc.err));
        return EXIT_RESOURCE;
    }
    return writing ? fail_output(st, &pc.err) : fail(st, &pc.err);
}
