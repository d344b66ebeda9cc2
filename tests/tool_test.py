"""The helpers of the tests of tools/*.py (test_goal_table, test_sass_mix):
a tally of checks and a run of the tool under test."""
import os
import subprocess
import sys


class ToolTest:
    def __init__(self, name, tool):
        self.name = name
        self.tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", tool)
        self.passed = self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s" % what)

    def run(self, *args):
        """(exit code, stdout, stderr) of the tool with args."""
        p = subprocess.run([sys.executable, self.tool] + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def done(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        sys.exit(1 if self.failed else 0)
