"""Figure 6: the saturation benchmark: measured updates/s against clients for each server count, knees marked;
one panel per parameter count and think time."""

from .figure import Context, FigureResult
from .style import COLOURS, figure_legend, measured_style, new_figure, proxy_line, save, worker_axis

_MEASURED_KNEE = (0, (4, 2))
_MODEL_KNEE = (0, (1, 2))


def _panel(axis, runs, clients) -> None:
    for index, run in enumerate(sorted(runs, key=lambda r: r.servers)):
        axis.plot([p[0] for p in run.points], [p[1] for p in run.points], **measured_style(index))
        colour = COLOURS[index % len(COLOURS)]
        axis.axvline(run.knee_clients, color=colour, linestyle=_MEASURED_KNEE, linewidth=1.0)
        axis.axvline(run.knee_model, color=colour, linestyle=_MODEL_KNEE, linewidth=1.0)
    worker_axis(axis, clients, "clients k (emulated workers)")
    axis.set_ylabel("full pushes applied (updates/s)")
    axis.set_ylim(bottom=0)
    first = runs[0]
    ordered = sorted(runs, key=lambda r: r.servers)
    services = ", ".join(f"D = {r.service_us / 1000:.1f} ms (S={r.servers})" for r in ordered)
    axis.set_title(f"P = {first.parameters:,}, Z = {first.think_us / 1000:.1f} ms\n{services}", fontsize=8)


def _legend(figure, servers) -> None:
    handles = [proxy_line(**measured_style(i)) for i, _ in enumerate(servers)]
    labels = [f"measured, {s} server{'' if s == 1 else 's'}" for s in servers]
    handles += [proxy_line(color="#444444", linestyle=_MEASURED_KNEE),
                proxy_line(color="#444444", linestyle=_MODEL_KNEE)]
    labels += ["measured knee (first k within 10% of the plateau)", "(Z + D) / D from D at k = 1"]
    figure_legend(figure, handles, labels, "bottom", ncol=2)


def draw(context: Context) -> FigureResult:
    """Draws figure 6 from bench/server_saturation.json."""
    result = FigureResult(6, "Server saturation benchmark", "fig6_server_saturation")
    saturation = context.bench.saturation
    if saturation is None:
        result.gaps.append("no server_saturation.json in the bench folder")
        return result
    groups = sorted({(r.parameters, r.think_us) for r in saturation.runs})
    cols = 2 if len(groups) > 1 else 1
    rows = -(-len(groups) // cols)
    figure, axes = new_figure(rows, cols, height=1.8 + 2.9 * rows)
    clients = sorted({p[0] for r in saturation.runs for p in r.points})
    for index, group in enumerate(groups):
        runs = [r for r in saturation.runs if (r.parameters, r.think_us) == group]
        _panel(axes.flat[index], runs, clients)
    for axis in list(axes.flat)[len(groups):]:
        axis.set_visible(False)
    _legend(figure, sorted({r.servers for r in saturation.runs}))
    figure.suptitle(f"bench_server_saturation ({saturation.note or 'compute emulated'})", fontsize=9)
    result.files = save(figure, context.out, result.stem)
    result.gaps.append("no MVA or simulation curves: `psbench model predict` (CONTRACTS.md B) takes a training "
                       "workload, not the benchmark's emulated think time, so the model gives none for it")
    result.caption = ("Each client sleeps the think time Z in place of forward and backward and then pushes; colour "
                      "is the server count, dashed the measured knee, dotted (Z + D) / D from the service time D "
                      "measured at k = 1.")
    return result
