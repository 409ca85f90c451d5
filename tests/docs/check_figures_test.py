#!/usr/bin/env python3
"""check_figures.py itself: on fixtures/figures_good every quoted figure equals the data's and it exits 0; on
fixtures/figures_bad (a deliberately wrong figure, a name the data do not have, an output marker with no block)
it names each page, line and figure, and exits 1."""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_figures.py")

EXPECTED_BAD = """\
README.md:3: figure 'validate.mva.total' reads '3.1%' in README.md; the published data give '6.7%-7.8%'
docs/page.md:5: figure 'sweep.runz' is no figure of the published data
docs/page.md:7: the output of `psbench model predict --workers 4` is marked but no fenced block follows
"""


def check(fixture):
    root = os.path.join(HERE, "fixtures", fixture)
    return subprocess.run([sys.executable, CHECKER, "--facts", os.path.join(root, "facts.json"), root],
                          capture_output=True, text=True, timeout=60)


class CheckFiguresTest(unittest.TestCase):
    def test_figures_that_match_pass(self):
        done = check("figures_good")
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, "", ""))

    def test_a_wrong_figure_fails_naming_page_and_figure(self):
        done = check("figures_bad")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(done.stdout, EXPECTED_BAD)


if __name__ == "__main__":
    unittest.main()
