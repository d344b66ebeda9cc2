/*
 * The outputs of one command, appearing together or not at all.
 *
 * DESIGN: cz_outputs_add() takes each destination and hands back the path
 * its writer is to write (through util/atomic_file, which replaces that path
 * atomically): for a destination that is replaced (a regular file, or none
 * yet; for a symbolic link its final target) an empty placeholder
 * ".cuzk-XXXXXX" made in the destination's directory; for a destination
 * written in place (a device, a FIFO, a descriptor such as /dev/stdout) the
 * destination itself. Once every writer has finished, cz_outputs_commit()
 * renames the placeholders over their destinations one after another, with
 * nothing else in between; cz_outputs_abort() removes the placeholders and
 * never touches a destination, so a failed command leaves every earlier file
 * as it was. Callers write the in-place outputs last (cz_outputs_in_place),
 * so that those see nothing when another output fails. Placeholders are in
 * util/atomic_file's table of temporaries (removed by a signal handler).
 *
 * cz_outputs_check() refuses an output that is the same file as an input or
 * as another output (the message names both): existing files compared by
 * device and inode, outputs that do not exist yet by the canonical path of
 * their directory plus their name (links followed as a write follows them).
 * Two names of one character device are allowed (written in place, nothing
 * is replaced: /dev/null twice), one descriptor twice is not.
 */
#ifndef CZ_UTIL_OUTPUTS_H
#define CZ_UTIL_OUTPUTS_H

#include "util/error.h"

#define CZ_OUTPUTS_MAX 8

typedef struct cz_outputs {
    int n;
    struct {
        char *given; /* the destination as given (messages) */
        char *dest;  /* the file renamed over (links followed), or the in-place path */
        char *tmp;   /* the placeholder; NULL when in place or once renamed */
        int slot;    /* its entry in the table of temporaries */
        int in_place;
    } o[CZ_OUTPUTS_MAX];
} cz_outputs;

void cz_outputs_init(cz_outputs *g);
/* Adds the output dest: *write_path (valid until commit or abort) is where
 * its writer writes. Errors: those of cz_output_classify (CZ_ERR_IO: a
 * directory, read-only, ...; CZ_ERR_INVALID_ARG: empty), CZ_ERR_IO when the
 * placeholder cannot be made, CZ_ERR_INVALID_ARG past CZ_OUTPUTS_MAX,
 * CZ_ERR_NO_MEMORY; the group is unchanged then. */
cz_status cz_outputs_add(cz_outputs *g, const char *dest, const char **write_path, cz_error *err);
/* 1 when output i (in the order added) is written in place. */
int cz_outputs_in_place(const cz_outputs *g, int i);
/* Renames every placeholder over its destination; the group is empty after
 * it. A rename that fails (CZ_ERR_IO naming the file) removes the
 * placeholders not yet renamed; those renamed before stay. */
cz_status cz_outputs_commit(cz_outputs *g, cz_error *err);
/* A writer's message names the placeholder it wrote: err's message with
 * every placeholder's name replaced by its destination as given. */
void cz_outputs_explain(const cz_outputs *g, cz_error *err);
/* Removes the placeholders (never a destination); the group is empty after
 * it. Harmless on an empty group. */
void cz_outputs_abort(cz_outputs *g);

/* CZ_OK, or CZ_ERR_INVALID_ARG when an output (outs[0..n_out)) is the same
 * file as an input (ins[0..n_in)) or as another output; NULL entries are
 * skipped. */
cz_status cz_outputs_check(const char *const *ins, int n_in, const char *const *outs, int n_out, cz_error *err);

#endif
