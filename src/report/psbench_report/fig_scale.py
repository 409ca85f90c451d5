"""Figure 7: predicted time and speed-up to thousands of workers on a large platform, knees marked."""

from .figure import Context, FigureResult
from .model import curve
from .predictions import SCALE_CASES, SCALE_WORKERS, SIM_SCALE_MAX
from .style import (COLOURS, KIND_LABELS, KIND_STYLES, MARKERS, figure_legend, new_figure, proxy_line, save,
                    worker_axis)

_KINDS = ("revised", "mva", "sim")


def _knee(axis, predictions, kind, workers, totals, index) -> bool:
    knees = [p.values["knee_workers"] for p in predictions if p.kind == kind and "knee_workers" in p.values]
    if not knees or not min(workers) <= knees[0] <= max(workers):
        return False
    nearest = min(workers, key=lambda w: abs(w - knees[0]))
    axis.plot([knees[0]], [totals[workers.index(nearest)]], marker=MARKERS[index % len(MARKERS)],
              color=COLOURS[index % len(COLOURS)], markersize=8, markerfacecolor="white", linestyle="none")
    return True


def _plot_case(axes, index, predictions) -> set:
    colour = COLOURS[index % len(COLOURS)]
    drawn = set()
    for kind in _KINDS:
        workers, totals = curve(predictions, kind, "total_s")
        if not workers:
            continue
        drawn.add(kind)
        style = {"color": colour, "linestyle": KIND_STYLES[kind]}
        axes[0].plot(workers, totals, **style)
        if workers[0] == 1:
            axes[1].plot(workers, [totals[0] / t for t in totals], **style)
        if kind == "mva":
            _knee(axes[0], predictions, kind, workers, totals, index)
    return drawn


def _legend(figure, cases, kinds) -> None:
    handles = [proxy_line(color="#444444", linestyle=KIND_STYLES[k]) for k in _KINDS if k in kinds]
    labels = [KIND_LABELS[k] for k in _KINDS if k in kinds]
    for index, (case, _) in enumerate(cases):
        handles.append(proxy_line(color=COLOURS[index % len(COLOURS)], marker=MARKERS[index % len(MARKERS)],
                                  markerfacecolor="white", linewidth=2.5))
        labels.append(f"{case.label} (marker: MVA knee)")
    handles.append(proxy_line(color="#999999", linewidth=0.8))
    labels.append("linear speed-up")
    figure_legend(figure, handles, labels, "bottom", ncol=3)


def draw(context: Context) -> FigureResult:
    """Draws figure 7 from the scale predictions."""
    result = FigureResult(7, f"Predicted scaling on the '{context.curves.platform}' platform", "fig7_scale_prediction")
    cases = [(c, context.curves.scale(c)) for c in SCALE_CASES]
    cases = [(c, p) for c, p in cases if p]
    if not cases:
        reason = "; ".join(context.curves.failures) or "no prediction"
        result.gaps.append(f"the model gave no predictions for the platform ({reason})")
        return result
    figure, axes = new_figure(1, 2, height=5.2)
    kinds = set()
    for index, (_, predictions) in enumerate(cases):
        kinds |= _plot_case(axes[0], index, predictions)
    axes[0][1].plot(list(SCALE_WORKERS), list(SCALE_WORKERS), color="#999999", linewidth=0.8)
    for axis in axes[0]:
        worker_axis(axis, list(SCALE_WORKERS))
        axis.set_yscale("log")
    axes[0][0].set_ylabel("predicted total time (s)")
    axes[0][1].set_ylabel("predicted speed-up T(1) / T(W)")
    _legend(figure, cases, kinds)
    workload = context.curves.workload.key
    figure.suptitle(f"Model only, platform '{context.curves.platform}': {workload.model}, batch {workload.batch}, "
                    f"{workload.epochs} epoch(s), {context.curves.workload.all_runs()[0].samples} samples", fontsize=9)
    result.files = save(figure, context.out, result.stem)
    missing = [c.label for c in SCALE_CASES if not context.curves.scale(c)]
    if missing:
        result.gaps.append(f"no prediction for: {', '.join(missing)}")
    result.caption = ("Predicted total time and speed-up to 4096 workers, one rank per node (the simulation to "
                      f"{SIM_SCALE_MAX}): line style the kind, colour the server count and I/O mode, hollow marker the "
                      "MVA knee. Nothing here was measured.")
    return result
