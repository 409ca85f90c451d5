"""`python3 -m psbench_report SWEEP_DIR ...`: what `psbench report` runs. Reads everything first, then writes
the figures and report.md into a private folder and moves them into --out, so a failure leaves nothing half-written."""

import argparse
import importlib
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from .bench import load_bench
from .errors import USER_ERROR_EXIT_CODE, ReportError
from .figure import Context
from .learners import load_learners
from .manifest import bench_manifest
from .model import BENCH_CALIBRATION_NAME, ModelClient, SaturationModel, calibrate
from .plan_study import plan_study
from .predictions import Curves
from .report_md import write_report
from .sweep import load_sweep

#: Figures 1-12, in order (modules of this package, each with a draw(context)).
FIGURES = ("fig_times", "fig_phases", "fig_server", "fig_staleness", "fig_io", "fig_saturation", "fig_scale",
           "fig_validation", "fig_learners", "fig_plan", "fig_communication", "fig_rack")
#: The calibration the report fits from the bench files when no --calib is given (kept beside report.md).
CALIBRATION_NAME = "calib.json"
#: The platform of figure 7 when --platform is not given.
DEFAULT_PLATFORM = "bluewaters"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ReportError(message)


def parse_arguments(argv: list) -> argparse.Namespace:
    """The flags of `psbench report` (bad flags are a ReportError)."""
    parser = _Parser(prog="psbench report", description="Figures and answers of the study from a sweep and the model")
    parser.add_argument("sweep", type=Path, help="folder of results files (and manifest.json)")
    parser.add_argument("--bench", type=Path, help="folder of benchmark files (bench/run_all.sh's results/bench)")
    parser.add_argument("--calib", type=Path, help="calibration file for `psbench model predict`")
    parser.add_argument("--learners", type=Path, help="folder of learner runs with test-accuracy curves (figure 9)")
    parser.add_argument("--communication", type=Path,
                        help="folder of runs of CNTK's learners with test-accuracy curves and bytes sent (figure 11)")
    parser.add_argument("--rack", type=Path,
                        help="folder of a rack sweep's results files and manifest (figure 12; RQ1 and RQ3)")
    parser.add_argument("--platform", default=DEFAULT_PLATFORM,
                        help="platform of the scale study and the plan (figures 7 and 10)")
    parser.add_argument("--out", type=Path, required=True, help="folder for report.md and the figures")
    parser.add_argument("--psbench", help="psbench binary that runs `psbench model predict` (set by psbench report)")
    parser.add_argument("--command", help="the command line to print as the way to regenerate the report")
    parser.add_argument("--error-fd", type=int, help="write a bad-input message to this file descriptor instead of "
                        "printing it (psbench report prints it as its own error line)")
    return parser.parse_args(argv)


def _figure_modules() -> list:
    try:
        return [importlib.import_module(f"psbench_report.{name}") for name in FIGURES]
    except ModuleNotFoundError as error:
        raise ReportError(f"{error.name} is not installed for {sys.executable}: install python3-matplotlib "
                          "(jobs/setup.sh) or point PSBENCH_PYTHON at a python3 that has it") from None


def _move_into(staging: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(staging.iterdir()):
        path.replace(out / path.name)


def run(arguments: argparse.Namespace) -> Path:
    """Reads the sweep, the benchmarks and the model's predictions, then writes the report; returns report.md."""
    if arguments.calib is not None and not arguments.calib.is_file():
        raise ReportError(f"calibration file '{arguments.calib}' does not exist")
    if arguments.out.exists() and not arguments.out.is_dir():
        raise ReportError(f"--out '{arguments.out}' exists and is not a folder")
    sweep = load_sweep(arguments.sweep)
    rack = load_sweep(arguments.rack) if arguments.rack is not None else None
    bench = load_bench(arguments.bench)
    learners = load_learners(arguments.learners)
    communication = load_learners(arguments.communication, "communication")
    modules = _figure_modules()
    command = arguments.command or "python3 -m psbench_report " + shlex.join(sys.argv[1:])
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".psbench-report.", dir=arguments.out.parent))
    try:
        calib, calib_failure = arguments.calib, None
        if calib is None and bench.paths():
            calib_failure = calibrate(arguments.psbench, bench.paths(), staging / CALIBRATION_NAME)
            calib = None if calib_failure else staging / CALIBRATION_NAME
        described = f"`--calib {arguments.calib}`" if arguments.calib else (
            f"{CALIBRATION_NAME}, fitted by `psbench model calibrate` from the bench files alone" if calib else None)
        client = ModelClient(arguments.psbench, calib, calib_failure)
        bench_client = None
        if arguments.calib is not None and bench.paths():
            from_benchmarks = staging / BENCH_CALIBRATION_NAME
            failure = calibrate(arguments.psbench, bench.paths(), from_benchmarks)
            bench_client = ModelClient(arguments.psbench, None if failure else from_benchmarks, failure)
        curves = Curves(client, sweep, arguments.platform, described, bench_client=bench_client)
        context = Context(sweep, bench, curves, staging, SaturationModel(arguments.psbench), learners,
                          plan_study(client, sweep, arguments.platform), communication, rack,
                          bench_manifest(arguments.bench))
        results = [module.draw(context) for module in modules]
        write_report(context, results, command)
        _move_into(staging, arguments.out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return arguments.out / "report.md"


def _error_fd(argv: list) -> int | None:
    """The --error-fd value, read before the flags are parsed so that a bad flag goes there too."""
    for index, arg in enumerate(argv):
        value = arg.removeprefix("--error-fd=") if arg.startswith("--error-fd=") else (
            argv[index + 1] if arg == "--error-fd" and index + 1 < len(argv) else None)
        if value is not None and value.isdigit():
            return int(value)
    return None


def _report_error(message: str, error_fd: int | None) -> None:
    if error_fd is None:
        print(f"psbench: error: {message}", file=sys.stderr)
        return
    with os.fdopen(error_fd, "w", encoding="utf-8") as channel:
        channel.write(message)


def main(argv: list | None = None) -> int:
    """Entry point: 0 on success; bad input prints one `psbench: error:` line (or sends it to --error-fd) and
    returns 2."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        report = run(parse_arguments(argv))
    except ReportError as error:
        _report_error(str(error), _error_fd(argv))
        return USER_ERROR_EXIT_CODE
    print(f"report: {report}")
    return 0
