"""The manifest a job script writes into each results folder (docs/formats.md#manifest): scheduler, nodes, runs."""

from dataclasses import dataclass
from pathlib import Path

from .errors import ReportError
from .jsonfile import field, optional_field, read_json

MANIFEST_NAME = "manifest.json"
WHAT = "manifest"


@dataclass(frozen=True)
class ManifestRun:
    """One run the job launched: its results file, command and exit code."""

    file: str
    command: str
    exit_code: int


@dataclass(frozen=True)
class Manifest:
    """What the job script recorded about a sweep."""

    path: Path
    scheduler: str
    job_id: str | None
    nodes: tuple
    link: dict | None
    runs: tuple
    started: str | None = None  # when the job began, UTC, ISO 8601
    git_commit: str | None = None  # the commit of the psbench that ran the sweep
    other_cpu_share: float | None = None  # share of the machine's CPU time other processes took meanwhile
    under_load: bool = False  # measured with other_cpu_share above the limit, by explicit override

    def failed_runs(self) -> list:
        """Runs that exited non-zero (their results files may be absent)."""
        return [run for run in self.runs if run.exit_code != 0]


def load_manifest(folder: Path, name: str = MANIFEST_NAME) -> Manifest | None:
    """The folder's manifest.json (or NAME), or None when there is none; a run it names whose command succeeded
    but whose results file is missing is a ReportError naming that file."""
    path = folder / name
    if not path.exists():
        return None
    document = read_json(path, WHAT)
    version = field(document, "format", int, path, WHAT)
    if version != 1:
        raise ReportError(f"{WHAT} '{path}' has format {version}; this report reads format 1")
    runs = []
    for index, entry in enumerate(field(document, "runs", list, path, WHAT)):
        if not isinstance(entry, dict):
            raise ReportError(f"{WHAT} '{path}': runs[{index}] is not an object")
        run = ManifestRun(
            file=field(entry, "file", str, path, WHAT),
            command=field(entry, "command", str, path, WHAT),
            exit_code=field(entry, "exit_code", int, path, WHAT),
        )
        if run.exit_code == 0 and not (folder / run.file).exists():
            raise ReportError(f"results file '{folder / run.file}' named by '{path}' is missing")
        runs.append(run)
    job_id = optional_field(document, "job_id", str, path, WHAT)
    return Manifest(
        path=path,
        scheduler=field(document, "scheduler", str, path, WHAT),
        job_id=job_id,
        nodes=tuple(optional_field(document, "nodes", list, path, WHAT) or ()),
        link=optional_field(document, "link", dict, path, WHAT),
        runs=tuple(runs),
        started=optional_field(document, "started", str, path, WHAT),
        git_commit=optional_field(document, "git_commit", str, path, WHAT),
        other_cpu_share=_share(document, path),
        under_load=bool(optional_field(document, "under_load", bool, path, WHAT)),
    )


def bench_manifest(bench_folder: Path | None) -> Manifest | None:
    """The bench step's manifest beside its folder (FOLDER.manifest.json, as docs/results/measure.sh writes it:
    inside the folder `psbench model calibrate` would read it as a bench file), or None."""
    if bench_folder is None:
        return None
    return load_manifest(bench_folder.parent, bench_folder.name + ".manifest.json")


def _share(document: dict, path: Path) -> float | None:
    """other_cpu_share as a float (JSON may hold 0 as an integer), or None when the manifest has none."""
    value = document.get("other_cpu_share")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReportError(f"{WHAT} '{path}': other_cpu_share is not a number")
    return float(value)
