#include "cuzk/status.h"

const char *cz_status_str(cz_status s)
{
    switch (s) {
    case CZ_OK: return "ok";
    case CZ_ERR_INVALID_ARG: return "invalid argument";
    case CZ_ERR_RANGE: return "value out of range";
    case CZ_ERR_ENCODING: return "malformed encoding";
    case CZ_ERR_NOT_ON_CURVE: return "point not on curve";
    case CZ_ERR_NOT_IN_SUBGROUP: return "point not in prime-order subgroup";
    case CZ_ERR_NOT_SQUARE: return "not a square";
    case CZ_ERR_DIV_BY_ZERO: return "division by zero";
    case CZ_ERR_NO_MEMORY: return "out of host memory";
    case CZ_ERR_IO: return "i/o error";
    case CZ_ERR_FORMAT: return "malformed file";
    case CZ_ERR_MISMATCH: return "inputs do not match";
    case CZ_ERR_UNSATISFIED: return "witness does not satisfy the constraints";
    case CZ_ERR_VERIFY: return "proof verification failed";
    case CZ_ERR_UNSUPPORTED: return "unsupported";
    case CZ_ERR_CUDA: return "cuda error";
    case CZ_ERR_NO_DEVICE: return "no usable gpu";
    case CZ_ERR_DEVICE_MEMORY: return "out of device memory";
    case CZ_ERR_BUDGET: return "does not fit the memory budget";
    case CZ_ERR_CANCELLED: return "cancelled";
    case CZ_ERR_TIMEOUT: return "timed out";
    case CZ_ERR_INTERNAL: return "internal error";
    case CZ_ERR_RANDOM: return "no secure randomness (the OS CSPRNG failed)";
    case CZ_STATUS_COUNT_: break;
    }
    return "unknown status";
}
