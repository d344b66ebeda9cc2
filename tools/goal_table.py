#!/usr/bin/env python3
"""Issue 16's goal table from benchmark logs: old and new side by side.

Run: python3 tools/goal_table.py [--old DIR] --new DIR [-o FILE]

Each DIR holds the logs of one build, as scripts/gpu_check.sh's `goals` stage
writes them (any of them may be missing; its rows then say "not run"):
  msm.txt                 bench_gpu_msm --max-log=26 --g2-log=22 (the MSM rows)
  ntt.txt                 bench_gpu_ntt --min=24 --max=24 (forward NTT, H step)
  engine-22-filecoin.txt  cuzk bench-engine on the 2^22 filecoin circuit
  engine-24-dense.txt     cuzk bench-engine on the 2^24 dense circuit
Prints a markdown table: figure, old, new, new / old, goal, the bar beside it
(sppark on the same H200, bench/RESULTS.md "The bar on the H200"), reached.
Exits 1 when a log is there but a row it should hold is not (a changed
format must not pass for "not run"), 2 on a usage error.
"""
import os
import re
import sys

# (key, label, unit, goal, lower is better, bar)
GOALS = [
    ("msm_bls_g1_24", "MSM BLS12-381 G1 2^24, bases resident", "ms", 100.0, True, "sppark 157.8 ms"),
    ("msm_bn_g1_24", "MSM BN254 G1 2^24, bases resident", "ms", 55.0, True, "sppark 82.0 ms"),
    ("msm_bls_g1_26", "MSM BLS12-381 G1 2^26, bases resident", "ms", 380.0, True, "sppark 570.5 ms"),
    ("msm_bls_g2_22", "MSM BLS12-381 G2 2^22, bases resident", "ms", 100.0, True, ""),
    ("msm_bn_g2_22", "MSM BN254 G2 2^22, bases resident", "ms", 50.0, True, ""),
    ("h_24", "H step 2^24 on device, BLS12-381", "ms", 15.0, True, "sppark 35.2 ms (7 NTTs)"),
    ("ntt_24", "forward NTT 2^24, device-resident, BLS12-381", "ms", 4.0, True, "sppark 4.73 ms"),
    ("dense_24", "dense BLS12-381 2^24 in the engine stream, after the 1st job", "s/proof", 0.8, True, ""),
    ("filecoin_22", "2^22 filecoin BLS12-381 stream, after the 1st job", "proofs/min", 700.0, False, ""),
]

MSM_ROWS = {
    "msm_bls_g1_24": ("BLS12-381 G1", "2^24"),
    "msm_bn_g1_24": ("BN254 G1", "2^24"),
    "msm_bls_g1_26": ("BLS12-381 G1", "2^26"),
    "msm_bls_g2_22": ("BLS12-381 G2", "2^22"),
    "msm_bn_g2_22": ("BN254 G2", "2^22"),
}


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def table_rows(text):
    """The cells of every markdown table row of a log."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and not line.startswith("|-"):
            yield [c.strip() for c in line.strip("|").split("|")]


def parse_msm(text, key):
    group, size = MSM_ROWS[key]
    for c in table_rows(text):
        if len(c) >= 4 and c[0] == group and c[1] == size and c[2] == "resident":
            return float(c[3])
    return None


def parse_ntt(text, col):
    header = None
    for c in table_rows(text):
        if c and c[0] == "field":
            header = c
            continue
        if header and c[0] == "bls12_381" and c[1] == "2^24" and col in header:
            return float(c[header.index(col)])
    return None


def parse_engine(text):
    m = re.search(r"([\d.]+) proofs/min after the first job", text)
    return float(m.group(1)) if m else None


def figures(d):
    """{key: value or None} and the keys whose log was there but unreadable."""
    out, broken = {}, []
    msm, ntt = read(os.path.join(d, "msm.txt")), read(os.path.join(d, "ntt.txt"))
    for key in MSM_ROWS:
        out[key] = parse_msm(msm, key) if msm is not None else None
        # the 2^26 row only exists when the benchmark ran that far
        if msm is not None and out[key] is None and key != "msm_bls_g1_26":
            broken.append(key)
    for key, col in (("h_24", "H device"), ("ntt_24", "fwd")):
        out[key] = parse_ntt(ntt, col) if ntt is not None else None
        if ntt is not None and out[key] is None:
            broken.append(key)
    for key, name in (("dense_24", "engine-24-dense.txt"), ("filecoin_22", "engine-22-filecoin.txt")):
        text = read(os.path.join(d, name))
        v = parse_engine(text) if text is not None else None
        if text is not None and v is None:
            broken.append(key)
        if v is not None and key == "dense_24":
            v = 60.0 / v
        out[key] = v
    return out, broken


def fmt(v, unit):
    if v is None:
        return "not run"
    if unit == "s/proof":
        return "%.3f s" % v
    if unit == "proofs/min":
        return "%.1f /min" % v
    return "%.2f ms" % v


def main(argv):
    args = {"--old": None, "--new": None, "-o": None}
    it = iter(argv)
    for a in it:
        if a in args:
            args[a] = next(it, None)
            if args[a] is None:
                print("goal_table.py: %s needs a value" % a, file=sys.stderr)
                return 2
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            print("goal_table.py: unknown argument %s (--help)" % a, file=sys.stderr)
            return 2
    if not args["--new"] or not os.path.isdir(args["--new"]):
        print("goal_table.py: --new DIR is required and must be a directory", file=sys.stderr)
        return 2
    if args["--old"] and not os.path.isdir(args["--old"]):
        print("goal_table.py: --old %s is not a directory" % args["--old"], file=sys.stderr)
        return 2
    new, broken = figures(args["--new"])
    old, broken_old = figures(args["--old"]) if args["--old"] else ({}, [])
    lines = ["| figure | old | new | new / old | goal | bar | reached |", "|---|---:|---:|---:|---:|---|---|"]
    for key, label, unit, goal, lower, bar in GOALS:
        o, n = old.get(key), new.get(key)
        ratio = "%.3f" % (n / o) if o and n else ""
        g = ("<= " if lower else ">= ") + fmt(goal, unit)
        reached = "" if n is None else ("yes" if (n <= goal if lower else n >= goal) else "no")
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (label, fmt(o, unit) if args["--old"] else "",
                                                               fmt(n, unit), ratio, g, bar, reached))
    text = "\n".join(lines) + "\n"
    if args["-o"]:
        tmp = args["-o"] + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args["-o"])
    sys.stdout.write(text)
    for side, keys in (("new", broken), ("old", broken_old)):
        for key in keys:
            print("goal_table.py: the %s logs hold no figure for %s (format changed?)" % (side, key), file=sys.stderr)
    return 1 if broken or broken_old else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
