/*
 * circuit/native: the registry of circuits written in C, their export to
 * .r1cs / .wtns, and their synthesis behind circuit/circuit.h's cz_synth.
 *
 * DESIGN: a native circuit is a table: its name, curves, integer parameters
 * (name, default, bounds, help), the help text of its input JSON, a parser
 * of that input, its shape string (the structural parameters, some taken
 * from the input, e.g. the preimage length) and its synthesis function over
 * a cz_cs. Circuits live in circuit/examples/ and are listed in native.c.
 *
 * Export (cz_native_export): one record-mode synthesis with the input's
 * values; every row's terms merged by wire (the .r1cs format wants each wire
 * once per combination), a, b, c checked (an unsatisfied input is
 * CZ_ERR_UNSATISFIED naming the first failing constraint, from a check-mode
 * run, and nothing is written unless allow_unsatisfied), then the .r1cs
 * (all inputs are public inputs: nPubOut 0, nPubIn = inputs - 1, nPrvIn 0)
 * and the .wtns, each atomic.
 *
 * Synthesis for the engine (cz_native_synth): the circuit's R1CS is taken
 * from the pre-compiled evaluator (circuit/pce.h): a process-wide cache of
 * recordings by structure key, backed by files in pce_dir (NULL: no files);
 * a missing, stale or corrupt file is recorded again (one record-mode
 * synthesis) and rewritten. prepare runs the circuit witness-only, its
 * vectors sized by the recording's counts (the capacity hint), the witness in
 * the caller's allocator; abc runs the SpMV straight into the engine's a, b,
 * c buffer (pinned pool memory when the engine has it) and appends the rows
 * snarkjs adds for the public inputs (a = w_i, b = c = 0), zeros above. An
 * unsatisfied witness is CZ_ERR_UNSATISFIED with the row found by the SpMV
 * and its name (a check-mode run).
 */
#ifndef CZ_CIRCUIT_NATIVE_H
#define CZ_CIRCUIT_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "circuit/circuit.h"
#include "circuit/cs.h"
#include "io/json.h"

#define CZ_NATIVE_MAX_PARAMS 8

typedef struct cz_native_param {
    const char *name;
    uint64_t def, lo, hi;
    const char *help;
} cz_native_param;

typedef struct cz_native_circuit {
    const char *name;
    const char *summary;
    const char *input_help; /* the input JSON, for `cuzk circuit NAME --help` */
    cz_curve default_curve;
    unsigned curves;        /* bit (1 << cz_curve_index) per curve it supports */
    uint32_t structure_version;
    const cz_native_param *params;
    unsigned n_params;
    /* input JSON -> *input (freed with free_input); name labels messages */
    cz_status (*parse)(const cz_json *in, const uint64_t *params, const char *name, void **input, cz_error *err);
    void (*free_input)(void *input);
    /* a default input for a shape (benchmarks, the record pass); may be NULL */
    cz_status (*sample)(const uint64_t *params, cz_curve curve, uint64_t seed, void **input, cz_error *err);
    /* the structural part of params + input, e.g. "depth=32" */
    void (*shape)(const uint64_t *params, const void *input, char *buf, size_t cap);
    /* the circuit; failures go into the cs's sticky status */
    void (*synthesize)(cz_cs *cs, const uint64_t *params, const void *input);
} cz_native_circuit;

/* The registered circuits, and one by name (NULL if unknown). */
const cz_native_circuit *const *cz_native_list(size_t *n);
const cz_native_circuit *cz_native_find(const char *name);
int cz_native_supports(const cz_native_circuit *c, cz_curve curve);

/* Parameters from "K=V" strings (n of them) over the defaults: CZ_ERR_INVALID_ARG
 * naming an unknown name or a value out of its bounds. */
cz_status cz_native_params(const cz_native_circuit *c, const char *const *kv, size_t n, uint64_t *params,
                           cz_error *err);

/* Runs the circuit in mode (hint may be NULL) and finishes the cs. */
cz_status cz_native_run(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                        cz_cs_mode mode, int eval, const cz_cs_hint *hint, const cz_allocator *alloc, cz_cs **out,
                        cz_error *err);

typedef struct cz_native_export_stats {
    uint64_t n_constraints;
    uint32_t n_inputs, n_aux; /* n_inputs counts ONE */
    double seconds;
} cz_native_export_stats;

cz_status cz_native_export(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                           const char *r1cs_path, const char *wtns_path, int allow_unsatisfied,
                           cz_native_export_stats *stats, cz_error *err);

/* The public inputs' values (n_inputs - 1 of them, w[1..]) of a synthesis
 * of c on input: *vals malloc'ed. */
cz_status cz_native_public(const cz_native_circuit *c, const uint64_t *params, const void *input, cz_curve curve,
                           cz_fe **vals, uint32_t *n, cz_error *err);

/* A synth of c on input (the synth owns input from here on, even on
 * failure). pce_dir: where recordings are kept (NULL: in memory only). */
cz_status cz_native_synth(cz_synth **out, const cz_native_circuit *c, const uint64_t *params, void *input,
                          cz_curve curve, const char *pce_dir, const char *name, cz_error *err);

/* A partition file: a .wtns (cz_synth_from_file), or a native circuit's
 * partition, a JSON object (the file's first byte is '{'; at most 64 MiB)
 *   {"circuit": NAME, "params": {"K": V, ...}, "input": {...}}
 * (params optional, each value a decimal integer or a string of one; input
 * the circuit's input JSON) synthesized on curve by cz_native_synth. The
 * daemon writes these for jobs that name a circuit. Errors name path. */
cz_status cz_native_synth_file(cz_synth **out, const char *path, cz_curve curve, const char *pce_dir, cz_error *err);

/* Statistics of the process's PCE cache, for tests and metrics. */
typedef struct cz_native_pce_stats {
    uint64_t records;    /* record-mode syntheses run for the cache */
    uint64_t file_loads; /* recordings read from files */
    uint64_t rebuilt;    /* files found stale or corrupt and rewritten */
    uint64_t hits;       /* recordings found in memory */
    uint64_t evictions;  /* idle recordings dropped for the cap */
} cz_native_pce_stats;
void cz_native_pce_stats_get(cz_native_pce_stats *out);
/* The cache keeps recordings that no synth holds while their sizes (as
 * files) add up to at most the cap, the least recently used dropped first;
 * the most recently used idle one always stays, so a stream of partitions
 * of one shape records it once. A dropped shape is loaded again from its
 * file in pce_dir, or recorded again. Default CZ_NATIVE_PCE_CAP_DEFAULT. */
#define CZ_NATIVE_PCE_CAP_DEFAULT ((uint64_t)4 << 30)
void cz_native_pce_set_cap(uint64_t bytes);
/* Drops the recordings no synth holds (tests). */
void cz_native_pce_flush(void);

#endif
