/*
 * cli: what the commands of the `cuzk` tool share.
 *
 * DESIGN: one file per command (cli/cmd_<name>.c: its usage text next to its
 * handler); cli/main.c holds the command table (name, synopsis, summary,
 * handler, usage) that dispatches and that `cuzk --help` and `cuzk help CMD`
 * are made from. Commands parse their options with getopt_long (main() has
 * reset optind; argv[0] is the command's name), call the library, and map
 * its status to one of the documented exit codes below. Messages go to
 * stderr prefixed "cuzk: " (msg()); progress lines only when stderr is a
 * terminal and --quiet is not given (cli_progress_init()).
 */
#ifndef CZ_CLI_CLI_H
#define CZ_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "circuit/native.h"
#include "cuzk/status.h"
#include "engine/engine.h"
#include "util/error.h"
#include "util/log.h"

#ifndef CUZK_VERSION
#define CUZK_VERSION "0.1.0"
#endif

/* exit codes (documented in `cuzk --help` and README.md) */
enum cli_exit {
    EXIT_OK = 0,
    EXIT_INVALID = 1,     /* verify: the proof is invalid */
    EXIT_USAGE = 2,       /* bad command line */
    EXIT_INPUT = 3,       /* unreadable or malformed input, inputs that do not match */
    EXIT_UNSATISFIED = 4, /* the witness does not satisfy the circuit */
    EXIT_OUTPUT = 5,      /* an output file cannot be written */
    EXIT_RESOURCE = 6,    /* out of memory, device failure */
    EXIT_RANDOM = 7,      /* no secure randomness: the OS CSPRNG refused */
    EXIT_INTERNAL = 70,
};

/* The exit code of a library status: CZ_OK 0, CZ_ERR_VERIFY 1,
 * CZ_ERR_UNSATISFIED 4, memory / device / budget 6, CZ_ERR_RANDOM 7,
 * CZ_ERR_INTERNAL 70, everything else 3 (bad input). */
int exit_for(cz_status st);
/* msg("error: <err's message>") and exit_for(st). */
int fail(cz_status st, const cz_error *err);
/* The same for a command that was writing its outputs: CZ_ERR_IO is 5 (an
 * output cannot be written) instead of 3. */
int fail_output(cz_status st, const cz_error *err);

/* set by the commands' -q / -v options */
extern int cli_quiet, cli_verbose;
/* progress lines on: set by cli_progress_init() */
extern int cli_progress;
/* Turns progress lines on when stderr is a terminal and not cli_quiet. */
void cli_progress_init(void);

/* The library's lines (util/log.h) on stderr: "cuzk-engine: ..." from the
 * engine, "cuzk: ..." from the rest; warnings and errors. */
extern const cz_logger cli_log;
/* The environment variables the CLI maps onto the engine's configuration
 * (the library reads none): CZ_ENGINE_TIMELINE=1 (the per-stage timeline,
 * debug lines on stderr), CZ_ENGINE_FAIL_DEVICE=D:K (device D fails at
 * its K-th step) and CZ_MSM_TABLE[_WINDOWS] (cli_msm_table_env, into c->backend);
 * also sets c->log to cli_log. 0 after a message when one is malformed. */
int cli_engine_env(cz_engine_config *c);
/* CZ_MSM_TABLE=auto|off|eager (the GPU MSM's tables of multiples of resident
 * bases, cz_backend_opts.msm_table; unset: auto) and
 * CZ_MSM_TABLE_WINDOWS=whole|fit|K (msm_table_windows: whole tables only,
 * the default; the largest table that fits; at most K windows) into *o; 0
 * (after a message) on another value. */
int cli_msm_table_env(cz_backend_opts *o);

/* The environment variable the CLI maps onto a library setting for every
 * command (the library reads none): CZ_RNG_FAIL=1 makes every draw from
 * the OS CSPRNG fail (cz_rng_os_set_failing), a test of the exit code 7
 * path. */
void cli_env(void);
/* SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and SIGXFSZ (those not ignored)
 * remove the temporaries of unfinished outputs
 * (cz_atomic_file_remove_temporaries), then end the process by the signal
 * as before. */
void cli_signals(void);

/* The files of a command, checked before it starts: out[0..n_out) may be
 * NULL (an output not asked for); "-" (standard output) is allowed where
 * dash[i] is 1 and is rewritten to "/dev/stdout", at most one per command;
 * an empty name, "-" elsewhere, or an output that is the same file as an
 * input or another output (cz_outputs_check) ends with a message naming
 * them: -1 to go on, else the exit code (2). */
int cli_files(const char *const *in, int n_in, const char **out, const int *dash, int n_out);
/* --device SPEC for one device (single) or for the engine's list with gpus
 * (0: all): a spec that cannot be parsed ends with a message, 0; else 1. */
int cli_device(const char *spec, int gpus, int single);

/* "cuzk: <text>\n" on stderr */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress: stage() starts a stage ("\r  <what> ..." on a terminal),
 * stage_done() ends it with its time and returns the seconds since stage(). */
void stage(const char *what);
double stage_done(void);
/* Ends the line of a stage that failed (before its error message). */
void stage_abort(void);

/* The one number syntax of every option: decimal digits only ("010" is
 * ten; no sign, no spaces, no 0x or octal), below 2^64, or "2^K" (K a
 * decimal 0..63); 1 when s is one, else 0. */
int parse_count(const char *s, uint64_t *out);
/* A number option in [lo, hi]: 1 with *out set, or 0 after a message naming
 * opt and the range. */
int opt_count(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *out);
/* -t/--threads N (1..4096) for every command: sets the default pool's size;
 * 0 after a message when arg is not such a count. */
int opt_threads(const char *arg);

/* "123 B", "1.5 KiB", ... "2.0 TiB" into buf */
void human_bytes(char *buf, size_t cap, uint64_t b);
/* The process's peak resident set size in bytes (0 when unknown). */
size_t peak_rss_bytes(void);

/* ---- a native circuit in place of a witness file (cli/cli_native.c) ---- */

/* getopt_long values of the shared options */
enum { CLI_OPT_CIRCUIT = 0x1001, CLI_OPT_INPUT, CLI_OPT_PARAM, CLI_OPT_PCE_DIR };
#define CLI_NATIVE_OPTIONS                                                                                             \
    {"circuit", required_argument, 0, CLI_OPT_CIRCUIT}, {"input", required_argument, 0, CLI_OPT_INPUT},               \
        {"param", required_argument, 0, CLI_OPT_PARAM}, {"pce-dir", required_argument, 0, CLI_OPT_PCE_DIR}
/* The usage lines of those options. */
#define CLI_NATIVE_USAGE                                                                                               \
    "      --circuit NAME    a circuit built into cuzk (`cuzk circuit list`) in place\n"                              \
    "                        of the witness file: its witness and a, b are\n"                                        \
    "                        synthesized here (witness-only + the recorded R1CS)\n"                                  \
    "      --input FILE      the circuit's input JSON (`cuzk circuit NAME --help`)\n"                                \
    "      --param K=V       a parameter of the circuit (repeatable)\n"                                              \
    "      --pce-dir DIR     keep the circuit's recorded R1CS in DIR (a file per\n"                                  \
    "                        shape, reused by later runs; default: recorded anew)\n"

typedef struct cli_native {
    const char *name, *input, *pce_dir;
    const char *kv[64];
    size_t nkv;
    const cz_native_circuit *c;
    uint64_t params[CZ_NATIVE_MAX_PARAMS];
    cz_json_doc *doc;
    cz_json *root;
} cli_native;

/* One of the CLI_OPT_* options into n: 1, or 0 after a message. */
int cli_native_opt(cli_native *n, int opt, const char *arg);
/* After the options: 1 when they agree (--input with --circuit, a known
 * name), else 0 after a message (exit 2). */
int cli_native_check(const cli_native *n);
/* The circuit, its parameters and its input (parsed once: a bad one is an
 * error here). */
cz_status cli_native_open(cli_native *n, cz_error *err);
/* A partition of the circuit on its input for a key of this curve. */
cz_status cli_native_synth(cli_native *n, cz_curve curve, const char *name, cz_synth **out, cz_error *err);
void cli_native_close(cli_native *n);

/* ---- the commands (cli/cmd_*.c): handler and usage text ---- */
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_vkey(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_gen_circuit(int argc, char **argv);
int cmd_bench_engine(int argc, char **argv);
int cmd_circuit(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);
extern const char USAGE_PROVE[], USAGE_VERIFY[], USAGE_EXPORT_VKEY[], USAGE_INFO[], USAGE_SETUP[], USAGE_GEN_CIRCUIT[],
    USAGE_BENCH_ENGINE[], USAGE_SUBMIT[], USAGE_STATUS[], USAGE_CIRCUIT[];

#endif
