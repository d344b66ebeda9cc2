/*
 * daemon/config: cuzkd's configuration (contract in config.h).
 *
 * DESIGN: every key is one row of conf_keys[] below: its name (the field of
 * cz_conf it fills, by offset), its type, its default as text, its bounds
 * and its help. Nothing else in this file knows a key by name, except the
 * cross-key rules of cz_conf_validate. The same row serves
 *   cz_conf_defaults      the default text parsed like any other value
 *                         (so a default out of its own bounds is a bug the
 *                         tests see);
 *   cz_conf_set           text -> field, with the row's bounds;
 *   cz_conf_load_file     libinih calls back with key and value, then set;
 *   cz_conf_validate      the field -> text -> the row's checks again, for
 *                         a struct filled by hand;
 *   cz_conf_print         field -> text in the key's own syntax (reads back
 *                         to the same value);
 *   cz_conf_print_example / _flags   the help, the default and the bounds.
 * A value is checked completely before its field is written, so a bad
 * value leaves the field as it was; a file is read into a copy that
 * replaces the configuration only when the whole file was good.
 */
#include "daemon/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend/backend.h"
#include "backend/devspec.h"

/* ---- the table ---------------------------------------------------------- */

typedef enum conf_type {
    CONF_STRING,   /* char[size]; optional check */
    CONF_BOOL,     /* int, 0 or 1 */
    CONF_UINT,     /* uint32_t / int (size 4) or uint64_t (size 8), decimal */
    CONF_SIZE,     /* uint64_t bytes, decimal with an optional K/M/G/T/P/E suffix */
    CONF_DURATION, /* uint64_t seconds, decimal with an optional s/m/h/d suffix */
    CONF_ENUM,     /* char[size], one of choices ("a|b|c") */
    CONF_LIST,     /* char[CZ_CONF_LIST_MAX][size] and an int count */
} conf_type;

/* A string key's own rule beyond the common ones: 0 when text is good,
 * else -1 with why filled ("expected ..."). */
typedef int (*conf_check_fn)(const char *text, char *why, size_t cap);

typedef struct conf_key {
    const char *name;
    conf_type type;
    size_t off;          /* offsetof(cz_conf, field) */
    size_t size;         /* sizeof the field; lists: of one entry */
    size_t count_off;    /* lists: offsetof the entry count */
    const char *def;     /* default, in the key's own syntax ("" for none) */
    uint64_t min, max;   /* numbers, after the suffix */
    const char *choices; /* enums */
    conf_check_fn check; /* strings (and list entries): may be NULL */
    const char *arg;     /* the VALUE of `--key VALUE` in --help */
    const char *group;   /* a heading in the example file before this key */
    const char *help;    /* lines separated by '\n'; the first is the summary */
} conf_key;

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)
#define EIB ((uint64_t)1 << 60)
#define DAY ((uint64_t)86400)

#define CONF_FIELD(f) .name = #f, .off = offsetof(cz_conf, f), .size = sizeof(((cz_conf *)0)->f)
#define CONF_LIST_FIELD(f)                                                                                             \
    .name = #f, .type = CONF_LIST, .off = offsetof(cz_conf, f), .size = sizeof(((cz_conf *)0)->f[0]),                  \
    .count_off = offsetof(cz_conf, n_##f)

static int check_listen(const char *text, char *why, size_t cap);
static int check_word(const char *text, char *why, size_t cap);
static int check_store(const char *text, char *why, size_t cap);
static int check_table_windows(const char *text, char *why, size_t cap);

static const conf_key conf_keys[] = {
    {CONF_FIELD(listen), .type = CONF_STRING, .def = "127.0.0.1:8840", .check = check_listen, .arg = "HOST:PORT",
     .group = "network",
     .help = "Where the HTTP API listens, HOST:PORT.\n"
             "HOST is an IPv4 address, an IPv6 address in brackets or localhost;\n"
             "PORT is 1 to 65535: 127.0.0.1:8840, [::1]:8840, 0.0.0.0:8840.\n"
             "A loopback address (127.0.0.0/8, ::1, localhost) needs nothing more;\n"
             "any other needs a bearer token (token_file, or the environment\n"
             "variable CUZKD_TOKEN) and TLS (tls_cert and tls_key) unless\n"
             "insecure_plaintext is set."},
    {CONF_FIELD(tls_cert), .type = CONF_STRING, .def = "", .arg = "PATH",
     .help = "TLS certificate chain (PEM) of the listener; empty: plain HTTP.\n"
             "Given together with tls_key."},
    {CONF_FIELD(tls_key), .type = CONF_STRING, .def = "", .arg = "PATH",
     .help = "Private key (PEM) of tls_cert; given together with tls_cert."},
    {CONF_FIELD(token_file), .type = CONF_STRING, .def = "", .arg = "PATH",
     .help = "File holding the bearer token that clients must present.\n"
             "Empty: the environment variable CUZKD_TOKEN, else no token (loopback\n"
             "listeners only). Only this path is ever printed, never the token."},
    {CONF_FIELD(insecure_plaintext), .type = CONF_BOOL, .def = "false",
     .help = "Allow a non-loopback listener without TLS.\n"
             "The token then crosses the network in the clear: for a trusted\n"
             "network only."},

    {CONF_FIELD(data_dir), .type = CONF_STRING, .def = "", .arg = "DIR", .group = "files",
     .help = "Directory of the daemon's state (required).\n"
             "It holds the job store (cuzkd.db), the spool of uploaded\n"
             "witnesses (spool/) and the recorded R1CS of the circuits written in C\n"
             "that jobs name (pce/, one file per circuit shape, kept across restarts)."},
    {CONF_LIST_FIELD(allow_dir), .def = "", .arg = "DIR",
     .help = "Directory whose files requests may name by path (required).\n"
             "Files named in requests (proving keys, witnesses) must lie inside\n"
             "one of these; at least one. Repeat the key, or separate entries\n"
             "with commas; at most 16."},
    {CONF_LIST_FIELD(preload), .def = "", .arg = "PATH",
     .help = "Proving key to load at start, before a job asks for it.\n"
             "A path inside an allowed directory. Repeat the key, or separate\n"
             "entries with commas; at most 16."},

    {CONF_FIELD(devices), .type = CONF_STRING, .def = "auto", .check = check_word, .arg = "SPEC", .group = "proving",
     .help = "Devices to prove on.\n"
             "auto: every GPU, else the CPU; cuda: every GPU; cuda:N or\n"
             "cuda:N,M,...: those GPUs; cpu: no GPU. A GPU listed twice\n"
             "(cuda:0,0) runs two proofs' device steps at once, each with\n"
             "its own working set; they share one copy of the key in VRAM\n"
             "(at most 4 entries per GPU). A GPU listed once gets gpu_lanes."},
    {CONF_FIELD(gpu_lanes), .type = CONF_UINT, .def = "2", .min = 1, .max = CZ_DEVSPEC_PER_GPU, .arg = "N",
     .help = "Proofs' device steps at once on each GPU that devices\n"
             "names once (lanes). A lane starts a step only where VRAM\n"
             "holds its working set next to the key and its tables, so a\n"
             "GPU short of VRAM runs one at a time. 1: one step per GPU."},
    {CONF_FIELD(msm_tables), .type = CONF_ENUM, .def = "auto", .choices = "auto|off|eager", .arg = "MODE",
     .help = "Tables of multiples of a key's sections in VRAM (GPU MSMs).\n"
             "auto: a section's table is built on its second full-width MSM,\n"
             "where VRAM holds it beside the working sets (those MSMs 12-17%\n"
             "faster on an H200; tables are the first thing freed when a\n"
             "working set needs room); off: none; eager: on the first MSM."},
    {CONF_FIELD(msm_table_windows), .type = CONF_STRING, .def = "whole", .check = check_table_windows,
     .arg = "WINDOWS",
     .help = "How much of a table VRAM must hold for it to be built.\n"
             "whole: all its windows, else none; fit: the most windows that\n"
             "fit (a partial table: one bucket set per group of windows,\n"
             "not yet measured on a GPU); K (2 to 64): at most K windows."},
    {CONF_FIELD(gpus), .type = CONF_UINT, .def = "0", .min = 0, .max = CZ_DEVSPEC_MAX, .arg = "N",
     .help = "How many of those devices to use; 0: all.\n"
             "N: the first N devices that devices names (GPUs: each with\n"
             "its lanes; with cpu: N CPU backends posing as devices)."},
    {CONF_FIELD(synth_workers), .type = CONF_UINT, .def = "0", .min = 0, .max = 1024, .arg = "N",
     .help = "Partitions in synthesis at once; 0: devices + 1, at least 2."},
    {CONF_FIELD(budget), .type = CONF_SIZE, .def = "0", .min = 0, .max = EIB, .arg = "BYTES",
     .help = "Host memory the daemon may use; 0: detected.\n"
             "Keys, witnesses and buffers count against it. Detected: the cgroup\n"
             "limit, else the available memory, less a margin."},

    {CONF_FIELD(max_jobs), .type = CONF_UINT, .def = "10000", .min = 1, .max = 100000000, .arg = "N", .group = "limits",
     .help = "Jobs not yet final at most; a submission beyond is refused (429)."},
    {CONF_FIELD(max_spool_bytes), .type = CONF_SIZE, .def = "64G", .min = MIB, .max = EIB, .arg = "BYTES",
     .help = "Witness bytes in the spool at most; an upload beyond is refused (429)."},
    {CONF_FIELD(max_body_bytes), .type = CONF_SIZE, .def = "16G", .min = 64 * KIB, .max = EIB, .arg = "BYTES",
     .help = "Bytes of one request body at most; a larger one is refused (413).\n"
             "At most max_spool_bytes."},
    {CONF_FIELD(max_partitions), .type = CONF_UINT, .def = "1024", .min = 1, .max = 1 << 20, .arg = "N",
     .help = "Partitions (witness parts) of one job at most; more are refused (400)."},

    {CONF_FIELD(retention_s), .type = CONF_DURATION, .def = "86400", .min = 0, .max = 3650 * DAY, .arg = "SECONDS",
     .group = "lifetimes",
     .help = "How long a final job and its proofs are kept (86400: one day).\n"
             "0: until the next housekeeping pass (once a second). See also\n"
             "keep_until_fetched."},
    {CONF_FIELD(keep_until_fetched), .type = CONF_BOOL, .def = "false",
     .help = "Keep a final job past retention_s until its result was fetched."},
    {CONF_FIELD(connection_timeout_s), .type = CONF_DURATION, .def = "60", .min = 1, .max = DAY, .arg = "SECONDS",
     .help = "An HTTP connection idle this long is closed."},
    {CONF_FIELD(shutdown_grace_s), .type = CONF_DURATION, .def = "30", .min = 0, .max = DAY, .arg = "SECONDS",
     .help = "After SIGTERM, how long running partitions may still finish.\n"
             "What is left stays queued in the store for the next start."},

    {CONF_FIELD(http_threads), .type = CONF_UINT, .def = "4", .min = 1, .max = 256, .arg = "N", .group = "service",
     .help = "Threads serving HTTP requests."},
    {CONF_FIELD(log_format), .type = CONF_ENUM, .def = "text", .choices = "text|json", .arg = "FORMAT",
     .help = "Log lines as text, or as one JSON object each."},
    {CONF_FIELD(log_level), .type = CONF_ENUM, .def = "info", .choices = "error|warn|info|debug", .arg = "LEVEL",
     .help = "Log lines up to this level."},
    {CONF_FIELD(host_id), .type = CONF_STRING, .def = "", .check = check_word, .arg = "NAME",
     .help = "This host's name as the owner of claims in the store.\n"
             "Empty: the hostname (filled in by the daemon at start). Hosts that\n"
             "share a store need names of their own."},

    {CONF_FIELD(store), .type = CONF_STRING, .def = "", .check = check_store, .arg = "PATH|URL", .group = "cluster",
     .help = "The job store.\n"
             "Empty: the SQLite file cuzkd.db in data_dir (one host). A path: that\n"
             "SQLite file. postgres://USER@HOST:PORT/DB (or postgresql://, any\n"
             "libpq connection URL): a PostgreSQL database that several cuzkd\n"
             "share (docs/CLUSTER.md); each claims the partitions it can start.\n"
             "No password in the URL (--check-config prints it): use ~/.pgpass,\n"
             "PGPASSFILE or the other libpq environment variables."},
    {CONF_FIELD(spool_dir), .type = CONF_STRING, .def = "", .arg = "DIR",
     .help = "Directory of uploaded witnesses; empty: spool/ in data_dir.\n"
             "With a shared store every host must reach every witness: give\n"
             "all of them one shared directory (NFS, CephFS, ...) here, and\n"
             "the same allow_dir paths."},
    {CONF_FIELD(lease_s), .type = CONF_DURATION, .def = "30", .min = 2, .max = DAY, .arg = "SECONDS",
     .help = "Lease of a claimed partition in a shared store.\n"
             "A heartbeat renews this host's leases every lease_s / 4; a host\n"
             "silent for longer loses its partitions to the others."},
    {CONF_FIELD(max_attempts), .type = CONF_UINT, .def = "3", .min = 1, .max = 1000, .arg = "N",
     .help = "Claims of one partition at most in a shared store.\n"
             "Leases that ran out and device errors count; past them its job\n"
             "fails with the partition's last error."},
};

#define CONF_NKEYS (sizeof conf_keys / sizeof conf_keys[0])

static const conf_key *find_key(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < CONF_NKEYS; i++)
        if (!strcmp(conf_keys[i].name, name)) return &conf_keys[i];
    return NULL;
}

static char *field(cz_conf *c, const conf_key *k)
{
    return (char *)c + k->off;
}
static const char *cfield(const cz_conf *c, const conf_key *k)
{
    return (const char *)c + k->off;
}
static int *list_count(cz_conf *c, const conf_key *k)
{
    return (int *)((char *)c + k->count_off);
}
static int clist_count(const cz_conf *c, const conf_key *k)
{
    int n;
    memcpy(&n, (const char *)c + k->count_off, sizeof n);
    return n;
}

/* Numbers live in int, uint32_t (size 4) or uint64_t (size 8) fields; the
 * bounds keep every value within all three. */
static uint64_t get_num(const cz_conf *c, const conf_key *k)
{
    if (k->size == 8) {
        uint64_t v;
        memcpy(&v, cfield(c, k), 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, cfield(c, k), 4);
    return v;
}

static void put_num(cz_conf *c, const conf_key *k, uint64_t v)
{
    if (k->size == 8) {
        memcpy(field(c, k), &v, 8);
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(field(c, k), &w, 4);
    }
}

/* ---- text helpers ------------------------------------------------------- */

/* s quoted for a message: printable ASCII as is, the rest escaped, at most
 * about 80 characters of it. */
static const char *quote(const char *s, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i = 0;
    if (cap < 8) {
        if (cap) out[0] = '\0';
        return out;
    }
    out[o++] = '"';
    for (; s[i] && i < 80 && o + 6 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            out[o++] = '\\';
            out[o++] = (char)ch;
        } else if (ch >= 0x20 && ch < 0x7f) {
            out[o++] = (char)ch;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[ch >> 4];
            out[o++] = hex[ch & 15];
        }
    }
    out[o++] = '"';
    if (s[i] && o + 4 < cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* A byte count in its shortest exact form: 64G, 1536K, 1000. */
static void fmt_size(uint64_t v, char *out, size_t cap)
{
    static const char units[] = "KMGTPE";
    int u = -1;
    for (int i = 5; i >= 0 && v; i--) {
        uint64_t m = (uint64_t)1 << (10 * (i + 1));
        if (v % m == 0) {
            u = i;
            break;
        }
    }
    if (u < 0)
        snprintf(out, cap, "%llu", (unsigned long long)v);
    else
        snprintf(out, cap, "%llu%c", (unsigned long long)(v >> (10 * (u + 1))), units[u]);
}

/* A duration bound in its shortest exact form: 30, 1d, 3650d. */
static void fmt_duration(uint64_t v, char *out, size_t cap)
{
    if (v && v % DAY == 0)
        snprintf(out, cap, "%llud", (unsigned long long)(v / DAY));
    else if (v && v % 3600 == 0)
        snprintf(out, cap, "%lluh", (unsigned long long)(v / 3600));
    else
        snprintf(out, cap, "%llu", (unsigned long long)v);
}

/* An enum's choices as "a, b, c". */
static void choices_text(const conf_key *k, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = k->choices; *p && o + 3 < cap; p++) {
        if (*p == '|') {
            out[o++] = ',';
            out[o++] = ' ';
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
}

/* What a key accepts, for messages: "expected ...". */
static void expected(const conf_key *k, char *out, size_t cap)
{
    char a[32], b[32];
    switch (k->type) {
    case CONF_BOOL: snprintf(out, cap, "expected true/false, yes/no, on/off or 1/0"); break;
    case CONF_UINT:
        snprintf(out, cap, "expected a whole number from %llu to %llu (decimal digits)", (unsigned long long)k->min,
                 (unsigned long long)k->max);
        break;
    case CONF_SIZE:
        fmt_size(k->min, a, sizeof a);
        fmt_size(k->max, b, sizeof b);
        snprintf(out, cap,
                 "expected a byte count from %s to %s (decimal digits, optionally K, M, G, T, P or E: powers of 1024)",
                 a, b);
        break;
    case CONF_DURATION:
        fmt_duration(k->min, a, sizeof a);
        fmt_duration(k->max, b, sizeof b);
        snprintf(out, cap, "expected seconds from %s to %s (decimal digits, optionally s, m, h or d)", a, b);
        break;
    case CONF_ENUM:
        choices_text(k, a, sizeof a);
        snprintf(out, cap, "expected one of %s", a);
        break;
    case CONF_STRING:
    case CONF_LIST: snprintf(out, cap, "expected text of at most %zu bytes", k->size - 1); break;
    }
}

/* The rules every string and list entry follows: fits the field, no
 * control characters, no leading or trailing blanks, no ';' first or after
 * a blank (a file would read a comment there): what is printed reads back
 * the same. */
static int check_text(const conf_key *k, const char *v, size_t len, char *why, size_t cap)
{
    if (len >= k->size) {
        snprintf(why, cap, "%zu bytes long; expected at most %zu", len, k->size - 1);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)v[i];
        if (ch < 0x20 || ch == 0x7f) {
            snprintf(why, cap, "a control character (byte %zu); expected printable text", i + 1);
            return -1;
        }
        if (ch == ';' && (i == 0 || is_blank(v[i - 1]))) {
            snprintf(why, cap,
                     "a ';' first or after a blank starts a comment in a configuration file; expected "
                     "text without one");
            return -1;
        }
    }
    if (len && (is_blank(v[0]) || is_blank(v[len - 1]))) {
        snprintf(why, cap, "leading or trailing blanks; expected text without them");
        return -1;
    }
    return 0;
}

/* a SQLite path or a PostgreSQL URL without a password */
static int check_store(const char *text, char *why, size_t cap)
{
    if (strncmp(text, "postgres://", 11) && strncmp(text, "postgresql://", 13)) {
        if (strstr(text, "://")) {
            snprintf(why, cap, "a URL of an unknown scheme; expected a file path or postgres://...");
            return -1;
        }
        return 0;
    }
    const char *auth = strstr(text, "://") + 3;
    const char *at = strchr(auth, '@'), *slash = strchr(auth, '/');
    if ((at && (!slash || at < slash) && memchr(auth, ':', (size_t)(at - auth))) || strstr(text, "password=")) {
        snprintf(why, cap, "a password in the URL; expected none (put it in ~/.pgpass or PGPASSFILE, which libpq reads)");
        return -1;
    }
    return 0;
}

static int check_table_windows(const char *text, char *why, size_t cap)
{
    int w;
    cz_error e;
    cz_error_clear(&e);
    if (cz_backend_msm_table_windows_parse(text, &w, &e) == CZ_OK && *text) return 0;
    snprintf(why, cap, "expected whole, fit or a number of windows from 2 to 64");
    return -1;
}

static int check_word(const char *text, char *why, size_t cap)
{
    for (const char *p = text; *p; p++)
        if (is_blank(*p)) {
            snprintf(why, cap, "a blank inside; expected one word");
            return -1;
        }
    return 0;
}

/* ---- numbers ------------------------------------------------------------ */

/* Decimal digits at s into *v; *end after them. 0, or -1 with why. */
static int parse_digits(const char *s, uint64_t *v, const char **end, char *why, size_t cap)
{
    if (!*s) {
        snprintf(why, cap, "empty");
        return -1;
    }
    if (*s == '+' || *s == '-') {
        snprintf(why, cap, "a sign");
        return -1;
    }
    if (*s < '0' || *s > '9') {
        snprintf(why, cap, "not a number");
        return -1;
    }
    uint64_t x = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10) {
            snprintf(why, cap, "too large");
            return -1;
        }
        x = x * 10 + d;
    }
    *v = x;
    *end = s;
    return 0;
}

/* The multiplier of a one-letter suffix at s (0: not one of this type's). */
static uint64_t suffix_mult(conf_type t, const char *s)
{
    if (!s[0]) return 1;
    if (s[1]) return 0;
    static const char units[] = "KMGTPE";
    char ch = s[0];
    if (t == CONF_SIZE) {
        char up = ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
        const char *u = strchr(units, up);
        return u ? (uint64_t)1 << (10 * (u - units + 1)) : 0;
    }
    if (t == CONF_DURATION) {
        switch (ch) {
        case 's': return 1;
        case 'm': return 60;
        case 'h': return 3600;
        case 'd': return DAY;
        }
    }
    return 0;
}

static int parse_number(const conf_key *k, const char *v, uint64_t *out, char *why, size_t cap)
{
    char e[200], what[64];
    const char *end;
    uint64_t x;
    if (parse_digits(v, &x, &end, what, sizeof what) < 0) {
        expected(k, e, sizeof e);
        snprintf(why, cap, "%s; %s", what, e);
        return -1;
    }
    uint64_t m = k->type == CONF_UINT ? (*end ? 0 : 1) : suffix_mult(k->type, end);
    if (!m) {
        char q[100];
        expected(k, e, sizeof e);
        snprintf(why, cap, "%s after the number; %s", quote(end, q, sizeof q), e);
        return -1;
    }
    if (x > UINT64_MAX / m) {
        expected(k, e, sizeof e);
        snprintf(why, cap, "too large; %s", e);
        return -1;
    }
    x *= m;
    if (x < k->min || x > k->max) {
        expected(k, e, sizeof e);
        snprintf(why, cap, "%s; %s", x < k->min ? "below the minimum" : "above the maximum", e);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) return *out = 1, 0;
        if (!strcasecmp(v, no[i])) return *out = 0, 0;
    }
    return -1;
}

/* The canonical spelling of v among k->choices (any case) into out. */
static int parse_enum(const conf_key *k, const char *v, char *out, size_t cap)
{
    size_t n = strlen(v);
    for (const char *p = k->choices; *p;) {
        const char *q = strchr(p, '|');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && !strncasecmp(p, v, n) && len < cap) {
            memcpy(out, p, len);
            out[len] = '\0';
            return 0;
        }
        p += len + (q ? 1 : 0);
    }
    return -1;
}

/* ---- listen ------------------------------------------------------------- */

/* "host:port" or "[v6]:port" into host (without brackets) and port; host an
 * IPv4 address, an IPv6 address (in brackets) or localhost, as the HTTP
 * layer binds them. 0, or -1 with why. */
static int split_listen(const char *s, char *host, size_t cap, uint16_t *port, char *why, size_t wcap)
{
    static const char form[] = "expected HOST:PORT with an IPv4 address, [an IPv6 address] or localhost, "
                               "as 127.0.0.1:8840 or [::1]:8840";
    const char *h, *colon;
    size_t hlen;
    int v6 = 0;
    if (s[0] == '[') {
        const char *rb = strchr(s, ']');
        if (!rb || rb[1] != ':') {
            snprintf(why, wcap, "no \"]:\" after the IPv6 address; %s", form);
            return -1;
        }
        h = s + 1;
        hlen = (size_t)(rb - h);
        colon = rb + 1;
        v6 = 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon) {
            snprintf(why, wcap, "no port; %s", form);
            return -1;
        }
        h = s;
        hlen = (size_t)(colon - s);
        if (memchr(h, ':', hlen)) {
            snprintf(why, wcap, "an IPv6 address without brackets; expected it in brackets, as [::1]:8840");
            return -1;
        }
    }
    char hb[256];
    if (hlen == 0) {
        snprintf(why, wcap, "no host (0.0.0.0 or [::] for every interface); %s", form);
        return -1;
    }
    if (hlen >= sizeof hb || hlen >= cap) {
        snprintf(why, wcap, "a host of %zu bytes; %s", hlen, form);
        return -1;
    }
    memcpy(hb, h, hlen);
    hb[hlen] = '\0';
    unsigned char a[16];
    if (v6 ? inet_pton(AF_INET6, hb, a) != 1 : inet_pton(AF_INET, hb, a) != 1 && strcmp(hb, "localhost")) {
        snprintf(why, wcap, "%s is not %s; %s", hb, v6 ? "an IPv6 address" : "an IPv4 address or localhost", form);
        return -1;
    }
    const char *p = colon + 1;
    uint32_t n = 0;
    size_t digits = 0;
    if (*p < '0' || *p > '9') {
        snprintf(why, wcap, "the port is not a number; expected a port from 1 to 65535");
        return -1;
    }
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if (digits < 6) n = n * 10 + (uint32_t)(*p - '0');
    if (*p) {
        snprintf(why, wcap, "characters after the port; expected a port from 1 to 65535");
        return -1;
    }
    if (digits > 5 || n < 1 || n > 65535) {
        snprintf(why, wcap, "port out of range; expected a port from 1 to 65535");
        return -1;
    }
    memcpy(host, hb, hlen + 1);
    *port = (uint16_t)n;
    return 0;
}

static int check_listen(const char *text, char *why, size_t cap)
{
    char host[256];
    uint16_t port;
    return split_listen(text, host, sizeof host, &port, why, cap);
}

cz_status cz_conf_listen_parse(const cz_conf *c, char *host, size_t cap, uint16_t *port, cz_error *err)
{
    char why[300], q[200];
    if (!memchr(c->listen, '\0', sizeof c->listen))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "listen: not a terminated string");
    if (split_listen(c->listen, host, cap, port, why, sizeof why) < 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "listen = %s: %s", quote(c->listen, q, sizeof q), why);
    return CZ_OK;
}

int cz_conf_listen_is_loopback(const cz_conf *c)
{
    char host[256], why[300];
    uint16_t port;
    if (!memchr(c->listen, '\0', sizeof c->listen)) return 0;
    if (split_listen(c->listen, host, sizeof host, &port, why, sizeof why) < 0) return 0;
    if (!strcmp(host, "localhost")) return 1;
    unsigned char a[16];
    if (inet_pton(AF_INET, host, a) == 1) return a[0] == 127;
    if (inet_pton(AF_INET6, host, a) == 1) {
        static const unsigned char lo[16] = {[15] = 1}, mapped[12] = {[10] = 0xff, [11] = 0xff};
        if (!memcmp(a, lo, 16)) return 1;
        return !memcmp(a, mapped, 12) && a[12] == 127; /* ::ffff:127.x.x.x */
    }
    return 0;
}

/* ---- one value ---------------------------------------------------------- */

/* Checks one string, enum text or list entry v (len bytes). */
static int check_string(const conf_key *k, const char *v, size_t len, char *why, size_t cap)
{
    if (check_text(k, v, len, why, cap) < 0) return -1;
    if (k->check && k->check(v, why, cap) < 0) return -1;
    return 0;
}

/* Splits a list value at commas into entries (blanks around them trimmed)
 * in buf; 0 entries for an empty value. -1 with why for an empty entry. */
static int split_list(const char *v, char *buf, size_t bufcap, const char **ent, size_t *lens, int maxent, int *n,
                      char *why, size_t cap)
{
    size_t len = strlen(v);
    if (len + 1 > bufcap) {
        snprintf(why, cap, "%zu bytes long; expected at most %zu", len, bufcap - 1);
        return -1;
    }
    memcpy(buf, v, len + 1);
    *n = 0;
    const char *p = buf;
    while (*p && is_blank(*p))
        p++;
    if (!*p) return 0;
    for (char *s = buf;;) {
        char *comma = strchr(s, ',');
        char *e = comma ? comma : s + strlen(s);
        while (s < e && is_blank(*s))
            s++;
        while (e > s && is_blank(e[-1]))
            e--;
        if (e == s) {
            snprintf(why, cap, "an empty entry; expected entries separated by single commas");
            return -1;
        }
        if (*n == maxent) {
            snprintf(why, cap, "more than %d entries; expected at most %d", maxent, maxent);
            return -1;
        }
        int at_end = !comma;
        *e = '\0';
        ent[*n] = s;
        lens[*n] = (size_t)(e - s);
        (*n)++;
        if (at_end) break;
        s = comma + 1;
    }
    return 0;
}

static cz_status bad_value(cz_error *err, const char *from, const conf_key *k, const char *v, const char *why)
{
    char q[200];
    return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: %s = %s: %s", from && *from ? from : "configuration", k->name,
                        quote(v, q, sizeof q), why);
}

/* The key closest to an unknown name (at most two edits away), or NULL. */
static const char *closest_key(const char *name)
{
    size_t n = strlen(name);
    if (n > 40) return NULL;
    const char *best = NULL;
    size_t bestd = 3;
    for (size_t i = 0; i < CONF_NKEYS; i++) {
        const char *t = conf_keys[i].name;
        size_t m = strlen(t), row[48];
        if (m >= sizeof row / sizeof row[0]) continue;
        for (size_t j = 0; j <= m; j++)
            row[j] = j;
        for (size_t a = 1; a <= n; a++) {
            size_t diag = row[0];
            row[0] = a;
            for (size_t j = 1; j <= m; j++) {
                size_t up = row[j];
                size_t cost = diag + (name[a - 1] != t[j - 1]);
                if (row[j] + 1 < cost) cost = row[j] + 1;
                if (row[j - 1] + 1 < cost) cost = row[j - 1] + 1;
                row[j] = cost;
                diag = up;
            }
        }
        if (row[m] < bestd) {
            bestd = row[m];
            best = t;
        }
    }
    return best;
}

cz_status cz_conf_set(cz_conf *c, const char *key, const char *value, const char *from, cz_error *err)
{
    const char *src = from && *from ? from : "configuration";
    char why[400], q[200];
    const conf_key *k = find_key(key);
    if (!k) {
        const char *near = key ? closest_key(key) : NULL;
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: unknown key %s%s%s%s", src,
                            quote(key ? key : "", q, sizeof q), near ? " (did you mean " : "", near ? near : "",
                            near ? "?)" : "");
    }
    if (!value) {
        if (k->type == CONF_BOOL) {
            put_num(c, k, 1);
            return CZ_OK;
        }
        char e[200];
        expected(k, e, sizeof e);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: %s: no value; %s", src, k->name, e);
    }
    switch (k->type) {
    case CONF_STRING: {
        size_t len = strlen(value);
        if (check_string(k, value, len, why, sizeof why) < 0) return bad_value(err, src, k, value, why);
        memset(field(c, k), 0, k->size);
        memcpy(field(c, k), value, len);
        return CZ_OK;
    }
    case CONF_ENUM: {
        char canon[64];
        if (parse_enum(k, value, canon, sizeof canon) < 0 || strlen(canon) >= k->size) {
            expected(k, why, sizeof why);
            return bad_value(err, src, k, value, why);
        }
        memset(field(c, k), 0, k->size);
        memcpy(field(c, k), canon, strlen(canon));
        return CZ_OK;
    }
    case CONF_BOOL: {
        int b;
        if (parse_bool(value, &b) < 0) {
            expected(k, why, sizeof why);
            return bad_value(err, src, k, value, why);
        }
        put_num(c, k, (uint64_t)b);
        return CZ_OK;
    }
    case CONF_UINT:
    case CONF_SIZE:
    case CONF_DURATION: {
        uint64_t x;
        if (parse_number(k, value, &x, why, sizeof why) < 0) return bad_value(err, src, k, value, why);
        put_num(c, k, x);
        return CZ_OK;
    }
    case CONF_LIST: {
        const size_t bufcap = CZ_CONF_LIST_MAX * 4096 + 4096;
        char *buf = malloc(bufcap);
        if (!buf) return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: %s: out of memory", src, k->name);
        const char *ent[CZ_CONF_LIST_MAX];
        size_t lens[CZ_CONF_LIST_MAX];
        int n = 0, have = *list_count(c, k);
        if (have < 0 || have > CZ_CONF_LIST_MAX) have = CZ_CONF_LIST_MAX; /* set by hand: treated as full */
        int st = split_list(value, buf, bufcap, ent, lens, CZ_CONF_LIST_MAX, &n, why, sizeof why);
        for (int i = 0; st == 0 && i < n; i++) {
            char w[300];
            if (check_string(k, ent[i], lens[i], w, sizeof w) < 0) {
                snprintf(why, sizeof why, "entry %d: %s", i + 1, w);
                st = -1;
            }
        }
        if (st == 0 && n && have + n > CZ_CONF_LIST_MAX) {
            snprintf(why, sizeof why, "%d entries with the %d already given; expected at most %d", n, have,
                     CZ_CONF_LIST_MAX);
            st = -1;
        }
        if (st < 0) {
            cz_status s = bad_value(err, src, k, value, why);
            free(buf);
            return s;
        }
        char *base = field(c, k);
        if (n == 0) {
            memset(base, 0, k->size * CZ_CONF_LIST_MAX);
            *list_count(c, k) = 0;
        } else {
            for (int i = 0; i < n; i++) {
                memset(base + (size_t)(have + i) * k->size, 0, k->size);
                memcpy(base + (size_t)(have + i) * k->size, ent[i], lens[i]);
            }
            *list_count(c, k) = have + n;
        }
        free(buf);
        return CZ_OK;
    }
    }
    return cz_error_set(err, CZ_ERR_INTERNAL, "%s: %s: unknown type", src, k->name);
}

void cz_conf_defaults(cz_conf *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < CONF_NKEYS; i++)
        if (conf_keys[i].def && conf_keys[i].def[0])
            cz_conf_set(c, conf_keys[i].name, conf_keys[i].def, "default", NULL);
}

/* ---- the value as text -------------------------------------------------- */

/* The value of a scalar key in its own syntax (reads back the same). */
static void fmt_scalar(const cz_conf *c, const conf_key *k, char *out, size_t cap)
{
    switch (k->type) {
    case CONF_STRING:
    case CONF_ENUM: snprintf(out, cap, "%.*s", (int)strnlen(cfield(c, k), k->size), cfield(c, k)); break;
    case CONF_BOOL: snprintf(out, cap, "%s", get_num(c, k) ? "true" : "false"); break;
    case CONF_SIZE: fmt_size(get_num(c, k), out, cap); break;
    case CONF_UINT:
    case CONF_DURATION: snprintf(out, cap, "%llu", (unsigned long long)get_num(c, k)); break;
    case CONF_LIST: out[0] = '\0'; break;
    }
}

/* `key = value` (`key =` when empty); a list's entries comma-separated. */
static void print_key(FILE *f, const cz_conf *c, const conf_key *k)
{
    if (k->type == CONF_LIST) {
        int n = clist_count(c, k);
        if (n < 0) n = 0;
        if (n > CZ_CONF_LIST_MAX) n = CZ_CONF_LIST_MAX;
        fprintf(f, "%s =", k->name);
        for (int i = 0; i < n; i++) {
            const char *e = cfield(c, k) + (size_t)i * k->size;
            fprintf(f, "%s%.*s", i ? ", " : " ", (int)strnlen(e, k->size), e);
        }
        fputc('\n', f);
        return;
    }
    char v[4200];
    fmt_scalar(c, k, v, sizeof v);
    if (v[0])
        fprintf(f, "%s = %s\n", k->name, v);
    else
        fprintf(f, "%s =\n", k->name);
}

void cz_conf_print(const cz_conf *c, void *fp)
{
    FILE *f = fp;
    for (size_t i = 0; i < CONF_NKEYS; i++)
        print_key(f, c, &conf_keys[i]);
}

/* ---- validation --------------------------------------------------------- */

/* A key's stored value against its own rules. */
static cz_status check_stored(const cz_conf *c, const conf_key *k, cz_error *err)
{
    char why[400], v[4200], q[200];
    switch (k->type) {
    case CONF_STRING:
    case CONF_ENUM:
        if (!memchr(cfield(c, k), '\0', k->size))
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: not a terminated string", k->name);
        if (k->type == CONF_ENUM) {
            char canon[64];
            if (parse_enum(k, cfield(c, k), canon, sizeof canon) == 0) return CZ_OK;
            expected(k, why, sizeof why);
        } else if (check_string(k, cfield(c, k), strlen(cfield(c, k)), why, sizeof why) == 0) {
            return CZ_OK;
        }
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s = %s: %s", k->name, quote(cfield(c, k), q, sizeof q), why);
    case CONF_BOOL:
        if (get_num(c, k) <= 1) return CZ_OK;
        expected(k, why, sizeof why);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s = %llu: %s", k->name, (unsigned long long)get_num(c, k), why);
    case CONF_UINT:
    case CONF_SIZE:
    case CONF_DURATION: {
        uint64_t x;
        fmt_scalar(c, k, v, sizeof v);
        if (parse_number(k, v, &x, why, sizeof why) == 0) return CZ_OK;
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s = %s: %s", k->name, v, why);
    }
    case CONF_LIST: {
        int n = clist_count(c, k);
        if (n < 0 || n > CZ_CONF_LIST_MAX)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: %d entries; expected 0 to %d", k->name, n,
                                CZ_CONF_LIST_MAX);
        for (int i = 0; i < n; i++) {
            const char *e = cfield(c, k) + (size_t)i * k->size;
            if (!memchr(e, '\0', k->size))
                return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: entry %d is not a terminated string", k->name, i + 1);
            size_t len = strlen(e);
            if (!len) return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: entry %d is empty", k->name, i + 1);
            if (memchr(e, ',', len) || check_string(k, e, len, why, sizeof why) < 0) {
                if (memchr(e, ',', len)) snprintf(why, sizeof why, "a comma; expected one entry");
                return cz_error_set(err, CZ_ERR_INVALID_ARG, "%s: entry %d = %s: %s", k->name, i + 1,
                                    quote(e, q, sizeof q), why);
            }
        }
        return CZ_OK;
    }
    }
    return CZ_OK;
}

cz_status cz_conf_validate(const cz_conf *c, cz_error *err)
{
    cz_status st;
    for (size_t i = 0; i < CONF_NKEYS; i++)
        if ((st = check_stored(c, &conf_keys[i], err)) != CZ_OK) return st;
    char host[256], q[200];
    uint16_t port;
    if ((st = cz_conf_listen_parse(c, host, sizeof host, &port, err)) != CZ_OK) return st;
    if (!c->tls_cert[0] != !c->tls_key[0])
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "%s is set but %s is not: TLS needs both the certificate and its key",
                            c->tls_cert[0] ? "tls_cert" : "tls_key", c->tls_cert[0] ? "tls_key" : "tls_cert");
    if (!c->data_dir[0])
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "data_dir is not set: the daemon needs a directory for its store "
                            "and spool");
    if (c->n_allow_dir < 1)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "allow_dir is not set: at least one directory whose files requests may name is needed");
    if (c->max_body_bytes > c->max_spool_bytes) {
        char a[32], b[32];
        fmt_size(c->max_body_bytes, a, sizeof a);
        fmt_size(c->max_spool_bytes, b, sizeof b);
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "max_body_bytes = %s exceeds max_spool_bytes = %s: an upload that large could never be "
                            "spooled",
                            a, b);
    }
    if (!cz_conf_listen_is_loopback(c)) {
        const char *env = getenv("CUZKD_TOKEN");
        if (!c->token_file[0] && !(env && env[0]))
            return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                "listen = %s is not a loopback address: it needs a bearer token (token_file, or the "
                                "environment variable CUZKD_TOKEN)",
                                quote(c->listen, q, sizeof q));
        if (!c->tls_cert[0] && !c->insecure_plaintext)
            return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                "listen = %s is not a loopback address: it needs TLS (tls_cert and tls_key), or "
                                "insecure_plaintext = true to send the token in the clear",
                                quote(c->listen, q, sizeof q));
    }
    return CZ_OK;
}

/* ---- the INI file ------------------------------------------------------- */

/* The longest line a file may have: a list of CZ_CONF_LIST_MAX full paths. */
#define CONF_LINE_MAX (CZ_CONF_LIST_MAX * 4096 + 1024)

typedef struct conf_load {
    cz_conf *conf;
    const char *path;
    FILE *f;
    char *line;
    size_t cap;
    int lineno;
    int read_errno;
    int err_line; /* line of the first error found here, 0: none */
    cz_error err;
} conf_load;

/* Records the first error of the file, at the current line. */
static void load_fail(conf_load *x, cz_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void load_fail(conf_load *x, cz_status st, const char *fmt, ...)
{
    if (x->err_line) return;
    char m[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    x->err_line = x->lineno;
    cz_error_set(&x->err, st, "%s:%d: %s", x->path, x->lineno, m);
}

/* libinih's reader: one physical line a call (so that x->lineno is the line
 * that libinih works on), whole or refused. A section header other than
 * [cuzkd] is refused here, where even a section without keys is seen. */
static char *conf_reader(char *buf, int num, void *stream)
{
    conf_load *x = stream;
    errno = 0;
    ssize_t n = getline(&x->line, &x->cap, x->f);
    if (n < 0) {
        if (ferror(x->f)) x->read_errno = errno ? errno : EIO;
        return NULL;
    }
    x->lineno++;
    if (memchr(x->line, '\0', (size_t)n)) {
        load_fail(x, CZ_ERR_FORMAT, "a NUL byte in the line");
        buf[0] = '\0';
        return buf;
    }
    if (n + 1 > num) {
        load_fail(x, CZ_ERR_FORMAT, "line longer than %d bytes", num - 2);
        buf[0] = '\0';
        return buf;
    }
    memcpy(buf, x->line, (size_t)n + 1);
    const char *p = buf;
    if (x->lineno == 1 && !strncmp(p, "\xEF\xBB\xBF", 3)) p += 3; /* a UTF-8 BOM, which libinih skips */
    while (is_blank(*p))
        p++;
    const char *rb = *p == '[' ? strchr(p, ']') : NULL;
    if (rb && !(rb - p - 1 == 5 && !memcmp(p + 1, "cuzkd", 5))) {
        char name[200], q[220];
        snprintf(name, sizeof name, "%.*s", (int)(rb - p - 1), p + 1);
        load_fail(x, CZ_ERR_INVALID_ARG, "unknown section %s (keys go in [cuzkd] or before any section)",
                  quote(name, q, sizeof q));
    }
    return buf;
}

static int conf_handler(void *user, const char *section, const char *name, const char *value)
{
    conf_load *x = user;
    if (x->err_line) return 1; /* the first error is the one reported */
    if (section[0] && strcmp(section, "cuzkd")) {
        char q[200];
        load_fail(x, CZ_ERR_INVALID_ARG, "unknown section %s", quote(section, q, sizeof q));
        return 0;
    }
    char from[4200];
    snprintf(from, sizeof from, "%s:%d", x->path, x->lineno);
    if (cz_conf_set(x->conf, name, value, from, &x->err) != CZ_OK) {
        x->err_line = x->lineno;
        return 0;
    }
    return 1;
}

cz_status cz_conf_load_file(cz_conf *c, const char *path, cz_error *err)
{
    if (!path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "no configuration file named");
    FILE *f = fopen(path, "r");
    if (!f) return cz_error_set(err, CZ_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    conf_load x;
    memset(&x, 0, sizeof x);
    x.conf = malloc(sizeof *x.conf);
    if (!x.conf) {
        fclose(f);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    *x.conf = *c;
    x.path = path;
    x.f = f;
    cz_error_clear(&x.err);

    int saved = ini_max_line;
    ini_max_line = CONF_LINE_MAX;
    int r = ini_parse_stream(conf_reader, &x, conf_handler, &x);
    ini_max_line = saved;

    cz_status st = CZ_OK;
    if (x.read_errno) {
        st = cz_error_set(err, CZ_ERR_IO, "%s: cannot read: %s", path, strerror(x.read_errno));
    } else if (r == -2) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", path);
    } else if (r > 0 && (!x.err_line || r < x.err_line)) {
        st = cz_error_set(err, CZ_ERR_FORMAT, "%s:%d: expected `key = value`, a [section] or a comment", path, r);
    } else if (x.err_line) {
        st = cz_error_set(err, x.err.status, "%s", x.err.msg);
    } else if (r != 0) {
        st = cz_error_set(err, CZ_ERR_INTERNAL, "%s: libinih returned %d", path, r);
    } else {
        *c = *x.conf;
    }
    free(x.line);
    free(x.conf);
    fclose(f);
    return st;
}

/* ---- documentation ------------------------------------------------------ */

int cz_conf_has_key(const char *key)
{
    return find_key(key) != NULL;
}

int cz_conf_key_takes_value(const char *key)
{
    const conf_key *k = find_key(key);
    return k && k->type != CONF_BOOL;
}

/* The bounds or choices of a key as a sentence, "" for strings. */
static void bounds_line(const conf_key *k, char *out, size_t cap)
{
    char a[32], b[32];
    out[0] = '\0';
    switch (k->type) {
    case CONF_UINT:
        snprintf(out, cap, "From %llu to %llu.", (unsigned long long)k->min, (unsigned long long)k->max);
        break;
    case CONF_DURATION:
        fmt_duration(k->min, a, sizeof a);
        fmt_duration(k->max, b, sizeof b);
        snprintf(out, cap, "Seconds, from %s to %s (or with s, m, h, d: 2h = 7200, 1d = 86400).", a, b);
        break;
    case CONF_SIZE:
        fmt_size(k->min, a, sizeof a);
        fmt_size(k->max, b, sizeof b);
        snprintf(out, cap, "From %s to %s bytes (K, M, G, T, P, E: powers of 1024).", a, b);
        break;
    case CONF_ENUM:
        choices_text(k, a, sizeof a);
        snprintf(out, cap, "One of: %s.", a);
        break;
    case CONF_BOOL: snprintf(out, cap, "true or false."); break;
    case CONF_STRING:
    case CONF_LIST: break;
    }
}

void cz_conf_print_example(void *fp)
{
    FILE *f = fp;
    fputs("# cuzkd.conf: the configuration of cuzkd, the cuzk proving daemon.\n"
          "#\n"
          "# Every key is here at its default (this file is the key table of\n"
          "# daemon/config.c written out). Keys go in the section [cuzkd] or before\n"
          "# any section; an unknown key or section is an error. Lines starting\n"
          "# with # or ; are comments, as is the rest of a line after \" ;\".\n"
          "# Every key is also a flag, --key VALUE, which overrides this file.\n"
          "#\n"
          "# Numbers are decimal digits (no sign, no 0x). Byte sizes may end in\n"
          "# K, M, G, T, P or E, powers of 1024: 64M = 64 * 1024^2 bytes.\n"
          "# Durations are seconds and may end in s, m, h or d: 1d = 86400.\n"
          "# Booleans: true/false, yes/no, on/off, 1/0. Lists (allow_dir, preload):\n"
          "# repeat the key or separate entries with commas; an empty value\n"
          "# empties the list.\n"
          "\n"
          "[cuzkd]\n",
          f);
    cz_conf def;
    cz_conf_defaults(&def);
    for (size_t i = 0; i < CONF_NKEYS; i++) {
        const conf_key *k = &conf_keys[i];
        if (k->group) fprintf(f, "\n# ---- %s ----\n", k->group);
        fputc('\n', f);
        for (const char *p = k->help; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(f, "# %.*s\n", (int)len, p);
            p += len + (nl ? 1 : 0);
        }
        char b[200];
        bounds_line(k, b, sizeof b);
        if (b[0]) fprintf(f, "# %s\n", b);
        print_key(f, &def, k);
    }
}

void cz_conf_print_flags(void *fp)
{
    FILE *f = fp;
    cz_conf def;
    cz_conf_defaults(&def);
    for (size_t i = 0; i < CONF_NKEYS; i++) {
        const conf_key *k = &conf_keys[i];
        char left[64], v[4200];
        if (k->type == CONF_BOOL)
            snprintf(left, sizeof left, "--%s", k->name);
        else
            snprintf(left, sizeof left, "--%s %s", k->name, k->arg ? k->arg : "VALUE");
        for (char *c = left + 2; *c && *c != ' '; c++) /* the flag spelling: --data-dir */
            if (*c == '_') *c = '-';
        const char *nl = strchr(k->help, '\n');
        int len = nl ? (int)(nl - k->help) : (int)strlen(k->help);
        fmt_scalar(&def, k, v, sizeof v);
        if (k->type == CONF_LIST)
            fprintf(f, "  %-32s %.*s (repeatable)\n", left, len, k->help);
        else if (v[0] && k->type != CONF_BOOL)
            fprintf(f, "  %-32s %.*s (default %s)\n", left, len, k->help, v);
        else
            fprintf(f, "  %-32s %.*s\n", left, len, k->help);
    }
}
