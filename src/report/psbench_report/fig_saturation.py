"""Figure 6: the saturation benchmark: measured updates/s against clients for each server count, knee marked."""

from .figure import Context, FigureResult
from .style import COLOURS, figure_legend, measured_style, new_figure, save, worker_axis


def _plot_run(axes, index, run) -> None:
    clients = [p[0] for p in run.points]
    label = f"measured, {run.servers} server{'' if run.servers == 1 else 's'}"
    axes[0].plot(clients, [p[1] for p in run.points], label=label, **measured_style(index))
    axes[1].plot(clients, [p[2] for p in run.points], label=label, **measured_style(index))
    colour = COLOURS[index % len(COLOURS)]
    for axis in axes:
        axis.axvline(run.knee_clients, color=colour, linestyle=(0, (4, 2)), linewidth=0.9,
                     label=f"measured knee, {run.servers} server(s): {run.knee_clients} clients")
        axis.axvline(run.knee_model, color=colour, linestyle=(0, (1, 2)), linewidth=0.9,
                     label=f"(Z + D) / D = {run.knee_model:.1f} (Z = {run.think_us:.0f} µs, "
                           f"D = {run.service_us:.0f} µs)")


def draw(context: Context) -> FigureResult:
    """Draws figure 6 from bench/server_saturation.json."""
    result = FigureResult(6, "Server saturation benchmark", "fig6_server_saturation")
    saturation = context.bench.saturation
    if saturation is None:
        result.gaps.append("no server_saturation.json in the bench folder")
        return result
    figure, axes = new_figure(1, 2, height=4.8)
    for index, run in enumerate(sorted(saturation.runs, key=lambda r: r.servers)):
        _plot_run(axes[0], index, run)
    clients = sorted({p[0] for r in saturation.runs for p in r.points})
    for axis, label in zip(axes[0], ("full pushes applied (updates/s)", "busiest server's utilisation (fraction)")):
        worker_axis(axis, clients, "clients k (emulated workers)")
        axis.set_ylabel(label)
        axis.set_ylim(bottom=0)
    axes[0][1].set_ylim(0, 1.05)
    axes[0][0].set_title("throughput")
    axes[0][1].set_title("utilisation")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure_legend(figure, handles, labels, "bottom", ncol=2)
    figure.suptitle(f"bench_server_saturation, P = {saturation.runs[0].parameters:,} parameters"
                    f" ({saturation.note or 'compute emulated'})", fontsize=9)
    result.files = save(figure, context.out, result.stem)
    result.gaps.append("no MVA or simulation curves: `psbench model predict` (CONTRACTS.md B) takes a training "
                       "workload, not the benchmark's emulated think time, so the model gives none for it")
    result.caption = ("Each client sleeps the think time Z in place of forward and backward and then pushes; "
                      "dashed: the measured knee (first k within 10% of the plateau), dotted: (Z + D) / D from "
                      "the measured service time D at k = 1.")
    return result
