"""One results file of `psbench train`, read through the keys docs/results.md documents (formats 1 and 2)."""

from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from .errors import ReportError
from .jsonfile import field, optional_field, read_json

#: Results formats this report reads: 1, and 2 (the typed schema, which adds env.cpu and env.onednn_isa).
SUPPORTED_FORMATS = (1, 2)
#: The phases of docs/design.md, in the order the report shows them.
PHASES = ("init_io", "init_total", "compute", "push", "pull", "server_update", "server_idle", "total")
WHAT = "results file"


@dataclass(frozen=True)
class Staleness:
    """Staleness of all updates, in versions: mean, max and the exact histogram (hist[k] = updates of k)."""

    mean: float
    max: int
    hist: tuple


@dataclass(frozen=True)
class Run:
    """The figures of one training run that the report uses."""

    path: Path
    format: int
    dataset: str
    model: str
    batch: int
    epochs: int
    samples: int
    mode: str
    io: str
    read: str
    cold_cache: bool
    workers: int
    servers: int
    ranks: int
    hosts: int
    cores: int
    cpu: str | None
    onednn_isa: str | None
    mpi: str | None  # the MPI library that ran it ("Open MPI v4.1.4", "MPICH Version: 4.0.2")
    parameters: int
    sample_bytes: int | None
    phases: dict
    worker_phases: dict
    samples_per_s: float
    training_s: float
    updates_per_s: float
    utilization: float
    staleness: Staleness

    @property
    def ranks_per_node(self) -> int:
        """Ranks per host (the largest share when hosts differ)."""
        return -(-self.ranks // self.hosts)

    @property
    def pushes_per_s(self) -> float:
        """Full pushes (one per worker step, all shards) applied per second: server.updates_per_s counts each
        shard's update, S per step."""
        return self.updates_per_s / max(1, self.servers)

    @property
    def label(self) -> str:
        """A short name for the run in text and tables: its file name."""
        return self.path.name


def _format(document: dict, path: Path) -> int:
    version = field(document, "format", int, path, WHAT)
    if version not in SUPPORTED_FORMATS:
        raise ReportError(f"{WHAT} '{path}' has format {version}; this report reads formats 1 and 2")
    return version


def _worker_phases(document: dict, path: Path) -> dict:
    ranks = field(document, "per_rank", list, path, WHAT)
    workers = [r for r in ranks if isinstance(r, dict) and r.get("role") == "worker"]
    if not workers:
        raise ReportError(f"{WHAT} '{path}': 'per_rank' has no rank with role 'worker'")
    values = {}
    for phase in PHASES:
        values[phase] = mean(field(r, f"phases.{phase}", float, path, WHAT) for r in workers)
    return values


def _staleness(document: dict, path: Path) -> Staleness:
    hist = field(document, "server.staleness.hist", list, path, WHAT)
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in hist):
        raise ReportError(f"{WHAT} '{path}': 'server.staleness.hist' holds a value that is not a count")
    return Staleness(
        mean=field(document, "server.staleness.mean", float, path, WHAT),
        max=field(document, "server.staleness.max", int, path, WHAT),
        hist=tuple(hist),
    )


def _sample_bytes(document: dict, path: Path, total_samples: int) -> int | None:
    """Stored bytes per sample (image and label), from the first worker's load: its bytes over the samples it read
    (the whole split with --read whole, else its partition); None when that is not a whole number."""
    loads = field(document, "load", list, path, WHAT)
    if not loads:
        return None
    first = loads[0]
    read_bytes = field(first, "bytes", int, path, WHAT)
    if field(first, "mode", str, path, WHAT).endswith("+whole"):
        samples = total_samples
    else:
        rank = field(first, "rank", int, path, WHAT)
        owners = [r for r in field(document, "per_rank", list, path, WHAT) if r.get("rank") == rank]
        samples = field(owners[0], "worker.samples", int, path, WHAT) if owners else 0
    return read_bytes // samples if samples > 0 and read_bytes % samples == 0 else None


def _env_text(document: dict, key: str, version: int, path: Path) -> str | None:
    if version >= 2:
        return field(document, f"env.{key}", str, path, WHAT)
    return optional_field(document, f"env.{key}", str, path, WHAT)


def load_run(path: Path) -> Run:
    """Reads and checks one results file; any missing key or wrong type is a ReportError naming the file."""
    document = read_json(path, WHAT)
    version = _format(document, path)

    def get(dotted, kind):
        return field(document, dotted, kind, path, WHAT)

    total_samples = get("train.total_samples", int)
    return Run(
        path=path,
        format=version,
        dataset=Path(get("config.data", str)).stem,
        model=get("config.model", str),
        batch=get("config.batch", int),
        epochs=get("config.epochs", int),
        samples=total_samples,
        mode=get("config.mode", str),
        io=get("config.io", str),
        read=get("config.read", str),
        cold_cache=get("config.cold_cache", bool),
        workers=get("env.workers", int),
        servers=get("env.servers", int),
        ranks=get("env.ranks", int),
        hosts=len(get("env.hosts", list)) or 1,
        cores=get("env.cores", int),
        cpu=_env_text(document, "cpu", version, path),
        onednn_isa=_env_text(document, "onednn_isa", version, path),
        mpi=optional_field(document, "env.libraries.mpi", str, path, WHAT),
        parameters=get("model.parameters", int),
        sample_bytes=_sample_bytes(document, path, total_samples),
        phases={phase: get(f"phases.{phase}", float) for phase in PHASES},
        worker_phases=_worker_phases(document, path),
        samples_per_s=get("train.samples_per_s", float),
        training_s=get("train.training_s", float),
        updates_per_s=get("server.updates_per_s", float),
        utilization=get("server.utilization", float),
        staleness=_staleness(document, path),
    )
