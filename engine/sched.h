/*
 * engine/sched: which synthesized partition a device takes next, when the
 * engine has several devices (GPUs).
 *
 * DESIGN: a pure function over a snapshot of the GPU queue, so that the
 * rules are tested on their own (tests/test_sched.c):
 *
 *  1. priority first: a device only takes a partition of the highest
 *     priority waiting; age (submission order) breaks ties;
 *  2. key placement: among those, it takes the oldest whose proving key is
 *     already resident in its VRAM;
 *  3. otherwise the oldest whose key is not resident on another device that
 *     is idle right now (that device will take it, sparing an upload);
 *  4. otherwise nothing: every candidate belongs to an idle device holding
 *     its key. The engine wakes every device when one takes work, so a
 *     deferred partition is taken as soon as its device is busy.
 *
 * A device holding the key that is busy is not waited for: the idle device
 * uploads the key (once; it stays resident) rather than sit idle.
 */
#ifndef CZ_ENGINE_SCHED_H
#define CZ_ENGINE_SCHED_H

#include <stddef.h>
#include <stdint.h>

#define CZ_SCHED_MAX_DEVICES 32

typedef struct cz_sched_item {
    int priority;      /* higher first */
    uint64_t seq;      /* submission order: lower is older */
    uint32_t resident; /* bit d: the item's key is resident on device d */
} cz_sched_item;

/* The index of the item device dev (< CZ_SCHED_MAX_DEVICES) takes, or -1.
 * idle: bit d set for each in-service device waiting for work (dev's own
 * bit is ignored). */
int cz_sched_pick(const cz_sched_item *items, size_t n, int dev, uint32_t idle);

#endif
