"""Figure 9: test accuracy against training time for the learners between sync and async, without and with a
straggler."""

from .figure import Context, FigureResult
from .learners import target_times
from .style import COLOURS, MARKERS, empty_panel, figure_legend, new_figure, proxy_line, save


def _panel(axis, groups: list, target: float | None, rank: dict) -> dict:
    """Draws every run of every learner (colour and marker by the learner's rank in the whole set); returns
    {learner: legend handle}."""
    handles = {}
    for learner, runs in groups:
        index = rank[learner]
        style = {"color": COLOURS[index % len(COLOURS)], "marker": MARKERS[index % len(MARKERS)], "markersize": 3.5,
                 "linewidth": 0.9, "markerfacecolor": "white" if index % 2 else COLOURS[index % len(COLOURS)]}
        for run in runs:
            axis.plot([p.time_s for p in run.curve], [p.accuracy for p in run.curve], alpha=0.85, **style)
        handles[learner] = proxy_line(**style)
    if target is not None:
        axis.axhline(target, color="#000000", linestyle=":", linewidth=0.9)
    axis.set_xlabel("training time (s, test evaluations excluded)")
    axis.set_ylabel("test accuracy")
    axis.set_xlim(left=0)
    return handles


def _caption(context: Context) -> str:
    learners = context.learners
    target = learners.target()
    parts = []
    for slowed, name in ((False, "without a straggler"), (True, "with one straggler")):
        groups = learners.groups(slowed)
        if groups and target is not None:
            parts.append(f"time to {100 * target:g}% {name}: " + "; ".join(
                f"{learner.label} {target_times(runs).text}" for learner, runs in groups))
    return ("Test accuracy during training of the model each run would deliver at that point (the first worker's "
            "parameters; between block synchronisations the combined model), one line per run (all repetitions "
            f"drawn), W = {learners.runs[0].workers} workers; the dotted line is the target. "
            + ". ".join(parts) + " (median of the runs that reached it, their range, runs that reached it).")


def draw(context: Context) -> FigureResult:
    """Draws figure 9: one panel per pace (even, one straggler)."""
    result = FigureResult(9, "Learners between sync and async: test accuracy against time", "fig9_learners")
    learners = context.learners
    if learners is None:
        result.gaps.append("no learner runs given (`--learners DIR`: docs/results/measure.sh learners makes them)")
        return result
    stragglers = learners.stragglers()
    stopped = any(run.stopped_at_target for run in learners.runs if run.slowed)
    paces = [(False, "all workers at one pace"),
             (True, f"one straggler ({', '.join(stragglers) or 'none'})"
                    + (", stopped at the target" if stopped else ""))]
    figure, axes = new_figure(1, 2, height=5.0)
    everyone = sorted({run.learner for run in learners.runs}, key=lambda learner: learner.order())
    rank = {learner: index for index, learner in enumerate(everyone)}
    handles = {}
    for col, (slowed, title) in enumerate(paces):
        groups = learners.groups(slowed)
        if not groups:
            empty_panel(axes[0][col], f"no runs {'with' if slowed else 'without'} a straggler")
            result.gaps.append(f"no learner runs {'with' if slowed else 'without'} a straggler")
            continue
        handles.update(_panel(axes[0][col], groups, learners.target(), rank))
        axes[0][col].set_title(title, fontsize=9)
    low = min(axis.get_ylim()[0] for axis in axes[0])
    for axis in axes[0]:
        axis.set_ylim(bottom=low)
    figure_legend(figure, [handles[learner] for learner in everyone], [learner.label for learner in everyone], ncol=3)
    figure.suptitle("Test accuracy against training time per learner (measured runs)")
    result.files = save(figure, context.out, result.stem)
    result.caption = _caption(context)
    return result
