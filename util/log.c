/* util/log: the log hook (contract in log.h). */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

void cz_log(const cz_logger *l, cz_log_level level, const char *component, const char *fmt, ...)
{
    if (!cz_log_enabled(l, level)) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    l->fn(l->ctx, level, component ? component : "cuzk", line);
}

static const char *const level_names[] = {"error", "warn", "info", "debug"};

const char *cz_log_level_name(cz_log_level level)
{
    return (unsigned)level < sizeof level_names / sizeof level_names[0] ? level_names[level] : "unknown";
}

cz_status cz_log_level_parse(const char *name, cz_log_level *out)
{
    if (!name) return CZ_ERR_INVALID_ARG;
    for (unsigned i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
        if (!strcasecmp(name, level_names[i])) {
            *out = (cz_log_level)i;
            return CZ_OK;
        }
    if (!strcasecmp(name, "warning")) {
        *out = CZ_LOG_WARN;
        return CZ_OK;
    }
    return CZ_ERR_INVALID_ARG;
}
