/*
 * util/log: the log hook of the library.
 *
 * DESIGN: library code never prints. Where something is worth telling an
 * operator (a GPU step rerun on the CPU, a device taken out of service, a
 * pool falling back to pageable memory, the engine's timeline), it calls
 * the logger its caller configured: a function, its context and the most
 * verbose level wanted. The level is checked before anything is formatted
 * (CZ_LOG), so a disabled debug line costs one comparison. A NULL logger, or
 * one without a function, is silent. The front ends (the cuzk CLI, the
 * daemon) install sinks that write lines to stderr or JSON lines.
 *
 * The sink may be called from any thread, concurrently; it must not call
 * back into the component that logs.
 */
#ifndef CZ_UTIL_LOG_H
#define CZ_UTIL_LOG_H

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cz_log_level {
    CZ_LOG_ERROR = 0, /* something failed that an operator must see */
    CZ_LOG_WARN,      /* degraded but working: a fallback, a device out of service */
    CZ_LOG_INFO,      /* lifecycle: keys loaded, jobs done */
    CZ_LOG_DEBUG,     /* per-stage timeline, details */
} cz_log_level;

/* component: the module speaking ("engine", "cuda", "pool"); msg: one line,
 * no newline. */
typedef void (*cz_log_fn)(void *ctx, cz_log_level level, const char *component, const char *msg);

typedef struct cz_logger {
    cz_log_fn fn;       /* NULL: silent */
    void *ctx;
    cz_log_level level; /* lines up to this level are passed on */
} cz_logger;

/* 1 when a line of this level would reach a sink. */
static inline int cz_log_enabled(const cz_logger *l, cz_log_level level)
{
    return l && l->fn && level <= l->level;
}

/* Formats (at most 1 KiB, truncated) and passes the line on when enabled. */
void cz_log(const cz_logger *l, cz_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define CZ_LOG(l, level, component, ...)                                                                             \
    do {                                                                                                             \
        if (cz_log_enabled((l), (level))) cz_log((l), (level), (component), __VA_ARGS__);                            \
    } while (0)

/* "error", "warn", "info", "debug" */
const char *cz_log_level_name(cz_log_level level);
/* Parses those names (any case); CZ_ERR_INVALID_ARG otherwise. */
cz_status cz_log_level_parse(const char *name, cz_log_level *out);

#ifdef __cplusplus
}
#endif

#endif
