#!/usr/bin/env python3
"""Writes a results folder's manifest.json (docs/formats.md, "Manifest"): `init` once per job, `add-run` after each run,
and `set-calibration` once a calibration job has written calib.json.

Every write goes to a temporary file that is then renamed, so a reader never sees half a manifest, and a
job killed midway leaves a manifest of the runs that finished.
"""
import argparse
import datetime
import json
import os
import shlex
import sys


def write_atomically(path, manifest):
    """Writes `manifest` to `path` through a temporary file in the same folder."""
    temporary = f"{path}.tmp.{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump(manifest, out, indent=2)
        out.write("\n")
    os.replace(temporary, path)


def init(args):
    """Starts a manifest with the job's identity and no runs."""
    manifest = {
        "format": 1,
        "scheduler": args.scheduler,
        "job_id": args.job_id,
        "nodes": args.nodes,
        "ranks_per_node": args.ranks_per_node,
        "git_commit": args.git_commit,
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    if args.link_rate or args.link_delay:
        manifest["link"] = {"rate": args.link_rate, "delay": args.link_delay}
    manifest["runs"] = []
    write_atomically(args.manifest, manifest)


def add_run(args):
    """Appends one run and its exit code."""
    with open(args.manifest, encoding="utf-8") as source:
        manifest = json.load(source)
    run = {
        "file": args.file,
        "command": shlex.join(args.command),
        "workers": args.workers,
        "servers": args.servers,
        "io": args.io,
        "exit_code": args.exit_code,
    }
    if args.repetition is not None:
        run["repetition"] = args.repetition
    manifest["runs"].append(run)
    write_atomically(args.manifest, manifest)


def set_calibration(args):
    """Records the calibration file, the benchmark files it was fitted from, and its command."""
    with open(args.manifest, encoding="utf-8") as source:
        manifest = json.load(source)
    manifest["calibration"] = {"file": args.file, "bench": args.bench, "command": shlex.join(args.command)}
    write_atomically(args.manifest, manifest)


def parse(argv):
    """The two subcommands and their flags."""
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(dest="action", required=True)
    start = commands.add_parser("init")
    start.add_argument("--manifest", required=True)
    start.add_argument("--scheduler", required=True, choices=["slurm", "pbs", "mpirun", "rack"])
    start.add_argument("--job-id", required=True)
    start.add_argument("--nodes", required=True, nargs="+")
    start.add_argument("--ranks-per-node", required=True, type=int)
    start.add_argument("--git-commit", required=True)
    start.add_argument("--link-rate", default="")
    start.add_argument("--link-delay", default="")
    run = commands.add_parser("add-run")
    run.add_argument("--manifest", required=True)
    run.add_argument("--file", required=True)
    run.add_argument("--workers", required=True, type=int)
    run.add_argument("--servers", required=True, type=int)
    run.add_argument("--io", required=True, choices=["sequential", "parallel"])
    run.add_argument("--repetition", type=int)
    run.add_argument("--exit-code", required=True, type=int)
    run.add_argument("command", nargs=argparse.REMAINDER, help="after --: the run's command line, word by word")
    calibration = commands.add_parser("set-calibration")
    calibration.add_argument("--manifest", required=True)
    calibration.add_argument("--file", required=True)
    calibration.add_argument("--bench", required=True, nargs="+")
    calibration.add_argument("command", nargs=argparse.REMAINDER, help="after --: calibrate's command line")
    return parser.parse_args(argv)


def main(argv):
    """Runs the subcommand."""
    args = parse(argv)
    if args.action == "init":
        init(args)
        return
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if args.action == "set-calibration":
        set_calibration(args)
        return
    add_run(args)


if __name__ == "__main__":
    main(sys.argv[1:])
