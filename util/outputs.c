/* util/outputs: the outputs of one command together or not at all (contract
 * in outputs.h). */
#include "util/outputs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"

void cz_outputs_init(cz_outputs *g)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < CZ_OUTPUTS_MAX; i++) g->o[i].slot = -1;
}

cz_status cz_outputs_add(cz_outputs *g, const char *dest, const char **write_path, cz_error *err)
{
    if (g->n == CZ_OUTPUTS_MAX)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "more than %d outputs in one group", CZ_OUTPUTS_MAX);
    char *d = malloc(CZ_PATH_CAP), *t = NULL, *given = strdup(dest ? dest : "");
    if (!d || !given) {
        free(d);
        free(given);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    cz_output_kind kind;
    int fd;
    cz_status st = cz_output_classify(dest, &kind, d, CZ_PATH_CAP, &fd, err);
    if (st != CZ_OK) {
        free(d);
        free(given);
        return st;
    }
    int slot = -1;
    if (kind == CZ_OUTPUT_REPLACE) {
        if (!(t = malloc(CZ_PATH_CAP + 16))) {
            free(d);
            free(given);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        }
        if ((fd = cz_tmp_create(d, t, CZ_PATH_CAP + 16, &slot)) < 0) {
            st = cz_error_set(err, CZ_ERR_IO, "%s: cannot create output file: %s", dest, strerror(errno));
            free(d);
            free(t);
            free(given);
            return st;
        }
        close(fd);
    }
    g->o[g->n].given = given;
    g->o[g->n].dest = d;
    g->o[g->n].tmp = t;
    g->o[g->n].slot = slot;
    g->o[g->n].in_place = kind != CZ_OUTPUT_REPLACE;
    *write_path = t ? t : d;
    g->n++;
    return CZ_OK;
}

int cz_outputs_in_place(const cz_outputs *g, int i) { return i >= 0 && i < g->n && g->o[i].in_place; }

static void drop(cz_outputs *g, int i, int remove)
{
    if (g->o[i].tmp && remove) unlink(g->o[i].tmp);
    cz_tmp_forget(g->o[i].slot);
    free(g->o[i].tmp);
    free(g->o[i].dest);
    free(g->o[i].given);
    g->o[i].tmp = g->o[i].dest = g->o[i].given = NULL;
    g->o[i].slot = -1;
}

cz_status cz_outputs_commit(cz_outputs *g, cz_error *err)
{
    cz_status st = CZ_OK;
    for (int i = 0; i < g->n; i++) {
        if (st == CZ_OK && g->o[i].tmp && rename(g->o[i].tmp, g->o[i].dest) != 0)
            st = cz_error_set(err, CZ_ERR_IO, "%s: cannot rename the finished file into place: %s", g->o[i].given,
                              strerror(errno));
        drop(g, i, st != CZ_OK);
    }
    g->n = 0;
    return st;
}

void cz_outputs_explain(const cz_outputs *g, cz_error *err)
{
    if (!err) return;
    for (int i = 0; i < g->n; i++) {
        const char *t = g->o[i].tmp;
        if (!t) continue;
        size_t tl = strlen(t);
        char *at;
        int guard = 0;
        while ((at = strstr(err->msg, t)) && guard++ < 8) {
            char rest[sizeof err->msg];
            snprintf(rest, sizeof rest, "%s", at + tl);
            snprintf(at, sizeof err->msg - (size_t)(at - err->msg), "%s%s", g->o[i].given, rest);
        }
    }
}

void cz_outputs_abort(cz_outputs *g)
{
    for (int i = 0; i < g->n; i++) drop(g, i, 1);
    g->n = 0;
}

/* ---- same file ---- */

typedef struct ident {
    int kind; /* 0: unknown (nothing to compare), 1: an existing file, 2: a name not yet taken */
    dev_t dev;
    ino_t ino;
    int chr; /* a character device */
    int fd;  /* a descriptor of the process (-1: none) */
    char name[CZ_PATH_CAP + NAME_MAX + 2];
} ident;

/* What path is: inputs as opened (stat follows every link), outputs as
 * written (util/atomic_file's rules). */
static void identify(ident *id, const char *path, int output)
{
    memset(id, 0, sizeof *id);
    id->fd = -1;
    struct stat sb;
    char dest[CZ_PATH_CAP];
    const char *p = path;
    if (output) {
        cz_output_kind kind;
        int fd;
        cz_error e;
        cz_error_clear(&e);
        if (cz_output_classify(path, &kind, dest, sizeof dest, &fd, &e) == CZ_OK) {
            p = dest;
            if (kind == CZ_OUTPUT_FD) {
                id->fd = fd;
                if (fstat(fd, &sb) == 0) {
                    id->kind = 1;
                    id->dev = sb.st_dev;
                    id->ino = sb.st_ino;
                    id->chr = S_ISCHR(sb.st_mode);
                }
                return;
            }
        }
    }
    if (stat(p, &sb) == 0) {
        id->kind = 1;
        id->dev = sb.st_dev;
        id->ino = sb.st_ino;
        id->chr = S_ISCHR(sb.st_mode);
        return;
    }
    /* not there (yet): the canonical directory and the name */
    const char *slash = strrchr(p, '/');
    char dir[CZ_PATH_CAP];
    const char *base = slash ? slash + 1 : p;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == p)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - p), p);
    char *canon = realpath(dir, NULL);
    id->kind = 2;
    if (canon)
        snprintf(id->name, sizeof id->name, "%s/%s", canon, base);
    else /* no such directory: the name as written */
        snprintf(id->name, sizeof id->name, "%s", p);
    free(canon);
}

static int same(const ident *a, const ident *b)
{
    if (a->fd >= 0 && a->fd == b->fd) return 1;
    if (a->kind != b->kind || !a->kind) return 0;
    if (a->kind == 1) return a->dev == b->dev && a->ino == b->ino && !(a->chr && b->chr);
    return !strcmp(a->name, b->name);
}

cz_status cz_outputs_check(const char *const *ins, int n_in, const char *const *outs, int n_out, cz_error *err)
{
    if (n_in < 0 || n_out < 0 || n_out > CZ_OUTPUTS_MAX)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_outputs_check: %d inputs, %d outputs", n_in, n_out);
    ident *in = calloc((size_t)n_in + 1, sizeof *in), *out = calloc((size_t)n_out + 1, sizeof *out);
    cz_status st = CZ_OK;
    if (!in || !out) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_in; i++)
        if (ins[i]) identify(&in[i], ins[i], 0);
    for (int j = 0; j < n_out && st == CZ_OK; j++) {
        if (!outs[j]) continue;
        identify(&out[j], outs[j], 1);
        for (int i = 0; i < n_in && st == CZ_OK; i++)
            if (ins[i] && same(&out[j], &in[i]))
                st = cz_error_set(err, CZ_ERR_INVALID_ARG,
                                  "the output '%s' is the same file as the input '%s': it would be replaced", outs[j],
                                  ins[i]);
        for (int k = 0; k < j && st == CZ_OK; k++)
            if (outs[k] && same(&out[j], &out[k]))
                st = cz_error_set(err, CZ_ERR_INVALID_ARG, "the outputs '%s' and '%s' are the same file", outs[k],
                                  outs[j]);
    }
done:
    free(in);
    free(out);
    return st;
}
