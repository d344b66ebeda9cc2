#!/usr/bin/env python3
"""ctest test_goal_table: tools/goal_table.py on the recorded H200 logs of
tests/goal_table/: the figures it reads, its exit codes for a log that lost a
row and for bad arguments, and its -o file."""
import os
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from tool_test import ToolTest  # noqa: E402

logs = os.path.join(here, "goal_table")
t = ToolTest("test_goal_table", "goal_table.py")
check, run = t.check, t.run

rc, out, err = run("--old", os.path.join(logs, "old"), "--new", os.path.join(logs, "new"))
check(rc == 0, "old + new: exit 0 (got %d: %s)" % (rc, err))
for row in [
        "| MSM BLS12-381 G1 2^24, bases resident | 182.48 ms | 178.72 ms | 0.979 | <= 100.00 ms | sppark 157.8 ms | no |",
        "| MSM BN254 G1 2^24, bases resident | 98.55 ms | 92.03 ms | 0.934 |",
        "| MSM BLS12-381 G1 2^26, bases resident | not run | not run |",
        "| MSM BN254 G2 2^22, bases resident | 82.05 ms | 79.25 ms | 0.966 | <= 50.00 ms |",
        "| H step 2^24 on device, BLS12-381 | 40.07 ms | 35.89 ms | 0.896 |",
        "| forward NTT 2^24, device-resident, BLS12-381 | 7.08 ms | 6.31 ms | 0.892 | <= 4.00 ms | sppark 4.73 ms | no |",
        "| dense BLS12-381 2^24 in the engine stream, after the 1st job | not run | not run |",
        "| 2^22 filecoin BLS12-381 stream, after the 1st job | 394.3 /min | 382.3 /min | 0.970 | >= 700.0 /min |"]:
    check(row in out, "row %r in:\n%s" % (row, out))

with tempfile.TemporaryDirectory() as tmp:
    # new only, written with -o
    dst = os.path.join(tmp, "goals.md")
    rc, out, err = run("--new", os.path.join(logs, "new"), "-o", dst)
    check(rc == 0, "new only: exit 0")
    check(os.path.exists(dst) and open(dst).read() == out, "-o writes what it prints")
    check("|  | 178.72 ms |  |" in out, "new only: the old column is empty")
    # a log that lost a row: exit 1, the figure named
    broken = os.path.join(tmp, "broken")
    shutil.copytree(os.path.join(logs, "new"), broken)
    msm = os.path.join(broken, "msm.txt")
    kept = [l for l in open(msm) if not l.startswith("| BN254 G1     | 2^24 | resident  ")]
    open(msm, "w").writelines(kept)
    rc, out, err = run("--new", broken)
    check(rc == 1 and "msm_bn_g1_24" in err, "a lost row: exit 1 naming it (got %d: %s)" % (rc, err))
    check("| MSM BN254 G1 2^24, bases resident |  | not run |" in out, "a lost row reads 'not run'")
    # a reached goal says yes
    eng = os.path.join(broken, "engine-22-filecoin.txt")
    open(eng, "w").write("throughput: 800.0 proofs/min overall (1 s), 812.5 proofs/min after the first job\n")
    rc, out, err = run("--new", broken)
    check("| 812.5 /min |  | >= 700.0 /min |  | yes |" in out, "a reached goal: yes")

# usage errors
rc, _, err = run()
check(rc == 2 and "--new" in err, "no --new: exit 2")
rc, _, err = run("--new", "/nonexistent/dir")
check(rc == 2, "a missing directory: exit 2")
rc, _, err = run("--new", logs, "--bogus")
check(rc == 2 and "--bogus" in err, "an unknown argument: exit 2")
rc, out, _ = run("--help")
check(rc == 0 and "--old" in out and "msm.txt" in out, "--help describes the arguments and the logs")

t.done()
