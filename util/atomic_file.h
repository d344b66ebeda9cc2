/*
 * Output files that appear whole or not at all: written to a temporary file
 * in the destination's directory, flushed and fsync'ed, then renamed over
 * the destination. An aborted or failed write removes the temporary, so a
 * failed command never leaves a partial proof behind. The file gets the mode
 * 0666 & ~umask, like any file a program creates.
 */
#ifndef CZ_UTIL_ATOMIC_FILE_H
#define CZ_UTIL_ATOMIC_FILE_H

#include <stdio.h>

#include "util/error.h"

typedef struct cz_atomic_file {
    FILE *fp;
    char path[4096];
    char tmp[4096 + 16];
} cz_atomic_file;

cz_status cz_atomic_file_open(cz_atomic_file *af, const char *path, cz_error *err);
/* Flushes, syncs and renames; on any failure removes the temporary. */
cz_status cz_atomic_file_commit(cz_atomic_file *af, cz_error *err);
void cz_atomic_file_abort(cz_atomic_file *af);

#endif
