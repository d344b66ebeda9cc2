/*
 * circuit: synthesis of a partition's a, b, c behind one interface, the
 * constraint-system check, and the zkey SpMV.
 *
 * DESIGN: the engine and the prover do not know where a witness comes from
 * or how a, b, c are computed. A partition's input is a cz_synth: a table
 * of operations plus a context, made by a constructor of this layer:
 *   - cz_synth_borrow_wtns / cz_synth_take_wtns: a witness already in
 *     memory (borrowed, or moved in and freed with the synth);
 *   - cz_synth_from_file: a .wtns file whose header is checked at once and
 *     whose values are read only when the partition is synthesized (so a
 *     queued job holds no witness memory), into memory the caller's
 *     allocator gives (the engine's budget);
 *   - cz_synth_create: any other source (native circuits that compute their
 *     witness and a, b, c themselves plug in here).
 * Life of a synth: info (curve and witness length, for the check against
 * the key at submit), prepare (make the witness available: read a file,
 * run a witness generator), abc (write a, b (and c where asked) into the
 * caller's buffers: default the SpMV over the key's A/B matrices), witness
 * (read by the MSMs and the self-verification), release (drop what prepare
 * made; prepare may be called again, after a device failure say), free.
 *
 * a, b are two arrays of domain_size scalar-field elements (Montgomery)
 * laid out one after the other in one buffer of cz_ab_bytes(domain_size)
 * bytes: a = A.w, b = B.w. The H step's c = a o b (snarkjs stores no C
 * matrix; c is the product, exactly what a satisfied row gives) is not
 * part of it: the backend forms it where the H step runs (on a GPU, in its
 * memory: a third less host memory and bus traffic per partition).
 *
 * Not thread-safe per synth (one partition is synthesized by one worker at
 * a time); different synths are independent.
 */
#ifndef CZ_CIRCUIT_CIRCUIT_H
#define CZ_CIRCUIT_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/thread.h"

/* Bytes of the a, b working set of a domain: 2 x domain_size x 32. The one
 * place this size is spelled out. */
size_t cz_ab_bytes(uint32_t domain_size);

/* a = A.w, b = B.w over the key's CSR matrices (parallel over rows on pool,
 * NULL: the default pool), and c = a o b unless c is NULL; each domain_size
 * scalars. The witness must fit the key (cz_synth_check); CZ_ERR_UNSUPPORTED
 * for an unknown curve. */
cz_status cz_circuit_abc(const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c, cz_pool *pool);

/* Evaluates every constraint of r on w; CZ_ERR_UNSATISFIED with the index of
 * the first failing constraint in *first_bad (and the message). */
cz_status cz_r1cs_check(const cz_r1cs *r, const cz_wtns *w, uint64_t *first_bad, cz_error *err);

/* ---- the synthesis interface ---- */

typedef struct cz_synth_info {
    cz_curve curve;
    uint32_t n_vars;      /* witness length, w[0] = 1 */
    size_t witness_bytes; /* memory prepare takes from its allocator (0: none, already in memory) */
} cz_synth_info;

typedef struct cz_synth_ops {
    const char *kind; /* "wtns", "wtns-file", a native circuit's name */
    cz_status (*info)(void *ctx, cz_synth_info *out, cz_error *err);
    /* alloc: where witness memory comes from (NULL: the heap) */
    cz_status (*prepare)(void *ctx, const cz_allocator *alloc, cz_error *err);
    const cz_wtns *(*witness)(void *ctx); /* after prepare */
    /* Optional (NULL: cz_circuit_abc over the witness). c may be NULL: a
     * and b only (what cz_synth_ab asks for). */
    cz_status (*abc)(void *ctx, const cz_zkey *zk, void *a, void *b, void *c, cz_pool *pool, cz_error *err);
    void (*release)(void *ctx); /* optional */
    void (*destroy)(void *ctx); /* optional */
} cz_synth_ops;

typedef struct cz_synth cz_synth;

/* A synth over ops and ctx (ctx destroyed with it). */
cz_status cz_synth_create(cz_synth **out, const cz_synth_ops *ops, void *ctx, const char *name, cz_error *err);
/* A witness in memory, borrowed: the caller keeps it alive and unchanged
 * until the synth is freed. name labels messages (NULL: "the witness"). */
cz_status cz_synth_borrow_wtns(cz_synth **out, const cz_wtns *w, const char *name, cz_error *err);
/* A witness in memory, moved in: *w is emptied on success and its values are
 * freed with the synth; on failure the caller keeps it. */
cz_status cz_synth_take_wtns(cz_synth **out, cz_wtns *w, const char *name, cz_error *err);
/* A .wtns file: its header is checked now (CZ_ERR_FORMAT ... naming the
 * file), its values read and validated at prepare. */
cz_status cz_synth_from_file(cz_synth **out, const char *path, cz_error *err);
void cz_synth_free(cz_synth *s);

/* What the synth says about itself, and its name ("the witness of partition
 * 3", a path) for messages. */
cz_status cz_synth_info_get(cz_synth *s, cz_synth_info *out, cz_error *err);
const char *cz_synth_name(const cz_synth *s);
/* CZ_MISMATCH (naming key_name and the synth) unless the witness fits the
 * key header (curve, nVars). */
cz_status cz_synth_check(cz_synth *s, const cz_zkey *key, const char *key_name, cz_error *err);
cz_status cz_synth_prepare(cz_synth *s, const cz_allocator *alloc, cz_error *err);
/* NULL before prepare. */
const cz_wtns *cz_synth_witness(cz_synth *s);
/* a, b into ab (cz_ab_bytes(zk->domain_size) bytes), after prepare. */
cz_status cz_synth_ab(cz_synth *s, const cz_zkey *zk, void *ab, cz_pool *pool, cz_error *err);
void cz_synth_release(cz_synth *s);

#endif
