"""The model's curves, computed by `psbench model predict --format json` (docs/formats.md#predict-json), never here."""

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import ReportError

#: The model's kinds in the order the contract lists them.
KINDS = ("ideal", "revised", "mva", "sim")
_PREDICTION_KEYS = ("init_io_s", "compute_s", "total_s", "updates_per_s", "samples_per_s", "server_utilization",
                    "staleness_mean", "knee_workers")
# A psbench started from inside another MPI process must not think it is part of that job.
_MPI_ENV_PREFIXES = ("OMPI_COMM_", "OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_FILE_LOCATION",
                     "OMPI_UNIVERSE", "OMPI_APP_CTX", "OMPI_FIRST_RANKS", "OMPI_NUM_APP_CTX", "OMPI_ARGV",
                     "OMPI_COMMAND", "OMPI_MCA_initial_wdir", "OMPI_MCA_mpi_", "OMPI_MCA_shmem_", "PMIX_", "ORTE_",
                     "PMI_", "HYDRA_", "HYDI_")  # the last three: MPICH's Hydra and Slurm's PMI-2
_TIMEOUT_S = 600
#: Beside a --calib, the calibration fitted from the bench files alone (kept beside report.md), whose accuracy the
#: report states too.
BENCH_CALIBRATION_NAME = "calib-benchmarks.json"


class ModelUnavailable(Exception):
    """The model could not give a prediction; the message says why (shown in report.md)."""


@dataclass(frozen=True)
class Request:
    """One `psbench model predict` call: a workload, an I/O mode and the worker and server counts."""

    model: str
    batch: int
    samples: int
    epochs: int
    io: str
    read: str
    platform: str
    workers: tuple
    servers: int
    input: str
    classes: int
    sample_bytes: int
    kind: str = "all"
    ranks_per_node: int = 0


@dataclass(frozen=True)
class Prediction:
    """One predicted point: a kind at a worker and server count (seconds, 1/s, fractions, versions)."""

    kind: str
    workers: int
    servers: int
    values: dict


class ModelClient:
    """Runs `psbench model predict` with the calibration; caches answers; remembers why it failed."""

    def __init__(self, psbench: str | None, calib: Path | None, calib_failure: str | None = None):
        self.psbench_ = psbench
        self.calib_ = calib
        self.cache_ = {}
        self.failure_ = None if psbench else "no psbench binary was given to run `psbench model predict`"
        if self.failure_ is None and calib is None:
            self.failure_ = calib_failure or ("no calibration file was given (--calib) and no benchmark files to "
                                              "calibrate from (--bench): the model has no measured inputs")

    @property
    def failure(self) -> str | None:
        """Why the model can give no curve at all (no binary, no calibration), or None."""
        return self.failure_

    def argv(self, request: Request) -> list:
        """The command line of one request."""
        argv = [self.psbench_, "model", "predict", "--calib", str(self.calib_), "--model", request.model,
                "--batch", str(request.batch), "--samples", str(request.samples), "--epochs", str(request.epochs),
                "--io", request.io, "--read", request.read, "--platform", request.platform,
                "--workers", ",".join(str(w) for w in request.workers), "--servers", str(request.servers),
                "--input", request.input, "--classes", str(request.classes),
                "--sample-bytes", str(request.sample_bytes), "--kind", request.kind,
                "--ranks-per-node", str(request.ranks_per_node)]
        # The report's curves take the predictions alone: the intervals' draws would repeat every simulation.
        return argv + ["--interval-samples", "0", "--format", "json"]

    def predict(self, request: Request) -> list:
        """The predictions of one request; raises ModelUnavailable (and remembers why) when it cannot."""
        if self.failure_ is not None:
            raise ModelUnavailable(self.failure_)
        if request not in self.cache_:
            try:
                self.cache_[request] = self._run(request)
            except ModelUnavailable as why:
                self.cache_[request] = why
        answer = self.cache_[request]
        if isinstance(answer, ModelUnavailable):
            raise answer
        return answer

    def validate(self, files: list, input_shape: str, classes: int) -> dict:
        """The parsed JSON of `psbench model validate --format json` over the results files at one sample shape
        (docs/formats.md#validate-json): the configurations, their medians and the MAPE, computed there only;
        without a calibration, `--kind none`: the measured medians alone. Raises ModelUnavailable with the
        reason."""
        if not self.psbench_:
            raise ModelUnavailable(self.failure_)
        kinds = ["--calib", str(self.calib_), "--kind", "all"] if self.calib_ is not None else ["--kind", "none"]
        argv = [self.psbench_, "model", "validate", *kinds, "--platform", "this", "--input", input_shape,
                "--classes", str(classes), "--format", "json", *map(str, files)]
        return parse_validation(_invoke(argv, "psbench model validate"), "psbench model validate")

    def plan(self, request: Request, nodes: int) -> dict:
        """The parsed JSON of `psbench model plan --format json` (docs/formats.md#plan-json) for REQUEST's workload
        and platform within NODES nodes, mva only (no simulation); raises ModelUnavailable with the reason."""
        if self.failure_ is not None:
            raise ModelUnavailable(self.failure_)
        argv = [self.psbench_, "model", "plan", "--calib", str(self.calib_), "--model", request.model,
                "--batch", str(request.batch), "--samples", str(request.samples), "--epochs", str(request.epochs),
                "--platform", request.platform, "--input", request.input, "--classes", str(request.classes),
                "--sample-bytes", str(request.sample_bytes), "--nodes", str(nodes), "--confirm", "0",
                "--format", "json"]
        return parse_plan(_invoke(argv, "psbench model plan"), "psbench model plan")

    def _run(self, request: Request) -> list:
        argv = self.argv(request)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT_S, env=_clean_environment(),
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            self.failure_ = f"`{' '.join(argv[:3])}` could not run: {error}"
            raise ModelUnavailable(self.failure_) from None
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            why = lines[-1] if lines else f"exit code {done.returncode}"
            raise ModelUnavailable(f"`{' '.join(argv[1:])}` failed: {why}")
        return parse_predictions(done.stdout, " ".join(argv))


class SaturationModel:
    """Runs `psbench model saturation --bench FILE --format json` once per file (no calibration needed: the model
    takes its inputs from the file's k = 1 figures) and keeps the answer or why there is none."""

    def __init__(self, psbench: str | None):
        self.psbench_ = psbench
        self.answers_ = {}

    def argv(self, bench_file: Path) -> list:
        """The command line for one benchmark file."""
        return [self.psbench_, "model", "saturation", "--bench", str(bench_file), "--format", "json"]

    def comparisons(self, bench_file: Path) -> dict:
        """The parsed JSON (docs/formats.md#saturation-json); raises ModelUnavailable with the reason."""
        if not self.psbench_:
            raise ModelUnavailable("no psbench binary was given to run `psbench model saturation`")
        if bench_file not in self.answers_:
            self.answers_[bench_file] = self._run(bench_file)
        answer = self.answers_[bench_file]
        if isinstance(answer, ModelUnavailable):
            raise answer
        return answer

    def _run(self, bench_file: Path):
        argv = self.argv(bench_file)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT_S, env=_clean_environment(),
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            return ModelUnavailable(f"`psbench model saturation` could not run: {error}")
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            return ModelUnavailable(f"`{' '.join(argv[1:])}` failed: "
                                    f"{lines[-1] if lines else f'exit code {done.returncode}'}")
        return parse_saturation(done.stdout, " ".join(argv))


def _parse_format_1(text: str, source: str, list_key: str, what: str, anchor: str) -> dict:
    """A format 1 JSON document of one `psbench model` subcommand whose LIST_KEY is a list; anything else is a
    ReportError naming the source."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReportError(f"the output of '{source}' is not valid JSON: {error.msg}") from None
    if not isinstance(document, dict) or document.get("format") != 1 or not isinstance(document.get(list_key), list):
        raise ReportError(f"the output of '{source}' is not format 1 {what} JSON (docs/formats.md#{anchor})")
    return document


def parse_saturation(text: str, source: str) -> dict:
    """Reads the JSON of `psbench model saturation --format json`; bad JSON is a ReportError naming the source."""
    return _parse_format_1(text, source, "runs", "saturation", "saturation-json")


def parse_plan(text: str, source: str) -> dict:
    """Reads the JSON of `psbench model plan --format json`; bad JSON is a ReportError naming the source."""
    return _parse_format_1(text, source, "runners_up", "plan", "plan-json")


def parse_validation(text: str, source: str) -> dict:
    """Reads the JSON of `psbench model validate --format json`; bad JSON is a ReportError naming the source."""
    return _parse_format_1(text, source, "configurations", "validate", "validate-json")


def _invoke(argv: list, name: str) -> str:
    """The standard output of one `psbench model` subcommand NAME; ModelUnavailable with the reason when it cannot
    run or fails (its last line of standard error)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT_S, env=_clean_environment(),
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ModelUnavailable(f"`{name}` could not run: {error}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise ModelUnavailable(f"`{name}` failed: {lines[-1] if lines else f'exit code {done.returncode}'}")
    return done.stdout


def _clean_environment() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(_MPI_ENV_PREFIXES)}


def _has_model(psbench: str) -> bool:
    """Whether `psbench --help` lists a `model` subcommand."""
    try:
        done = subprocess.run([psbench, "--help"], capture_output=True, text=True, timeout=_TIMEOUT_S,
                              env=_clean_environment(), check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return any(line.split()[:1] == ["model"] for line in done.stdout.splitlines())


def fits_runs(calib: Path | None) -> bool:
    """Whether calib.json fitted any value to measured runs (`--runs`: its measured_by says so)."""
    if calib is None or not calib.is_file():
        return False
    found = []

    def walk(value):
        if isinstance(value, dict):
            found.extend(v for k, v in value.items() if k == "measured_by" and str(v).startswith("--runs"))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    try:
        walk(json.loads(calib.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError):
        return False
    return bool(found)


def calibrate(psbench: str | None, bench_files: list, out: Path) -> str | None:
    """Runs `psbench model calibrate --bench FILES --out OUT` (benchmarks only, so that no measured run is fitted
    to itself); returns why it failed, or None."""
    if not psbench:
        return "no psbench binary was given to run `psbench model calibrate`"
    if not _has_model(psbench):
        return f"`{psbench}` has no `model` subcommand: the performance model is not in this build"
    argv = [psbench, "model", "calibrate", "--bench", *map(str, bench_files), "--out", str(out)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT_S, env=_clean_environment(),
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"`psbench model calibrate` could not run: {error}"
    if done.returncode != 0 or not out.is_file():
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return f"`psbench model calibrate` failed: {lines[-1] if lines else f'exit code {done.returncode}'}"
    return None


def parse_predictions(text: str, source: str) -> list:
    """Reads the JSON of `psbench model predict --format json`; bad JSON is a ReportError naming the source."""
    document = _parse_format_1(text, source, "predictions", "prediction", "predict-json")
    predictions = []
    for entry in document["predictions"]:
        if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
            raise ReportError(f"the output of '{source}' holds a prediction of no known kind: {entry!r:.80}")
        values = {k: float(entry[k]) for k in _PREDICTION_KEYS if isinstance(entry.get(k), (int, float))}
        predictions.append(Prediction(entry["kind"], int(entry["workers"]), int(entry["servers"]), values))
    return predictions


def curve(predictions: list, kind: str, key: str) -> tuple:
    """(workers, values) of one kind and key, in worker order; empty when the model gave none."""
    points = sorted((p.workers, p.values[key]) for p in predictions if p.kind == kind and key in p.values)
    return [w for w, _ in points], [v for _, v in points]
