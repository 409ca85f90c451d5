"""report.md's table "Communication": per learner of the `--communication` runs, the bytes a worker sends per
sample and to reach the target, beside the time to it and the final accuracy (figure 11)."""

from statistics import median

from .learners import LearnerSet, target_times
from .learners_md import measured_at


def _megabytes(values: list) -> str:
    """The median and range of byte counts in MB, or 'n/a'."""
    found = sorted(v for v in values if v is not None)
    if not found:
        return "n/a"
    return f"{median(found) / 1e6:.1f} ({found[0] / 1e6:.1f}-{found[-1] / 1e6:.1f})"


def _fewer(groups: list, kind: str, than: str) -> str | None:
    """'KIND sends Nx fewer bytes per sample than THAN' from the groups' medians, or None."""
    per = {learner.kind: median(r.bytes_per_sample for r in runs) for learner, runs in groups
           if all(r.bytes_per_sample for r in runs)}
    if kind not in per or than not in per:
        return None
    labels = {learner.kind: learner.label for learner, _ in groups}
    return f"{labels[kind]} sends {per[than] / per[kind]:.1f}x fewer bytes per sample than {labels[than]}"


def communication_table(runs: LearnerSet | None) -> list:
    """The section's lines: what the bytes are, the ratios that matter, and one row per learner."""
    if runs is None:
        return []
    target = runs.target()
    aim = f"{100 * target:g}%" if target is not None else "the target"
    groups = runs.groups(False)
    ratios = [r for r in (_fewer(groups, "sync1bit", "sync"), _fewer(groups, "async1bit", "async"),
                          _fewer(groups, "bmuf", "sync"), _fewer(groups, "average", "sync")) if r]
    lines = [f"### Communication: bytes and time to {aim} test accuracy", "",
             f"From `{runs.folder}` (figure 11{measured_at(runs)}): CNTK's learners on one trainer, W = "
             f"{runs.runs[0].workers} workers: the bytes the first worker handed to MPI (an allreduce counted as a "
             "ring moves it) per sample and up to the target, medians and ranges. A measurement of its own: a "
             "learner in both tables differs by the run-to-run spread." + (" " + "; ".join(ratios) + "." if ratios
                                                                          else ""), "",
             f"| learner | bytes sent per sample | MB sent to {aim} | time to {aim} (s) | final test accuracy | "
             "samples/s |", "| --- | --- | --- | --- | --- | --- |"]
    for learner, group in groups:
        per_sample = [r.bytes_per_sample for r in group if r.bytes_per_sample is not None]
        lines.append(f"| {learner.label} | {f'{median(per_sample):,.0f}' if per_sample else 'n/a'} | "
                     f"{_megabytes([r.bytes_to_target() for r in group])} | {target_times(group).text} | "
                     f"{100 * median(r.test_accuracy for r in group):.2f}% | "
                     f"{median(r.samples_per_s for r in group):.0f} |")
    return lines + [""]
