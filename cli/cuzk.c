/*
 * cuzk: the command-line front end.
 *
 * DESIGN: one subcommand per job (prove, verify, export-vkey, info); each
 * parses its options, calls the library, and maps the library's status to a
 * documented exit code. Messages go to stderr, prefixed "cuzk: "; progress
 * lines only when stderr is a terminal and --quiet is not given. Outputs
 * are written through util/atomic_file, so a failed command leaves no
 * partial file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/status.h"
#include "ec/ec.h"
#include "ec/ec_serde.h"
#include "mem/bufpool.h"
#include "engine/engine.h"
#include "circuit/gen_circuit.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/binfile.h"
#include "io/proof.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/atomic_file.h"
#include "util/thread.h"
#include "util/timer.h"

#ifndef CUZK_VERSION
#define CUZK_VERSION "0.1.0"
#endif

/* exit codes (documented in usage() and README.md) */
enum {
    EXIT_OK = 0,
    EXIT_INVALID = 1,     /* verify: the proof is invalid */
    EXIT_USAGE = 2,       /* bad command line */
    EXIT_INPUT = 3,       /* unreadable or malformed input, inputs that do not match */
    EXIT_UNSATISFIED = 4, /* the witness does not satisfy the circuit */
    EXIT_OUTPUT = 5,      /* an output file cannot be written */
    EXIT_RESOURCE = 6,    /* out of memory, device failure */
    EXIT_INTERNAL = 70,
};

static int g_quiet = 0, g_verbose = 0, g_progress = 0;

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuzk: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* progress line on a terminal: "\r<text>" overwritten, ended by done() */
static double g_stage_t0;
static void stage(const char *what)
{
    g_stage_t0 = cz_now();
    if (g_progress) fprintf(stderr, "\r\033[K  %s ...", what);
}
static void stage_done(void)
{
    if (g_progress) fprintf(stderr, " %.2fs\n", cz_now() - g_stage_t0);
}

static int exit_for(cz_status st)
{
    switch (st) {
    case CZ_OK: return EXIT_OK;
    case CZ_ERR_VERIFY: return EXIT_INVALID;
    case CZ_ERR_UNSATISFIED: return EXIT_UNSATISFIED;
    case CZ_ERR_NO_MEMORY:
    case CZ_ERR_CUDA:
    case CZ_ERR_NO_DEVICE:
    case CZ_ERR_DEVICE_MEMORY:
    case CZ_ERR_BUDGET: return EXIT_RESOURCE;
    case CZ_ERR_INTERNAL: return EXIT_INTERNAL;
    default: return EXIT_INPUT;
    }
}

/* The library's lines (util/log.h) on stderr: "cuzk-engine: ..." for the
 * engine, "cuzk: ..." for the rest; warnings and errors always, the
 * engine's timeline (debug) when asked for. */
static void stderr_log(void *ctx, cz_log_level level, const char *component, const char *line)
{
    (void)ctx;
    (void)level;
    if (g_progress) fputs("\r\033[K", stderr);
    fprintf(stderr, "%s: %s\n", strcmp(component, "engine") == 0 ? "cuzk-engine" : "cuzk", line);
}
static const cz_logger g_log = {stderr_log, NULL, CZ_LOG_WARN};

/* The environment variables the CLI maps onto the engine's configuration
 * (the library reads none): CZ_ENGINE_TIMELINE=1 (per-stage timeline) and
 * CZ_ENGINE_FAIL_DEVICE=D:K (device D fails at its K-th step). 0 after a
 * message when one is malformed. */
static int engine_env(cz_engine_config *c)
{
    const char *tl = getenv("CZ_ENGINE_TIMELINE");
    c->timeline = tl && *tl == '1';
    c->log = g_log;
    if (c->timeline) c->log.level = CZ_LOG_DEBUG;
    const char *fail = getenv("CZ_ENGINE_FAIL_DEVICE");
    if (fail && *fail) {
        int d = -1;
        unsigned long long k = 0;
        char extra;
        if (sscanf(fail, "%d:%llu%c", &d, &k, &extra) != 2 || d < 0 || k == 0) {
            fprintf(stderr, "cuzk: CZ_ENGINE_FAIL_DEVICE='%s': expected DEVICE:STEP, as in 1:5\n", fail);
            return 0;
        }
        c->fail_device = d;
        c->fail_step = k;
    }
    return 1;
}

static int fail(cz_status st, const cz_error *err)
{
    msg("error: %s", cz_error_msg(err));
    return exit_for(st);
}

static const char *USAGE =
    "usage: cuzk <command> [options] [arguments]\n"
    "\n"
    "Groth16 prover for snarkjs/circom files, on BN254 (bn128) and BLS12-381.\n"
    "\n"
    "commands:\n"
    "  prove   circuit.zkey witness.wtns proof.json public.json\n"
    "          Prove, verify the proof against the key, then write proof.json and\n"
    "          public.json in snarkjs's format.\n"
    "  verify  verification_key.json public.json proof.json\n"
    "          Check a Groth16 proof (snarkjs JSON); prints OK or INVALID.\n"
    "  export-vkey circuit.zkey verification_key.json\n"
    "          Write the verifying key as `snarkjs zkey export verificationkey` does.\n"
    "  info    FILE\n"
    "          Describe a .zkey, .r1cs or .wtns file (curve, sizes, counts).\n"
    "  setup   --insecure-dev circuit.r1cs out.zkey [--seed S]\n"
    "          Write an INSECURE development proving key (single-party setup).\n"
    "  gen-circuit --curve C --constraints N --profile chain|dense|filecoin -o NAME\n"
    "          Write a satisfiable synthetic circuit NAME.r1cs and witness NAME.wtns.\n"
    "  bench-engine circuit.zkey witness.wtns\n"
    "          Run a stream of jobs through the proving engine and report\n"
    "          proofs per minute, device busy share and memory.\n"
    "  help [command], --help, --version\n"
    "\n"
    "Run `cuzk <command> --help` for the options of a command.\n"
    "\n"
    "exit codes:\n"
    "  0   success (verify: the proof is valid)\n"
    "  1   verify: the proof is invalid\n"
    "  2   bad command line\n"
    "  3   bad input: unreadable, malformed or mismatched files (the message names\n"
    "      the file, the offset or field, and what was expected)\n"
    "  4   prove: the witness does not satisfy the circuit\n"
    "  5   an output file cannot be written\n"
    "  6   out of memory or device failure\n"
    "  70  internal error\n";

static const char *USAGE_PROVE =
    "usage: cuzk prove [options] circuit.zkey witness.wtns proof.json public.json\n"
    "\n"
    "Makes a Groth16 proof from a snarkjs proving key and a circom witness. The\n"
    "curve is read from the files. The proof is verified before it is written;\n"
    "a witness that does not satisfy the circuit ends with exit code 4 and no\n"
    "output files. Blinding scalars come from the OS CSPRNG (getrandom).\n"
    "\n"
    "options:\n"
    "  -d, --device DEV      auto (default; CUDA when a usable GPU is present),\n"
    "                        cpu, cuda or cuda:N\n"
    "  -t, --threads N       CPU threads (default: all cores)\n"
    "  -c, --check FILE      with the circuit's .r1cs: check every constraint first\n"
    "                        and report the first unsatisfied one by index\n"
    "  -b, --proof-bin FILE  also write the 192-byte bellperson binary proof\n"
    "                        (A||B||C compressed; BLS12-381 only)\n"
    "      --no-verify       skip the verification of the proof (not recommended)\n"
    "  -r, --repeat N        prove N times in this process (a benchmark of warm\n"
    "                        proofs: the key stays resident on the device and the\n"
    "                        a, b, c buffers are pinned once and reused); with -v,\n"
    "                        each proof's stage times and their medians; the last\n"
    "                        proof is written (default 1)\n"
    "  -q, --quiet           no progress output\n"
    "  -v, --verbose         print the time of each stage\n"
    "  -h, --help            this text\n";

static const char *USAGE_VERIFY =
    "usage: cuzk verify [options] verification_key.json public.json proof.json\n"
    "\n"
    "Checks a Groth16 proof in snarkjs's JSON format against a snarkjs\n"
    "verification key. Prints OK (exit 0) or INVALID (exit 1). Proof points must\n"
    "be on the curve and in the prime-order subgroup; public signals must be < r\n"
    "and as many as the key's nPublic.\n"
    "\n"
    "options:\n"
    "  -q, --quiet           print nothing, use the exit code\n"
    "  -h, --help            this text\n";

static const char *USAGE_EXPORT =
    "usage: cuzk export-vkey [options] circuit.zkey verification_key.json\n"
    "\n"
    "Writes the verifying key of a proving key in the JSON format of\n"
    "`snarkjs zkey export verificationkey` (including vk_alphabeta_12).\n"
    "\n"
    "options:\n"
    "  -q, --quiet           no progress output\n"
    "  -h, --help            this text\n";

static const char *USAGE_INFO =
    "usage: cuzk info [options] FILE\n"
    "\n"
    "Describes a snarkjs .zkey, a circom .r1cs or a .wtns file: curve, number of\n"
    "constraints, variables and public inputs, domain size, and sizes. The kind\n"
    "of file is read from its magic bytes.\n"
    "\n"
    "options:\n"
    "  -h, --help            this text\n";

static void human_bytes(char *buf, size_t cap, uint64_t b)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int i = 0;
    while (v >= 1024 && i < 4) {
        v /= 1024;
        i++;
    }
    snprintf(buf, cap, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "123" or "2^K" */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    if (!strncmp(s, "2^", 2)) {
        unsigned long k = strtoul(s + 2, &end, 10);
        if (end == s + 2 || *end || k > 63) return 0;
        *out = (uint64_t)1 << k;
        return 1;
    }
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno) return 0;
    *out = v;
    return 1;
}

/* A count option in [lo, hi]; 0 after the message when it is not one. */
static int opt_count(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v;
    if (!parse_count(arg, &v) || v < lo || v > hi) {
        msg("%s: '%s' is not a count (%llu..%llu)", opt, arg, (unsigned long long)lo, (unsigned long long)hi);
        return 0;
    }
    *out = v;
    return 1;
}

/* -t/--threads N (1..4096) for every command */
static int set_threads_opt(const char *arg)
{
    uint64_t v;
    if (!opt_count("--threads", arg, 1, 4096, &v)) return 0;
    cz_set_threads((int)v);
    return 1;
}

/* ---- bench-engine ---- */
static const char *USAGE_BENCH_ENGINE =
    "usage: cuzk bench-engine [options] circuit.zkey witness.wtns\n"
    "\n"
    "Runs a stream of jobs through the proving engine (engine/engine.h): each job\n"
    "has P partitions proved with the key, all with this witness (fresh blinding\n"
    "each). Jobs are submitted all at once and awaited in order. Reports proofs\n"
    "per minute over the whole run and after the first job (steady state), the\n"
    "share of the wall time the device workers were busy, the a, b, c bytes handed\n"
    "to the device per second of its H step and per second of their host-to-device\n"
    "copies (CUDA events), peak RSS against the memory budget\n"
    "and against key + the working sets in flight, and the pool's hits and\n"
    "misses; with several devices, each one's busy share, partitions and key\n"
    "placements. Every proof is verified by the engine; a failure ends with exit\n"
    "4 or 6. CZ_ENGINE_TIMELINE=1 prints the per-stage timeline on stderr;\n"
    "CZ_ENGINE_FAIL_DEVICE=D:K makes device D fail at its K-th step (its work\n"
    "moves to the other devices).\n"
    "\n"
    "options:\n"
    "  -j, --jobs N          jobs (default 20)\n"
    "  -p, --partitions P    partitions per job (default 10)\n"
    "  -d, --device DEV      auto (default: every GPU, else the CPU), cpu, cuda (every\n"
    "                        GPU), cuda:N or a list cuda:N,M,...\n"
    "  -g, --gpus N          use the first N of those devices (with cpu: N CPU\n"
    "                        backends posing as devices)\n"
    "      --budget BYTES    memory budget (\"123\" or \"2^K\"; default: detected)\n"
    "      --synth-workers N partitions in synthesis at once (default: devices + 1,\n"
    "                        at least 2)\n"
    "      --max-ready N     synthesized partitions waiting for the device at most\n"
    "                        (default: the synthesis workers)\n"
    "      --no-pin          ordinary memory for a, b, c (to measure what pinning buys)\n"
    "      --pin-keys        keys in page-locked memory too (faster placement in each\n"
    "                        GPU's VRAM, slower key loading)\n"
    "  -t, --threads N       CPU threads (default: all cores)\n"
    "  -q, --quiet           only the result lines\n"
    "  -h, --help            this text\n";

static size_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (size_t)ru.ru_maxrss * 1024;
}

static int cmd_bench_engine(int argc, char **argv)
{
    static const struct option opts[] = {
        {"jobs", required_argument, 0, 'j'},   {"partitions", required_argument, 0, 'p'},
        {"device", required_argument, 0, 'd'}, {"budget", required_argument, 0, 'B'},
        {"gpus", required_argument, 0, 'g'}, {"pin-keys", no_argument, 0, 'K'},
        {"synth-workers", required_argument, 0, 'S'}, {"no-pin", no_argument, 0, 'P'},
        {"max-ready", required_argument, 0, 'R'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    cz_engine_config cfg;
    cz_engine_config_default(&cfg);
    if (!engine_env(&cfg)) return EXIT_USAGE;
    uint64_t jobs = 20, parts = 10, v;
    int c;
    while ((c = getopt_long(argc, argv, "j:p:d:g:t:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            if (!opt_count("--jobs", optarg, 1, 100000, &jobs)) return EXIT_USAGE;
            break;
        case 'p':
            if (!opt_count("--partitions", optarg, 1, 10000, &parts)) return EXIT_USAGE;
            break;
        case 'd': cfg.device = optarg; break;
        case 'g':
            if (!opt_count("--gpus", optarg, 1, CZ_ENGINE_MAX_DEVICES, &v)) return EXIT_USAGE;
            cfg.gpus = (int)v;
            break;
        case 'B':
            if (!parse_count(optarg, &v) || v == 0) {
                msg("--budget: '%s' is not a byte count (\"123\" or \"2^K\")", optarg);
                return EXIT_USAGE;
            }
            cfg.budget_bytes = (size_t)v;
            break;
        case 'S':
            if (!opt_count("--synth-workers", optarg, 1, 64, &v)) return EXIT_USAGE;
            cfg.synth_workers = (int)v;
            break;
        case 'R':
            if (!opt_count("--max-ready", optarg, 1, 1000, &v)) return EXIT_USAGE;
            cfg.max_ready = (int)v;
            break;
        case 'P': cfg.pin = 0; break;
        case 'K': cfg.pin_keys = 1; break;
        case 't':
            if (!set_threads_opt(optarg)) return EXIT_USAGE;
            break;
        case 'q': g_quiet = 1; break;
        case 'h': fputs(USAGE_BENCH_ENGINE, stdout); return EXIT_OK;
        default: fputs(USAGE_BENCH_ENGINE, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        msg("bench-engine needs 2 arguments: circuit.zkey witness.wtns (got %d)", argc - optind);
        fputs(USAGE_BENCH_ENGINE, stderr);
        return EXIT_USAGE;
    }
    const char *zkey_path = argv[optind], *wtns_path = argv[optind + 1];
    g_progress = !g_quiet && isatty(2);
    cz_error err;
    cz_error_clear(&err);
    cz_wtns w;
    cz_status st = cz_wtns_load(&w, wtns_path, NULL, &err);
    if (st != CZ_OK) return fail(st, &err);
    cz_engine *e = NULL;
    cz_engine_key *k = NULL;
    cz_job **js = calloc(jobs, sizeof *js);
    const cz_wtns **ws = calloc(parts, sizeof *ws);
    if (!js || !ws) {
        st = cz_error_set(&err, CZ_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    for (uint64_t i = 0; i < parts; i++) ws[i] = &w;
    if ((st = cz_engine_create(&e, &cfg, &err)) != CZ_OK) goto out;
    stage("loading the proving key");
    double t_key = cz_now();
    if ((st = cz_engine_key_add(e, zkey_path, &k, &err)) != CZ_OK) goto out;
    t_key = cz_now() - t_key;
    stage_done();
    const cz_zkey *info = cz_engine_key_info(k);
    double t0 = cz_now(), t_first = 0;
    for (uint64_t i = 0; i < jobs; i++)
        if ((st = cz_engine_submit(e, k, ws, (size_t)parts, 0, &js[i], &err)) != CZ_OK) goto out;
    cz_prove_timings sum;
    memset(&sum, 0, sizeof sum);
    size_t abc_bytes = 0;
    double h_s = 0, first_busy = 0, h2d_s = 0;
    uint64_t h2d_bytes = 0;
    for (uint64_t i = 0; i < jobs; i++) {
        (void)cz_job_wait(js[i], -1);
        if (g_progress) fprintf(stderr, "\rcuzk: job %llu/%llu done", (unsigned long long)i + 1, (unsigned long long)jobs);
        size_t n;
        const cz_partition_result *r = cz_job_results(js[i], &n);
        for (size_t q = 0; q < n; q++) {
            if (r[q].status != CZ_OK) {
                st = cz_error_set(&err, r[q].status, "job %llu partition %zu: %s", (unsigned long long)i, q,
                                  r[q].error);
                if (g_progress) fputc('\n', stderr);
                goto out;
            }
            abc_bytes += r[q].t.abc_bytes;
            h_s += r[q].t.stages.h;
            h2d_bytes += r[q].t.stages.h2d_bytes;
            h2d_s += r[q].t.stages.h2d;
        }
        if (i == 0) {
            t_first = cz_now();
            cz_engine_stats s0;
            cz_engine_stats_get(e, &s0);
            first_busy = s0.device_busy_s;
        }
    }
    if (g_progress) fputc('\n', stderr);
    double wall = cz_now() - t0;
    cz_engine_stats s;
    cz_engine_stats_get(e, &s);
    size_t rss = peak_rss_bytes();
    double proofs = (double)(jobs * parts);
    const double nd = s.ndevices > 0 ? s.ndevices : 1, ndw = nd * wall;
    printf("bench-engine: %s, %s 2^%u, %llu jobs x %llu partitions, device %s, pool %s\n", zkey_path,
           cz_curve_name(info->curve), info->log_domain, (unsigned long long)jobs, (unsigned long long)parts,
           cz_engine_device_name(e), s.pool_pinned ? "pinned" : "ordinary memory");
    printf("key: %.2f GiB, loaded in %.2f s; working set per partition (a, b, c): %.1f MiB\n",
           (double)cz_engine_key_bytes(k) / (1 << 30), t_key, (double)(3 * (size_t)info->domain_size * 32) / (1 << 20));
    printf("throughput: %.1f proofs/min overall (%.2f s)", proofs * 60 / wall, wall);
    if (jobs > 1) {
        double steady = wall - (t_first - t0);
        printf(", %.1f proofs/min after the first job", (proofs - (double)parts) * 60 / steady);
        printf("\ndevice busy: %.1f%% overall, %.1f%% after the first job%s", 100 * s.device_busy_s / ndw,
               /* (a device step running across the first job's end counts whole
                * after it: clamp) */
               fmin(100.0, 100 * (s.device_busy_s - first_busy) / (steady * nd)),
               nd > 1 ? " (mean over the devices)" : "");
    } else {
        printf("\ndevice busy: %.1f%%%s", 100 * s.device_busy_s / ndw, nd > 1 ? " (mean over the devices)" : "");
    }
    printf("\na, b, c: %.2f GB handed to the device, %.1f GB/s of H step time (transfer + NTTs)\n", abc_bytes / 1e9,
           h_s > 0 ? abc_bytes / 1e9 / h_s : 0.0);
    if (h2d_bytes)
        printf("a, b, c H2D: %.2f GB in %.3f s of copies (device events) = %.1f GB/s\n", h2d_bytes / 1e9, h2d_s,
               h2d_s > 0 ? h2d_bytes / 1e9 / h2d_s : 0.0);
    else
        printf("a, b, c H2D: none (the H step ran on the CPU)\n");
    printf("memory: peak RSS %.2f GiB; budget %.2f GiB, peak reserved %.2f GiB (key + working sets); RSS / reserved "
           "peak = %.2f\n",
           (double)rss / (1 << 30), (double)s.budget.limit / (1 << 30), (double)s.budget.peak / (1 << 30),
           s.budget.peak ? (double)rss / (double)s.budget.peak : 0.0);
    printf("pool: %llu hits, %llu misses, %llu fallbacks; key loads %llu, evictions %llu\n",
           (unsigned long long)s.pool.hits, (unsigned long long)s.pool.misses, (unsigned long long)s.pool.fallbacks,
           (unsigned long long)s.key_loads, (unsigned long long)s.key_evictions);
    if (s.ndevices > 1) {
        printf("devices: %d, %d in service, %llu partitions moved after a device error\n", s.ndevices,
               s.devices_in_service, (unsigned long long)s.retries);
        for (int d = 0; d < s.ndevices; d++) {
            printf("  %-28s busy %5.1f%% (%.2f s), %llu partitions, %llu key placements%s%s\n", s.dev[d].name,
                   100 * s.dev[d].busy_s / wall, s.dev[d].busy_s, (unsigned long long)s.dev[d].partitions,
                   (unsigned long long)s.dev[d].key_uploads, s.dev[d].in_service ? "" : "; OUT OF SERVICE: ",
                   s.dev[d].in_service ? "" : s.dev[d].error);
        }
    }
out:
    if (js)
        for (uint64_t i = 0; i < jobs; i++) cz_job_free(js[i]);
    free(js);
    free(ws);
    if (k) cz_engine_key_remove(e, k);
    cz_engine_free(e);
    cz_wtns_free(&w);
    if (st != CZ_OK) return fail(st, &err);
    return EXIT_OK;
}

/* ---- prove ---- */
static int cmd_prove(int argc, char **argv)
{
    static const struct option opts[] = {{"device", required_argument, 0, 'd'}, {"threads", required_argument, 0, 't'},
                                         {"check", required_argument, 0, 'c'},  {"proof-bin", required_argument, 0, 'b'},
                                         {"no-verify", no_argument, 0, 'N'},    {"quiet", no_argument, 0, 'q'},
                                         {"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
                                         {"repeat", required_argument, 0, 'r'}, {0, 0, 0, 0}};
    const char *device = "auto", *check = NULL, *bin = NULL;
    int no_verify = 0, c, repeat = 1;
    while ((c = getopt_long(argc, argv, "d:t:c:b:r:qvh", opts, NULL)) != -1) {
        switch (c) {
        case 'r': {
            uint64_t v;
            if (!opt_count("--repeat", optarg, 1, 1000, &v)) return EXIT_USAGE;
            repeat = (int)v;
            break;
        }
        case 'd': device = optarg; break;
        case 't':
            if (!set_threads_opt(optarg)) return EXIT_USAGE;
            break;
        case 'c': check = optarg; break;
        case 'b': bin = optarg; break;
        case 'N': no_verify = 1; break;
        case 'q': g_quiet = 1; break;
        case 'v': g_verbose = 1; break;
        case 'h': fputs(USAGE_PROVE, stdout); return EXIT_OK;
        default: fputs(USAGE_PROVE, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 4) {
        msg("prove needs 4 arguments: circuit.zkey witness.wtns proof.json public.json (got %d)", argc - optind);
        fputs(USAGE_PROVE, stderr);
        return EXIT_USAGE;
    }
    const char *zkey_path = argv[optind], *wtns_path = argv[optind + 1];
    const char *proof_path = argv[optind + 2], *public_path = argv[optind + 3];
    g_progress = !g_quiet && isatty(2);
    cz_error err;
    cz_error_clear(&err);
    cz_status st;
    double t0 = cz_now();

    cz_backend *be = NULL;
    cz_backend_opts bopts;
    memset(&bopts, 0, sizeof bopts);
    bopts.fallback = 1;
    bopts.log = &g_log;
    if ((st = cz_backend_create(&be, device, &bopts, &err)) != CZ_OK) return fail(st, &err);
    if (g_verbose) msg("device: %s", be->name);

    cz_zkey zk;
    cz_wtns w;
    stage("loading the proving key");
    if ((st = cz_zkey_load(&zk, zkey_path, NULL, &err)) != CZ_OK) {
        cz_backend_free(be);
        return fail(st, &err);
    }
    stage_done();
    double t_key = cz_now() - g_stage_t0;
    stage("loading the witness");
    if ((st = cz_wtns_load(&w, wtns_path, NULL, &err)) != CZ_OK) goto out_key;
    stage_done();
    double t_wtns = cz_now() - g_stage_t0;
    if ((st = cz_groth16_check_inputs(&zk, &w, zkey_path, wtns_path, &err)) != CZ_OK) goto out_wtns;
    if (bin && zk.curve != CZ_CURVE_BLS12_381) {
        st = cz_error_set(&err, CZ_ERR_UNSUPPORTED, "--proof-bin: the bellperson binary proof is for BLS12-381 only; %s is %s",
                          zkey_path, cz_curve_name(zk.curve));
        goto out_wtns;
    }
    if (check) {
        cz_r1cs r1;
        stage("checking the constraints");
        if ((st = cz_r1cs_load(&r1, check, 0, NULL, &err)) != CZ_OK) goto out_wtns;
        uint64_t first;
        st = cz_r1cs_check(&r1, &w, &first, &err);
        cz_r1cs_free(&r1);
        if (st != CZ_OK) goto out_wtns;
        stage_done();
    }
    cz_prove_opts po;
    memset(&po, 0, sizeof po);
    po.backend = be;
    po.skip_verify = no_verify;
    cz_prove_timings tm;
    cz_proof proof;
    cz_prove_timings *runs = NULL;
    cz_budget *budget = NULL;
    cz_bufpool *bufs = NULL;
    if (repeat > 1) {
        /* warm proofs as the engine runs them: key resident, a, b, c in
         * pinned buffers from a pool (pinned once, reused) */
        po.keep_resident = 1;
        if (be->ops->host_allocator) {
            size_t limit = cz_budget_detect(NULL, NULL) ? 0 : (size_t)1 << 62; /* undetectable: no limit */
            if (cz_budget_create(&budget, limit, 0, &err) == CZ_OK &&
                cz_bufpool_create(&bufs, budget, be->ops->host_allocator(be), NULL, &err) == CZ_OK)
                po.alloc = cz_bufpool_allocator(bufs);
            else
                cz_error_clear(&err); /* pageable buffers then */
        }
        if (!(runs = calloc((size_t)repeat, sizeof *runs))) {
            st = cz_error_set(&err, CZ_ERR_NO_MEMORY, "out of memory");
            cz_bufpool_free(bufs);
            cz_budget_free(budget);
            goto out_wtns;
        }
    }
    stage(no_verify ? "proving" : "proving and verifying");
    for (int i = 0; i < repeat; i++) {
        if ((st = cz_groth16_prove(&proof, &zk, &w, &po, &tm, &err)) != CZ_OK) break;
        if (runs) {
            runs[i] = tm;
            if (g_verbose)
                msg("proof %d/%d: synthesis %.3f, h %.3f, msm A %.3f B1 %.3f B2 %.3f C %.3f H %.3f, finalize %.3f, "
                    "verify %.3f, total %.3f s",
                    i + 1, repeat, tm.synth, tm.h, tm.msm_a, tm.msm_b1, tm.msm_b2, tm.msm_c, tm.msm_h, tm.finalize,
                    tm.verify, tm.total);
        }
    }
    cz_groth16_drop_resident(be, &zk); /* no-op unless keep_resident */
    cz_bufpool_free(bufs);
    cz_budget_free(budget);
    if (st != CZ_OK) {
        free(runs);
        goto out_wtns;
    }
    if (runs) { /* the stage times reported below: medians over the proofs after the first */
        int m = repeat - 1;
        double *col = malloc((size_t)m * sizeof *col);
        double *fields[] = {&tm.synth, &tm.h, &tm.msm_a, &tm.msm_b1, &tm.msm_b2, &tm.msm_c, &tm.msm_h,
                            &tm.finalize, &tm.verify, &tm.total};
        for (size_t f = 0; col && f < sizeof fields / sizeof *fields; f++) {
            size_t off = (size_t)((char *)fields[f] - (char *)&tm);
            for (int i = 0; i < m; i++) col[i] = *(const double *)((const char *)&runs[i + 1] + off);
            qsort(col, (size_t)m, sizeof *col, cmp_double);
            *fields[f] = m % 2 ? col[m / 2] : 0.5 * (col[m / 2 - 1] + col[m / 2]);
        }
        free(col);
        free(runs);
    }
    stage_done();

    /* outputs: every file complete or none (best effort across files: the
     * proof is written last-but-one, and a failure removes what was written) */
    stage("writing");
    if ((st = cz_public_write_json(public_path, zk.curve, (const uint8_t *)w.values + 32, zk.n_public, &err)) != CZ_OK)
        goto out_wtns_output;
    if (bin) {
        uint8_t buf[CZ_PROOF_BIN_BYTES];
        cz_bls12_381_g1_to_compressed(buf, (const cz_bls12_381_g1_affine *)proof.a);
        cz_bls12_381_g2_to_compressed(buf + 48, (const cz_bls12_381_g2_affine *)proof.b);
        cz_bls12_381_g1_to_compressed(buf + 144, (const cz_bls12_381_g1_affine *)proof.c);
        cz_atomic_file af;
        if ((st = cz_atomic_file_open(&af, bin, &err)) == CZ_OK) {
            fwrite(buf, 1, sizeof buf, af.fp);
            st = cz_atomic_file_commit(&af, &err);
        }
        if (st != CZ_OK) {
            unlink(public_path);
            goto out_wtns_output;
        }
    }
    if ((st = cz_proof_write_json(proof_path, &proof, &err)) != CZ_OK) {
        unlink(public_path);
        if (bin) unlink(bin);
        goto out_wtns_output;
    }
    stage_done();
    if (g_verbose) {
        msg("%s: %s, domain %u (2^%u), %u variables, %u public", zkey_path, cz_curve_name(zk.curve), zk.domain_size,
            zk.log_domain, zk.n_vars, zk.n_public);
        msg("time: load key %.3fs, witness %.3fs", t_key, t_wtns);
        if (repeat > 1) msg("time: medians of proofs 2..%d (warm: key resident, pinned buffers):", repeat);
        msg("time: synthesis (a,b,c) %.3fs, h (3 iNTT + 3 coset NTT) %.3fs", tm.synth, tm.h);
        msg("time: msm A %.3fs, B1 %.3fs, B2 (G2) %.3fs, C %.3fs, H %.3fs", tm.msm_a, tm.msm_b1, tm.msm_b2, tm.msm_c,
            tm.msm_h);
        msg("time: finalize %.3fs, verify %.3fs, prove total %.3fs, command %.3fs", tm.finalize, tm.verify, tm.total,
            cz_now() - t0);
    }
    cz_wtns_free(&w);
    cz_zkey_free(&zk);
    cz_backend_free(be);
    return EXIT_OK;
out_wtns_output:
    cz_wtns_free(&w);
    cz_zkey_free(&zk);
    cz_backend_free(be);
    if (g_progress) fputc('\n', stderr);
    msg("error: %s", cz_error_msg(&err));
    return st == CZ_ERR_IO ? EXIT_OUTPUT : exit_for(st);
out_wtns:
    cz_wtns_free(&w);
out_key:
    cz_zkey_free(&zk);
    cz_backend_free(be);
    if (g_progress) fputc('\n', stderr);
    return fail(st, &err);
}

/* ---- verify ---- */
static int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'q': g_quiet = 1; break;
        case 'h': fputs(USAGE_VERIFY, stdout); return EXIT_OK;
        default: fputs(USAGE_VERIFY, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 3) {
        msg("verify needs 3 arguments: verification_key.json public.json proof.json (got %d)", argc - optind);
        fputs(USAGE_VERIFY, stderr);
        return EXIT_USAGE;
    }
    cz_error err;
    cz_error_clear(&err);
    cz_vkey vk;
    cz_status st = cz_vkey_read_json(&vk, argv[optind], &err);
    if (st != CZ_OK) return fail(st, &err);
    void *pub = NULL;
    size_t npub = 0;
    cz_proof proof;
    if ((st = cz_public_read_json(&pub, &npub, vk.curve, argv[optind + 1], &err)) != CZ_OK) goto out;
    st = cz_proof_read_json(&proof, vk.curve, argv[optind + 2], &err);
    if (st == CZ_ERR_NOT_ON_CURVE || st == CZ_ERR_NOT_IN_SUBGROUP || st == CZ_ERR_RANGE) {
        /* a well-formed file whose points are not valid: an invalid proof */
        if (!g_quiet) printf("INVALID: %s\n", cz_error_msg(&err));
        st = CZ_ERR_VERIFY;
        goto out_quiet;
    }
    if (st != CZ_OK) goto out;
    if (npub != vk.n_public) {
        if (!g_quiet)
            printf("INVALID: %s holds %zu public signals, the key expects %u\n", argv[optind + 1], npub, vk.n_public);
        st = CZ_ERR_VERIFY;
        goto out_quiet;
    }
    st = cz_groth16_verify(&vk, pub, npub, &proof, &err);
    if (st == CZ_OK) {
        if (!g_quiet) printf("OK\n");
    } else if (st == CZ_ERR_VERIFY || st == CZ_ERR_NOT_IN_SUBGROUP) {
        if (!g_quiet) printf("INVALID: %s\n", cz_error_msg(&err));
        st = CZ_ERR_VERIFY;
    } else {
        goto out;
    }
out_quiet:
    free(pub);
    cz_vkey_free(&vk);
    return exit_for(st);
out:
    free(pub);
    cz_vkey_free(&vk);
    return fail(st, &err);
}

/* ---- export-vkey ---- */
static int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'q': g_quiet = 1; break;
        case 'h': fputs(USAGE_EXPORT, stdout); return EXIT_OK;
        default: fputs(USAGE_EXPORT, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        msg("export-vkey needs 2 arguments: circuit.zkey verification_key.json (got %d)", argc - optind);
        fputs(USAGE_EXPORT, stderr);
        return EXIT_USAGE;
    }
    g_progress = !g_quiet && isatty(2);
    cz_error err;
    cz_error_clear(&err);
    cz_zkey zk;
    cz_zkey_opts zo;
    memset(&zo, 0, sizeof zo);
    zo.header_only = 1;
    stage("reading the key");
    cz_status st = cz_zkey_load(&zk, argv[optind], &zo, &err);
    if (st != CZ_OK) return fail(st, &err);
    stage_done();
    cz_vkey vk;
    if ((st = cz_vkey_from_zkey(&vk, &zk)) != CZ_OK) {
        cz_zkey_free(&zk);
        return fail(st, &err);
    }
    cz_zkey_free(&zk);
    uint64_t ab[72];
    stage("computing e(alpha, beta)");
    if ((st = cz_groth16_alphabeta(ab, &vk)) != CZ_OK) {
        cz_vkey_free(&vk);
        cz_error_set(&err, st, "pairing failed");
        return fail(st, &err);
    }
    stage_done();
    st = cz_vkey_write_json(argv[optind + 1], &vk, ab, &err);
    cz_vkey_free(&vk);
    if (st != CZ_OK) {
        msg("error: %s", cz_error_msg(&err));
        return st == CZ_ERR_IO ? EXIT_OUTPUT : exit_for(st);
    }
    return EXIT_OK;
}

/* ---- info ---- */
static int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(USAGE_INFO, stdout); return EXIT_OK;
        default: fputs(USAGE_INFO, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        msg("info needs 1 argument: a .zkey, .r1cs or .wtns file (got %d)", argc - optind);
        fputs(USAGE_INFO, stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    cz_error err;
    cz_error_clear(&err);
    FILE *f = fopen(path, "rb");
    if (!f) {
        cz_error_set(&err, CZ_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return fail(CZ_ERR_IO, &err);
    }
    char magic[4] = {0};
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    struct stat sb;
    char hb[32];
    human_bytes(hb, sizeof hb, stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0);
    cz_status st;
    if (got == 4 && memcmp(magic, "zkey", 4) == 0) {
        cz_zkey zk;
        if ((st = cz_zkey_load(&zk, path, NULL, &err)) != CZ_OK) return fail(st, &err);
        /* constraint rows with an A or B term, public-input rows excluded */
        uint32_t used = 0;
        for (uint32_t i = 0; i < zk.domain_size; i++)
            if (zk.A.row_ptr[i + 1] > zk.A.row_ptr[i] || zk.B.row_ptr[i + 1] > zk.B.row_ptr[i]) used = i + 1;
        char kb[32];
        human_bytes(kb, sizeof kb, zk.bytes);
        printf("file:            %s (%s)\n", path, hb);
        printf("kind:            snarkjs Groth16 proving key (zkey v1)\n");
        printf("curve:           %s (snarkjs: %s)\n", cz_curve_name(zk.curve), cz_curve_snarkjs_name(zk.curve));
        printf("variables:       %u (wire 0 = 1, %u public, %u private)\n", zk.n_vars, zk.n_public,
               zk.n_vars - zk.n_public - 1);
        printf("public inputs:   %u\n", zk.n_public);
        printf("constraints:     <= %u (rows with A/B terms, before the %u public-input rows)\n",
               used > zk.n_public + 1 ? used - zk.n_public - 1 : 0, zk.n_public + 1);
        printf("domain size:     %u (2^%u)\n", zk.domain_size, zk.log_domain);
        printf("coefficients:    %" PRIu64 " (A %" PRIu64 ", B %" PRIu64 ")\n", zk.n_coef, zk.A.nnz, zk.B.nnz);
        printf("points:          A %u, B1 %u, B2 %u (G2), C %u, H %u, IC %u\n", zk.n_vars, zk.n_vars, zk.n_vars,
               zk.n_vars - zk.n_public - 1, zk.domain_size, zk.n_public + 1);
        printf("memory loaded:   %s\n", kb);
        printf("prover working set: %zu bytes for a, b, c\n", cz_abc_bytes(zk.domain_size));
        cz_zkey_free(&zk);
        return EXIT_OK;
    }
    if (got == 4 && memcmp(magic, "r1cs", 4) == 0) {
        cz_r1cs r;
        if ((st = cz_r1cs_load(&r, path, 0, NULL, &err)) != CZ_OK) return fail(st, &err);
        uint32_t npub = r.n_pub_out + r.n_pub_in;
        uint32_t k = 0;
        while (((uint64_t)1 << k) <= (uint64_t)r.n_constraints + npub) k++;
        printf("file:            %s (%s)\n", path, hb);
        printf("kind:            circom constraint system (r1cs v1)\n");
        printf("curve:           %s (snarkjs: %s)\n", cz_curve_name(r.curve), cz_curve_snarkjs_name(r.curve));
        printf("constraints:     %u\n", r.n_constraints);
        printf("wires:           %u (outputs %u, public inputs %u, private inputs %u, labels %" PRIu64 ")\n", r.n_wires,
               r.n_pub_out, r.n_pub_in, r.n_prv_in, r.n_labels);
        printf("public inputs:   %u\n", npub);
        printf("non-zeros:       A %" PRIu64 ", B %" PRIu64 ", C %" PRIu64 "\n", r.A.nnz, r.B.nnz, r.C.nnz);
        printf("domain size:     2^%u (snarkjs: smallest power of two > constraints + public)\n", k);
        /* shape: distinct columns (wires) of each matrix, and the share of
         * the private wires (after ONE and the public signals) among them */
        uint8_t *seen = calloc(r.n_wires, 1);
        if (!seen) {
            cz_r1cs_free(&r);
            cz_error_set(&err, CZ_ERR_NO_MEMORY, "out of memory");
            return fail(CZ_ERR_NO_MEMORY, &err);
        }
        uint64_t nprv = (uint64_t)r.n_wires - 1 - npub;
        double rows = r.n_constraints ? (double)r.n_constraints : 1.0;
        printf("shape:           %u rows x %u columns; per row A %.2f, B %.2f, C %.2f terms\n", r.n_constraints,
               r.n_wires, (double)r.A.nnz / rows, (double)r.B.nnz / rows, (double)r.C.nnz / rows);
        const cz_csr *mats[3] = {&r.A, &r.B, &r.C};
        for (int m = 0; m < 3; m++) {
            memset(seen, 0, r.n_wires);
            for (uint64_t i = 0; i < mats[m]->nnz; i++) seen[mats[m]->col[i]] = 1;
            uint64_t cols = 0, prv = 0;
            for (uint32_t i = 0; i < r.n_wires; i++) {
                cols += seen[i];
                if (i > npub) prv += seen[i];
            }
            printf("columns of %c:    %" PRIu64 " distinct; private wires %" PRIu64 " of %" PRIu64 " (%.1f%%)\n",
                   "ABC"[m], cols, prv, nprv, nprv ? 100.0 * (double)prv / (double)nprv : 0.0);
        }
        free(seen);
        cz_r1cs_free(&r);
        return EXIT_OK;
    }
    if (got == 4 && memcmp(magic, "wtns", 4) == 0) {
        cz_wtns w;
        if ((st = cz_wtns_load(&w, path, NULL, &err)) != CZ_OK) return fail(st, &err);
        /* share of 0/1 values: the MSMs skip 0 and sum 1 cheaply */
        uint64_t zeros = 0, ones = 0;
        for (uint32_t i = 0; i < w.n; i++) {
            const uint8_t *v = (const uint8_t *)w.values + 32 * i;
            if (w.curve == CZ_CURVE_BN254) {
                zeros += cz_bn254_fr_is_zero((const cz_bn254_fr *)v);
                ones += cz_bn254_fr_is_one((const cz_bn254_fr *)v);
            } else {
                zeros += cz_bls12_381_fr_is_zero((const cz_bls12_381_fr *)v);
                ones += cz_bls12_381_fr_is_one((const cz_bls12_381_fr *)v);
            }
        }
        printf("file:            %s (%s)\n", path, hb);
        printf("kind:            witness (wtns v2)\n");
        printf("curve:           %s (snarkjs: %s)\n", cz_curve_name(w.curve), cz_curve_snarkjs_name(w.curve));
        printf("values:          %u\n", w.n);
        printf("zeros / ones:    %" PRIu64 " (%.1f%%) / %" PRIu64 " (%.1f%%)\n", zeros, 100.0 * (double)zeros / w.n,
               ones, 100.0 * (double)ones / w.n);
        cz_wtns_free(&w);
        return EXIT_OK;
    }
    cz_error_set(&err, CZ_ERR_FORMAT, "%s: not a .zkey, .r1cs or .wtns file (magic bytes '%.4s')", path,
                 got == 4 ? magic : "");
    return fail(CZ_ERR_FORMAT, &err);
}

/* ---- gen-circuit ---- */
static const char *USAGE_GEN =
    "usage: cuzk gen-circuit [options] --curve C --constraints N --profile P -o NAME\n"
    "\n"
    "Writes a satisfiable synthetic circuit NAME.r1cs and its witness NAME.wtns\n"
    "(circom/snarkjs formats, any size; files above 4 GiB are fine) for benchmarks\n"
    "and tests. The files depend only on the options, not on the thread count.\n"
    "The exact shapes are documented in circuit/gen_circuit.h.\n"
    "\n"
    "options:\n"
    "  -c, --curve C         bn254 (bn128) or bls12-381 (required)\n"
    "  -n, --constraints N   number of constraints, a count or 2^K (required)\n"
    "  -p, --profile P       (required)\n"
    "        chain     circom's mul_chain: c_i = c_{i-1} (c_{i-1} + in) + i\n"
    "        dense     random full-width witness; 1-4 random terms with random\n"
    "                  coefficients in A and in B, a new wire per constraint\n"
    "        filecoin  like a Filecoin PoRep partition: bit decompositions,\n"
    "                  booleanity, packing and products (94% of the witness 0/1,\n"
    "                  99.7% of the private wires in A, 26% in B)\n"
    "  -P, --public K        public signals (default: chain 1, dense 4, filecoin 300)\n"
    "  -s, --seed S          seed of the deterministic generator (default 1)\n"
    "  -o, --output NAME     write NAME.r1cs and NAME.wtns (required)\n"
    "  -t, --threads N       CPU threads (default: all cores)\n"
    "  -q, --quiet           no progress and no summary\n"
    "  -h, --help            this text\n";

static void gen_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    double *last = ctx;
    double now = cz_now();
    if (!g_progress || (done != 0 && done != total && now - last[0] < 0.1)) return;
    last[0] = now;
    if (!strcmp(phase, "constraints"))
        fprintf(stderr, "\r\033[K  constraints %" PRIu64 " / %" PRIu64 " (%.0f%%), %.0f/s", done, total,
                total ? 100.0 * (double)done / (double)total : 100.0,
                now > last[1] ? (double)done / (now - last[1]) : 0.0);
    else if (!strcmp(phase, "sync"))
        fprintf(stderr, "\r\033[K  syncing the .r1cs to disk ...");
    else
        fprintf(stderr, "\r\033[K  %s ...", !strcmp(phase, "witness") ? "witness" : phase);
}

static int cmd_gen_circuit(int argc, char **argv)
{
    static const struct option opts[] = {
        {"curve", required_argument, 0, 'c'},   {"constraints", required_argument, 0, 'n'},
        {"profile", required_argument, 0, 'p'}, {"public", required_argument, 0, 'P'},
        {"seed", required_argument, 0, 's'},    {"output", required_argument, 0, 'o'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    cz_gen_opts go;
    memset(&go, 0, sizeof go);
    go.n_public = CZ_GEN_PUBLIC_DEFAULT;
    go.seed = 1;
    const char *name = NULL;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "c:n:p:P:s:o:t:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if ((go.curve = cz_curve_parse(optarg)) == CZ_CURVE_NONE) {
                msg("--curve: '%s' is not bn254 (bn128) or bls12-381", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'n':
            if (!parse_count(optarg, &go.n_constraints) || go.n_constraints == 0) {
                msg("--constraints: '%s' is not a positive count (e.g. 1000000 or 2^20)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'p':
            if ((go.profile = cz_gen_profile_parse(optarg)) == CZ_GEN_NONE) {
                msg("--profile: '%s' is not chain, dense or filecoin", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'P':
            if (!parse_count(optarg, &v) || v >= CZ_GEN_PUBLIC_DEFAULT) {
                msg("--public: '%s' is not a count of public signals", optarg);
                return EXIT_USAGE;
            }
            go.n_public = (uint32_t)v;
            break;
        case 's':
            if (!parse_count(optarg, &go.seed)) {
                msg("--seed: '%s' is not an unsigned 64-bit number", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'o': name = optarg; break;
        case 't':
            if (!set_threads_opt(optarg)) return EXIT_USAGE;
            break;
        case 'q': g_quiet = 1; break;
        case 'h': fputs(USAGE_GEN, stdout); return EXIT_OK;
        default: fputs(USAGE_GEN, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 0 || !name || !go.curve || !go.profile || !go.n_constraints) {
        if (argc - optind != 0)
            msg("gen-circuit takes no arguments besides its options (got '%s')", argv[optind]);
        else
            msg("gen-circuit needs --curve, --constraints, --profile and -o NAME");
        fputs(USAGE_GEN, stderr);
        return EXIT_USAGE;
    }
    size_t nl = strlen(name);
    char *r1cs_path = malloc(nl + 6), *wtns_path = malloc(nl + 6);
    if (!r1cs_path || !wtns_path) {
        free(r1cs_path);
        free(wtns_path);
        msg("error: out of memory");
        return EXIT_RESOURCE;
    }
    snprintf(r1cs_path, nl + 6, "%s.r1cs", name);
    snprintf(wtns_path, nl + 6, "%s.wtns", name);
    g_progress = !g_quiet && isatty(2);
    double last[2] = {0, cz_now()};
    go.progress = gen_progress;
    go.progress_ctx = last;
    cz_error err;
    cz_error_clear(&err);
    cz_gen_stats st;
    cz_status s = cz_gen_circuit(&go, r1cs_path, wtns_path, &st, &err);
    if (g_progress) fputs("\r\033[K", stderr);
    if (s != CZ_OK) {
        free(r1cs_path);
        free(wtns_path);
        msg("error: %s", cz_error_msg(&err));
        return s == CZ_ERR_INVALID_ARG ? EXIT_USAGE : s == CZ_ERR_IO ? EXIT_OUTPUT : exit_for(s);
    }
    if (!g_quiet) {
        char rb[32], wb[32];
        human_bytes(rb, sizeof rb, st.r1cs_bytes);
        human_bytes(wb, sizeof wb, st.wtns_bytes);
        printf("%s: %s %s, %" PRIu64 " constraints, %" PRIu64 " wires (%u public: %u outputs, %u inputs; %u private "
               "inputs), nnz A %" PRIu64 " B %" PRIu64 " C %" PRIu64 ", %s\n",
               r1cs_path, cz_gen_profile_name(go.profile), cz_curve_name(go.curve), st.n_constraints, st.n_wires,
               st.n_pub_out + st.n_pub_in, st.n_pub_out, st.n_pub_in, st.n_prv_in, st.nnz[0], st.nnz[1], st.nnz[2],
               rb);
        printf("%s: %" PRIu64 " values, %.1f%% of them 0 or 1, %s\n", wtns_path, st.n_wires, 100.0 * st.share01, wb);
        printf("private wires in A %.2f%%, B %.2f%%, C %.2f%%\n",
               st.n_private ? 100.0 * (double)st.prv_cols[0] / (double)st.n_private : 0.0,
               st.n_private ? 100.0 * (double)st.prv_cols[1] / (double)st.n_private : 0.0,
               st.n_private ? 100.0 * (double)st.prv_cols[2] / (double)st.n_private : 0.0);
        printf("time: %.2fs (%.0f constraints/s; witness file %.2fs), %d threads\n", st.seconds,
               st.seconds > 0 ? (double)st.n_constraints / st.seconds : 0.0, st.seconds_witness, cz_get_threads());
    }
    free(r1cs_path);
    free(wtns_path);
    return EXIT_OK;
}

/* ---- setup ---- */
static const char *USAGE_SETUP =
    "usage: cuzk setup --insecure-dev [options] circuit.r1cs out.zkey\n"
    "\n"
    "Writes a Groth16 proving key for a circom .r1cs in snarkjs's .zkey format\n"
    "(snarkjs groth16 prove / zkey export verificationkey accept it) from a\n"
    "single-party setup, without a powers-of-tau file.\n"
    "\n"
    "FOR DEVELOPMENT AND TESTING ONLY: whoever runs it, or knows the seed, knows\n"
    "the toxic waste and can forge proofs. The key says so in its section 10\n"
    "(contribution name \"INSECURE DEV KEY ...\"). Production keys need a\n"
    "ceremony (snarkjs powersoftau, groth16 setup, zkey contribute).\n"
    "\n"
    "options:\n"
    "      --insecure-dev    required: acknowledges that the key is insecure\n"
    "  -s, --seed S          derive the toxic waste from the 64-bit seed S: the same\n"
    "                        circuit and seed give a byte-identical key (default:\n"
    "                        the OS CSPRNG)\n"
    "  -t, --threads N       CPU threads (default: all cores)\n"
    "  -q, --quiet           no progress and no summary (the warning stays)\n"
    "  -v, --verbose         print the time of each stage\n"
    "  -h, --help            this text\n";

typedef struct {
    double last;
    const char *stage;
} setup_progress_state;

static void setup_progress(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    setup_progress_state *p = ctx;
    double now = cz_now();
    if (!g_progress) return;
    if (stage == p->stage && done != total && now - p->last < 0.1) return;
    p->last = now;
    p->stage = stage;
    if (!strcmp(stage, "sync"))
        fprintf(stderr, "\r\033[K  syncing the key to disk ...");
    else
        fprintf(stderr, "\r\033[K  %s %3.0f%%", stage, total ? 100.0 * (double)done / (double)total : 100.0);
}

static int cmd_setup(int argc, char **argv)
{
    static const struct option opts[] = {{"insecure-dev", no_argument, 0, 'I'}, {"seed", required_argument, 0, 's'},
                                         {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
                                         {"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cz_setup_opts so;
    memset(&so, 0, sizeof so);
    int insecure = 0, c;
    while ((c = getopt_long(argc, argv, "s:t:qvh", opts, NULL)) != -1) {
        switch (c) {
        case 'I': insecure = 1; break;
        case 's': {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 0);
            if (!*optarg || *end || errno || *optarg == '-') {
                msg("--seed: '%s' is not an unsigned 64-bit number", optarg);
                return EXIT_USAGE;
            }
            so.use_seed = 1;
            so.seed = v;
            break;
        }
        case 't':
            if (!set_threads_opt(optarg)) return EXIT_USAGE;
            break;
        case 'q': g_quiet = 1; break;
        case 'v': g_verbose = 1; break;
        case 'h': fputs(USAGE_SETUP, stdout); return EXIT_OK;
        default: fputs(USAGE_SETUP, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        msg("setup needs 2 arguments: circuit.r1cs out.zkey (got %d)", argc - optind);
        fputs(USAGE_SETUP, stderr);
        return EXIT_USAGE;
    }
    if (!insecure) {
        msg("setup makes single-party keys whose toxic waste is known to whoever runs it: they are for development "
            "only. Pass --insecure-dev to confirm.");
        return EXIT_USAGE;
    }
    const char *r1cs_path = argv[optind], *zkey_path = argv[optind + 1];
    g_progress = !g_quiet && isatty(2);
    if (so.use_seed)
        msg("WARNING: insecure development key: the toxic waste is known (seeded with %" PRIu64
            "): anyone who knows the seed can forge proofs. Never use this key in production. (The key's section 10 "
            "says so in its contribution name.)",
            so.seed);
    else
        msg("WARNING: insecure development key: single-party setup: this process drew the toxic waste (OS CSPRNG) "
            "and wipes it, but nobody can check that. Never use this key in production. (The key's section 10 says "
            "so in its contribution name.)");
    cz_error err;
    cz_error_clear(&err);
    double t0 = cz_now();
    cz_r1cs r;
    stage("loading the circuit");
    cz_status st = cz_r1cs_load(&r, r1cs_path, 0, NULL, &err);
    if (st != CZ_OK) {
        if (g_progress) fputc('\n', stderr);
        return fail(st, &err);
    }
    stage_done();
    double t_load = cz_now() - t0;
    setup_progress_state ps = {0, NULL};
    so.progress = setup_progress;
    so.progress_ctx = &ps;
    cz_setup_stats ss;
    st = cz_groth16_setup_dev(&r, zkey_path, &so, &ss, &err);
    cz_r1cs_free(&r);
    if (g_progress) fputs("\r\033[K", stderr);
    if (st != CZ_OK) {
        msg("error: %s", cz_error_msg(&err));
        return st == CZ_ERR_IO ? EXIT_OUTPUT : st == CZ_ERR_INVALID_ARG ? EXIT_INPUT : exit_for(st);
    }
    if (!g_quiet) {
        char fb[32], wb[32];
        human_bytes(fb, sizeof fb, ss.file_bytes);
        human_bytes(wb, sizeof wb, ss.work_bytes);
        msg("wrote %s: %s, domain 2^%u, %u variables (%u public), %" PRIu64 " coefficients, %s in %.2fs", zkey_path,
            cz_curve_name(ss.curve), ss.log_domain, ss.n_vars, ss.n_public, ss.n_coef, fb, cz_now() - t0);
    }
    if (g_verbose) {
        static const char *const names[11] = {"", "", "", "IC", "coefficients", "A", "B1", "B2", "C", "H", ""};
        char wb[32];
        human_bytes(wb, sizeof wb, ss.work_bytes);
        msg("time: load r1cs %.3fs, lagrange %.3fs, evaluations %.3fs, fixed-base tables %.3fs (windows G1 %d, G2 %d)",
            t_load, ss.t_lagrange, ss.t_eval, ss.t_tables, ss.window_g1, ss.window_g2);
        for (int i = 3; i <= 9; i++) msg("time: section %d (%s) %.3fs", i, names[i], ss.t_sections[i]);
        msg("time: sync %.3fs, setup total %.3fs; working memory %s, %d threads", ss.t_sync, ss.t_total, wb,
            cz_get_threads());
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(USAGE, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || (!strcmp(cmd, "help") && argc == 2)) {
        fputs(USAGE, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("cuzk %s\n", CUZK_VERSION);
        return EXIT_OK;
    }
    static char *help_args[4];
    if (!strcmp(cmd, "help")) {
        /* help <command> == <command> --help */
        help_args[0] = argv[0];
        help_args[1] = argv[2];
        help_args[2] = (char *)"--help";
        cmd = argv[2];
        argv = help_args;
        argc = 3;
    }
    /* subcommand options are parsed from argv[1..] */
    optind = 1;
    if (!strcmp(cmd, "prove")) return cmd_prove(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify")) return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(cmd, "export-vkey")) return cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "setup")) return cmd_setup(argc - 1, argv + 1);
    if (!strcmp(cmd, "gen-circuit")) return cmd_gen_circuit(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-engine")) return cmd_bench_engine(argc - 1, argv + 1);
    msg("unknown command '%s'", cmd);
    fputs(USAGE, stderr);
    return EXIT_USAGE;
}
