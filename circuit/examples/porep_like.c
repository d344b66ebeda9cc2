/*
 * circuit/examples/porep_like: a Filecoin-PoRep-like partition circuit
 * (BLS12-381): a configurable number of challenges of a sector, each a
 * SHA-256 Merkle inclusion of the challenged node's label and of its
 * parents' labels, and the labelling check of the challenged node over its
 * parents.
 *
 * The construction, a simplified stacked DRG of one layer (Filecoin's SDR
 * has 11 layers, 6 + 8 parents, a column commitment and Poseidon trees; the
 * honest core kept here is "the challenged label is the hash of the replica
 * id, its position and its parents' labels, all in the committed tree"):
 *   - a sector of 2^depth nodes of 32 bytes; node v's parents, for
 *     1 <= v < 2^depth and j < parents: p_j(v) = u64be(SHA-256("cuzk
 *     porep-like parent" || replica_id || u64be(v) || u32be(j))[0..8]) mod v
 *     (earlier nodes: a DRG);
 *   - label(v) = the SHA-256 compression function chained from the IV
 *     (fixed length per shape: no length padding) over the blocks
 *     replica_id || u64be(v) || 24 zero bytes, then the parents' labels two
 *     to a block (an odd last one beside 32 zero bytes);
 *   - comm_r = the root of the binary Merkle tree over the labels, parent =
 *     the SHA-256 compression of (left || right) from the IV
 *     (circuit/gadgets/merkle.h, CZ_MERKLE_SHA256_COMPRESS);
 *   - challenge i: v_i = 1 + u64be(SHA-256("cuzk porep-like challenge" ||
 *     replica_id || u64be(seed) || u32be(i))[0..8]) mod (2^depth - 1).
 * The circuit proves, for each challenge: the index bits of v_i and of each
 * parent (public), each parent's label (private) included in comm_r at its
 * index, the label of v_i computed in the circuit from replica_id, v_i's
 * bits and those parents' labels, and included in comm_r at v_i. The
 * verifier computes the challenges and the parents from replica_id and the
 * seed and gives them as public inputs.
 *
 * Public inputs, in this order: replica_id (256 bits, SHA-256 order,
 * packed: 2 inputs), comm_r (2 inputs), then per challenge v_i and its
 * parents' indices (one input each, the integer). A root is compared with
 * comm_r by two packing rows ("root"), an index by its packing row.
 *
 * The input is a synthetic sector: {"replica_id": hex, "seed": N} names it;
 * the labels the proof needs are computed as above, every other node of the
 * tree (the rest of the sector, which the proof does not open) is drawn
 * from the seed, and the tree is built sparsely (only the nodes on the
 * opened paths). An optional "comm_r" claims a root: any other value, or a
 * replica_id other than the sector's ("sector_replica_id"), leaves a root
 * row unsatisfied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/gadgets/merkle.h"
#include "circuit/gadgets/sha256.h"
#include "circuit/native.h"
#include "util/sha256.h"

enum { P_CHALLENGES = 0, P_PARENTS = 1, P_DEPTH = 2, MAX_PARENTS = 14 };

typedef struct pl_input {
    unsigned c, k, d;
    uint8_t replica_id[32]; /* the proof's (public) */
    uint8_t comm_r[32];     /* the public comm_r: the claim, or the sector's root */
    uint64_t seed;
    uint64_t *idx;    /* per challenge: v, then its k parents: c (1 + k) */
    uint8_t *labels;  /* per path (as idx): the leaf's label (for v: the sector's) */
    uint8_t *paths;   /* per path: d siblings of 32 bytes */
} pl_input;

static void pl_free(void *p)
{
    pl_input *x = p;
    if (!x) return;
    free(x->idx);
    free(x->labels);
    free(x->paths);
    free(x);
}

static void be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}
static uint64_t get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static uint64_t derive(const char *tag, const uint8_t rid[32], uint64_t a, uint32_t b)
{
    uint8_t m[96], h[32];
    size_t tl = strlen(tag);
    memcpy(m, tag, tl);
    memcpy(m + tl, rid, 32);
    be64(m + tl + 32, a);
    for (int i = 0; i < 4; i++) m[tl + 40 + i] = (uint8_t)(b >> (24 - 8 * i));
    cz_sha256_bytes(h, m, tl + 44);
    return get_be64(h);
}

static uint64_t parent_of(const uint8_t rid[32], uint64_t v, unsigned j)
{
    return derive("cuzk porep-like parent", rid, v, j) % v;
}

static uint64_t challenge_of(const uint8_t rid[32], uint64_t seed, unsigned i, unsigned d)
{
    return 1 + derive("cuzk porep-like challenge", rid, seed, i) % ((((uint64_t)1) << d) - 1);
}

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* label(v) from its parents' labels (k x 32 bytes) */
static void label_native(const uint8_t rid[32], uint64_t v, const uint8_t *plabels, unsigned k, uint8_t out[32])
{
    uint32_t s[8];
    memcpy(s, IV, sizeof s);
    uint8_t blk[64] = {0};
    memcpy(blk, rid, 32);
    be64(blk + 32, v);
    cz_sha256_block(s, blk);
    for (unsigned j = 0; j < k; j += 2) {
        memset(blk, 0, 64);
        memcpy(blk, plabels + 32 * j, 32);
        if (j + 1 < k) memcpy(blk + 32, plabels + 32 * (j + 1), 32);
        cz_sha256_block(s, blk);
    }
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++) out[4 * i + b] = (uint8_t)(s[i] >> (24 - 8 * b));
}

/* a node of the sector that no opened label fixes: drawn from the seed */
static void filler(uint64_t seed, unsigned level, uint64_t index, uint8_t out[32])
{
    uint8_t m[32] = "cuzk porep-like fill";
    be64(m + 20, seed);
    m[28] = (uint8_t)level;
    uint8_t h[32];
    uint8_t mm[40];
    memcpy(mm, m, 29);
    be64(mm + 29, index);
    cz_sha256_bytes(h, mm, 37);
    memcpy(out, h, 32);
}

/* ---- the sparse tree ---- */

typedef struct node {
    uint64_t i;
    uint8_t h[32];
} node;

static int node_cmp(const void *a, const void *b)
{
    uint64_t x = ((const node *)a)->i, y = ((const node *)b)->i;
    return x < y ? -1 : x > y;
}

static const node *find(const node *n, size_t len, uint64_t i)
{
    size_t lo = 0, hi = len;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (n[m].i < i) lo = m + 1;
        else hi = m;
    }
    return lo < len && n[lo].i == i ? &n[lo] : NULL;
}

/* Sorts n[0..len) by index, drops repeats (the first kept): the new length. */
static size_t uniq(node *n, size_t len)
{
    if (!len) return 0;
    qsort(n, len, sizeof *n, node_cmp);
    size_t o = 1;
    for (size_t r = 1; r < len; r++)
        if (n[r].i != n[o - 1].i) n[o++] = n[r];
    return o;
}

/* Builds labels, paths and the root of x (idx filled). */
static cz_status build_sector(pl_input *x, const uint8_t sector_rid[32], uint8_t root[32], cz_error *err)
{
    const unsigned c = x->c, k = x->k, d = x->d, per = 1 + k;
    const size_t npath = (size_t)c * per;
    /* the leaves the proof opens: challenged nodes (labels computed, in
     * ascending order so that a challenged parent is computed first) and
     * parents (filler unless challenged) */
    node *lv = malloc((npath + 1) * sizeof *lv);
    uint64_t *ch = malloc((c + 1) * sizeof *ch);
    node **lev = calloc(d + 1, sizeof *lev);
    size_t *nlev = calloc(d + 1, sizeof *nlev);
    uint8_t *pl = malloc(32 * (k + 1));
    cz_status st = CZ_OK;
    if (!lv || !ch || !lev || !nlev || !pl) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    for (unsigned i = 0; i < c; i++) ch[i] = x->idx[(size_t)i * per];
    /* challenged labels, ascending */
    node *cl = malloc((c + 1) * sizeof *cl);
    if (!cl) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    for (unsigned i = 0; i < c; i++) cl[i].i = ch[i];
    size_t ncl = uniq(cl, c);
    for (size_t q = 0; q < ncl; q++) {
        uint64_t v = cl[q].i;
        for (unsigned j = 0; j < k; j++) {
            uint64_t p = parent_of(sector_rid, v, j);
            const node *f = find(cl, q, p); /* an earlier challenged node: its label */
            if (f) memcpy(pl + 32 * j, f->h, 32);
            else filler(x->seed, 0, p, pl + 32 * j);
        }
        label_native(sector_rid, v, pl, k, cl[q].h);
    }
    size_t n = 0;
    for (size_t p = 0; p < npath; p++) {
        uint64_t i = x->idx[p];
        const node *f = find(cl, ncl, i);
        lv[n].i = i;
        if (f) memcpy(lv[n].h, f->h, 32);
        else filler(x->seed, 0, i, lv[n].h);
        n++;
    }
    free(cl);
    /* level by level: the known nodes and their siblings, then the parents */
    node *cur = lv;
    size_t ncur = uniq(cur, n);
    lv = NULL;
    for (unsigned l = 0; l < d; l++) {
        node *w = malloc(2 * ncur * sizeof *w);
        if (!w) {
            free(cur);
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
            goto out;
        }
        size_t nw = 0;
        for (size_t q = 0; q < ncur; q++) w[nw++] = cur[q];
        for (size_t q = 0; q < ncur; q++)
            if (!find(cur, ncur, cur[q].i ^ 1)) {
                w[nw].i = cur[q].i ^ 1;
                filler(x->seed, l, w[nw].i, w[nw].h);
                nw++;
            }
        free(cur);
        nw = uniq(w, nw);
        lev[l] = w;
        nlev[l] = nw;
        node *up = malloc(nw / 2 * sizeof *up + sizeof *up);
        if (!up) {
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
            goto out;
        }
        size_t nu = 0;
        for (size_t q = 0; q + 1 < nw; q += 2) { /* pairs 2i, 2i + 1: both present */
            up[nu].i = w[q].i >> 1;
            cz_merkle_node_native(CZ_MERKLE_SHA256_COMPRESS, w[q].h, w[q + 1].h, up[nu].h);
            nu++;
        }
        cur = up;
        ncur = nu;
    }
    memcpy(root, cur[0].h, 32);
    free(cur);
    /* the paths and labels of the proof */
    for (size_t p = 0; p < npath; p++) {
        uint64_t i = x->idx[p];
        for (unsigned l = 0; l < d; l++) {
            const node *s = find(lev[l], nlev[l], (i >> l) ^ 1);
            memcpy(x->paths + 32 * ((size_t)p * d + l), s->h, 32);
        }
        memcpy(x->labels + 32 * p, find(lev[0], nlev[0], i)->h, 32);
    }
out:
    if (lev)
        for (unsigned l = 0; l <= d; l++) free(lev[l]);
    free(lev);
    free(nlev);
    free(lv);
    free(ch);
    free(pl);
    return st;
}

static cz_status pl_make(const uint64_t *params, const uint8_t rid[32], const uint8_t *sector_rid, uint64_t seed,
                         const uint8_t *claim, void **out, cz_error *err)
{
    *out = NULL;
    pl_input *x = calloc(1, sizeof *x);
    if (!x) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    x->c = (unsigned)params[P_CHALLENGES];
    x->k = (unsigned)params[P_PARENTS];
    x->d = (unsigned)params[P_DEPTH];
    x->seed = seed;
    memcpy(x->replica_id, rid, 32);
    const unsigned per = 1 + x->k;
    const size_t npath = (size_t)x->c * per;
    x->idx = malloc(npath * sizeof *x->idx);
    x->labels = malloc(npath * 32);
    x->paths = malloc(npath * x->d * 32 + 1);
    if (!x->idx || !x->labels || !x->paths) {
        pl_free(x);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    if (!sector_rid) sector_rid = rid;
    for (unsigned i = 0; i < x->c; i++) {
        uint64_t v = challenge_of(sector_rid, seed, i, x->d);
        x->idx[(size_t)i * per] = v;
        for (unsigned j = 0; j < x->k; j++) x->idx[(size_t)i * per + 1 + j] = parent_of(sector_rid, v, j);
    }
    uint8_t root[32];
    cz_status st = build_sector(x, sector_rid, root, err);
    if (st != CZ_OK) {
        pl_free(x);
        return st;
    }
    memcpy(x->comm_r, claim ? claim : root, 32);
    *out = x;
    return CZ_OK;
}

static int hexval(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

static cz_status hex32(const cz_json *v, const char *field, const char *name, uint8_t out[32], cz_error *err)
{
    if (!v || v->type != CZ_JSON_STRING || v->len != 64)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: \"%s\" must be a string of 64 hex digits (32 bytes)", name, field);
    for (int i = 0; i < 32; i++) {
        int hi = hexval(v->str[2 * i]), lo = hexval(v->str[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return cz_error_set(err, CZ_ERR_FORMAT, "%s: \"%s\": not a hex digit at %d", name, field,
                                hi < 0 ? 2 * i : 2 * i + 1);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return CZ_OK;
}

static cz_status pl_parse(const cz_json *in, const uint64_t *params, const char *name, void **out, cz_error *err)
{
    *out = NULL;
    if (!in || in->type != CZ_JSON_OBJECT) return cz_error_set(err, CZ_ERR_FORMAT, "%s: expected a JSON object", name);
    for (size_t i = 0; i < in->nchild; i++) {
        const char *k = in->child[i]->key;
        if (strcmp(k, "replica_id") && strcmp(k, "seed") && strcmp(k, "comm_r") && strcmp(k, "sector_replica_id"))
            return cz_error_set(err, CZ_ERR_FORMAT,
                                "%s: unknown field \"%s\" (expected replica_id, seed, comm_r, sector_replica_id)", name,
                                k);
    }
    uint8_t rid[32], srid[32], claim[32];
    cz_status st = hex32(cz_json_get(in, "replica_id"), "replica_id", name, rid, err);
    if (st != CZ_OK) return st;
    uint64_t seed;
    const cz_json *s = cz_json_get(in, "seed");
    if (!s || cz_json_uint(s, UINT64_MAX, &seed) != CZ_OK)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: \"seed\" must be an integer in [0, 2^64)", name);
    int has_claim = cz_json_get(in, "comm_r") != NULL, has_srid = cz_json_get(in, "sector_replica_id") != NULL;
    if (has_claim && (st = hex32(cz_json_get(in, "comm_r"), "comm_r", name, claim, err)) != CZ_OK) return st;
    if (has_srid && (st = hex32(cz_json_get(in, "sector_replica_id"), "sector_replica_id", name, srid, err)) != CZ_OK)
        return st;
    if (has_srid && !has_claim)
        return cz_error_set(err, CZ_ERR_FORMAT, "%s: \"sector_replica_id\" goes with a claimed \"comm_r\"", name);
    return pl_make(params, rid, has_srid ? srid : NULL, seed, has_claim ? claim : NULL, out, err);
}

static cz_status pl_sample(const uint64_t *params, cz_curve curve, uint64_t seed, void **out, cz_error *err)
{
    (void)curve;
    uint8_t rid[32];
    uint8_t m[16] = "cuzk replica";
    be64(m + 8, seed);
    cz_sha256_bytes(rid, m, 16);
    return pl_make(params, rid, NULL, seed, NULL, out, err);
}

static void pl_shape(const uint64_t *params, const void *in, char *buf, size_t cap)
{
    (void)in;
    snprintf(buf, cap, "challenges=%llu parents=%llu depth=%llu", (unsigned long long)params[P_CHALLENGES],
             (unsigned long long)params[P_PARENTS], (unsigned long long)params[P_DEPTH]);
}

/* ---- the circuit ---- */

static int bit_of(const uint8_t *b, size_t i) { return (b[i / 8] >> (7 - i % 8)) & 1; }

/* bits (SHA-256 order) == the packed public inputs ins[]: a row per input */
static void enforce_packed(cz_cs *cs, const cz_bool *bits, const cz_var *ins, const char *name)
{
    unsigned capb = cz_cs_capacity(cs);
    for (unsigned j = 0, at = 0; at < 256; j++, at += capb) {
        if (!cz_cs_wants_lc(cs)) {
            cz_cs_enforce(cs, name, NULL, NULL, NULL);
            continue;
        }
        cz_lc a = {0}, b = {0}, c = {0};
        cz_fe p2;
        for (unsigned i = 0; i < capb && at + i < 256; i++) {
            cz_fe_pow2(cs, &p2, i);
            cz_bool_lc_add(cs, &a, bits[at + i], &p2);
        }
        cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
        cz_lc_add(cs, &c, ins[j], NULL);
        cz_cs_enforce(cs, name, &a, &b, &c);
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
        cz_lc_free(cs, &c);
    }
}

/* d index bits of i (little-endian), booleanity-checked, packed into a public input */
static void index_bits(cz_cs *cs, uint64_t i, unsigned d, cz_bool *bits)
{
    for (unsigned b = 0; b < d; b++) bits[b] = cz_bool_alloc(cs, (int)((i >> b) & 1));
    cz_pack_inputs(cs, bits, d);
}

static void alloc_bytes(cz_cs *cs, const uint8_t *bytes, size_t nbits, cz_bool *bits)
{
    for (size_t i = 0; i < nbits; i++) bits[i] = cz_bool_alloc(cs, bit_of(bytes, i));
}

static void pl_synth(cz_cs *cs, const uint64_t *params, const void *arg)
{
    (void)params;
    const pl_input *x = arg;
    const unsigned c = x->c, k = x->k, d = x->d, per = 1 + k;
    cz_bool *rid = malloc(256 * sizeof *rid), *path = malloc(((size_t)256 * d + 1) * sizeof *path);
    cz_bool *plab = malloc(((size_t)256 * (k + 1)) * sizeof *plab);
    cz_bool idx[64], root[256], lab[256], blk[512];
    if (!rid || !path || !plab) {
        cz_cs_fail(cs, CZ_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    cz_cs_push(cs, "replica_id");
    alloc_bytes(cs, x->replica_id, 256, rid);
    cz_pack_inputs(cs, rid, 256);
    cz_cs_pop(cs);
    /* comm_r: public inputs only (no bits): every root is packed against them */
    cz_var comm[2];
    {
        uint8_t raw[256];
        for (int i = 0; i < 256; i++) raw[i] = (uint8_t)bit_of(x->comm_r, i);
        cz_fe vals[2];
        cz_pack_values(cs, raw, 256, vals);
        comm[0] = cz_cs_alloc_input(cs, &vals[0]);
        comm[1] = cz_cs_alloc_input(cs, &vals[1]);
    }
    for (unsigned i = 0; i < c && cz_cs_status(cs) == CZ_OK; i++) {
        const size_t p0 = (size_t)i * per;
        cz_cs_push(cs, "challenge %u", i);
        cz_cs_push(cs, "node");
        cz_bool vbits[64];
        index_bits(cs, x->idx[p0], d, vbits);
        cz_cs_pop(cs);
        for (unsigned j = 0; j < k; j++) {
            const size_t p = p0 + 1 + j;
            cz_cs_push(cs, "parent %u", j);
            index_bits(cs, x->idx[p], d, idx);
            alloc_bytes(cs, x->labels + 32 * p, 256, plab + 256 * j);
            alloc_bytes(cs, x->paths + 32 * p * d, (size_t)256 * d, path);
            cz_merkle_root(cs, CZ_MERKLE_SHA256_COMPRESS, plab + 256 * j, path, idx, d, root);
            enforce_packed(cs, root, comm, "root");
            cz_cs_pop(cs);
        }
        /* the label of v: replica_id || u64be(v) || 0^192, then parents two a block */
        cz_cs_push(cs, "node");
        cz_cs_push(cs, "label");
        cz_u32 st[8];
        cz_sha256_iv(st);
        for (int b = 0; b < 256; b++) blk[b] = rid[b];
        for (int b = 0; b < 64; b++) blk[256 + b] = 63 - b < (int)d ? vbits[63 - b] : cz_bool_const(0);
        for (int b = 320; b < 512; b++) blk[b] = cz_bool_const(0);
        cz_sha256_compress(cs, st, blk);
        for (unsigned j = 0; j < k; j += 2) {
            for (int b = 0; b < 256; b++) blk[b] = plab[256 * j + b];
            for (int b = 0; b < 256; b++) blk[256 + b] = j + 1 < k ? plab[256 * (j + 1) + b] : cz_bool_const(0);
            cz_sha256_compress(cs, st, blk);
        }
        for (int w = 0; w < 8; w++) cz_u32_to_be_bits(&st[w], lab + 32 * w);
        cz_cs_pop(cs);
        alloc_bytes(cs, x->paths + 32 * p0 * d, (size_t)256 * d, path);
        cz_merkle_root(cs, CZ_MERKLE_SHA256_COMPRESS, lab, path, vbits, d, root);
        enforce_packed(cs, root, comm, "root");
        cz_cs_pop(cs);
        cz_cs_pop(cs);
    }
out:
    free(rid);
    free(path);
    free(plab);
}

static const cz_native_param pl_params[] = {
    {"challenges", 2, 1, 4096, "challenged nodes in the partition"},
    {"parents", 6, 0, MAX_PARENTS, "DRG parents of a node (Filecoin's base graph: 6)"},
    {"depth", 10, 1, 40, "levels of the sector's tree (2^depth nodes of 32 bytes)"},
};

const cz_native_circuit cz_circuit_porep_like = {
    /* .name              = */ "porep-like",
    /* .summary           = */ "a Filecoin-PoRep-like partition: challenged labels over their DRG parents, SHA-256 "
                               "Merkle inclusions (BLS12-381); public: replica_id, comm_r, challenges, parents",
    /* .input_help        = */
    "  {\"replica_id\": \"<64 hex digits>\", \"seed\": N}\n"
    "      a synthetic sector of 2^depth nodes: node v's label is the SHA-256\n"
    "      compression chain over replica_id || u64be(v) || 0^24 and its parents'\n"
    "      labels (parents p_j(v) < v drawn from replica_id), comm_r the root of\n"
    "      the SHA-256-compression Merkle tree over the labels; the nodes the proof\n"
    "      does not open are drawn from seed. The challenges derive from replica_id\n"
    "      and seed (docs/CIRCUITS.md spells out every derivation).\n"
    "  optional: \"comm_r\": \"<64 hex>\"  the root the proof claims (default: the\n"
    "      sector's); another leaves a constraint challenge I/.../root unsatisfied;\n"
    "  optional: \"sector_replica_id\": \"<64 hex>\" with \"comm_r\": the sector was\n"
    "      replicated with this id, the proof claims replica_id (a label check fails).\n"
    "  Public inputs: replica_id (2, packed), comm_r (2, packed), then for each\n"
    "  challenge its node index and its parents' indices (1 each).\n",
    /* .default_curve     = */ CZ_CURVE_BLS12_381,
    /* .curves            = */ (1u << CZ_CURVE_IDX_BLS12_381) | (1u << CZ_CURVE_IDX_BN254),
    /* .structure_version = */ 1,
    /* .params            = */ pl_params,
    /* .n_params          = */ 3,
    /* .parse             = */ pl_parse,
    /* .free_input        = */ pl_free,
    /* .sample            = */ pl_sample,
    /* .shape             = */ pl_shape,
    /* .synthesize        = */ pl_synth,
};
