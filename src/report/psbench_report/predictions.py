"""Which predictions the report asks the model for: one request per measured series, and the scale study."""

from dataclasses import dataclass

from .model import ModelClient, ModelUnavailable, Request
from .sweep import Series, Sweep
from .workload import input_shape

#: Worker counts of the scale study (figure 7): powers of two to 4096.
SCALE_WORKERS = tuple(2 ** k for k in range(13))
#: The largest W the simulation is asked for in the scale study: it simulates every update, so its cost grows
#: with W (16 servers to 256 workers took 39 s on this machine); the closed forms go to 4096.
SIM_SCALE_MAX = 512
#: The sharded server count of the scale study, against 1 server.
SHARDED_SERVERS = 16
#: The platform name of the machine the sweep ran on, as `psbench model predict --platform` knows it.
THIS_PLATFORM = "this"


@dataclass(frozen=True)
class ScaleCase:
    """One curve family of the scale study: a server count and an I/O mode."""

    servers: int
    io: str

    @property
    def label(self) -> str:
        """E.g. "1 server, sequential I/O"."""
        return f"{self.servers} server{'' if self.servers == 1 else 's'}, {self.io} I/O"


SCALE_CASES = (ScaleCase(1, "sequential"), ScaleCase(1, "parallel"), ScaleCase(SHARDED_SERVERS, "sequential"),
               ScaleCase(SHARDED_SERVERS, "parallel"))


def shape_of(series: Series):
    """The sample shape and class count of a series' data, found from its first run; ModelUnavailable if none."""
    run = series.all_runs()[0]
    shape = input_shape(run.model, run.parameters, run.sample_bytes)
    if shape is None:
        raise ModelUnavailable(f"{series.key.dataset}: the sample shape and class count cannot be found from "
                               f"'{run.path.name}' (model {run.model}, {run.sample_bytes} bytes per sample)")
    return shape


def workload_request(series: Series, io: str, read: str, platform: str, workers: tuple, servers: int,
                     kind: str = "all", ranks_per_node: int = 0) -> Request:
    """A `psbench model predict` request for SERIES' workload (model, batch, samples, epochs, sample shape)."""
    key, shape = series.key, shape_of(series)
    return Request(model=key.model, batch=key.batch, samples=series.all_runs()[0].samples, epochs=key.epochs, io=io,
                   read=read, platform=platform, workers=workers, servers=servers, input=shape.text,
                   classes=shape.classes, sample_bytes=shape.sample_bytes, kind=kind,
                   ranks_per_node=ranks_per_node)


def series_request(series: Series) -> Request:
    """The request whose predictions sit beside a measured series: W = 1 .. the largest measured W."""
    key = series.key
    return workload_request(series, key.io, key.read, THIS_PLATFORM, tuple(range(1, max(series.workers) + 1)),
                            key.servers)


def reference_series(sweep: Sweep) -> Series:
    """The study's configuration (1 server, sequential I/O) of the first dataset, or the first series."""
    for dataset in sweep.datasets():
        for series in sweep.series_of(dataset):
            if series.key.servers == 1 and series.key.io == "sequential":
                return series
    return sweep.series_of(sweep.datasets()[0])[0]


def scale_requests(workload: Series, case: ScaleCase, platform: str) -> list:
    """The scale study's requests for one case: each closed-form kind at 1 .. 4096 workers, the simulation to
    SIM_SCALE_MAX; one rank per node, as the study ran one worker per node."""
    read = "whole" if case.io == "sequential" else "partition"
    simulated = tuple(w for w in SCALE_WORKERS if w <= SIM_SCALE_MAX)
    requests = [workload_request(workload, case.io, read, platform, SCALE_WORKERS, case.servers, kind, 1)
                for kind in ("ideal", "revised", "mva")]
    return requests + [workload_request(workload, case.io, read, platform, simulated, case.servers, "sim", 1)]


class Curves:
    """The model's predictions the figures draw, fetched once; None where the model gave none."""

    def __init__(self, client: ModelClient, sweep: Sweep, platform: str, calibration: str | None, scale: bool = True,
                 bench_client: ModelClient | None = None):
        self.client_ = client
        #: the model calibrated from the bench files alone, beside a calibration that also fits runs (or None)
        self.bench_client = bench_client
        self.platform = platform
        self.calibration = calibration
        self.failures = []
        self.by_series_ = {key: self._fetch(lambda s=s: series_request(s)) for key, s in sweep.series.items()}
        self.workload = reference_series(sweep)
        self.scale_ = {case: self._fetch_all(lambda c=case: scale_requests(self.workload, c, platform))
                       for case in SCALE_CASES} if scale else {}

    def _fetch_all(self, make_requests):
        """The predictions of several requests together; None when none of them gave any."""
        try:
            requests = make_requests()
        except ModelUnavailable as why:
            return self._note(why)
        found = [p for request in requests for p in (self._fetch(lambda r=request: r) or [])]
        return found or None

    def _note(self, why) -> None:
        """Keeps why a request gave nothing (once per reason); the request's answer is None."""
        if str(why) not in self.failures:
            self.failures.append(str(why))
        return None

    def _fetch(self, make_request):
        try:
            return self.client_.predict(make_request())
        except ModelUnavailable as why:
            return self._note(why)

    def of(self, series: Series):
        """Predictions beside a measured series, or None."""
        return self.by_series_.get(series.key)

    def scale(self, case: ScaleCase):
        """Predictions of one scale case, or None."""
        return self.scale_.get(case)

    def any(self) -> bool:
        """Whether the model gave any prediction at all."""
        return any(v for v in self.by_series_.values()) or any(v for v in self.scale_.values())
