"""Predicted against measured, per run, kind and phase, and the mean absolute percentage error (MAPE)."""

from dataclasses import dataclass

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
    """One run's measured value beside one kind's prediction."""

    run: object
    kind: str
    quantity: str
    measured: float
    predicted: float

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.predicted - self.measured) / self.measured


def pairs(sweep: Sweep, curves: Curves) -> list:
    """Every (run, kind, quantity) for which the model gave a prediction at the run's W and S."""
    found = []
    for series in sweep.series.values():
        predictions = curves.of(series) or []
        by_point = {(p.kind, p.workers): p for p in predictions}
        for run in series.all_runs():
            for kind in KINDS:
                prediction = by_point.get((kind, run.workers))
                if prediction is None:
                    continue
                for name, measured, key in QUANTITIES:
                    if key in prediction.values and measured(run) > 0:
                        found.append(Pair(run, kind, name, measured(run), prediction.values[key]))
    return found


def mape(chosen: list) -> float | None:
    """Mean absolute percentage error of the pairs, in percent; None for none."""
    return 100.0 * sum(abs(p.error) for p in chosen) / len(chosen) if chosen else None


def within_band(chosen: list) -> int:
    """How many pairs lie within ±15%."""
    return sum(1 for p in chosen if abs(p.error) <= BAND)
