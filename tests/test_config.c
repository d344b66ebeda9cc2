/*
 * test_config: the daemon's configuration (daemon/config.h). Defaults;
 * every type's good and bad values, with messages naming the source, the
 * key and what was expected, and the field kept on a bad value; bounds;
 * lists (append, commas, emptying, the limit); INI files (comments,
 * sections, repeated keys, continuation lines, long lines, a BOM) and their
 * errors with file:line (unknown key and section, a malformed line, a
 * missing file), all or nothing; the cross-key rules of validate (TLS
 * pairs, a non-loopback listener with a token and TLS or
 * insecure_plaintext, IPv6 addresses, data and allowed directories) and
 * fields set by hand; print read back to the same configuration (also of
 * random states); daemon/cuzkd.conf.example equal to cz_conf_print_example
 * and loading cleanly; the flag help; random short strings through
 * cz_conf_set for every key (run under ASan/UBSan) keeping every field
 * within its rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/config.h"
#include "test_util.h"

#ifndef CZ_SOURCE_DIR
#error "CZ_SOURCE_DIR (the source tree) is needed for the example file"
#endif

static char tmpdir[256];

static const char *const all_keys[] = {
    "listen",
    "tls_cert",
    "tls_key",
    "token_file",
    "insecure_plaintext",
    "data_dir",
    "allow_dir",
    "preload",
    "devices",
    "gpus",
    "gpu_lanes",
    "msm_tables",
    "msm_table_windows",
    "synth_workers",
    "budget",
    "max_jobs",
    "max_spool_bytes",
    "max_body_bytes",
    "max_partitions",
    "retention_s",
    "keep_until_fetched",
    "connection_timeout_s",
    "shutdown_grace_s",
    "http_threads",
    "log_format",
    "log_level",
    "host_id",
    "store",
    "spool_dir",
    "lease_s",
    "max_attempts",
};
#define NKEYS ((int)(sizeof all_keys / sizeof all_keys[0]))

static int has(const char *s, const char *sub)
{
    return strstr(s, sub) != NULL;
}

/* Sets key = value from "--key"; the status, the message in err. */
static cz_status set(cz_conf *c, const char *key, const char *value, cz_error *err)
{
    char from[80];
    snprintf(from, sizeof from, "--%s", key);
    cz_error_clear(err);
    return cz_conf_set(c, key, value, from, err);
}

/* key = value refused, with a message naming the flag, the key and words. */
static int refused(cz_conf *c, const char *key, const char *value, const char *words)
{
    cz_error err;
    char flag[80];
    snprintf(flag, sizeof flag, "--%s: %s = ", key, key);
    if (set(c, key, value, &err) != CZ_ERR_INVALID_ARG) {
        fprintf(stderr, "  %s = \"%s\" was accepted\n", key, value);
        return 0;
    }
    const char *m = cz_error_msg(&err);
    if (!has(m, flag) || !has(m, "expected") || (words && !has(m, words))) {
        fprintf(stderr, "  %s = \"%s\": message \"%s\" lacks \"%s\"/\"expected\"/\"%s\"\n", key, value, m, flag,
                words ? words : "");
        return 0;
    }
    return 1;
}

static int conf_equal(const cz_conf *a, const cz_conf *b)
{
#define SAME_STR(f) (strcmp(a->f, b->f) == 0)
#define SAME(f) (a->f == b->f)
    if (!(SAME_STR(listen) && SAME_STR(tls_cert) && SAME_STR(tls_key) && SAME(insecure_plaintext) &&
          SAME_STR(token_file) && SAME_STR(data_dir) && SAME(n_allow_dir) && SAME(n_preload) && SAME(budget) &&
          SAME_STR(devices) && SAME(gpus) && SAME(synth_workers) && SAME(max_jobs) && SAME(max_spool_bytes) &&
          SAME(max_body_bytes) && SAME(max_partitions) && SAME(retention_s) && SAME(keep_until_fetched) &&
          SAME(connection_timeout_s) && SAME(shutdown_grace_s) && SAME(http_threads) && SAME_STR(log_format) &&
          SAME_STR(log_level) && SAME_STR(host_id)))
        return 0;
    for (int i = 0; i < a->n_allow_dir && i < CZ_CONF_LIST_MAX; i++)
        if (!SAME_STR(allow_dir[i])) return 0;
    for (int i = 0; i < a->n_preload && i < CZ_CONF_LIST_MAX; i++)
        if (!SAME_STR(preload[i])) return 0;
    return 1;
#undef SAME
#undef SAME_STR
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fputs(text, f);
    fclose(f);
}

/* Loads text (written to a file named name) over *c; the status. */
static cz_status load_text(cz_conf *c, const char *name, const char *text, cz_error *err, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", tmpdir, name);
    write_file(path, text);
    cz_error_clear(err);
    return cz_conf_load_file(c, path, err);
}

/* The whole of a FILE * written so far, as a string (caller frees). */
static char *slurp(FILE *f)
{
    long n = ftell(f);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    rewind(f);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    return s;
}

static char *read_path(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    char *s = slurp(f);
    fclose(f);
    return s;
}

/* print(c), loaded over the defaults, equals c. */
static int round_trip(const cz_conf *c, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    cz_conf_print(c, f);
    fclose(f);
    cz_conf back;
    cz_error err;
    cz_error_clear(&err);
    cz_conf_defaults(&back);
    if (cz_conf_load_file(&back, path, &err) != CZ_OK) {
        fprintf(stderr, "  round trip: %s\n", cz_error_msg(&err));
        return 0;
    }
    return conf_equal(c, &back);
}

/* A configuration that validates: loopback, a data and an allowed directory. */
static void good_conf(cz_conf *c)
{
    cz_conf_defaults(c);
    snprintf(c->data_dir, sizeof c->data_dir, "/var/lib/cuzkd");
    snprintf(c->allow_dir[0], sizeof c->allow_dir[0], "/srv/params");
    c->n_allow_dir = 1;
}

/* ---- defaults ----------------------------------------------------------- */

static void test_defaults(void)
{
    cz_conf c;
    cz_conf_defaults(&c);
    CHECK(!strcmp(c.listen, "127.0.0.1:8840"));
    CHECK(!c.tls_cert[0] && !c.tls_key[0] && !c.token_file[0] && !c.insecure_plaintext);
    CHECK(!c.data_dir[0] && c.n_allow_dir == 0 && c.n_preload == 0);
    CHECK(c.budget == 0 && !strcmp(c.devices, "auto") && c.gpus == 0 && c.synth_workers == 0);
    CHECK(c.max_jobs == 10000);
    CHECK(c.max_spool_bytes == 64ull << 30);
    CHECK(c.max_body_bytes == 16ull << 30);
    CHECK(c.max_partitions == 1024);
    CHECK(c.retention_s == 86400 && !c.keep_until_fetched);
    CHECK(c.connection_timeout_s == 60 && c.shutdown_grace_s == 30 && c.http_threads == 4);
    CHECK(!strcmp(c.log_format, "text") && !strcmp(c.log_level, "info") && !c.host_id[0]);
    CHECK(cz_conf_listen_is_loopback(&c));

    /* the defaults alone lack the required keys; with them, every key's
     * default passes its own rules */
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_conf_validate(&c, &err) == CZ_ERR_INVALID_ARG && has(cz_error_msg(&err), "data_dir"));
    snprintf(c.data_dir, sizeof c.data_dir, "/d");
    cz_error_clear(&err);
    CHECK(cz_conf_validate(&c, &err) == CZ_ERR_INVALID_ARG && has(cz_error_msg(&err), "allow_dir"));
    good_conf(&c);
    cz_error_clear(&err);
    CHECK_MSG(cz_conf_validate(&c, &err) == CZ_OK, "%s", cz_error_msg(&err));

    for (int i = 0; i < NKEYS; i++)
        CHECK_MSG(cz_conf_has_key(all_keys[i]), "%s", all_keys[i]);
    CHECK(!cz_conf_has_key("token") && !cz_conf_has_key("") && !cz_conf_has_key(NULL) && !cz_conf_has_key("LISTEN"));
    CHECK(cz_conf_key_takes_value("listen") && cz_conf_key_takes_value("allow_dir") &&
          cz_conf_key_takes_value("max_jobs"));
    CHECK(!cz_conf_key_takes_value("insecure_plaintext") && !cz_conf_key_takes_value("keep_until_fetched"));
    CHECK(!cz_conf_key_takes_value("nope"));
}

/* ---- values ------------------------------------------------------------- */

static void test_uint(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    CHECK(set(&c, "max_jobs", "5", &err) == CZ_OK && c.max_jobs == 5);
    CHECK(set(&c, "max_jobs", "007", &err) == CZ_OK && c.max_jobs == 7); /* decimal, leading zeros */
    CHECK(set(&c, "max_jobs", "100000000", &err) == CZ_OK && c.max_jobs == 100000000);
    CHECK(set(&c, "max_jobs", "1", &err) == CZ_OK && c.max_jobs == 1);
    CHECK(refused(&c, "max_jobs", "0", "below the minimum"));
    CHECK(refused(&c, "max_jobs", "100000001", "above the maximum"));
    CHECK(refused(&c, "max_jobs", "-1", "sign"));
    CHECK(refused(&c, "max_jobs", "+1", "sign"));
    CHECK(refused(&c, "max_jobs", "12x", "\"x\" after the number"));
    CHECK(refused(&c, "max_jobs", "0x10", "after the number"));
    CHECK(refused(&c, "max_jobs", "1e3", "after the number"));
    CHECK(refused(&c, "max_jobs", "10K", "after the number")); /* no suffixes on plain numbers */
    CHECK(refused(&c, "max_jobs", "", "empty"));
    CHECK(refused(&c, "max_jobs", " 5", "not a number"));
    CHECK(refused(&c, "max_jobs", "5 ", "after the number"));
    CHECK(refused(&c, "max_jobs", "abc", "not a number"));
    CHECK(refused(&c, "max_jobs", "99999999999999999999999", "too large"));
    CHECK(refused(&c, "max_jobs", "18446744073709551616", "too large"));
    CHECK(c.max_jobs == 1); /* unchanged by every refusal */

    /* the message: from, key, value, what was expected with the bounds */
    cz_conf_set(&c, "http_threads", "999", "cuzkd.conf:7", (cz_error_clear(&err), &err));
    CHECK_MSG(has(err.msg, "cuzkd.conf:7: http_threads = \"999\": above the maximum") && has(err.msg, "1 to 256"), "%s",
              err.msg);

    /* 4-byte fields (int, uint32_t) */
    CHECK(set(&c, "gpus", "32", &err) == CZ_OK && c.gpus == 32);
    CHECK(refused(&c, "gpus", "33", "0 to 32"));
    CHECK(refused(&c, "gpus", "4294967296", "above the maximum"));
    CHECK(c.gpu_lanes == 2); /* the default */
    CHECK(set(&c, "gpu_lanes", "4", &err) == CZ_OK && c.gpu_lanes == 4);
    CHECK(set(&c, "gpu_lanes", "1", &err) == CZ_OK && c.gpu_lanes == 1);
    CHECK(refused(&c, "gpu_lanes", "0", "1 to 4"));
    CHECK(refused(&c, "gpu_lanes", "5", "1 to 4"));
    /* the GPU MSM's tables: a mode, and how much of a table must fit */
    CHECK(!strcmp(c.msm_tables, "auto") && !strcmp(c.msm_table_windows, "whole")); /* the defaults */
    CHECK(set(&c, "msm_tables", "off", &err) == CZ_OK && !strcmp(c.msm_tables, "off"));
    CHECK(set(&c, "msm_tables", "EAGER", &err) == CZ_OK && !strcmp(c.msm_tables, "eager"));
    CHECK(refused(&c, "msm_tables", "sometimes", "one of auto, off, eager"));
    CHECK(refused(&c, "msm_tables", "", NULL));
    {
        static const char *const good[] = {"fit", "2", "64", "11", "whole"};
        static const char *const bad[] = {"1", "0", "65", "x", "4x", "-3", "+4", "", "fitting", "007x", "999999999999"};
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
            CHECK_MSG(set(&c, "msm_table_windows", good[i], &err) == CZ_OK && !strcmp(c.msm_table_windows, good[i]),
                      "msm_table_windows = %s: %s", good[i], cz_error_msg(&err));
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            CHECK_MSG(refused(&c, "msm_table_windows", bad[i], "whole, fit or a number of windows from 2 to 64"),
                      "msm_table_windows = '%s'", bad[i]);
    }
    CHECK(!strcmp(c.msm_table_windows, "whole")); /* unchanged by the refusals */
    CHECK(set(&c, "synth_workers", "1024", &err) == CZ_OK && c.synth_workers == 1024);
    CHECK(refused(&c, "synth_workers", "1025", NULL));
    CHECK(set(&c, "max_partitions", "1048576", &err) == CZ_OK && c.max_partitions == 1048576);
    CHECK(refused(&c, "max_partitions", "0", NULL));
    CHECK(set(&c, "http_threads", "256", &err) == CZ_OK && c.http_threads == 256);
    CHECK(refused(&c, "http_threads", "0", NULL));
}

static void test_size(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    CHECK(set(&c, "max_spool_bytes", "64M", &err) == CZ_OK && c.max_spool_bytes == 64ull << 20);
    CHECK(set(&c, "max_spool_bytes", "2G", &err) == CZ_OK && c.max_spool_bytes == 2ull << 30);
    CHECK(set(&c, "max_spool_bytes", "1T", &err) == CZ_OK && c.max_spool_bytes == 1ull << 40);
    CHECK(set(&c, "max_spool_bytes", "3p", &err) == CZ_OK && c.max_spool_bytes == 3ull << 50);
    CHECK(set(&c, "max_spool_bytes", "1E", &err) == CZ_OK && c.max_spool_bytes == 1ull << 60);
    CHECK(set(&c, "max_spool_bytes", "1536k", &err) == CZ_OK && c.max_spool_bytes == 1536ull << 10);
    CHECK(set(&c, "max_spool_bytes", "1048576", &err) == CZ_OK && c.max_spool_bytes == 1048576);
    CHECK(refused(&c, "max_spool_bytes", "1048575", "below the minimum"));
    CHECK(refused(&c, "max_spool_bytes", "1023K", "from 1M to 1E"));
    CHECK(refused(&c, "max_spool_bytes", "2E", "above the maximum"));
    CHECK(refused(&c, "max_spool_bytes", "16E", "too large"));
    CHECK(refused(&c, "max_spool_bytes", "20000000000000000000K", "too large"));
    CHECK(refused(&c, "max_spool_bytes", "1.5G", "after the number"));
    CHECK(refused(&c, "max_spool_bytes", "64MB", "after the number"));
    CHECK(refused(&c, "max_spool_bytes", "64MiB", "after the number"));
    CHECK(refused(&c, "max_spool_bytes", "64 M", "after the number"));
    CHECK(refused(&c, "max_spool_bytes", "G", "not a number"));
    CHECK(refused(&c, "max_spool_bytes", "-1G", "sign"));
    CHECK(refused(&c, "max_spool_bytes", "64X", "powers of 1024"));
    CHECK(c.max_spool_bytes == 1048576);
    CHECK(set(&c, "budget", "0", &err) == CZ_OK && c.budget == 0);
    CHECK(set(&c, "budget", "100G", &err) == CZ_OK && c.budget == 100ull << 30);
    CHECK(set(&c, "max_body_bytes", "64K", &err) == CZ_OK && c.max_body_bytes == 64ull << 10);
    CHECK(refused(&c, "max_body_bytes", "63K", NULL));
}

static void test_duration(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    CHECK(set(&c, "retention_s", "90", &err) == CZ_OK && c.retention_s == 90);
    CHECK(set(&c, "retention_s", "90s", &err) == CZ_OK && c.retention_s == 90);
    CHECK(set(&c, "retention_s", "2m", &err) == CZ_OK && c.retention_s == 120);
    CHECK(set(&c, "retention_s", "3h", &err) == CZ_OK && c.retention_s == 10800);
    CHECK(set(&c, "retention_s", "7d", &err) == CZ_OK && c.retention_s == 7 * 86400);
    CHECK(set(&c, "retention_s", "0", &err) == CZ_OK && c.retention_s == 0);
    CHECK(set(&c, "retention_s", "3650d", &err) == CZ_OK && c.retention_s == 3650ull * 86400);
    CHECK(refused(&c, "retention_s", "3651d", "above the maximum"));
    CHECK(refused(&c, "retention_s", "2M", "after the number")); /* durations: lower case only */
    CHECK(refused(&c, "retention_s", "1w", "s, m, h or d"));
    CHECK(refused(&c, "retention_s", "1h30m", "after the number"));
    CHECK(refused(&c, "retention_s", "99999999999999999d", "too large"));
    CHECK(refused(&c, "retention_s", "-5", "sign"));
    CHECK(c.retention_s == 3650ull * 86400);
    CHECK(set(&c, "shutdown_grace_s", "1d", &err) == CZ_OK && c.shutdown_grace_s == 86400);
    CHECK(refused(&c, "shutdown_grace_s", "25h", "from 0 to 1d"));
    CHECK(refused(&c, "connection_timeout_s", "0", "below the minimum"));
    CHECK(set(&c, "connection_timeout_s", "1", &err) == CZ_OK && c.connection_timeout_s == 1);
}

static void test_bool_enum(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    static const char *const yes[] = {"true", "yes", "on", "1", "TRUE", "Yes", "oN"};
    static const char *const no[] = {"false", "no", "off", "0", "FALSE", "No", "OFF"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        CHECK(set(&c, "insecure_plaintext", yes[i], &err) == CZ_OK && c.insecure_plaintext == 1);
        CHECK(set(&c, "insecure_plaintext", no[i], &err) == CZ_OK && c.insecure_plaintext == 0);
    }
    CHECK(refused(&c, "insecure_plaintext", "2", "true/false"));
    CHECK(refused(&c, "insecure_plaintext", "maybe", "yes/no"));
    CHECK(refused(&c, "insecure_plaintext", "", "on/off"));
    CHECK(refused(&c, "keep_until_fetched", "truee", "1/0"));
    CHECK(refused(&c, "keep_until_fetched", " true", NULL));
    /* given bare (value NULL): true; NULL for anything else is an error */
    CHECK(set(&c, "keep_until_fetched", NULL, &err) == CZ_OK && c.keep_until_fetched == 1);
    CHECK(set(&c, "max_jobs", NULL, &err) == CZ_ERR_INVALID_ARG && has(err.msg, "--max_jobs: max_jobs: no value"));
    CHECK(set(&c, "listen", NULL, &err) == CZ_ERR_INVALID_ARG && !strcmp(c.listen, "127.0.0.1:8840"));

    CHECK(set(&c, "log_format", "json", &err) == CZ_OK && !strcmp(c.log_format, "json"));
    CHECK(set(&c, "log_format", "TEXT", &err) == CZ_OK && !strcmp(c.log_format, "text")); /* canonical */
    CHECK(refused(&c, "log_format", "xml", "one of text, json"));
    CHECK(refused(&c, "log_format", "tex", NULL));
    CHECK(refused(&c, "log_format", "textjson", NULL));
    CHECK(refused(&c, "log_format", "", NULL));
    for (int i = 0; i < 4; i++) {
        static const char *const lv[] = {"error", "warn", "info", "debug"};
        CHECK(set(&c, "log_level", lv[i], &err) == CZ_OK && !strcmp(c.log_level, lv[i]));
    }
    CHECK(set(&c, "log_level", "Info", &err) == CZ_OK && !strcmp(c.log_level, "info"));
    CHECK(refused(&c, "log_level", "trace", "error, warn, info, debug"));
    CHECK(refused(&c, "log_level", "warning", NULL));
    CHECK(!strcmp(c.log_level, "info") && !strcmp(c.log_format, "text"));
}

static void test_strings(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    static char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[0] = '/';
    big[4095] = '\0';
    CHECK(set(&c, "data_dir", big, &err) == CZ_OK && strlen(c.data_dir) == 4095);
    big[4095] = 'a';
    big[4096] = '\0';
    CHECK(refused(&c, "data_dir", big, "4096 bytes long; expected at most 4095"));
    CHECK(strlen(c.data_dir) == 4095);
    CHECK(set(&c, "data_dir", "/var/lib/cuzk d;x", &err) == CZ_OK); /* blanks and ';' inside are fine */
    CHECK(set(&c, "data_dir", "", &err) == CZ_OK && !c.data_dir[0]);
    CHECK(refused(&c, "data_dir", "/a\nb", "control character"));
    CHECK(refused(&c, "data_dir", "/a\tb", "control character"));
    CHECK(refused(&c, "data_dir", "/a\x7f", "control character"));
    CHECK(refused(&c, "data_dir", " /a", "leading or trailing blanks"));
    CHECK(refused(&c, "data_dir", "/a ", "leading or trailing blanks"));
    CHECK(refused(&c, "data_dir", "/a ;b", "comment"));
    CHECK(refused(&c, "data_dir", ";b", "comment"));
    CHECK(refused(&c, "allow_dir", "/a,;b", "entry 2: a ';'"));
    CHECK(set(&c, "tls_cert", "/etc/c\xc3\xa9rt.pem", &err) == CZ_OK); /* UTF-8 is fine */

    char host[64];
    memset(host, 'h', sizeof host);
    host[63] = '\0';
    CHECK(set(&c, "host_id", host, &err) == CZ_OK && strlen(c.host_id) == 63);
    host[62] = '\0';
    CHECK(set(&c, "host_id", host, &err) == CZ_OK);
    memset(host, 'h', sizeof host);
    char longer[80];
    snprintf(longer, sizeof longer, "%.63sh", host);
    CHECK(refused(&c, "host_id", longer, "at most 63"));
    CHECK(refused(&c, "host_id", "my host", "one word"));
    CHECK(set(&c, "host_id", "node-7.dc1", &err) == CZ_OK && !strcmp(c.host_id, "node-7.dc1"));
    CHECK(set(&c, "devices", "cuda:0,1", &err) == CZ_OK && !strcmp(c.devices, "cuda:0,1"));
    CHECK(refused(&c, "devices", "cuda:0, 1", "one word"));

    /* an unknown key: the source and the name, a near key suggested */
    CHECK(set(&c, "max_job", "5", &err) == CZ_ERR_INVALID_ARG);
    CHECK_MSG(has(err.msg, "--max_job: unknown key \"max_job\"") && has(err.msg, "did you mean max_jobs?"), "%s",
              err.msg);
    CHECK(set(&c, "completely_different", "5", &err) == CZ_ERR_INVALID_ARG && !has(err.msg, "did you mean"));
    CHECK(set(&c, "token", "secret", &err) == CZ_ERR_INVALID_ARG && has(err.msg, "unknown key"));
    cz_error_clear(&err);
    CHECK(cz_conf_set(&c, NULL, "x", NULL, &err) == CZ_ERR_INVALID_ARG && has(err.msg, "unknown key"));
    cz_error_clear(&err);
    CHECK(cz_conf_set(&c, "max_jobs", "x", NULL, &err) == CZ_ERR_INVALID_ARG && has(err.msg, "max_jobs"));
    CHECK(cz_conf_set(&c, "max_jobs", "x", "f", NULL) == CZ_ERR_INVALID_ARG); /* err may be NULL */
    /* an odd byte in a message is escaped */
    CHECK(set(&c, "max_jobs", "\x01\xff", &err) == CZ_ERR_INVALID_ARG && has(err.msg, "\"\\x01\\xff\""));
}

/* store: a path or a PostgreSQL URL, never a password in it */
static void test_store_key(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    CHECK(!c.store[0] && !c.spool_dir[0] && c.lease_s == 30 && c.max_attempts == 3);
    CHECK(set(&c, "store", "/var/lib/cuzk/other.db", &err) == CZ_OK && !strcmp(c.store, "/var/lib/cuzk/other.db"));
    CHECK(set(&c, "store", "postgres://cuzk@db.example:5432/cuzk", &err) == CZ_OK);
    CHECK(set(&c, "store", "postgresql://cuzk@10.0.0.5/cuzk?sslmode=require", &err) == CZ_OK);
    CHECK(set(&c, "store", "postgresql:///cuzk?host=/run/postgresql", &err) == CZ_OK);
    CHECK(refused(&c, "store", "postgres://cuzk:s3cret@db/cuzk", "password"));
    CHECK(refused(&c, "store", "postgresql://db/cuzk?user=cuzk&password=x", "password"));
    CHECK(refused(&c, "store", "mysql://db/cuzk", "unknown scheme"));
    CHECK(!strcmp(c.store, "postgresql:///cuzk?host=/run/postgresql")); /* kept its value */
    CHECK(refused(&c, "lease_s", "1", "lease_s"));
    CHECK(set(&c, "lease_s", "2m", &err) == CZ_OK && c.lease_s == 120);
    CHECK(refused(&c, "max_attempts", "0", "max_attempts"));
    CHECK(set(&c, "max_attempts", "5", &err) == CZ_OK && c.max_attempts == 5);
}

static void test_listen(void)
{
    cz_conf c;
    cz_error err;
    char host[256];
    uint16_t port = 0;
    cz_conf_defaults(&c);
    struct {
        const char *addr, *host;
        unsigned port;
        int loopback;
    } good[] = {
        {"127.0.0.1:8840", "127.0.0.1", 8840, 1},
        {"127.1.2.3:1", "127.1.2.3", 1, 1},
        {"localhost:65535", "localhost", 65535, 1},
        {"[::1]:8840", "::1", 8840, 1},
        {"[::ffff:127.0.0.1]:80", "::ffff:127.0.0.1", 80, 1},
        {"0.0.0.0:8840", "0.0.0.0", 8840, 0},
        {"10.1.2.3:443", "10.1.2.3", 443, 0},
        {"128.0.0.1:1", "128.0.0.1", 1, 0},
        {"[::]:8840", "::", 8840, 0},
        {"[2001:db8::7]:08840", "2001:db8::7", 8840, 0},
        {"[::2]:9", "::2", 9, 0},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CHECK_MSG(set(&c, "listen", good[i].addr, &err) == CZ_OK, "%s: %s", good[i].addr, err.msg);
        cz_error_clear(&err);
        CHECK_MSG(cz_conf_listen_parse(&c, host, sizeof host, &port, &err) == CZ_OK && !strcmp(host, good[i].host) &&
                      port == good[i].port,
                  "%s -> %s %u", good[i].addr, host, port);
        CHECK_MSG(cz_conf_listen_is_loopback(&c) == good[i].loopback, "%s", good[i].addr);
    }
    struct {
        const char *addr, *why;
    } bad[] = {
        {"127.0.0.1", "no port"},
        {"127.0.0.1:", "not a number"},
        {"127.0.0.1:0", "1 to 65535"},
        {"127.0.0.1:65536", "port out of range"},
        {"127.0.0.1:100000000000000000000", "out of range"},
        {"127.0.0.1:88x", "after the port"},
        {"127.0.0.1:-1", "not a number"},
        {":8840", "no host"},
        {"::1:8840", "brackets"},
        {"[::1]8840", "]:"},
        {"[::1:8840", "]:"},
        {"[127.0.0.1]:80", "IPv6"},
        {"[]:80", "no host"},
        {"[::g]:80", "IPv6"},
        {"example.com:80", "IPv4 address or localhost"},
        {"127.0.0.256:80", "IPv4"},
        {"127.1:80", "IPv4"},
        {"LOCALHOST:80", "localhost"},
        {"", "no port"},
        {"[fe80::1%eth0]:80", "IPv6"},
    };
    CHECK(set(&c, "listen", "127.0.0.1:8840", &err) == CZ_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(refused(&c, "listen", bad[i].addr, bad[i].why), "%s", bad[i].addr);
    CHECK(!strcmp(c.listen, "127.0.0.1:8840"));

    /* set by hand: parse and is_loopback say no, without overrunning */
    memset(c.listen, 'x', sizeof c.listen);
    CHECK(!cz_conf_listen_is_loopback(&c));
    cz_error_clear(&err);
    CHECK(cz_conf_listen_parse(&c, host, sizeof host, &port, &err) == CZ_ERR_INVALID_ARG);
    snprintf(c.listen, sizeof c.listen, "127.0.0.1");
    cz_error_clear(&err);
    CHECK(cz_conf_listen_parse(&c, host, sizeof host, &port, &err) == CZ_ERR_INVALID_ARG &&
          has(err.msg, "listen = \"127.0.0.1\""));
    CHECK(!cz_conf_listen_is_loopback(&c));
    /* a host buffer too small */
    snprintf(c.listen, sizeof c.listen, "[2001:db8::7]:1");
    char small[8];
    cz_error_clear(&err);
    CHECK(cz_conf_listen_parse(&c, small, sizeof small, &port, &err) == CZ_ERR_INVALID_ARG);
    CHECK(cz_conf_listen_parse(&c, host, 11, &port, &err) == CZ_ERR_INVALID_ARG);
    cz_error_clear(&err);
    CHECK(cz_conf_listen_parse(&c, host, 12, &port, &err) == CZ_OK && !strcmp(host, "2001:db8::7"));
}

/* ---- lists -------------------------------------------------------------- */

static void test_lists(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    CHECK(set(&c, "allow_dir", "/a", &err) == CZ_OK && c.n_allow_dir == 1 && !strcmp(c.allow_dir[0], "/a"));
    CHECK(set(&c, "allow_dir", "/b,/c", &err) == CZ_OK && c.n_allow_dir == 3 && !strcmp(c.allow_dir[1], "/b") &&
          !strcmp(c.allow_dir[2], "/c"));
    CHECK(set(&c, "allow_dir", "  /d d , /e\t", &err) == CZ_OK && c.n_allow_dir == 5 &&
          !strcmp(c.allow_dir[3], "/d d") && !strcmp(c.allow_dir[4], "/e"));
    CHECK(refused(&c, "allow_dir", "/f,,/g", "empty entry"));
    CHECK(refused(&c, "allow_dir", "/f,", "empty entry"));
    CHECK(refused(&c, "allow_dir", ",/f", "empty entry"));
    CHECK(refused(&c, "allow_dir", "/f, ,/g", "empty entry"));
    CHECK(refused(&c, "allow_dir", "/f,/g\x01", "entry 2: a control character"));
    CHECK(refused(&c, "allow_dir", "/f,/g ;x", "comment"));
    CHECK(c.n_allow_dir == 5); /* a refused value appends nothing, not even its good entries */
    CHECK(set(&c, "allow_dir", "", &err) == CZ_OK && c.n_allow_dir == 0 && !c.allow_dir[0][0]);
    CHECK(set(&c, "allow_dir", "/x", &err) == CZ_OK && c.n_allow_dir == 1);
    CHECK(set(&c, "allow_dir", "  ", &err) == CZ_OK && c.n_allow_dir == 0);

    /* the limit: 16 entries, from one value or several */
    char v[200] = "";
    for (int i = 0; i < CZ_CONF_LIST_MAX; i++) {
        size_t n = strlen(v);
        snprintf(v + n, sizeof v - n, "%s/p%d", i ? "," : "", i);
    }
    CHECK(set(&c, "preload", v, &err) == CZ_OK && c.n_preload == CZ_CONF_LIST_MAX && !strcmp(c.preload[15], "/p15"));
    CHECK(refused(&c, "preload", "/q", "the 16 already given; expected at most 16"));
    CHECK(c.n_preload == CZ_CONF_LIST_MAX);
    CHECK(set(&c, "preload", "", &err) == CZ_OK && c.n_preload == 0);
    size_t n = strlen(v);
    snprintf(v + n, sizeof v - n, ",/p16");
    CHECK(refused(&c, "preload", v, "more than 16 entries"));
    CHECK(c.n_preload == 0);
    for (int i = 0; i < 12; i++)
        CHECK(set(&c, "preload", "/k", &err) == CZ_OK);
    CHECK(refused(&c, "preload", "/1,/2,/3,/4,/5", "5 entries with the 12 already given"));
    CHECK(set(&c, "preload", "/1,/2,/3,/4", &err) == CZ_OK && c.n_preload == 16);

    /* an entry of 4095 bytes fits, 4096 does not */
    static char big[4200];
    memset(big, 'z', sizeof big);
    big[0] = '/';
    big[4095] = '\0';
    CHECK(set(&c, "allow_dir", "", &err) == CZ_OK && set(&c, "allow_dir", big, &err) == CZ_OK &&
          strlen(c.allow_dir[0]) == 4095);
    big[4095] = 'z';
    big[4096] = '\0';
    CHECK(refused(&c, "allow_dir", big, "entry 1: 4096 bytes long"));
    CHECK(c.n_allow_dir == 1);
}

/* ---- files -------------------------------------------------------------- */

static void test_files(void)
{
    cz_conf c, before;
    cz_error err;
    char path[512];

    cz_conf_defaults(&c);
    const char *text = "# a comment\n"
                       "; another comment\n"
                       "max_jobs = 77   ; inline comment\n"
                       "\n"
                       "[cuzkd]\n"
                       "  listen=[::1]:9000\n"
                       "allow_dir = /srv/a\n"
                       "allow_dir = /srv/b, /srv/c\n"
                       "allow_dir: /srv/d\n"
                       "preload = /srv/a/k1.zkey\n"
                       "    /srv/a/k2.zkey\n" /* a continuation line: another value of preload */
                       "data_dir = /var/lib/cuzk;d\n"
                       "budget = 200G\n"
                       "retention_s = 2h\n"
                       "keep_until_fetched = yes\n"
                       "log_format = json\n"
                       "tls_cert = /etc/cuzk/cert.pem\n"
                       "tls_key = /etc/cuzk/key.pem\n"
                       "\r\n"
                       "[cuzkd]\n"
                       "host_id = box1\r\n";
    CHECK_MSG(load_text(&c, "good.conf", text, &err, path, sizeof path) == CZ_OK, "%s", cz_error_msg(&err));
    CHECK(c.max_jobs == 77 && !strcmp(c.listen, "[::1]:9000"));
    CHECK(c.n_allow_dir == 4 && !strcmp(c.allow_dir[0], "/srv/a") && !strcmp(c.allow_dir[2], "/srv/c") &&
          !strcmp(c.allow_dir[3], "/srv/d"));
    CHECK(c.n_preload == 2 && !strcmp(c.preload[1], "/srv/a/k2.zkey"));
    CHECK(!strcmp(c.data_dir, "/var/lib/cuzk;d")); /* ';' without a blank before it is no comment */
    CHECK(c.budget == 200ull << 30 && c.retention_s == 7200 && c.keep_until_fetched == 1);
    CHECK(!strcmp(c.log_format, "json") && !strcmp(c.host_id, "box1"));
    cz_error_clear(&err);
    CHECK_MSG(cz_conf_validate(&c, &err) == CZ_OK, "%s", cz_error_msg(&err));

    /* a file over a configuration: the keys it names change, the others stay */
    CHECK(load_text(&c, "over.conf", "max_jobs = 5\nallow_dir = /srv/e\n", &err, path, sizeof path) == CZ_OK);
    CHECK(c.max_jobs == 5 && c.n_allow_dir == 5 && c.budget == 200ull << 30);
    /* a UTF-8 BOM */
    CHECK(load_text(&c, "bom.conf", "\xEF\xBB\xBF[cuzkd]\nmax_jobs = 6\n", &err, path, sizeof path) == CZ_OK &&
          c.max_jobs == 6);
    CHECK(load_text(&c, "empty.conf", "", &err, path, sizeof path) == CZ_OK && c.max_jobs == 6);

    /* errors name the file and the line; nothing of the file is applied */
    static const char nul_text[] = "max_jobs = 9\nmax_jobs = 1\0x\n";
    struct {
        const char *name, *text, *msg;
        cz_status st;
    } bad[] = {
        {"k.conf", "max_jobs = 9\n\n# c\nmax_jbos = 5\n", "k.conf:4: unknown key \"max_jbos\" (did you mean max_jobs?)",
         CZ_ERR_INVALID_ARG},
        {"s.conf", "max_jobs = 9\n[server]\nlisten = 0.0.0.0:1\n", "s.conf:2: unknown section \"server\"",
         CZ_ERR_INVALID_ARG},
        {"s2.conf", "max_jobs = 9\n[cuzkd]\n[empty]\n[cuzkd]\n", "s2.conf:3: unknown section \"empty\"",
         CZ_ERR_INVALID_ARG},
        {"s3.conf", "[ cuzkd ]\n", "s3.conf:1: unknown section \" cuzkd \"", CZ_ERR_INVALID_ARG},
        {"v.conf", "max_jobs = 9\nmax_spool_bytes = 12Q\n",
         "v.conf:2: max_spool_bytes = \"12Q\": \"Q\" after the number", CZ_ERR_INVALID_ARG},
        {"r.conf", "http_threads = 1000\n", "r.conf:1: http_threads = \"1000\": above the maximum", CZ_ERR_INVALID_ARG},
        {"f.conf", "max_jobs = 9\njust words\n", "f.conf:2: expected `key = value`", CZ_ERR_FORMAT},
        {"f2.conf", "[cuzkd\nmax_jobs = 9\n", "f2.conf:1: expected", CZ_ERR_FORMAT},
        /* the first error in the file is the one reported, whichever kind */
        {"o1.conf", "max_jobs = x\nnonsense\n", "o1.conf:1: max_jobs", CZ_ERR_INVALID_ARG},
        {"o2.conf", "nonsense\nmax_jobs = x\n", "o2.conf:1: expected", CZ_ERR_FORMAT},
        {"o3.conf", "nonsense\n[x]\n", "o3.conf:1: expected", CZ_ERR_FORMAT},
        {"o4.conf", "[x]\nnonsense\n", "o4.conf:1: unknown section", CZ_ERR_INVALID_ARG},
        {"n.conf", nul_text, "n.conf:2: a NUL byte", CZ_ERR_FORMAT},
        {"l.conf", "allow_dir =\n", NULL, CZ_OK}, /* (filled below: too long a line) */
    };
    static char huge[80000];
    memcpy(huge, "allow_dir = /", 13);
    memset(huge + 13, 'q', sizeof huge - 15);
    huge[sizeof huge - 2] = '\n';
    huge[sizeof huge - 1] = '\0';
    bad[13].text = huge;
    bad[13].msg = "l.conf:1: line longer than";
    bad[13].st = CZ_ERR_FORMAT;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        before = c;
        snprintf(path, sizeof path, "%s/%s", tmpdir, bad[i].name);
        if (!strcmp(bad[i].name, "n.conf")) { /* a NUL byte inside: written by length */
            FILE *f = fopen(path, "w");
            if (f) {
                fwrite(nul_text, 1, sizeof nul_text - 1, f);
                fclose(f);
            }
        } else {
            write_file(path, bad[i].text);
        }
        cz_error_clear(&err);
        cz_status st = cz_conf_load_file(&c, path, &err);
        char want[600];
        snprintf(want, sizeof want, "%s/%s", tmpdir, bad[i].msg);
        CHECK_MSG(st == bad[i].st && has(err.msg, want), "%s: status %d, \"%s\", wanted \"%s\"", bad[i].name, (int)st,
                  err.msg, want);
        CHECK_MSG(conf_equal(&c, &before) && c.max_jobs == 6, "%s changed the configuration", bad[i].name);
    }

    /* a missing file, a directory */
    cz_error_clear(&err);
    snprintf(path, sizeof path, "%s/missing.conf", tmpdir);
    CHECK(cz_conf_load_file(&c, path, &err) == CZ_ERR_IO && has(err.msg, "missing.conf: cannot open"));
    cz_error_clear(&err);
    CHECK(cz_conf_load_file(&c, tmpdir, &err) == CZ_ERR_IO && has(err.msg, "cannot"));

    /* a line of 16 long paths (Filecoin parameter names are long) fits */
    static char longline[16 * 4100 + 64];
    size_t o = (size_t)snprintf(longline, sizeof longline, "[cuzkd]\npreload = ");
    for (int i = 0; i < CZ_CONF_LIST_MAX; i++) {
        longline[o++] = i ? ',' : '/';
        if (i) longline[o++] = '/';
        for (int j = 0; j < 4000; j++)
            longline[o++] = (char)('a' + (i + j) % 26);
    }
    memcpy(longline + o, "\nmax_jobs = 8\n", 15);
    cz_conf_defaults(&c);
    CHECK_MSG(load_text(&c, "long.conf", longline, &err, path, sizeof path) == CZ_OK, "%s", cz_error_msg(&err));
    CHECK(c.n_preload == 16 && strlen(c.preload[15]) == 4001 && c.max_jobs == 8);
}

/* ---- validate ----------------------------------------------------------- */

static void test_validate(void)
{
    cz_conf c;
    cz_error err;
    unsetenv("CUZKD_TOKEN");
#define VALID(c) (cz_error_clear(&err), cz_conf_validate((c), &err) == CZ_OK)
#define INVALID(c, words)                                                                                              \
    (cz_error_clear(&err), cz_conf_validate((c), &err) == CZ_ERR_INVALID_ARG && has(err.msg, words))

    good_conf(&c);
    CHECK(VALID(&c));
    /* TLS: both or neither */
    snprintf(c.tls_cert, sizeof c.tls_cert, "/c.pem");
    CHECK_MSG(INVALID(&c, "tls_cert is set but tls_key is not"), "%s", err.msg);
    c.tls_cert[0] = '\0';
    snprintf(c.tls_key, sizeof c.tls_key, "/k.pem");
    CHECK_MSG(INVALID(&c, "tls_key is set but tls_cert is not"), "%s", err.msg);
    snprintf(c.tls_cert, sizeof c.tls_cert, "/c.pem");
    CHECK(VALID(&c));

    /* non-loopback: a token first, then TLS or insecure_plaintext */
    good_conf(&c);
    cz_error e2;
    CHECK(set(&c, "listen", "0.0.0.0:8840", &e2) == CZ_OK);
    CHECK_MSG(INVALID(&c, "listen = \"0.0.0.0:8840\" is not a loopback address: it needs a bearer token"), "%s",
              err.msg);
    snprintf(c.tls_cert, sizeof c.tls_cert, "/c.pem");
    snprintf(c.tls_key, sizeof c.tls_key, "/k.pem");
    CHECK(INVALID(&c, "token_file")); /* TLS alone is not enough */
    c.tls_cert[0] = c.tls_key[0] = '\0';
    snprintf(c.token_file, sizeof c.token_file, "/etc/cuzk/token");
    CHECK_MSG(INVALID(&c, "it needs TLS (tls_cert and tls_key), or insecure_plaintext"), "%s", err.msg);
    c.insecure_plaintext = 1;
    CHECK(VALID(&c));
    c.insecure_plaintext = 0;
    snprintf(c.tls_cert, sizeof c.tls_cert, "/c.pem");
    snprintf(c.tls_key, sizeof c.tls_key, "/k.pem");
    CHECK(VALID(&c));
    /* the token from the environment (empty does not count) */
    c.token_file[0] = '\0';
    setenv("CUZKD_TOKEN", "", 1);
    CHECK(INVALID(&c, "bearer token"));
    setenv("CUZKD_TOKEN", "s3cret-token", 1);
    CHECK(VALID(&c));
    /* IPv6 */
    CHECK(set(&c, "listen", "[::]:8840", &e2) == CZ_OK && VALID(&c));
    unsetenv("CUZKD_TOKEN");
    CHECK(INVALID(&c, "listen = \"[::]:8840\" is not a loopback address"));
    CHECK(set(&c, "listen", "[::1]:8840", &e2) == CZ_OK && VALID(&c));
    CHECK(set(&c, "listen", "localhost:8840", &e2) == CZ_OK && VALID(&c));

    /* the required keys */
    good_conf(&c);
    c.data_dir[0] = '\0';
    CHECK(INVALID(&c, "data_dir is not set"));
    good_conf(&c);
    c.n_allow_dir = 0;
    CHECK(INVALID(&c, "allow_dir is not set"));
    /* max_body_bytes within max_spool_bytes */
    good_conf(&c);
    c.max_body_bytes = c.max_spool_bytes;
    CHECK(VALID(&c));
    c.max_body_bytes = c.max_spool_bytes + 1;
    CHECK_MSG(INVALID(&c, "max_body_bytes = 68719476737 exceeds max_spool_bytes = 64G"), "%s", err.msg);

    /* fields set by hand are held to their keys' rules */
    good_conf(&c);
    c.http_threads = 0;
    CHECK_MSG(INVALID(&c, "http_threads = 0: below the minimum"), "%s", err.msg);
    good_conf(&c);
    c.gpus = -1;
    CHECK(INVALID(&c, "gpus = 4294967295: above the maximum"));
    good_conf(&c);
    c.max_jobs = 0;
    CHECK(INVALID(&c, "max_jobs"));
    good_conf(&c);
    c.insecure_plaintext = 2;
    CHECK(INVALID(&c, "insecure_plaintext = 2"));
    good_conf(&c);
    snprintf(c.log_level, sizeof c.log_level, "loud");
    CHECK(INVALID(&c, "log_level = \"loud\": expected one of error, warn, info, debug"));
    good_conf(&c);
    memset(c.log_format, 'x', sizeof c.log_format);
    CHECK(INVALID(&c, "log_format: not a terminated string"));
    good_conf(&c);
    snprintf(c.listen, sizeof c.listen, "somehost:80");
    CHECK(INVALID(&c, "listen = \"somehost:80\""));
    good_conf(&c);
    c.n_allow_dir = 17;
    CHECK(INVALID(&c, "allow_dir: 17 entries"));
    good_conf(&c);
    c.n_preload = 1;
    CHECK(INVALID(&c, "preload: entry 1 is empty"));
    snprintf(c.preload[0], sizeof c.preload[0], "/a,/b");
    CHECK(INVALID(&c, "preload: entry 1 = \"/a,/b\": a comma"));
    good_conf(&c);
    snprintf(c.data_dir, sizeof c.data_dir, "/a\nb");
    CHECK(INVALID(&c, "data_dir = \"/a\\x0ab\": a control character"));
#undef VALID
#undef INVALID
}

/* ---- printing ----------------------------------------------------------- */

static void test_print(void)
{
    cz_conf c;
    cz_error err;
    cz_conf_defaults(&c);
    CHECK(round_trip(&c, "rt0.conf"));
    good_conf(&c);
    const char *kv[][2] = {
        {"listen", "[2001:db8::1]:443"},
        {"tls_cert", "/etc/c.pem"},
        {"tls_key", "/etc/k.pem"},
        {"token_file", "/etc/token"},
        {"insecure_plaintext", "yes"},
        {"data_dir", "/var/lib/cuzk d"},
        {"allow_dir", "/srv/a,/srv/b b"},
        {"preload", "/srv/a/x.zkey"},
        {"preload", "/srv/a/y;z.zkey"},
        {"budget", "1536K"},
        {"devices", "cuda:0,2"},
        {"gpus", "2"},
        {"gpu_lanes", "3"},
        {"synth_workers", "9"},
        {"max_jobs", "123"},
        {"max_spool_bytes", "1048577"},
        {"max_body_bytes", "1T"},
        {"max_partitions", "10"},
        {"retention_s", "2d"},
        {"keep_until_fetched", "on"},
        {"connection_timeout_s", "5m"},
        {"shutdown_grace_s", "0"},
        {"http_threads", "16"},
        {"log_format", "json"},
        {"log_level", "debug"},
        {"host_id", "node:7"},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        CHECK_MSG(set(&c, kv[i][0], kv[i][1], &err) == CZ_OK, "%s: %s", kv[i][0], err.msg);
    CHECK(round_trip(&c, "rt1.conf"));

    setenv("CUZKD_TOKEN", "very-secret-token", 1);
    FILE *f = tmpfile();
    if (f) {
        cz_conf_print(&c, f);
        char *s = slurp(f);
        fclose(f);
        CHECK(s && has(s, "listen = [2001:db8::1]:443\n") && has(s, "allow_dir = /srv/params, /srv/a, /srv/b b\n"));
        CHECK(s && has(s, "budget = 1536K\n") && has(s, "max_body_bytes = 1T\n") && has(s, "retention_s = 172800\n"));
        CHECK(s && has(s, "insecure_plaintext = true\n") && has(s, "max_spool_bytes = 1048577\n"));
        CHECK(s && has(s, "token_file = /etc/token\n") && !has(s, "very-secret-token"));
        int lines = 0;
        for (const char *p = s; p && *p; p++)
            lines += *p == '\n';
        CHECK(lines == NKEYS);
        for (int i = 0; s && i < NKEYS; i++) {
            char want[64];
            snprintf(want, sizeof want, "\n%s =", all_keys[i]);
            CHECK_MSG(has(s, want) || !strncmp(s, want + 1, strlen(want + 1)), "%s", all_keys[i]);
        }
        free(s);
    }
    unsetenv("CUZKD_TOKEN");

    /* the flag help: a line per key, booleans without a value */
    f = tmpfile();
    if (f) {
        cz_conf_print_flags(f);
        char *s = slurp(f);
        fclose(f);
        int lines = 0;
        for (const char *p = s; p && *p; p++)
            lines += *p == '\n';
        CHECK(lines == NKEYS);
        CHECK(s && has(s, "  --listen HOST:PORT ") && has(s, "(default 127.0.0.1:8840)"));
        CHECK(s && has(s, "  --insecure-plaintext ") && !has(s, "--insecure-plaintext VALUE"));
        CHECK(s && has(s, "  --max-spool-bytes BYTES ") && has(s, "(default 64G)"));
        CHECK(s && !has(s, "--max_spool_bytes")); /* flags are shown with dashes */
        for (int i = 0; s && i < NKEYS; i++) {
            char want[64];
            int n = snprintf(want, sizeof want, "  --%s", all_keys[i]);
            for (int k = 4; k < n; k++)
                if (want[k] == '_') want[k] = '-';
            CHECK_MSG(has(s, want), "%s", all_keys[i]);
        }
        free(s);
    }
}

static void test_example(void)
{
    FILE *f = tmpfile();
    if (!f) {
        CHECK(f != NULL);
        return;
    }
    cz_conf_print_example(f);
    char *gen = slurp(f);
    fclose(f);
    char *file = read_path(CZ_SOURCE_DIR "/daemon/cuzkd.conf.example");
    CHECK_MSG(file != NULL, "cannot read %s", CZ_SOURCE_DIR "/daemon/cuzkd.conf.example");
    CHECK_MSG(gen && file && !strcmp(gen, file),
              "daemon/cuzkd.conf.example differs from cz_conf_print_example (regenerate it)");
    /* every key, with its help as comments */
    for (int i = 0; gen && i < NKEYS; i++) {
        char want[64];
        snprintf(want, sizeof want, "\n%s =", all_keys[i]);
        CHECK_MSG(has(gen, want), "%s", all_keys[i]);
    }
    CHECK(gen && has(gen, "\n[cuzkd]\n") && has(gen, "# Where the HTTP API listens") && has(gen, "powers of 1024"));
    /* it loads cleanly, to the defaults */
    cz_conf c, def;
    cz_error err;
    cz_error_clear(&err);
    cz_conf_defaults(&def);
    memset(&c, 0x5a, sizeof c);
    cz_conf_defaults(&c);
    c.max_jobs = 3;
    CHECK_MSG(cz_conf_load_file(&c, CZ_SOURCE_DIR "/daemon/cuzkd.conf.example", &err) == CZ_OK, "%s",
              cz_error_msg(&err));
    CHECK(conf_equal(&c, &def));
    free(gen);
    free(file);
}

/* ---- random strings ----------------------------------------------------- */

/* Every field within its rules; the checks validate makes of one key. */
static int sane(const cz_conf *c)
{
    if (c->n_allow_dir < 0 || c->n_allow_dir > CZ_CONF_LIST_MAX || c->n_preload < 0 || c->n_preload > CZ_CONF_LIST_MAX)
        return 0;
    if (!memchr(c->listen, 0, sizeof c->listen) || !memchr(c->data_dir, 0, sizeof c->data_dir) ||
        !memchr(c->host_id, 0, sizeof c->host_id) || !memchr(c->log_level, 0, sizeof c->log_level))
        return 0;
    cz_conf d = *c;
    snprintf(d.data_dir, sizeof d.data_dir, "/d");
    snprintf(d.allow_dir[0], sizeof d.allow_dir[0], "/a");
    if (d.n_allow_dir == 0) d.n_allow_dir = 1;
    d.max_body_bytes = d.max_spool_bytes;
    snprintf(d.listen, sizeof d.listen, "127.0.0.1:1");
    d.tls_cert[0] = d.tls_key[0] = '\0';
    cz_error err;
    cz_error_clear(&err);
    if (cz_conf_validate(&d, &err) != CZ_OK) {
        fprintf(stderr, "  insane: %s\n", err.msg);
        return 0;
    }
    /* listen, whatever was accepted, parses */
    char host[256];
    uint16_t port;
    cz_error_clear(&err);
    return cz_conf_listen_parse(c, host, sizeof host, &port, &err) == CZ_OK;
}

static void test_fuzz(cz_rng *rng)
{
    static const char alphabet[] = "0123456789000111KkMmGgTtPpEesmhdxX.:,;[]/ \t-+_abcyesnoofntrujl"
                                   "\x01\x7f\xff\xc3\xa9\n#=%";
    cz_conf *c = malloc(sizeof *c);
    if (!c) return;
    cz_conf_defaults(c);
    long iters = cz_test_iters(10000), accepted = 0, bad_state = 0, bad_trip = 0, bad_err = 0;
    char s[40];
    for (long it = 0; it < iters; it++) {
        uint64_t r = cz_rng_u64(rng);
        size_t len = (size_t)(r % 14);
        for (size_t j = 0; j < len; j++)
            s[j] = alphabet[cz_rng_u64(rng) % (sizeof alphabet - 1)];
        s[len] = '\0';
        if (r >> 60 == 0 && len > 2) { /* now and then a plausible address or number */
            static const char *const seeds[] = {"127.0.0.1:", "[::1]:", "64", "/srv/", "cuda:", "1"};
            const char *p = seeds[(r >> 8) % 6];
            size_t pl = strlen(p);
            memmove(s + pl, s, len + 1 > sizeof s - pl ? sizeof s - pl - 1 : len + 1);
            memcpy(s, p, pl);
            s[sizeof s - 1] = '\0';
        }
        for (int k = 0; k < NKEYS; k++) {
            cz_error err;
            cz_error_clear(&err);
            cz_status st = cz_conf_set(c, all_keys[k], s, "fuzz", &err);
            if (st == CZ_OK) {
                accepted++;
            } else if (st != CZ_ERR_INVALID_ARG || !has(err.msg, all_keys[k]) || !has(err.msg, "fuzz")) {
                if (bad_err++ < 3) fprintf(stderr, "  %s = %s: status %d \"%s\"\n", all_keys[k], s, (int)st, err.msg);
            }
        }
        /* and as a key */
        cz_error err;
        cz_error_clear(&err);
        if (cz_conf_set(c, s, "1", "fuzz", &err) == CZ_OK && !cz_conf_has_key(s)) bad_err++;
        (void)cz_conf_key_takes_value(s);
        if (c->n_preload == CZ_CONF_LIST_MAX) cz_conf_set(c, "preload", "", "fuzz", NULL);
        if (c->n_allow_dir == CZ_CONF_LIST_MAX) cz_conf_set(c, "allow_dir", "", "fuzz", NULL);
        if (it % 97 == 0) {
            if (!sane(c)) bad_state++;
            if (!round_trip(c, "fuzz.conf")) bad_trip++;
        }
    }
    CHECK_MSG(bad_err == 0, "%ld bad statuses or messages", bad_err);
    CHECK_MSG(bad_state == 0, "%ld states out of their rules", bad_state);
    CHECK_MSG(bad_trip == 0, "%ld round trips differ", bad_trip);
    CHECK(accepted > 0);
    printf("test_config: fuzz: %ld strings x %d keys, %ld accepted\n", iters, NKEYS, accepted);
    free(c);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_config");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cz_test_config_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    unsetenv("CUZKD_TOKEN");
    test_defaults();
    test_uint();
    test_size();
    test_duration();
    test_bool_enum();
    test_strings();
    test_store_key();
    test_listen();
    test_lists();
    test_files();
    test_validate();
    test_print();
    test_example();
    test_fuzz(&rng);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return cz_test_finish("test_config");
}
