"""Figure 4: the staleness distribution of the updates, per worker count."""

from .figure import Context, FigureResult
from .predictions import reference_series
from .style import COLOURS, MARKERS, empty_panel, new_figure, save


def _panel(axis, series) -> int:
    largest = 0
    for index, w in enumerate(series.workers):
        run = series.runs[w][0]
        hist = run.staleness.hist
        total = sum(hist)
        if total == 0:
            continue
        points = [(k, c / total) for k, c in enumerate(hist) if c > 0]
        largest = max(largest, points[-1][0])
        axis.plot([k for k, _ in points], [f for _, f in points], marker=MARKERS[index % len(MARKERS)],
                  color=COLOURS[index % len(COLOURS)], linestyle=(0, (1, 1 + index)), linewidth=0.8,
                  markerfacecolor="white" if index % 2 else COLOURS[index % len(COLOURS)],
                  label=f"W = {w} (mean {run.staleness.mean:.2f}, max {run.staleness.max})")
    axis.set_yscale("log")
    axis.set_xlabel("staleness (server versions behind)")
    axis.set_ylabel("fraction of updates")
    axis.set_xlim(-0.5, max(4, largest) + 0.5)
    return largest


def draw(context: Context) -> FigureResult:
    """Draws figure 4: one panel per dataset, its reference configuration (1 server, sequential I/O)."""
    result = FigureResult(4, "Staleness distribution per worker count", "fig4_staleness")
    datasets = context.sweep.datasets()
    reference = reference_series(context.sweep).key
    figure, axes = new_figure(1, len(datasets))
    for col, dataset in enumerate(datasets):
        axis = axes[0][col]
        chosen = [s for s in context.sweep.series_of(dataset)
                  if (s.key.servers, s.key.io) == (reference.servers, reference.io)] or context.sweep.series_of(dataset)
        if not any(sum(r.staleness.hist) for r in chosen[0].all_runs()):
            empty_panel(axis, f"{dataset}: no updates recorded")
            continue
        _panel(axis, chosen[0])
        axis.set_title(f"{dataset}: {chosen[0].key.config}")
        axis.legend(loc="upper right", title="measured runs (markers)")
    figure.suptitle("Staleness of each applied gradient (measured histogram, lines only join a run's points)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("Fraction of updates whose gradient was k server versions old, per worker count; with one server "
                      "the mean is about W - 1.")
    return result
