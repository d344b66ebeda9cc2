/* cuzk circuit: the circuits written in C, exported as .r1cs and .wtns. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/native.h"
#include "cli/cli.h"
#include "io/json.h"

const char USAGE_CIRCUIT[] =
    "usage: cuzk circuit list\n"
    "       cuzk circuit NAME [--curve C] [--param K=V ...] --input in.json -o BASE\n"
    "       cuzk circuit NAME [--curve C] [--param K=V ...] --input in.json --check\n"
    "       cuzk circuit NAME --help\n"
    "\n"
    "The circuits built into cuzk, written in C (circuit/examples/): `list` names\n"
    "them with their curves and parameters. For NAME and an input (JSON; `cuzk\n"
    "circuit NAME --help` documents it), writes BASE.r1cs and BASE.wtns in the\n"
    "circom/snarkjs formats (snarkjs r1cs info, wtns check, groth16 setup/prove\n"
    "read them; `cuzk setup --insecure-dev BASE.r1cs` makes a key for them). All\n"
    "the circuit's inputs are public inputs (nPubIn), in allocation order.\n"
    "An input the circuit does not accept (a preimage that does not hash to the\n"
    "claimed digest, a Merkle path that does not lead to the root) leaves a\n"
    "constraint unsatisfied: it is named, nothing is written, exit 4.\n"
    "\n"
    "options:\n"
    "  -c, --curve C           bn254 (bn128) or bls12-381 (default: the circuit's)\n"
    "  -p, --param K=V         a parameter of the circuit (repeatable; see list)\n"
    "  -i, --input FILE        the input JSON (required but for list)\n"
    "  -o, --output BASE       write BASE.r1cs and BASE.wtns\n"
    "      --check             evaluate every constraint, name the first that fails\n"
    "                          (exit 4) or print OK; writes nothing\n"
    "      --allow-unsatisfied write the files even when a constraint fails (so\n"
    "                          that `cuzk prove --check` can be shown to refuse)\n"
    "  -t, --threads N         CPU threads (default: all cores)\n"
    "  -q, --quiet             no summary\n"
    "  -h, --help              this text; after NAME, the circuit's input\n"
    "\n"
    "exit codes: 0 written (or --check: satisfied), 2 bad command line, 3 bad\n"
    "input JSON or parameter, 4 a constraint is not satisfied, 5 an output cannot\n"
    "be written, 6 out of memory.\n";

static void print_params(const cz_native_circuit *c, FILE *f)
{
    for (unsigned i = 0; i < c->n_params; i++)
        fprintf(f, "    --param %s=N   %s (default %" PRIu64 ", %" PRIu64 "..%" PRIu64 ")\n", c->params[i].name,
                c->params[i].help, c->params[i].def, c->params[i].lo, c->params[i].hi);
}

static void print_curves(const cz_native_circuit *c, FILE *f)
{
    int first = 1;
#define CURVE_(ID, VALUE, SYM, CONST, SHORT, NAME, ...)                                                                \
    if (cz_native_supports(c, CZ_CURVE_##ID)) {                                                                        \
        fprintf(f, "%s%s%s", first ? "" : ", ", NAME, CZ_CURVE_##ID == c->default_curve ? " (default)" : "");       \
        first = 0;                                                                                                     \
    }
    CZ_CURVE_LIST(CURVE_)
#undef CURVE_
}

static int circuit_list(void)
{
    size_t n;
    const cz_native_circuit *const *l = cz_native_list(&n);
    for (size_t i = 0; i < n; i++) {
        printf("%s\n  %s\n  curves: ", l[i]->name, l[i]->summary);
        print_curves(l[i], stdout);
        printf("\n");
        if (l[i]->n_params) printf("  parameters:\n");
        print_params(l[i], stdout);
    }
    return EXIT_OK;
}

static void circuit_help(const cz_native_circuit *c)
{
    printf("cuzk circuit %s: %s\n\ncurves: ", c->name, c->summary);
    print_curves(c, stdout);
    printf("\n\ninput JSON (--input):\n%s", c->input_help);
    if (c->n_params) {
        printf("\nparameters:\n");
        print_params(c, stdout);
    }
    printf("\nusage: cuzk circuit %s [--curve C] [--param K=V ...] --input in.json -o BASE | --check\n", c->name);
}

int cmd_circuit(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "list")) return circuit_list();
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
            fputs(USAGE_CIRCUIT, stdout);
            return EXIT_OK;
        }
        fputs(USAGE_CIRCUIT, stderr);
        return EXIT_USAGE;
    }
    const cz_native_circuit *c = cz_native_find(argv[1]);
    if (!c) {
        msg("unknown circuit '%s' (cuzk circuit list names them)", argv[1]);
        return EXIT_USAGE;
    }
    static const struct option opts[] = {
        {"curve", required_argument, 0, 'c'}, {"param", required_argument, 0, 'p'},
        {"input", required_argument, 0, 'i'}, {"output", required_argument, 0, 'o'},
        {"check", no_argument, 0, 'C'},       {"allow-unsatisfied", no_argument, 0, 'A'},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
    };
    const char *kv[64];
    size_t nkv = 0;
    const char *input = NULL, *base = NULL;
    int check = 0, allow = 0;
    cz_curve curve = c->default_curve;
    int o;
    optind = 2;
    while ((o = getopt_long(argc, argv, "c:p:i:o:t:qh", opts, NULL)) != -1) {
        switch (o) {
        case 'c':
            curve = cz_curve_parse(optarg);
            if (curve == CZ_CURVE_NONE) {
                msg("--curve %s: expected bn254 (bn128) or bls12-381", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'p':
            if (nkv == 64) {
                msg("too many --param options");
                return EXIT_USAGE;
            }
            kv[nkv++] = optarg;
            break;
        case 'i': input = optarg; break;
        case 'o': base = optarg; break;
        case 'C': check = 1; break;
        case 'A': allow = 1; break;
        case 't':
            if (!opt_threads(optarg)) return EXIT_USAGE;
            break;
        case 'q': cli_quiet = 1; break;
        case 'h': circuit_help(c); return EXIT_OK;
        default: return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        msg("unexpected argument '%s'", argv[optind]);
        return EXIT_USAGE;
    }
    if (!input || (!base && !check) || (base && check)) {
        msg("circuit %s: give --input FILE and either -o BASE or --check", c->name);
        return EXIT_USAGE;
    }
    if (!cz_native_supports(c, curve)) {
        msg("circuit %s is not defined on %s", c->name, cz_curve_name(curve));
        return EXIT_USAGE;
    }
    cz_error err = {0};
    uint64_t params[CZ_NATIVE_MAX_PARAMS];
    cz_status st = cz_native_params(c, kv, nkv, params, &err);
    if (st != CZ_OK) {
        msg("error: %s", cz_error_msg(&err));
        return EXIT_USAGE;
    }
    cz_json_doc *doc;
    cz_json *root;
    if ((st = cz_json_parse_file_max(&doc, &root, input, (size_t)64 << 20, "an input", &err)) != CZ_OK)
        return fail(st, &err);
    void *in = NULL;
    st = c->parse(root, params, input, &in, &err);
    cz_json_free(doc);
    if (st != CZ_OK) return fail(st, &err);
    if (check) {
        cz_cs *cs;
        st = cz_native_run(c, params, in, curve, CZ_CS_CHECK, 0, NULL, NULL, &cs, &err);
        if (st == CZ_OK) {
            uint64_t bad;
            st = cz_cs_check_result(cs, &bad, &err);
            if (st == CZ_OK && !cli_quiet)
                printf("OK: %" PRIu64 " constraints of %s on %s are satisfied\n", cz_cs_n_constraints(cs), c->name,
                       cz_curve_name(curve));
            cz_cs_free(cs);
        }
        c->free_input(in);
        return st == CZ_OK ? EXIT_OK : fail(st, &err);
    }
    size_t bl = strlen(base);
    char *r1cs = malloc(bl + 6), *wtns = malloc(bl + 6);
    if (!r1cs || !wtns) {
        c->free_input(in);
        return EXIT_RESOURCE;
    }
    snprintf(r1cs, bl + 6, "%s.r1cs", base);
    snprintf(wtns, bl + 6, "%s.wtns", base);
    const char *ins[1] = {input}, *outs[2] = {r1cs, wtns};
    int dash[2] = {0, 0};
    int rc = cli_files(ins, 1, outs, dash, 2);
    if (rc >= 0) {
        free(r1cs);
        free(wtns);
        c->free_input(in);
        return rc;
    }
    cz_native_export_stats s = {0};
    st = cz_native_export(c, params, in, curve, r1cs, wtns, allow, &s, &err);
    c->free_input(in);
    if (st == CZ_OK && !cli_quiet)
        fprintf(stderr, "cuzk: %s on %s: %" PRIu64 " constraints, %u public inputs, %u private wires -> %s, %s (%.2f s)\n",
                c->name, cz_curve_name(curve), s.n_constraints, s.n_inputs - 1, s.n_aux, r1cs, wtns, s.seconds);
    free(r1cs);
    free(wtns);
    return st == CZ_OK ? EXIT_OK : fail_output(st, &err);
}
