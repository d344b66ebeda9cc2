#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

void cz_error_clear(cz_error *e)
{
    if (!e) return;
    e->status = CZ_OK;
    e->msg[0] = '\0';
}

cz_status cz_error_set(cz_error *e, cz_status status, const char *fmt, ...)
{
    if (!e || e->status != CZ_OK) return status;
    e->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return status;
}

const char *cz_error_msg(const cz_error *e)
{
    if (!e) return "";
    return e->msg[0] ? e->msg : cz_status_str(e->status);
}
