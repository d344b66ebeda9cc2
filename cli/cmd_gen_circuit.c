/* cuzk gen-circuit: a satisfiable synthetic circuit and its witness. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "circuit/gen_circuit.h"
#include "util/thread.h"
#include "util/timer.h"

const char USAGE_GEN_CIRCUIT[] =
    "usage: cuzk gen-circuit [options] --curve C --constraints N --profile P -o NAME\n"
    "\n"
    "Writes a satisfiable synthetic circuit NAME.r1cs and its witness NAME.wtns\n"
    "(circom/snarkjs formats, any size; files above 4 GiB are fine) for benchmarks\n"
    "and tests. The files depend only on the options, not on the thread count.\n"
    "Both appear together or neither does (see `cuzk --help`).\n"
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
    "  -s, --seed S          seed of the deterministic generator, decimal or 2^K\n"
    "                        (default 1)\n"
    "  -o, --output NAME     write NAME.r1cs and NAME.wtns (required)\n"
    "  -t, --threads N       CPU threads (default: all cores)\n"
    "  -q, --quiet           no progress and no summary\n"
    "  -h, --help            this text\n";

static void gen_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    double *last = ctx;
    double now = cz_now();
    if (!cli_progress || (done != 0 && done != total && now - last[0] < 0.1)) return;
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

/* Options into *go and *name; -1 to go on, else the exit code. */
static int gen_parse(int argc, char **argv, cz_gen_opts *go, const char **name)
{
    static const struct option opts[] = {
        {"curve", required_argument, 0, 'c'},   {"constraints", required_argument, 0, 'n'},
        {"profile", required_argument, 0, 'p'}, {"public", required_argument, 0, 'P'},
        {"seed", required_argument, 0, 's'},    {"output", required_argument, 0, 'o'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    memset(go, 0, sizeof *go);
    go->n_public = CZ_GEN_PUBLIC_DEFAULT;
    go->seed = 1;
    *name = NULL;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "c:n:p:P:s:o:t:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if ((go->curve = cz_curve_parse(optarg)) == CZ_CURVE_NONE) {
                msg("--curve: '%s' is not bn254 (bn128) or bls12-381", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'n':
            if (!parse_count(optarg, &go->n_constraints) || go->n_constraints == 0) {
                msg("--constraints: '%s' is not a positive count (e.g. 1000000 or 2^20)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'p':
            if ((go->profile = cz_gen_profile_parse(optarg)) == CZ_GEN_NONE) {
                msg("--profile: '%s' is not chain, dense or filecoin", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'P':
            if (!parse_count(optarg, &v) || v >= CZ_GEN_PUBLIC_DEFAULT) {
                msg("--public: '%s' is not a count of public signals", optarg);
                return EXIT_USAGE;
            }
            go->n_public = (uint32_t)v;
            break;
        case 's':
            if (!opt_count("--seed", optarg, 0, UINT64_MAX, &go->seed)) return EXIT_USAGE;
            break;
        case 'o': *name = optarg; break;
        case 't':
            if (!opt_threads(optarg)) return EXIT_USAGE;
            break;
        case 'q': cli_quiet = 1; break;
        case 'h': fputs(USAGE_GEN_CIRCUIT, stdout); return EXIT_OK;
        default: fputs(USAGE_GEN_CIRCUIT, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 0 || !*name || !go->curve || !go->profile || !go->n_constraints) {
        if (argc - optind != 0)
            msg("gen-circuit takes no arguments besides its options (got '%s')", argv[optind]);
        else
            msg("gen-circuit needs --curve, --constraints, --profile and -o NAME");
        fputs(USAGE_GEN_CIRCUIT, stderr);
        return EXIT_USAGE;
    }
    return -1;
}

static void gen_summary(const cz_gen_opts *go, const cz_gen_stats *st, const char *r1cs_path, const char *wtns_path)
{
    char rb[32], wb[32];
    human_bytes(rb, sizeof rb, st->r1cs_bytes);
    human_bytes(wb, sizeof wb, st->wtns_bytes);
    printf("%s: %s %s, %" PRIu64 " constraints, %" PRIu64 " wires (%u public: %u outputs, %u inputs; %u private "
           "inputs), nnz A %" PRIu64 " B %" PRIu64 " C %" PRIu64 ", %s\n",
           r1cs_path, cz_gen_profile_name(go->profile), cz_curve_name(go->curve), st->n_constraints, st->n_wires,
           st->n_pub_out + st->n_pub_in, st->n_pub_out, st->n_pub_in, st->n_prv_in, st->nnz[0], st->nnz[1],
           st->nnz[2], rb);
    printf("%s: %" PRIu64 " values, %.1f%% of them 0 or 1, %s\n", wtns_path, st->n_wires, 100.0 * st->share01, wb);
    printf("private wires in A %.2f%%, B %.2f%%, C %.2f%%\n",
           st->n_private ? 100.0 * (double)st->prv_cols[0] / (double)st->n_private : 0.0,
           st->n_private ? 100.0 * (double)st->prv_cols[1] / (double)st->n_private : 0.0,
           st->n_private ? 100.0 * (double)st->prv_cols[2] / (double)st->n_private : 0.0);
    printf("time: %.2fs (%.0f constraints/s; witness file %.2fs), %d threads\n", st->seconds,
           st->seconds > 0 ? (double)st->n_constraints / st->seconds : 0.0, st->seconds_witness, cz_get_threads());
}

int cmd_gen_circuit(int argc, char **argv)
{
    cz_gen_opts go;
    const char *name;
    int rc = gen_parse(argc, argv, &go, &name);
    if (rc >= 0) return rc;
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
    const char *out[2] = {r1cs_path, wtns_path};
    if ((rc = cli_files(NULL, 0, out, NULL, 2)) >= 0) {
        free(r1cs_path);
        free(wtns_path);
        return rc;
    }
    cli_progress_init();
    double last[2] = {0, cz_now()};
    go.progress = gen_progress;
    go.progress_ctx = last;
    cz_error err;
    cz_error_clear(&err);
    cz_gen_stats st;
    cz_status s = cz_gen_circuit(&go, r1cs_path, wtns_path, &st, &err);
    if (cli_progress) fputs("\r\033[K", stderr);
    if (s == CZ_ERR_INVALID_ARG) {
        /* options the generator refuses (e.g. too few constraints for the
         * public signals): a bad command line */
        msg("error: %s", cz_error_msg(&err));
        rc = EXIT_USAGE;
    } else if (s != CZ_OK) {
        rc = fail_output(s, &err);
    } else {
        if (!cli_quiet) gen_summary(&go, &st, r1cs_path, wtns_path);
        rc = EXIT_OK;
    }
    free(r1cs_path);
    free(wtns_path);
    return rc;
}
