/*
 * cli/cli_native: a native circuit (circuit/native.h) in place of a witness
 * file, for `cuzk prove` and `cuzk bench-engine` (--circuit NAME --input
 * in.json [--param K=V ...] [--pce-dir DIR]).
 *
 * The input JSON is parsed once at open (errors name the file); each
 * partition then gets its own parse of it (cz_native_synth owns its input),
 * so a bench of P partitions synthesizes P independent witnesses.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cli_native_opt(cli_native *n, int opt, const char *arg)
{
    switch (opt) {
    case CLI_OPT_CIRCUIT: n->name = arg; return 1;
    case CLI_OPT_INPUT: n->input = arg; return 1;
    case CLI_OPT_PCE_DIR: n->pce_dir = arg; return 1;
    case CLI_OPT_PARAM:
        if (n->nkv == sizeof n->kv / sizeof n->kv[0]) {
            msg("too many --param options");
            return 0;
        }
        n->kv[n->nkv++] = arg;
        return 1;
    default: return 0;
    }
}

int cli_native_check(const cli_native *n)
{
    if (!n->name && (n->input || n->nkv || n->pce_dir)) {
        msg("--input, --param and --pce-dir go with --circuit NAME");
        return 0;
    }
    if (n->name && !n->input) {
        msg("--circuit %s needs --input FILE (`cuzk circuit %s --help` documents it)", n->name, n->name);
        return 0;
    }
    if (n->name && !cz_native_find(n->name)) {
        msg("unknown circuit '%s' (cuzk circuit list names them)", n->name);
        return 0;
    }
    return 1;
}

cz_status cli_native_open(cli_native *n, cz_error *err)
{
    n->c = cz_native_find(n->name);
    if (!n->c) return cz_error_set(err, CZ_ERR_INVALID_ARG, "unknown circuit '%s'", n->name);
    cz_status st = cz_native_params(n->c, n->kv, n->nkv, n->params, err);
    if (st != CZ_OK) return st;
    if ((st = cz_json_parse_file_max(&n->doc, &n->root, n->input, (size_t)64 << 20, "an input", err)) != CZ_OK)
        return st;
    /* one parse now, so that a bad input is reported before anything runs */
    void *in = NULL;
    if ((st = n->c->parse(n->root, n->params, n->input, &in, err)) != CZ_OK) return st;
    n->c->free_input(in);
    return CZ_OK;
}

cz_status cli_native_synth(cli_native *n, cz_curve curve, const char *name, cz_synth **out, cz_error *err)
{
    *out = NULL;
    if (!cz_native_supports(n->c, curve))
        return cz_error_set(err, CZ_ERR_MISMATCH, "circuit %s is not defined on %s (the key's curve)", n->c->name,
                            cz_curve_name(curve));
    void *in = NULL;
    cz_status st = n->c->parse(n->root, n->params, n->input, &in, err);
    if (st != CZ_OK) return st;
    return cz_native_synth(out, n->c, n->params, in, curve, n->pce_dir, name, err);
}

void cli_native_close(cli_native *n)
{
    if (n->doc) cz_json_free(n->doc);
    n->doc = NULL;
    n->root = NULL;
}
