"""Figure 11: test accuracy against the bytes a worker sent and against training time for CNTK's learners
(`--communication DIR`): sync and async, each with and without 1-bit SGD, BMUF and model averaging."""

from .figure import Context, FigureResult
from .style import COLOURS, MARKERS, figure_legend, new_figure, proxy_line, save


def _style(index: int) -> dict:
    colour = COLOURS[index % len(COLOURS)]
    return {"color": colour, "marker": MARKERS[index % len(MARKERS)], "markersize": 3.5, "linewidth": 0.9,
            "linestyle": ("-", "--")[index // len(COLOURS) % 2], "markerfacecolor": "white" if index % 2 else colour}


def draw(context: Context) -> FigureResult:
    """Draws figure 11: accuracy against MB sent (log scale) and against training time, every run drawn."""
    result = FigureResult(11, "CNTK's learners: test accuracy against bytes sent and against time",
                          "fig11_communication")
    runs = context.communication
    if runs is None:
        result.gaps.append("no communication runs given (`--communication DIR`: docs/results/measure.sh "
                           "communication makes them)")
        return result
    groups = runs.groups(False)
    counted = [(learner, [r for r in group if r.bytes_per_sample is not None]) for learner, group in groups]
    if not any(group for _, group in counted):
        result.gaps.append("no run records the bytes it sent (per_rank[].worker.exchange.bytes_sent)")
        return result
    figure, axes = new_figure(1, 2, height=5.0)
    handles, labels = [], []
    for index, (learner, group) in enumerate(counted):
        style = _style(index)
        for run in group:
            axes[0][0].plot([run.bytes_at(p) / 1e6 for p in run.curve], [p.accuracy for p in run.curve], alpha=0.85,
                            **style)
            axes[0][1].plot([p.time_s for p in run.curve], [p.accuracy for p in run.curve], alpha=0.85, **style)
        if group:
            handles.append(proxy_line(**style))
            labels.append(learner.label)
    target = runs.target()
    for axis in axes[0]:
        if target is not None:
            axis.axhline(target, color="#000000", linestyle=":", linewidth=0.9)
        axis.set_ylabel("test accuracy")
    axes[0][0].set_xscale("log")
    axes[0][0].set_xlabel("MB the first worker sent (pro rata of its samples)")
    axes[0][1].set_xlabel("training time (s, test evaluations excluded)")
    axes[0][1].set_xlim(left=0)
    figure_legend(figure, handles, labels, ncol=3)
    figure.suptitle(f"Test accuracy against communication and time, W = {runs.runs[0].workers} (measured runs)")
    result.files = save(figure, context.out, result.stem)
    result.caption = ("Test accuracy of the model each run would deliver, one line per run, against the megabytes "
                      "the first worker handed to MPI (log scale) and against training time; the dotted line is the "
                      "target.")
    return result
