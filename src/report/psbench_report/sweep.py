"""A sweep: every results file of a folder (and of its immediate subfolders), grouped into series."""

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ReportError
from .manifest import MANIFEST_NAME, Manifest, load_manifest
from .results import load_run


@dataclass(frozen=True)
class SeriesKey:
    """What a series holds fixed: everything but the worker count."""

    dataset: str
    model: str
    batch: int
    epochs: int
    mode: str
    io: str
    read: str
    cold_cache: bool
    servers: int

    @property
    def config(self) -> str:
        """The I/O and server part of the key, e.g. "sequential I/O, 1 server"."""
        plural = "" if self.servers == 1 else "s"
        return f"{self.io} I/O, {self.servers} server{plural}"


@dataclass
class Series:
    """Runs that differ only in their worker count; repeated runs of one count are all kept."""

    key: SeriesKey
    runs: dict = field(default_factory=lambda: defaultdict(list))

    @property
    def workers(self) -> list:
        """The measured worker counts, ascending."""
        return sorted(self.runs)

    def all_runs(self) -> list:
        """Every run, in worker order."""
        return [run for w in self.workers for run in self.runs[w]]


@dataclass
class Sweep:
    """Every run read, grouped by series, with the folders' manifests."""

    root: Path
    runs: list
    manifests: list
    series: dict

    def datasets(self) -> list:
        """Dataset names (file stems of config.data), sorted."""
        return sorted({run.dataset for run in self.runs})

    def series_of(self, dataset: str) -> list:
        """The series of one dataset, sorted by I/O mode and server count."""
        chosen = [s for s in self.series.values() if s.key.dataset == dataset]
        return sorted(chosen, key=lambda s: (s.key.io, s.key.servers, s.key.model, s.key.read))

    def worker_counts(self) -> list:
        """Every measured worker count, ascending."""
        return sorted({run.workers for run in self.runs})

    def format(self) -> int:
        """The results format every file shares."""
        return self.runs[0].format


def _results_paths(folder: Path) -> list:
    return sorted(p for p in folder.glob("*.json") if p.name != MANIFEST_NAME and not p.name.endswith(".trace.json"))


def _folders(root: Path) -> list:
    return [root] + sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def _check_one_format(runs: list) -> None:
    first = runs[0]
    for run in runs[1:]:
        if run.format != first.format:
            raise ReportError(
                f"results file '{run.path}' has format {run.format} but '{first.path}' has format "
                f"{first.format}: a sweep must not mix versions (rerun the older runs)")


def _check_async(runs: list) -> None:
    for run in runs:
        if run.mode != "async":
            raise ReportError(f"results file '{run.path}' is a --mode {run.mode} run; the report reads async sweeps")


def load_sweep(root: Path) -> Sweep:
    """Reads every results file under root (root and its direct subfolders) and groups them into series."""
    if not root.is_dir():
        raise ReportError(f"sweep folder '{root}' does not exist or is not a folder")
    runs, manifests = [], []
    for folder in _folders(root):
        manifest: Manifest | None = load_manifest(folder)
        if manifest is not None:
            manifests.append(manifest)
        runs.extend(load_run(path) for path in _results_paths(folder))
    if not runs:
        raise ReportError(f"sweep folder '{root}' holds no results files (*.json)")
    _check_one_format(runs)
    _check_async(runs)
    series = {}
    for run in runs:
        key = SeriesKey(run.dataset, run.model, run.batch, run.epochs, run.mode, run.io, run.read,
                        run.cold_cache, run.servers)
        series.setdefault(key, Series(key)).runs[run.workers].append(run)
    return Sweep(root=root, runs=runs, manifests=manifests, series=series)
