/*
 * backend/devspec: the one parser of device specs, for a single backend
 * (cuzk prove --device) and for the engine's device list.
 *
 * Grammar: "auto" | "cpu" | "cuda" | "cuda:N" | "cuda:N,M,..." (N a GPU
 * index 0..1023; a GPU listed k <= CZ_DEVSPEC_PER_GPU times is k entries,
 * slots 0..k-1: the engine runs k device steps on it at once ("lanes"),
 * each with its own working set, all sharing one copy of the key and its
 * tables (mem/resident.h); on the H200 k = 2 gives +26% proofs per minute
 * at 2^22 and +14% at 2^24, bench/RESULTS.md; the engine gives each GPU
 * listed once its default lanes with cz_devspec_lanes). Meaning, with `present`
 * GPUs and `gpus` the number wanted (0: every device the spec names):
 *   auto   every GPU (the first `gpus` of them); with none present, the CPU
 *          (`gpus` CPU backends posing as devices, at least one)
 *   cuda   every GPU (the first `gpus`); with none present one entry for
 *          GPU 0, so that opening it says why there is none
 *   cpu    `gpus` CPU backends (at least one)
 *   cuda:L the listed GPUs (the first `gpus` of them)
 * Errors (CZ_ERR_INVALID_ARG, the message quoting the spec): anything else,
 * an index listed more than CZ_DEVSPEC_PER_GPU times, more entries than
 * `max`, `gpus` beyond what the spec names; CZ_ERR_NO_DEVICE: more GPUs
 * wanted than present.
 */
#ifndef CZ_BACKEND_DEVSPEC_H
#define CZ_BACKEND_DEVSPEC_H

#include <stddef.h>

#include "util/error.h"

#define CZ_DEVSPEC_MAX 32
#define CZ_DEVSPEC_PER_GPU 4 /* entries of one GPU at most */

typedef struct cz_devspec {
    int n;
    struct {
        int cuda;  /* 0: the CPU, 1: a GPU */
        int index; /* GPU index (cuda), position among CPU entries (cpu) */
        int slot;  /* GPU: how many earlier entries name the same GPU (0: the first) */
    } dev[CZ_DEVSPEC_MAX];
    int is_auto; /* the spec was "auto" (a GPU that cannot be opened may give way to the CPU) */
} cz_devspec;

/* spec NULL or "" = "auto". max: at most this many entries (<= CZ_DEVSPEC_MAX). */
cz_status cz_devspec_parse(cz_devspec *out, const char *spec, int gpus, int present, int max, cz_error *err);
/* Lanes: each GPU that d lists once gets lanes - 1 more entries (slots 1..,
 * after the others; at most CZ_DEVSPEC_PER_GPU in all, and no more entries
 * than max: the GPUs listed first get theirs first). A GPU listed several
 * times keeps what the list says; CPU entries are left alone. lanes <= 1:
 * nothing changes. */
void cz_devspec_lanes(cz_devspec *d, int lanes, int max);
/* Distinct GPUs among the entries. */
int cz_devspec_gpus(const cz_devspec *d);
/* "cpu" or "cuda:N" of entry i, into buf. */
const char *cz_devspec_entry_name(const cz_devspec *d, int i, char *buf, size_t cap);

#endif
