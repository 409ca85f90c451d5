#!/usr/bin/env python3
"""Checks a calibration job's folder beyond its runs (check_results.py checks those): the manifest's
`calibration` entry, the benchmark files it names, and a calib.json that `psbench model validate` and
`psbench model predict` accept, with figures that agree with the runs it was fitted from.

Usage: check_calibration.py DIR PSBENCH --samples N --input C,H,W --classes K --model SPEC --batch B
Prints nothing and exits 0 when everything holds; otherwise prints the first mismatch and exits 1.
"""
import argparse
import json
import math
import os
import statistics
import subprocess

from check_results import expect

CALIBRATE_BENCH = ("nn", "push_pull", "server_update", "data_io", "server_saturation")
# The benchmarks with a file per launch (the set-up per W, the shared steps per k and repetition), each present.
PER_LAUNCH_BENCH = ("train_setup-w", "shared_steps-k")
# Further files per launch that calibrate reads where run_all.sh made them (reads into fresh pages).
OPTIONAL_BENCH = ("data_io_fresh-",)


def read_json(path):
    """One JSON file."""
    with open(path, encoding="utf-8") as source:
        return json.load(source)


def psbench_json(psbench, arguments):
    """Runs `psbench ARGUMENTS --format json` and returns its parsed output; fails on a non-zero exit."""
    done = subprocess.run([psbench, *arguments, "--format", "json"], capture_output=True, text=True, check=False)
    expect(done.returncode == 0, f"psbench {' '.join(arguments)} exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def check_entry(folder, manifest):
    """The manifest's calibration entry and the files it names."""
    entry = manifest.get("calibration")
    expect(isinstance(entry, dict), "the manifest has no calibration entry")
    expect(entry["file"] == "calib.json", f"calibration file {entry['file']!r}, not 'calib.json'")
    names = [os.path.basename(path).removesuffix(".json") for path in entry["bench"]]
    core = [name for name in names if not name.startswith(PER_LAUNCH_BENCH + OPTIONAL_BENCH)]
    expect(sorted(core) == sorted(CALIBRATE_BENCH), f"benchmark files {entry['bench']}, not one of each {CALIBRATE_BENCH}")
    for prefix in PER_LAUNCH_BENCH:
        expect(any(name.startswith(prefix) for name in names), f"no {prefix}* benchmark file in {entry['bench']}")
    for path in entry["bench"]:
        expect(os.path.getsize(os.path.join(folder, path)) > 0, f"benchmark file {path} is empty")
        expect(f"{os.path.join(folder, path)}" in entry["command"], f"calibrate's command does not read {path}")
    for run in manifest["runs"]:
        expect("--runs" in entry["command"] and os.path.join(folder, run["file"]) in entry["command"],
               f"calibrate's command does not read the run {run['file']}")


def check_validate(folder, psbench, runs, args):
    """validate over the calibration runs: one configuration per I/O mode, each measured total the run's own."""
    report = psbench_json(psbench, ["model", "validate", "--calib", os.path.join(folder, "calib.json"), *runs,
                                    "--input", args.input, "--classes", str(args.classes), "--kind", "all"])
    by_io = {entry["io"]: entry for entry in report["configurations"]}
    expect(sorted(by_io) == ["parallel", "sequential"], f"validate's configurations are {sorted(by_io)}")
    for io, entry in by_io.items():
        median = statistics.median(read_json(path)["phases"]["total"] for path in entry["files"])
        expect(math.isclose(entry["measured"]["total"], median, rel_tol=1e-9),
               f"{io}: validate's measured total {entry['measured']['total']} is not the runs' median {median}")
        for kind in report["kind_order"]:
            predicted = entry["predicted"][kind]["total"]
            expect(math.isfinite(predicted) and predicted > 0, f"{io}: {kind} predicts a total of {predicted}")


def check_predict(folder, psbench, args):
    """predict at 1 and 2 workers: finite, positive times; mva's knee at one worker or more."""
    report = psbench_json(psbench, ["model", "predict", "--calib", os.path.join(folder, "calib.json"), "--workers",
                                    "1,2", "--model", args.model, "--batch", str(args.batch), "--samples",
                                    str(args.samples), "--input", args.input, "--classes", str(args.classes)])
    expect(len(report["predictions"]) == 2 * len(report["kind_order"]), f"{len(report['predictions'])} predictions")
    for row in report["predictions"]:
        for key in ("init_io_s", "compute_s", "total_s", "samples_per_s"):
            expect(math.isfinite(row[key]) and row[key] > 0, f"{row['kind']} W={row['workers']}: {key} {row[key]}")
        if row["kind"] == "mva":
            expect(row["knee_workers"] >= 1, f"mva's knee {row['knee_workers']}")


def main():
    """Parses the expectations and checks them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder")
    parser.add_argument("psbench")
    parser.add_argument("--samples", required=True, type=int)
    parser.add_argument("--input", required=True)
    parser.add_argument("--classes", required=True, type=int)
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch", required=True, type=int)
    args = parser.parse_args()
    manifest = read_json(os.path.join(args.folder, "manifest.json"))
    check_entry(args.folder, manifest)
    runs = [os.path.join(args.folder, run["file"]) for run in manifest["runs"]]
    check_validate(args.folder, args.psbench, runs, args)
    check_predict(args.folder, args.psbench, args)


if __name__ == "__main__":
    main()
