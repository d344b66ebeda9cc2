#!/usr/bin/env python3
"""The instruction mix of CUDA kernels, from `cuobjdump -sass` text.

usage: tools/sass_mix.py FILE.sass [REGEX] [--top N]

For every function whose (mangled or demangled) name matches REGEX (all
when omitted): its static instruction count, the share of each pipe class
and the N most frequent opcodes. Static counts (each instruction once, as
written, loops not unrolled by execution) are what this can say without a
GPU; they show what a code change did to the instruction stream (e.g. the
adds and selects of a butterfly against its multiply-adds) before it is
timed. The classes follow the units the opcodes issue to on sm_90:

  fma    IMAD*, IMUL*, FFMA, FMUL, FADD, HFMA2 (the FMA pipes)
  fp64   DFMA, DMUL, DADD (the FP64 pipe)
  alu    IADD3, LOP3, SEL, ISETP, SHF, LEA, PRMT, IABS, IMNMX, FSEL,
         FSETP, PLOP3, P2R, R2P, FLO, POPC, BREV, SGXT, BMSK, VIADD*
  mem    LDG, STG, LDS, STS, LD, ST, LDL, STL, LDSM, ATOM*, RED*, LDGSTS
  ctrl   BRA, BSYNC, BSSY, EXIT, RET, CALL, BAR, WARPSYNC, YIELD, ...
  move   MOV, S2R, S2UR, CS2R, ULDC, U* (uniform datapath), SHFL
  other  the rest

The listing: `cuobjdump -sass OBJ` on the GPU machine (scripts/gpu_check.sh
sass), or `nvdisasm CUBIN` here (tools/sass_local.sh, no GPU needed).
"""
import argparse
import collections
import re
import sys

CLASSES = [
    ("fp64", re.compile(r"^(DFMA|DMUL|DADD|DSETP|DMNMX)$")),
    ("fma", re.compile(r"^(IMAD|IMUL|FFMA|FMUL|FADD|HFMA2|HMUL2|HADD2|IDP|IMMA)$")),
    ("mem", re.compile(r"^(LDG|STG|LDS|STS|LD|ST|LDL|STL|LDSM|ATOMG|ATOMS|ATOM|RED|REDG|LDGSTS|LDC|UBLKCP|UTMALDG)$")),
    ("alu", re.compile(r"^(IADD3|IADD|LOP3|LOP|SEL|ISETP|SHF|SHL|SHR|LEA|PRMT|IABS|IMNMX|FSEL|FSETP|PLOP3|P2R|R2P|"
                       r"FLO|POPC|BREV|SGXT|BMSK|VIADD|VIADDMNMX|IMNMX|I2F|F2I|FMNMX|FCHK)$")),
    ("ctrl", re.compile(r"^(BRA|BRX|BSYNC|BSSY|EXIT|RET|CALL|BAR|WARPSYNC|YIELD|NOP|BPT|JMP|JMX|MEMBAR|ERRBAR|"
                        r"DEPBAR|CCTL|BREAK|KILL|NANOSLEEP|ELECT|VOTE|VOTEU|MATCH|ACQBULK|ARRIVES|SYNCS)$")),
    ("move", re.compile(r"^(MOV|S2R|S2UR|CS2R|SHFL|R2UR|U[A-Z0-9]+)$")),
]
ORDER = ["fma", "fp64", "alu", "mem", "ctrl", "move", "other"]

FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)|^\.text\.(\S+):\s*$")  # cuobjdump | nvdisasm
INSN = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?);")


def klass(op):
    base = op.split(".")[0]
    for name, rx in CLASSES:
        if rx.match(base):
            return name
    return "other"


def parse(lines):
    """{function: Counter(opcode)} in file order."""
    funcs = collections.OrderedDict()
    cur = None
    for line in lines:
        m = FUNC.match(line)
        if m:
            cur = funcs.setdefault(m.group(1) or m.group(2), collections.Counter())
            continue
        if cur is None:
            continue
        m = INSN.match(line)
        if not m:
            continue
        text = m.group(1).strip()
        if text.startswith("@"):  # predicate guard
            text = text.split(None, 1)[1] if " " in text else ""
        if not text:
            continue
        cur[text.split()[0]] += 1
    return funcs


def report(funcs, pattern, top, out=sys.stdout):
    rx = re.compile(pattern) if pattern else None
    shown = 0
    for name, ops in funcs.items():
        if rx and not rx.search(name):
            continue
        total = sum(ops.values())
        if not total:
            continue
        shown += 1
        cls = collections.Counter()
        for op, n in ops.items():
            cls[klass(op)] += n
        print("%s: %d instructions" % (name, total), file=out)
        print("  " + "  ".join("%s %d (%.1f%%)" % (c, cls[c], 100.0 * cls[c] / total) for c in ORDER if cls[c]),
              file=out)
        print("  top: " + ", ".join("%s %d" % (op, n) for op, n in ops.most_common(top)), file=out)
    return shown


def main(argv):
    ap = argparse.ArgumentParser(prog="sass_mix", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("listing", help="cuobjdump -sass or nvdisasm output")
    ap.add_argument("regex", nargs="?", help="only the functions whose name matches")
    ap.add_argument("--top", type=int, default=12, help="opcodes listed per function (12)")
    args = ap.parse_args(argv[1:])  # bad arguments: exit 2
    try:
        with open(args.listing, errors="replace") as f:
            funcs = parse(f)
    except OSError as e:
        print("sass_mix: %s: %s" % (args.listing, e.strerror), file=sys.stderr)
        return 2
    if not funcs:
        print("sass_mix: %s: no 'Function :' sections (expected cuobjdump -sass output)" % args.listing, file=sys.stderr)
        return 3
    if not report(funcs, args.regex, args.top):
        print("sass_mix: no function matches", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
