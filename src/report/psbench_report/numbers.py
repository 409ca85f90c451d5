"""Small lookups and formats the answers quote: series by configuration, predictions, times and shares."""

from .model import curve


def find(sweep, dataset: str, io: str, servers: int):
    """The dataset's series of one I/O mode and server count, or None."""
    for series in sweep.series_of(dataset):
        if series.key.io == io and series.key.servers == servers:
            return series
    return None


def predicted(predictions, kind: str, key: str, workers: int):
    """One predicted value, or None."""
    ws, vs = curve(predictions or [], kind, key)
    return vs[ws.index(workers)] if workers in ws else None


def runs_named(*series_list) -> str:
    """The file names of the series' runs, for "rests on" lines."""
    names = [f"{run.path.parent.name}/{run.label}" for s in series_list if s for run in s.all_runs()]
    return ", ".join(f"`{n}`" for n in names) if names else "none"


def seconds(value) -> str:
    """A time for the text: '1.23 s', or 'n/a'."""
    return "n/a" if value is None else f"{value:.2f} s"


def percent(value) -> str:
    """A fraction as a percentage, or 'n/a'."""
    return "n/a" if value is None else f"{100 * value:.0f}%"


def each(values: list, form) -> str:
    """Values (validate's medians of one point: one per configuration there) in one form, joined by " / "; "n/a"
    for none."""
    return " / ".join(form(v) for v in values) if values else "n/a"
