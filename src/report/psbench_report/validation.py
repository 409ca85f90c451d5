"""Measured and predicted, per configuration (the median of its runs), kind and phase, and the mean absolute
percentage error (MAPE): all taken from `psbench model validate --format json`, which alone groups the runs into
configurations, takes their medians (of the phases and of the measured quantities the answers quote: initial read,
training, set-up share, server utilisation, pushes/s, staleness) and computes the errors."""

from dataclasses import dataclass

from .model import ModelUnavailable
from .predictions import Curves, shape_of
from .sweep import Sweep

#: Compared quantities: the report's name and validate's phase.
QUANTITIES = (("initial read", "init_io"), ("training", "compute"), ("total", "total"))
#: The band a good prediction stays within (validate's band_percent says the same; checked when read).
BAND = 0.15


@dataclass(frozen=True)
class Pair:
    """One configuration's measured median (over its repeated runs) beside one kind's prediction, as validate
    gave them."""

    runs: tuple
    kind: str
    quantity: str
    measured: float
    predicted: float
    error: float  # (predicted - measured) / measured, validate's error_percent / 100

    @property
    def run(self):
        """The configuration's first run: what names it."""
        return self.runs[0]


@dataclass(frozen=True)
class Summary:
    """Validate's figures over one group of configurations (one sample shape): MAPE and count within the band."""

    group: str
    datasets: tuple
    configurations: int
    runs: int
    mape: dict  # kind -> quantity -> percent
    within: dict  # kind -> quantity -> count
    coverage: dict  # kind -> quantity -> (inside, count, median width in percent); empty without intervals
    quantities: dict  # kind -> validate's quantity_errors (utilisation and staleness against the measured medians)
    repeats: dict  # quantity -> the runs' own spread: MAPE of each run against its configuration's other runs


@dataclass(frozen=True)
class Measured:
    """One configuration's measured figures as validate gave them: per phase and measured quantity (validate's
    measured keys, docs/formats.md#validate-json) the median of its runs and the highest."""

    runs: tuple
    servers: int
    median: dict
    highest: dict


@dataclass(frozen=True)
class Validated:
    """Every pair, every configuration's measured figures, each run's own measured figures (by its path) and the
    summary of each validate call (one per sample shape in the sweep)."""

    pairs: list
    configurations: list
    per_run: dict
    summaries: list
    failures: list

    def medians(self, series, workers: int, key: str) -> list:
        """validate's median of `key` for each configuration the series' runs at `workers` make up (one, unless
        those runs differ in something the series does not hold fixed, such as the seed); empty without them."""
        paths = {run.path for run in series.runs.get(workers, [])} if series else set()
        return [c.median[key] for c in self.configurations if c.runs and {run.path for run in c.runs} <= paths]

    def run_value(self, run, key: str):
        """validate's measured `key` of one run, or None when validate did not read it."""
        measured = self.per_run.get(str(run.path))
        return None if measured is None else measured[key]


def _groups(sweep: Sweep) -> dict:
    """The sweep's async runs by sample shape: {(input, classes): ([runs], [datasets])}."""
    groups = {}
    for series in sweep.series.values():
        runs = [run for run in series.all_runs() if run.mode == "async"]
        if not runs:
            continue
        shape = shape_of(series)
        found, datasets = groups.setdefault((shape.text, shape.classes), ([], []))
        found.extend(runs)
        if series.key.dataset not in datasets:
            datasets.append(series.key.dataset)
    return groups


def _coverage(document: dict, names: dict) -> dict:
    """validate's interval_coverage as kind -> quantity -> (inside, count, median width %); empty when it gave none."""
    coverage = document.get("interval_coverage") or {}
    return {kind: {name: (phases[phase]["inside"], phases[phase]["count"], phases[phase]["median_width_percent"])
                   for name, phase in names.items() if phases.get(phase) and phases[phase]["count"]}
            for kind, phases in coverage.items() if isinstance(phases, dict)}


def _validate(sweep: Sweep, client) -> Validated:
    """Runs validate with CLIENT's calibration once per sample shape and returns its pairs and summaries."""
    found, configurations, per_run, summaries, failures = [], [], {}, [], []
    names = {name: phase for name, phase in QUANTITIES}
    try:
        groups = _groups(sweep)
    except ModelUnavailable as why:
        groups, failures = {}, [str(why)]
    for (shape, classes), (runs, datasets) in groups.items():
        by_path = {str(run.path): run for run in runs}
        try:
            document = client.validate(list(by_path), shape, classes)
        except ModelUnavailable as why:
            failures.append(str(why))
            continue
        for entry in document["runs"]:
            per_run[entry["files"][0]] = entry["measured"]
        for configuration in document["configurations"]:
            chosen = tuple(by_path[f] for f in configuration["files"] if f in by_path)
            configurations.append(Measured(chosen, int(configuration["servers"]), configuration["measured"],
                                           configuration["highest"]))
            for kind, phases in configuration["predicted"].items():
                for name, phase in QUANTITIES:
                    found.append(Pair(chosen, kind, name, float(configuration["measured"][phase]),
                                      float(phases[phase]), float(configuration["error_percent"][kind][phase]) / 100))
        over = document["over_configurations"]
        summaries.append(Summary(
            f"{', '.join(datasets)} (input {shape}, {classes} classes)", tuple(datasets),
            len(document["configurations"]), len(document["runs"]),
            {kind: {name: over["mape_percent"][kind][phase] for name, phase in names.items()}
             for kind in over["mape_percent"]},
            {kind: {name: over["within_band"][kind][phase] for name, phase in names.items()}
             for kind in over["within_band"]},
            _coverage(document, names), document.get("quantity_errors") or {},
            {name: document["repeats"]["mape_percent"][phase] for name, phase in names.items()}
            if document.get("repeats") else {}))
    return Validated(found, configurations, per_run, summaries, failures)


def validated(sweep: Sweep, curves: Curves) -> Validated:
    """validate with the report's calibration (cached on curves)."""
    cached = getattr(curves, "validated_", None)
    if cached is None:
        cached = curves.validated_ = _validate(sweep, curves.client_)
    return cached


def validated_from_benchmarks(sweep: Sweep, curves: Curves) -> Validated | None:
    """validate with the calibration fitted from the bench files alone (cached on curves), or None when the report's
    calibration is that one already or there is none."""
    if curves.bench_client is None:
        return None
    if curves.bench_client.failure is not None:
        return Validated([], [], {}, [], [curves.bench_client.failure])
    cached = getattr(curves, "validated_from_benchmarks_", None)
    if cached is None:
        cached = curves.validated_from_benchmarks_ = _validate(sweep, curves.bench_client)
    return cached


def run_count(chosen: list) -> int:
    """How many runs the pairs rest on."""
    return len({run.path for p in chosen for run in p.runs})
