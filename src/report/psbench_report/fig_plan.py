"""Figure 10: `psbench model plan`'s predicted total time over workers, one line per server count, at the
recommendation's I/O mode and ranks per node, with the recommendation and the fastest configuration marked."""

from .figure import Context, FigureResult
from .style import figure_legend, new_figure, proxy_line, save, worker_axis


def _colour(index: int, count: int) -> str:
    """A colour of its own for each server count: viridis, evenly spaced (a plan may list a dozen counts)."""
    from matplotlib import colormaps
    rgb = colormaps["viridis"](index / max(1, count - 1) * 0.9)
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb[:3])


def _label(point: dict) -> str:
    return (f"S = {point['servers']}, W = {point['workers']}, {point['nodes']} node"
            f"{'' if point['nodes'] == 1 else 's'}, {point['io']} I/O: {point['mva']['total_s']:.3g} s")


def draw(context: Context) -> FigureResult:
    """Draws figure 10 from the plan study."""
    study = context.plan
    result = FigureResult(10, f"Planning a cluster on the '{study.platform}' platform", "fig10_plan")
    surface = study.surface()
    if study.failure or not surface:
        result.gaps.append(f"the model gave no plan ({study.failure or 'no surface in its answer'})")
        return result
    figure, axes = new_figure(1, 1, height=5.0)
    axis = axes[0][0]
    handles, labels = [], []
    for index, (servers, points) in enumerate(sorted(surface.items())):
        style = {"color": _colour(index, len(surface)), "linestyle": ("-", "--", "-.", ":")[index % 4],
                 "marker": "os^Dv"[index % 5], "markersize": 3}
        axis.plot([w for w, _ in points], [t for _, t in points], **style)
        handles.append(proxy_line(**style))
        labels.append(f"S = {servers}")
    best, fastest = study.recommendation, study.plan["fastest"]
    marks = [(best, "*", "recommended")]
    if (fastest["workers"], fastest["servers"], fastest["io"]) != (best["workers"], best["servers"], best["io"]):
        marks.append((fastest, "D", "fastest"))
    for index, (point, marker, name) in enumerate(marks):
        style = {"marker": marker, "color": ("#D55E00", "#CC79A7")[index], "markersize": 12 - 4 * index,
                 "markeredgecolor": "black", "linestyle": "none"}
        axis.plot([point["workers"]], [point["mva"]["total_s"]], **style)
        handles.append(proxy_line(**style))
        labels.append(f"{name}: {_label(point)}")
    worker_axis(axis, [w for points in surface.values() for w, _ in points])
    axis.set_yscale("log")
    axis.set_ylabel("predicted total time (s), MVA")
    figure_legend(figure, handles, labels, "bottom", ncol=3)
    workload = context.curves.workload
    figure.suptitle(f"Model only, platform '{study.platform}', within {study.nodes} nodes: {workload.key.model}, "
                    f"batch {workload.key.batch}, {workload.key.epochs} epoch(s), {workload.all_runs()[0].samples} "
                    f"samples\n(lines: {best['io']} I/O, {best['ranks_per_node']} ranks per node, as recommended)",
                    fontsize=9)
    result.files = save(figure, context.out, result.stem)
    result.caption = ("`psbench model plan`'s predicted total time (MVA) of every worker count it searched, one line "
                      "per server count, at the recommendation's I/O mode and ranks per node; the star is the "
                      f"recommendation (the fewest nodes within {100 * study.plan['tolerance']:.0f}% of the "
                      "fastest), a diamond the fastest. Nothing here was measured.")
    return result
