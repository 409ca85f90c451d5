#!/usr/bin/env python3
"""Summarises rack sweeps (jobs/rack/sweep.sh) as the markdown table of docs/rack.md.

Usage: jobs/rack/summarize.py SWEEP_DIR... (each holding manifest.json, rack.json and its results files; sweeps of the
same link, servers and worker count are repetitions: the table lists every run's samples/s and the medians).
"""
import json
import os
import statistics
import sys


def run_figures(path):
    """The figures of one results file that the table shows."""
    run = json.load(open(path))
    servers = [r for r in run["per_rank"] if r["role"] == "server"]
    workers = [r for r in run["per_rank"] if r["role"] == "worker"]
    steps = sum(w["worker"]["steps"] for w in workers)
    return {
        "samples_per_s": run["train"]["samples_per_s"],
        "updates_per_s": steps / run["train"]["training_s"],
        "utilization": run["server"]["utilization"],
        "service_ms": statistics.mean(s["server"]["service_s"] / s["server"]["updates"] for s in servers) * 1e3,
        "exchange_ms": sum(w["phases"]["push"] + w["phases"]["pull"] for w in workers) / steps * 1e3,
        "compute_ms": sum(w["phases"]["compute"] for w in workers) / steps * 1e3,
    }


def collect(sweeps):
    """Runs grouped by (servers, server link, worker link, workers)."""
    groups = {}
    for sweep in sweeps:
        manifest = json.load(open(os.path.join(sweep, "manifest.json")))
        link = dict(manifest["link"])
        made = os.path.join(sweep, "rack.json")  # the rack as made: its servers' rate
        if os.path.exists(made):
            link["server_rate"] = json.load(open(made))["server_rate"]
        for entry in manifest["runs"]:
            if entry["exit_code"] != 0:
                print(f"skipped {sweep}/{entry['file']}: exit code {entry['exit_code']}", file=sys.stderr)
                continue
            key = (entry["servers"], link.get("server_rate", link["rate"]), link["rate"], entry["workers"])
            groups.setdefault(key, []).append(run_figures(os.path.join(sweep, entry["file"])))
    return groups


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: summarize.py SWEEP_DIR...")
    print("| servers | server link | worker links | workers | samples/s (each run) | median | updates/s | "
          "server utilisation | service per update (ms) | push + pull per step (ms) | compute per step (ms) |")
    print("| --- " * 11 + "|")
    for (servers, server_rate, rate, workers), runs in sorted(collect(sys.argv[1:]).items()):
        median = lambda key: statistics.median(r[key] for r in runs)
        each = " ".join(f"{r['samples_per_s']:.1f}" for r in runs)
        print(f"| {servers} | {server_rate} | {rate} | {workers} | {each} | {median('samples_per_s'):.1f} | "
              f"{median('updates_per_s'):.2f} | {median('utilization'):.3f} | {median('service_ms'):.1f} | "
              f"{median('exchange_ms'):.1f} | {median('compute_ms'):.1f} |")


if __name__ == "__main__":
    main()
