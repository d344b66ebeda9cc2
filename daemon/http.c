/* daemon/http: the HTTP/JSON API (contract and design in http.h; the
 * endpoints in docs/API.md). */
#include "daemon/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "circuit/native.h"
#include "cuzk/curve.h"
#include "groth16/groth16.h"
#include "io/proof.h"
#include "io/zkey.h"

#define JSON_BODY_MAX (1u << 20) /* a job description, a key registration */
/* A request refused from its headers (refuse_early) whose body is on its way,
 * announced at most this many bytes or chunked, has the body read and
 * dropped, and is answered once it is in: closing a connection with unread
 * data makes the kernel reset it, and the reset may reach the client before it
 * reads the answer (curl: HTTP 000 for 1 in 150 uploads of 400 KB over
 * max_body_bytes over loopback, without Expect, 2026-12-06). A body still
 * arriving DRAIN_S after its refusal is cut off: the connection is closed
 * (libmicrohttpd takes no answer before the body's end). */
#define DRAIN_MAX ((uint64_t)64 << 20)
#define DRAIN_S 30.0
#define POST_BUFFER 65536

struct cz_http {
    cz_http_config c;
    struct MHD_Daemon *d;
    uint16_t port;
    atomic_int draining; /* set by the main thread, read by the HTTP threads */
    pthread_mutex_t mu; /* waiters */
    struct req *waiters;
    pthread_t timer;
    int timer_started, stop;
    double started;
};

enum route {
    R_NONE = 0,
    R_HEALTHZ,
    R_METRICS,
    R_STATUS,
    R_KEYS,    /* /v1/keys */
    R_KEY,     /* /v1/keys/{id} */
    R_KEY_VK,  /* /v1/keys/{id}/verification_key.json */
    R_PROOFS,  /* /v1/proofs */
    R_PROOF,   /* /v1/proofs/{id} */
    R_RESULT,  /* /v1/proofs/{id}/proof.json | public.json | proof.bin */
    R_CIRCUITS, /* /v1/circuits */
};

/* one request */
typedef struct req {
    cz_http *h;
    struct MHD_Connection *conn;
    enum route route;
    char id[CZ_STORE_ID_MAX + 8];
    char file[16]; /* R_RESULT */
    int method;    /* 'G', 'P' (POST), 'D' */
    int done;      /* a response was queued (or the body is being discarded) */
    /* an error met while the body streams in, answered at its end */
    int err_status;
    char err_code[32], err_msg[600];
    double err_at; /* when err_status was set (mono_s) */
    /* bodies */
    int multipart;
    struct MHD_PostProcessor *pp;
    char *body;
    size_t body_len;
    uint64_t received;
    /* multipart: the "job" field and the witness parts */
    cz_spool_file *ups;
    size_t nup, capup;
    int in_up; /* the last part was a witness and is open */
    /* long-poll */
    int waiting, resumed, fired;
    void *watch;
    double deadline;
    struct req *next_waiter;
} req;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- responses ---- */

static enum MHD_Result send_buf(req *r, int status, const char *type, char *buf, size_t len, int own,
                                const char *extra_header, const char *extra_value)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, buf, own ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_MUST_COPY);
    if (!resp) {
        if (own) free(buf);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (extra_header) MHD_add_response_header(resp, extra_header, extra_value);
    enum MHD_Result rc = MHD_queue_response(r->conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    r->done = 1;
    if (r->h->c.metrics) cz_metrics_http(r->h->c.metrics, status);
    return rc;
}

static enum MHD_Result send_json(req *r, int status, json_t *o)
{
    char *s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s) return MHD_NO;
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return MHD_NO;
    }
    t[n] = '\n';
    t[n + 1] = '\0';
    return send_buf(r, status, "application/json", t, n + 1, 1, NULL, NULL);
}

static enum MHD_Result send_error(req *r, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum MHD_Result send_error(req *r, int status, const char *code, const char *fmt, ...)
{
    char m[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    json_t *o = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", m);
    if (!o) return MHD_NO;
    if (status == 429 || status == 503) {
        char *s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        json_decref(o);
        if (!s) return MHD_NO;
        return send_buf(r, status, "application/json", s, strlen(s), 1, "Retry-After", status == 429 ? "2" : "5");
    }
    if (status == 401) {
        char *s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        json_decref(o);
        if (!s) return MHD_NO;
        return send_buf(r, status, "application/json", s, strlen(s), 1, "WWW-Authenticate", "Bearer");
    }
    return send_json(r, status, o);
}

/* an error to answer once the body has been read */
static void defer_error(req *r, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void defer_error(req *r, int status, const char *code, const char *fmt, ...)
{
    if (r->err_status) return; /* the first one */
    r->err_status = status;
    r->err_at = mono_s();
    snprintf(r->err_code, sizeof r->err_code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err_msg, sizeof r->err_msg, fmt, ap);
    va_end(ap);
}

/* An error found from the headers of r. Answered now where no body follows,
 * where the client waits for the answer before it sends one (Expect:
 * 100-continue), where the body is announced larger than DRAIN_MAX, and to a
 * client without a valid token (401: an unauthenticated peer gets nothing
 * read); else once the body is in (read and dropped, DRAIN_S at most). */
static enum MHD_Result refuse_early(req *r, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum MHD_Result refuse_early(req *r, int status, const char *code, const char *fmt, ...)
{
    char m[sizeof r->err_msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    const char *ex = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
    const uint64_t n = cl ? strtoull(cl, NULL, 10) : 0;
    const int body = (cl && n > 0) || (!cl && te && strcasecmp(te, "identity") != 0);
    if (status == 401 || !body || (ex && !strcasecmp(ex, "100-continue")) || n > DRAIN_MAX)
        return send_error(r, status, code, "%s", m);
    defer_error(r, status, code, "%s", m);
    return MHD_YES;
}

/* ---- paths ---- */

cz_status cz_http_confine(const char *path, char (*allow)[4096], int n_allow, char *out, size_t cap, cz_error *err)
{
    if (!path || !*path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "empty path");
    if (path[0] != '/') return cz_error_set(err, CZ_ERR_INVALID_ARG, "'%s': an absolute path is expected", path);
    char *canon = realpath(path, NULL);
    if (!canon) return cz_error_set(err, CZ_ERR_IO, "'%s': %s", path, strerror(errno));
    for (int i = 0; i < n_allow; i++) {
        size_t n = strlen(allow[i]);
        if (n && !strncmp(canon, allow[i], n) && (canon[n] == '/' || (n == 1 && allow[i][0] == '/'))) {
            if (strlen(canon) >= cap) {
                free(canon);
                return cz_error_set(err, CZ_ERR_INVALID_ARG, "'%s': the path is too long", path);
            }
            snprintf(out, cap, "%s", canon);
            free(canon);
            return CZ_OK;
        }
    }
    cz_status st = cz_error_set(err, CZ_ERR_MISMATCH, "'%s' (resolved: '%s') is not inside an allowed directory",
                                path, canon);
    free(canon);
    return st;
}

/* ---- job descriptions ---- */

void cz_http_job_desc_free(cz_http_job_desc *d)
{
    free(d->paths);
    d->paths = NULL;
    d->n_paths = 0;
    for (size_t i = 0; i < d->n_circuit; i++) free(d->circuit_parts[i]);
    free(d->circuit_parts);
    d->circuit_parts = NULL;
    d->n_circuit = 0;
}

/* "circuit", "params", "inputs" of a job into d->circuit_parts: the circuit
 * known, its params valid (values decimal integers), inputs an array of
 * objects (each checked by the circuit when the job is submitted). */
static cz_status parse_circuit(json_t *o, cz_http_job_desc *d, cz_error *err)
{
    json_t *cn = json_object_get(o, "circuit"), *ps = json_object_get(o, "params"), *ins = json_object_get(o, "inputs");
    if (!json_is_string(cn)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'circuit': a string is expected");
    const cz_native_circuit *c = cz_native_find(json_string_value(cn));
    if (!c)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'circuit': no built-in circuit '%s' (GET /v1/circuits)",
                            json_string_value(cn));
    char kvbuf[CZ_NATIVE_MAX_PARAMS][96];
    const char *kv[CZ_NATIVE_MAX_PARAMS];
    size_t nkv = 0;
    if (ps) {
        if (!json_is_object(ps) || json_object_size(ps) > CZ_NATIVE_MAX_PARAMS)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'params': an object of at most %d parameters",
                                CZ_NATIVE_MAX_PARAMS);
        const char *k;
        json_t *v;
        json_object_foreach(ps, k, v)
        {
            if (!json_is_integer(v) || json_integer_value(v) < 0 || strlen(k) > 40)
                return cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'params': '%.40s' must be a non-negative integer", k);
            snprintf(kvbuf[nkv], sizeof kvbuf[nkv], "%s=%lld", k, (long long)json_integer_value(v));
            kv[nkv] = kvbuf[nkv];
            nkv++;
        }
    }
    uint64_t params[CZ_NATIVE_MAX_PARAMS];
    cz_status st = cz_native_params(c, kv, nkv, params, err);
    if (st != CZ_OK) return st;
    if (!json_is_array(ins) || json_array_size(ins) == 0 || json_array_size(ins) > 100000)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'inputs': a non-empty array of the circuit's inputs is expected");
    size_t n = json_array_size(ins);
    if (!(d->circuit_parts = calloc(n, sizeof *d->circuit_parts))) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *in = json_array_get(ins, i);
        if (!json_is_object(in))
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'inputs', entry %zu: a JSON object is expected", i);
        json_t *part = json_pack("{s:O,s:o,s:O}", "circuit", cn, "params", ps ? json_incref(ps) : json_object(), "input", in);
        if (!part || !(d->circuit_parts[i] = json_dumps(part, JSON_COMPACT))) {
            json_decref(part);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        }
        json_decref(part);
        d->n_circuit = i + 1;
    }
    return CZ_OK;
}

static cz_status want_string(json_t *o, const char *k, char *out, size_t cap, int required, cz_error *err)
{
    json_t *v = json_object_get(o, k);
    if (!v) {
        if (required) return cz_error_set(err, CZ_ERR_INVALID_ARG, "field '%s' is required", k);
        return CZ_OK;
    }
    if (!json_is_string(v)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "field '%s': a string is expected", k);
    size_t n = json_string_length(v);
    if (n >= cap) return cz_error_set(err, CZ_ERR_INVALID_ARG, "field '%s': longer than %zu bytes", k, cap - 1);
    const char *s = json_string_value(v);
    if (memchr(s, '\0', n)) return cz_error_set(err, CZ_ERR_INVALID_ARG, "field '%s': contains a NUL byte", k);
    memcpy(out, s, n + 1);
    return CZ_OK;
}

cz_status cz_http_parse_job(const char *body, size_t len, cz_http_job_desc *out, cz_error *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) return cz_error_set(err, CZ_ERR_FORMAT, "malformed JSON at line %d, column %d: %s", je.line, je.column, je.text);
    cz_status st = CZ_OK;
    if (!json_is_object(o)) {
        st = cz_error_set(err, CZ_ERR_INVALID_ARG, "a JSON object is expected");
        goto out;
    }
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        if (strcmp(k, "key") && strcmp(k, "priority") && strcmp(k, "idempotency_key") && strcmp(k, "witnesses") &&
            strcmp(k, "circuit") && strcmp(k, "params") && strcmp(k, "inputs")) {
            st = cz_error_set(err, CZ_ERR_INVALID_ARG,
                              "unknown field '%s' (expected key, priority, idempotency_key, witnesses, or circuit, "
                              "params, inputs)",
                              k);
            goto out;
        }
    }
    if (json_object_get(o, "circuit") || json_object_get(o, "inputs") || json_object_get(o, "params")) {
        if (json_object_get(o, "witnesses")) {
            st = cz_error_set(err, CZ_ERR_INVALID_ARG, "give either 'witnesses' or a 'circuit' with its 'inputs'");
            goto out;
        }
        if ((st = parse_circuit(o, out, err)) != CZ_OK) goto out;
    }
    if ((st = want_string(o, "key", out->key, sizeof out->key, 1, err)) != CZ_OK) goto out;
    snprintf(out->priority, sizeof out->priority, "normal");
    if ((st = want_string(o, "priority", out->priority, sizeof out->priority, 0, err)) != CZ_OK) goto out;
    if (json_object_get(o, "idempotency_key")) {
        if ((st = want_string(o, "idempotency_key", out->idem, sizeof out->idem, 1, err)) != CZ_OK) goto out;
        if (!out->idem[0]) {
            st = cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'idempotency_key': empty");
            goto out;
        }
        out->has_idem = 1;
    }
    json_t *ws = json_object_get(o, "witnesses");
    if (ws) {
        if (!json_is_array(ws)) {
            st = cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'witnesses': an array of paths is expected");
            goto out;
        }
        size_t n = json_array_size(ws);
        if (n > 100000) {
            st = cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'witnesses': %zu entries", n);
            goto out;
        }
        if (n && !(out->paths = calloc(n, sizeof *out->paths))) {
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(ws, i);
            if (!json_is_string(e) || json_string_length(e) == 0 || json_string_length(e) >= sizeof out->paths[0] ||
                memchr(json_string_value(e), '\0', json_string_length(e))) {
                st = cz_error_set(err, CZ_ERR_INVALID_ARG, "field 'witnesses', entry %zu: a non-empty path is expected",
                                  i);
                goto out;
            }
            memcpy(out->paths[i], json_string_value(e), json_string_length(e) + 1);
        }
        out->n_paths = n;
    }
out:
    json_decref(o);
    if (st != CZ_OK) cz_http_job_desc_free(out);
    return st;
}

/* ---- auth ---- */

static int ct_equal(const char *a, size_t na, const char *b, size_t nb)
{
    /* constant time in the length of the configured token b */
    unsigned char d = (unsigned char)(na != nb);
    for (size_t i = 0; i < nb; i++) d |= (unsigned char)((i < na ? (unsigned char)a[i] : 0) ^ (unsigned char)b[i]);
    return d == 0;
}

static int authorized(cz_http *h, struct MHD_Connection *c)
{
    if (!h->c.token) return 1;
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!v || strncasecmp(v, "Bearer ", 7) != 0) return 0;
    v += 7;
    while (*v == ' ') v++;
    return ct_equal(v, strlen(v), h->c.token, strlen(h->c.token));
}

/* ---- JSON views ---- */

static const char *curve_str(int c) { return cz_curve_name((cz_curve)c); }

static json_t *key_json(const cz_jobs_key_info *k)
{
    static const char *const st[] = {"unloaded", "loading", "loaded"};
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:i,s:I,s:I}", "id", k->key.id, "path", k->key.path,
                          "curve", curve_str(k->curve), "state", (unsigned)k->state < 3 ? st[k->state] : "unknown",
                          "bytes", (json_int_t)k->bytes, "domain_size", (json_int_t)k->domain_size, "n_vars",
                          (json_int_t)k->n_vars, "n_public", (json_int_t)k->n_public, "jobs", k->jobs, "resident_mask",
                          (json_int_t)k->resident, "vram_need", (json_int_t)k->vram_need);
    if (o && k->error[0]) json_object_set_new(o, "error", json_string(k->error));
    return o;
}

static json_t *job_json(const cz_store_job *j, const cz_store_part *p, size_t n, const cz_jobs_progress *pg)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(j->id));
    json_object_set_new(o, "state", json_string(cz_job_state_name(j->state)));
    json_object_set_new(o, "key", json_string(j->key_id));
    json_object_set_new(o, "priority", json_string(j->priority));
    json_object_set_new(o, "partitions", json_integer(j->n_parts));
    json_object_set_new(o, "partitions_done", json_integer(j->parts_done));
    json_object_set_new(o, "partitions_failed", json_integer(j->parts_failed));
    json_object_set_new(o, "created", json_real(j->created));
    if (j->started > 0) json_object_set_new(o, "started", json_real(j->started));
    if (j->finished > 0) json_object_set_new(o, "finished", json_real(j->finished));
    if (j->idem_key[0]) json_object_set_new(o, "idempotency_key", json_string(j->idem_key));
    if (j->state == CZ_JOB_FAILED)
        json_object_set_new(o, "error", json_pack("{s:s,s:s}", "code", j->error_code, "message", j->error));
    if (p) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_object();
            json_object_set_new(e, "index", json_integer(p[i].idx));
            json_object_set_new(e, "state", json_string(cz_part_state_name(p[i].state)));
            if (pg && pg[i].stage >= 0) {
                json_object_set_new(e, "stage", json_string(cz_partition_stage_name((cz_partition_stage)pg[i].stage)));
                if (pg[i].stage == CZ_STAGE_DEVICE) json_object_set_new(e, "device", json_integer(pg[i].device));
            }
            json_object_set_new(e, "attempts", json_integer(p[i].attempts));
            if (p[i].timings_json) {
                json_t *t = json_loads(p[i].timings_json, 0, NULL);
                if (t) json_object_set_new(e, "timings", t);
            }
            if (p[i].error[0]) json_object_set_new(e, "error", json_string(p[i].error));
            json_array_append_new(a, e);
        }
        json_object_set_new(o, "partition", a);
    }
    return o;
}

/* ---- handlers ---- */

static int query_uint(struct MHD_Connection *c, const char *name, double dflt, double max, double *out)
{
    const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
    if (!v) {
        *out = dflt;
        return 1;
    }
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !(x >= 0) || x > max) return 0;
    *out = x;
    return 1;
}

/* A store call failed: 503 while the store does not answer (the client
 * retries), else 500. */
static enum MHD_Result store_error(req *r, const cz_error *err)
{
    if (!cz_jobs_store_ok(r->h->c.jobs, NULL, 0)) return send_error(r, 503, "unavailable", "%s", cz_error_msg(err));
    return send_error(r, 500, "internal", "%s", cz_error_msg(err));
}

static enum MHD_Result do_healthz(req *r)
{
    if (r->h->draining) return send_buf(r, 503, "text/plain", "draining\n", 9, 0, "Retry-After", "5");
    char why[256];
    if (!cz_jobs_store_ok(r->h->c.jobs, why, sizeof why)) { /* running work goes on; new work is refused until the store answers */
        char *m = malloc(400);
        if (!m) return send_error(r, 500, "internal", "out of memory");
        int n = snprintf(m, 400, "degraded: the store does not answer: %s\n", why);
        return send_buf(r, 503, "text/plain", m, (size_t)(n < 400 ? n : 399), 1, "Retry-After", "5");
    }
    return send_buf(r, 200, "text/plain", "ok\n", 3, 0, NULL, NULL);
}

static enum MHD_Result do_metrics(req *r)
{
    size_t len = 0;
    char *s = cz_metrics_render(r->h->c.metrics, r->h->c.engine, r->h->c.jobs, cz_spool_bytes(r->h->c.spool), &len);
    if (!s) return send_error(r, 500, "internal", "out of memory");
    return send_buf(r, 200, "text/plain; version=0.0.4", s, len, 1, NULL, NULL);
}

static enum MHD_Result do_status(req *r)
{
    cz_http *h = r->h;
    cz_engine_stats es;
    cz_engine_stats_get(h->c.engine, &es);
    cz_jobs_status js;
    cz_jobs_status_get(h->c.jobs, &js);
    json_t *o = json_object();
    json_object_set_new(o, "version", json_string(h->c.version ? h->c.version : ""));
    json_object_set_new(o, "host", json_string(h->c.conf->host_id));
    json_object_set_new(o, "uptime_s", json_real(now_s() - h->started));
    json_object_set_new(o, "draining", json_boolean(h->draining));
    json_t *devs = json_array();
    for (int i = 0; i < es.ndevices; i++) {
        const cz_engine_device_stats *d = &es.dev[i];
        json_t *e = json_pack("{s:i,s:s,s:b,s:b,s:f,s:I,s:i}", "index", i, "name", d->name, "in_service",
                              d->in_service, "busy", d->busy, "busy_share",
                              es.uptime_s > 0 ? d->busy_s / es.uptime_s : 0.0, "partitions",
                              (json_int_t)d->partitions, "keys_resident", d->keys_resident);
        if (d->lane_of >= 0) { /* one of several devices on a GPU */
            json_object_set_new(e, "gpu", json_integer(d->lane_of));
            json_object_set_new(e, "lane_waits", json_integer((json_int_t)d->lane_waits));
        }
        if (d->has_mem)
            json_object_set_new(e, "vram", json_pack("{s:I,s:I,s:I,s:I}", "total", (json_int_t)d->mem.total, "free",
                                                     (json_int_t)d->mem.free, "held", (json_int_t)d->mem.resident,
                                                     "scratch", (json_int_t)d->mem.scratch));
        if (!d->in_service) json_object_set_new(e, "error", json_string(d->error));
        json_array_append_new(devs, e);
    }
    json_object_set_new(o, "devices", devs);
    json_t *mem = json_object();
    json_object_set_new(mem, "limit", json_integer((json_int_t)es.budget.limit));
    json_object_set_new(mem, "used", json_integer((json_int_t)es.budget.used));
    json_object_set_new(mem, "peak", json_integer((json_int_t)es.budget.peak));
    json_t *by = json_object();
    for (int i = 0; i < CZ_MEM_CONSUMERS_; i++)
        json_object_set_new(by, cz_mem_consumer_name((cz_mem_consumer)i), json_integer((json_int_t)es.budget.by[i]));
    json_object_set_new(mem, "by_consumer", by);
    json_object_set_new(o, "memory", mem);
    json_object_set_new(o, "pool", json_pack("{s:b,s:I,s:I,s:I,s:I,s:I}", "pinned", es.pool_pinned, "held",
                                              (json_int_t)es.pool.held, "in_use", (json_int_t)es.pool.in_use,
                                              "buffers", (json_int_t)es.pool.buffers, "hits", (json_int_t)es.pool.hits,
                                              "misses", (json_int_t)es.pool.misses));
    static const char *const prio[4] = {"critical", "high", "normal", "low"};
    json_t *q = json_object();
    for (int i = 0; i < 4; i++) json_object_set_new(q, prio[i], json_integer((json_int_t)js.store.queued_by_prio[i]));
    json_t *jobs = json_object();
    for (int i = 0; i < 5; i++)
        json_object_set_new(jobs, cz_job_state_name((cz_job_state)i), json_integer((json_int_t)js.store.jobs[i]));
    json_object_set_new(o, "jobs", jobs);
    json_object_set_new(o, "queue_by_priority", q);
    json_object_set_new(o, "partitions", json_pack("{s:I,s:I,s:I,s:I}", "queued", (json_int_t)es.partitions_queued,
                                                   "ready", (json_int_t)es.partitions_ready, "in_flight",
                                                   (json_int_t)cz_engine_in_flight(h->c.engine), "done",
                                                   (json_int_t)es.partitions_done));
    json_object_set_new(o, "store_bytes", json_integer((json_int_t)js.store.bytes));
    json_object_set_new(o, "degraded", json_boolean(!js.store_healthy));
    json_t *sto = json_pack("{s:s,s:b,s:b}", "backend", js.shared ? "postgres" : "sqlite", "shared", js.shared,
                            "healthy", js.store_healthy);
    if (!js.store_healthy) json_object_set_new(sto, "error", json_string(js.store_error));
    if (js.shared) {
        json_object_set_new(sto, "claims", json_integer((json_int_t)js.claims));
        json_object_set_new(sto, "held", json_integer((json_int_t)js.held));
        json_object_set_new(sto, "results_fenced", json_integer((json_int_t)js.results_fenced));
        json_object_set_new(sto, "leases_lost", json_integer((json_int_t)js.leases_lost));
        json_object_set_new(sto, "leases_expired", json_integer((json_int_t)js.leases_expired));
    }
    json_object_set_new(o, "store", sto);
    if (js.shared) { /* every host of the shared store, as its last heartbeat left it */
        cz_store_host *hs = NULL;
        size_t nh = 0;
        cz_error herr;
        cz_error_clear(&herr);
        json_t *ha = json_array();
        if (cz_jobs_hosts(h->c.jobs, &hs, &nh, &herr) == CZ_OK) {
            for (size_t i = 0; i < nh; i++)
                json_array_append_new(
                    ha, json_pack("{s:s,s:f,s:f,s:b,s:f,s:s,s:s,s:I,s:I}", "id", hs[i].id, "last_heartbeat",
                                  hs[i].heartbeat, "heartbeat_age_s", hs[i].age_s, "alive",
                                  hs[i].age_s < (double)h->c.conf->lease_s, "started", hs[i].started, "devices",
                                  hs[i].devices, "version", hs[i].version, "running", (json_int_t)hs[i].running,
                                  "partitions_done", (json_int_t)hs[i].done));
            free(hs);
        }
        json_object_set_new(o, "hosts", ha);
    }
    json_object_set_new(o, "spool_bytes", json_integer((json_int_t)cz_spool_bytes(h->c.spool)));
    return send_json(r, 200, o);
}

/* GET /v1/circuits: the built-in circuits a job may name */
static enum MHD_Result do_circuits(req *r)
{
    size_t n;
    const cz_native_circuit *const *l = cz_native_list(&n);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *curves = json_array(), *ps = json_array();
#define CURVE_(ID, VALUE, SYM, CONST, SHORT, NAME, ...)                                                                \
    if (cz_native_supports(l[i], CZ_CURVE_##ID)) json_array_append_new(curves, json_string(NAME));
        CZ_CURVE_LIST(CURVE_)
#undef CURVE_
        for (unsigned k = 0; k < l[i]->n_params; k++)
            json_array_append_new(ps, json_pack("{s:s,s:I,s:I,s:I,s:s}", "name", l[i]->params[k].name, "default",
                                                (json_int_t)l[i]->params[k].def, "min", (json_int_t)l[i]->params[k].lo,
                                                "max", (json_int_t)l[i]->params[k].hi, "help", l[i]->params[k].help));
        json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:s,s:o,s:s}", "name", l[i]->name, "summary", l[i]->summary,
                                           "curves", curves, "default_curve", cz_curve_name(l[i]->default_curve),
                                           "params", ps, "input", l[i]->input_help));
    }
    return send_json(r, 200, json_pack("{s:o}", "circuits", a));
}

static enum MHD_Result do_keys_list(req *r)
{
    cz_jobs_key_info *ks = NULL;
    size_t n = 0;
    cz_error err;
    cz_error_clear(&err);
    if (cz_jobs_key_list(r->h->c.jobs, &ks, &n, &err) != CZ_OK)
        return store_error(r, &err);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, key_json(&ks[i]));
    free(ks);
    return send_json(r, 200, json_pack("{s:o}", "keys", a));
}

/* a key by id, or a path: confined, registered on first use */
static int resolve_key(req *r, const char *id_or_path, cz_jobs_key_info *out, int *created, cz_error *err)
{
    cz_http *h = r->h;
    *created = 0;
    int found = 0;
    if (!strchr(id_or_path, '/')) {
        (void)cz_jobs_key_get(h->c.jobs, id_or_path, out, &found, err);
        if (!found) {
            cz_error_set(err, CZ_ERR_INVALID_ARG, "key '%s' is not registered", id_or_path);
            return 404;
        }
        return 0;
    }
    char canon[4096];
    cz_status st = cz_http_confine(id_or_path, h->c.allow, h->c.n_allow, canon, sizeof canon, err);
    if (st == CZ_ERR_MISMATCH) return 403;
    if (st != CZ_OK) return 400;
    if (h->draining) {
        cz_error_set(err, CZ_ERR_UNSUPPORTED, "the daemon is shutting down");
        return 503;
    }
    (void)cz_jobs_key_get(h->c.jobs, canon, out, &found, err);
    if (found) return 0;
    st = cz_jobs_key_add(h->c.jobs, canon, out, created, err);
    if (st != CZ_OK) return st == CZ_ERR_IO ? 400 : st == CZ_ERR_NO_MEMORY ? 500 : 422;
    return 0;
}

static enum MHD_Result do_keys_post(req *r)
{
    json_error_t je;
    json_t *o = json_loadb(r->body ? r->body : "", r->body_len, JSON_REJECT_DUPLICATES, &je);
    if (!o) return send_error(r, 400, "bad_json", "malformed JSON at line %d, column %d: %s", je.line, je.column, je.text);
    char path[4200] = "";
    cz_error err;
    cz_error_clear(&err);
    const char *k;
    json_t *v;
    if (!json_is_object(o)) {
        json_decref(o);
        return send_error(r, 400, "bad_request", "a JSON object {\"path\": ...} is expected");
    }
    json_object_foreach(o, k, v) if (strcmp(k, "path"))
    {
        /* answered before the object (which owns k) is freed */
        enum MHD_Result rc = send_error(r, 400, "bad_request", "unknown field '%s' (expected path)", k);
        json_decref(o);
        return rc;
    }
    cz_status st = want_string(o, "path", path, sizeof path, 1, &err);
    json_decref(o);
    if (st != CZ_OK) return send_error(r, 400, "bad_request", "%s", cz_error_msg(&err));
    if (!strchr(path, '/')) return send_error(r, 400, "bad_request", "path: an absolute path is expected");
    cz_jobs_key_info ki;
    int created = 0;
    int code = resolve_key(r, path, &ki, &created, &err);
    if (code)
        return send_error(r, code, code == 403 ? "forbidden" : code == 503 ? "unavailable" : "bad_key", "%s",
                          cz_error_msg(&err));
    return send_json(r, created ? 201 : 200, key_json(&ki));
}

static enum MHD_Result do_key(req *r)
{
    cz_error err;
    cz_error_clear(&err);
    cz_jobs_key_info ki;
    int found = 0;
    (void)cz_jobs_key_get(r->h->c.jobs, r->id, &ki, &found, &err);
    if (!found) return send_error(r, 404, "not_found", "no key '%s'", r->id);
    if (r->method == 'G') return send_json(r, 200, key_json(&ki));
    cz_status st = cz_jobs_key_remove(r->h->c.jobs, r->id, &err);
    if (st == CZ_ERR_MISMATCH) return send_error(r, 409, "key_in_use", "%s", cz_error_msg(&err));
    if (st != CZ_OK) return store_error(r, &err);
    return send_json(r, 200, json_pack("{s:s,s:b}", "id", r->id, "removed", 1));
}

/* the verifying key of a registered key, as `cuzk export-vkey` writes it */
static enum MHD_Result do_key_vk(req *r)
{
    cz_error err;
    cz_error_clear(&err);
    cz_jobs_key_info ki;
    int found = 0;
    (void)cz_jobs_key_get(r->h->c.jobs, r->id, &ki, &found, &err);
    if (!found) return send_error(r, 404, "not_found", "no key '%s'", r->id);
    cz_zkey zk;
    cz_zkey_opts zo;
    memset(&zo, 0, sizeof zo);
    zo.header_only = 1;
    if (cz_zkey_load(&zk, ki.key.path, &zo, &err) != CZ_OK) return send_error(r, 500, "bad_key", "%s", cz_error_msg(&err));
    cz_vkey vk;
    cz_status st = cz_vkey_from_zkey(&vk, &zk);
    cz_zkey_free(&zk);
    if (st != CZ_OK) return send_error(r, 500, "internal", "out of memory");
    uint64_t ab[72];
    char *text = NULL;
    if ((st = cz_groth16_alphabeta(ab, &vk)) == CZ_OK) st = cz_vkey_format_json(&vk, ab, &text, &err);
    cz_vkey_free(&vk);
    if (st != CZ_OK) return store_error(r, &err);
    return send_buf(r, 200, "application/json", text, strlen(text), 1, NULL, NULL);
}

/* the answer to a job request once the body is in */
static enum MHD_Result do_submit(req *r)
{
    cz_http *h = r->h;
    cz_error err;
    cz_error_clear(&err);
    cz_http_job_desc d;
    if (r->multipart && !r->body)
        return send_error(r, 400, "bad_request", "multipart request without its \"job\" field (the job's JSON)");
    cz_status st = cz_http_parse_job(r->body ? r->body : "", r->body_len, &d, &err);
    if (st != CZ_OK) return send_error(r, 400, st == CZ_ERR_FORMAT ? "bad_json" : "bad_request", "%s", cz_error_msg(&err));
    enum MHD_Result rc;
    if ((d.n_paths || d.n_circuit) && r->nup) {
        rc = send_error(r, 400, "bad_request", "witnesses given both by path or circuit and uploaded: choose one");
        goto out;
    }
    /* a circuit's partitions: each written to the spool as an upload would be */
    for (size_t i = 0; i < d.n_circuit; i++) {
        if (r->nup == r->capup) {
            size_t nc = r->capup ? 2 * r->capup : 8;
            cz_spool_file *u = realloc(r->ups, nc * sizeof *u);
            if (!u) {
                rc = send_error(r, 500, "internal", "out of memory");
                goto out;
            }
            r->ups = u;
            r->capup = nc;
        }
        cz_spool_file *f = &r->ups[r->nup];
        if (cz_spool_begin(h->c.spool, f, &err) != CZ_OK) {
            rc = send_error(r, 500, "spool", "%s", cz_error_msg(&err));
            goto out;
        }
        r->nup++;
        if (cz_spool_write(f, d.circuit_parts[i], strlen(d.circuit_parts[i]), &err) != CZ_OK ||
            cz_spool_finish(f, &err) != CZ_OK) {
            rc = send_error(r, 500, "spool", "%s", cz_error_msg(&err));
            goto out;
        }
    }
    if (!d.n_paths && !r->nup) {
        rc = send_error(r, 400, "bad_request", "no witness: give 'witnesses' paths or upload witness parts");
        goto out;
    }
    cz_jobs_key_info ki;
    int created = 0;
    int code = resolve_key(r, d.key, &ki, &created, &err);
    if (code) {
        rc = send_error(r, code, code == 404 ? "unknown_key" : code == 403 ? "forbidden" : code == 503 ? "unavailable" : "bad_key",
                        "%s", cz_error_msg(&err));
        goto out;
    }
    size_t n = d.n_paths ? d.n_paths : r->nup;
    cz_jobs_part_in *parts = calloc(n, sizeof *parts);
    if (!parts) {
        rc = send_error(r, 500, "internal", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < d.n_paths; i++) {
        cz_error perr;
        cz_error_clear(&perr);
        cz_status cs = cz_http_confine(d.paths[i], h->c.allow, h->c.n_allow, parts[i].witness, sizeof parts[i].witness,
                                       &perr);
        if (cs != CZ_OK) {
            rc = send_error(r, cs == CZ_ERR_MISMATCH ? 403 : 400, cs == CZ_ERR_MISMATCH ? "forbidden" : "bad_witness",
                            "witnesses[%zu]: %s", i, cz_error_msg(&perr));
            free(parts);
            goto out;
        }
    }
    for (size_t i = 0; i < r->nup; i++) parts[i].upload = &r->ups[i];
    cz_jobs_submit_req sr = {ki.key.id, d.priority, d.has_idem ? d.idem : NULL, parts, n};
    cz_store_job job;
    int existing = 0;
    cz_jobs_refusal why;
    st = cz_jobs_submit(h->c.jobs, &sr, &job, &existing, &why, &err);
    free(parts);
    if (st != CZ_OK) {
        static const struct {
            int status;
            const char *code;
        } map[] = {{500, "internal"},      {400, "bad_request"}, {404, "unknown_key"}, {422, "bad_witness"},
                   {409, "idempotency_conflict"}, {422, "budget"}, {429, "queue_full"},  {503, "unavailable"},
                   {500, "internal"}};
        rc = send_error(r, map[why].status, map[why].code, "%s", cz_error_msg(&err));
        goto out;
    }
    json_t *o = job_json(&job, NULL, 0, NULL);
    json_object_set_new(o, "existing", json_boolean(existing));
    rc = send_json(r, existing ? 200 : 202, o);
out:
    cz_http_job_desc_free(&d);
    return rc;
}

static void watch_fired(void *ctx);

static enum MHD_Result do_proof_get(req *r)
{
    cz_http *h = r->h;
    cz_error err;
    cz_error_clear(&err);
    double wait = 0;
    if (!query_uint(r->conn, "wait", 0, 3600, &wait))
        return send_error(r, 400, "bad_request", "wait: a number of seconds from 0 to 3600 is expected");
    cz_store_job job;
    cz_store_part *parts = NULL;
    cz_jobs_progress *pg = NULL;
    size_t n = 0;
    int found = 0;
    if (cz_jobs_get(h->c.jobs, r->id, &job, &parts, &n, &pg, 1, &found, &err) != CZ_OK)
        return store_error(r, &err);
    if (!found) return send_error(r, 404, "not_found", "no job '%s'", r->id);
    if (!cz_job_state_final(job.state) && wait > 0 && !r->resumed && !h->draining) {
        /* long-poll: suspended until the job ends or the time is up */
        cz_store_parts_free(parts, n);
        free(pg);
        pthread_mutex_lock(&h->mu);
        r->waiting = 1;
        r->deadline = mono_s() + wait;
        r->next_waiter = h->waiters;
        h->waiters = r;
        pthread_mutex_unlock(&h->mu);
        MHD_suspend_connection(r->conn);
        void *w = cz_jobs_watch(h->c.jobs, r->id, watch_fired, r);
        pthread_mutex_lock(&h->mu);
        if (!r->fired) r->watch = w;
        pthread_mutex_unlock(&h->mu);
        return MHD_YES;
    }
    json_t *o = job_json(&job, parts, n, pg);
    cz_store_parts_free(parts, n);
    free(pg);
    return send_json(r, 200, o);
}

static enum MHD_Result do_result(req *r)
{
    cz_http *h = r->h;
    cz_error err;
    cz_error_clear(&err);
    cz_store_job job;
    cz_store_part *parts = NULL;
    size_t n = 0;
    int found = 0;
    if (cz_jobs_get(h->c.jobs, r->id, &job, &parts, &n, NULL, 1, &found, &err) != CZ_OK)
        return store_error(r, &err);
    if (!found) return send_error(r, 404, "not_found", "no job '%s'", r->id);
    enum MHD_Result rc;
    if (job.state != CZ_JOB_DONE) {
        rc = send_error(r, 409, "not_done", "job '%s' is %s: its results exist when it is done", r->id,
                        cz_job_state_name(job.state));
        goto out;
    }
    double part = -1;
    if (!query_uint(r->conn, "partition", -1, 1e9, &part) || (part >= 0 && (size_t)part >= n)) {
        rc = send_error(r, 400, "bad_request", "partition: an index below %zu is expected", n);
        goto out;
    }
    size_t lo = part >= 0 ? (size_t)part : 0, hi = part >= 0 ? (size_t)part + 1 : n;
    if (!strcmp(r->file, "proof.bin")) {
        if (!parts[0].has_bin) {
            rc = send_error(r, 409, "no_binary", "proof.bin (bellperson) exists for BLS12-381 keys only");
            goto out;
        }
        size_t len = (hi - lo) * 192;
        char *b = malloc(len ? len : 1);
        if (!b) {
            rc = send_error(r, 500, "internal", "out of memory");
            goto out;
        }
        for (size_t i = lo; i < hi; i++) memcpy(b + (i - lo) * 192, parts[i].proof_bin, 192);
        rc = send_buf(r, 200, "application/octet-stream", b, len, 1, NULL, NULL);
    } else {
        const int pub = !strcmp(r->file, "public.json");
        /* one partition: the snarkjs file itself; several: an array of them in partition order */
        char *out = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);
        if (!f) {
            rc = send_error(r, 500, "internal", "out of memory");
            goto out;
        }
        if (hi - lo > 1) fputs("[\n", f);
        for (size_t i = lo; i < hi; i++) {
            const char *t = pub ? parts[i].public_json : parts[i].proof_json;
            fputs(t ? t : "null", f);
            if (hi - lo > 1) fputs(i + 1 < hi ? ",\n" : "\n]", f);
        }
        fputc('\n', f);
        fclose(f);
        rc = send_buf(r, 200, "application/json", out, len, 1, NULL, NULL);
    }
    if (rc == MHD_YES) (void)cz_jobs_mark_fetched(h->c.jobs, r->id, NULL);
out:
    cz_store_parts_free(parts, n);
    return rc;
}

static enum MHD_Result do_proof_delete(req *r)
{
    cz_error err;
    cz_error_clear(&err);
    int found = 0, removed = 0;
    if (cz_jobs_delete(r->h->c.jobs, r->id, &found, &removed, &err) != CZ_OK)
        return store_error(r, &err);
    if (!found) return send_error(r, 404, "not_found", "no job '%s'", r->id);
    return send_json(r, 200, json_pack("{s:s,s:b}", "id", r->id, removed ? "removed" : "cancelled", 1));
}

/* ---- long-polls ---- */

static void resume_locked(req *r)
{
    if (r->resumed || !r->waiting) return;
    r->resumed = 1;
    r->waiting = 0;
    for (req **pp = &r->h->waiters; *pp; pp = &(*pp)->next_waiter)
        if (*pp == r) {
            *pp = r->next_waiter;
            break;
        }
    MHD_resume_connection(r->conn);
}

static void watch_fired(void *ctx)
{
    req *r = ctx;
    pthread_mutex_lock(&r->h->mu);
    r->fired = 1;
    r->watch = NULL;
    resume_locked(r);
    pthread_mutex_unlock(&r->h->mu);
}

static void *timer_main(void *arg)
{
    cz_http *h = arg;
    for (;;) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        double t = mono_s();
        pthread_mutex_lock(&h->mu);
        int stop = h->stop;
        for (;;) { /* one expired waiter at a time: its watch is dropped first */
            req *due = NULL;
            for (req *r = h->waiters; r && !due; r = r->next_waiter)
                if (stop || r->deadline <= t) due = r;
            if (!due) break;
            void *w = due->watch;
            due->watch = NULL;
            pthread_mutex_unlock(&h->mu);
            cz_jobs_unwatch(h->c.jobs, w); /* after it returns the watch does not fire */
            pthread_mutex_lock(&h->mu);
            resume_locked(due);
        }
        pthread_mutex_unlock(&h->mu);
        if (stop) return NULL;
    }
}

/* ---- the request cycle ---- */

static enum MHD_Result post_iter(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
                                 const char *content_type, const char *transfer_encoding, const char *data,
                                 uint64_t off, size_t size)
{
    (void)kind;
    (void)filename;
    (void)content_type;
    (void)transfer_encoding;
    req *r = cls;
    cz_http *h = r->h;
    cz_error err;
    cz_error_clear(&err);
    if (r->err_status) return MHD_YES; /* discarding */
    if (!strcmp(key, "job")) {
        r->in_up = 0;
        if (r->body_len + size > JSON_BODY_MAX) {
            defer_error(r, 413, "too_large", "the \"job\" field is larger than %u bytes", JSON_BODY_MAX);
            return MHD_YES;
        }
        char *b = realloc(r->body, r->body_len + size + 1);
        if (!b) {
            defer_error(r, 500, "internal", "out of memory");
            return MHD_YES;
        }
        r->body = b;
        memcpy(r->body + r->body_len, data, size);
        r->body_len += size;
        r->body[r->body_len] = '\0';
        return MHD_YES;
    }
    if (strcmp(key, "witness") != 0) {
        defer_error(r, 400, "bad_request", "unknown multipart field '%s' (expected job and witness)", key);
        return MHD_YES;
    }
    if (off == 0 || !r->in_up) { /* a new witness part */
        if (r->nup == h->c.conf->max_partitions) {
            defer_error(r, 400, "bad_request", "more than %u witness parts", h->c.conf->max_partitions);
            return MHD_YES;
        }
        if (r->nup == r->capup) {
            size_t nc = r->capup ? 2 * r->capup : 4;
            cz_spool_file *u = realloc(r->ups, nc * sizeof *u);
            if (!u) {
                defer_error(r, 500, "internal", "out of memory");
                return MHD_YES;
            }
            r->ups = u;
            r->capup = nc;
        }
        if (cz_spool_begin(h->c.spool, &r->ups[r->nup], &err) != CZ_OK) {
            defer_error(r, 500, "spool", "%s", cz_error_msg(&err));
            return MHD_YES;
        }
        r->nup++;
        r->in_up = 1;
    }
    if (size && cz_spool_write(&r->ups[r->nup - 1], data, size, &err) != CZ_OK)
        defer_error(r, 507, "spool", "%s", cz_error_msg(&err));
    if (cz_spool_bytes(h->c.spool) > h->c.conf->max_spool_bytes)
        defer_error(r, 429, "spool_full", "the spool holds more than %llu bytes of witnesses; try again later",
                    (unsigned long long)h->c.conf->max_spool_bytes);
    return MHD_YES;
}

/* routes url; 0 when unknown */
static int route(req *r, const char *url)
{
    if (!strcmp(url, "/healthz")) return r->route = R_HEALTHZ;
    if (!strcmp(url, "/metrics")) return r->route = R_METRICS;
    if (!strcmp(url, "/v1/status")) return r->route = R_STATUS;
    if (!strcmp(url, "/v1/keys")) return r->route = R_KEYS;
    if (!strcmp(url, "/v1/circuits")) return r->route = R_CIRCUITS;
    if (!strcmp(url, "/v1/proofs")) return r->route = R_PROOFS;
    const char *rest = NULL;
    enum route one = R_NONE;
    if (!strncmp(url, "/v1/keys/", 9)) rest = url + 9, one = R_KEY;
    if (!strncmp(url, "/v1/proofs/", 11)) rest = url + 11, one = R_PROOF;
    if (!rest || !*rest) return 0;
    const char *slash = strchr(rest, '/');
    size_t idn = slash ? (size_t)(slash - rest) : strlen(rest);
    if (idn == 0 || idn >= sizeof r->id) return 0;
    for (size_t i = 0; i < idn; i++)
        if (!((rest[i] >= 'a' && rest[i] <= 'z') || (rest[i] >= '0' && rest[i] <= '9') || rest[i] == '_')) return 0;
    memcpy(r->id, rest, idn);
    r->id[idn] = '\0';
    if (!slash) return r->route = one;
    const char *f = slash + 1;
    if (one == R_KEY) return !strcmp(f, "verification_key.json") ? (r->route = R_KEY_VK) : 0;
    if (strcmp(f, "proof.json") && strcmp(f, "public.json") && strcmp(f, "proof.bin")) return 0;
    snprintf(r->file, sizeof r->file, "%s", f);
    return r->route = R_RESULT;
}

static enum MHD_Result dispatch(req *r)
{
    switch (r->route) {
    case R_HEALTHZ: return do_healthz(r);
    case R_METRICS: return do_metrics(r);
    case R_STATUS: return do_status(r);
    case R_KEYS: return r->method == 'P' ? do_keys_post(r) : do_keys_list(r);
    case R_CIRCUITS: return do_circuits(r);
    case R_KEY: return do_key(r);
    case R_KEY_VK: return do_key_vk(r);
    case R_PROOFS: return do_submit(r);
    case R_PROOF: return r->method == 'D' ? do_proof_delete(r) : do_proof_get(r);
    case R_RESULT: return do_result(r);
    default: return send_error(r, 404, "not_found", "no such endpoint");
    }
}

/* which methods a route takes */
static int method_ok(const req *r)
{
    switch (r->route) {
    case R_HEALTHZ:
    case R_METRICS:
    case R_STATUS:
    case R_KEY_VK:
    case R_CIRCUITS:
    case R_RESULT: return r->method == 'G';
    case R_KEYS: return r->method == 'G' || r->method == 'P';
    case R_KEY: return r->method == 'G' || r->method == 'D';
    case R_PROOFS: return r->method == 'P';
    case R_PROOF: return r->method == 'G' || r->method == 'D';
    default: return 1;
    }
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                 const char *version, const char *upload_data, size_t *upload_data_size,
                                 void **con_cls)
{
    (void)version;
    cz_http *h = cls;
    req *r = *con_cls;
    if (!r) { /* the headers are in */
        r = calloc(1, sizeof *r);
        if (!r) return MHD_NO;
        r->h = h;
        r->conn = conn;
        *con_cls = r;
        r->method = !strcmp(method, "GET") || !strcmp(method, "HEAD") ? 'G'
                    : !strcmp(method, "POST")                         ? 'P'
                    : !strcmp(method, "DELETE")                       ? 'D'
                                                                      : '?';
        /* the token first: without it a client learns nothing, not even
         * which endpoints exist (/healthz alone is open) */
        const int known = route(r, url);
        if (!(known && r->route == R_HEALTHZ) && !authorized(h, conn))
            return send_error(r, 401, "unauthorized", "a valid bearer token is required");
        if (!known) return refuse_early(r, 404, "not_found", "no such endpoint: %s", url);
        if (!method_ok(r)) return refuse_early(r, 405, "method_not_allowed", "%s is not allowed on %s", method, url);
        if (r->method == 'P') {
            const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
            if (cl && strtoull(cl, NULL, 10) > h->c.conf->max_body_bytes)
                return refuse_early(r, 413, "too_large", "the body (%s bytes) is larger than the limit of %llu bytes",
                                    cl, (unsigned long long)h->c.conf->max_body_bytes);
            if (r->route == R_PROOFS && h->draining)
                return refuse_early(r, 503, "unavailable", "the daemon is shutting down");
            const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
            if (r->route == R_PROOFS && ct && !strncasecmp(ct, "multipart/form-data", 19)) {
                r->multipart = 1;
                r->pp = MHD_create_post_processor(conn, POST_BUFFER, post_iter, r);
                if (!r->pp) return refuse_early(r, 400, "bad_request", "malformed multipart/form-data header");
            } else if (ct && strncasecmp(ct, "application/json", 16) != 0) {
                return refuse_early(r, 415, "unsupported_media_type",
                                    "Content-Type '%s': expected application/json%s (curl: -H 'Content-Type: "
                                    "application/json')",
                                    ct, r->route == R_PROOFS ? " or multipart/form-data" : "");
            }
        }
        return MHD_YES;
    }
    if (r->done) { /* answered early: drop what still arrives */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (*upload_data_size) {
        r->received += *upload_data_size;
        if (r->received > h->c.conf->max_body_bytes)
            defer_error(r, 413, "too_large", "the body is larger than the limit of %llu bytes",
                        (unsigned long long)h->c.conf->max_body_bytes);
        if (r->err_status) {
            /* refused once the body is in: the rest is dropped (for up to DRAIN_S) */
            if (mono_s() - r->err_at > DRAIN_S) return MHD_NO;
        } else if (r->multipart) {
            if (MHD_post_process(r->pp, upload_data, *upload_data_size) != MHD_YES)
                defer_error(r, 400, "bad_request", "malformed multipart/form-data body");
        } else {
            if (r->body_len + *upload_data_size > JSON_BODY_MAX) {
                defer_error(r, 413, "too_large", "a JSON body larger than %u bytes", JSON_BODY_MAX);
            } else {
                char *b = realloc(r->body, r->body_len + *upload_data_size + 1);
                if (!b) {
                    defer_error(r, 500, "internal", "out of memory");
                } else {
                    r->body = b;
                    memcpy(r->body + r->body_len, upload_data, *upload_data_size);
                    r->body_len += *upload_data_size;
                    r->body[r->body_len] = '\0';
                }
            }
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    /* the whole body is in (or there was none), or a long-poll resumed */
    if (r->err_status) return send_error(r, r->err_status, r->err_code, "%s", r->err_msg);
    if (r->multipart) {
        cz_error err;
        cz_error_clear(&err);
        for (size_t i = 0; i < r->nup; i++)
            if (cz_spool_finish(&r->ups[i], &err) != CZ_OK) return send_error(r, 500, "spool", "%s", cz_error_msg(&err));
    }
    return dispatch(r);
}

static void completed_cb(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    (void)toe;
    cz_http *h = cls;
    req *r = *con_cls;
    if (!r) return;
    pthread_mutex_lock(&h->mu);
    void *w = r->watch;
    r->watch = NULL;
    if (r->waiting)
        for (req **pp = &h->waiters; *pp; pp = &(*pp)->next_waiter)
            if (*pp == r) {
                *pp = r->next_waiter;
                break;
            }
    pthread_mutex_unlock(&h->mu);
    cz_jobs_unwatch(h->c.jobs, w);
    if (r->pp) MHD_destroy_post_processor(r->pp);
    for (size_t i = 0; i < r->nup; i++) cz_spool_abort(&r->ups[i]); /* what the job did not take */
    free(r->ups);
    free(r->body);
    free(r);
    *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    cz_http *h = cls;
    if (!cz_log_enabled(&h->c.log, CZ_LOG_WARN)) return;
    char m[512];
    vsnprintf(m, sizeof m, fmt, ap);
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == '\r')) m[--n] = '\0';
    cz_log(&h->c.log, CZ_LOG_WARN, "http", "%s", m);
}

cz_status cz_http_start(cz_http **out, const cz_http_config *c, cz_error *err)
{
    *out = NULL;
    char host[256];
    uint16_t port;
    cz_status st = cz_conf_listen_parse(c->conf, host, sizeof host, &port, err);
    if (st != CZ_OK) return st;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (!strcmp(host, "localhost")) snprintf(host, sizeof host, "127.0.0.1");
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons(port);
    } else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(port);
        flags |= MHD_USE_IPv6;
    } else {
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "listen '%s': '%s' is not an IPv4 or IPv6 address", c->conf->listen,
                            host);
    }
    if (c->tls_cert_pem) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
            return cz_error_set(err, CZ_ERR_UNSUPPORTED, "this libmicrohttpd has no TLS support");
        flags |= MHD_USE_TLS;
    }
    if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES) flags |= MHD_USE_EPOLL;
    cz_http *h = calloc(1, sizeof *h);
    if (!h) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    h->c = *c;
    h->started = now_s();
    pthread_mutex_init(&h->mu, NULL);
    unsigned threads = c->conf->http_threads ? c->conf->http_threads : 1;
    struct MHD_OptionItem ops[] = {
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, h},
        {MHD_OPTION_SOCK_ADDR, 0, &ss},
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)threads, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)c->conf->connection_timeout_s, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, 1024, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, 256, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed_cb, h},
        {c->tls_cert_pem ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)c->tls_cert_pem},
        {c->tls_cert_pem ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)c->tls_key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    h->d = MHD_start_daemon(flags, port, NULL, NULL, access_cb, h, MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
    if (!h->d) {
        int e = errno;
        pthread_mutex_destroy(&h->mu);
        free(h);
        return cz_error_set(err, CZ_ERR_IO, "cannot listen on %s: %s", c->conf->listen, e ? strerror(e) : "failed");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    if (pthread_create(&h->timer, NULL, timer_main, h) != 0) {
        MHD_stop_daemon(h->d);
        pthread_mutex_destroy(&h->mu);
        free(h);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start the HTTP timer thread");
    }
    h->timer_started = 1;
    *out = h;
    return CZ_OK;
}

uint16_t cz_http_port(const cz_http *h) { return h->port; }

void cz_http_set_draining(cz_http *h, int on) { h->draining = on; }

void cz_http_stop(cz_http *h)
{
    if (!h) return;
    pthread_mutex_lock(&h->mu);
    h->stop = 1;
    pthread_mutex_unlock(&h->mu);
    if (h->timer_started) pthread_join(h->timer, NULL); /* it resumed every waiter */
    MHD_stop_daemon(h->d);
    pthread_mutex_destroy(&h->mu);
    free(h);
}
