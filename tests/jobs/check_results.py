#!/usr/bin/env python3
"""Checks a job's results folder: manifest.json as docs/formats.md ("Manifest") fixes it, and every results file it lists.

Usage: check_results.py DIR --scheduler S --job-id ID --nodes N [N...] --ranks-per-node R
                        --git-commit C --launch PREFIX --run W:S:IO [--run ...] [--placed]
Each --run names one expected run (workers, servers, I/O mode, and optionally the repetition: W:S:IO:R), in the
order the job ran them.
--placed also checks where the ranks ran (env.ranks_per_host): with several nodes, the servers alone
on the first and the workers filling the others, ranks_per_node slots each, in order.
Prints nothing and exits 0 when everything holds; otherwise prints the first mismatch and exits 1.
"""
import argparse
import datetime
import json
import os
import sys


def fail(message):
    """Reports one mismatch, prefixed with the checking script's name, and stops."""
    print(f"{os.path.basename(sys.argv[0]).removesuffix('.py')}: {message}")
    sys.exit(1)


def expect(condition, message):
    """Fails with `message` unless `condition` holds."""
    if not condition:
        fail(message)


def check_manifest(manifest, args):
    """The job-level keys."""
    expect(manifest.get("format") == 1, f"format {manifest.get('format')!r}, not 1")
    for key, wanted in (("scheduler", args.scheduler), ("job_id", args.job_id), ("nodes", args.nodes),
                        ("ranks_per_node", args.ranks_per_node), ("git_commit", args.git_commit)):
        expect(manifest.get(key) == wanted, f"manifest {key} is {manifest.get(key)!r}, not {wanted!r}")
    started = datetime.datetime.fromisoformat(manifest["started"])
    age = datetime.datetime.now(datetime.timezone.utc) - started
    expect(datetime.timedelta(0) <= age < datetime.timedelta(minutes=10), f"started {started} is not recent")
    expect("link" not in manifest, "a link entry outside a rack")
    expect(len(manifest["runs"]) == len(args.run), f"{len(manifest['runs'])} runs, not {len(args.run)}")


def expected_placement(nodes, slots, workers, servers):
    """Ranks per host that the servers-on-their-own-node layout gives."""
    if len(nodes) == 1:
        return {nodes[0]: workers + servers}
    placement = {nodes[0]: servers}
    for node in nodes[1:]:
        here = min(slots, workers)
        if here > 0:
            placement[node] = here
        workers -= here
    return placement


def check_run(folder, run, expected, launch):
    """One run: its manifest entry and its results file."""
    workers, servers, io, *repetition = expected.split(":")
    workers, servers = int(workers), int(servers)
    suffix = f"-r{repetition[0]}" if repetition else ""
    name = f"w{workers}-s{servers}-{io}{suffix}.json"
    wanted_keys = [("file", name), ("workers", workers), ("servers", servers), ("io", io), ("exit_code", 0)]
    if repetition:
        wanted_keys.append(("repetition", int(repetition[0])))
    for key, wanted in wanted_keys:
        expect(run.get(key) == wanted, f"run {name}: {key} is {run.get(key)!r}, not {wanted!r}")
    ranks = workers + servers
    expect(run["command"].startswith(launch.replace("RANKS", str(ranks))),
           f"run {name}: command '{run['command']}' does not start with '{launch}'")
    expect(f"--out {os.path.join(folder, name)}" in run["command"], f"run {name}: command writes elsewhere")
    path = os.path.join(folder, name)
    expect(os.path.isfile(path), f"no results file {path}")
    with open(path, encoding="utf-8") as source:
        results = json.load(source)
    expect(results["config"]["io"] == io, f"{name}: config.io {results['config']['io']}")
    expect(results["env"]["ranks"] == ranks, f"{name}: env.ranks {results['env']['ranks']}, not {ranks}")
    expect(results["env"]["servers"] == servers, f"{name}: env.servers {results['env']['servers']}")
    expect(results["env"]["workers"] == workers, f"{name}: env.workers {results['env']['workers']}")
    expect(results["train"]["steps"] > 0, f"{name}: no training steps")
    expect(results["server"]["updates"] > 0, f"{name}: the servers applied no update")
    return results, workers, servers


def main():
    """Parses the expectations and checks them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder")
    parser.add_argument("--scheduler", required=True)
    parser.add_argument("--job-id", required=True)
    parser.add_argument("--nodes", required=True, nargs="+")
    parser.add_argument("--ranks-per-node", required=True, type=int)
    parser.add_argument("--git-commit", required=True)
    parser.add_argument("--launch", required=True, help="command prefix; RANKS stands for the rank count")
    parser.add_argument("--run", required=True, action="append")
    parser.add_argument("--placed", action="store_true")
    args = parser.parse_args()
    path = os.path.join(args.folder, "manifest.json")
    expect(os.path.isfile(path), f"no manifest {path}")
    with open(path, encoding="utf-8") as source:
        manifest = json.load(source)
    check_manifest(manifest, args)
    for run, expected in zip(manifest["runs"], args.run):
        results, workers, servers = check_run(args.folder, run, expected, args.launch)
        if args.placed:
            wanted = expected_placement(args.nodes, args.ranks_per_node, workers, servers)
            placed = results["env"]["ranks_per_host"]
            expect(placed == wanted, f"{run['file']}: ranks per host {placed}, not {wanted}")


if __name__ == "__main__":
    main()
