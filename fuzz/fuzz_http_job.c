/* libFuzzer target: the daemon's job description parser (cz_http_parse_job,
 * the body of POST /v1/proofs) and its path confinement (cz_http_confine)
 * on arbitrary bytes. Checks what a caller relies on: a parsed description
 * has NUL-terminated fields that fit, a non-empty idempotency key when it
 * has one and exactly n_paths non-empty paths; a confined path is canonical
 * (realpath of itself) and lies strictly inside an allowed directory. The
 * allowed directory is a private temporary tree with a file, a
 * subdirectory, a symlink inside and symlinks pointing out of it. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/http.h"

static char g_root[4096], g_allow[2][4096];

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_http_job: %s\n", what);
    abort();
}

static void cleanup(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    if (g_root[0]) (void)!system(cmd);
}

static void setup(void)
{
    char tmpl[] = "/tmp/cz_fuzz_http_XXXXXX";
    if (!mkdtemp(tmpl)) fail("mkdtemp");
    char *r = realpath(tmpl, NULL);
    snprintf(g_root, sizeof g_root, "%s", r);
    free(r);
    atexit(cleanup);
    char p[4200], q[4200];
    snprintf(g_allow[0], sizeof g_allow[0], "%s/allow", g_root);
    snprintf(g_allow[1], sizeof g_allow[1], "%s/keys", g_root);
    snprintf(p, sizeof p, "%s/out", g_root);
    mkdir(g_allow[0], 0700);
    mkdir(g_allow[1], 0700);
    mkdir(p, 0700);
    const char *files[] = {"allow/a.wtns", "allow/sub/b.wtns", "keys/k.zkey", "out/secret", "allowx"};
    snprintf(p, sizeof p, "%s/allow/sub", g_root);
    mkdir(p, 0700);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_root, files[i]);
        FILE *f = fopen(p, "w");
        if (f) fclose(f);
    }
    snprintf(p, sizeof p, "%s/out/secret", g_root); /* out of the allowed directories */
    snprintf(q, sizeof q, "%s/allow/up", g_root);
    (void)!symlink(p, q);
    snprintf(p, sizeof p, "%s/out", g_root);
    snprintf(q, sizeof q, "%s/allow/updir", g_root);
    (void)!symlink(p, q);
    snprintf(p, sizeof p, "%s/allow/a.wtns", g_root); /* inside */
    snprintf(q, sizeof q, "%s/keys/in", g_root);
    (void)!symlink(p, q);
}

static int inside(const char *canon)
{
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(g_allow[i]);
        if (!strncmp(canon, g_allow[i], n) && canon[n] == '/' && canon[n + 1]) return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_root[0]) setup();
    /* the job description */
    cz_http_job_desc d;
    cz_error err;
    cz_error_clear(&err);
    if (cz_http_parse_job((const char *)data, size, &d, &err) == CZ_OK) {
        if (memchr(d.key, '\0', sizeof d.key) == NULL || memchr(d.priority, '\0', sizeof d.priority) == NULL ||
            memchr(d.idem, '\0', sizeof d.idem) == NULL)
            fail("a field is not NUL-terminated");
        if (d.has_idem && !d.idem[0]) fail("an empty idempotency key was accepted");
        if (!d.has_idem && d.idem[0]) fail("an idempotency key without has_idem");
        if (d.n_paths && !d.paths) fail("n_paths without paths");
        for (size_t i = 0; i < d.n_paths; i++)
            if (!d.paths[i][0] || !memchr(d.paths[i], '\0', sizeof d.paths[i])) fail("a bad path entry");
        cz_http_job_desc_free(&d);
        if (d.paths || d.n_paths) fail("job_desc_free left paths");
    } else if (!cz_error_msg(&err)[0]) {
        fail("a refusal without a message");
    }
    /* the confinement: the bytes as a path, absolute or under the tree */
    if (size > 3000) return 0;
    char path[4200], out[4096];
    size_t o = 0;
    if (size && (data[0] & 1)) o = (size_t)snprintf(path, sizeof path, "%s/", (data[0] & 2) ? g_allow[0] : g_root);
    memcpy(path + o, data + (o ? 1 : 0), size - (o ? 1 : 0));
    path[o + size - (o ? 1 : 0)] = '\0';
    char (*allow)[4096] = g_allow;
    cz_error_clear(&err);
    if (cz_http_confine(path, allow, 2, out, sizeof out, &err) == CZ_OK) {
        if (!inside(out)) fail("a confined path outside the allowed directories");
        char *r = realpath(out, NULL);
        if (!r || strcmp(r, out)) fail("a confined path that is not canonical");
        free(r);
        if (path[0] != '/') fail("a relative path was accepted");
    }
    return 0;
}
