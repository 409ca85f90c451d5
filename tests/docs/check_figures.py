#!/usr/bin/env python3
"""Checks every figure the pages quote from the published data against that data.

Usage: check_figures.py (--psbench PSBENCH | --facts FACTS.json) [ROOT]   (ROOT defaults to the current directory)

1. A quoted figure is marked in the page: <!--fact:NAME-->TEXT<!--/fact-->. NAME is a figure of the published
   data (docs/results), as `python3 -m psbench_report.facts` computes it from docs/results/raw and calib.json with
   the report's own code (with --psbench), or as FACTS.json gives it (--facts, for the test fixtures). TEXT must
   equal it.
2. A command's output shown in a page is marked on the line before its fenced block: <!--output:COMMAND-->.
   With --psbench, COMMAND (its `psbench` is PSBENCH) runs in ROOT and the block must equal what it prints.
The pages are README.md and docs/**/*.md. One line per problem, FILE:LINE: what is wrong, naming the page and the
figure; exit status 1 if there is any, 0 if none, 2 on bad usage.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys

FACT = re.compile(r"<!--fact:([A-Za-z0-9_.\-]+)-->(.*?)<!--/fact-->")
OUTPUT = re.compile(r"^\s*<!--output:(.*)-->\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")


def pages(root: str) -> list:
    found = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
    docs = os.path.join(root, "docs")
    for directory, _, names in os.walk(docs):
        found += sorted(os.path.relpath(os.path.join(directory, n), root) for n in names if n.endswith(".md"))
    return found


def published_facts(root: str, psbench: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "src", "report"))
    done = subprocess.run([sys.executable, "-m", "psbench_report.facts", os.path.join(root, "docs", "results"),
                           "--psbench", psbench], capture_output=True, text=True, env=env, cwd=root, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"check_figures: the published data's figures could not be computed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def fenced_block(lines: list, start: int):
    """(first line number, text) of the fenced block whose fence is at lines[start], or None."""
    match = FENCE.match(lines[start]) if start < len(lines) else None
    if not match:
        return None
    fence = match.group(1)
    for end in range(start + 1, len(lines)):
        if lines[end].strip().startswith(fence[0] * len(fence)) and not lines[end].strip().strip(fence[0]):
            return start + 2, "\n".join(lines[start + 1:end])
    return None


def check_output(root, page, number, command, block, psbench, problems) -> None:
    where = f"{page}:{number}"
    if block is None:
        problems.append(f"{where}: the output of `{command}` is marked but no fenced block follows")
        return
    if psbench is None:
        return
    words = [psbench if w == "psbench" else w for w in shlex.split(command)]
    done = subprocess.run(words, capture_output=True, text=True, cwd=root, timeout=600)
    if done.returncode != 0:
        problems.append(f"{where}: `{command}` failed (exit {done.returncode}): {done.stderr.strip()[:200]}")
        return
    shown, printed = block[1].rstrip("\n").splitlines(), done.stdout.rstrip("\n").splitlines()
    for index, (a, b) in enumerate(zip(shown, printed)):
        if a.rstrip() != b.rstrip():
            problems.append(f"{page}:{block[0] + index}: the output of `{command}` shown in {page} reads '{a.strip()}'"
                            f"; the command prints '{b.strip()}' against the published data")
            return
    if len(shown) != len(printed):
        problems.append(f"{where}: the output of `{command}` shown in {page} has {len(shown)} lines; the command "
                        f"prints {len(printed)}")


def check(root: str, facts: dict, psbench) -> list:
    problems = []
    for page in pages(root):
        with open(os.path.join(root, page), encoding="utf-8") as f:
            lines = f.read().splitlines()
        fence = None
        for index, line in enumerate(lines):
            opening = FENCE.match(line)
            if opening and (fence is None or opening.group(1)[0] == fence[0]):
                fence = opening.group(1) if fence is None else None
                continue
            if fence is not None:
                continue  # a marker shown inside a code block is an example, not a quoted figure
            for name, text in FACT.findall(INLINE_CODE.sub("", line)):
                if name not in facts:
                    problems.append(f"{page}:{index + 1}: figure '{name}' is no figure of the published data")
                elif text.strip() != facts[name]:
                    problems.append(f"{page}:{index + 1}: figure '{name}' reads '{text.strip()}' in {page}; the "
                                    f"published data give '{facts[name]}'")
            match = OUTPUT.match(line)
            if match:
                check_output(root, page, index + 1, match.group(1).strip(), fenced_block(lines, index + 1), psbench,
                             problems)
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", default=".")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--psbench", help="the psbench binary: compute the figures from ROOT/docs/results")
    source.add_argument("--facts", help="a JSON file of the figures (the test fixtures)")
    options = parser.parse_args()
    root = os.path.abspath(options.root)
    if options.facts:
        with open(options.facts, encoding="utf-8") as f:
            facts = json.load(f)
    else:
        facts = published_facts(root, os.path.abspath(options.psbench))
    problems = check(root, facts, os.path.abspath(options.psbench) if options.psbench else None)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
