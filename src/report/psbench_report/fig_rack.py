"""Figure 12: the rack sweep: server utilisation and samples/s against workers, one line per server count and I/O
mode, the medians of the repetitions with their range."""

from statistics import median

from .figure import Context, FigureResult
from .style import COLOURS, MARKERS, figure_legend, new_figure, proxy_line, save, worker_axis

_PANELS = (("server utilisation (fraction busy)", lambda r: r.utilization),
           ("samples/s", lambda r: r.samples_per_s))


def _series(rack) -> dict:
    """{(servers, io): {workers: [runs]}}."""
    found = {}
    for run in rack.runs:
        found.setdefault((run.servers, run.io), {}).setdefault(run.workers, []).append(run)
    return found


def draw(context: Context) -> FigureResult:
    """Draws figure 12 when the report was given a rack sweep."""
    result = FigureResult(12, "The virtual rack: one server against two on shaped links", "fig12_rack")
    rack = context.rack
    if rack is None:
        result.gaps.append("no rack sweep given (`--rack DIR`: docs/results/measure.sh rack makes one)")
        return result
    figure, axes = new_figure(1, 2, height=4.2)
    handles, labels = [], []
    series = _series(rack)
    servers = sorted({s for s, _ in series})
    for (count, io), by_w in sorted(series.items()):
        colour = COLOURS[(1 + servers.index(count)) % len(COLOURS)]
        style = {"color": colour, "marker": MARKERS[servers.index(count)], "linestyle": "-" if io == "sequential"
                 else "--", "markerfacecolor": colour if io == "sequential" else "white"}
        ws = sorted(by_w)
        for axis, (_, value) in zip(axes[0], _PANELS):
            mids = [median(value(r) for r in by_w[w]) for w in ws]
            low = [m - min(value(r) for r in by_w[w]) for m, w in zip(mids, ws)]
            high = [max(value(r) for r in by_w[w]) - m for m, w in zip(mids, ws)]
            axis.errorbar(ws, mids, yerr=[low, high], capsize=2, **style)
        handles.append(proxy_line(**style))
        labels.append(f"{count} server{'s' * (count > 1)}, {io} I/O")
    for axis, (label, _) in zip(axes[0], _PANELS):
        worker_axis(axis, [r.workers for r in rack.runs])
        axis.set_ylabel(label)
        axis.set_ylim(bottom=0)
    figure_legend(figure, handles, labels, "bottom", ncol=2)
    link = next((m.link for m in rack.manifests if m.link), None)
    rate = f"{link.get('rate')} links" if link else "shaped links"
    figure.suptitle(f"Virtual rack, one rank per node, {rate} (measured: median and range of the repetitions)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("Each server on a node of its own, one worker per node, over TCP between network namespaces "
                      "on one host. A server whose utilisation nears 1 while samples/s stay flat is saturated; the "
                      "second server's line shows what sharding gives.")
    return result
