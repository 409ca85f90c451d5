#!/usr/bin/env python3
"""Summarises rack runs of CNTK's learners (jobs/rack/learners.sh) as the markdown table of docs/rack.md: per
learner, every run's training time, the median, samples/s, the bytes the first worker sent per step and the
exchange's share of its step, and with --calib the model's predicted training time beside the median.

Usage: jobs/rack/summarize_learners.py [--calib CALIB --psbench PSBENCH] DIR... (each holding manifest.json,
rack.json and its results files; runs of the same learner are repetitions).
"""
import argparse
import json
import os
import statistics
import sys

#: The learners in the table's order.
ORDER = ("sync", "sync1bit", "async", "async1bit", "bmuf", "average")


def learner_of(config):
    """The learner's name from a results file's config."""
    onebit = config.get("compress") == "onebit"
    if config["mode"] in ("sync", "async"):
        return config["mode"] + ("1bit" if onebit else "")
    return config["mode"]


def run_figures(path):
    """The figures of one results file that the table shows."""
    run = json.load(open(path))
    first = next(r for r in run["per_rank"] if r["role"] == "worker")
    steps = first["worker"]["steps"]
    exchange = sum(first["phases"].get(k, 0.0) for k in ("push", "pull", "compress"))
    return {"learner": learner_of(run["config"]), "training_s": run["train"]["training_s"],
            "samples_per_s": run["train"]["samples_per_s"],
            "bytes_per_step": first["worker"]["exchange"]["bytes_sent"] / steps,
            "exchange_share": exchange / max(1e-12, sum(first["phases"].get(k, 0.0) for k in
                                                        ("compute", "push", "pull", "compress", "server_update")))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    groups = {}
    for folder in args.dirs:
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        nodes, rate = len(manifest["nodes"]), manifest["link"]["rate"]
        for entry in manifest["runs"]:
            if entry["exit_code"] != 0:
                print(f"skipped {folder}/{entry['file']}: exit code {entry['exit_code']}", file=sys.stderr)
                continue
            figures = run_figures(os.path.join(folder, entry["file"]))
            groups.setdefault(figures["learner"], []).append((figures, nodes, rate))
    print("| learner | link | training s (each run) | median | samples/s | bytes sent per step | exchange share |")
    print("| --- " * 7 + "|")
    for learner in [name for name in ORDER if name in groups]:
        runs = groups[learner]
        median = lambda key: statistics.median(f[key] for f, _, _ in runs)
        each = " ".join(f"{f['training_s']:.2f}" for f, _, _ in runs)
        print(f"| {learner} | {runs[0][2]} | {each} | {median('training_s'):.2f} | {median('samples_per_s'):.0f} | "
              f"{median('bytes_per_step'):,.0f} | {median('exchange_share'):.2f} |")


if __name__ == "__main__":
    main()
