"""Figure 8: predicted against measured for every configuration (the median of its runs) and kind, with the ±15%
band."""

from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .figure import Context, FigureResult
from .model import KINDS
from .style import KIND_COLOURS, MARKERS, empty_panel, figure_legend, new_figure, proxy_line, save
from .validation import BAND, QUANTITIES, run_count, validated


def _ticks(axis) -> None:
    """Readable log ticks: 1, 2 and 5 times the powers of ten, printed as plain numbers."""
    for which in (axis.xaxis, axis.yaxis):
        which.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        which.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        which.set_minor_formatter(NullFormatter())


def _panel(axis, chosen, name, datasets) -> None:
    """Colour: the kind; marker: the dataset (filled for the first, hollow for the second, ...)."""
    values = [v for p in chosen for v in (p.measured, p.predicted)]
    low, high = min(values) / 1.5, max(values) * 1.5
    line = [low, high]
    axis.fill_between(line, [x * (1 - BAND) for x in line], [x * (1 + BAND) for x in line], color="#cccccc",
                      alpha=0.6, linewidth=0)
    axis.plot(line, line, color="#555555", linewidth=0.8)
    for kind in KINDS:
        for index, dataset in enumerate(datasets):
            mine = [p for p in chosen if p.kind == kind and p.run.dataset == dataset]
            if mine:
                axis.plot([p.measured for p in mine], [p.predicted for p in mine], linestyle="none",
                          marker=MARKERS[index % len(MARKERS)], color=KIND_COLOURS[kind], markersize=5,
                          markerfacecolor="white" if index % 2 else KIND_COLOURS[kind])
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    _ticks(axis)
    axis.set_xlabel(f"measured {name} (s)")
    axis.set_ylabel(f"predicted {name} (s)")
    axis.set_title(name)


def _legend(figure, everything, datasets) -> None:
    handles, labels = [], []
    for kind in KINDS:
        mapes = [f"{s.mape[kind]['total']:.0f}%" for s in everything.summaries if kind in s.mape]
        if mapes:
            handles.append(proxy_line(color=KIND_COLOURS[kind], linewidth=3))
            labels.append(f"{kind} (total MAPE {', '.join(mapes)})")
    for index, dataset in enumerate(datasets):
        handles.append(proxy_line(color="#444444", marker=MARKERS[index % len(MARKERS)], linestyle="none",
                                  markerfacecolor="white" if index % 2 else "#444444"))
        labels.append(dataset)
    handles.append(proxy_line(color="#cccccc", linewidth=6))
    labels.append(f"±{100 * BAND:.0f}% of measured")
    figure_legend(figure, handles, labels, "bottom", ncol=4)


def draw(context: Context) -> FigureResult:
    """Draws figure 8, one panel per quantity."""
    result = FigureResult(8, "Predicted against measured", "fig8_predicted_vs_measured")
    everything = validated(context.sweep, context.curves)
    found = everything.pairs
    if not found:
        reason = "; ".join(everything.failures + context.curves.failures) or "no prediction"
        result.gaps.append(f"the model gave no prediction for any measured run ({reason})")
        return result
    figure, axes = new_figure(1, len(QUANTITIES), height=4.6)
    datasets = sorted({p.run.dataset for p in found})
    for axis, (name, _) in zip(axes[0], QUANTITIES):
        chosen = [p for p in found if p.quantity == name]
        if chosen:
            _panel(axis, chosen, name, datasets)
        else:
            empty_panel(axis, f"no prediction of {name}")
    _legend(figure, everything, datasets)
    configurations = len({p.run.path for p in found})
    figure.suptitle(f"Each marker: one configuration's median run time and one model kind ({configurations} "
                    f"configurations, {run_count(found)} runs)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("Colour: the model kind; marker: the dataset; grey: ±15% of the measured value; the legend "
                      "gives each kind's total-time MAPE per dataset (RQ4 gives every phase).")
    return result
