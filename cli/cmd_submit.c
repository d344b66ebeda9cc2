/*
 * cuzk submit / cuzk status: the client of the proving daemon cuzkd
 * (docs/API.md), over libcurl when the build found it.
 *
 * DESIGN: submit sends one POST /v1/proofs (the job's JSON and the witness
 * files as multipart parts, streamed from disk by libcurl; or, with
 * --by-path, the witnesses' paths on the daemon's machine), then long-polls
 * GET /v1/proofs/{id}?wait=10 until the job ends (a progress line on a
 * terminal: queued / partitions done / stages), downloads the results,
 * verifies every proof against the key's verifying key (fetched from the
 * daemon) and writes the outputs through util/atomic_file. It exits with
 * cuzk prove's codes: 0 only with verified proofs written. A request that
 * fails to reach the daemon is retried with back-off until --timeout, or
 * until the daemon has not answered for --retry-for seconds in a row (a dead
 * daemon is an error, not a day's wait; a restart takes seconds, and the
 * jobs it accepted survive it); the idempotency key, if given, makes a
 * retried submit safe.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/json.h"
#include "io/proof.h"
#include "groth16/groth16.h"
#include "util/atomic_file.h"
#include "util/outputs.h"
#include "util/timer.h"

const char USAGE_SUBMIT[] =
    "usage: cuzk submit --server URL --key KEY [options] WITNESS... -o proof.json\n"
    "\n"
    "Proves through a cuzkd daemon: uploads the witnesses (one partition each,\n"
    "in order), waits for the job, verifies every proof against the key's\n"
    "verifying key and writes the outputs (each whole or not at all). With one\n"
    "witness, proof.json and public.json are snarkjs's files; with several,\n"
    "JSON arrays of them in partition order. Exit codes as for `cuzk prove`\n"
    "(6 also when the daemon cannot be reached before --timeout, or answers\n"
    "nothing for --retry-for seconds in a row).\n"
    "\n"
    "options:\n"
    "  -s, --server URL          the daemon, e.g. http://127.0.0.1:8840 (required)\n"
    "  -k, --key KEY             a registered key id (k_...), or the key's path on\n"
    "                            the daemon's machine (under its allowed directories;\n"
    "                            registered on first use) (required)\n"
    "  -o, --output FILE         proof.json (required; '-': standard output)\n"
    "      --public FILE         public.json ('-': standard output)\n"
    "  -b, --proof-bin FILE      the bellperson binary proofs, 192 bytes per partition\n"
    "                            (BLS12-381 only)\n"
    "  -p, --priority P          critical, high, normal (default) or low\n"
    "  -i, --idempotency-key K   submitting again with K returns the same job\n"
    "      --by-path             send the witnesses' paths (on the daemon's machine,\n"
    "                            under its allowed directories) instead of uploading\n"
    "      --token-file FILE     bearer token (default: the environment variable\n"
    "                            CUZKD_TOKEN, if set)\n"
    "      --timeout S           give up after S seconds (default 86400)\n"
    "      --retry-for S         give up when the daemon has not answered for S\n"
    "                            seconds in a row (default 300; requests that fail\n"
    "                            to connect are retried until then)\n"
    "      --no-verify           do not verify the proofs here\n"
    "  -q, --quiet               no progress line\n"
    "  -h, --help                this text\n";

const char USAGE_STATUS[] =
    "usage: cuzk status --server URL [options]\n"
    "\n"
    "Prints the daemon's status: devices (in service, busy share, VRAM), memory\n"
    "budget by consumer, pinned pool, jobs by state and queue by priority.\n"
    "\n"
    "options:\n"
    "  -s, --server URL          the daemon, e.g. http://127.0.0.1:8840 (required)\n"
    "      --token-file FILE     bearer token (default: CUZKD_TOKEN)\n"
    "      --json                the raw JSON of GET /v1/status\n"
    "  -h, --help                this text\n";

#ifndef CZ_HAVE_CURL

static int no_curl(const char *cmd)
{
    msg("%s: this cuzk was built without libcurl (install libcurl4-openssl-dev and rebuild)", cmd);
    return EXIT_USAGE;
}
int cmd_submit(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(USAGE_SUBMIT, stdout);
            return EXIT_OK;
        }
    return no_curl("submit");
}
int cmd_status(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(USAGE_STATUS, stdout);
            return EXIT_OK;
        }
    return no_curl("status");
}

#else

#include <curl/curl.h>

typedef struct client {
    const char *server;
    char auth[4200]; /* "Authorization: Bearer ..." or "" */
    double deadline;
    double retry_for;  /* seconds without an answer before giving up (0: until the deadline) */
    double down_since; /* when the daemon stopped answering (0: it answers) */
} client;

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static size_t on_data(char *d, size_t sz, size_t nm, void *ctx)
{
    buf *b = ctx;
    size_t n = sz * nm;
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + n + 1) c *= 2;
        char *q = realloc(b->p, c);
        if (!q) return 0;
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
    b->p[b->n] = '\0';
    return n;
}

/* A job's upload: its JSON and the witness files, one part each. */
typedef struct upload {
    const char *job;
    char **wits;
    int nw;
} upload;

/* One request: the HTTP status (0 when the daemon could not be reached,
 * the libcurl error in err). body gets the response. An upload is built
 * into a new multipart body for each request: libcurl does not send a body
 * again from a curl_mime an earlier request read (a retry would send the
 * headers alone and wait for the daemon's connection timeout). */
static long request(client *c, const char *method, const char *path, const upload *up, const char *json, buf *body,
                    long timeout_s, cz_error *err)
{
    body->n = 0;
    if (body->p) body->p[0] = '\0';
    CURL *h = curl_easy_init();
    if (!h) {
        cz_error_set(err, CZ_ERR_NO_MEMORY, "libcurl: cannot make a handle");
        return 0;
    }
    char url[8400];
    snprintf(url, sizeof url, "%s%s", c->server, path);
    struct curl_slist *hd = NULL;
    if (c->auth[0]) hd = curl_slist_append(hd, c->auth);
    if (json) hd = curl_slist_append(hd, "Content-Type: application/json");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_mime *mime = NULL;
    if (up) {
        mime = curl_mime_init(h);
        curl_mimepart *part = curl_mime_addpart(mime);
        curl_mime_name(part, "job");
        curl_mime_data(part, up->job, CURL_ZERO_TERMINATED);
        curl_mime_type(part, "application/json");
        for (int i = 0; i < up->nw; i++) {
            part = curl_mime_addpart(mime);
            curl_mime_name(part, "witness");
            curl_mime_filedata(part, up->wits[i]);
            curl_mime_type(part, "application/octet-stream");
        }
        curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
    }
    if (json) curl_easy_setopt(h, CURLOPT_POSTFIELDS, json);
    if (strcmp(method, "GET") && strcmp(method, "POST")) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    else
        cz_error_set(err, CZ_ERR_IO, "%s: %s", url, curl_easy_strerror(rc));
    curl_slist_free_all(hd);
    curl_easy_cleanup(h);
    curl_mime_free(mime);
    return status;
}

/* the daemon's error message of a response body */
static void api_error(const buf *b, long status, char *out, size_t cap)
{
    cz_json_doc *doc = NULL;
    cz_json *root;
    const cz_json *m = NULL, *code = NULL;
    if (b->n && cz_json_parse(&doc, &root, b->p, b->n, "response", NULL) == CZ_OK) {
        const cz_json *e = cz_json_get(root, "error");
        m = cz_json_get(e, "message");
        code = cz_json_get(e, "code");
    }
    snprintf(out, cap, "HTTP %ld%s%s%s%s", status, code && code->type == CZ_JSON_STRING ? " " : "",
             code && code->type == CZ_JSON_STRING ? code->str : "", m && m->type == CZ_JSON_STRING ? ": " : "",
             m && m->type == CZ_JSON_STRING ? m->str : "");
    cz_json_free(doc);
}

/* an exit code for an HTTP error answer */
static int exit_for_http(long status)
{
    if (status == 401 || status == 403) return EXIT_USAGE;
    if (status == 422 || status == 404 || status == 409 || status == 400 || status == 413 || status == 415)
        return EXIT_INPUT;
    return EXIT_RESOURCE;
}

/* A request retried while the daemon cannot be reached or says 429/503. */
static long request_retry(client *c, const char *method, const char *path, const upload *up, const char *json,
                          buf *body, long timeout_s, cz_error *err)
{
    double wait = 0.2;
    for (;;) {
        cz_error_clear(err);
        long st = request(c, method, path, up, json, body, timeout_s, err);
        const double now = cz_now();
        if (st != 0) {
            c->down_since = 0;
        } else if (c->down_since == 0) {
            c->down_since = now;
        } else if (c->retry_for > 0 && now - c->down_since >= c->retry_for) {
            char why[512];
            snprintf(why, sizeof why, "%s", cz_error_msg(err));
            cz_error_clear(err); /* (the first error set would stay) */
            cz_error_set(err, CZ_ERR_IO, "%s: no answer for %.0f s (--retry-for): %s", c->server,
                         now - c->down_since, why);
            return 0;
        }
        if (st != 0 && st != 429 && st != 503 && st != 502) return st;
        if (now + wait > c->deadline) {
            if (st) cz_error_set(err, CZ_ERR_IO, "the daemon kept answering %ld", st);
            return st;
        }
        struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
        nanosleep(&ts, NULL);
        if (wait < 5) wait *= 2;
    }
}

static int read_token_opt(client *c, const char *file)
{
    char tok[4096] = "";
    if (file) {
        FILE *f = fopen(file, "r");
        if (!f) {
            msg("--token-file %s: cannot open it", file);
            return 0;
        }
        size_t n = fread(tok, 1, sizeof tok - 1, f);
        fclose(f);
        tok[n] = '\0';
    } else if (getenv("CUZKD_TOKEN")) {
        snprintf(tok, sizeof tok, "%s", getenv("CUZKD_TOKEN"));
    }
    size_t n = strlen(tok);
    while (n && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' ')) tok[--n] = '\0';
    if (n) snprintf(c->auth, sizeof c->auth, "Authorization: Bearer %s", tok);
    return 1;
}

static char *json_escape(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(6 * n + 3);
    if (!o) return NULL;
    size_t k = 0;
    o[k++] = '"';
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            o[k++] = '\\';
            o[k++] = (char)ch;
        } else if (ch < 0x20) {
            k += (size_t)sprintf(o + k, "\\u%04x", ch);
        } else {
            o[k++] = (char)ch;
        }
    }
    o[k++] = '"';
    o[k] = '\0';
    return o;
}

/* the job's JSON description */
static char *job_json(const char *key, const char *prio, const char *idem, char **wits, int nw, int by_path)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    char *k = json_escape(key), *p = json_escape(prio);
    fprintf(f, "{\"key\": %s, \"priority\": %s", k ? k : "\"\"", p ? p : "\"normal\"");
    free(k);
    free(p);
    if (idem) {
        char *i = json_escape(idem);
        fprintf(f, ", \"idempotency_key\": %s", i ? i : "\"\"");
        free(i);
    }
    if (by_path) {
        fputs(", \"witnesses\": [", f);
        for (int i = 0; i < nw; i++) {
            char *abs = realpath(wits[i], NULL);
            char *w = json_escape(abs ? abs : wits[i]);
            fprintf(f, "%s%s", i ? ", " : "", w ? w : "\"\"");
            free(w);
            free(abs);
        }
        fputs("]", f);
    }
    fputs("}", f);
    fclose(f);
    return out;
}

static const cz_json *field(const cz_json *o, const char *k, cz_json_type t)
{
    const cz_json *v = cz_json_get(o, k);
    return v && v->type == t ? v : NULL;
}

static int write_file(const char *path, const char *data, size_t n, cz_error *err)
{
    cz_atomic_file af;
    if (cz_atomic_file_open(&af, path, err) != CZ_OK) return 0;
    if (n && fwrite(data, 1, n, af.fp) != n) {
        cz_atomic_file_abort(&af);
        cz_error_set(err, CZ_ERR_IO, "%s: write failed", path);
        return 0;
    }
    return cz_atomic_file_commit(&af, err) == CZ_OK;
}

/* GET path into b (retrying); 1 on 200, else 0 with the error */
static int get_ok(client *c, const char *path, buf *b, cz_error *err)
{
    long st = request_retry(c, "GET", path, NULL, NULL, b, 300, err);
    if (st == 200) return 1;
    if (st) {
        char m[600];
        api_error(b, st, m, sizeof m);
        cz_error_set(err, CZ_ERR_IO, "GET %s: %s", path, m);
    }
    return 0;
}

/* A temporary file of the verification (vk, proof, public) in $TMPDIR or
 * /tmp, entered in util/atomic_file's table so that SIGINT/SIGTERM remove
 * it too (cli_signals); rewritten in place for each partition. */
typedef struct tmpf {
    char path[CZ_PATH_CAP + 16];
    int fd, slot;
} tmpf;

static int tmpf_open(tmpf *t, cz_error *err)
{
    const char *d = getenv("TMPDIR");
    char dest[CZ_PATH_CAP];
    snprintf(dest, sizeof dest, "%s/submit", d && *d ? d : "/tmp");
    t->fd = cz_tmp_create(dest, t->path, sizeof t->path, &t->slot);
    if (t->fd < 0) {
        cz_error_set(err, CZ_ERR_IO, "cannot make a temporary file in %s: %s", d && *d ? d : "/tmp", strerror(errno));
        return 0;
    }
    return 1;
}

static int tmpf_put(tmpf *t, const char *data, size_t n, cz_error *err)
{
    if (ftruncate(t->fd, 0) != 0) goto fail;
    for (size_t o = 0; o < n;) {
        ssize_t w = pwrite(t->fd, data + o, n - o, (off_t)o);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) goto fail;
        o += (size_t)w;
    }
    return 1;
fail:
    cz_error_set(err, CZ_ERR_IO, "%s: write failed: %s", t->path, strerror(errno));
    return 0;
}

static void tmpf_close(tmpf *t)
{
    if (t->fd < 0) return;
    close(t->fd);
    unlink(t->path);
    cz_tmp_forget(t->slot);
    t->fd = -1;
}

/* Verifies each partition's proof (fetched alone: ?partition=i) against
 * the key's verifying key, with cuzk verify's readers. */
static cz_status verify_results(client *c, const char *job, const char *key_id, size_t n, cz_error *err)
{
    char path[512];
    tmpf vt = {.fd = -1}, pt = {.fd = -1}, qt = {.fd = -1};
    if (!tmpf_open(&vt, err) || !tmpf_open(&pt, err) || !tmpf_open(&qt, err)) {
        tmpf_close(&vt);
        tmpf_close(&pt);
        return CZ_ERR_IO;
    }
    const char *vp = vt.path, *pp = pt.path, *qp = qt.path;
    buf b = {0};
    cz_status st = CZ_OK;
    cz_vkey vk;
    memset(&vk, 0, sizeof vk);
    snprintf(path, sizeof path, "/v1/keys/%s/verification_key.json", key_id);
    if (!get_ok(c, path, &b, err) || !tmpf_put(&vt, b.p, b.n, err)) st = CZ_ERR_IO;
    if (st == CZ_OK) st = cz_vkey_read_json(&vk, vp, err);
    for (size_t i = 0; i < n && st == CZ_OK; i++) {
        snprintf(path, sizeof path, "/v1/proofs/%s/proof.json?partition=%zu", job, i);
        if (!get_ok(c, path, &b, err) || !tmpf_put(&pt, b.p, b.n, err)) {
            st = CZ_ERR_IO;
            break;
        }
        snprintf(path, sizeof path, "/v1/proofs/%s/public.json?partition=%zu", job, i);
        if (!get_ok(c, path, &b, err) || !tmpf_put(&qt, b.p, b.n, err)) {
            st = CZ_ERR_IO;
            break;
        }
        cz_proof proof;
        void *pub = NULL;
        size_t npub = 0;
        if ((st = cz_public_read_json(&pub, &npub, vk.curve, qp, err)) == CZ_OK &&
            (st = cz_proof_read_json(&proof, vk.curve, pp, err)) == CZ_OK) {
            if (npub != vk.n_public)
                st = cz_error_set(err, CZ_ERR_VERIFY, "partition %zu: %zu public signals, the key has %u", i, npub,
                                  vk.n_public);
            else
                st = cz_groth16_verify(&vk, pub, npub, &proof, err);
            if (st == CZ_ERR_VERIFY) cz_error_set(err, st, "partition %zu: the proof does not verify", i);
        }
        free(pub);
    }
    cz_vkey_free(&vk);
    free(b.p);
    tmpf_close(&vt);
    tmpf_close(&pt);
    tmpf_close(&qt);
    return st;
}

/* the exit code of a failed job's error code */
static int exit_for_code(const char *code)
{
    if (!strcmp(code, "unsatisfied")) return EXIT_UNSATISFIED;
    if (!strcmp(code, "input")) return EXIT_INPUT;
    if (!strcmp(code, "internal")) return EXIT_INTERNAL;
    if (!strcmp(code, "randomness")) return EXIT_RANDOM;
    return EXIT_RESOURCE;
}

int cmd_submit(int argc, char **argv)
{
    static const struct option opts[] = {
        {"server", required_argument, 0, 's'},      {"key", required_argument, 0, 'k'},
        {"output", required_argument, 0, 'o'},      {"public", required_argument, 0, 'P'},
        {"proof-bin", required_argument, 0, 'b'},   {"priority", required_argument, 0, 'p'},
        {"idempotency-key", required_argument, 0, 'i'}, {"by-path", no_argument, 0, 'B'},
        {"token-file", required_argument, 0, 'T'}, {"timeout", required_argument, 0, 'W'},
        {"retry-for", required_argument, 0, 'R'},   {"no-verify", no_argument, 0, 'N'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
    const char *server = NULL, *key = NULL, *out = NULL, *pub_out = NULL, *bin = NULL, *prio = "normal",
               *idem = NULL, *token_file = NULL;
    int by_path = 0, no_verify = 0, c;
    uint64_t timeout = 86400, retry_for = 300;
    while ((c = getopt_long(argc, argv, "s:k:o:b:p:i:qh", opts, NULL)) != -1) {
        switch (c) {
        case 's': server = optarg; break;
        case 'k': key = optarg; break;
        case 'o': out = optarg; break;
        case 'P': pub_out = optarg; break;
        case 'b': bin = optarg; break;
        case 'p': prio = optarg; break;
        case 'i': idem = optarg; break;
        case 'B': by_path = 1; break;
        case 'T': token_file = optarg; break;
        case 'W':
            if (!opt_count("--timeout", optarg, 1, 100000000, &timeout)) return EXIT_USAGE;
            break;
        case 'R':
            if (!opt_count("--retry-for", optarg, 1, 100000000, &retry_for)) return EXIT_USAGE;
            break;
        case 'N': no_verify = 1; break;
        case 'q': cli_quiet = 1; break;
        case 'h': fputs(USAGE_SUBMIT, stdout); return EXIT_OK;
        default: fputs(USAGE_SUBMIT, stderr); return EXIT_USAGE;
        }
    }
    int nw = argc - optind;
    char **wits = argv + optind;
    if (!server || !key || !out || nw < 1) {
        msg("submit needs --server, --key, -o and at least one witness");
        fputs(USAGE_SUBMIT, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(prio, "critical") && strcmp(prio, "high") && strcmp(prio, "normal") && strcmp(prio, "low")) {
        msg("--priority: '%s' is not critical, high, normal or low", prio);
        return EXIT_USAGE;
    }
    {
        /* the witnesses and a key given by path are inputs (on this machine, or the daemon's with --by-path) */
        const char **in = calloc((size_t)nw + 1, sizeof *in);
        if (!in) {
            msg("error: out of memory");
            return EXIT_RESOURCE;
        }
        for (int i = 0; i < nw; i++) in[i] = wits[i];
        in[nw] = strchr(key, '/') ? key : NULL;
        const char *outs[3] = {out, pub_out, bin};
        const int dash[3] = {1, 1, 0};
        int frc = cli_files(in, nw + 1, outs, dash, 3);
        free(in);
        if (frc >= 0) return frc;
        out = outs[0];
        pub_out = outs[1];
    }
    client cl;
    memset(&cl, 0, sizeof cl);
    cl.server = server;
    cl.deadline = cz_now() + (double)timeout;
    cl.retry_for = (double)retry_for;
    if (!read_token_opt(&cl, token_file)) return EXIT_USAGE;
    char keyabs[4200];
    if (strchr(key, '/')) { /* a path: absolute, as the daemon checks it */
        char *r = realpath(key, NULL);
        snprintf(keyabs, sizeof keyabs, "%s", r ? r : key);
        free(r);
        key = keyabs;
    }
    for (int i = 0; i < nw && !by_path; i++)
        if (access(wits[i], R_OK) != 0) {
            msg("error: %s: cannot read it", wits[i]);
            return EXIT_INPUT;
        }
    cli_progress_init();
    curl_global_init(CURL_GLOBAL_DEFAULT);
    cz_error err;
    cz_error_clear(&err);
    int rc = EXIT_OK;
    buf b = {0};
    char *jj = job_json(key, prio, idem, wits, nw, by_path);
    if (!jj) {
        msg("error: out of memory");
        rc = EXIT_RESOURCE;
        goto done;
    }
    long st;
    if (by_path) {
        st = request_retry(&cl, "POST", "/v1/proofs", NULL, jj, &b, 3600, &err);
    } else {
        const upload up = {jj, wits, nw};
        stage("uploading");
        st = request_retry(&cl, "POST", "/v1/proofs", &up, NULL, &b, 3600, &err);
        stage_done();
    }
    if (st != 202 && st != 200) {
        if (!st) {
            msg("error: %s", cz_error_msg(&err));
            rc = EXIT_RESOURCE;
        } else {
            char m[700];
            api_error(&b, st, m, sizeof m);
            msg("error: %s", m);
            rc = exit_for_http(st);
        }
        goto done;
    }
    char job[64] = "", key_id[64] = "";
    {
        cz_json_doc *doc = NULL;
        cz_json *root;
        if (cz_json_parse(&doc, &root, b.p, b.n, "the daemon's answer", &err) == CZ_OK) {
            const cz_json *id = field(root, "id", CZ_JSON_STRING), *k = field(root, "key", CZ_JSON_STRING);
            if (id) snprintf(job, sizeof job, "%s", id->str);
            if (k) snprintf(key_id, sizeof key_id, "%s", k->str);
        }
        cz_json_free(doc);
    }
    if (!job[0] || !key_id[0]) {
        msg("error: the daemon's answer names no job");
        rc = EXIT_INTERNAL;
        goto done;
    }
    if (!cli_quiet && !cli_progress) msg("job %s accepted", job);
    /* wait */
    char path[512], state[32] = "";
    size_t nparts = (size_t)nw;
    char err_code[64] = "", err_msg[600] = "";
    for (;;) {
        snprintf(path, sizeof path, "/v1/proofs/%s?wait=10", job);
        st = request_retry(&cl, "GET", path, NULL, NULL, &b, 60, &err);
        if (st != 200) {
            char m[700];
            if (st)
                api_error(&b, st, m, sizeof m);
            else
                snprintf(m, sizeof m, "%s", cz_error_msg(&err));
            msg("error: job %s: %s", job, m);
            rc = st ? exit_for_http(st) : EXIT_RESOURCE;
            goto done;
        }
        cz_json_doc *doc = NULL;
        cz_json *root;
        int done = 0;
        if (cz_json_parse(&doc, &root, b.p, b.n, "the job", &err) == CZ_OK) {
            const cz_json *s = field(root, "state", CZ_JSON_STRING), *pd = field(root, "partitions_done", CZ_JSON_NUMBER);
            const cz_json *parts = field(root, "partition", CZ_JSON_ARRAY);
            snprintf(state, sizeof state, "%s", s ? s->str : "?");
            done = !strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "cancelled");
            if (cli_progress) {
                char stages[128] = "";
                size_t k = 0;
                for (size_t i = 0; parts && i < parts->nchild && k + 16 < sizeof stages; i++) {
                    const cz_json *sg = field(parts->child[i], "stage", CZ_JSON_STRING);
                    if (sg) k += (size_t)snprintf(stages + k, sizeof stages - k, " %zu:%s", i, sg->str);
                }
                fprintf(stderr, "\r\033[K  job %s: %s, %s/%zu partitions done%s", job, state, pd ? pd->str : "0",
                        nparts, stages);
            }
            const cz_json *e = field(root, "error", CZ_JSON_OBJECT);
            const cz_json *ec = field(e, "code", CZ_JSON_STRING), *em = field(e, "message", CZ_JSON_STRING);
            if (ec) snprintf(err_code, sizeof err_code, "%s", ec->str);
            if (em) snprintf(err_msg, sizeof err_msg, "%s", em->str);
        }
        cz_json_free(doc);
        if (done) break;
        if (cz_now() > cl.deadline) {
            if (cli_progress) fputc('\n', stderr);
            msg("error: job %s still %s after --timeout", job, state);
            rc = EXIT_RESOURCE;
            goto done;
        }
    }
    if (cli_progress) fputc('\n', stderr);
    if (strcmp(state, "done") != 0) {
        msg("error: job %s %s: %s%s%s", job, state, err_code, err_msg[0] ? ": " : "", err_msg);
        rc = !strcmp(state, "cancelled") ? EXIT_RESOURCE : exit_for_code(err_code);
        goto done;
    }
    if (!no_verify) {
        cz_status vs = verify_results(&cl, job, key_id, nparts, &err);
        if (vs != CZ_OK) {
            msg("error: %s", cz_error_msg(&err));
            rc = vs == CZ_ERR_VERIFY ? EXIT_INTERNAL : exit_for(vs);
            goto done;
        }
    }
    /* the outputs, all or none (util/outputs): each to a placeholder beside
     * it, those written in place (standard output, a device) last, then all
     * renamed into place */
    const char *names[3] = {"proof.json", "public.json", "proof.bin"}, *dest[3] = {out, pub_out, bin};
    const char *wp[3] = {NULL, NULL, NULL};
    int gi[3] = {-1, -1, -1};
    cz_outputs g;
    cz_outputs_init(&g);
    for (int f = 0; f < 3 && rc == EXIT_OK; f++) {
        if (!dest[f]) continue;
        if (cz_outputs_add(&g, dest[f], &wp[f], &err) != CZ_OK) {
            msg("error: %s", cz_error_msg(&err));
            rc = EXIT_OUTPUT;
        } else {
            gi[f] = g.n - 1;
        }
    }
    for (int in_place = 0; in_place < 2 && rc == EXIT_OK; in_place++)
        for (int f = 0; f < 3 && rc == EXIT_OK; f++) {
            if (gi[f] < 0 || cz_outputs_in_place(&g, gi[f]) != in_place) continue;
            snprintf(path, sizeof path, "/v1/proofs/%s/%s", job, names[f]);
            if (!get_ok(&cl, path, &b, &err)) {
                msg("error: %s", cz_error_msg(&err));
                rc = f == 2 ? EXIT_INPUT : EXIT_RESOURCE;
            } else if (!write_file(wp[f], b.p, b.n, &err)) {
                cz_outputs_explain(&g, &err);
                msg("error: %s", cz_error_msg(&err));
                rc = EXIT_OUTPUT;
            }
        }
    if (rc == EXIT_OK && cz_outputs_commit(&g, &err) != CZ_OK) {
        msg("error: %s", cz_error_msg(&err));
        rc = EXIT_OUTPUT;
    }
    cz_outputs_abort(&g); /* the placeholders (nothing after a commit) */
    if (rc == EXIT_OK && !cli_quiet)
        msg("job %s: %zu proof%s%s written to %s", job, nparts, nparts == 1 ? "" : "s", no_verify ? "" : " verified", out);
done:
    free(jj);
    free(b.p);
    curl_global_cleanup();
    return rc;
}

int cmd_status(int argc, char **argv)
{
    static const struct option opts[] = {{"server", required_argument, 0, 's'}, {"token-file", required_argument, 0, 'T'},
                                         {"json", no_argument, 0, 'J'},         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *server = NULL, *token_file = NULL;
    int raw = 0, c;
    while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
        switch (c) {
        case 's': server = optarg; break;
        case 'T': token_file = optarg; break;
        case 'J': raw = 1; break;
        case 'h': fputs(USAGE_STATUS, stdout); return EXIT_OK;
        default: fputs(USAGE_STATUS, stderr); return EXIT_USAGE;
        }
    }
    if (!server || optind != argc) {
        msg("status needs --server URL and no arguments");
        fputs(USAGE_STATUS, stderr);
        return EXIT_USAGE;
    }
    client cl;
    memset(&cl, 0, sizeof cl);
    cl.server = server;
    cl.deadline = cz_now() + 10;
    if (!read_token_opt(&cl, token_file)) return EXIT_USAGE;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    cz_error err;
    cz_error_clear(&err);
    buf b = {0};
    long st = request(&cl, "GET", "/v1/status", NULL, NULL, &b, 30, &err);
    int rc = EXIT_OK;
    if (st != 200) {
        char m[700];
        if (st)
            api_error(&b, st, m, sizeof m);
        else
            snprintf(m, sizeof m, "%s", cz_error_msg(&err));
        msg("error: %s", m);
        rc = st ? exit_for_http(st) : EXIT_RESOURCE;
    } else if (raw) {
        fwrite(b.p, 1, b.n, stdout);
    } else {
        cz_json_doc *doc = NULL;
        cz_json *r;
        if (cz_json_parse(&doc, &r, b.p, b.n, "status", &err) != CZ_OK) {
            msg("error: %s", cz_error_msg(&err));
            rc = EXIT_INTERNAL;
        } else {
            const cz_json *v = field(r, "version", CZ_JSON_STRING), *h = field(r, "host", CZ_JSON_STRING);
            const cz_json *up = field(r, "uptime_s", CZ_JSON_NUMBER);
            printf("cuzkd %s on %s, up %.0f s%s\n", v ? v->str : "?", h ? h->str : "?", up ? strtod(up->str, NULL) : 0.0,
                   cz_json_get(r, "draining") && cz_json_get(r, "draining")->boolean ? " (draining)" : "");
            const cz_json *devs = field(r, "devices", CZ_JSON_ARRAY);
            printf("devices:\n");
            for (size_t i = 0; devs && i < devs->nchild; i++) {
                const cz_json *d = devs->child[i];
                const cz_json *n = field(d, "name", CZ_JSON_STRING), *bs = field(d, "busy_share", CZ_JSON_NUMBER);
                const cz_json *p = field(d, "partitions", CZ_JSON_NUMBER), *vr = field(d, "vram", CZ_JSON_OBJECT);
                const cz_json *is = cz_json_get(d, "in_service");
                char vram[96] = "";
                if (vr) {
                    const cz_json *t = field(vr, "total", CZ_JSON_NUMBER), *fr = field(vr, "free", CZ_JSON_NUMBER);
                    if (t && fr)
                        snprintf(vram, sizeof vram, ", VRAM %.1f of %.1f GiB free", strtod(fr->str, NULL) / (1 << 30),
                                 strtod(t->str, NULL) / (1 << 30));
                }
                printf("  %-40s %s, busy %.1f%%, %s partitions%s\n", n ? n->str : "?",
                       is && is->boolean ? "in service" : "OUT OF SERVICE", bs ? 100 * strtod(bs->str, NULL) : 0.0,
                       p ? p->str : "0", vram);
            }
            const cz_json *mem = field(r, "memory", CZ_JSON_OBJECT);
            const cz_json *lim = field(mem, "limit", CZ_JSON_NUMBER), *used = field(mem, "used", CZ_JSON_NUMBER);
            printf("memory: %.2f of %.2f GiB reserved", used ? strtod(used->str, NULL) / (1 << 30) : 0.0,
                   lim ? strtod(lim->str, NULL) / (1 << 30) : 0.0);
            const cz_json *by = field(mem, "by_consumer", CZ_JSON_OBJECT);
            for (size_t i = 0; by && i < by->nchild; i++)
                printf("%s %s %.2f", i ? "," : ";", by->child[i]->key,
                       by->child[i]->type == CZ_JSON_NUMBER ? strtod(by->child[i]->str, NULL) / (1 << 30) : 0.0);
            printf(" GiB\n");
            const cz_json *jobs = field(r, "jobs", CZ_JSON_OBJECT), *q = field(r, "queue_by_priority", CZ_JSON_OBJECT);
            printf("jobs:");
            for (size_t i = 0; jobs && i < jobs->nchild; i++)
                printf(" %s %s", jobs->child[i]->key, jobs->child[i]->type == CZ_JSON_NUMBER ? jobs->child[i]->str : "?");
            printf("\nqueue by priority:");
            for (size_t i = 0; q && i < q->nchild; i++)
                printf(" %s %s", q->child[i]->key, q->child[i]->type == CZ_JSON_NUMBER ? q->child[i]->str : "?");
            printf("\n");
        }
        cz_json_free(doc);
    }
    free(b.p);
    curl_global_cleanup();
    return rc;
}

#endif
