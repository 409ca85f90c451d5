"""report.md: what was read, every figure with its caption and gaps, the answers to RQ1-RQ5, the runs."""

import subprocess
from pathlib import Path

from . import answers
from .communication_md import communication_table
from .learners_md import learners_answer, learners_table
from .plan_md import plan_section
from .numbers import percent
from .validation import validated


def _source_commit() -> str:
    """The commit of the psbench source tree this module belongs to, "-dirty" when its code (src, bench, the build)
    has uncommitted changes; data such as the calib.json a measurement writes just before the report do not count."""
    tree = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=30, check=False)
        dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no", "--",
                                ":(top)src", ":(top)bench", ":(top)cmake", ":(top)CMakeLists.txt"],
                               capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (git could not run)"
    if head.returncode != 0:
        return "unknown (the report module is not in a git checkout)"
    return head.stdout.strip() + ("-dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def _header(context) -> list:
    """Three lines under the title: the report's commit, the measured CPU, ISA and MPI, and when the sweep ran."""
    sweep, bench = context.sweep, context.bench
    cpus = sorted({r.cpu for r in sweep.runs if r.cpu}) or ([bench.cpu()] if bench.cpu() else [])
    isas = sorted({r.onednn_isa for r in sweep.runs if r.onednn_isa}) or ([bench.isa()] if bench.isa() else [])
    mpis = sorted({r.mpi for r in sweep.runs if r.mpi})
    started = sorted(m.started for m in sweep.manifests if m.started)
    measured_with = sorted({m.git_commit for m in sweep.manifests if m.git_commit})
    when = (started[0] if len(started) == 1 else f"{started[0]} to {started[-1]}") if started else "not recorded"
    return [f"- Report made by psbench at commit `{_source_commit()}`"
            + (f"; the sweep was measured at commit {', '.join(f'`{c}`' for c in measured_with)}."
               if measured_with else "."),
            f"- CPU: {', '.join(cpus) or 'not recorded'}; oneDNN ISA: {', '.join(isas) or 'not recorded'}; "
            f"MPI: {', '.join(mpis) or 'not recorded'}.",
            f"- Sweep measured (the manifests' start): {when}.", ""]


def _provenance(context, command: str) -> list:
    sweep, bench = context.sweep, context.bench
    cpus = sorted({r.cpu for r in sweep.runs if r.cpu}) or ([bench.cpu()] if bench.cpu() else [])
    cpu = ", ".join(cpus) if cpus else "not recorded (results format 1 has no env.cpu, and no bench file names one)"
    cores = sorted({r.cores for r in sweep.runs})
    lines = ["## What this report rests on", "",
             f"- Sweep: `{sweep.root}`: {len(sweep.runs)} results files (format {sweep.format()}), datasets "
             f"{', '.join(sweep.datasets())}, workers {', '.join(str(w) for w in sweep.worker_counts())}, servers "
             f"{', '.join(str(s) for s in sorted({r.servers for r in sweep.runs}))}.",
             f"- Machine: CPU {cpu}; {', '.join(str(c) for c in cores)} cores per host; hosts per run "
             f"{', '.join(str(h) for h in sorted({r.hosts for r in sweep.runs}))}."]
    for manifest in sweep.manifests:
        failed = manifest.failed_runs()
        lines.append(f"- Manifest `{manifest.path}`: scheduler {manifest.scheduler}, {len(manifest.runs)} runs"
                     + (f", {len(failed)} failed: " + ", ".join(r.file for r in failed) if failed else ""))
    if not sweep.manifests:
        lines.append("- No manifest.json in the sweep folder: scheduler and commands are not recorded.")
    present = sorted(bench.files) + (["server_saturation.json"] if bench.saturation else [])
    if bench.folder is None:
        lines.append("- Benchmarks: none given (--bench): figure 6 and the benchmarks table are missing.")
    else:
        lines.append(f"- Benchmarks: `{bench.folder}`: " + (", ".join(present) or "none")
                     + (f"; missing: {', '.join(bench.missing)}" if bench.missing else ""))
    if context.curves.any():
        lines.append(f"- Model: `psbench model predict --format json` (platform `this` beside the runs, "
                     f"`{context.curves.platform}` for figure 7); calibration: {context.curves.calibration}.")
    else:
        lines.append("- **Model unavailable**: `psbench model predict` gave no curve (figures 1, 3, 5, 7 and 8 have "
                     "none). Reason: "
                     + ("; ".join(context.curves.failures) or "no prediction was requested"))
    if bench.saturation is not None:
        lines.append(f"- Saturation model (figure 6): `psbench model saturation --bench {bench.saturation.path} "
                     "--format json` (inputs from the file alone).")
    for failure in context.curves.failures if context.curves.any() else []:
        lines.append(f"- Model failure: {failure}")
    lines += ["", f"Regenerate: `{command}`", ""]
    return lines


def _figures(results: list) -> list:
    lines = ["## Figures", ""]
    for figure in results:
        lines.append(f"### Figure {figure.number}: {figure.title}")
        lines.append("")
        if figure.drawn:
            png = next(f for f in figure.files if f.endswith(".png"))
            svg = next(f for f in figure.files if f.endswith(".svg"))
            lines += [f"![Figure {figure.number}]({png})", "", f"{figure.caption} ([SVG]({svg}))", ""]
        for gap in figure.gaps:
            lines.append(f"- {'Not drawn' if not figure.drawn else 'Missing'}: {gap}")
        if figure.gaps:
            lines.append("")
    return lines


def _runs_table(sweep, found) -> list:
    """One row per run; the read column is validate's (the slowest worker's wait + read), n/a without it."""
    lines = ["## Runs", "", "| file | dataset | W | S | I/O | read (s) | init_io (s) | training (s) | total (s) | "
             "samples/s | utilisation | staleness mean |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for run in sorted(sweep.runs, key=lambda r: (r.dataset, r.io, r.servers, r.workers, r.label)):
        read = found.run_value(run, "init_io")
        read = "n/a" if read is None else f"{read:.3f}"
        lines.append(f"| {run.label} | {run.dataset} | {run.workers} | {run.servers} | {run.io} | "
                     f"{read} | {run.phases['init_io']:.3f} | {run.training_s:.3f} | "
                     f"{run.phases['total']:.3f} | "
                     f"{run.samples_per_s:.0f} | {percent(run.utilization)} | {run.staleness.mean:.2f} |")
    return lines


def _bench_table(bench) -> list:
    if not bench.files:
        return []
    lines = ["## Benchmarks (medians, as measured beside the sweep)", "",
             "| file | benchmark | time (µs) | counters |", "| --- | --- | --- | --- |"]
    for name, google in sorted(bench.files.items()):
        for benchmark in google.benchmarks.values():
            counters = ", ".join(f"{k} {v:.4g}" for k, v in sorted(benchmark.counters.items()))
            lines.append(f"| {name} | {benchmark.name} | {benchmark.seconds * 1e6:.1f} | {counters} |")
        load = google.context.get("load_avg")
        if load:
            lines.append(f"| {name} | (load average while it ran) | | {', '.join(f'{x:.2f}' for x in load)} |")
    return lines + [""]


def _not_drawn(results: list) -> list:
    missing = [f for f in results if not f.drawn]
    if not missing:
        return []
    return ["## Figures this report cannot draw", ""] + [
        f"- Figure {f.number} ({f.title}): {'; '.join(f.gaps)}" for f in missing] + [""]


def write_report(context, results: list, command: str) -> Path:
    """Writes report.md into the output folder (a temporary name, then renamed) and returns its path."""
    sweep, curves = context.sweep, context.curves
    parts = ["# psbench study report", ""] + _header(context) + [
             "The figures and answers of the 2016 study (Hashemi et al., arXiv 1612.00521) for this sweep; "
             "the questions RQ1-RQ5 are those of psbench's docs/design.md.", ""]
    parts += _provenance(context, command) + _not_drawn(results)
    for answer in (answers.rq1(sweep, curves), answers.rq2(sweep, curves),
                   answers.rq3(sweep, curves, context.bench, context.saturation), answers.rq4(sweep, curves),
                   answers.rq5(sweep, curves) + "\n\n" + "\n".join(learners_answer(context.learners))):
        parts += [answer, ""]
    parts += learners_table(context.learners) + communication_table(context.communication)
    parts += plan_section(context.plan) + _figures(results)
    parts += _runs_table(sweep, validated(sweep, curves)) + [""] + _bench_table(context.bench)
    final = context.out / "report.md"
    partial = context.out / ".report.md.partial"
    partial.write_text("\n".join(parts), encoding="utf-8")
    partial.replace(final)
    return final
