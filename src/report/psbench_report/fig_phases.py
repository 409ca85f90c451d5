"""Figure 2: where a worker's time goes, per worker count, as stacked bars (mean over the workers of a run)."""

from statistics import median

from .figure import Context, FigureResult
from .style import COLOURS, HATCHES, empty_panel, figure_legend, new_figure, save

#: The stacked segments: label and how to take them from a run's mean worker phases (seconds).
SEGMENTS = (
    ("init_io phase", lambda p: p["init_io"]),
    ("rest of set-up", lambda p: max(0.0, p["init_total"] - p["init_io"])),
    ("compute (batch + fwd/bwd)", lambda p: p["compute"]),
    ("push", lambda p: p["push"]),
    ("pull (incl. server wait)", lambda p: p["pull"]),
    ("other", lambda p: max(0.0, p["total"] - p["init_total"] - p["compute"] - p["push"] - p["pull"])),
)


def segment_seconds(series) -> list:
    """Per worker count, the median over its runs of each segment's seconds: [[seconds per segment]]."""
    return [[median(part(run.worker_phases) for run in series.runs[w]) for _, part in SEGMENTS]
            for w in series.workers]


def _panel(axis, series) -> list:
    counts = series.workers
    bottoms = [0.0] * len(counts)
    values = segment_seconds(series)
    bars = []
    for index, (label, _) in enumerate(SEGMENTS):
        heights = [row[index] for row in values]
        bars.append(axis.bar([str(w) for w in counts], heights, bottom=bottoms, label=label, width=0.6,
                             color=COLOURS[index % len(COLOURS)], hatch=HATCHES[index % len(HATCHES)],
                             edgecolor="white" if index == 0 else "black", linewidth=0.5))
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    axis.set_xlabel("workers W")
    axis.set_ylabel("time per worker (s)")
    return bars


def draw(context: Context) -> FigureResult:
    """Draws figure 2: rows are datasets, columns I/O modes; 1 server (the first server count measured)."""
    result = FigureResult(2, "Phase breakdown per worker count", "fig2_phase_breakdown")
    datasets = context.sweep.datasets()
    modes = sorted({s.key.io for s in context.sweep.series.values()}, reverse=True)
    figure, axes = new_figure(len(datasets), len(modes), height=2.4 + 2.2 * len(datasets))
    servers = min(s.key.servers for s in context.sweep.series.values())
    for row, dataset in enumerate(datasets):
        for col, io in enumerate(modes):
            axis = axes[row][col]
            chosen = [s for s in context.sweep.series_of(dataset) if s.key.io == io and s.key.servers == servers]
            if not chosen:
                empty_panel(axis, f"{dataset}: no {io} I/O runs with {servers} server(s)")
                continue
            _panel(axis, chosen[0])
            axis.set_title(f"{dataset}: {io} I/O, {servers} server{'' if servers == 1 else 's'}")
    handles, labels = next((a.get_legend_handles_labels() for a in axes.flat if a.has_data()), ([], []))
    figure_legend(figure, handles, labels, "bottom", ncol=3)
    figure.suptitle("Mean worker time by phase (measured; each bar is one run, the median where repeated)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("The phases of docs/design.md averaged over a run's workers: init_io, the rest of set-up, "
                      "compute, push, pull (which includes waiting for the server) and the rest of the loop.")
    return result
