"""Runs of the learners (`--learners DIR`, `--communication DIR`): each results file's learner, its pace (with or
without a straggler), its test-accuracy curve, the bytes its first worker sent per sample and its time to the
target accuracy."""

from dataclasses import dataclass
from typing import NamedTuple
from pathlib import Path
from statistics import median

from .errors import ReportError
from .jsonfile import field, optional_field, read_json
from .manifest import MANIFEST_NAME, load_manifest

WHAT = "results file"
#: The learners in the order the figures and the tables show them, from the most to the least synchronous.
ORDER = ("sync", "sync1bit", "bmuf", "average", "bsp", "ssp", "async", "async1bit", "dcasgd")


@dataclass(frozen=True)
class Learner:
    """What a run's config says about its learner: kind (one of ORDER), the staleness bound s (ssp), the
    compensation lambda (dcasgd) or the block's samples per worker (bmuf, average)."""

    kind: str
    value: float | None = None

    @property
    def label(self) -> str:
        """The learner's name in the figure and the table."""
        if self.kind == "sync":
            return "sync (allreduce)"
        if self.kind == "sync1bit":
            return "sync + 1-bit"
        if self.kind == "async1bit":
            return "async + 1-bit"
        if self.kind == "bmuf":
            return f"BMUF (block {self.value:g})"
        if self.kind == "average":
            return f"model averaging (block {self.value:g})"
        if self.kind == "bsp":
            return "s = 0 (BSP through the server)"
        if self.kind == "ssp":
            return f"SSP s = {self.value:g}"
        if self.kind == "dcasgd":
            return f"DC-ASGD λ = {self.value:g}"
        return "async (unbounded)"

    def order(self) -> tuple:
        """Sort key: ORDER, then the bound or lambda."""
        return ORDER.index(self.kind), self.value or 0.0


class CurvePoint(NamedTuple):
    """One test evaluation: training seconds so far, test accuracy, the first worker's samples so far."""

    time_s: float
    accuracy: float
    samples: int


@dataclass(frozen=True)
class LearnerRun:
    """One run: its learner, whether one worker was a straggler, its curve (CurvePoint), the target and the time it
    took to reach it (None: not reached), its end figures, and the bytes its first worker handed to MPI per sample
    (None where the file predates the count)."""

    path: Path
    learner: Learner
    straggler: str
    workers: int
    cpu: str | None
    target: float | None
    stopped_at_target: bool
    curve: tuple
    time_to_target_s: float | None
    test_accuracy: float
    training_s: float
    samples_per_s: float
    staleness_max: int
    bytes_per_sample: float | None = None

    @property
    def slowed(self) -> bool:
        """Whether one worker ran as a straggler (--straggler)."""
        return bool(self.straggler)

    def bytes_at(self, point: CurvePoint) -> float | None:
        """The bytes the first worker had sent by POINT, pro rata of its samples: exact for a learner that exchanges
        every step, within one block's bytes for BMUF and averaging; None without the count."""
        return None if self.bytes_per_sample is None else self.bytes_per_sample * point.samples

    def bytes_to_target(self) -> float | None:
        """The bytes the first worker had sent at the first curve point at or above the target (the point that
        gives time_to_target_s), or None."""
        if self.target is None:
            return None
        reached = [p for p in self.curve if p.accuracy >= self.target]
        return self.bytes_at(reached[0]) if reached else None


@dataclass
class LearnerSet:
    """Every learner run of a folder, with its manifest (None when the folder has none)."""

    folder: Path
    runs: list
    manifest: object

    def groups(self, slowed: bool) -> list:
        """[(learner, runs)] of one pace, in ORDER."""
        chosen = {}
        for run in self.runs:
            if run.slowed == slowed:
                chosen.setdefault(run.learner, []).append(run)
        return sorted(chosen.items(), key=lambda item: item[0].order())

    def target(self) -> float | None:
        """The target accuracy the runs share (None when they set none or differ)."""
        targets = {run.target for run in self.runs}
        return targets.pop() if len(targets) == 1 else None

    def stragglers(self) -> list:
        """The distinct --straggler settings of the slowed runs."""
        return sorted({run.straggler for run in self.runs if run.slowed})


def _learner(document: dict, path: Path) -> Learner:
    mode = field(document, "config.mode", str, path, WHAT)
    onebit = optional_field(document, "config.compress", str, path, WHAT) == "onebit"
    if mode in ("bmuf", "average"):
        return Learner(mode, float(field(document, "config.block_samples", int, path, WHAT)))
    if mode == "sync":
        return Learner("sync1bit" if onebit else "sync")
    if mode != "async":
        raise ReportError(f"{WHAT} '{path}' is a --mode {mode} run; the learners' folders hold sync, async, bmuf "
                          "and average runs")
    staleness = optional_field(document, "config.staleness", int, path, WHAT)
    compensation = optional_field(document, "config.delay_compensation", float, path, WHAT) or 0.0
    bounded = staleness is not None and staleness >= 0
    if onebit:
        if bounded or compensation > 0:
            raise ReportError(f"{WHAT} '{path}' combines --compress onebit with --staleness or "
                              "--delay-compensation, a learner the report does not compare")
        return Learner("async1bit")
    if bounded:
        return Learner("bsp") if staleness == 0 else Learner("ssp", float(staleness))
    return Learner("dcasgd", compensation) if compensation > 0 else Learner("async")


def _bytes_per_sample(document: dict, path: Path) -> float | None:
    """The first worker's bytes sent over its samples (the curve is the first worker's), or None without the
    count."""
    for index, rank in enumerate(field(document, "per_rank", list, path, WHAT)):
        if isinstance(rank, dict) and rank.get("role") == "worker":
            sent = optional_field(rank, "worker.exchange.bytes_sent", float, path, f"{WHAT} per_rank[{index}]")
            samples = field(rank, "worker.samples", int, path, f"{WHAT} per_rank[{index}]")
            return sent / samples if sent is not None and samples > 0 else None
    return None


def _curve(document: dict, path: Path) -> tuple:
    points = field(document, "curve", list, path, WHAT)
    if not points:
        raise ReportError(f"{WHAT} '{path}': 'curve' is empty (run it with --eval-every)")
    return tuple(CurvePoint(field(p, "time_s", float, path, WHAT), field(p, "accuracy", float, path, WHAT),
                            field(p, "samples", int, path, WHAT)) for p in points)


def load_learner_run(path: Path) -> LearnerRun:
    """Reads one learner run; a missing key or a wrong type is a ReportError naming the file and the key."""
    document = read_json(path, WHAT)
    if field(document, "format", int, path, WHAT) != 2:
        raise ReportError(f"{WHAT} '{path}' is not of format 2, the first with test-accuracy curves")

    def get(dotted, kind):
        return field(document, dotted, kind, path, WHAT)

    target = optional_field(document, "config.target_accuracy", float, path, WHAT)
    return LearnerRun(
        path=path,
        learner=_learner(document, path),
        straggler=optional_field(document, "config.straggler", str, path, WHAT) or "",
        workers=get("env.workers", int),
        cpu=optional_field(document, "env.cpu", str, path, WHAT),
        target=target if target else None,
        stopped_at_target=bool(optional_field(document, "config.stop_at_target", bool, path, WHAT)),
        curve=_curve(document, path),
        time_to_target_s=optional_field(document, "train.time_to_target_s", float, path, WHAT),
        test_accuracy=get("train.test_accuracy", float),
        training_s=get("train.training_s", float),
        samples_per_s=get("train.samples_per_s", float),
        staleness_max=get("server.staleness.max", int),
        bytes_per_sample=_bytes_per_sample(document, path),
    )


def load_learners(folder: Path | None, what: str = "learners") -> LearnerSet | None:
    """Every results file of folder (None when no folder was given); a missing or empty folder is a ReportError
    that names it as WHAT's folder."""
    if folder is None:
        return None
    if not folder.is_dir():
        raise ReportError(f"{what} folder '{folder}' does not exist or is not a folder")
    paths = sorted(p for p in folder.glob("*.json") if p.name != MANIFEST_NAME and not p.name.endswith(".trace.json"))
    if not paths:
        raise ReportError(f"{what} folder '{folder}' holds no results files (*.json)")
    return LearnerSet(folder=folder, runs=[load_learner_run(p) for p in paths], manifest=load_manifest(folder))


@dataclass(frozen=True)
class TargetTimes:
    """One learner's times to the target over its runs: the median of those that reached it, their range, and how
    many of how many runs reached it."""

    median_s: float | None
    low_s: float | None
    high_s: float | None
    reached: int
    runs: int

    @property
    def text(self) -> str:
        """'1.23 s (1.10-1.40, 3/3)', or 'not reached (0/3)'."""
        if self.median_s is None:
            return f"not reached (0/{self.runs})"
        return f"{self.median_s:.2f} s ({self.low_s:.2f}-{self.high_s:.2f}, {self.reached}/{self.runs})"


def target_times(runs: list) -> TargetTimes:
    """The runs' times to the target (the median of those that reached it; the count says how many did)."""
    reached = sorted(r.time_to_target_s for r in runs if r.time_to_target_s is not None)
    if not reached:
        return TargetTimes(None, None, None, 0, len(runs))
    return TargetTimes(median(reached), reached[0], reached[-1], len(reached), len(runs))
