/*
 * io/json: a small strict JSON reader (RFC 8259) for verifying keys, proofs
 * and public inputs, and the text helpers the writers use.
 *
 * DESIGN: cz_json_parse() builds a tree of cz_json nodes in one arena that
 * cz_json_free() releases at once. Numbers keep their source text (field
 * elements are big decimal integers; callers parse them exactly). Strings are
 * unescaped (\uXXXX included, surrogate pairs combined into UTF-8; embedded
 * NUL rejected). Depth is limited to 64 and errors carry line:column.
 */
#ifndef CZ_IO_JSON_H
#define CZ_IO_JSON_H

#include <stddef.h>
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
    size_t nchild;
    cz_json **child;
};

typedef struct cz_json_doc cz_json_doc;

/* Parses text[0..len). name labels error messages (a file name). On success
 * *root points into *doc. */
cz_status cz_json_parse(cz_json_doc **doc, cz_json **root, const char *text, size_t len, const char *name,
                        cz_error *err);
/* Reads and parses a whole file. */
cz_status cz_json_parse_file(cz_json_doc **doc, cz_json **root, const char *path, cz_error *err);
void cz_json_free(cz_json_doc *doc);

/* Object member by key, NULL if absent or not an object. */
const cz_json *cz_json_get(const cz_json *obj, const char *key);
/* Array element, NULL if out of range or not an array. */
const cz_json *cz_json_at(const cz_json *arr, size_t i);

#endif
