"""Figure 1: total, initialisation and training time against workers, measured, with the model's curves."""

from .figure import Context, FigureResult, distinct_curves, kinds_label
from .predictions import reference_series
from .style import empty_panel, figure_legend, measured_style, model_style, new_figure, save, worker_axis
from .validation import validated

# Each panel's value of one run: from its results file, but the initial read (the slowest worker's wait + read)
# as `psbench model validate` measures it (None where validate gave none).
_PANELS = (("total", "total", lambda found, r: r.phases["total"], "total_s"),
           ("read", "initial read", lambda found, r: found.run_value(r, "init_io"), "init_io_s"),
           ("training", "training", lambda found, r: r.training_s, "compute_s"))


def _series_for(context: Context, dataset: str):
    """The dataset's series in the study's configuration (1 server, sequential I/O), else its first."""
    chosen = context.sweep.series_of(dataset)
    reference = reference_series(context.sweep).key
    for series in chosen:
        if (series.key.servers, series.key.io) == (reference.servers, reference.io):
            return series
    return chosen[0]


def _panel(axis, series, predictions, found, panel) -> None:
    _, title, value, key = panel
    points = [(run.workers, value(found, run)) for run in series.all_runs()]
    points = [(w, v) for w, v in points if v is not None]
    axis.plot([w for w, _ in points], [v for _, v in points], label="measured", **measured_style(0))
    for kinds, w, v in distinct_curves(predictions, key):
        axis.plot(w, v, label=kinds_label(kinds), **model_style(kinds[0]))
    worker_axis(axis, series.workers)
    axis.set_ylabel(f"{title} time (s)")
    axis.set_ylim(bottom=0)


def draw(context: Context) -> FigureResult:
    """Draws figure 1, one row per dataset."""
    result = FigureResult(1, "Time against workers, measured and modelled", "fig1_time_vs_workers")
    datasets = context.sweep.datasets()
    if len(context.sweep.worker_counts()) < 2:
        result.gaps.append("the sweep has a single worker count, so there is no scaling curve")
        return result
    found = validated(context.sweep, context.curves)
    if not found.per_run:
        result.gaps.append("no measured initial read (`psbench model validate`, which measures it, gave none: "
                           + ("; ".join(found.failures) or "no run compared") + ")")
    figure, axes = new_figure(len(datasets), 3, height=2.6 + 2.2 * len(datasets))
    for row, dataset in enumerate(datasets):
        series = _series_for(context, dataset)
        predictions = context.curves.of(series)
        if predictions is None:
            result.gaps.append(f"{dataset}: no model curves (the model gave no prediction)")
        for col, panel in enumerate(_PANELS):
            axis = axes[row][col]
            if len(series.workers) < 2:
                empty_panel(axis, f"{dataset}: one worker count only")
                continue
            _panel(axis, series, predictions, found, panel)
            axis.set_title(f"{dataset} ({series.key.model})\n{panel[1]}", fontsize=8.5)
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure_legend(figure, handles, labels, "bottom", ncol=min(5, max(1, len(labels))))
    config = _series_for(context, datasets[0]).key
    figure.suptitle(f"Measured (markers) and model (lines): {config.config}, batch {config.batch}, "
                    f"{config.epochs} epoch(s)", fontsize=9)
    result.files = save(figure, context.out, result.stem)
    result.caption = (f"Total time, initial read and training time against W, {config.config}: runs as markers, the "
                      "model's kinds as lines.")
    return result
