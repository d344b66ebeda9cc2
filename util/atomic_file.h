/*
 * Output files that appear whole or not at all.
 *
 * DESIGN: an output is written to a temporary file with a short name
 * (".cuzk-XXXXXX", so that any valid destination name works) in the
 * destination's directory, flushed and fsync'ed, then renamed over the
 * destination. An aborted or failed write removes the temporary, so a
 * failed command never leaves a partial proof behind. The file gets the mode
 * 0666 & ~umask, like any file a program creates. What is at the
 * destination decides the rest:
 *   - a symbolic link is followed to its final target (relative targets
 *     from the link's directory; the target may not exist yet): the target
 *     is replaced atomically and the link is kept;
 *   - a character or block device or a FIFO (/dev/null, /dev/full, a named
 *     pipe) is written in place, never replaced, and its errors (ENOSPC of
 *     /dev/full) fail the commit;
 *   - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name the
 *     process's descriptor N: written in place through a duplicate of it
 *     (what a shell's `>`, `>>` or `|` set up is kept);
 *   - a directory is refused (CZ_ERR_IO), and so is an existing file the
 *     process may not write (mode 0444, say: not replaced behind its
 *     owner's back, as a shell's `>` refuses it); an empty path is
 *     CZ_ERR_INVALID_ARG.
 * While a temporary exists its name is in a process-wide table that
 * cz_atomic_file_remove_temporaries() empties with async-signal-safe calls
 * only: a program's SIGINT/SIGTERM handler calls it, then dies of the
 * signal (cuzk does; the library installs no handler).
 */
#ifndef CZ_UTIL_ATOMIC_FILE_H
#define CZ_UTIL_ATOMIC_FILE_H

#include <stdio.h>

#include "util/error.h"

#define CZ_PATH_CAP 4096

typedef struct cz_atomic_file {
    FILE *fp;
    char path[CZ_PATH_CAP];     /* as given (for messages) */
    char dest[CZ_PATH_CAP];     /* the file replaced (links followed) */
    char tmp[CZ_PATH_CAP + 16]; /* the temporary; "" when written in place */
    int in_place;               /* a device, a FIFO or a descriptor: no temporary */
    int slot;                   /* the temporary's entry in the table, or -1 */
} cz_atomic_file;

cz_status cz_atomic_file_open(cz_atomic_file *af, const char *path, cz_error *err);
/* Flushes, syncs and renames (in place: flushes); on any failure removes
 * the temporary. */
cz_status cz_atomic_file_commit(cz_atomic_file *af, cz_error *err);
/* Closes; removes the temporary (never the destination). Harmless twice. */
void cz_atomic_file_abort(cz_atomic_file *af);

/* ---- what an output path designates (shared with util/outputs) ---- */

typedef enum cz_output_kind {
    CZ_OUTPUT_REPLACE, /* a regular file or none yet: replaced through a temporary */
    CZ_OUTPUT_DEVICE,  /* a device or a FIFO: written in place */
    CZ_OUTPUT_FD,      /* a descriptor of the process: written in place */
} cz_output_kind;

/* Classifies path by the rules above: *kind; dest (cap bytes): the file a
 * rename replaces (links followed) or, for a device, the path to open;
 * *fd: the descriptor for CZ_OUTPUT_FD. Errors: CZ_ERR_INVALID_ARG (empty,
 * too long), CZ_ERR_IO (a directory, read-only, a link loop, a path that
 * cannot be looked up), each naming path. */
cz_status cz_output_classify(const char *path, cz_output_kind *kind, char *dest, size_t cap, int *fd, cz_error *err);
/* 1 with *fd when path is /dev/stdout, /dev/stderr, /dev/fd/N or
 * /proc/self/fd/N; else 0. */
int cz_path_fd(const char *path, int *fd);
/* Creates an empty temporary ".cuzk-XXXXXX" (mode 0600, close-on-exec) in
 * the directory of dest and enters it in the table: its descriptor, the
 * name in tmp (cap >= strlen(dest) + 16) and the entry in *slot (-1 when the
 * table is full: then no signal handler removes it); -1 with errno set on
 * failure. Signals are blocked while it is created and entered. */
int cz_tmp_create(const char *dest, char *tmp, size_t cap, int *slot);
/* Takes a temporary out of the table (after it was renamed or removed);
 * slot -1 is a no-op. */
void cz_tmp_forget(int slot);
/* Removes every temporary in the table: unlink() and atomic loads only, for
 * a signal handler. */
void cz_atomic_file_remove_temporaries(void);

#endif
