"""report.md: a summary and the findings table, then each question with its figures and its answer, the caveats
once, what the report rests on; runs.csv and bench.csv (the appendix) and facts.json (the figures other pages
quote) beside it."""

import csv
import json
import re
import subprocess
from pathlib import Path

from . import answers
from .communication_md import communication_table
from .findings import make_findings, utilization_error
from .learners_md import learners_answer, learners_table
from .plan_md import plan_section
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


#: The longest line report.md holds: longer paragraphs are broken at sentence ends (Markdown joins the lines).
LONGEST_LINE = 400


def _breaks(line: str) -> list:
    """(position, rank) of each place a line may break: after a sentence (rank 0), a clause (1) or a list item (2)
    end, outside inline code."""
    found, ticks = [], 0
    for index, char in enumerate(line[:-1]):
        if char == "`":
            ticks += 1
        elif line[index + 1] == " " and ticks % 2 == 0 and char in ".;,:)":
            found.append((index + 1, 0 if char == "." else 1 if char in ";:" else 2))
    return found


def wrap(line: str, width: int = LONGEST_LINE) -> list:
    """A line cut into lines of at most width characters at its sentence ends, else its clause ends (Markdown
    joins them again; a list item's continuation is indented); table rows and lines that cannot be cut stay whole."""
    if len(line) <= width or line.startswith("|"):
        return [line]
    indent = "  " if line.startswith("- ") else ""
    pieces = []
    while len(line) + (len(indent) if pieces else 0) > width:
        room = width - (len(indent) if pieces else 0)
        fits = [(rank, -position, position) for position, rank in _breaks(line) if position <= room]
        if not fits:
            break
        fits = [fit for fit in fits if fit[2] >= room // 3] or fits
        position = min(fits)[2]
        pieces.append(line[:position])
        line = line[position + 1:]
    pieces.append(line)
    return [pieces[0]] + [indent + piece for piece in pieces[1:]]


QUESTIONS = {
    1: ("RQ1: why one server stops scaling, and where", "Why does ASGD with one server stop scaling, and at how "
        "many workers?", (1, 7, 12)),
    2: ("RQ2: how much of the run is initialisation", "How much of the run is initialisation, and how does "
        "sequential I/O grow with the workers?", (2, 5)),
    3: ("RQ3: how the single server becomes the bottleneck", "How does the single server become the bottleneck "
        "as workers grow?", (3, 4, 6)),
    4: ("RQ4: the ideal model against the revised model", "How well does an ideal model predict, against the "
        "revised model and the queueing model?", (8,)),
    5: ("RQ5: the remaining gaps", "Where are the remaining gaps between the model and the real system, and what "
        "does samples per second leave out?", (9, 11)),
}


def _short(commit: str) -> str:
    """A commit hash cut to 12 characters, keeping a "-dirty" mark; any other text as it is."""
    dirty = commit.endswith("-dirty")
    bare = commit.removesuffix("-dirty")
    if len(bare) != 40:
        return commit
    return bare[:12] + ("-dirty" if dirty else "")


def _commits(context) -> list:
    """(what, commit) of every data set the report reads."""
    found = []
    for what, data in (("sweep", context.sweep), ("rack", context.rack)):
        for commit in sorted({m.git_commit for m in getattr(data, "manifests", []) if m.git_commit}):
            found.append((what, commit))
    for what, data in (("learners", context.learners), ("communication", context.communication)):
        manifest = getattr(data, "manifest", None)
        if manifest is not None and manifest.git_commit:
            found.append((what, manifest.git_commit))
    return found


def _header(context, findings) -> list:
    """The summary under the title: what was measured where, at which commits, and the load stamp."""
    sweep, bench = context.sweep, context.bench
    cpus = sorted({r.cpu for r in sweep.runs if r.cpu}) or ([bench.cpu()] if bench.cpu() else [])
    mpis = sorted({r.mpi for r in sweep.runs if r.mpi})
    started = sorted(m.started for m in sweep.manifests if m.started)
    commits = _commits(context)
    distinct = sorted({c for _, c in commits})
    measured = ("one commit, `" + distinct[0][:12] + "`" if len(distinct) == 1 else
                "; ".join(f"{what} `{commit[:12]}`" for what, commit in commits) if commits else "commits not recorded")
    facts = findings.facts
    lines = ["# psbench study report", "",
             "psbench's answers to the questions of the 2016 CNTK study (Hashemi et al., arXiv 1612.00521) from "
             f"{len(sweep.runs)} training runs on {facts.get('sweep.cores', '?')} cores"
             + (", a virtual rack" if context.rack is not None else "") + ", the microbenchmarks and the model; the "
             "table gives each answer in one line, the sections below give the figures and the data.", "",
             f"- Data measured at {measured}; report made at `{_short(_source_commit())}`.",
             f"- CPU: {', '.join(cpus) or 'not recorded'}; MPI: {', '.join(mpis) or 'not recorded'}; sweep measured "
             f"{started[0][:10] if started else 'at a date not recorded'}.",
             ]
    if any(c.startswith("**Measured under load.**") for c in findings.caveats):
        lines.append("- **Measured under load**: other processes took more than 10% of the machine's CPU during "
                     "a measurement (see Caveats).")
    return lines + [""]


def _findings_table(findings) -> list:
    lines = ["## Findings", "", "| question | 2016 study (CNTK) | measured here | the model | what limits it here |",
             "| --- | --- | --- | --- | --- |"]
    for row in findings.rows:
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def _provenance(context, command: str) -> list:
    sweep, bench = context.sweep, context.bench
    lines = ["## What this report rests on", "",
             f"- Sweep: `{sweep.root}`: {len(sweep.runs)} results files (format {sweep.format()}), datasets "
             f"{', '.join(sweep.datasets())}, workers {', '.join(str(w) for w in sweep.worker_counts())}, servers "
             f"{', '.join(str(s) for s in sorted({r.servers for r in sweep.runs}))}.",
             f"- Machine: CPU {', '.join(sorted({r.cpu for r in sweep.runs if r.cpu})) or 'not recorded'}; "
             f"{', '.join(str(c) for c in sorted({r.cores for r in sweep.runs}))} cores per host; hosts per run "
             f"{', '.join(str(h) for h in sorted({r.hosts for r in sweep.runs}))}."]
    if context.rack is not None:
        lines.append(f"- Rack sweep: `{context.rack.root}`: {len(context.rack.runs)} results files.")
    for data in (sweep, context.rack):
        for manifest in getattr(data, "manifests", []):
            failed = manifest.failed_runs()
            share = ("" if manifest.other_cpu_share is None else
                     f", other processes' CPU share {manifest.other_cpu_share:.3f}")
            lines.append(f"- Manifest `{manifest.path}`: {manifest.scheduler}, {len(manifest.runs)} runs{share}"
                         + (f", {len(failed)} failed" if failed else ""))
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
        lines.append("- **Model unavailable**: `psbench model predict` gave no curve. Reason: "
                     + ("; ".join(context.curves.failures) or "no prediction was requested"))
    if bench.saturation is not None:
        lines.append(f"- Saturation model: `psbench model saturation --bench {bench.saturation.path} --format json`.")
    for failure in context.curves.failures if context.curves.any() else []:
        lines.append(f"- Model failure: {failure}")
    lines += ["", f"Regenerate: `{command}`", ""]
    return lines


def _figure_lines(figure) -> list:
    lines = []
    if figure.drawn:
        png = next(f for f in figure.files if f.endswith(".png"))
        svg = next(f for f in figure.files if f.endswith(".svg"))
        lines += [f"![Figure {figure.number}: {figure.title}]({png})", "",
                  f"*Figure {figure.number}: {figure.title}.* {figure.caption} ([SVG]({svg}))", ""]
    else:
        lines += [f"*Figure {figure.number} ({figure.title}) is not drawn:* {'; '.join(figure.gaps)}.", ""]
        return lines
    for gap in figure.gaps:
        lines.append(f"- Missing from figure {figure.number}: {gap}")
    return lines + ([""] if figure.gaps else [])


def write_csv(path: Path, header: list, rows: list) -> None:
    """A CSV file, written under a temporary name and renamed."""
    partial = path.with_name("." + path.name + ".partial")
    with partial.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    partial.replace(path)


def _runs_csv(context, found) -> Path:
    """runs.csv: one row per run of the sweep (and the rack sweep); the read column is validate's."""
    rows = []
    for where, data in (("sweep", context.sweep), ("rack", context.rack)):
        if data is None:
            continue
        for run in sorted(data.runs, key=lambda r: (r.dataset, r.io, r.servers, r.workers, r.label)):
            read = found.run_value(run, "init_io") if where == "sweep" else None
            rows.append([where, f"{run.path.parent.name}/{run.label}", run.dataset, run.workers, run.servers, run.io,
                         "" if read is None else f"{read:.4f}", f"{run.phases['init_io']:.4f}",
                         f"{run.training_s:.4f}", f"{run.phases['total']:.4f}", f"{run.samples_per_s:.0f}",
                         f"{run.utilization:.4f}", f"{run.staleness.mean:.3f}"])
    path = context.out / "runs.csv"
    write_csv(path, ["set", "file", "dataset", "workers", "servers", "io", "read_s", "init_io_s", "training_s",
                     "total_s", "samples_per_s", "utilization", "staleness_mean"], rows)
    return path


def _bench_csv(bench, out: Path) -> Path | None:
    if not bench.files:
        return None
    rows = []
    for name, google in sorted(bench.files.items()):
        for benchmark in google.benchmarks.values():
            counters = "; ".join(f"{k} {v:.4g}" for k, v in sorted(benchmark.counters.items()))
            rows.append([name, benchmark.name, f"{benchmark.seconds * 1e6:.2f}", counters])
    path = out / "bench.csv"
    write_csv(path, ["file", "benchmark", "time_us", "counters"], rows)
    return path


def write_report(context, results: list, command: str) -> Path:
    """Writes report.md (a temporary name, then renamed), runs.csv, bench.csv and facts.json; returns report.md."""
    sweep, curves = context.sweep, context.curves
    findings = make_findings(context)
    figures = {f.number: f for f in results}
    utilization = utilization_error(sweep, curves)
    answers_of = {1: answers.rq1(sweep, curves, context.rack), 2: answers.rq2(sweep, curves),
                  3: answers.rq3(sweep, curves, context.bench, context.saturation, context.rack, utilization),
                  4: answers.rq4(sweep, curves),
                  5: answers.rq5(sweep, curves) + [""] + learners_answer(context.learners)}
    parts = _header(context, findings) + _findings_table(findings)
    for number, (title, question, shown) in QUESTIONS.items():
        parts += [f"## {title}", "", f"**{question}**", ""]
        for n in shown:
            if n in figures:
                parts += _figure_lines(figures[n])
        parts += answers_of[number] + [""]
        if number == 5:
            parts += learners_table(context.learners) + communication_table(context.communication)
    parts += ["## Planning a cluster (model only)", ""]
    if 10 in figures:
        parts += _figure_lines(figures[10])
    parts += plan_section(context.plan)
    parts += ["## Caveats", ""] + [f"- {c}" for c in findings.caveats] + [""]
    parts += _provenance(context, command)
    found = validated(sweep, curves)
    runs = _runs_csv(context, found)
    bench = _bench_csv(context.bench, context.out)
    parts += ["## Appendix: runs and benchmarks", "",
              f"Every run, one row each: [{runs.name}]({runs.name}) (validate's read, the phases, samples/s, "
              "utilisation, staleness)." + (f" Every benchmark's median and counters: [{bench.name}]({bench.name})."
                                            if bench else ""), ""]
    facts = context.out / "facts.json"
    partial_facts = context.out / ".facts.json.partial"
    partial_facts.write_text(json.dumps(findings.facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    partial_facts.replace(facts)
    final = context.out / "report.md"
    partial = context.out / ".report.md.partial"
    partial.write_text("\n".join(piece for line in parts for piece in wrap(line)), encoding="utf-8")
    partial.replace(final)
    return final
