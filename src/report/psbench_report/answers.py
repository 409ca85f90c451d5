"""The answers to RQ1-RQ5 (docs/design.md) from the runs and the model: each a list of lines under its question.
What limits the answers on this machine is said once, in the report's caveats (findings.py)."""

from .model import ModelUnavailable, fits_runs
from .numbers import each, find, percent, predicted, seconds
from .rack import rack_medians
from .validation import BAND, QUANTITIES, run_count, validated, validated_from_benchmarks


def _unmeasured(found) -> str:
    """Why the answers have no measured medians: validate gave none."""
    return ("Not answered: `psbench model validate`, which computes every measured median the answers quote, gave "
            "none (" + ("; ".join(found.failures) or "no run of the sweep was compared") + ").")


def rq1(sweep, curves, rack=None) -> list:
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
    lines += rack_lines(rack)
    return lines + [
        "", "A single server serves every update in turn: once its utilisation nears 1, more workers only queue "
        "longer, so training time stops falling at the knee W* ~ 1 + t_fb / t_srv (docs/model.md)."]


def rack_lines(rack) -> list:
    """The rack sweep's medians per I/O mode and server count: utilisation and samples/s against W, and what a
    second server gives at the largest W both measured."""
    if rack is None:
        return []  # the caveats say so, once
    lines = []
    link = next((m.link for m in rack.manifests if m.link), None)
    where = f"{link.get('rate', '?')} links" if link else "shaped links"
    for io, by_servers in rack_medians(rack).items():
        for servers, (util, rate) in by_servers.items():
            lines.append(f"- Rack ({where}, one rank per node), {io} I/O, {servers} server{'s' * (servers > 1)}: "
                         "utilisation " + ", ".join(f"W={w}: {util[w]:.2f}" for w in util) + "; samples/s "
                         + ", ".join(f"{rate[w]:.0f}" for w in rate) + ".")
        common = sorted(set(by_servers.get(1, ({}, {}))[1]) & set(by_servers.get(2, ({}, {}))[1]))
        if common:
            w = common[-1]
            lines.append(f"- Rack, {io} I/O: 2 servers over 1 at W = {w}: "
                         f"{by_servers[2][1][w] / by_servers[1][1][w]:.2f}x the samples/s.")
    return lines


def rq2(sweep, curves) -> list:
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
            share = [found.medians(series, w, "setup_share") for w in ws]
            model = predicted(curves.of(series), "revised", "init_io_s", ws[-1])
            lines.append(f"- {dataset}, {series.key.config}: initial read (slowest wait + read) " + ", ".join(
                f"W={w}: {each(v, seconds)}" for w, v in zip(ws, read))
                + f"; set-up share of the run {each(share[0], percent)} at W={ws[0]}, "
                f"{each(share[-1], percent)} at W={ws[-1]}; revised model's read at W={ws[-1]}: {seconds(model)}.")
    return lines + [
        "", "With `--io sequential` every worker reads the whole set after the one before it, so the read grows "
        "about linearly with W; with `--io parallel` each reads only its partition at once."]


def rq3(sweep, curves, bench, saturation_model, rack=None, utilization=None) -> list:
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
    if utilization is not None:
        lines.append(f"- The MVA model's server utilisation (figure 3's lines) is off the measured medians by "
                     f"{100 * utilization[0]:.0f} points on average, {100 * utilization[1]:.0f} at most.")
    if rack is not None:
        lines.append("- On the rack (figure 12, and RQ1's lines), one server's utilisation reaches "
                     + ", ".join(f"{max(util.values()):.2f} ({io} I/O)" for io, by_servers in rack_medians(rack).items()
                                 for servers, (util, _) in by_servers.items() if servers == 1)
                     + ": the link, not the cores, is the bottleneck there.")
    return lines + saturation + [
        "", "Utilisation near 1 with updates/s flat in W is saturation: each worker then waits in the server's "
        "queue (pull time in figure 2) and its gradients grow stale by about W - 1 versions (figure 4)."]


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
    lines = ["", "| P | S | D_0 (µs) | cv | Z measured (µs) | plateau (updates/s) | knee measured | N* | "
             "mva MAPE, knee | sim MAPE, knee |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for run, model_run in sorted(zip(bench.saturation.runs, model_runs),
                                 key=lambda pair: (pair[0].parameters, pair[0].think_us, pair[0].servers)):
        plateau = f"{model_run['measured']['plateau_updates_per_s']:.0f}" if model_run else "n/a"
        knee = model_run["measured"]["knee_clients"] if model_run else run.knee_clients
        bound = f"{model_run['knee_bound']:.1f}" if model_run and model_run.get("knee_bound") else "n/a"
        kinds = {c["kind"]: c for c in (model_run or {}).get("curves", []) if c.get("mape_percent") is not None}
        cells = [f"{kinds[k]['mape_percent']:.1f}%, {kinds[k]['knee_clients']}" if k in kinds else "n/a"
                 for k in ("mva", "sim")]
        lines.append(f"| {run.parameters:,} | {run.servers} | {run.service_us:.0f} | {run.service_cv:.2f} | "
                     f"{run.think_measured_us:.0f} | {plateau} | {knee} | {bound} | {cells[0]} | {cells[1]} |")
    return ["- The saturation benchmark (figure 6): per curve, D_0 (one server's time per update at one client), "
            "the measured think time, the plateau, the knee (the first client count within 10% of the plateau), the "
            "model's closed-form N* and each kind's MAPE and knee (`psbench model saturation`)."] + lines + [""]


def _mape_table(found, kinds: list) -> list:
    """Per dataset and phase, each kind's MAPE and the configurations within the band."""
    lines = ["| data | phase | " + " | ".join(kinds) + " |", "| --- | --- | " + " | ".join("---" for _ in kinds) + " |"]
    for summary in found.summaries:
        for name, _ in QUANTITIES:
            cells = [f"{summary.mape[k][name]:.1f}% ({summary.within[k][name]}/{summary.configurations})"
                     if k in summary.mape else "n/a" for k in kinds]
            lines.append(f"| {summary.datasets[0]} | {name} | " + " | ".join(cells) + " |")
    return lines


def _coverage_table(calibrations: list, kinds: list) -> list:
    """Per dataset and calibration, the measured totals inside each kind's 80% interval and its median width."""
    lines = ["| data | calibration | " + " | ".join(kinds) + " |",
             "| --- | --- | " + " | ".join("---" for _ in kinds) + " |"]
    for label, found in calibrations:
        for summary in found.summaries:
            cells = []
            for kind in kinds:
                inside, count, width = summary.coverage.get(kind, {}).get("total", (None, 0, None))
                cells.append(f"{inside}/{count} ({100 * inside / count:.0f}%), width {width:.0f}%" if count else "n/a")
            lines.append(f"| {summary.datasets[0]} | {label} | " + " | ".join(cells) + " |")
    return lines


def _quantities_table(found, kinds: list) -> list:
    """Per dataset, each kind's server utilisation (mean and largest absolute difference, in points) and staleness
    (MAPE) against the measured medians."""
    lines = ["| data | figure | " + " | ".join(kinds) + " |", "| --- | --- | " + " | ".join("---" for _ in kinds) + " |"]
    for summary in found.summaries:
        utilization, staleness = [], []
        for kind in kinds:
            errors = summary.quantities.get(kind) or {}
            mean, largest = errors.get("utilization_mean_abs_diff"), errors.get("utilization_max_abs_diff")
            utilization.append(f"{100 * mean:.0f} (max {100 * largest:.0f})" if mean is not None else "n/a")
            count = errors.get("staleness_count", 0)
            staleness.append(f"{errors['staleness_mape_percent']:.0f}% ({count})" if count else "n/a")
        lines.append(f"| {summary.datasets[0]} | server utilisation, points | " + " | ".join(utilization) + " |")
        lines.append(f"| {summary.datasets[0]} | staleness MAPE (configurations) | " + " | ".join(staleness) + " |")
    return lines


def rq4(sweep, curves) -> list:
    """How well the ideal model predicts, against the revised model: the MAPE `psbench model validate` gives, with
    the report's calibration and from the bench files alone, the 80% intervals' coverage and the errors on server
    utilisation and staleness."""
    found = validated(sweep, curves)
    if not found.pairs:
        reason = "; ".join(found.failures + curves.failures) or "no prediction"
        return [f"Not answered: the model gave no prediction for any run ({reason})."]
    kinds = [k for k in ("ideal", "revised", "mva", "sim") if any(k in s.mape for s in found.summaries)]
    alone = validated_from_benchmarks(sweep, curves)
    label = ("with the calibration runs" if fits_runs(curves.client_.calib_) else
             "with the report's calibration" if alone is not None else "calibrated from the bench files")
    lines = [f"MAPE of each kind, {label} (in brackets: configurations within ±{100 * BAND:.0f}%):", ""]
    lines += _mape_table(found, kinds)
    calibrations = [(label, found)]
    if alone is not None and alone.summaries:
        lines += ["", "From the bench files alone (no run fitted; `psbench model calibrate --bench`):", ""]
        lines += _mape_table(alone, kinds)
        calibrations.append(("bench files alone", alone))
    elif alone is not None:
        lines += ["", f"From the bench files alone: not computed ({'; '.join(alone.failures)})."]
    if any(s.coverage for _, f in calibrations for s in f.summaries):
        lines += ["", "Measured total times inside each kind's 80% interval (the calibration's spread and, with "
                  "the runs, their own spread for a median of the configuration's runs, propagated by `psbench "
                  "model validate`) and the interval's median width:", ""]
        lines += _coverage_table(calibrations, kinds)
    if any(s.quantities for s in found.summaries):
        lines += ["", f"Server utilisation and staleness against the measured medians, {label}:", ""]
        lines += _quantities_table(found, kinds)
    configurations = sum(s.configurations for s in found.summaries)
    return lines + ["", f"Over {configurations} configurations, each the median of its runs "
                        f"({run_count(found.pairs)} runs), as `psbench model validate` groups and compares them."]


def rq5(sweep, curves) -> list:
    """Where the remaining gaps between theory and the real system are."""
    found = sorted(validated(sweep, curves).pairs, key=lambda p: -abs(p.error))
    if not found:
        return ["Not answered without the model's predictions (see above)."]
    worst, seen = [], set()
    for pair in found:
        key = (pair.run.path, pair.quantity)
        if key in seen:
            continue
        seen.add(key)
        kinds = [p.kind for p in found if (p.run.path, p.quantity) == key and abs(p.error) >= 0.5 * abs(pair.error)]
        worst.append(f"- {pair.run.path.parent.name}/{pair.run.label}, {pair.quantity}: measured "
                     f"{seconds(pair.measured)}, {pair.kind} predicted {seconds(pair.predicted)} "
                     f"({100 * pair.error:+.0f}%; off by half as much or more: {', '.join(kinds)})")
        if len(worst) == 3:
            break
    return ["The three configurations with the largest relative errors:"] + worst + [
        "", "What the closed forms leave out here: core sharing between ranks when they outnumber the cores, the "
        "page cache and one disk shared by every reader, and the variability of service times."]
