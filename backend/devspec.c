/* backend/devspec: device specs (contract in devspec.h). */
#include "backend/devspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC_FORMS = "expected auto, cpu, cuda, cuda:N or a list cuda:N,M,...";

cz_status cz_devspec_parse(cz_devspec *out, const char *spec, int gpus, int present, int max, cz_error *err)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) spec = "auto";
    if (max <= 0 || max > CZ_DEVSPEC_MAX) max = CZ_DEVSPEC_MAX;
    if (gpus < 0 || gpus > max)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "gpus %d: expected 0 (every device) to %d", gpus, max);
    if (present < 0) present = 0;
    const int is_auto = strcmp(spec, "auto") == 0, is_cuda = strcmp(spec, "cuda") == 0;
    out->is_auto = is_auto;
    if (strcmp(spec, "cpu") == 0 || ((is_auto || is_cuda) && present == 0)) {
        if (is_cuda) { /* one entry: opening it says why there is no GPU */
            if (gpus > 1)
                return cz_error_set(err, CZ_ERR_NO_DEVICE, "device 'cuda': %d GPUs asked for, none present", gpus);
            out->n = 1;
            out->dev[0].cuda = 1;
            return CZ_OK;
        }
        out->n = gpus > 0 ? gpus : 1;
        for (int i = 0; i < out->n; i++) out->dev[i].index = i;
        return CZ_OK;
    }
    if (is_auto || is_cuda) {
        int have = present > max ? max : present;
        if (gpus > present)
            return cz_error_set(err, CZ_ERR_NO_DEVICE, "device '%s': %d GPUs asked for, %d present", spec, gpus,
                                present);
        out->n = gpus > 0 ? gpus : have;
        for (int i = 0; i < out->n; i++) {
            out->dev[i].cuda = 1;
            out->dev[i].index = i;
        }
        return CZ_OK;
    }
    if (strncmp(spec, "cuda:", 5) != 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': %s", spec, SPEC_FORMS);
    const char *p = spec + 5;
    int k = 0;
    for (;;) {
        if (*p < '0' || *p > '9')
            return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                "device '%s': N in cuda:N must be a GPU index 0..1023 (a list: cuda:0,1)",
                                spec);
        char *end;
        long d = strtol(p, &end, 10);
        if (d > 1023 || (*end && *end != ','))
            return cz_error_set(err, CZ_ERR_INVALID_ARG,
                                "device '%s': N in cuda:N must be a GPU index 0..1023 (a list: cuda:0,1)",
                                spec);
        int slot = 0;
        for (int i = 0; i < k; i++) slot += out->dev[i].index == (int)d;
        if (slot == CZ_DEVSPEC_PER_GPU) {
            memset(out, 0, sizeof *out);
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': GPU %ld is listed more than %d times", spec, d,
                                CZ_DEVSPEC_PER_GPU);
        }
        if (k == max) {
            memset(out, 0, sizeof *out);
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': more than %d GPUs", spec, max);
        }
        out->dev[k].cuda = 1;
        out->dev[k].index = (int)d;
        out->dev[k].slot = slot;
        k++;
        if (!*end) break;
        p = end + 1;
    }
    if (gpus > k) {
        memset(out, 0, sizeof *out);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "gpus %d: device '%s' lists %d", gpus, spec, k);
    }
    out->n = gpus > 0 ? gpus : k;
    return CZ_OK;
}

void cz_devspec_lanes(cz_devspec *d, int lanes, int max)
{
    if (max <= 0 || max > CZ_DEVSPEC_MAX) max = CZ_DEVSPEC_MAX;
    if (lanes > CZ_DEVSPEC_PER_GPU) lanes = CZ_DEVSPEC_PER_GPU;
    const int n0 = d->n;
    for (int slot = 1; slot < lanes; slot++)
        for (int i = 0; i < n0 && d->n < max; i++) {
            if (!d->dev[i].cuda || d->dev[i].slot != 0) continue;
            int listed = 0;
            for (int j = 0; j < n0; j++) listed += d->dev[j].cuda && d->dev[j].index == d->dev[i].index;
            if (listed != 1) continue;
            d->dev[d->n].cuda = 1;
            d->dev[d->n].index = d->dev[i].index;
            d->dev[d->n].slot = slot;
            d->n++;
        }
}

int cz_devspec_gpus(const cz_devspec *d)
{
    int n = 0;
    for (int i = 0; i < d->n; i++) n += d->dev[i].cuda && d->dev[i].slot == 0;
    return n;
}

const char *cz_devspec_entry_name(const cz_devspec *d, int i, char *buf, size_t cap)
{
    if (i < 0 || i >= d->n)
        snprintf(buf, cap, "none");
    else if (d->dev[i].cuda)
        snprintf(buf, cap, "cuda:%d", d->dev[i].index);
    else
        snprintf(buf, cap, "cpu");
    return buf;
}
