#!/usr/bin/env python3
"""check_docs.py itself: on fixtures/good it finds nothing and exits 0; on fixtures/bad it names every planted
fault (a missing page, a missing anchor, missing images, bogus commands under "Reproduce") with its line, and
exits 1. The psbench binary whose --help lists the subcommands comes in the environment variable PSBENCH."""

import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_docs.py")

EXPECTED_BAD = """\
README.md:3: link 'docs/missing.md' names no file of the repository (docs/missing.md)
README.md:3: link 'docs/guide.md#no-such-heading': docs/guide.md has no heading or anchor '#no-such-heading'
README.md:4: link 'docs/lost.png' names no file of the repository (docs/lost.png)
README.md:4: link '#nowhere': README.md has no heading or anchor '#nowhere'
README.md:4: link 'docs/gone.svg' names no file of the repository (docs/gone.svg)
README.md:10: 'tools/nope.sh' names no file of the repository
README.md:11: 'psbench frobnicate' is not a subcommand (psbench --help lists: ...)
README.md:12: 'psbench model fit' is not a subcommand (psbench model --help lists: ...)
README.md:13: 'tools/absent.py' is not a script of the repository (python3 runs it)
README.md:14: 'frobnicate' is neither a file of the repository, psbench, nor a known system command
README.md:15: 'ctest --preset nope': CMakePresets.json has no such entry in testPresets (default)
"""


def check(fixture):
    return subprocess.run([sys.executable, CHECKER, "--psbench", os.environ["PSBENCH"],
                           os.path.join(HERE, "fixtures", fixture)], capture_output=True, text=True, timeout=60)


class CheckDocsTest(unittest.TestCase):
    def test_good_docs_pass(self):
        done = check("good")
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, "", ""))

    def test_broken_links_and_commands_fail(self):
        done = check("bad")
        self.assertEqual(done.returncode, 1, done.stderr)
        # The lists of subcommands are psbench's own: whatever it lists, the message names them.
        self.assertRegex(done.stdout, r"psbench --help lists: [a-z, ]*\btrain\b")
        self.assertEqual(re.sub(r"(--help lists: )[^)]*", r"\1...", done.stdout), EXPECTED_BAD)


if __name__ == "__main__":
    unittest.main()
