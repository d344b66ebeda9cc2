/*
 * Error details: a status plus a human-readable message naming the file, the
 * field or offset, and what was expected.
 *
 * DESIGN: functions that parse or validate input take an optional
 * `cz_error *err` (may be NULL). On failure they fill it through
 * cz_error_set(), which returns the status so code can write
 *     return cz_error_set(err, CZ_ERR_FORMAT, "%s: section %u: ...", path, id);
 * The first error set wins until cz_error_clear(); messages are plain text,
 * one line, no trailing newline.
 */
#ifndef CZ_UTIL_ERROR_H
#define CZ_UTIL_ERROR_H

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_error {
    cz_status status;
    char msg[512];
} cz_error;

void cz_error_clear(cz_error *e);
/* Records (status, message) unless an error is already recorded; returns
 * status. e may be NULL. */
cz_status cz_error_set(cz_error *e, cz_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The message, or cz_status_str(status) when none was given. */
const char *cz_error_msg(const cz_error *e);

#ifdef __cplusplus
}
#endif

#endif
