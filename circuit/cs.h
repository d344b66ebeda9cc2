/*
 * circuit/cs: constraint systems written in C (the bellperson
 * ConstraintSystem, for cuzk's two curves).
 *
 * DESIGN: a circuit is a C function that allocates variables with their
 * values (cz_cs_alloc: private, cz_cs_alloc_input: public) and states
 * constraints A.w * B.w = C.w over linear combinations (cz_cs_enforce). The
 * same function runs in three modes behind this one interface:
 *
 *   CZ_CS_RECORD   builds the CSR matrices A, B, C (one row per constraint)
 *                  and, with opts.eval, also the evaluations a, b, c of
 *                  every constraint (the full synthesis of bellperson's
 *                  ProvingAssignment);
 *   CZ_CS_WITNESS  only the assignment is kept: cz_lc_add and cz_cs_enforce
 *                  return at once (the pre-compiled evaluator, circuit/pce.h,
 *                  gets a, b, c from recorded matrices by an SpMV);
 *   CZ_CS_CHECK    every constraint is evaluated as it is stated and the
 *                  first unsatisfied one is kept with its index and its name
 *                  (the namespace path, kept in this mode only).
 *
 * Variables: wire 0 is the constant ONE (CZ_VAR_ONE, an input); inputs and
 * private ("aux") variables are numbered apart, in allocation order, and a
 * cz_var says which kind it is. Inputs may be allocated at any point, between
 * constraints: the columns of the recorded matrices and the witness are laid
 * out only at the end (cz_cs_finish), inputs first, as circom and snarkjs
 * want it: wire(input i) = i, wire(aux j) = n_inputs + j. (The original
 * numbered columns as it went and broke when inputs came late.)
 *
 * Values are field elements of the cs's curve's scalar field, Montgomery
 * form, fully reduced (cz_fe: 4 limbs, the size of both scalar fields). The
 * arithmetic helpers below (cz_fe_add, ...) take the cs for its modulus.
 *
 * Linear combinations come from a pool owned by the cs: a cz_lc holds a
 * block of terms of a size class (8, 16, 32, ... terms); growing moves it
 * to the next class and gives the old block back; cz_lc_free gives it back.
 * After the first constraints no enforce calls malloc.
 *
 * Capacity hints (cz_cs_hint: the counts of the last synthesis of the same
 * circuit) size every vector at init, so a synthesis of a known shape never
 * reallocates.
 *
 * Errors are sticky: an allocation failure sets the cs's status, later calls
 * do nothing, cz_cs_status() and cz_cs_finish() return it. Not thread-safe:
 * one cs is driven by one thread.
 */
#ifndef CZ_CIRCUIT_CS_H
#define CZ_CIRCUIT_CS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"
#include "ff/mont.h"
#include "io/zkey.h"
#include "util/alloc.h"
#include "util/error.h"

/* An element of the cs's scalar field, Montgomery form, fully reduced. */
typedef struct cz_fe {
    uint64_t l[4];
} cz_fe;

/* A variable: bit 31 set for an input, the index in the low 31 bits. */
typedef uint32_t cz_var;
#define CZ_VAR_INPUT 0x80000000u
#define CZ_VAR_ONE CZ_VAR_INPUT /* input 0, the constant 1 */
#define CZ_VAR_INDEX(v) ((v) & 0x7fffffffu)
#define CZ_VAR_IS_INPUT(v) (((v) & CZ_VAR_INPUT) != 0)

typedef struct cz_term {
    cz_var v;
    uint32_t one; /* 1: the coefficient is 1 (a shortcut for the evaluation) */
    cz_fe c;
} cz_term;

/* A linear combination (zero-initialise, or cz_lc_init). */
typedef struct cz_lc {
    cz_term *t;
    uint32_t n, cls; /* terms; size class of t (capacity 8 << cls) */
} cz_lc;

typedef enum cz_cs_mode {
    CZ_CS_RECORD = 1,
    CZ_CS_WITNESS = 2,
    CZ_CS_CHECK = 3,
} cz_cs_mode;

/* The counts of a synthesis: a capacity hint for the next one of the same
 * shape (cz_cs_counts gives them after a run). */
typedef struct cz_cs_hint {
    uint32_t n_inputs; /* ONE included */
    uint32_t n_aux;
    uint64_t n_constraints;
    uint64_t nnz[3]; /* terms of A, B, C (record mode) */
} cz_cs_hint;

typedef struct cz_cs_opts {
    cz_curve curve;
    cz_cs_mode mode;
    int eval;                  /* record mode: also evaluate a, b, c per constraint */
    const cz_cs_hint *hint;    /* NULL: start small */
    const cz_allocator *alloc; /* the witness and the evaluations (NULL: the heap) */
    int stop_at_first;         /* check mode: later constraints are not evaluated */
} cz_cs_opts;

typedef struct cz_cs cz_cs;

/* CZ_ERR_INVALID_ARG for an unknown curve or mode, CZ_ERR_NO_MEMORY. */
cz_status cz_cs_new(cz_cs **out, const cz_cs_opts *o, cz_error *err);
void cz_cs_free(cz_cs *cs);

cz_cs_mode cz_cs_mode_of(const cz_cs *cs);
cz_curve cz_cs_curve(const cz_cs *cs);
/* 1 when linear combinations are built (record and check modes): gadgets may
 * skip work that only feeds them. */
static inline int cz_cs_wants_lc(const cz_cs *cs);
/* The sticky status (CZ_OK, CZ_ERR_NO_MEMORY, or what cz_cs_fail set). */
cz_status cz_cs_status(const cz_cs *cs);
/* Makes status sticky with a message (for gadgets: a value out of range). */
cz_status cz_cs_fail(cz_cs *cs, cz_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *cz_cs_message(const cz_cs *cs);

/* ---- variables ---- */
cz_var cz_cs_alloc(cz_cs *cs, const cz_fe *value);
cz_var cz_cs_alloc_input(cz_cs *cs, const cz_fe *value);
/* The value of v (ONE for CZ_VAR_ONE). */
const cz_fe *cz_cs_value(const cz_cs *cs, cz_var v);

/* ---- namespaces (names are kept in check mode only) ---- */
void cz_cs_push(cz_cs *cs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cz_cs_pop(cz_cs *cs);

/* ---- constraints ---- */
/* A.w * B.w = C.w. name: a static label of the constraint (may be NULL). */
void cz_cs_enforce(cz_cs *cs, const char *name, const cz_lc *a, const cz_lc *b, const cz_lc *c);
uint64_t cz_cs_n_constraints(const cz_cs *cs);

/* ---- linear combinations ---- */
static inline void cz_lc_init(cz_lc *lc)
{
    lc->t = NULL;
    lc->n = lc->cls = 0;
}
/* lc += coef * v (coef NULL: 1) */
void cz_lc_add_slow(cz_cs *cs, cz_lc *lc, cz_var v, const cz_fe *coef);
static inline void cz_lc_add(cz_cs *cs, cz_lc *lc, cz_var v, const cz_fe *coef);
/* lc += other * scale (scale NULL: 1) */
void cz_lc_add_lc(cz_cs *cs, cz_lc *lc, const cz_lc *other, const cz_fe *scale);
/* Empties lc, keeping its block. */
static inline void cz_lc_clear(cz_lc *lc) { lc->n = 0; }
/* Gives the block back to the pool. */
void cz_lc_free(cz_cs *cs, cz_lc *lc);
/* The value of lc on the current assignment. */
void cz_lc_eval(const cz_cs *cs, cz_fe *out, const cz_lc *lc);

/* ---- field arithmetic in the cs's scalar field ---- */
typedef struct cz_cs_field {
    uint64_t p[4], pinv;
    cz_fe one, zero, r2;
} cz_cs_field;
static inline const cz_cs_field *cz_cs_fr(const cz_cs *cs);
static inline void cz_fe_add(const cz_cs *cs, cz_fe *r, const cz_fe *a, const cz_fe *b);
static inline void cz_fe_sub(const cz_cs *cs, cz_fe *r, const cz_fe *a, const cz_fe *b);
static inline void cz_fe_mul(const cz_cs *cs, cz_fe *r, const cz_fe *a, const cz_fe *b);
static inline void cz_fe_neg(const cz_cs *cs, cz_fe *r, const cz_fe *a);
void cz_fe_from_u64(const cz_cs *cs, cz_fe *r, uint64_t v);
/* 2^k, k < 256 */
void cz_fe_pow2(const cz_cs *cs, cz_fe *r, unsigned k);
/* canonical limbs (any < p) <-> Montgomery */
void cz_fe_from_canonical(const cz_cs *cs, cz_fe *r, const uint64_t a[4]);
void cz_fe_to_canonical(const cz_cs *cs, uint64_t r[4], const cz_fe *a);
/* CZ_ERR_DIV_BY_ZERO for 0 */
cz_status cz_fe_inv(const cz_cs *cs, cz_fe *r, const cz_fe *a);
static inline int cz_fe_eq(const cz_fe *a, const cz_fe *b)
{
    return a->l[0] == b->l[0] && a->l[1] == b->l[1] && a->l[2] == b->l[2] && a->l[3] == b->l[3];
}
static inline int cz_fe_is_zero(const cz_fe *a) { return !(a->l[0] | a->l[1] | a->l[2] | a->l[3]); }

/* ---- the result ---- */

/* Lays out the columns and the witness (inputs, then aux); the cs takes no
 * more variables or constraints. Returns the sticky status. */
cz_status cz_cs_finish(cz_cs *cs, cz_error *err);
/* The counts (valid at any time; nnz in record mode). */
void cz_cs_counts(const cz_cs *cs, cz_cs_hint *out);
/* After finish: the witness, n_inputs + n_aux values, wire order (w[0] = 1),
 * cz_fe / scalar-field Montgomery elements. Owned by the cs, or moved out
 * with cz_cs_take_witness (allocated from opts.alloc: free it with
 * cz_free(alloc, values, *bytes); *bytes = n * 32 when a hint gave the
 * exact counts). */
const cz_fe *cz_cs_witness(const cz_cs *cs, uint32_t *n);
cz_fe *cz_cs_take_witness(cz_cs *cs, uint32_t *n, size_t *bytes);
/* After finish, record mode: the matrices, n_constraints rows, wire columns
 * (moved out: the caller frees them with cz_csr_free(m, NULL)). The
 * evaluations (eval): n_constraints values each, owned by the cs. */
cz_status cz_cs_take_matrices(cz_cs *cs, cz_csr *A, cz_csr *B, cz_csr *C, cz_error *err);
const cz_fe *cz_cs_evals(const cz_cs *cs, int which /* 0 a, 1 b, 2 c */);
/* Check mode: CZ_OK when every constraint held, else CZ_ERR_UNSATISFIED with
 * the first failing constraint's index in *index and its name
 * ("sha256/round 3/ch/xor 7") in err. */
cz_status cz_cs_check_result(const cz_cs *cs, uint64_t *index, cz_error *err);

/* Introspection for tests and benchmarks: blocks the LC pool has made, and
 * how many times a vector had to grow past its initial (hinted) capacity. */
size_t cz_cs_lc_blocks(const cz_cs *cs);
uint32_t cz_cs_regrowths(const cz_cs *cs);

/* ---- inline parts ---- */

/* The head of struct cz_cs that the inline helpers read (circuit/cs.c
 * defines the rest). */
typedef struct cz_cs_head {
    cz_cs_field f;
    cz_cs_mode mode;
    cz_status st;
} cz_cs_head;

static inline const cz_cs_field *cz_cs_fr(const cz_cs *cs) { return &((const cz_cs_head *)cs)->f; }
static inline int cz_cs_wants_lc(const cz_cs *cs) { return ((const cz_cs_head *)cs)->mode != CZ_CS_WITNESS; }

static inline void cz_lc_add(cz_cs *cs, cz_lc *lc, cz_var v, const cz_fe *coef)
{
    if (((const cz_cs_head *)cs)->mode == CZ_CS_WITNESS) return;
    if (lc->t && lc->n < (8u << lc->cls)) {
        cz_term *t = &lc->t[lc->n++];
        t->v = v;
        if (coef) {
            t->one = 0;
            t->c = *coef;
        } else {
            t->one = 1;
            t->c = ((const cz_cs_head *)cs)->f.one;
        }
        return;
    }
    cz_lc_add_slow(cs, lc, v, coef);
}

static inline void cz_fe_add(const cz_cs *cs, cz_fe *r, const cz_fe *a, const cz_fe *b)
{
    cz_mont_add(r->l, a->l, b->l, cz_cs_fr(cs)->p, 4);
}
static inline void cz_fe_sub(const cz_cs *cs, cz_fe *r, const cz_fe *a, const cz_fe *b)
{
    cz_mont_sub(r->l, a->l, b->l, cz_cs_fr(cs)->p, 4);
}
static inline void cz_fe_mul(const cz_cs *cs, cz_fe *r, const cz_fe *a, const cz_fe *b)
{
    const cz_cs_field *f = cz_cs_fr(cs);
    cz_mont_mul(r->l, a->l, b->l, f->p, f->pinv, 4);
}
static inline void cz_fe_neg(const cz_cs *cs, cz_fe *r, const cz_fe *a)
{
    cz_fe z = {{0}};
    cz_fe_sub(cs, r, &z, a);
}

#endif
