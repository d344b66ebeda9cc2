/* cuzk setup --insecure-dev: a development proving key from known toxic waste. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/setup.h"
#include "io/r1cs.h"
#include "util/thread.h"
#include "util/timer.h"

const char USAGE_SETUP[] =
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
    "  -s, --seed S          derive the toxic waste from the 64-bit seed S (decimal\n"
    "                        or 2^K): the same circuit and seed give a\n"
    "                        byte-identical key (default: the OS CSPRNG; if it\n"
    "                        refuses, exit code 7 and no key)\n"
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
    if (!cli_progress) return;
    if (stage == p->stage && done != total && now - p->last < 0.1) return;
    p->last = now;
    p->stage = stage;
    if (!strcmp(stage, "sync"))
        fprintf(stderr, "\r\033[K  syncing the key to disk ...");
    else
        fprintf(stderr, "\r\033[K  %s %3.0f%%", stage, total ? 100.0 * (double)done / (double)total : 100.0);
}

/* Options into *so; -1 to go on, else the exit code. */
static int setup_parse(int argc, char **argv, cz_setup_opts *so)
{
    static const struct option opts[] = {{"insecure-dev", no_argument, 0, 'I'}, {"seed", required_argument, 0, 's'},
                                         {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
                                         {"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    memset(so, 0, sizeof *so);
    int insecure = 0, c;
    while ((c = getopt_long(argc, argv, "s:t:qvh", opts, NULL)) != -1) {
        switch (c) {
        case 'I': insecure = 1; break;
        case 's':
            if (!opt_count("--seed", optarg, 0, UINT64_MAX, &so->seed)) return EXIT_USAGE;
            so->use_seed = 1;
            break;
        case 't':
            if (!opt_threads(optarg)) return EXIT_USAGE;
            break;
        case 'q': cli_quiet = 1; break;
        case 'v': cli_verbose = 1; break;
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
    const char *in[1] = {argv[optind]}, *out[1] = {argv[optind + 1]};
    return cli_files(in, 1, out, NULL, 1);
}

static void setup_report(const char *zkey_path, const cz_setup_stats *ss, double t0, double t_load)
{
    if (!cli_quiet) {
        char fb[32];
        human_bytes(fb, sizeof fb, ss->file_bytes);
        msg("wrote %s: %s, domain 2^%u, %u variables (%u public), %" PRIu64 " coefficients, %s in %.2fs", zkey_path,
            cz_curve_name(ss->curve), ss->log_domain, ss->n_vars, ss->n_public, ss->n_coef, fb, cz_now() - t0);
    }
    if (cli_verbose) {
        static const char *const names[11] = {"", "", "", "IC", "coefficients", "A", "B1", "B2", "C", "H", ""};
        char wb[32];
        human_bytes(wb, sizeof wb, ss->work_bytes);
        msg("time: load r1cs %.3fs, lagrange %.3fs, evaluations %.3fs, fixed-base tables %.3fs (windows G1 %d, G2 %d)",
            t_load, ss->t_lagrange, ss->t_eval, ss->t_tables, ss->window_g1, ss->window_g2);
        for (int i = 3; i <= 9; i++) msg("time: section %d (%s) %.3fs", i, names[i], ss->t_sections[i]);
        msg("time: sync %.3fs, setup total %.3fs; working memory %s, %d threads", ss->t_sync, ss->t_total, wb,
            cz_get_threads());
    }
}

int cmd_setup(int argc, char **argv)
{
    cz_setup_opts so;
    int rc = setup_parse(argc, argv, &so);
    if (rc >= 0) return rc;
    const char *r1cs_path = argv[optind], *zkey_path = argv[optind + 1];
    cli_progress_init();
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
        stage_abort();
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
    if (cli_progress) fputs("\r\033[K", stderr);
    /* CZ_ERR_INVALID_ARG (a circuit setup cannot serve) is bad input (3) */
    if (st != CZ_OK) return fail_output(st, &err);
    setup_report(zkey_path, &ss, t0, t_load);
    return EXIT_OK;
}
