/* Backend selection from a device spec ("auto", "cpu", "cuda", "cuda:N"). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

#ifdef CZ_HAVE_CUDA
#include "cuda/cuda.h"
cz_status cz_backend_cuda_create(cz_backend **out, int device, cz_error *err);
#endif

int cz_backend_device_error(cz_status st)
{
    return st == CZ_ERR_CUDA || st == CZ_ERR_DEVICE_MEMORY || st == CZ_ERR_NO_DEVICE || st == CZ_ERR_INTERNAL;
}

int cz_backend_device_count(const char *spec)
{
    if (spec && strcmp(spec, "cpu") == 0) return 1;
#ifdef CZ_HAVE_CUDA
    return cz_cuda_device_count();
#else
    return 0;
#endif
}

cz_status cz_backend_create(cz_backend **out, const char *spec, cz_error *err)
{
    *out = NULL;
    if (!spec || !*spec) spec = "auto";
    if (strcmp(spec, "cpu") == 0) {
        cz_status st = cz_backend_cpu_create(out, NULL);
        if (st != CZ_OK) return cz_error_set(err, st, "cannot create the CPU backend");
        return CZ_OK;
    }
    int want_cuda = strncmp(spec, "cuda", 4) == 0;
    if (!want_cuda && strcmp(spec, "auto") != 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': expected auto, cpu, cuda or cuda:N", spec);
    int device = 0;
    if (want_cuda && spec[4] == ':') {
        char *end;
        long d = strtol(spec + 5, &end, 10);
        if (*end || end == spec + 5 || d < 0 || d > 1023)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': N in cuda:N must be a GPU index", spec);
        device = (int)d;
    } else if (want_cuda && spec[4] != '\0') {
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': expected auto, cpu, cuda or cuda:N", spec);
    }
#ifdef CZ_HAVE_CUDA
    cz_error cerr;
    cz_error_clear(&cerr);
    cz_status st = cz_backend_cuda_create(out, device, &cerr);
    if (st == CZ_OK) return CZ_OK;
    if (want_cuda) return cz_error_set(err, st, "%s", cz_error_msg(&cerr));
#else
    if (want_cuda) return cz_error_set(err, CZ_ERR_UNSUPPORTED, "device '%s': this build has no CUDA backend", spec);
#endif
    (void)device;
    cz_status st2 = cz_backend_cpu_create(out, NULL);
    if (st2 != CZ_OK) return cz_error_set(err, st2, "cannot create the CPU backend");
    return CZ_OK;
}
