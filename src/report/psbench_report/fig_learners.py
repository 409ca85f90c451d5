"""Figure 9: the learners between sync and async: each learner's median test-accuracy curve over its runs with the
runs' spread as a band, without and with a straggler, and the time to the target as a dot plot (every run a dot,
the median a bar)."""

import numpy

from .figure import Context, FigureResult
from .learners import target_times
from .style import COLOURS, MARKERS, empty_panel, figure_legend, new_figure, proxy_line, save

#: Points of the common time grid the runs' curves are interpolated onto.
_GRID = 200


def _band(runs: list):
    """(times, median, low, high) of the runs' accuracy on a common grid up to the shortest run's last point."""
    end = min(run.curve[-1].time_s for run in runs)
    start = max(run.curve[0].time_s for run in runs)
    if end <= start:
        return None
    grid = numpy.linspace(start, end, _GRID)
    curves = numpy.array([numpy.interp(grid, [p.time_s for p in run.curve], [p.accuracy for p in run.curve])
                          for run in runs])
    return grid, numpy.median(curves, axis=0), curves.min(axis=0), curves.max(axis=0)


def _style(index: int) -> dict:
    colour = COLOURS[index % len(COLOURS)]
    return {"color": colour, "marker": MARKERS[index % len(MARKERS)],
            "markerfacecolor": "white" if index % 2 else colour}


def _curves(axis, groups: list, target: float | None, rank: dict) -> dict:
    """Each learner's median curve and band; returns {learner: legend handle}."""
    handles = {}
    for learner, runs in groups:
        style = _style(rank[learner])
        runs = [run for run in runs if len(run.curve) >= 2]
        band = _band(runs) if runs else None
        if band is None:
            continue
        grid, mid, low, high = band
        axis.fill_between(grid, low, high, color=style["color"], alpha=0.15, linewidth=0)
        axis.plot(grid, mid, color=style["color"], linewidth=1.2, marker=style["marker"], markevery=_GRID // 8,
                  markersize=4, markerfacecolor=style["markerfacecolor"])
        handles[learner] = proxy_line(linewidth=1.2, markersize=4, **style)
    if target is not None:
        axis.axhline(target, color="#000000", linestyle=":", linewidth=0.9)
    axis.set_xlabel("training time (s)")
    axis.set_ylabel("test accuracy")
    axis.set_xlim(left=0)
    return handles


def _dots(axis, learners, everyone: list, rank: dict) -> None:
    """Time to the target: one row per learner, every run a dot (filled: even pace, hollow: one straggler), the
    median a vertical bar; a run that never reached the target sits at the right edge as an x."""
    longest = max((run.training_s for run in learners.runs), default=1.0)
    for row, learner in enumerate(everyone):
        colour = _style(rank[learner])["color"]
        for slowed, offset in ((False, -0.15), (True, 0.15)):
            runs = [r for learner_, group in learners.groups(slowed) if learner_ == learner for r in group]
            if not runs:
                continue
            reached = [r.time_to_target_s for r in runs if r.time_to_target_s is not None]
            axis.plot(reached, [row + offset] * len(reached), linestyle="none", marker="o", color=colour,
                      markerfacecolor="white" if slowed else colour, markersize=5)
            missed = len(runs) - len(reached)
            if missed:
                axis.plot([longest] * missed, [row + offset] * missed, linestyle="none", marker="x", color=colour)
            middle = target_times(runs).median_s
            if middle is not None:
                axis.plot([middle, middle], [row + offset - 0.12, row + offset + 0.12], color=colour, linewidth=2)
    axis.set_yticks(range(len(everyone)), [learner.label for learner in everyone], fontsize=7)
    axis.set_ylim(len(everyone) - 0.5, -0.5)
    axis.set_xlim(left=0)
    axis.set_xlabel("time to target (s)\nfilled: even pace, hollow: straggler,\nbar: median, x: not reached",
                    fontsize=7)
    axis.set_title("time to the target", fontsize=9)


def draw(context: Context) -> FigureResult:
    """Draws figure 9: the curves per pace, and the dot plot."""
    result = FigureResult(9, "Learners between sync and async: test accuracy against time", "fig9_learners")
    learners = context.learners
    if learners is None:
        result.gaps.append("no learner runs given (`--learners DIR`: docs/results/measure.sh learners makes them)")
        return result
    stragglers = learners.stragglers()
    paces = [(False, "all workers at one pace"), (True, f"one straggler ({', '.join(stragglers) or 'none'})")]
    figure, axes = new_figure(1, 3, height=4.6)
    everyone = sorted({run.learner for run in learners.runs}, key=lambda learner: learner.order())
    rank = {learner: index for index, learner in enumerate(everyone)}
    handles = {}
    for col, (slowed, title) in enumerate(paces):
        groups = learners.groups(slowed)
        if not groups:
            empty_panel(axes[0][col], f"no runs {'with' if slowed else 'without'} a straggler")
            result.gaps.append(f"no learner runs {'with' if slowed else 'without'} a straggler")
            continue
        handles.update(_curves(axes[0][col], groups, learners.target(), rank))
        axes[0][col].set_title(title, fontsize=9)
    low = min(axis.get_ylim()[0] for axis in axes[0][:2])
    for axis in axes[0][:2]:
        axis.set_ylim(bottom=low)
    if learners.target() is not None:
        _dots(axes[0][2], learners, everyone, rank)
    else:
        empty_panel(axes[0][2], "no target accuracy (--target-accuracy)")
    figure_legend(figure, [handles[learner] for learner in everyone if learner in handles],
                  [learner.label for learner in everyone if learner in handles], ncol=3)
    figure.suptitle(f"Test accuracy against training time, W = {learners.runs[0].workers} (median of the runs, "
                    "band: their range)")
    result.files = save(figure, context.out, result.stem)
    target = learners.target()
    goal = f", the dotted line the target, {100 * target:g}%" if target is not None else ""
    result.caption = ("Each learner's median test accuracy over its runs (the model the run would deliver), the "
                      f"band their range{goal}; right: every run's time to the target.")
    return result
