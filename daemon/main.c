/*
 * cuzkd: the proving daemon (docs/API.md, docs/DAEMON.md).
 *
 * DESIGN: the main thread owns the process's life: it reads the
 * configuration (file, then flags), refuses an unsafe one before binding
 * anything, opens the data directory (locked against a second daemon), the
 * store and the spool, starts the engine, the job manager (which recovers
 * what the store holds) and the HTTP server, preloads the configured keys,
 * and then runs the housekeeping once a second while it waits for a signal
 * (all signals are blocked in every other thread). SIGTERM or SIGINT: new
 * jobs get 503, partitions in flight may finish for shutdown_grace_s, the
 * rest stays queued in the store; exit 0. Logs go to stderr (text or JSON
 * lines); stdout stays empty except for --help, --version and the
 * configuration printers.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/config.h"
#include "daemon/http.h"
#include "daemon/jobs.h"
#include "daemon/metrics.h"
#include "daemon/spool.h"
#include "daemon/store.h"
#include "engine/engine.h"
#include "util/log.h"

#ifndef CUZK_VERSION
#define CUZK_VERSION "0.1.0"
#endif

/* exit codes */
enum { CZD_OK = 0, CZD_FAIL = 1, CZD_USAGE = 2, CZD_CONFIG = 3 };

static int g_json_logs;
static pthread_mutex_t g_log_mu = PTHREAD_MUTEX_INITIALIZER;

static void log_sink(void *ctx, cz_log_level level, const char *component, const char *msg)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&g_log_mu);
    if (g_json_logs) {
        json_t *o = json_pack("{s:f,s:s,s:s,s:s}", "ts", (double)ts.tv_sec + ts.tv_nsec * 1e-9, "level",
                              cz_log_level_name(level), "component", component, "msg", msg);
        char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
        if (s) fprintf(stderr, "%s\n", s);
        free(s);
        json_decref(o);
    } else {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        char t[32];
        strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%S", &tm);
        fprintf(stderr, "%s.%03ldZ cuzkd %s %s: %s\n", t, ts.tv_nsec / 1000000, cz_log_level_name(level), component,
                msg);
    }
    pthread_mutex_unlock(&g_log_mu);
}

static void usage(FILE *f)
{
    fputs("usage: cuzkd [--config FILE] [--KEY VALUE ...] [--check-config] [--print-example-config]\n"
          "\n"
          "The cuzk proving daemon: keeps proving keys loaded and proves jobs submitted over HTTP\n"
          "(docs/API.md), durably: an accepted job survives crashes and restarts.\n"
          "\n"
          "  --config FILE           read the configuration file first (INI, see\n"
          "                          daemon/cuzkd.conf.example); flags override it\n"
          "  --check-config          validate and print the effective configuration, then exit\n"
          "  --print-example-config  print a commented configuration file with every key\n"
          "  -h, --help              this text\n"
          "  --version               the version\n"
          "\n"
          "Every configuration key is also a flag (the key's name with '-' or '_', e.g.\n"
          "--data-dir or --data_dir; --KEY=VALUE works too):\n",
          f);
    cz_conf_print_flags(f);
    fputs("\nExit codes: 0 clean shutdown (SIGTERM/SIGINT); 1 a failure at start (store, device,\n"
          "listener); 2 bad command line; 3 bad configuration.\n",
          f);
}

/* reads a small text file (a token, a PEM) into a malloc'ed string */
static char *slurp(const char *path, size_t max, cz_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cz_error_set(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *b = malloc(max + 1);
    size_t n = b ? fread(b, 1, max + 1, f) : 0;
    fclose(f);
    if (!b) {
        cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    if (n > max) {
        free(b);
        cz_error_set(err, CZ_ERR_FORMAT, "%s: larger than %zu bytes", path, max);
        return NULL;
    }
    b[n] = '\0';
    return b;
}

static char *read_token(const cz_conf *c, cz_error *err)
{
    char *t = NULL;
    if (c->token_file[0]) {
        if (!(t = slurp(c->token_file, 4096, err))) return NULL;
        struct stat st;
        if (stat(c->token_file, &st) == 0 && (st.st_mode & 077))
            fprintf(stderr, "cuzkd: warning: %s is readable by other users (chmod 600 it)\n", c->token_file);
    } else {
        const char *e = getenv("CUZKD_TOKEN");
        if (!e || !*e) return NULL;
        if (!(t = strdup(e))) return NULL;
    }
    size_t n = strlen(t);
    while (n && (t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == ' ')) t[--n] = '\0';
    if (n < 16) {
        cz_error_set(err, CZ_ERR_INVALID_ARG, "the token (%s) has %zu characters; at least 16 are required",
                     c->token_file[0] ? c->token_file : "CUZKD_TOKEN", n);
        free(t);
        return NULL;
    }
    return t;
}

int main(int argc, char **argv)
{
    cz_conf conf;
    cz_conf_defaults(&conf);
    cz_error err;
    cz_error_clear(&err);
    int check_only = 0;
    /* the file first, then every flag over it */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return CZD_OK;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("cuzkd %s\n", CUZK_VERSION);
            return CZD_OK;
        }
        if (!strcmp(argv[i], "--print-example-config")) {
            cz_conf_print_example(stdout);
            return CZD_OK;
        }
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzkd: --config needs a file\n");
                return CZD_USAGE;
            }
            if (cz_conf_load_file(&conf, argv[i + 1], &err) != CZ_OK) {
                fprintf(stderr, "cuzkd: %s\n", cz_error_msg(&err));
                return CZD_CONFIG;
            }
            i++;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--config")) {
            i++;
            continue;
        }
        if (!strcmp(a, "--check-config")) {
            check_only = 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "cuzkd: unexpected argument '%s' (see --help)\n", a);
            return CZD_USAGE;
        }
        char key[128];
        const char *val = NULL, *eq = strchr(a + 2, '=');
        size_t kl = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        if (kl >= sizeof key) kl = sizeof key - 1;
        memcpy(key, a + 2, kl);
        key[kl] = '\0';
        for (char *p = key; *p; p++)
            if (*p == '-') *p = '_';
        if (!cz_conf_has_key(key)) {
            fprintf(stderr, "cuzkd: unknown option '%s' (see --help)\n", a);
            return CZD_USAGE;
        }
        if (eq) {
            val = eq + 1;
        } else if (cz_conf_key_takes_value(key)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzkd: %s needs a value\n", a);
                return CZD_USAGE;
            }
            val = argv[++i];
        } else {
            val = "true";
        }
        char from[160];
        snprintf(from, sizeof from, "--%s", key);
        if (cz_conf_set(&conf, key, val, from, &err) != CZ_OK) {
            fprintf(stderr, "cuzkd: %s\n", cz_error_msg(&err));
            return CZD_CONFIG;
        }
    }
    if (!conf.host_id[0] && gethostname(conf.host_id, sizeof conf.host_id - 1) != 0)
        snprintf(conf.host_id, sizeof conf.host_id, "cuzkd");
    if (cz_conf_validate(&conf, &err) != CZ_OK) {
        fprintf(stderr, "cuzkd: configuration: %s\n", cz_error_msg(&err));
        return CZD_CONFIG;
    }
    char *token = read_token(&conf, &err);
    if (!token && err.status != CZ_OK) {
        fprintf(stderr, "cuzkd: token: %s\n", cz_error_msg(&err));
        return CZD_CONFIG;
    }
    if (!token && !cz_conf_listen_is_loopback(&conf)) { /* (validate checked the source exists) */
        fprintf(stderr, "cuzkd: listen %s is not a loopback address: a token is required (token_file or CUZKD_TOKEN)\n",
                conf.listen);
        return CZD_CONFIG;
    }
    if (check_only) {
        cz_conf_print(&conf, stdout);
        printf("# token: %s\n", token ? "set" : "none (loopback only)");
        free(token);
        return CZD_OK;
    }
    g_json_logs = !strcmp(conf.log_format, "json");
    cz_logger log = {log_sink, NULL, CZ_LOG_INFO};
    (void)cz_log_level_parse(conf.log_level, &log.level);

    char *cert = NULL, *key = NULL;
    if (conf.tls_cert[0]) {
        if (!(cert = slurp(conf.tls_cert, 1 << 20, &err)) || !(key = slurp(conf.tls_key, 1 << 20, &err))) {
            fprintf(stderr, "cuzkd: TLS: %s\n", cz_error_msg(&err));
            return CZD_CONFIG;
        }
    }
    static char allow[CZ_CONF_LIST_MAX][4096];
    for (int i = 0; i < conf.n_allow_dir; i++) {
        char *r = realpath(conf.allow_dir[i], NULL);
        struct stat st;
        if (!r || stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "cuzkd: allow_dir '%s': %s\n", conf.allow_dir[i], r ? "not a directory" : strerror(errno));
            free(r);
            return CZD_CONFIG;
        }
        snprintf(allow[i], sizeof allow[i], "%s", r);
        free(r);
    }

    /* signals: handled by this thread alone */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    int rc = CZD_FAIL;
    cz_store *store = NULL;
    cz_spool *spool = NULL;
    cz_engine *engine = NULL;
    cz_metrics *metrics = NULL;
    cz_jobs *jobs = NULL;
    cz_http *http = NULL;
    int lock_fd = -1;
    if (mkdir(conf.data_dir, 0700) != 0 && errno != EEXIST) {
        CZ_LOG(&log, CZ_LOG_ERROR, "cuzkd", "data_dir %s: %s", conf.data_dir, strerror(errno));
        goto out;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/cuzkd.lock", conf.data_dir);
    lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
        CZ_LOG(&log, CZ_LOG_ERROR, "cuzkd", "data_dir %s is in use by another cuzkd (%s)", conf.data_dir,
               lock_fd < 0 ? strerror(errno) : "locked");
        goto out;
    }
    if (cz_store_is_pg_url(conf.store)) {
        if (cz_store_pg_open(&store, conf.store, (double)conf.lease_s, &err) != CZ_OK) goto fail;
    } else {
        if (conf.store[0])
            snprintf(path, sizeof path, "%s", conf.store);
        else
            snprintf(path, sizeof path, "%s/cuzkd.db", conf.data_dir);
        if (cz_store_sqlite_open(&store, path, &err) != CZ_OK) goto fail;
    }
    CZ_LOG(&log, CZ_LOG_INFO, "cuzkd", "store: %s%s", store->ops->name,
           store->ops->shared ? " (shared: this host claims the partitions it can start)" : "");
    if (conf.spool_dir[0])
        snprintf(path, sizeof path, "%s", conf.spool_dir);
    else
        snprintf(path, sizeof path, "%s/spool", conf.data_dir);
    if (cz_spool_open_host(&spool, path, store->ops->shared ? conf.host_id : NULL, &err) != CZ_OK) goto fail;
    cz_engine_config ec;
    cz_engine_config_default(&ec);
    ec.budget_bytes = (size_t)conf.budget;
    ec.device = conf.devices;
    ec.gpus = conf.gpus;
    ec.gpu_lanes = conf.gpu_lanes;
    /* (both checked when the configuration was read) */
    (void)cz_backend_msm_table_parse(conf.msm_tables, &ec.backend.msm_table, &err);
    (void)cz_backend_msm_table_windows_parse(conf.msm_table_windows, &ec.backend.msm_table_windows, &err);
    ec.synth_workers = conf.synth_workers;
    ec.log = log;
    if (cz_engine_create(&engine, &ec, &err) != CZ_OK) goto fail;
    CZ_LOG(&log, CZ_LOG_INFO, "cuzkd", "devices: %s", cz_engine_device_name(engine));
    if (cz_metrics_create(&metrics, &err) != CZ_OK) goto fail;
    cz_jobs_config jc;
    memset(&jc, 0, sizeof jc);
    jc.engine = engine;
    jc.store = store;
    jc.spool = spool;
    jc.metrics = metrics;
    jc.log = log;
    jc.json_events = g_json_logs;
    jc.owner = conf.host_id;
    jc.retention_s = (double)conf.retention_s;
    jc.keep_until_fetched = conf.keep_until_fetched;
    jc.max_jobs = conf.max_jobs;
    jc.max_parts = conf.max_partitions;
    {
        /* claims kept ahead of synthesis: one more than the partitions in synthesis at once */
        int dev = cz_engine_device_count(engine);
        int sw = conf.synth_workers ? (int)conf.synth_workers : (dev + 1 > 2 ? dev + 1 : 2);
        jc.claim_ahead = (uint32_t)sw + 1;
    }
    jc.max_attempts = conf.max_attempts;
    jc.lease_s = (double)conf.lease_s;
    jc.devices = cz_engine_device_name(engine);
    jc.version = CUZK_VERSION;
    /* the recorded R1CS of circuits written in C, kept across restarts (each
     * file keyed by the circuit's structure; a stale or corrupt one is
     * recorded again); without the directory they stay in memory only */
    char pce_dir[4200];
    snprintf(pce_dir, sizeof pce_dir, "%s/pce", conf.data_dir);
    if (mkdir(pce_dir, 0700) != 0 && errno != EEXIST)
        CZ_LOG(&log, CZ_LOG_WARN, "cuzkd", "%s: %s: circuit recordings are kept in memory only", pce_dir,
               strerror(errno));
    else
        jc.pce_dir = pce_dir;
    if (cz_jobs_create(&jobs, &jc, &err) != CZ_OK) goto fail;
    for (int i = 0; i < conf.n_preload; i++) {
        char *canon = realpath(conf.preload[i], NULL);
        cz_jobs_key_info ki;
        int created;
        cz_error kerr;
        cz_error_clear(&kerr);
        if (!canon || cz_jobs_key_add(jobs, canon, &ki, &created, &kerr) != CZ_OK)
            CZ_LOG(&log, CZ_LOG_ERROR, "cuzkd", "preload %s: %s", conf.preload[i],
                   canon ? cz_error_msg(&kerr) : strerror(errno));
        else
            CZ_LOG(&log, CZ_LOG_INFO, "cuzkd", "preload %s: key %s", canon, ki.key.id);
        free(canon);
    }
    cz_http_config hc;
    memset(&hc, 0, sizeof hc);
    hc.conf = &conf;
    hc.jobs = jobs;
    hc.engine = engine;
    hc.metrics = metrics;
    hc.spool = spool;
    hc.log = log;
    hc.token = token;
    hc.tls_cert_pem = cert;
    hc.tls_key_pem = key;
    hc.allow = allow;
    hc.n_allow = conf.n_allow_dir;
    hc.version = CUZK_VERSION;
    if (cz_http_start(&http, &hc, &err) != CZ_OK) goto fail;
    CZ_LOG(&log, CZ_LOG_INFO, "cuzkd", "listening on %s (port %u)%s%s", conf.listen, (unsigned)cz_http_port(http),
           cert ? ", TLS" : "", token ? ", token required" : "");

    for (;;) { /* housekeeping, once a second, until a signal */
        struct timespec one = {1, 0};
        int s = sigtimedwait(&sigs, NULL, &one);
        if (s == SIGTERM || s == SIGINT) {
            CZ_LOG(&log, CZ_LOG_INFO, "cuzkd", "%s: shutting down (running partitions may finish for %llu s)",
                   s == SIGTERM ? "SIGTERM" : "SIGINT", (unsigned long long)conf.shutdown_grace_s);
            break;
        }
        if (s == SIGHUP) CZ_LOG(&log, CZ_LOG_INFO, "cuzkd", "SIGHUP: nothing to reload (restart to apply a new configuration)");
        cz_jobs_tick(jobs);
    }
    cz_http_set_draining(http, 1);
    int all = cz_jobs_drain(jobs, (double)conf.shutdown_grace_s);
    CZ_LOG(&log, CZ_LOG_INFO, "cuzkd", "%s; what was not proved stays queued", all ? "every running partition finished" : "grace period over");
    rc = CZD_OK;
    goto out;
fail:
    CZ_LOG(&log, CZ_LOG_ERROR, "cuzkd", "%s", cz_error_msg(&err));
out:
    cz_http_stop(http);
    cz_jobs_free(jobs);
    cz_metrics_free(metrics);
    cz_engine_free(engine);
    cz_spool_close(spool);
    cz_store_close(store);
    if (lock_fd >= 0) close(lock_fd);
    free(token);
    free(cert);
    free(key);
    return rc;
}
