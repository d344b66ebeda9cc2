/*
 * cuzk status codes: the one error enum of the whole library.
 *
 * DESIGN: every fallible library function returns a cz_status (or reports one
 * through an out-parameter); library code never aborts or exits on bad input or
 * on a device error. cz_status_str() gives a stable, human-readable text for
 * each code; callers add the context (file, offset, field) to their messages.
 */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cz_status {
    CZ_OK = 0,
    CZ_ERR_INVALID_ARG,     /* a caller passed a bad argument (NULL, size 0, ...) */
    CZ_ERR_RANGE,           /* a value is out of its range (field element >= p, size too big) */
    CZ_ERR_ENCODING,        /* malformed encoding (flag bits, lengths, non-canonical bytes) */
    CZ_ERR_NOT_ON_CURVE,    /* point coordinates do not satisfy the curve equation */
    CZ_ERR_NOT_IN_SUBGROUP, /* point is on the curve but not in the prime-order subgroup */
    CZ_ERR_NOT_SQUARE,      /* square root of a non-residue was requested */
    CZ_ERR_DIV_BY_ZERO,     /* inverse of zero was requested */
    CZ_ERR_NO_MEMORY,       /* host allocation failed */
    CZ_ERR_IO,              /* open/read/write/rename of a file failed */
    CZ_ERR_FORMAT,          /* a file is malformed: magic, version, section, size */
    CZ_ERR_MISMATCH,        /* inputs do not belong together (curve, lengths, circuit) */
    CZ_ERR_UNSATISFIED,     /* the witness does not satisfy the constraints */
    CZ_ERR_VERIFY,          /* a proof failed verification */
    CZ_ERR_UNSUPPORTED,     /* a valid request this build or device cannot serve */
    CZ_ERR_CUDA,            /* a CUDA call failed */
    CZ_ERR_NO_DEVICE,       /* no usable GPU */
    CZ_ERR_DEVICE_MEMORY,   /* device allocation failed */
    CZ_ERR_BUDGET,          /* the request does not fit the memory budget */
    CZ_ERR_CANCELLED,       /* the job was cancelled */
    CZ_ERR_TIMEOUT,         /* a wait timed out */
    CZ_ERR_INTERNAL,        /* an invariant broke: a bug in cuzk */
    CZ_ERR_RANDOM,          /* no secure randomness: the OS CSPRNG (getrandom) refused */
    CZ_STATUS_COUNT_
} cz_status;

/* Returns a static string naming the status; never NULL (unknown codes give
 * "unknown status"). */
const char *cz_status_str(cz_status s);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_STATUS_H */
