/*
 * daemon/config: cuzkd's configuration.
 *
 * DESIGN: one declarative table (daemon/config.c) lists every key: its name,
 * type, default, bounds and help line. The same table drives the INI file
 * reader (libinih; keys are read from the section [cuzkd], or from no
 * section), the command-line flags (every key is also --key VALUE, which
 * overrides the file), --check-config (prints the effective configuration,
 * one `key = value` line each; where a value came from is not recorded) and
 * the documentation (daemon/cuzkd.conf.example is the table written out
 * with its help). A value out of its bounds, an unknown key and a malformed
 * number are errors naming the key, the file and the line (or the flag).
 *
 * Values: numbers are decimal digits only (no sign, no 0x); byte sizes may
 * end in K, M, G, T, P or E (either case), powers of 1024 (64M = 64 MiB);
 * durations are seconds and may end in s, m, h or d; booleans are
 * true/false, yes/no, on/off, 1/0 (any case); strings are at most their
 * field's size less one, without control characters, leading or trailing
 * blanks, or a ';' first or after a blank (which a file reads as a comment).
 *
 * Keys that may be given several times (allow_dir, preload): repeated lines
 * or flags append, one value of comma-separated entries appends each (an
 * entry cannot hold a comma), an empty value empties the list; more than
 * CZ_CONF_LIST_MAX entries is an error.
 *
 * Not thread-safe: cz_conf_load_file sets libinih's process-wide line
 * limit for the time of the parse; load at start, from one thread.
 */
#ifndef CZ_DAEMON_CONFIG_H
#define CZ_DAEMON_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define CZ_CONF_LIST_MAX 16

typedef struct cz_conf {
    char listen[256];          /* "127.0.0.1:8840" */
    char tls_cert[4096], tls_key[4096];
    int insecure_plaintext;    /* 1: allow a non-loopback listener without TLS */
    char token_file[4096];     /* bearer token (else the environment variable CUZKD_TOKEN) */
    char data_dir[4096];       /* store (cuzkd.db), spool/ and pce/ */
    char allow_dir[CZ_CONF_LIST_MAX][4096];
    int n_allow_dir;
    char preload[CZ_CONF_LIST_MAX][4096];
    int n_preload;
    uint64_t budget;           /* bytes, 0: detected */
    char devices[256];         /* backend/devspec.h */
    int gpus;
    int gpu_lanes;             /* steps at once per GPU listed once (engine.h) */
    char msm_tables[16];       /* auto | off | eager: the GPU MSM's tables of multiples */
    char msm_table_windows[16]; /* whole | fit | 2..64 (cz_backend_opts.msm_table_windows) */
    int synth_workers;         /* 0: automatic */
    uint64_t max_jobs;         /* jobs not final at most (429 beyond) */
    uint64_t max_spool_bytes;  /* witness bytes in the spool at most (429 beyond) */
    uint64_t max_body_bytes;   /* one request's body at most (413 beyond) */
    uint32_t max_partitions;   /* partitions of one job at most */
    uint64_t retention_s;      /* finished jobs kept this long */
    int keep_until_fetched;    /* 1: and not before a result was fetched */
    uint64_t connection_timeout_s;
    uint64_t shutdown_grace_s; /* running partitions may finish this long after SIGTERM */
    uint32_t http_threads;
    char log_format[16];       /* text | json */
    char log_level[16];        /* error | warn | info | debug */
    char host_id[64];          /* owner of claims in the store (default: the hostname) */
    char store[1024];          /* "": <data_dir>/cuzkd.db; a path (SQLite) or postgres://... */
    char spool_dir[4096];      /* "": <data_dir>/spool; several hosts: one shared directory */
    uint64_t lease_s;          /* a claim's lease in a shared store */
    uint32_t max_attempts;     /* claims of one partition at most before its job fails */
} cz_conf;

/* Every key at its default. */
void cz_conf_defaults(cz_conf *c);
/* Reads the INI file path into c (over what is there): keys in [cuzkd] or
 * before any section; `#` and `;` start comment lines, " ;" an inline
 * comment. All or nothing: on an error c is left as it was. CZ_ERR_IO when
 * the file cannot be opened or read, CZ_ERR_FORMAT for a line that is no
 * `key = value`, section or comment, CZ_ERR_INVALID_ARG for an unknown
 * section or key or a bad value; the message starts with path:line. */
cz_status cz_conf_load_file(cz_conf *c, const char *path, cz_error *err);
/* Sets one key from text ("from" names the source in messages: a file and
 * line, "--flag"; may be NULL). value NULL: a boolean given bare (true); an
 * error for any other key. CZ_ERR_INVALID_ARG for an unknown key or a bad
 * value (the message names from, the key, the value and what was
 * expected); the key keeps its value then. */
cz_status cz_conf_set(cz_conf *c, const char *key, const char *value, const char *from, cz_error *err);
/* Checks what no single key can: TLS cert and key together, a non-loopback
 * listener only with a token (token_file or a non-empty CUZKD_TOKEN in the
 * environment) and (unless insecure_plaintext) TLS, a data directory, at
 * least one allowed directory, max_body_bytes <= max_spool_bytes; and
 * every key's own rules again (for fields set directly). CZ_ERR_INVALID_ARG. */
cz_status cz_conf_validate(const cz_conf *c, cz_error *err);
/* 1 when the listen address is a loopback address (127.0.0.0/8, ::1, localhost);
 * 0 otherwise, and for an address that does not parse. */
int cz_conf_listen_is_loopback(const cz_conf *c);
/* Splits listen ("host:port", "[v6]:port") into host (without brackets,
 * at most cap - 1 bytes) and port (1..65535). CZ_ERR_INVALID_ARG. */
cz_status cz_conf_listen_parse(const cz_conf *c, char *host, size_t cap, uint16_t *port, cz_error *err);
/* Writes `key = value` lines (the effective configuration, fp a FILE *);
 * lists comma-separated, sizes with their suffix. The output read back by
 * cz_conf_load_file gives the same configuration. No secret is held in
 * cz_conf: the token's file is printed, never the token. */
void cz_conf_print(const cz_conf *c, void *fp);
/* Writes the commented example file (every key, its default and help);
 * it loads without error. */
void cz_conf_print_example(void *fp);
/* The help of the flags, one line per key (`  --key VALUE  help`). */
void cz_conf_print_flags(void *fp);
/* 1 when key names a configuration key (for the flag parser). */
int cz_conf_has_key(const char *key);
/* 1 when --key takes a value; 0 for booleans given bare and unknown keys. */
int cz_conf_key_takes_value(const char *key);

#endif
