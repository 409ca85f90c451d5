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
import subprocess
import sys

#: The learners in the table's order, and their flags as psbench model predict takes them.
PREDICT_FLAGS = {"sync": ["--mode", "sync"], "sync1bit": ["--mode", "sync", "--compress", "onebit"],
                 "async": ["--mode", "async", "--servers", "1"],
                 "async1bit": ["--mode", "async", "--compress", "onebit", "--servers", "1"],
                 "bmuf": ["--mode", "bmuf"], "average": ["--mode", "average"]}


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
    return {"config": run["config"], "workers": sum(1 for r in run["per_rank"] if r["role"] == "worker"),
            "samples": run["train"]["total_samples"] // run["config"]["epochs"], "learner": learner_of(run["config"]),
            "training_s": run["train"]["training_s"],
            "samples_per_s": run["train"]["samples_per_s"],
            "bytes_per_step": first["worker"]["exchange"]["bytes_sent"] / steps,
            "exchange_share": exchange / max(1e-12, sum(first["phases"].get(k, 0.0) for k in
                                                        ("compute", "push", "pull", "compress", "server_update")))}


def gbit(rate):
    """A tc rate such as 1gbit or 100mbit in Gbit/s."""
    for suffix, scale in (("gbit", 1.0), ("mbit", 1e-3), ("kbit", 1e-6)):
        if rate.endswith(suffix):
            return float(rate[:-len(suffix)]) * scale
    sys.exit(f"summarize_learners: error: link rate '{rate}' is not N gbit, mbit or kbit")


def predicted_training_s(args, figures, nodes, rate):
    """psbench model predict's mva training time (its compute phase) for one run's learner on the rack."""
    config = figures["config"]
    argv = [args.psbench, "model", "predict", "--calib", args.calib, "--model", config["model"],
            "--batch", str(config["batch"]), "--epochs", str(config["epochs"]), "--samples", str(figures["samples"]),
            "--platform", f"rack:{nodes}:{gbit(rate):g}", "--ranks-per-node", "1",
            "--workers", str(figures["workers"]), "--kind", "mva", "--format", "json",
            *PREDICT_FLAGS[figures["learner"]]]
    if config.get("block_samples"):
        argv += ["--block-samples", str(config["block_samples"])]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"summarize_learners: error: {' '.join(argv)}: {done.stderr.strip()}")
    return json.loads(done.stdout)["predictions"][0]["compute_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--calib", help="calib.json for psbench model predict (adds the predicted columns)")
    parser.add_argument("--psbench", default="psbench", help="the psbench binary that predicts")
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
    head = "| learner | link | training s (each run) | median | samples/s | bytes sent per step | exchange share |"
    print(head + (" predicted training s (mva) | measured / sync | predicted / sync |" if args.calib else ""))
    print("| --- " * (10 if args.calib else 7) + "|")
    rows = []
    for learner in [name for name in PREDICT_FLAGS if name in groups]:
        runs = groups[learner]
        median = lambda key: statistics.median(f[key] for f, _, _ in runs)
        predicted = predicted_training_s(args, *runs[0]) if args.calib else None
        rows.append((learner, runs, median("training_s"), predicted))
    sync = next(((m, p) for learner, _, m, p in rows if learner == "sync"), None)
    for learner, runs, measured, predicted in rows:
        median = lambda key: statistics.median(f[key] for f, _, _ in runs)
        each = " ".join(f"{f['training_s']:.2f}" for f, _, _ in runs)
        line = (f"| {learner} | {runs[0][2]} | {each} | {measured:.2f} | {median('samples_per_s'):.0f} | "
                f"{median('bytes_per_step'):,.0f} | {median('exchange_share'):.2f} |")
        if args.calib:
            ratios = f" {measured / sync[0]:.3f} | {predicted / sync[1]:.3f} |" if sync else " n/a | n/a |"
            line += f" {predicted:.2f} |" + ratios
        print(line)

if __name__ == "__main__":
    main()
