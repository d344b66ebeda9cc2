/*
 * cuzk bench-engine: a stream of jobs through the proving engine, reported
 * by engine/report.
 *
 * Only bench_run() talks to the engine (create, key, submit, wait, results,
 * stats); it hands back a cz_engine_run with copies of what it needs, so
 * the rest does not depend on the engine's API.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/devspec.h"
#include "cli/cli.h"
#include "engine/engine.h"
#include "engine/report.h"
#include "io/wtns.h"
#include "util/timer.h"

const char USAGE_BENCH_ENGINE[] =
    "usage: cuzk bench-engine [options] circuit.zkey witness.wtns\n"
    "       cuzk bench-engine [options] --circuit NAME --input in.json\n"
    "                         [--param K=V ...] circuit.zkey\n"
    "\n"
    "Runs a stream of jobs through the proving engine (engine/engine.h): each job\n"
    "has P partitions proved with the key, all with this witness (fresh blinding\n"
    "each). Jobs are submitted all at once and awaited in order. Reports proofs\n"
    "per minute over the whole run and after the first job (steady state), the\n"
    "share of the wall time the device workers were busy, the a, b bytes handed\n"
    "to the device per second of its H step and per second of their host-to-device\n"
    "copies (CUDA events), peak RSS against the memory budget\n"
    "and against key + the working sets in flight, and the pool's hits and\n"
    "misses; with several devices, each one's busy share, partitions and key\n"
    "placements. Every proof is verified by the engine; a failure ends with exit\n"
    "4 or 6. CZ_ENGINE_TIMELINE=1 prints the per-stage timeline on stderr;\n"
    "CZ_ENGINE_FAIL_DEVICE=D:K makes device D fail at its K-th step (its work\n"
    "moves to the other devices); CZ_MSM_TABLE=auto|off|eager: the GPU MSM's\n"
    "tables of multiples of the resident key (auto, the default: built for a\n"
    "section on the second MSM that would use one; off: none, to compare);\n"
    "CZ_MSM_TABLE_WINDOWS=whole|fit|K: whole tables only (the default), the\n"
    "largest table that fits in VRAM (partial where the whole one does not), or\n"
    "at most K windows.\n"
    "With --circuit, every partition is a circuit built into cuzk on that input:\n"
    "the synthesis workers compute its witness (witness-only) and a, b (the\n"
    "SpMV of its R1CS, recorded once per shape) straight into the pool's\n"
    "buffers; no witness file is read.\n"
    "\n"
    "options:\n"
    "  -j, --jobs N          jobs (default 20)\n"
    "  -p, --partitions P    partitions per job (default 10)\n"
    "  -d, --device DEV      auto (default: every GPU, else the CPU), cpu, cuda (every\n"
    "                        GPU), cuda:N or a list cuda:N,M,...; a GPU listed\n"
    "                        twice (cuda:0,0) runs two device steps at once, each\n"
    "                        with its own working set, sharing one copy of the\n"
    "                        key in VRAM (up to 4)\n"
    "  -g, --gpus N          use the first N of those devices (GPUs: each with its\n"
    "                        lanes; with cpu: N CPU backends posing as devices)\n"
    "      --lanes N         device steps at once on each GPU listed once (1 to 4,\n"
    "                        default 2; a step starts only where VRAM holds its\n"
    "                        working set next to the key)\n"
    "      --budget BYTES    memory budget (\"123\" or \"2^K\"; default: detected)\n"
    "      --synth-workers N partitions in synthesis at once (default: devices + 1,\n"
    "                        at least 2)\n"
    "      --max-ready N     synthesized partitions waiting for the device at most\n"
    "                        (default: the synthesis workers)\n"
    "      --no-pin          ordinary memory for a, b (to measure what pinning buys)\n"
    "      --pin-keys        keys in page-locked memory too (faster placement in each\n"
    "                        GPU's VRAM, slower key loading)\n"
    CLI_NATIVE_USAGE
    "  -t, --threads N       CPU threads (default: all cores)\n"
    "  -q, --quiet           only the result lines\n"
    "  -h, --help            this text\n";

typedef struct bench_cmd {
    cz_engine_config cfg;
    uint64_t jobs, parts; /* jobs, partitions per job */
    const char *zkey_path, *wtns_path;
    cli_native nat; /* --circuit */
} bench_cmd;

/* Options and arguments into b; -1 to go on, else the exit code. */
static int bench_parse(bench_cmd *b, int argc, char **argv)
{
    static const struct option opts[] = {
        {"jobs", required_argument, 0, 'j'},   {"partitions", required_argument, 0, 'p'},
        {"device", required_argument, 0, 'd'}, {"budget", required_argument, 0, 'B'},
        {"gpus", required_argument, 0, 'g'}, {"pin-keys", no_argument, 0, 'K'},
        {"synth-workers", required_argument, 0, 'S'}, {"no-pin", no_argument, 0, 'P'},
        {"max-ready", required_argument, 0, 'R'}, {"lanes", required_argument, 0, 'L'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          CLI_NATIVE_OPTIONS, {0, 0, 0, 0}};
    cz_engine_config *cfg = &b->cfg;
    cz_engine_config_default(cfg);
    if (!cli_engine_env(cfg)) return EXIT_USAGE;
    b->jobs = 20;
    b->parts = 10;
    uint64_t v;
    int c;
    while ((c = getopt_long(argc, argv, "j:p:d:g:t:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            if (!opt_count("--jobs", optarg, 1, 100000, &b->jobs)) return EXIT_USAGE;
            break;
        case 'p':
            if (!opt_count("--partitions", optarg, 1, 10000, &b->parts)) return EXIT_USAGE;
            break;
        case 'd': cfg->device = optarg; break;
        case 'g':
            if (!opt_count("--gpus", optarg, 1, CZ_ENGINE_MAX_DEVICES, &v)) return EXIT_USAGE;
            cfg->gpus = (int)v;
            break;
        case 'B':
            if (!parse_count(optarg, &v) || v == 0) {
                msg("--budget: '%s' is not a byte count (\"123\" or \"2^K\")", optarg);
                return EXIT_USAGE;
            }
            cfg->budget_bytes = (size_t)v;
            break;
        case 'S':
            if (!opt_count("--synth-workers", optarg, 1, 64, &v)) return EXIT_USAGE;
            cfg->synth_workers = (int)v;
            break;
        case 'R':
            if (!opt_count("--max-ready", optarg, 1, 1000, &v)) return EXIT_USAGE;
            cfg->max_ready = (int)v;
            break;
        case 'L':
            if (!opt_count("--lanes", optarg, 1, CZ_DEVSPEC_PER_GPU, &v)) return EXIT_USAGE;
            cfg->gpu_lanes = (int)v;
            break;
        case 'P': cfg->pin = 0; break;
        case 'K': cfg->pin_keys = 1; break;
        case 't':
            if (!opt_threads(optarg)) return EXIT_USAGE;
            break;
        case 'q': cli_quiet = 1; break;
        case 'h': fputs(USAGE_BENCH_ENGINE, stdout); return EXIT_OK;
        case CLI_OPT_CIRCUIT:
        case CLI_OPT_INPUT:
        case CLI_OPT_PARAM:
        case CLI_OPT_PCE_DIR:
            if (!cli_native_opt(&b->nat, c, optarg)) return EXIT_USAGE;
            break;
        default: fputs(USAGE_BENCH_ENGINE, stderr); return EXIT_USAGE;
        }
    }
    if (!cli_native_check(&b->nat)) return EXIT_USAGE;
    const int native = b->nat.name != NULL;
    if (argc - optind != 2 - native) {
        if (native)
            msg("bench-engine --circuit needs 1 argument: circuit.zkey (got %d)", argc - optind);
        else
            msg("bench-engine needs 2 arguments: circuit.zkey witness.wtns (got %d)", argc - optind);
        fputs(USAGE_BENCH_ENGINE, stderr);
        return EXIT_USAGE;
    }
    b->zkey_path = argv[optind];
    b->wtns_path = native ? NULL : argv[optind + 1];
    if (!cli_device(cfg->device, cfg->gpus, 0)) return EXIT_USAGE;
    return -1;
}

/* What bench_run leaves: the report's input, whose results and device name
 * are owned here (bench_result_free). */
typedef struct bench_result {
    cz_engine_run run;
    cz_partition_result *results; /* jobs x parts, job by job */
    char *device_name;
} bench_result;

static void bench_result_free(bench_result *br)
{
    free(br->results);
    free(br->device_name);
}

/* The run through the engine: create it, load the key, submit every job at
 * once (parts partitions of witness w each), wait for them in order, keep
 * the results and the stats after the first job and at the end. A failed
 * partition ends it with that partition's status. */
/* Job i of --circuit: parts native partitions on the key's curve. */
static cz_status submit_native(cz_engine *e, cz_engine_key *k, bench_cmd *b, cz_job **out, cz_error *err)
{
    cz_synth **ps = calloc(b->parts, sizeof *ps);
    if (!ps) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    cz_status st = CZ_OK;
    for (uint64_t i = 0; i < b->parts && st == CZ_OK; i++)
        st = cli_native_synth(&b->nat, cz_engine_key_info(k)->curve, NULL, &ps[i], err);
    if (st == CZ_OK) {
        cz_job_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.key = k;
        spec.parts = ps;
        spec.n = (size_t)b->parts;
        st = cz_engine_submit_job(e, &spec, out, err);
    }
    if (st != CZ_OK)
        for (uint64_t i = 0; i < b->parts; i++) cz_synth_free(ps[i]);
    free(ps);
    return st;
}

static cz_status bench_run(bench_result *br, bench_cmd *b, cz_error *err)
{
    const uint64_t jobs = b->jobs, parts = b->parts;
    cz_engine_run *run = &br->run;
    memset(br, 0, sizeof *br);
    cz_engine *e = NULL;
    cz_engine_key *k = NULL;
    cz_status st = CZ_OK;
    /* the witness every partition proves, in the engine's budget (consumer
     * witness): the process's memory is the budget's */
    cz_wtns wtns;
    memset(&wtns, 0, sizeof wtns);
    const cz_wtns *w = &wtns;
    cz_budget_alloc wa;
    cz_job **js = calloc(jobs, sizeof *js);
    const cz_wtns **ws = calloc(parts, sizeof *ws);
    br->results = calloc(jobs * parts, sizeof *br->results);
    if (!js || !ws || !br->results) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    for (uint64_t i = 0; i < parts; i++) ws[i] = w;
    if ((st = cz_engine_create(&e, &b->cfg, err)) != CZ_OK) {
        if (st == CZ_ERR_UNSUPPORTED) st = CZ_ERR_NO_DEVICE; /* a device this build cannot drive: exit 6 */
        goto out;
    }
    cz_budget_alloc_init(&wa, cz_engine_budget(e), CZ_MEM_WITNESS, NULL);
    wa.timeout_s = 0;
    if (b->nat.name) {
        if ((st = cli_native_open(&b->nat, err)) != CZ_OK) goto out;
    } else if ((st = cz_wtns_load(&wtns, b->wtns_path, &wa.a, err)) != CZ_OK) {
        if (wa.refusal.status != CZ_OK) {
            cz_error_clear(err);
            st = cz_error_set(err, wa.refusal.status, "%s does not fit the memory budget: %s", b->wtns_path,
                              cz_error_msg(&wa.refusal));
        }
        goto out;
    }
    stage("loading the proving key");
    double t_key = cz_now();
    if ((st = cz_engine_key_add(e, b->zkey_path, &k, err)) != CZ_OK) goto out;
    run->key_load_s = cz_now() - t_key;
    stage_done();
    if (b->nat.name) {
        /* the circuit's recording (or its file) before the clock starts:
         * the stream measures synthesis of a known shape */
        cz_synth *warm = NULL;
        stage("recording the circuit");
        st = cli_native_synth(&b->nat, cz_engine_key_info(k)->curve, NULL, &warm, err);
        cz_synth_free(warm);
        if (st != CZ_OK) goto out;
        stage_done();
    }
    double t0 = cz_now();
    for (uint64_t i = 0; i < jobs; i++)
        if ((st = b->nat.name ? submit_native(e, k, b, &js[i], err)
                              : cz_engine_submit(e, k, ws, (size_t)parts, 0, &js[i], err)) != CZ_OK)
            goto out;
    for (uint64_t i = 0; i < jobs; i++) {
        (void)cz_job_wait(js[i], -1);
        if (cli_progress)
            fprintf(stderr, "\rcuzk: job %llu/%llu done", (unsigned long long)i + 1, (unsigned long long)jobs);
        size_t n;
        const cz_partition_result *r = cz_job_results(js[i], &n);
        for (size_t q = 0; q < n && q < parts; q++) {
            if (r[q].status != CZ_OK) {
                st = cz_error_set(err, r[q].status, "job %llu partition %zu: %s", (unsigned long long)i, q, r[q].error);
                if (cli_progress) fputc('\n', stderr);
                goto out;
            }
            br->results[i * parts + q] = r[q];
            br->results[i * parts + q].pub = NULL; /* (the job's, freed with it) */
        }
        if (i == 0) {
            run->first_job_s = cz_now() - t0;
            cz_engine_stats_get(e, &run->first);
        }
    }
    if (cli_progress) fputc('\n', stderr);
    run->wall_s = cz_now() - t0;
    cz_engine_stats_get(e, &run->end);
    run->peak_rss = peak_rss_bytes();
    const cz_zkey *info = cz_engine_key_info(k);
    run->curve = info->curve;
    run->log_domain = info->log_domain;
    run->domain_size = info->domain_size;
    run->key_bytes = cz_engine_key_bytes(k);
    run->key_vram_need = cz_engine_key_vram_need(e, k);
    if (!(br->device_name = strdup(cz_engine_device_name(e))))
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    run->key_name = b->zkey_path;
    run->device_name = br->device_name;
    run->jobs = jobs;
    run->partitions = parts;
    run->results = br->results;
out:
    if (js)
        for (uint64_t i = 0; i < jobs; i++) cz_job_free(js[i]);
    free(js);
    free(ws);
    if (k) cz_engine_key_remove(e, k);
    cz_wtns_free(&wtns);
    cli_native_close(&b->nat);
    cz_engine_free(e);
    return st;
}

int cmd_bench_engine(int argc, char **argv)
{
    bench_cmd b;
    memset(&b, 0, sizeof b);
    int rc = bench_parse(&b, argc, argv);
    if (rc >= 0) return rc;
    cli_progress_init();
    cz_error err;
    cz_error_clear(&err);
    bench_result br;
    cz_engine_report rep;
    cz_status st;
    if ((st = bench_run(&br, &b, &err)) == CZ_OK && (st = cz_engine_report_compute(&rep, &br.run, &err)) == CZ_OK)
        cz_engine_report_print(stdout, &rep);
    bench_result_free(&br);
    if (st != CZ_OK) {
        stage_abort();
        return fail(st, &err);
    }
    return EXIT_OK;
}
