#!/usr/bin/env python3
"""Measures what one straggler (--straggler rank=1,factor=F) costs async and sync training, for
docs/reliability.md: samples/s and staleness with 2 and 3 workers (async: 1 server + W workers, sync: W
workers), F = 1 (baseline), 2 and 4, and how long the other workers take for their epochs (their own
partitions: in async mode they do not wait for the straggler's steps, in sync mode every step waits).
Runs are interleaved (every configuration once per round, ROUNDS rounds) so that load from other
processes falls on all of them alike; the table gives medians and each configuration's ratio to its own
F = 1 baseline.

  straggler_figures.py PSBENCH DATA [ROUNDS]   (prints a markdown table)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

FACTORS = (1, 2, 4)
WORKERS = (2, 3)
MODES = ("async", "sync")
TRAIN = ["--model", "mlp:256", "--batch", "64", "--epochs", "2", "--lr", "0.01", "--momentum", "0.5", "--quiet"]


def run_once(psbench, data, mode, workers, factor, out):
    ranks = workers + 1 if mode == "async" else workers
    command = ["mpirun", "-np", str(ranks), "--oversubscribe", psbench, "train", "--data", data, "--mode", mode,
               "--out", out] + TRAIN
    if factor != 1:
        command += ["--straggler", f"rank=1,factor={factor}"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    with open(out) as stream:
        results = json.load(stream)
    staleness = results["server"]["staleness"]
    # The other workers' training time: from the first epoch's start to the last epoch's end, the slowest of them.
    others = [entry["worker"]["epochs"] for entry in results["per_rank"] if "worker" in entry and entry["rank"] != 1]
    others_s = max(epochs[-1]["finished_at"] - epochs[0]["started_at"] for epochs in others)
    return results["train"]["samples_per_s"], staleness["mean"], staleness["max"], others_s


def main():
    psbench, data = sys.argv[1:3]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    figures = {}
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "r.json")
        for _ in range(rounds):
            for mode in MODES:
                for workers in WORKERS:
                    for factor in FACTORS:
                        figures.setdefault((mode, workers, factor), []).append(
                            run_once(psbench, data, mode, workers, factor, out))
    print("| mode | ranks | F | samples/s: median (each run) | vs F = 1 | other workers' s | vs F = 1 "
          "| staleness mean | staleness max |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mode in MODES:
        for workers in WORKERS:
            base = figures[(mode, workers, 1)]
            base_rate = statistics.median(r[0] for r in base)
            base_others = statistics.median(r[3] for r in base)
            for factor in FACTORS:
                runs = figures[(mode, workers, factor)]
                rate = statistics.median(r[0] for r in runs)
                others = statistics.median(r[3] for r in runs)
                mean = statistics.median(r[1] for r in runs)
                worst = max(r[2] for r in runs)
                ranks = f"1 + {workers}" if mode == "async" else f"{workers}"
                spread = ", ".join(f"{r[0]:.0f}" for r in runs)
                print(f"| {mode} | {ranks} | {factor} | {rate:.0f} ({spread}) | {rate / base_rate:.2f} "
                      f"| {others:.2f} | {others / base_others:.2f} | {mean:.2f} | {worst} |")


if __name__ == "__main__":
    main()
