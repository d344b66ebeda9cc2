/* cli: messages, progress lines, exit codes and option parsers shared by the
 * commands (contract in cli/cli.h). */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

int parse_count(const char *s, uint64_t *out)
{
    char *end;
    if (!strncmp(s, "2^", 2)) {
        unsigned long k = strtoul(s + 2, &end, 10);
        if (end == s + 2 || *end || k > 63) return 0;
        *out = (uint64_t)1 << k;
        return 1;
    }
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno) return 0;
    *out = v;
    return 1;
}

int opt_count(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v;
    if (!parse_count(arg, &v) || v < lo || v > hi) {
        msg("%s: '%s' is not a count (%llu..%llu)", opt, arg, (unsigned long long)lo, (unsigned long long)hi);
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

int cli_engine_env(cz_engine_config *c)
{
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
