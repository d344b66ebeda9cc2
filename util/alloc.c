#include "util/alloc.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Blocks of this size and up are aligned to 2 MiB and marked for
 * transparent huge pages: a proving key or a working set then takes 512x
 * fewer page faults when first written (the kernel zeroes 2 MiB at once). */
#define CZ_HUGE ((size_t)4 << 20)
#define CZ_HUGE_ALIGN ((size_t)2 << 20)

void *cz_alloc(const cz_allocator *a, size_t bytes)
{
    if (bytes == 0) return NULL;
    if (a && a->alloc) return a->alloc(a->ctx, bytes);
    size_t rounded = (bytes + 63) & ~(size_t)63;
    if (rounded < bytes) return NULL;
    if (rounded >= CZ_HUGE) {
        size_t huge = (bytes + CZ_HUGE_ALIGN - 1) & ~(CZ_HUGE_ALIGN - 1);
        void *p = NULL;
        if (huge >= bytes && posix_memalign(&p, CZ_HUGE_ALIGN, huge) == 0) {
#ifdef MADV_HUGEPAGE
            (void)madvise(p, huge, MADV_HUGEPAGE); /* advice: ignored where THP is off */
#endif
            return p;
        }
    }
    return aligned_alloc(64, rounded);
}

void cz_free(const cz_allocator *a, void *p, size_t bytes)
{
    if (!p) return;
    if (a && a->free) {
        a->free(a->ctx, p, bytes);
        return;
    }
    free(p);
}
