/* cli: messages, progress lines, exit codes and option parsers shared by the
 * commands (contract in cli/cli.h). */
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend/devspec.h"
#include "util/atomic_file.h"
#include "util/outputs.h"
#include "util/rng.h"
#include "util/thread.h"
#include "util/timer.h"

int cli_quiet = 0, cli_verbose = 0, cli_progress = 0;

int exit_for(cz_status st)
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
    case CZ_ERR_RANDOM: return EXIT_RANDOM;
    case CZ_ERR_INTERNAL: return EXIT_INTERNAL;
    default: return EXIT_INPUT;
    }
}

int fail(cz_status st, const cz_error *err)
{
    msg("error: %s", cz_error_msg(err));
    return exit_for(st);
}

int fail_output(cz_status st, const cz_error *err)
{
    msg("error: %s", cz_error_msg(err));
    return st == CZ_ERR_IO ? EXIT_OUTPUT : exit_for(st);
}

void cli_progress_init(void) { cli_progress = !cli_quiet && isatty(2); }

void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuzk: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* progress line on a terminal: "\r<text>" overwritten, ended by stage_done() */
static double g_stage_t0;
static int g_stage_open; /* a stage line without its end */

void stage(const char *what)
{
    g_stage_t0 = cz_now();
    if (cli_progress) fprintf(stderr, "\r\033[K  %s ...", what);
    g_stage_open = 1;
}

double stage_done(void)
{
    double t = cz_now() - g_stage_t0;
    if (cli_progress) fprintf(stderr, " %.2fs\n", t);
    g_stage_open = 0;
    return t;
}

void stage_abort(void)
{
    if (cli_progress && g_stage_open) fputc('\n', stderr);
    g_stage_open = 0;
}

/* decimal digits only, below 2^64 */
static int parse_decimal(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s) return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

int parse_count(const char *s, uint64_t *out)
{
    uint64_t v;
    if (!strncmp(s, "2^", 2)) {
        if (!parse_decimal(s + 2, &v) || v > 63) return 0;
        *out = (uint64_t)1 << v;
        return 1;
    }
    if (!parse_decimal(s, &v)) return 0;
    *out = v;
    return 1;
}

int opt_count(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v;
    if (!parse_count(arg, &v) || v < lo || v > hi) {
        msg("%s: '%s' is not a decimal number (or 2^K) in %llu..%llu", opt, arg, (unsigned long long)lo,
            (unsigned long long)hi);
        return 0;
    }
    *out = v;
    return 1;
}

int opt_threads(const char *arg)
{
    uint64_t v;
    if (!opt_count("--threads", arg, 1, 4096, &v)) return 0;
    cz_set_threads((int)v);
    return 1;
}

void human_bytes(char *buf, size_t cap, uint64_t b)
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

size_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (size_t)ru.ru_maxrss * 1024;
}

static void stderr_log(void *ctx, cz_log_level level, const char *component, const char *line)
{
    (void)ctx;
    (void)level;
    if (cli_progress) fputs("\r\033[K", stderr);
    fprintf(stderr, "%s: %s\n", strcmp(component, "engine") == 0 ? "cuzk-engine" : "cuzk", line);
}
const cz_logger cli_log = {stderr_log, NULL, CZ_LOG_WARN};

int cli_msm_table_env(cz_backend_opts *o)
{
    const char *t = getenv("CZ_MSM_TABLE"), *w = getenv("CZ_MSM_TABLE_WINDOWS");
    cz_error e;
    cz_error_clear(&e);
    if (cz_backend_msm_table_parse(t, &o->msm_table, &e) != CZ_OK) {
        msg("CZ_MSM_TABLE='%s': %s", t, cz_error_msg(&e));
        return 0;
    }
    if (cz_backend_msm_table_windows_parse(w, &o->msm_table_windows, &e) != CZ_OK) {
        msg("CZ_MSM_TABLE_WINDOWS='%s': %s", w, cz_error_msg(&e));
        return 0;
    }
    return 1;
}

int cli_engine_env(cz_engine_config *c)
{
    if (!cli_msm_table_env(&c->backend)) return 0;
    const char *tl = getenv("CZ_ENGINE_TIMELINE");
    c->timeline = tl && *tl == '1';
    c->log = cli_log;
    if (c->timeline) c->log.level = CZ_LOG_DEBUG;
    const char *fail = getenv("CZ_ENGINE_FAIL_DEVICE");
    if (fail && *fail) {
        int d = -1;
        unsigned long long k = 0;
        char extra;
        if (sscanf(fail, "%d:%llu%c", &d, &k, &extra) != 2 || d < 0 || k == 0) {
            msg("CZ_ENGINE_FAIL_DEVICE='%s': expected DEVICE:STEP, as in 1:5", fail);
            return 0;
        }
        c->fail_device = d;
        c->fail_step = k;
    }
    return 1;
}

void cli_env(void)
{
    const char *f = getenv("CZ_RNG_FAIL");
    if (f && *f == '1') cz_rng_os_set_failing(1);
}

static void on_fatal_signal(int sig)
{
    int e = errno;
    cz_atomic_file_remove_temporaries();
    /* SA_RESETHAND made the action the default again: the signal, pending
     * until this returns, ends the process as it would have */
    raise(sig);
    errno = e;
}

void cli_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue; /* nohup, background */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        (void)sigaction(sigs[i], &sa, NULL);
    }
}

int cli_files(const char *const *in, int n_in, const char **out, const int *dash, int n_out)
{
    int dashes = 0;
    for (int i = 0; i < n_out; i++) {
        if (!out[i]) continue;
        if (!*out[i]) {
            msg("an output path is empty");
            return EXIT_USAGE;
        }
        if (strcmp(out[i], "-") != 0) continue;
        if (!dash || !dash[i]) {
            msg("'-' (standard output) is for proof.json, public.json and verification_key.json only; "
                "write ./- for a file of that name");
            return EXIT_USAGE;
        }
        if (++dashes > 1) {
            msg("'-' (standard output) is given for two outputs");
            return EXIT_USAGE;
        }
        out[i] = "/dev/stdout";
    }
    for (int i = 0; i < n_in; i++)
        if (in[i] && !*in[i]) {
            msg("an input path is empty");
            return EXIT_USAGE;
        }
    cz_error err;
    cz_error_clear(&err);
    if (cz_outputs_check(in, n_in, out, n_out, &err) != CZ_OK) {
        msg("error: %s", cz_error_msg(&err));
        return EXIT_USAGE;
    }
    return -1;
}

int cli_device(const char *spec, int gpus, int single)
{
    cz_error err;
    cz_error_clear(&err);
    if (single && spec && strchr(spec, ',')) {
        msg("--device: '%s': one device expected here (auto, cpu, cuda or cuda:N)", spec);
        return 0;
    }
    cz_devspec d;
    /* the syntax only: as if every GPU were present (presence is the backend's to report) */
    cz_status st = cz_devspec_parse(&d, spec, gpus, CZ_DEVSPEC_MAX, single ? 1 : CZ_ENGINE_MAX_DEVICES, &err);
    if (st == CZ_ERR_INVALID_ARG) {
        msg("--device: %s", cz_error_msg(&err));
        return 0;
    }
    return 1;
}
