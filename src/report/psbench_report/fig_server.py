"""Figure 3: server utilisation and updates/s against workers, one line per server count."""

from .figure import Context, FigureResult, distinct_curves, kinds_label
from .style import COLOURS, KIND_STYLES, config_style, empty_panel, figure_legend, new_figure, save, worker_axis

_PANELS = (("server utilisation (fraction busy)", lambda r: r.utilization, "server_utilization"),
           ("full pushes applied (1/s)", lambda r: r.pushes_per_s, "updates_per_s"))
#: Kinds drawn here: the two that model the server as a queue.
_KINDS = ("mva", "sim")


def _panel(axis, series_list, context, panel) -> None:
    label, value, key = panel
    servers = sorted({s.key.servers for s in series_list})
    for series in series_list:
        runs = series.all_runs()
        where = servers.index(series.key.servers)
        axis.plot([r.workers for r in runs], [value(r) for r in runs], label=f"measured, {series.key.config}",
                  **config_style(where, where, series.key.io == "sequential"))
    for series in series_list:
        if series.key.io != series_list[0].key.io:
            continue
        colour = COLOURS[servers.index(series.key.servers) % len(COLOURS)]
        for kinds, w, v in distinct_curves(context.curves.of(series), key, _KINDS):
            axis.plot(w, v, color=colour, linestyle=KIND_STYLES[kinds[0]],
                      label=f"{kinds_label(kinds)}, {series.key.servers} server(s)")
    worker_axis(axis, [w for s in series_list for w in s.workers])
    axis.set_ylabel(label)
    axis.set_ylim(bottom=0, top=1.05 if key == "server_utilization" else None)


def draw(context: Context) -> FigureResult:
    """Draws figure 3: rows are datasets; lines per server count, markers per server count and I/O mode."""
    result = FigureResult(3, "Server utilisation and throughput against workers", "fig3_server_vs_workers")
    if len(context.sweep.worker_counts()) < 2:
        result.gaps.append("the sweep has a single worker count, so there is no curve against workers")
        return result
    datasets = context.sweep.datasets()
    figure, axes = new_figure(len(datasets), 2, height=2.6 + 2.3 * len(datasets))
    for row, dataset in enumerate(datasets):
        series_list = context.sweep.series_of(dataset)
        if any(context.curves.of(s) is None for s in series_list):
            result.gaps.append(f"{dataset}: model curves missing for some server counts (no prediction)")
        for col, panel in enumerate(_PANELS):
            axis = axes[row][col]
            if len({w for s in series_list for w in s.workers}) < 2:
                empty_panel(axis, f"{dataset}: one worker count only")
                continue
            _panel(axis, series_list, context, panel)
            axis.set_title(f"{dataset}: {panel[0].split(' (')[0]}")
    handles, labels = axes[0][1].get_legend_handles_labels()
    figure_legend(figure, handles, labels, "bottom", ncol=2)
    figure.suptitle("Servers: measured (markers) and queueing model (lines)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("Utilisation: the servers' summed service time over their serve time; full pushes/s: worker "
                      "steps applied per second. Lines: the MVA model and the simulation per server count.")
    return result
