/*
 * io/json: a small strict JSON reader (RFC 8259) for verifying keys, proofs
 * and public inputs, and the text helpers the writers use.
 *
 * DESIGN: cz_json_parse() builds a tree of cz_json nodes in one arena that
 * cz_json_free() releases at once. Numbers keep their source text (field
 * elements are big decimal integers; callers parse them exactly). Strings are
 * unescaped (\uXXXX included, surrogate pairs combined into UTF-8; embedded
 * NUL rejected). A key repeated in one object is an error (JSON.parse, and
 * so snarkjs, would take the last; refusing the file keeps cuzk and snarkjs
 * from reading two different values out of it). Depth is limited to 64 and
 * errors carry line:column.
 *
 * Files are read only if they are regular files (a FIFO, a device or a
 * directory is refused, by name, before anything can block) no larger than
 * the caller's limit (checked on fstat's size before the first byte is read,
 * and again while reading), and the reading stops at the first byte no
 * JSON text may contain (a control character other than tab, CR, LF).
 */
#ifndef CZ_IO_JSON_H
#define CZ_IO_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

typedef enum { CZ_JSON_NULL, CZ_JSON_BOOL, CZ_JSON_NUMBER, CZ_JSON_STRING, CZ_JSON_ARRAY, CZ_JSON_OBJECT } cz_json_type;

typedef struct cz_json cz_json;
struct cz_json {
    cz_json_type type;
    int boolean;
    const char *str; /* STRING: unescaped text; NUMBER: its source text (both NUL-terminated) */
    size_t len;
    const char *key; /* set on object members */
    size_t klen;
    size_t at; /* byte offset of the member's key (objects) or of the value */
    size_t nchild;
    cz_json **child;
};

typedef struct cz_json_doc cz_json_doc;

/* Parses text[0..len). name labels error messages (a file name). On success
 * *root points into *doc. */
cz_status cz_json_parse(cz_json_doc **doc, cz_json **root, const char *text, size_t len, const char *name,
                        cz_error *err);
/* Reads and parses a whole file of at most max_bytes bytes (a larger one is
 * CZ_ERR_FORMAT naming the file, its size, the limit and what: "a proof").
 * CZ_ERR_IO for a file that cannot be read or is not a regular file. */
cz_status cz_json_parse_file_max(cz_json_doc **doc, cz_json **root, const char *path, size_t max_bytes,
                                 const char *what, cz_error *err);
/* The same with a limit of CZ_JSON_FILE_MAX. */
enum { CZ_JSON_FILE_MAX = 1 << 20 };
cz_status cz_json_parse_file(cz_json_doc **doc, cz_json **root, const char *path, cz_error *err);
void cz_json_free(cz_json_doc *doc);

/* Object member by key, NULL if absent or not an object. */
const cz_json *cz_json_get(const cz_json *obj, const char *key);
/* Array element, NULL if out of range or not an array. */
const cz_json *cz_json_at(const cz_json *arr, size_t i);
/* A JSON number that is a plain integer in [0, max]: digits only (no sign,
 * no fraction, no exponent; the parser already refuses leading zeros).
 * CZ_ERR_FORMAT if v is no such number, CZ_ERR_RANGE if it exceeds max;
 * no message (the caller names the file and the field). */
cz_status cz_json_uint(const cz_json *v, uint64_t max, uint64_t *out);

#endif
