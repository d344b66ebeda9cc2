#!/usr/bin/env python3
"""Shared-memory bank model of the NTT pass kernel's tile (cuda/ntt.cuh).

Each warp access of a pass's phases -- the loads and stores (pass_load,
pass_store: element e = tid + k nthr), the radix-4 steps (pass_step: elements
e0 + i 2^(lo+c), i = 0..3) and the lone radix-2 level of an odd pass
(pass_level) -- is replayed for every plan (ntt.cuh make_plan) and counted in
wavefronts: a 128-bit shared access is served a quarter-warp (8 lanes) at a
time, one wavefront per distinct 16-byte slot sharing a bank group (slot mod 8).
The ideal is 2 x 4 wavefronts per 32-lane access of an element (two halves).

  python3 tools/ntt_banks.py            the element-major tile (tile_slot) and,
                                        for comparison, plain slots 2e + h
Exit status 1 if tile_slot has a conflict in any plan checked.
"""
import sys


def make_plan(k, T, C):
    C = min(C, T - 1)
    t0 = min(k, T)
    ps = [(0, t0, 0)]
    rest, tm = k - t0, T - C
    if rest:
        m = (rest + tm - 1) // tm
        base, extra, b = rest // m, rest % m, t0
        for i in range(m):
            t = base + (1 if i < extra else 0)
            ps.append((b, t, T - t))
            b += t
    return ps


def accesses(plan):
    """Yields each warp's list of tile elements, one list per access instruction."""
    for (b0, t, c) in plan:
        E = 1 << (t + c)
        nthr = min(max(E // 2, 1), 256)

        def warps(qs, f):
            for w in range(0, len(qs), 32):
                yield [f(q) for q in qs[w:w + 32]]

        def row(q, bit, width):  # a q's row index with `width` zero bits inserted at `bit`
            lc, rr = q & ((1 << c) - 1), q >> c
            rw = ((rr >> bit) << (bit + width)) | (rr & ((1 << bit) - 1))
            return (rw << c) | lc

        for k0 in range(0, E, nthr):
            yield from warps(list(range(k0, min(k0 + nthr, E))), lambda e: e)
        for lv in range(0, t - 1, 2):
            for lo in (lv, t - 2 - lv):  # DIT, DIF
                for q0 in range(0, E // 4, nthr):
                    qs = list(range(q0, min(q0 + nthr, E // 4)))
                    for i in range(4):
                        yield from warps(qs, lambda q: row(q, lo, 2) + i * (1 << (lo + c)))
        if t % 2:
            for bb in (t - 1, 0):
                for q0 in range(0, E // 2, nthr):
                    qs = list(range(q0, min(q0 + nthr, E // 2)))
                    for j in range(2):
                        yield from warps(qs, lambda q: row(q, bb, 1) + j * (1 << (bb + c)))


def wavefronts(es, slot):
    n = 0
    for h in (0, 1):
        for qw in range(0, len(es), 8):
            groups = {}
            for e in es[qw:qw + 8]:
                s = slot(e, h)
                groups.setdefault(s % 8, set()).add(s)
            n += max(len(v) for v in groups.values())
    return n


def tile_slot(e, h):  # cuda/ntt.cuh tile_slot(e) ^ h
    return (2 * e) ^ (((e >> 2) ^ (e >> 3) ^ (e >> 4)) & 7) ^ h


def plain(e, h):
    return 2 * e + h


def main():
    bad = 0
    for T in (8, 9, 10, 11, 12):
        for k in range(1, 29):
            plan = make_plan(k, T, 2)
            got = ideal = 0
            for es in accesses(plan):
                got += wavefronts(es, tile_slot)
                ideal += 2 * ((len(es) + 7) // 8)
            if got != ideal:
                bad += 1
                print(f"tile 2^{T}, n = 2^{k}, plan {plan}: {got / ideal:.3f} x the ideal wavefronts")
    p = make_plan(24, 11, 2)
    pg = pi = 0
    for es in accesses(p):
        pg += wavefronts(es, plain)
        pi += 2 * ((len(es) + 7) // 8)
    print(f"plain slots 2e + h, n = 2^24, tile 2^11: {pg / pi:.2f} x the ideal wavefronts")
    print("tile_slot: " + ("conflict-free in every plan" if not bad else f"{bad} plans with conflicts"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
