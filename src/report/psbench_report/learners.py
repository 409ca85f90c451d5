"""Runs of the learners between sync and async (`--learners DIR`): each results file's learner, its pace (with or
without a straggler), its test-accuracy curve and its time to the target accuracy."""

from dataclasses import dataclass
from pathlib import Path
from statistics import median

from .errors import ReportError
from .jsonfile import field, optional_field, read_json
from .manifest import MANIFEST_NAME, load_manifest

WHAT = "results file"
#: The learners in the order the figure and the table show them, from the most to the least synchronous.
ORDER = ("sync", "bsp", "ssp", "async", "dcasgd")


@dataclass(frozen=True)
class Learner:
    """What a run's config says about its learner: kind (one of ORDER), the staleness bound s (ssp) or the
    compensation lambda (dcasgd)."""

    kind: str
    value: float | None = None

    @property
    def label(self) -> str:
        """The learner's name in the figure and the table."""
        if self.kind == "sync":
            return "sync (allreduce)"
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


@dataclass(frozen=True)
class LearnerRun:
    """One run: its learner, whether one worker was a straggler, the curve as (training s, test accuracy) points,
    the target and the time it took to reach it (None: not reached), and its end figures."""

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

    @property
    def slowed(self) -> bool:
        """Whether one worker ran as a straggler (--straggler)."""
        return bool(self.straggler)


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
    if mode == "sync":
        return Learner("sync")
    if mode != "async":
        raise ReportError(f"{WHAT} '{path}' is a --mode {mode} run; the learners folder holds sync and async runs")
    staleness = optional_field(document, "config.staleness", int, path, WHAT)
    compensation = optional_field(document, "config.delay_compensation", float, path, WHAT) or 0.0
    if staleness is not None and staleness >= 0:
        return Learner("bsp") if staleness == 0 else Learner("ssp", float(staleness))
    return Learner("dcasgd", compensation) if compensation > 0 else Learner("async")


def _curve(document: dict, path: Path) -> tuple:
    points = field(document, "curve", list, path, WHAT)
    if not points:
        raise ReportError(f"{WHAT} '{path}': 'curve' is empty (run it with --eval-every)")
    return tuple((field(p, "time_s", float, path, WHAT), field(p, "accuracy", float, path, WHAT)) for p in points)


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
    )


def load_learners(folder: Path | None) -> LearnerSet | None:
    """Every results file of folder (None when no folder was given); a missing or empty folder is a ReportError."""
    if folder is None:
        return None
    if not folder.is_dir():
        raise ReportError(f"learners folder '{folder}' does not exist or is not a folder")
    paths = sorted(p for p in folder.glob("*.json") if p.name != MANIFEST_NAME and not p.name.endswith(".trace.json"))
    if not paths:
        raise ReportError(f"learners folder '{folder}' holds no results files (*.json)")
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
