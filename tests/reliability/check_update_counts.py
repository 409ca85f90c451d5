#!/usr/bin/env python3
"""Checks a `psbench train` async results file: every server applied exactly one update per worker step
(the sum of the workers' steps), every worker pushed once per step per server, and the staleness
histogram of each server counts every update. Usage: check_update_counts.py RESULTS.json SERVERS WORKERS"""
import json
import sys


def main() -> int:
    path, servers, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, encoding="utf-8") as file:
        results = json.load(file)
    ranks = results["per_rank"]
    server_entries = [r for r in ranks if r["role"] == "server"]
    worker_entries = [r for r in ranks if r["role"] == "worker"]
    problems = []
    if len(server_entries) != servers or len(worker_entries) != workers:
        problems.append(f"{len(server_entries)} servers and {len(worker_entries)} workers, "
                        f"expected {servers} and {workers}")
    steps = sum(r["worker"]["steps"] for r in worker_entries)
    for r in worker_entries:
        if r["worker"]["pushes"] != r["worker"]["steps"] * servers:
            problems.append(f"rank {r['rank']}: {r['worker']['pushes']} pushes for {r['worker']['steps']} steps")
    for r in server_entries:
        updates = r["server"]["updates"]
        histogram = sum(r["server"]["staleness"]["hist"])
        if updates != steps or histogram != updates:
            problems.append(f"rank {r['rank']}: {updates} updates ({histogram} in the staleness histogram), "
                            f"expected {steps} (the workers' steps)")
    for problem in problems:
        print("check_update_counts:", problem)
    if not problems:
        print(f"check_update_counts: {servers} server(s) x {steps} updates = the {workers} workers' steps")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
