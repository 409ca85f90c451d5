"""Figure 8: predicted against measured for every configuration (the median of its runs) and kind, with the ±15%
band."""

from .figure import Context, FigureResult
from .model import KINDS
from .style import KIND_COLOURS, MARKERS, empty_panel, new_figure, save
from .validation import BAND, QUANTITIES, run_count, validated


def _panel(axis, chosen, name, mapes) -> None:
    values = [v for p in chosen for v in (p.measured, p.predicted)]
    low, high = min(values) / 1.5, max(values) * 1.5
    line = [low, high]
    axis.fill_between(line, [x * (1 - BAND) for x in line], [x * (1 + BAND) for x in line], color="#cccccc",
                      alpha=0.6, linewidth=0, label="±15% of measured")
    axis.plot(line, line, color="#555555", linewidth=0.8, label="predicted = measured")
    for index, kind in enumerate(KINDS):
        mine = [p for p in chosen if p.kind == kind]
        if not mine:
            continue
        axis.plot([p.measured for p in mine], [p.predicted for p in mine], linestyle="none",
                  marker=MARKERS[index], color=KIND_COLOURS[kind], markerfacecolor="white" if index % 2 else None,
                  label=f"{kind} (MAPE {mapes[kind]})")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    axis.set_xlabel(f"measured {name} (s)")
    axis.set_ylabel(f"predicted {name} (s)")
    axis.set_title(name)
    axis.legend(loc="upper left", fontsize=6.5)


def draw(context: Context) -> FigureResult:
    """Draws figure 8, one panel per quantity."""
    result = FigureResult(8, "Predicted against measured", "fig8_predicted_vs_measured")
    everything = validated(context.sweep, context.curves)
    found = everything.pairs
    if not found:
        reason = "; ".join(everything.failures + context.curves.failures) or "no prediction"
        result.gaps.append(f"the model gave no prediction for any measured run ({reason})")
        return result
    figure, axes = new_figure(1, len(QUANTITIES), height=4.2)
    for axis, (name, _) in zip(axes[0], QUANTITIES):
        chosen = [p for p in found if p.quantity == name]
        mapes = {kind: ", ".join(f"{s.mape[kind][name]:.0f}%" for s in everything.summaries if kind in s.mape)
                 for kind in KINDS}
        if chosen:
            _panel(axis, chosen, name, mapes)
        else:
            empty_panel(axis, f"no prediction of {name}")
    configurations = len({p.run.path for p in found})
    figure.suptitle(f"Each marker: one configuration's median run time and one model kind ({configurations} "
                    f"configurations, {run_count(found)} runs)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("A point on the diagonal is a perfect prediction; the grey band is ±15% of the measured "
                      "value; the legend gives each kind's mean absolute percentage error, as `psbench model validate` "
                      "computes it.")
    return result
