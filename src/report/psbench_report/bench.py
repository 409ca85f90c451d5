"""The benchmark files of bench/run_all.sh (docs/formats.md#bench-file): Google Benchmark JSON and
server_saturation.json."""

from dataclasses import dataclass
from pathlib import Path
from statistics import median

from .errors import ReportError
from .jsonfile import field, optional_field, read_json

#: The Google Benchmark files the report reads, by name.
GOOGLE_FILES = ("nn.json", "push_pull.json", "server_update.json", "data_io.json")
SATURATION_FILE = "server_saturation.json"
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of a Google Benchmark file: median real time in seconds and its counters."""

    name: str
    seconds: float
    counters: dict


@dataclass(frozen=True)
class GoogleFile:
    """A Google Benchmark JSON file: its psbench context keys and benchmarks by name."""

    path: Path
    context: dict
    benchmarks: dict

    def find(self, prefix: str) -> list:
        """Benchmarks whose name starts with prefix, in name order."""
        return [b for name, b in sorted(self.benchmarks.items()) if name.startswith(prefix)]


@dataclass(frozen=True)
class SaturationRun:
    """One server count of the saturation benchmark: service time, knee and the measured points."""

    servers: int
    parameters: int
    think_us: float  # the think time asked for
    think_measured_us: float  # the think time the clients slept (the one the models use)
    service_us: float  # D_0: one server's time per update at k = 1
    service_cv: float
    knee_clients: int
    knee_model: float
    points: tuple  # (clients, updates_per_s, utilization, response_us)


@dataclass(frozen=True)
class Saturation:
    """bench_server_saturation's own JSON."""

    path: Path
    context: dict
    note: str
    runs: tuple


@dataclass
class BenchSet:
    """What a bench folder holds; files that are absent are listed in `missing`."""

    folder: Path | None
    files: dict
    saturation: Saturation | None
    missing: list

    def paths(self) -> list:
        """The benchmark files read, in name order."""
        found = [google.path for google in self.files.values()] + ([self.saturation.path] if self.saturation else [])
        return sorted(found)

    def isa(self) -> str | None:
        """oneDNN's ISA as the first Google Benchmark file's psbench context names it, or None."""
        for google in self.files.values():
            if google.context.get("psbench_onednn_isa"):
                return google.context["psbench_onednn_isa"]
        return None

    def cpu(self) -> str | None:
        """The CPU model the benchmarks ran on, from any file's context."""
        for google in self.files.values():
            if google.context.get("psbench_cpu"):
                return google.context["psbench_cpu"]
        return self.saturation.context.get("cpu") if self.saturation else None


def _entry_seconds(entry: dict, path: Path) -> float:
    unit = entry.get("time_unit", "ns")
    if unit not in _TIME_UNITS:
        raise ReportError(f"benchmark file '{path}': unknown time_unit '{unit}' in '{entry.get('name')}'")
    return field(entry, "real_time", float, path, "benchmark file") * _TIME_UNITS[unit]


def _counters(entry: dict) -> dict:
    skip = {"real_time", "cpu_time", "iterations", "repetitions", "repetition_index", "threads", "family_index",
            "per_family_instance_index"}
    return {k: float(v) for k, v in entry.items() if k not in skip and isinstance(v, (int, float))
            and not isinstance(v, bool)}


def _collect(entries: list, path: Path) -> dict:
    """Median of each benchmark: the `median` aggregate where one exists, else the median of its runs."""
    plain, medians = {}, {}
    for entry in entries:
        if not isinstance(entry, dict):
            raise ReportError(f"benchmark file '{path}': an entry of 'benchmarks' is not an object")
        if entry.get("error_occurred"):
            continue
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                name = field(entry, "run_name", str, path, "benchmark file")
                medians[name] = Benchmark(name, _entry_seconds(entry, path), _counters(entry))
            continue
        name = entry.get("run_name") or field(entry, "name", str, path, "benchmark file")
        plain.setdefault(name, []).append(entry)
    result = dict(medians)
    for name, runs in plain.items():
        if name not in result:
            middle = sorted(runs, key=lambda e: _entry_seconds(e, path))[len(runs) // 2]
            counters = {k: median(_counters(e).get(k, 0.0) for e in runs) for k in _counters(middle)}
            result[name] = Benchmark(name, median(_entry_seconds(e, path) for e in runs), counters)
    return result


def _load_google(path: Path) -> GoogleFile:
    document = read_json(path, "benchmark file")
    context = field(document, "context", dict, path, "benchmark file")
    entries = field(document, "benchmarks", list, path, "benchmark file")
    return GoogleFile(path, context, _collect(entries, path))


def _saturation_run(entry: dict, path: Path) -> SaturationRun:
    what = "benchmark file"
    points = []
    for point in field(entry, "points", list, path, what):
        points.append((field(point, "clients", int, path, what), field(point, "updates_per_s", float, path, what),
                       field(point, "utilization", float, path, what), field(point, "response_us", float, path, what)))
    if not points:
        raise ReportError(f"benchmark file '{path}': a run has no points")
    return SaturationRun(
        servers=field(entry, "servers", int, path, what), parameters=field(entry, "parameters", int, path, what),
        think_us=field(entry, "think_us", float, path, what),
        think_measured_us=optional_field(entry, "think_measured_us", float, path, what) or field(
            entry, "think_us", float, path, what),
        service_us=field(entry, "service_us", float, path, what),
        service_cv=field(entry, "service_cv", float, path, what),
        knee_clients=field(entry, "knee_clients", int, path, what),
        knee_model=field(entry, "knee_model", float, path, what), points=tuple(sorted(points)))


def _load_saturation(path: Path) -> Saturation:
    document = read_json(path, "benchmark file")
    version = field(document, "format", int, path, "benchmark file")
    if version != 1 or document.get("benchmark") != "server_saturation":
        raise ReportError(f"benchmark file '{path}' is not a format 1 server_saturation file")
    runs = tuple(_saturation_run(e, path) for e in field(document, "runs", list, path, "benchmark file"))
    note = optional_field(document, "note", str, path, "benchmark file") or ""
    return Saturation(path, field(document, "context", dict, path, "benchmark file"), note, runs)


def load_bench(folder: Path | None) -> BenchSet:
    """Reads the bench folder's files; absent files are listed, malformed ones are a ReportError."""
    if folder is None:
        return BenchSet(None, {}, None, list(GOOGLE_FILES) + [SATURATION_FILE])
    if not folder.is_dir():
        raise ReportError(f"bench folder '{folder}' does not exist or is not a folder")
    files, missing = {}, []
    for name in GOOGLE_FILES:
        if (folder / name).exists():
            files[name] = _load_google(folder / name)
        else:
            missing.append(name)
    saturation = None
    if (folder / SATURATION_FILE).exists():
        saturation = _load_saturation(folder / SATURATION_FILE)
    else:
        missing.append(SATURATION_FILE)
    return BenchSet(folder, files, saturation, missing)
