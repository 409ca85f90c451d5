"""`python3 -m psbench_report.facts --psbench PSBENCH RESULTS_DIR`: the figures other pages quote (findings.py's
facts), computed from the published data of RESULTS_DIR (raw/sweep, raw/bench, raw/rack, raw/learners,
raw/communication, calib.json and calib-benchmarks.json, as docs/results/measure.sh lays them out) and printed as JSON. The docs test
compares every quoted figure with them; nothing here draws a figure."""

import argparse
import json
import sys
from pathlib import Path

from .bench import load_bench
from .errors import USER_ERROR_EXIT_CODE, ReportError
from .figure import Context
from .findings import make_findings
from .learners import load_learners
from .manifest import bench_manifest
from .model import BENCH_CALIBRATION_NAME, ModelClient, SaturationModel
from .predictions import Curves
from .sweep import load_sweep


def _folder(results: Path, name: str) -> Path | None:
    folder = results / "raw" / name
    return folder if folder.is_dir() and any(folder.rglob("*.json")) else None


def published_facts(results: Path, psbench: str) -> dict:
    """The facts of the data set under results (the layout measure.sh writes)."""
    calib = results / "calib.json"
    if not calib.is_file():
        raise ReportError(f"'{calib}' does not exist: the published data set has no calibration")
    sweep = load_sweep(results / "raw" / "sweep")
    rack_folder = _folder(results, "rack")
    client = ModelClient(psbench, calib)
    from_benchmarks = results / BENCH_CALIBRATION_NAME
    bench_client = ModelClient(psbench, from_benchmarks) if from_benchmarks.is_file() else None
    curves = Curves(client, sweep, "bluewaters", f"`--calib {calib}`", scale=False, bench_client=bench_client)
    context = Context(sweep, load_bench(results / "raw" / "bench"), curves, results, SaturationModel(psbench),
                      load_learners(_folder(results, "learners")), None,
                      load_learners(_folder(results, "communication"), "communication"),
                      load_sweep(rack_folder) if rack_folder else None, bench_manifest(results / "raw" / "bench"))
    return make_findings(context).facts


def main(argv: list | None = None) -> int:
    """Prints the facts as JSON; bad input is one `psbench: error:` line and exit code 2."""
    parser = argparse.ArgumentParser(prog="python3 -m psbench_report.facts", description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path, help="the published data's folder (docs/results)")
    parser.add_argument("--psbench", required=True, help="the psbench binary that runs `psbench model`")
    options = parser.parse_args(argv)
    try:
        facts = published_facts(options.results, options.psbench)
    except ReportError as error:
        print(f"psbench: error: {error}", file=sys.stderr)
        return USER_ERROR_EXIT_CODE
    json.dump(facts, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
