#include "io/json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/binfile.h"

enum { MAX_DEPTH = 64 };

/* arena of blocks */
typedef struct block {
    struct block *next;
    size_t used, cap;
    unsigned char data[];
} block;

struct cz_json_doc {
    block *blocks;
};

static void *arena_alloc(cz_json_doc *d, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    block *b = d->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof(block) + cap);
        if (!b) return NULL;
        b->next = d->blocks;
        b->used = 0;
        b->cap = cap;
        d->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

typedef struct {
    const char *s, *end, *name;
    cz_json_doc *doc;
    cz_error *err;
} parser;

typedef struct {
    parser p;
    const char *base;
} pctx;

/* line and column (from 1) of the byte at offset off of text */
static void line_col(const char *text, size_t len, size_t off, long *line, long *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

static cz_status fail(pctx *c, const char *at, const char *what)
{
    long line, col;
    line_col(c->base, (size_t)(c->p.end - c->base), (size_t)(at - c->base), &line, &col);
    return cz_error_set(c->p.err, CZ_ERR_FORMAT, "%s: line %ld, column %ld: %s", c->p.name, line, col, what);
}

/* a key met twice in one object: both places; snarkjs (JSON.parse) would
 * keep the last and an earlier cuzk the first, so neither is taken */
static cz_status fail_dup(pctx *c, const char *at, const char *key, size_t first)
{
    long line, col, l0, c0;
    const size_t len = (size_t)(c->p.end - c->base);
    line_col(c->base, len, (size_t)(at - c->base), &line, &col);
    line_col(c->base, len, first, &l0, &c0);
    return cz_error_set(c->p.err, CZ_ERR_FORMAT,
                        "%s: line %ld, column %ld: duplicate key \"%.60s\" (first at line %ld, column %ld): a key may "
                        "appear only once in an object",
                        c->p.name, line, col, key, l0, c0);
}

static void skip_ws(pctx *c)
{
    while (c->p.s < c->p.end && (*c->p.s == ' ' || *c->p.s == '\t' || *c->p.s == '\n' || *c->p.s == '\r')) c->p.s++;
}

static cz_json *new_node(pctx *c, cz_json_type t)
{
    cz_json *n = arena_alloc(c->p.doc, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->type = t;
        n->at = (size_t)(c->p.s - c->base);
    }
    return n;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static cz_status parse_string(pctx *c, const char **out, size_t *outlen)
{
    const char *start = c->p.s; /* at the opening quote */
    c->p.s++;
    /* output is never longer than the input */
    const char *q = c->p.s;
    while (q < c->p.end && *q != '"') q += (*q == '\\' && q + 1 < c->p.end) ? 2 : 1;
    if (q >= c->p.end) return fail(c, start, "unterminated string");
    char *buf = arena_alloc(c->p.doc, (size_t)(q - c->p.s) + 1);
    if (!buf) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
    size_t n = 0;
    while (c->p.s < c->p.end && *c->p.s != '"') {
        unsigned char ch = (unsigned char)*c->p.s;
        if (ch < 0x20) return fail(c, c->p.s, "control character in string");
        if (ch != '\\') {
            buf[n++] = (char)ch;
            c->p.s++;
            continue;
        }
        const char *esc = c->p.s;
        c->p.s++;
        if (c->p.s >= c->p.end) return fail(c, esc, "bad escape");
        char e = *c->p.s++;
        switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
            uint32_t cp = 0;
            for (int k = 0; k < 4; k++) {
                int h = c->p.s < c->p.end ? hexval(*c->p.s) : -1;
                if (h < 0) return fail(c, esc, "bad \\u escape");
                cp = cp * 16 + (uint32_t)h;
                c->p.s++;
            }
            if (cp >= 0xD800 && cp < 0xDC00) {
                uint32_t lo = 0;
                if (c->p.end - c->p.s < 6 || c->p.s[0] != '\\' || c->p.s[1] != 'u')
                    return fail(c, esc, "unpaired surrogate");
                c->p.s += 2;
                for (int k = 0; k < 4; k++) {
                    int h = hexval(*c->p.s);
                    if (h < 0) return fail(c, esc, "bad \\u escape");
                    lo = lo * 16 + (uint32_t)h;
                    c->p.s++;
                }
                if (lo < 0xDC00 || lo > 0xDFFF) return fail(c, esc, "unpaired surrogate");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return fail(c, esc, "unpaired surrogate");
            }
            if (cp == 0) return fail(c, esc, "NUL character in string");
            /* UTF-8: at most 4 bytes for <= 12 input bytes consumed */
            if (cp < 0x80) {
                buf[n++] = (char)cp;
            } else if (cp < 0x800) {
                buf[n++] = (char)(0xC0 | (cp >> 6));
                buf[n++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                buf[n++] = (char)(0xE0 | (cp >> 12));
                buf[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                buf[n++] = (char)(0x80 | (cp & 0x3F));
            } else {
                buf[n++] = (char)(0xF0 | (cp >> 18));
                buf[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                buf[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                buf[n++] = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: return fail(c, esc, "bad escape");
        }
    }
    c->p.s++; /* closing quote */
    buf[n] = '\0';
    *out = buf;
    *outlen = n;
    return CZ_OK;
}

static cz_status parse_value(pctx *c, cz_json **out, int depth);

/* The keys of one object so far: a linear scan while it is small, then an
 * open-addressing table (in the arena) so that a hostile object with many
 * keys costs linear time. */
enum { KEYSET_LINEAR = 16 };
typedef struct {
    cz_json **slot; /* cap entries, NULL = free */
    size_t cap;
} keyset;

static uint64_t key_hash(const char *k, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)k[i]) * 0x100000001b3ULL;
    return h;
}

static int key_eq(const cz_json *a, const char *k, size_t n)
{
    return a->klen == n && memcmp(a->key, k, n) == 0;
}

/* inserts m (m->key set); CZ_OK, or a pointer to the earlier member with
 * that key in *dup; NO_MEMORY */
static cz_status keyset_add(pctx *c, keyset *ks, const cz_json *obj, cz_json *m, const cz_json **dup)
{
    *dup = NULL;
    if (obj->nchild < KEYSET_LINEAR) {
        for (size_t i = 0; i < obj->nchild; i++)
            if (key_eq(obj->child[i], m->key, m->klen)) {
                *dup = obj->child[i];
                return CZ_OK;
            }
        return CZ_OK;
    }
    if (ks->cap < 2 * (obj->nchild + 1)) {
        size_t ncap = ks->cap ? 2 * ks->cap : 4 * KEYSET_LINEAR;
        cz_json **ns = arena_alloc(c->p.doc, ncap * sizeof *ns);
        if (!ns) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
        memset(ns, 0, ncap * sizeof *ns);
        /* the members so far (all distinct) */
        for (size_t i = 0; i < obj->nchild; i++) {
            size_t h = (size_t)key_hash(obj->child[i]->key, obj->child[i]->klen) & (ncap - 1);
            while (ns[h])
                h = (h + 1) & (ncap - 1);
            ns[h] = obj->child[i];
        }
        ks->slot = ns;
        ks->cap = ncap;
    }
    size_t h = (size_t)key_hash(m->key, m->klen) & (ks->cap - 1);
    while (ks->slot[h]) {
        if (key_eq(ks->slot[h], m->key, m->klen)) {
            *dup = ks->slot[h];
            return CZ_OK;
        }
        h = (h + 1) & (ks->cap - 1);
    }
    ks->slot[h] = m;
    return CZ_OK;
}

static cz_status push_child(pctx *c, cz_json *parent, cz_json *child, size_t *cap)
{
    if (parent->nchild == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        cz_json **nc = arena_alloc(c->p.doc, ncap * sizeof *nc);
        if (!nc) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
        if (parent->nchild) memcpy(nc, parent->child, parent->nchild * sizeof *nc);
        parent->child = nc;
        *cap = ncap;
    }
    parent->child[parent->nchild++] = child;
    return CZ_OK;
}

static cz_status parse_value(pctx *c, cz_json **out, int depth)
{
    cz_status st;
    skip_ws(c);
    if (c->p.s >= c->p.end) return fail(c, c->p.s, "unexpected end of input, expected a value");
    if (depth > MAX_DEPTH) return fail(c, c->p.s, "nesting deeper than 64");
    const char *at = c->p.s;
    char ch = *c->p.s;
    cz_json *n;
    if (ch == '{' || ch == '[') {
        int obj = ch == '{';
        n = new_node(c, obj ? CZ_JSON_OBJECT : CZ_JSON_ARRAY);
        if (!n) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
        c->p.s++;
        size_t cap = 0;
        keyset ks = {NULL, 0};
        skip_ws(c);
        if (c->p.s < c->p.end && *c->p.s == (obj ? '}' : ']')) {
            c->p.s++;
            *out = n;
            return CZ_OK;
        }
        for (;;) {
            const char *key = NULL, *kat = NULL;
            size_t klen = 0;
            skip_ws(c);
            if (obj) {
                if (c->p.s >= c->p.end || *c->p.s != '"') return fail(c, c->p.s, "expected a string key");
                kat = c->p.s;
                if ((st = parse_string(c, &key, &klen)) != CZ_OK) return st;
                skip_ws(c);
                if (c->p.s >= c->p.end || *c->p.s != ':') return fail(c, c->p.s, "expected ':'");
                c->p.s++;
            }
            cz_json *child;
            if ((st = parse_value(c, &child, depth + 1)) != CZ_OK) return st;
            child->key = key;
            child->klen = klen;
            if (kat) child->at = (size_t)(kat - c->base);
            if (obj) {
                const cz_json *dup;
                if ((st = keyset_add(c, &ks, n, child, &dup)) != CZ_OK) return st;
                if (dup) return fail_dup(c, kat, key, dup->at);
            }
            if ((st = push_child(c, n, child, &cap)) != CZ_OK) return st;
            skip_ws(c);
            if (c->p.s >= c->p.end) return fail(c, c->p.s, obj ? "unterminated object" : "unterminated array");
            if (*c->p.s == ',') {
                c->p.s++;
                continue;
            }
            if (*c->p.s == (obj ? '}' : ']')) {
                c->p.s++;
                break;
            }
            return fail(c, c->p.s, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        *out = n;
        return CZ_OK;
    }
    if (ch == '"') {
        n = new_node(c, CZ_JSON_STRING);
        if (!n) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
        if ((st = parse_string(c, &n->str, &n->len)) != CZ_OK) return st;
        *out = n;
        return CZ_OK;
    }
    static const struct {
        const char *word;
        cz_json_type t;
        int b;
    } words[] = {{"true", CZ_JSON_BOOL, 1}, {"false", CZ_JSON_BOOL, 0}, {"null", CZ_JSON_NULL, 0}};
    for (size_t i = 0; i < 3; i++) {
        size_t wl = strlen(words[i].word);
        if ((size_t)(c->p.end - c->p.s) >= wl && memcmp(c->p.s, words[i].word, wl) == 0) {
            n = new_node(c, words[i].t);
            if (!n) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
            n->boolean = words[i].b;
            c->p.s += wl;
            *out = n;
            return CZ_OK;
        }
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        const char *q = c->p.s;
        if (*q == '-') q++;
        if (q >= c->p.end || !(*q >= '0' && *q <= '9')) return fail(c, at, "bad number");
        if (*q == '0' && q + 1 < c->p.end && q[1] >= '0' && q[1] <= '9') return fail(c, at, "leading zero in number");
        while (q < c->p.end && *q >= '0' && *q <= '9') q++;
        if (q < c->p.end && *q == '.') {
            q++;
            if (q >= c->p.end || !(*q >= '0' && *q <= '9')) return fail(c, at, "bad number");
            while (q < c->p.end && *q >= '0' && *q <= '9') q++;
        }
        if (q < c->p.end && (*q == 'e' || *q == 'E')) {
            q++;
            if (q < c->p.end && (*q == '+' || *q == '-')) q++;
            if (q >= c->p.end || !(*q >= '0' && *q <= '9')) return fail(c, at, "bad number");
            while (q < c->p.end && *q >= '0' && *q <= '9') q++;
        }
        n = new_node(c, CZ_JSON_NUMBER);
        if (!n) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
        n->len = (size_t)(q - c->p.s);
        char *txt = arena_alloc(c->p.doc, n->len + 1);
        if (!txt) return cz_error_set(c->p.err, CZ_ERR_NO_MEMORY, "%s: out of memory", c->p.name);
        memcpy(txt, c->p.s, n->len);
        txt[n->len] = '\0';
        n->str = txt;
        c->p.s = q;
        *out = n;
        return CZ_OK;
    }
    return fail(c, at, "unexpected character, expected a value");
}

cz_status cz_json_parse(cz_json_doc **docp, cz_json **root, const char *text, size_t len, const char *name,
                        cz_error *err)
{
    *docp = NULL;
    *root = NULL;
    cz_json_doc *doc = calloc(1, sizeof *doc);
    if (!doc) return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory", name);
    pctx c = {{text, text + len, name, doc, err}, text};
    cz_json *r = NULL;
    cz_status st = parse_value(&c, &r, 0);
    if (st == CZ_OK) {
        skip_ws(&c);
        if (c.p.s != c.p.end) st = fail(&c, c.p.s, "trailing characters after the JSON value");
    }
    if (st != CZ_OK) {
        cz_json_free(doc);
        return st;
    }
    *docp = doc;
    *root = r;
    return CZ_OK;
}

/* offset of the first byte in buf[0..n) that no JSON text holds (a control
 * character other than tab, LF, CR: not even inside strings), or n */
static size_t first_bad_byte(const unsigned char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] < 0x20 && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r') return i;
    return n;
}

cz_status cz_json_parse_file_max(cz_json_doc **doc, cz_json **root, const char *path, size_t max_bytes,
                                 const char *what, cz_error *err)
{
    *doc = NULL;
    *root = NULL;
    int fd;
    struct stat sb;
    cz_status st = cz_io_open_regular(path, &fd, &sb, err);
    if (st != CZ_OK) return st;
    if ((uint64_t)sb.st_size > max_bytes) {
        close(fd);
        return cz_error_set(err, CZ_ERR_FORMAT,
                            "%s: %" PRIu64 " bytes, more than the %zu bytes cuzk reads for %s (not a JSON file of that "
                            "kind?)",
                            path, (uint64_t)sb.st_size, max_bytes, what);
    }
    /* what fstat said, plus one byte to notice a file that grew */
    const size_t want = (size_t)sb.st_size + 1;
    char *buf = malloc(want);
    if (!buf) {
        close(fd);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", path, want);
    }
    size_t n = 0;
    st = CZ_OK;
    while (n < want) {
        size_t chunk = want - n < (1 << 16) ? want - n : (1 << 16);
        ssize_t got = read(fd, buf + n, chunk);
        if (got < 0) {
            int e = errno;
            if (e == EINTR) continue;
            st = cz_error_set(err, cz_io_status(e), "%s: offset %zu: read failed: %s", path, n,
                              e == EISDIR ? "is a directory" : strerror(e));
            break;
        }
        if (got == 0) break;
        size_t bad = first_bad_byte((const unsigned char *)buf + n, (size_t)got);
        n += (size_t)got;
        if (bad < (size_t)got) {
            long line, col;
            size_t off = n - (size_t)got + bad;
            line_col(buf, n, off, &line, &col);
            st = cz_error_set(err, CZ_ERR_FORMAT,
                              "%s: line %ld, column %ld (offset %zu): byte 0x%02x, which no JSON text contains (not a "
                              "JSON file?)",
                              path, line, col, off, (unsigned char)buf[off]);
            break;
        }
    }
    close(fd);
    if (st == CZ_OK && n != (size_t)sb.st_size)
        st = cz_error_set(
            err, CZ_ERR_IO, "%s: %s%zu bytes read, %" PRIu64 " when it was opened: it changed while it was read", path,
            n > (size_t)sb.st_size ? "more than " : "", n > (size_t)sb.st_size ? n - 1 : n, (uint64_t)sb.st_size);
    if (st == CZ_OK) st = cz_json_parse(doc, root, buf, n, path, err);
    free(buf);
    return st;
}

cz_status cz_json_parse_file(cz_json_doc **doc, cz_json **root, const char *path, cz_error *err)
{
    return cz_json_parse_file_max(doc, root, path, CZ_JSON_FILE_MAX, "a JSON file", err);
}

void cz_json_free(cz_json_doc *doc)
{
    if (!doc) return;
    block *b = doc->blocks;
    while (b) {
        block *n = b->next;
        free(b);
        b = n;
    }
    free(doc);
}

const cz_json *cz_json_get(const cz_json *obj, const char *key)
{
    if (!obj || obj->type != CZ_JSON_OBJECT) return NULL;
    for (size_t i = 0; i < obj->nchild; i++)
        if (obj->child[i]->key && strcmp(obj->child[i]->key, key) == 0) return obj->child[i];
    return NULL;
}

const cz_json *cz_json_at(const cz_json *arr, size_t i)
{
    if (!arr || arr->type != CZ_JSON_ARRAY || i >= arr->nchild) return NULL;
    return arr->child[i];
}

cz_status cz_json_uint(const cz_json *v, uint64_t max, uint64_t *out)
{
    if (!v || v->type != CZ_JSON_NUMBER || v->len == 0) return CZ_ERR_FORMAT;
    uint64_t x = 0;
    for (size_t i = 0; i < v->len; i++) {
        char ch = v->str[i];
        if (ch < '0' || ch > '9') return CZ_ERR_FORMAT; /* '-', '.', 'e', 'E', '+' */
        if (x > (UINT64_MAX - (uint64_t)(ch - '0')) / 10) return CZ_ERR_RANGE;
        x = 10 * x + (uint64_t)(ch - '0');
    }
    if (v->len > 1 && v->str[0] == '0') return CZ_ERR_FORMAT;
    if (x > max) return CZ_ERR_RANGE;
    *out = x;
    return CZ_OK;
}
