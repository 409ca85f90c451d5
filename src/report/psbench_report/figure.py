"""What drawing one figure produced: its files, its caption, and what it could not show and why."""

from dataclasses import dataclass, field
from pathlib import Path

from .bench import BenchSet
from .learners import LearnerSet
from .model import KINDS, SaturationModel, curve
from .plan_study import PlanStudy
from .predictions import Curves
from .sweep import Sweep


@dataclass
class Context:
    """Everything a figure reads."""

    sweep: Sweep
    bench: BenchSet
    curves: Curves
    out: Path
    saturation: SaturationModel  # `psbench model saturation` for figure 6
    learners: LearnerSet | None = None  # `--learners DIR` for figure 9
    plan: PlanStudy | None = None  # `psbench model plan` for figure 10
    communication: LearnerSet | None = None  # `--communication DIR` for figure 11
    rack: Sweep | None = None  # `--rack DIR` for figure 12, RQ1 and RQ3
    bench_manifest: object = None  # the bench step's manifest (manifest.bench_manifest), for its load


@dataclass
class FigureResult:
    """One figure of the report: number, title, files written (none if it could not be drawn), caption and
    the gaps (what it lacks and why, e.g. model curves)."""

    number: int
    title: str
    stem: str
    files: list = field(default_factory=list)
    caption: str = ""
    gaps: list = field(default_factory=list)

    @property
    def drawn(self) -> bool:
        """Whether the figure was written."""
        return bool(self.files)


def distinct_curves(predictions, key: str, kinds=KINDS) -> list:
    """The model's curves of one key, one per kind, with kinds whose curves coincide merged:
    [(kinds, workers, values)]; the first kind names the line style."""
    merged = []
    for kind in kinds:
        workers, values = curve(predictions or [], kind, key)
        if not workers:
            continue
        for index, (names, w, v) in enumerate(merged):
            if w == workers and all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(v, values)):
                merged[index] = (names + (kind,), w, v)
                break
        else:
            merged.append(((kind,), workers, values))
    return merged


def kinds_label(kinds: tuple) -> str:
    """Legend text of merged kinds, e.g. "revised = MVA model"."""
    return " = ".join(kinds) + (" model" if kinds != ("sim",) else " (SimGrid)")
