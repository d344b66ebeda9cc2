/*
 * cuzk: the command-line front end.
 *
 * DESIGN: one subcommand per job; the table below names each one with its
 * synopsis, summary, handler and usage text, and is all that main() and
 * `cuzk --help` / `cuzk help CMD` know about the commands. Each handler (in
 * cli/cmd_<name>.c) parses its options, calls the library, and maps the
 * library's status to a documented exit code (cli/cli.h). Outputs are
 * checked before the work (cli_files: none is an input or another output)
 * and written through util/outputs and util/atomic_file, so a failed or
 * interrupted command leaves no partial file and no temporary.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct cli_command {
    const char *name;
    const char *synopsis; /* the arguments, after the name in the command list */
    const char *summary;  /* what it does; lines separated by '\n', each indented under the name */
    int (*run)(int argc, char **argv);
    const char *usage; /* `cuzk CMD --help`, `cuzk help CMD` */
} cli_command;

static const cli_command COMMANDS[] = {
    {"prove", "circuit.zkey witness.wtns proof.json public.json",
     "Prove, verify the proof against the key, then write proof.json and\n"
     "public.json in snarkjs's format.",
     cmd_prove, USAGE_PROVE},
    {"verify", "verification_key.json public.json proof.json",
     "Check a Groth16 proof (snarkjs JSON); prints OK or INVALID.", cmd_verify, USAGE_VERIFY},
    {"export-vkey", "circuit.zkey verification_key.json",
     "Write the verifying key as `snarkjs zkey export verificationkey` does.", cmd_export_vkey, USAGE_EXPORT_VKEY},
    {"info", "FILE", "Describe a .zkey, .r1cs or .wtns file (curve, sizes, counts).", cmd_info, USAGE_INFO},
    {"setup", "--insecure-dev circuit.r1cs out.zkey [--seed S]",
     "Write an INSECURE development proving key (single-party setup).", cmd_setup, USAGE_SETUP},
    {"gen-circuit", "--curve C --constraints N --profile chain|dense|filecoin -o NAME",
     "Write a satisfiable synthetic circuit NAME.r1cs and witness NAME.wtns.", cmd_gen_circuit, USAGE_GEN_CIRCUIT},
    {"circuit", "list | NAME [--param K=V ...] --input in.json -o BASE",
     "The circuits written in C: list them, or write NAME's BASE.r1cs and\n"
     "BASE.wtns for an input (snarkjs formats).",
     cmd_circuit, USAGE_CIRCUIT},
    {"bench-engine", "circuit.zkey witness.wtns",
     "Run a stream of jobs through the proving engine and report\n"
     "proofs per minute, device busy share and memory.",
     cmd_bench_engine, USAGE_BENCH_ENGINE},
    {"submit", "--server URL --key KEY WITNESS... -o proof.json",
     "Prove through a cuzkd daemon; verify and write the proofs.", cmd_submit, USAGE_SUBMIT},
    {"status", "--server URL", "Print a cuzkd daemon's status: devices, memory, queue.", cmd_status, USAGE_STATUS},
};
#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(COMMANDS[i].name, name)) return &COMMANDS[i];
    return NULL;
}

static void usage(FILE *f)
{
    fputs("usage: cuzk <command> [options] [arguments]\n"
          "\n"
          "Groth16 prover for snarkjs/circom files, on BN254 (bn128) and BLS12-381.\n"
          "\n"
          "commands:\n",
          f);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        fprintf(f, "  %-7s %s\n", COMMANDS[i].name, COMMANDS[i].synopsis);
        for (const char *s = COMMANDS[i].summary; *s;) {
            const char *nl = strchr(s, '\n');
            int len = nl ? (int)(nl - s) : (int)strlen(s);
            fprintf(f, "          %.*s\n", len, s);
            s += len + (nl != NULL);
        }
    }
    fputs("  help [command], --help, --version\n"
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
          "  7   no secure randomness: the OS CSPRNG (getrandom) refused; nothing is\n"
          "      written (proofs and keys are never made from other randomness)\n"
          "  70  internal error\n"
          "\n"
          "outputs:\n"
          "  The outputs of a command appear together or not at all: each is written\n"
          "  to a temporary .cuzk-XXXXXX in its directory, and all are renamed into\n"
          "  place once every one is complete; a failure or SIGINT/SIGTERM removes\n"
          "  the temporaries and leaves every earlier file as it was. An output that\n"
          "  is an input or another output is refused (exit 2). A symbolic link is\n"
          "  followed: its target is replaced, the link kept. A read-only file or a\n"
          "  directory is not replaced (exit 5). Devices and FIFOs (/dev/null, a\n"
          "  pipe) and /dev/stdout are written in place, after the files are\n"
          "  complete; '-' is standard output for proof.json, public.json and\n"
          "  verification_key.json (one per command). Numbers in options are decimal\n"
          "  (or 2^K).\n",
          f);
}

int main(int argc, char **argv)
{
    cli_env();
    cli_signals();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || (!strcmp(name, "help") && argc == 2)) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(name, "--version")) {
        printf("cuzk %s\n", CUZK_VERSION);
        return EXIT_OK;
    }
    int help = !strcmp(name, "help"); /* help <command>: that command's usage */
    if (help) name = argv[2];
    const cli_command *cmd = find_command(name);
    if (!cmd) {
        msg("unknown command '%s'", name);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (help) {
        fputs(cmd->usage, stdout);
        return EXIT_OK;
    }
    /* the command's options are parsed from argv[1..] */
    optind = 1;
    return cmd->run(argc - 1, argv + 1);
}
