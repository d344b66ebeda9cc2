/* cuzk export-vkey: the verifying key of a proving key, as snarkjs exports it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/groth16.h"
#include "io/proof.h"
#include "io/zkey.h"

const char USAGE_EXPORT_VKEY[] =
    "usage: cuzk export-vkey [options] circuit.zkey verification_key.json\n"
    "\n"
    "Writes the verifying key of a proving key in the JSON format of\n"
    "`snarkjs zkey export verificationkey` (including vk_alphabeta_12).\n"
    "verification_key.json may be '-' (standard output); the key's own file is\n"
    "refused as the output (exit 2).\n"
    "\n"
    "options:\n"
    "  -q, --quiet           no progress output\n"
    "  -h, --help            this text\n";

int cmd_export_vkey(int argc, char **argv)
{
    static const struct option opts[] = {
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'q': cli_quiet = 1; break;
        case 'h': fputs(USAGE_EXPORT_VKEY, stdout); return EXIT_OK;
        default: fputs(USAGE_EXPORT_VKEY, stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        msg("export-vkey needs 2 arguments: circuit.zkey verification_key.json (got %d)", argc - optind);
        fputs(USAGE_EXPORT_VKEY, stderr);
        return EXIT_USAGE;
    }
    const char *in[1] = {argv[optind]}, *out[1] = {argv[optind + 1]};
    const int dash[1] = {1};
    int rc = cli_files(in, 1, out, dash, 1);
    if (rc >= 0) return rc;
    cli_progress_init();
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
    st = cz_vkey_write_json(out[0], &vk, ab, &err);
    cz_vkey_free(&vk);
    if (st != CZ_OK) return fail_output(st, &err);
    return EXIT_OK;
}
