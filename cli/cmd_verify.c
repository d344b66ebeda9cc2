/* cuzk verify: checks a Groth16 proof in snarkjs's JSON format. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "groth16/groth16.h"
#include "io/proof.h"

const char USAGE_VERIFY[] =
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

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'q': cli_quiet = 1; break;
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
        if (!cli_quiet) printf("INVALID: %s\n", cz_error_msg(&err));
        st = CZ_ERR_VERIFY;
        goto out_quiet;
    }
    if (st != CZ_OK) goto out;
    if (npub != vk.n_public) {
        if (!cli_quiet)
            printf("INVALID: %s holds %zu public signals, the key expects %u\n", argv[optind + 1], npub, vk.n_public);
        st = CZ_ERR_VERIFY;
        goto out_quiet;
    }
    st = cz_groth16_verify(&vk, pub, npub, &proof, &err);
    if (st == CZ_OK) {
        if (!cli_quiet) printf("OK\n");
    } else if (st == CZ_ERR_VERIFY || st == CZ_ERR_NOT_IN_SUBGROUP) {
        if (!cli_quiet) printf("INVALID: %s\n", cz_error_msg(&err));
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
