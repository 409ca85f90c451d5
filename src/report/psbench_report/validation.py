"""Predicted against measured, per configuration (the median of its runs), kind and phase, and the mean absolute
percentage error (MAPE)."""

from dataclasses import dataclass
from statistics import median

from .model import KINDS
from .predictions import Curves
from .sweep import Sweep

#: Compared quantities: name, the measured value of a run, the prediction key.
QUANTITIES = (("initial read", lambda r: r.read_s, "init_io_s"),
              ("training", lambda r: r.training_s, "compute_s"),
              ("total", lambda r: r.phases["total"], "total_s"))
#: The band a good prediction stays within.
BAND = 0.15


@dataclass(frozen=True)
class Pair:
    """One configuration's measured median (over its repeated runs) beside one kind's prediction."""

    runs: tuple
    kind: str
    quantity: str
    measured: float
    predicted: float

    @property
    def run(self):
        """The configuration's first run: what names it."""
        return self.runs[0]

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.predicted - self.measured) / self.measured


def pairs(sweep: Sweep, curves: Curves) -> list:
    """Every (configuration, kind, quantity) for which the model gave a prediction at the configuration's W and S;
    a configuration's repeated runs count once, by their median (identical runs differ by tens of percent here)."""
    found = []
    for series in sweep.series.values():
        predictions = curves.of(series) or []
        by_point = {(p.kind, p.workers): p for p in predictions}
        for workers in series.workers:
            runs = tuple(series.runs[workers])
            for kind in KINDS:
                prediction = by_point.get((kind, workers))
                if prediction is None:
                    continue
                for name, measured, key in QUANTITIES:
                    values = [measured(run) for run in runs if measured(run) > 0]
                    if key in prediction.values and values:
                        found.append(Pair(runs, kind, name, median(values), prediction.values[key]))
    return found


def run_count(chosen: list) -> int:
    """How many runs the pairs rest on."""
    return len({run.path for p in chosen for run in p.runs})


def mape(chosen: list) -> float | None:
    """Mean absolute percentage error of the pairs, in percent; None for none."""
    return 100.0 * sum(abs(p.error) for p in chosen) / len(chosen) if chosen else None


def within_band(chosen: list) -> int:
    """How many pairs lie within ±15%."""
    return sum(1 for p in chosen if abs(p.error) <= BAND)
