/*
 * cuda/device.cu without a GPU: the context's resident blocks (through the
 * GPU's store, mem/resident.h), its uploads, fills, flushes and scratch,
 * compiled by the host compiler against a fake CUDA runtime defined here:
 * device memory is host memory of a set capacity (freed memory poisoned),
 * copies are memcpy, streams and events do nothing, one device. What it
 * checks: two contexts on one GPU keep one copy of the bases both pin (one
 * upload, counted once); a pending block is uploaded at its first lookup,
 * from pageable memory in 32 MiB staged pieces and from pinned memory in
 * one copy; a flush copies the context's own pending blocks only; a fill
 * puts a device result into the block kept over its host array with no
 * upload; a context's scratch evicts the other's idle blocks but not one
 * its call has busy, and its optional spare evicts nothing and is given
 * once the device has room for it; a failed upload drops the block (the
 * MSM would stream); releases and closes free exactly what nobody else
 * keeps, and the fake device holds nothing at the end.
 */
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <set>
#include <string.h>

/* ---- the fake runtime ----------------------------------------------------- */

static std::mutex shim_mu;
static size_t shim_cap = (size_t)256 << 20, shim_used;
static std::map<void *, size_t> shim_dev;       /* device allocations */
static std::map<void *, size_t> shim_host;      /* cudaHostAlloc'd */
static size_t shim_h2d_bytes, shim_h2d_calls, shim_d2d_bytes;
static const void *shim_h2d_src; /* the source of the last host-to-device copy */
static int shim_fail_h2d;                       /* 1: host-to-device copies fail */
static size_t shim_frees;                       /* cudaFree calls of device memory */

extern "C" {
cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    if (d != 0) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    strcpy(p->name, "fake GPU");
    p->major = 9;
    p->totalGlobalMem = shim_cap;
    return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char *cudaGetErrorString(cudaError_t e) { return e == cudaErrorMemoryAllocation ? "out of memory" : "fake error"; }
const char *cudaGetErrorName(cudaError_t e) { return e == cudaErrorMemoryAllocation ? "cudaErrorMemoryAllocation" : "cudaErrorUnknown"; }
cudaError_t cudaMalloc(void **p, size_t bytes)
{
    std::lock_guard<std::mutex> g(shim_mu);
    if (shim_used + bytes > shim_cap) return cudaErrorMemoryAllocation;
    *p = malloc(bytes ? bytes : 1);
    shim_used += bytes;
    shim_dev[*p] = bytes;
    return cudaSuccess;
}
cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    std::lock_guard<std::mutex> g(shim_mu);
    auto it = shim_dev.find(p);
    if (it == shim_dev.end()) return cudaErrorInvalidValue;
    memset(p, 0xdd, it->second);
    shim_frees++;
    shim_used -= it->second;
    shim_dev.erase(it);
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *f, size_t *t)
{
    std::lock_guard<std::mutex> g(shim_mu);
    *f = shim_cap - shim_used;
    *t = shim_cap;
    return cudaSuccess;
}
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int)
{
    *p = malloc(bytes ? bytes : 1);
    std::lock_guard<std::mutex> g(shim_mu);
    shim_host[*p] = bytes;
    return cudaSuccess;
}
cudaError_t cudaFreeHost(void *p)
{
    std::lock_guard<std::mutex> g(shim_mu);
    shim_host.erase(p);
    free(p);
    return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p)
{
    std::lock_guard<std::mutex> g(shim_mu);
    memset(a, 0, sizeof *a);
    a->type = cudaMemoryTypeUnregistered;
    for (auto &h : shim_host)
        if ((const char *)p >= (const char *)h.first && (const char *)p < (const char *)h.first + h.second)
            a->type = cudaMemoryTypeHost;
    return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int)
{
    *s = (cudaStream_t)malloc(1);
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    free((void *)s);
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int)
{
    *e = (cudaEvent_t)malloc(1);
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free((void *)e);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t)
{
    if (k == cudaMemcpyHostToDevice) {
        if (shim_fail_h2d) return cudaErrorUnknown;
        shim_h2d_bytes += n;
        shim_h2d_calls++;
        shim_h2d_src = s;
    }
    if (k == cudaMemcpyDeviceToDevice) shim_d2d_bytes += n;
    memcpy(d, s, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
    return cudaMemcpyAsync(d, s, n, k, 0);
}
}

/* ---- the code under test ---------------------------------------------------- */

#include "cuda/device.cu"
#include "test_util.h"

#define MIB ((size_t)1 << 20)

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)((seed * 2654435761u + i * 40503u) >> 13);
}

static size_t used(void)
{
    std::lock_guard<std::mutex> g(shim_mu);
    return shim_used;
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_cuda_device");
    cz_error err;
    cz_error_clear(&err);
    cz_cuda *c1 = NULL, *c2 = NULL;
    CHECK(cz_cuda_device_count() == 1);
    CHECK(cz_cuda_open(&c1, 0, &err) == CZ_OK && c1);
    CHECK(cz_cuda_open(&c2, 0, &err) == CZ_OK && c2);
    cz_cuda *bad = NULL;
    CHECK(cz_cuda_open(&bad, 1, &err) == CZ_ERR_NO_DEVICE && !bad);
    CHECK(c1->store == c2->store && c1->lane != c2->lane);
    CHECK(strstr(cz_cuda_name(c1), "fake GPU") != NULL);

    /* a key section (pageable, 40 MiB: two staged pieces) kept by both: one copy, one upload */
    const size_t kb = 40 * MIB;
    uint8_t *key = (uint8_t *)malloc(kb);
    fill_pattern(key, kb, 1);
    CHECK(cz_cuda_bases_pin_later(c1, key, kb, &err) == CZ_OK);
    CHECK(cz_cuda_bases_pin_later(c2, key, kb, &err) == CZ_OK);
    CHECK(cz_cuda_bases_resident(c1) == kb && cz_cuda_bases_resident(c2) == kb && used() == kb);
    CHECK(shim_h2d_bytes == 0);
    cz_res_view v;
    const uint8_t *d2 = (const uint8_t *)cz_cuda_bases_lookup(c2, key, kb, NULL, &v);
    CHECK(d2 && memcmp(d2, key, kb) == 0 && v.host == key && v.bytes == kb && !v.tab);
    CHECK(shim_h2d_bytes == kb && shim_h2d_calls == 2); /* staged: 32 MiB + 8 MiB */
    CHECK(shim_h2d_src != key + 32 * MIB);               /* from a staging buffer */
    const uint8_t *d1 = (const uint8_t *)cz_cuda_bases_lookup(c1, key + 64, 1024, NULL, NULL);
    CHECK(d1 == d2 + 64 && shim_h2d_bytes == kb);
    cz_cuda_call_done(c1);
    cz_cuda_call_done(c2);

    /* pinned host memory: one copy; pinned now */
    uint8_t *pk = NULL;
    CHECK(cudaHostAlloc((void **)&pk, 4 * MIB, 0) == cudaSuccess);
    fill_pattern(pk, 4 * MIB, 2);
    const size_t calls = shim_h2d_calls;
    CHECK(cz_cuda_bases_pin(c1, pk, 4 * MIB, &err) == CZ_OK && shim_h2d_calls == calls + 1);
    CHECK(shim_h2d_src == pk); /* straight from the pinned memory */
    const uint8_t *dp = (const uint8_t *)cz_cuda_bases_lookup(c1, pk, 4 * MIB, NULL, NULL);
    CHECK(dp && memcmp(dp, pk, 4 * MIB) == 0 && shim_h2d_calls == calls + 1);
    CHECK(cz_cuda_bases_lookup(c2, pk, 4 * MIB, NULL, NULL) == NULL); /* c2 did not pin it */
    cz_cuda_call_done(c1);

    /* a witness kept by c1: c2's flush leaves it, c1's copies it */
    const size_t wb = 2 * MIB;
    uint8_t *w = (uint8_t *)malloc(wb);
    fill_pattern(w, wb, 3);
    CHECK(cz_cuda_bases_pin_later(c1, w, wb, &err) == CZ_OK);
    size_t before = shim_h2d_bytes;
    cz_cuda_bases_flush(c2);
    CHECK(shim_h2d_bytes == before);
    cz_cuda_bases_flush(c1);
    CHECK(shim_h2d_bytes == before + wb);
    const uint8_t *dw = (const uint8_t *)cz_cuda_bases_lookup(c1, w, wb, NULL, NULL);
    CHECK(dw && memcmp(dw, w, wb) == 0 && shim_h2d_bytes == before + wb);
    cz_cuda_call_done(c1);

    /* the H step's result into the block kept over a: a device copy, no upload */
    uint8_t *a = (uint8_t *)malloc(wb);
    void *res = NULL;
    CHECK(cudaMalloc(&res, wb) == cudaSuccess);
    fill_pattern((uint8_t *)res, wb, 4);
    CHECK(cz_cuda_bases_pin_later(c1, a, wb, &err) == CZ_OK);
    before = shim_h2d_bytes;
    const size_t d2d = shim_d2d_bytes;
    CHECK(cz_cuda_bases_fill(c1, a, wb, res));
    CHECK(shim_d2d_bytes == d2d + wb);
    const uint8_t *da = (const uint8_t *)cz_cuda_bases_lookup(c1, a, wb, NULL, NULL);
    CHECK(da && memcmp(da, res, wb) == 0 && shim_h2d_bytes == before);
    cz_cuda_call_done(c1);
    CHECK(!cz_cuda_bases_fill(c2, a, wb, res)); /* c2 keeps no block there */
    cudaFree(res);

    /* mem_info: the store's blocks (shared) plus the context's scratch */
    size_t tot = 0, fr = 0, held = 0, own = 0;
    void *scr = NULL;
    CHECK(cz_cuda_scratch(c2, 10 * MIB, &scr, &err) == CZ_OK && scr);
    CHECK(cz_cuda_mem_info(c2, &tot, &fr, &held, &own, &err) == CZ_OK);
    CHECK(tot == shim_cap && held == cz_cuda_bases_resident(c2) + c2->scratch_bytes && c2->scratch_bytes >= 10 * MIB);
    CHECK(own == c2->scratch_bytes);
    CHECK(fr == shim_cap - used());
    /* asked: the largest request since the mark, not the arena's size */
    CHECK(cz_cuda_scratch_asked(c2) == 10 * MIB);
    cz_cuda_scratch_mark(c2);
    cz_cuda_scratch_mark(c1);
    CHECK(cz_cuda_scratch_asked(c2) == 0);
    CHECK(cz_cuda_scratch(c2, 3 * MIB, &scr, &err) == CZ_OK && cz_cuda_scratch(c2, 1 * MIB, &scr, &err) == CZ_OK);
    CHECK(cz_cuda_scratch_asked(c2) == 3 * MIB && c2->scratch_bytes >= 10 * MIB);
    CHECK(cz_cuda_scratch_asked(c1) == 0); /* per context */

    /* scratch: c1's busy key section is not evicted for c2's; idle, it is */
    CHECK(cz_cuda_bases_lookup(c1, key, kb, NULL, NULL) != NULL); /* c1's call goes on */
    /* growing c2's scratch frees its old one (64 MiB) first; the rest needs
     * evictions: c1's idle pinned block, witness and a (8 MiB) are not enough */
    const size_t room = shim_cap - used(), want = room + 64 * MIB + 20 * MIB;
    cz_error_clear(&err);
    CHECK(cz_cuda_scratch(c2, want, &scr, &err) == CZ_ERR_DEVICE_MEMORY);
    CHECK(strstr(cz_error_msg(&err), "scratch") != NULL);
    CHECK(cz_cuda_bases_lookup(c2, key, kb, NULL, NULL) == d2); /* still there (c2's lookup: busy for c2 too) */
    cz_cuda_call_done(c1);
    cz_cuda_call_done(c2);
    cz_error_clear(&err);
    CHECK(cz_cuda_scratch(c2, want, &scr, &err) == CZ_OK);
    CHECK(cz_cuda_bases_lookup(c1, key, kb, NULL, NULL) == NULL); /* evicted (least recently used first) */
    cz_cuda_call_done(c1);
    shim_cap += 128 * MIB; /* room for what follows beside c2's grown scratch */

    /* scratch grows by evicting for what it needs, not for its rounding to 64 MiB */
    {
        uint8_t *x = (uint8_t *)malloc(64 * MIB);
        fill_pattern(x, 64 * MIB, 5);
        CHECK(cz_cuda_bases_pin_later(c1, x, 64 * MIB, &err) == CZ_OK);
        if (((shim_cap - used() + c2->scratch_bytes) & (64 * MIB - 1)) == 0) shim_cap += 32 * MIB;
        const size_t fits = shim_cap - used() + c2->scratch_bytes - MIB; /* without evicting */
        const size_t rounded = (fits + 64 * MIB - 1) & ~(64 * MIB - 1);
        CHECK(rounded > fits + MIB && rounded <= fits + MIB + 64 * MIB); /* the rounding needs x's room */
        cz_error_clear(&err);
        CHECK(cz_cuda_scratch(c2, fits, &scr, &err) == CZ_OK && c2->scratch_bytes == fits);
        const uint8_t *dx = (const uint8_t *)cz_cuda_bases_lookup(c1, x, 64 * MIB, NULL, NULL);
        CHECK(dx && memcmp(dx, x, 64 * MIB) == 0); /* still kept */
        cz_cuda_call_done(c1);
        cz_cuda_bases_release(c1, x);
        free(x);
    }

    /* the scratch's spare (cz_cuda_scratch_spare, the MSM's second chunk
     * sorted ahead): only where the device has room for it as it is, with no
     * block evicted and, without that room, the scratch not given back for
     * nothing; given once the room is there */
    {
        uint8_t *x = (uint8_t *)malloc(16 * MIB);
        fill_pattern(x, 16 * MIB, 6);
        cz_error_clear(&err);
        CHECK(cz_cuda_bases_pin_later(c1, x, 16 * MIB, &err) == CZ_OK);
        CHECK(cz_cuda_bases_lookup(c1, x, 16 * MIB, NULL, NULL) != NULL); /* uploaded */
        cz_cuda_call_done(c1);                                            /* idle: evictable */
        const size_t have = c2->scratch_bytes;
        void *s0 = NULL, *s1 = NULL;
        size_t got = 1;
        CHECK(cz_cuda_scratch_spare(c2, have / 2, have / 2, &s0, &got, &err) == CZ_OK && got == have / 2 &&
              s0 == c2->scratch && c2->scratch_bytes == have); /* within the scratch */
        const size_t spare = shim_cap - used() + MIB;             /* more than is free beside the scratch */
        const size_t frees = shim_frees;
        got = 1;
        CHECK(cz_cuda_scratch_spare(c2, have, spare, &s1, &got, &err) == CZ_OK && got == 0 && s1 == s0 &&
              c2->scratch_bytes == have && shim_frees == frees); /* (the scratch not given back) */
        const uint8_t *dx = (const uint8_t *)cz_cuda_bases_lookup(c1, x, 16 * MIB, NULL, NULL);
        CHECK(dx && memcmp(dx, x, 16 * MIB) == 0); /* not evicted for it */
        cz_cuda_call_done(c1);
        got = 0;
        CHECK(cz_cuda_scratch_spare(c2, have, spare, &s1, &got, &err) == CZ_OK && got == 0 && s1 == s0 &&
              shim_frees == frees); /* again */
        /* room now (with the 64 MiB rounding, and for what follows: the key again, 8 MiB) */
        shim_cap += 2 * MIB + 64 * MIB + kb + 8 * MIB;
        CHECK(cz_cuda_scratch_spare(c2, have, spare, &s1, &got, &err) == CZ_OK && got == spare && s1 == c2->scratch &&
              c2->scratch_bytes >= have + spare);
        dx = (const uint8_t *)cz_cuda_bases_lookup(c1, x, 16 * MIB, NULL, NULL);
        CHECK(dx && memcmp(dx, x, 16 * MIB) == 0); /* still not evicted */
        cz_cuda_call_done(c1);
        cz_cuda_bases_release(c1, x);
        free(x);
    }

    /* a failed upload drops the block (the MSM then streams) */
    uint8_t *w2 = (uint8_t *)malloc(MIB);
    cz_error_clear(&err);
    CHECK_MSG(cz_cuda_bases_pin_later(c2, w2, MIB, &err) == CZ_OK, "%s (used %zu of %zu)", cz_error_msg(&err), used(),
              shim_cap);
    const size_t n2 = cz_cuda_bases_resident(c2);
    shim_fail_h2d = 1;
    CHECK(cz_cuda_bases_lookup(c2, w2, MIB, NULL, NULL) == NULL);
    shim_fail_h2d = 0;
    CHECK(cz_cuda_bases_resident(c2) == n2 - MIB);
    CHECK(cz_cuda_bases_lookup(c2, w2, MIB, NULL, NULL) == NULL); /* gone, not retried */
    cz_error_clear(&err);
    shim_fail_h2d = 1;
    CHECK(cz_cuda_bases_pin(c2, w2, MIB, &err) == CZ_ERR_CUDA && strstr(cz_error_msg(&err), "uploading bases"));
    shim_fail_h2d = 0;
    CHECK(cz_cuda_bases_resident(c2) == n2 - MIB);

    /* a block larger than the device: refused, nothing evicted for it */
    cz_error_clear(&err);
    uint8_t *huge = (uint8_t *)malloc(8);
    CHECK(cz_cuda_bases_pin_later(c1, huge, shim_cap + 1, &err) == CZ_ERR_DEVICE_MEMORY);
    CHECK(strstr(cz_error_msg(&err), "do not fit") != NULL);

    /* releases and closes: what nobody else keeps goes */
    cz_error_clear(&err);
    CHECK_MSG(cz_cuda_bases_pin_later(c1, key, kb, &err) == CZ_OK, "%s (used %zu of %zu)", cz_error_msg(&err), used(),
              shim_cap);
    CHECK(cz_cuda_bases_pin_later(c2, key, kb, &err) == CZ_OK);
    const size_t r0 = cz_cuda_bases_resident(c1);
    cz_cuda_bases_release(c1, key);
    CHECK(cz_cuda_bases_resident(c1) == r0);
    cz_cuda_close(c1); /* its pinned block, witness and a go */
    CHECK(cz_cuda_bases_resident(c2) == kb);
    CHECK(cz_cuda_bases_lookup(c2, key, kb, NULL, NULL) != NULL);
    cz_cuda_call_done(c2);
    cz_cuda_close(c2);
    CHECK(used() == 0);
    {
        std::lock_guard<std::mutex> g(shim_mu);
        CHECK(shim_dev.empty());
    }
    free(key);
    free(w);
    free(w2);
    free(a);
    free(huge);
    cudaFreeHost(pk);
    return cz_test_finish("test_cuda_device");
}
