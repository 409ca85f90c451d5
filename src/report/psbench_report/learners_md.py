"""report.md's table of the learners' time to the target accuracy, and the RQ5 paragraph that quotes it."""

from statistics import median

from .learners import LearnerSet, target_times


def _pace(slowed: bool) -> str:
    return "one straggler" if slowed else "even"


def measured_at(learners: LearnerSet) -> str:
    """', measured at commit C from S' from the folder's manifest, or nothing without one."""
    manifest = learners.manifest
    if manifest is None:
        return ""
    return "".join([f", measured at commit `{manifest.git_commit}`" if manifest.git_commit else "",
                    f" from {manifest.started}" if manifest.started else ""])


def learners_table(learners: LearnerSet | None) -> list:
    """One row per learner and pace: time to the target, final test accuracy, samples/s, largest staleness."""
    if learners is None:
        return []
    target = learners.target()
    aim = f"{100 * target:g}%" if target is not None else "the target"
    lines = [f"### Learners: time to {aim} test accuracy", "",
             f"From `{learners.folder}` (figure 9{measured_at(learners)}): W = {learners.runs[0].workers} workers; "
             "medians over the runs; the time to the target over the runs that reached it.", "",
             f"| learner | pace | time to {aim} (s) | final test accuracy | samples/s | staleness max |",
             "| --- | --- | --- | --- | --- | --- |"]
    for slowed in (False, True):
        for learner, runs in learners.groups(slowed):
            lines.append(f"| {learner.label} | {_pace(slowed)} | {target_times(runs).text} | "
                         f"{100 * median(r.test_accuracy for r in runs):.2f}% | "
                         f"{median(r.samples_per_s for r in runs):.0f} | {max(r.staleness_max for r in runs)} |")
    return lines + [""]


def _time(groups: list, kind: str, value: float | None = None):
    """The median time to the target of one learner of groups, or None when it is absent or never reached it."""
    for learner, runs in groups:
        if learner.kind == kind and (value is None or learner.value == value):
            return target_times(runs).median_s
    return None


def _fastest(groups: list) -> str:
    times = [(target_times(runs).median_s, learner.label) for learner, runs in groups]
    reached = [(seconds, label) for seconds, label in times if seconds is not None]
    if not reached:
        return "none"
    seconds, label = min(reached)
    return f"{label} ({seconds:.2f} s)"


def learners_answer(learners: LearnerSet | None) -> list:
    """RQ5's paragraph on statistical efficiency (its lines): what samples/s leaves out, from the learner runs."""
    if learners is None:
        return ["Time to accuracy is not answered: no learner runs were given (`--learners`)."]
    target = learners.target()
    aim = f"{100 * target:g}%" if target is not None else "the target"
    even, slowed = learners.groups(False), learners.groups(True)
    lines = ["**Samples per second is not time to accuracy** (figure 9, the learners table): the model predicts "
             "throughput, while a stale gradient buys samples per second with accuracy per sample. "
             f"Without a straggler the first to reach {aim} was {_fastest(even)}."]
    bsp, ssp4, free = _time(slowed, "bsp"), _time(slowed, "ssp", 4.0), _time(slowed, "async")
    if slowed:
        lines.append(f"With one straggler the first was {_fastest(slowed)}; s = 0 took "
                     + " ".join(["n/a" if bsp is None else f"{bsp:.2f} s,", "s = 4",
                                 "n/a" if ssp4 is None else f"{ssp4:.2f} s,", "unbounded async",
                                 "n/a" if free is None else f"{free:.2f} s."]))
        if bsp is not None and ssp4 is not None:
            verdict = "holds" if ssp4 < bsp else "does not hold"
            lines.append(f"The SSP claim that s = 4 reaches the target before s = 0 beside a straggler {verdict} "
                         "on these runs.")
    return lines
