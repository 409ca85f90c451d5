"""Figure 5: initial I/O time, sequential against parallel, against workers, with the model's lines."""

from .figure import Context, FigureResult, distinct_curves, kinds_label
from .style import COLOURS, KIND_STYLES, config_style, empty_panel, new_figure, save, worker_axis
from .validation import validated


def _panel(axis, series_list, context, found) -> None:
    modes = sorted({s.key.io for s in series_list}, reverse=True)
    servers = sorted({s.key.servers for s in series_list})
    for series in series_list:
        points = [(r.workers, found.run_value(r, "init_io")) for r in series.all_runs()]
        points = [(w, v) for w, v in points if v is not None]
        style = config_style(modes.index(series.key.io), servers.index(series.key.servers),
                             series.key.io == "sequential")
        axis.plot([w for w, _ in points], [v for _, v in points], label=f"measured, {series.key.config}", **style)
    drawn_modes = set()
    for series in series_list:
        if series.key.io in drawn_modes:
            continue
        drawn_modes.add(series.key.io)
        colour = COLOURS[modes.index(series.key.io) % len(COLOURS)]
        for kinds, w, v in distinct_curves(context.curves.of(series), "init_io_s"):
            axis.plot(w, v, color=colour, linestyle=KIND_STYLES[kinds[0]],
                      label=f"{kinds_label(kinds)}, {series.key.io} I/O")
    worker_axis(axis, [w for s in series_list for w in s.workers])
    axis.set_ylabel("initial read: wait + read (s)")
    axis.set_ylim(bottom=0)


def draw(context: Context) -> FigureResult:
    """Draws figure 5: one panel per dataset."""
    result = FigureResult(5, "Initial I/O: sequential against parallel", "fig5_initial_io")
    if len(context.sweep.worker_counts()) < 2:
        result.gaps.append("the sweep has a single worker count, so there is no growth with workers")
        return result
    datasets = context.sweep.datasets()
    found = validated(context.sweep, context.curves)
    if not found.per_run:
        result.gaps.append("no measured initial read (`psbench model validate`, which measures it, gave none: "
                           + ("; ".join(found.failures) or "no run compared") + ")")
    figure, axes = new_figure(1, len(datasets), height=5.0)
    for col, dataset in enumerate(datasets):
        axis = axes[0][col]
        series_list = context.sweep.series_of(dataset)
        if any(context.curves.of(s) is None for s in series_list):
            result.gaps.append(f"{dataset}: no model line for some I/O modes (no prediction)")
        if len({w for s in series_list for w in s.workers}) < 2:
            empty_panel(axis, f"{dataset}: one worker count only")
            continue
        _panel(axis, series_list, context, found)
        cold = all(s.key.cold_cache for s in series_list)
        axis.set_title(f"{dataset}{', cold cache' if cold else ''}")
        axis.legend(loc="upper left", fontsize=6.5)
    figure.suptitle("Initial read of the training set (measured: markers; model: lines, one colour per I/O mode)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("The initial read as the slowest worker saw it (its wait for its turn plus its read, as "
                      "`psbench model validate` measures it), sequential against parallel I/O; lines: the model's "
                      "init_io_s.")
    return result
