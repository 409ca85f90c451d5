"""Figure 6: the saturation benchmark: measured updates/s against clients for each server count, with the MVA and
SimGrid curves of `psbench model saturation` and the knees (measured and modelled); one panel per parameter count
and think time."""

from .figure import Context, FigureResult
from .model import ModelUnavailable
from .style import COLOURS, KIND_LABELS, KIND_STYLES, figure_legend, measured_style, new_figure, proxy_line, save, \
    worker_axis

_KINDS = ("mva", "sim")
_KNEE_MARKERS = {"measured": "*", "mva": "v", "sim": "^"}


def _knee_marker(axis, kind: str, colour: str, k: int, points: list) -> None:
    rate = dict(points).get(k)
    if rate is None:
        return
    axis.plot([k], [rate], marker=_KNEE_MARKERS[kind], markersize=11 if kind == "measured" else 8, color=colour,
              markerfacecolor="none", markeredgewidth=1.3, linestyle="none", zorder=4)


def _curves_of(model_run: dict | None) -> dict:
    """{kind: (points [(k, updates/s)], knee, mape)} of one run's JSON."""
    found = {}
    for curve in (model_run or {}).get("curves", []):
        points = [(p["clients"], p["updates_per_s"]) for p in curve["points"]]
        found[curve["kind"]] = (points, curve["knee_clients"], curve.get("mape_percent"))
    return found


def _panel(axis, runs: list, clients: list) -> None:
    for index, (run, model_run) in enumerate(sorted(runs, key=lambda pair: pair[0].servers)):
        colour = COLOURS[index % len(COLOURS)]
        measured = [(p[0], p[1]) for p in run.points]
        axis.plot([p[0] for p in measured], [p[1] for p in measured], **measured_style(index))
        for kind, (points, knee, _) in _curves_of(model_run).items():
            axis.plot([p[0] for p in points], [p[1] for p in points], color=colour, linestyle=KIND_STYLES[kind],
                      linewidth=1.2)
            _knee_marker(axis, kind, colour, knee, points)
        if model_run is not None:
            _knee_marker(axis, "measured", colour, model_run["measured"]["knee_clients"], measured)
    worker_axis(axis, clients, "clients k (emulated workers)")
    axis.set_ylabel("full pushes applied (updates/s)")
    axis.set_ylim(bottom=0)
    first = runs[0][0]
    services = ", ".join(f"D_0 = {r.service_us / 1000:.2f} ms, Z = {r.think_measured_us / 1000:.2f} ms (S={r.servers})"
                         for r, _ in sorted(runs, key=lambda pair: pair[0].servers))
    axis.set_title(f"P = {first.parameters:,}\n{services}", fontsize=8)


def _legend(figure, servers: list, kinds: list) -> None:
    handles = [proxy_line(**measured_style(i)) for i, _ in enumerate(servers)]
    labels = [f"measured, {s} server{'' if s == 1 else 's'}" for s in servers]
    for kind in kinds:
        handles.append(proxy_line(color="#444444", linestyle=KIND_STYLES[kind]))
        labels.append(KIND_LABELS[kind] + " (colour: server count)")
    for kind in ["measured"] + kinds:
        handles.append(proxy_line(color="#444444", marker=_KNEE_MARKERS[kind], markerfacecolor="none",
                                  linestyle="none"))
        labels.append(f"knee, {'measured' if kind == 'measured' else KIND_LABELS[kind]}")
    figure_legend(figure, handles, labels, "bottom", ncol=3)


def _model_runs(context: Context, saturation, result: FigureResult) -> list:
    """The model's JSON run for each measured run (same order), or Nones with the reason in the gaps."""
    try:
        document = context.saturation.comparisons(saturation.path)
    except ModelUnavailable as why:
        result.gaps.append(f"no MVA or simulation curves: {why}")
        return [None] * len(saturation.runs)
    runs = document["runs"]
    if len(runs) != len(saturation.runs) or any(
            m["inputs"]["servers"] != r.servers or m["inputs"]["parameters"] != r.parameters
            for m, r in zip(runs, saturation.runs)):
        result.gaps.append("no MVA or simulation curves: `psbench model saturation` answered for other runs")
        return [None] * len(saturation.runs)
    return runs


def _caption() -> str:
    return ("Clients sleep the think time Z in place of forward and backward; markers: measured, lines: "
            "`psbench model saturation` from each run's k = 1 point; knees: the first k within 10% of the plateau.")


def draw(context: Context) -> FigureResult:
    """Draws figure 6 from bench/server_saturation.json and the saturation model."""
    result = FigureResult(6, "Server saturation benchmark", "fig6_server_saturation")
    saturation = context.bench.saturation
    if saturation is None:
        result.gaps.append("no server_saturation.json in the bench folder")
        return result
    pairs = list(zip(saturation.runs, _model_runs(context, saturation, result)))
    groups = sorted({(r.parameters, r.think_us) for r in saturation.runs})
    cols = 2 if len(groups) > 1 else 1
    rows = -(-len(groups) // cols)
    figure, axes = new_figure(rows, cols, height=2.2 + 2.9 * rows)
    clients = sorted({p[0] for r in saturation.runs for p in r.points})
    for index, group in enumerate(groups):
        _panel(axes.flat[index], [pair for pair in pairs if (pair[0].parameters, pair[0].think_us) == group], clients)
    for axis in list(axes.flat)[len(groups):]:
        axis.set_visible(False)
    kinds = [k for k in _KINDS if any(k in _curves_of(m) for _, m in pairs)]
    _legend(figure, sorted({r.servers for r in saturation.runs}), kinds)
    figure.suptitle(f"bench_server_saturation ({saturation.note or 'compute emulated'})", fontsize=9)
    result.files = save(figure, context.out, result.stem)
    result.caption = _caption()
    return result
