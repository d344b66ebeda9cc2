/*
 * daemon/http: cuzkd's HTTP/JSON API (docs/API.md) over libmicrohttpd.
 *
 * DESIGN: libmicrohttpd runs the I/O on a small pool of poll threads
 * (config http_threads); handlers never block on proving: they check,
 * read or write the store through the job manager and answer. Uploads
 * (multipart/form-data) are streamed part by part into the spool through
 * libmicrohttpd's post processor, never held whole in memory; JSON bodies
 * are capped. A long-poll (GET /v1/proofs/{id}?wait=S) suspends its
 * connection and is resumed by the job's end (a watch of the job manager)
 * or by its deadline (checked by a timer thread every 50 ms). Every
 * request but GET /healthz needs the bearer token when one is configured
 * (compared in constant time); without it: 401 and nothing else. Key and
 * witness paths must resolve (symlinks followed) inside an allowed
 * directory. Every error is {"error": {"code": ..., "message": ...}} with a
 * fitting status. While draining (shutdown), new jobs get 503.
 */
#ifndef CZ_DAEMON_HTTP_H
#define CZ_DAEMON_HTTP_H

#include <stdint.h>

#include "daemon/config.h"
#include "daemon/jobs.h"
#include "daemon/metrics.h"
#include "daemon/spool.h"
#include "engine/engine.h"
#include "util/log.h"

typedef struct cz_http cz_http;

typedef struct cz_http_config {
    const cz_conf *conf;
    cz_jobs *jobs;
    cz_engine *engine;
    cz_metrics *metrics;
    cz_spool *spool;
    cz_logger log;
    const char *token;      /* NULL: no authentication (loopback only) */
    const char *tls_cert_pem, *tls_key_pem; /* NULL: plain HTTP */
    /* the allowed directories, canonical (realpath) */
    char (*allow)[4096];
    int n_allow;
    const char *version;
} cz_http_config;

/* Binds and starts serving. */
cz_status cz_http_start(cz_http **out, const cz_http_config *c, cz_error *err);
/* The port bound (useful with port 0). */
uint16_t cz_http_port(const cz_http *h);
/* On: new jobs and keys are refused with 503, /healthz answers 503. */
void cz_http_set_draining(cz_http *h, int on);
/* Wakes every long-poll and stops serving. */
void cz_http_stop(cz_http *h);

/* (for tests and the fuzzer) The confinement rule: canonical path of path
 * into out when it resolves inside one of the allowed directories. */
cz_status cz_http_confine(const char *path, char (*allow)[4096], int n_allow, char *out, size_t cap,
                          cz_error *err);
/* Parses a POST /v1/proofs JSON description (the body of an
 * application/json request or the "job" field of a multipart one) into its
 * fields (for the fuzzer and tests; the same function the handler uses). */
typedef struct cz_http_job_desc {
    char key[4200];
    char priority[16];
    char idem[256];
    int has_idem;
    size_t n_paths;        /* witnesses given by path */
    char (*paths)[4200];   /* malloc'ed */
    size_t n_uploads;      /* "uploads": the number of witness parts to expect (multipart) */
    /* "circuit", "params", "inputs": a built-in circuit (circuit/native.h)
     * in place of witnesses; parts[i] is partition i's file text
     * {"circuit", "params", "input"} (cz_native_synth_file reads it) */
    size_t n_circuit;
    char **circuit_parts; /* malloc'ed, each malloc'ed */
} cz_http_job_desc;
cz_status cz_http_parse_job(const char *body, size_t len, cz_http_job_desc *out, cz_error *err);
void cz_http_job_desc_free(cz_http_job_desc *d);

#endif
