#!/usr/bin/env python3
"""ctest test_sass_mix: tools/sass_mix.py on a small hand-written
`cuobjdump -sass` listing (tests/sass_mix/sample.sass): its counts per
function and pipe class, the name filter, and its exit codes."""
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from tool_test import ToolTest  # noqa: E402

sample = os.path.join(here, "sass_mix", "sample.sass")
t = ToolTest("test_sass_mix", "sass_mix.py")
check, run = t.check, t.run

rc, out, err = run(sample)
check(rc == 0, "exit 0 on the sample (%d: %s)" % (rc, err))
lines = out.splitlines()
# k_pass: 11 instructions; the predicated SEL counts as SEL
check("_ZN6cz_dev3ntt6k_passEv: 11 instructions" in out, "k_pass total: " + out)
check("fma 2 (18.2%)" in out, "two multiply-adds (IMAD.WIDE, IMAD.HI.X): " + out)
check("fp64 1 (9.1%)" in out, "one DFMA")
check("alu 2 (18.2%)" in out, "IADD3.X and the guarded SEL")
check("mem 2 (18.2%)" in out, "LDC and LDS")
check("ctrl 3 (27.3%)" in out, "BAR, EXIT, BRA")
check("move 1 (9.1%)" in out, "S2R")
check("SEL 1" in out, "the guard '@!P1' is not taken for the opcode")
# k_level0: IMAD.MOV is a move in spirit but issues as IMAD (fma)
check("_ZN6cz_dev3msm7k_level0Ev: 2 instructions" in out, "k_level0 total")
# the filter
rc, out, _ = run(sample, "level0")
check(rc == 0 and "k_level0" in out and "k_pass" not in out, "filter 'level0': " + out)
rc, out, _ = run(sample, "level0", "--top=1")
check(rc == 0 and out.count("top: ") == 1 and "," not in out.split("top: ")[1], "--top=1: " + out)
# exit codes: no match 1, unreadable 2, not a listing 3
rc, _, err = run(sample, "nothing_like_this")
check(rc == 1 and "no function matches" in err, "no match: exit 1")
rc, _, err = run(os.path.join(here, "sass_mix", "missing.sass"))
check(rc == 2 and "missing.sass" in err, "missing file: exit 2 naming it")
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write("not a listing\n")
rc, _, err = run(f.name)
os.unlink(f.name)
check(rc == 3 and "expected cuobjdump -sass output" in err, "not a listing: exit 3")
rc, out, _ = run("--help")
check(rc == 0 and "usage:" in out, "--help")
t.done()
