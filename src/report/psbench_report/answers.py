"""The answers to RQ1-RQ5 (docs/design.md), with numbers from the runs and the model; each names its figures and
runs and says where this machine limits it."""

from .model import ModelUnavailable
from .numbers import each, find, percent, predicted, runs_named, seconds
from .validation import BAND, QUANTITIES, run_count, validated


def _limits(sweep) -> str:
    run = max(sweep.runs, key=lambda r: r.ranks)
    hosts = "one host" if run.hosts == 1 else f"{run.hosts} hosts"
    return (f"**This machine limits the answer:** the runs had {run.cores} cores on {hosts}; every run of more "
            f"than {run.cores * run.hosts} ranks (W + S) oversubscribed them, up to {run.ranks} ranks ({run.workers} "
            f"workers + {run.servers} servers), so more workers bring no more compute: training time cannot fall "
            "as 1/W, and a slowdown past a knee cannot be told apart from core sharing.")


def _unmeasured(found) -> str:
    """Why the answers have no measured medians: validate gave none."""
    return ("Not answered: `psbench model validate`, which computes every measured median the answers quote, gave "
            "none (" + ("; ".join(found.failures) or "no run of the sweep was compared") + ").")


def rq1(sweep, curves) -> str:
    """Why one server stops scaling, and at how many workers."""
    found = validated(sweep, curves)
    lines = []
    for dataset in sweep.datasets():
        one, two = find(sweep, dataset, "sequential", 1), find(sweep, dataset, "sequential", 2)
        if not one:
            continue
        ws = one.workers
        train = [found.medians(one, w, "compute") for w in ws]
        if not any(train):
            lines.append(f"- {dataset}: " + _unmeasured(found))
            continue
        best = min((t, w) for w, ts in zip(ws, train) for t in ts)[1]
        text = (f"- {dataset}, 1 server: training time " + ", ".join(f"W={w}: {each(t, seconds)}"
                                                                     for w, t in zip(ws, train))
                + f"; shortest at W = {best}.")
        if two:
            text += " With 2 servers: " + ", ".join(f"W={w}: {each(found.medians(two, w, 'compute'), seconds)}"
                                                    for w in two.workers) + "."
        knee = predicted(curves.of(one), "mva", "knee_workers", ws[-1])
        text += f" MVA knee W* = {knee:.1f} on this machine." if knee is not None else " No model knee (no prediction)."
        lines.append(text)
    runs = runs_named(*[find(sweep, d, "sequential", s) for d in sweep.datasets() for s in (1, 2)])
    return "\n".join(["## RQ1: why one server stops scaling, and where", "",
                      "Figures 1 and 3 (measured and modelled), figure 6 (the server alone), figure 7 (to 4096 "
                      "workers).", ""] + lines + [
        "", "A single server serves every update in turn: once its utilisation nears 1 (figure 3), more "
        "workers only queue longer, so training time stops falling at the knee W* ~ 1 + t_fb / t_srv.",
        "", _limits(sweep) + " The saturation benchmark (figure 6) and the simulation (figure 7) can show the knee; "
        "these runs cannot separate it from core sharing.", "", f"Runs: {runs}."])


def rq2(sweep, curves) -> str:
    """How much of the run is initialisation, and how sequential I/O grows."""
    found = validated(sweep, curves)
    lines = []
    for dataset in sweep.datasets():
        seq, par = find(sweep, dataset, "sequential", 1), find(sweep, dataset, "parallel", 1)
        for series in (seq, par):
            if not series:
                continue
            ws = series.workers
            read = [found.medians(series, w, "init_io") for w in ws]
            if not any(read):
                lines.append(f"- {dataset}, {series.key.config}: " + _unmeasured(found))
                continue
            io = [found.medians(series, w, "init_io_phase") for w in ws]
            share = [found.medians(series, w, "setup_share") for w in ws]
            model = predicted(curves.of(series), "revised", "init_io_s", ws[-1])
            lines.append(f"- {dataset}, {series.key.config}: initial read (slowest wait + read) " + ", ".join(
                f"W={w}: {each(v, seconds)}" for w, v in zip(ws, read)) + "; init_io phase " + ", ".join(
                each(v, seconds) for v in io) + f"; set-up share of the run {each(share[0], percent)} at W={ws[0]}, "
                f"{each(share[-1], percent)} at W={ws[-1]}; revised model's read at W={ws[-1]}: {seconds(model)}.")
    runs = runs_named(*[find(sweep, d, io, 1) for d in sweep.datasets() for io in ("sequential", "parallel")])
    return "\n".join(["## RQ2: how much of the run is initialisation, and how sequential I/O grows", "",
                      "Figures 2 (phase breakdown) and 5 (initial I/O).", ""] + lines + [
        "", "With `--io sequential` every worker reads the whole set after the one before it, so the read grows "
        "about linearly with W; with `--io parallel` each reads only its partition at once. The read itself comes "
        "from `load[]`; in results files of format 1, which psbench no longer writes, the init_io phase also held "
        "the uint8 to float conversion of the partition, which on shared cores can take longer than the read.", "",
        "**This machine limits the answer:** one local disk and one page cache serve every rank; `--cold-cache` "
        "drops the file's pages before each read, but parallel readers still share the disk's bandwidth, which "
        "a parallel file system would multiply.", "", f"Runs: {runs}."])


def rq3(sweep, curves, bench, saturation_model) -> str:
    """How the single server becomes the bottleneck."""
    found = validated(sweep, curves)
    lines = []
    for dataset in sweep.datasets():
        one = find(sweep, dataset, "sequential", 1)
        if not one:
            continue
        ws = one.workers
        if not any(found.medians(one, w, "server_utilization") for w in ws):
            lines.append(f"- {dataset}, 1 server: " + _unmeasured(found))
            continue
        lines.append(f"- {dataset}, 1 server: utilisation " + ", ".join(
            f"W={w}: {each(found.medians(one, w, 'server_utilization'), percent)}" for w in ws)
            + "; full pushes/s " + ", ".join(
            each(found.medians(one, w, "pushes_per_s"), lambda v: f"{v:.0f}") for w in ws) + "; mean staleness "
            + ", ".join(each(found.medians(one, w, "staleness_mean"), lambda v: f"{v:.2f}") for w in ws) + ".")
    saturation = _saturation_lines(bench, saturation_model)
    busiest = max((c.highest["server_utilization"] for c in found.configurations if c.servers == 1), default=None)
    if busiest is not None and busiest < 0.8:
        lines.append(f"- In these runs the single server never saturated: its utilisation was at most "
                     f"{percent(busiest)}. Workers waited for cores, not for the server (pull time in figure 2 "
                     "includes a server that is descheduled on shared cores).")
    return "\n".join(["## RQ3: how the single server becomes the bottleneck", "",
                      "Figures 3 (utilisation, updates/s), 4 (staleness) and 6 (saturation benchmark).", ""]
                     + lines + saturation + [
        "", "Utilisation near 1 with updates/s flat in W is saturation: each worker then waits in the server's "
        "queue (pull time in figure 2) and its gradients grow stale by about W - 1 versions (figure 4).", "",
        _limits(sweep), "", f"Runs: {runs_named(*[find(sweep, d, 'sequential', 1) for d in sweep.datasets()])}."])


def _model_note(model_run: dict | None) -> str:
    """The saturation model's error and knees for one run, as a sentence (empty without the model)."""
    if model_run is None:
        return ""
    parts = [f"{c['kind']} MAPE {c['mape_percent']:.1f}%, knee {c['knee_clients']}" for c in model_run["curves"]
             if c.get("mape_percent") is not None]
    return " Model (figure 6): " + "; ".join(parts) + "." if parts else ""


def _saturation_lines(bench, saturation_model) -> list:
    """One line per saturation run: D, Z, the measured plateau and knee (`psbench model saturation`'s), and the
    models' errors."""
    if bench.saturation is None:
        return ["- No saturation benchmark file: figure 6 is missing."]
    try:
        model_runs = saturation_model.comparisons(bench.saturation.path)["runs"]
    except ModelUnavailable:
        model_runs = []
    if len(model_runs) != len(bench.saturation.runs):
        model_runs = [None] * len(bench.saturation.runs)
    lines = []
    for run, model_run in sorted(zip(bench.saturation.runs, model_runs),
                                 key=lambda pair: (pair[0].parameters, pair[0].think_us, pair[0].servers)):
        plateau = (f"plateau {model_run['measured']['plateau_updates_per_s']:.0f} updates/s" if model_run
                   else "plateau n/a (`psbench model saturation` gave none)")
        knee = model_run["measured"]["knee_clients"] if model_run else run.knee_clients
        lines.append(f"- saturation benchmark, P = {run.parameters:,}, {run.servers} server(s): service time D = "
                     f"{run.service_us:.0f} µs (cv {run.service_cv:.2f}), think time Z = {run.think_us:.0f} µs; "
                     f"{plateau} against 1/D = {1e6 / run.service_us:.0f}; knee at {knee} "
                     f"clients measured, (Z + D) / D = {run.knee_model:.1f}." + _model_note(model_run))
    return lines


def rq4(sweep, curves) -> str:
    """How well the ideal model predicts, against the revised model: the MAPE `psbench model validate` gives."""
    found = validated(sweep, curves)
    head = ["## RQ4: the ideal model against the revised model", "", "Figure 8 (predicted against measured).", ""]
    if not found.pairs:
        reason = "; ".join(found.failures + curves.failures) or "no prediction"
        return "\n".join(head + [f"Not answered: the model gave no prediction for any run ({reason})."])
    lines = []
    for summary in found.summaries:
        prefix = f"{summary.group}, " if len(found.summaries) > 1 else ""
        for name, _ in QUANTITIES:
            parts = [f"{kind} {summary.mape[kind][name]:.1f}% ({summary.within[kind][name]}/"
                     f"{summary.configurations} within ±{100 * BAND:.0f}%)"
                     for kind in ("ideal", "revised", "mva", "sim") if kind in summary.mape]
            lines.append(f"- {prefix}{name}: MAPE " + "; ".join(parts) + ".")
    configurations = sum(s.configurations for s in found.summaries)
    return "\n".join(head + lines + ["", f"Over {configurations} configurations, each the median of its runs "
                                         f"({run_count(found.pairs)} runs), as `psbench model validate` groups "
                                         "and compares them. " + _limits(sweep)])


def rq5(sweep, curves) -> str:
    """Where the remaining gaps between theory and the real system are."""
    found = sorted(validated(sweep, curves).pairs, key=lambda p: -abs(p.error))
    head = ["## RQ5: the remaining gaps", "", "Figures 8 and 1.", ""]
    if not found:
        return "\n".join(head + ["Not answered without the model's predictions (see above)."])
    worst = [f"- {p.run.label}, {p.kind}, {p.quantity}: measured {seconds(p.measured)}, predicted "
             f"{seconds(p.predicted)} ({100 * p.error:+.0f}%)" for p in found[:5]]
    return "\n".join(head + ["The five largest relative errors:"] + worst + [
        "", "What the closed forms leave out here: core sharing between ranks when they outnumber the cores, the "
        "page cache and one disk shared by every reader, and the variability of service times.", "",
        _limits(sweep)])
