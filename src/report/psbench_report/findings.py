"""The study's findings from the data: the figures other pages quote (facts, by name) and the findings table at the
head of report.md. Both come from the same objects the answers read (validate's medians and errors, the saturation
model's comparisons, the rack sweep), so a page that quotes a fact quotes what the report shows."""

from dataclasses import dataclass, field

from .model import ModelUnavailable
from .numbers import find, predicted
from .rack import rack_medians
from .validation import validated, validated_from_benchmarks

#: The 2016 study's findings (Hashemi et al., arXiv 1612.00521), one per question.
STUDY = {
    "RQ1": "compute time fell until about 16 workers, then rose: one server saturated; nothing scaled past 4 nodes "
           "on Blue Waters",
    "RQ2": "initialisation dominated: every worker read the data in turn, so start-up grew linearly with nodes",
    "RQ3": "the single parameter server became the bottleneck as workers grew",
    "RQ4": "a model of ideal scaling was wrong; one with a sequential-disk and a server-saturation term matched",
    "RQ5": "fixes proposed: parallel I/O and a sharded server (learners beyond ASGD not studied)",
}
#: Above this share of the machine's CPU time taken by other processes, a measurement is "under load".
LOAD_LIMIT = 0.10


@dataclass
class Findings:
    """facts: name -> text as pages print it; rows: the findings table's rows; caveats: each once."""

    facts: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)
    caveats: list = field(default_factory=list)


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _range(values: list, form) -> str:
    low, high = min(values), max(values)
    return form(low) if form(low) == form(high) else f"{form(low)}-{form(high)}"


def rack_facts(rack) -> dict:
    """The rack sweep's figures: per I/O mode and server count the median utilisation and samples/s per W; the
    knee (the first W whose samples/s is within 10% of the series' largest) and two servers' speed-up at the
    largest W."""
    facts = {}
    if rack is None:
        return facts
    for io, by_servers in rack_medians(rack).items():
        for servers, (util, rate) in by_servers.items():
            top = max(rate.values())
            knee = next(w for w, v in rate.items() if v >= 0.9 * top)
            facts[f"rack.{io}.s{servers}.knee"] = str(knee)
            facts[f"rack.{io}.s{servers}.utilization"] = _range([u for w, u in util.items() if w >= knee],
                                                                 lambda v: f"{v:.2f}")
        if 1 in by_servers and 2 in by_servers:
            w = max(set(by_servers[1][1]) & set(by_servers[2][1]), default=None)
            if w is not None:
                facts[f"rack.{io}.speedup"] = f"{by_servers[2][1][w] / by_servers[1][1][w]:.2f}x"
                facts[f"rack.{io}.speedup_workers"] = str(w)
    return facts


def _alone_facts(alone) -> dict:
    """From the bench files alone: each kind's total MAPE over the datasets; both calibrations' 80% coverage of the
    measured totals and the intervals' median width."""
    facts = {}
    for kind in ("ideal", "revised", "mva", "sim"):
        totals = [s.mape[kind]["total"] for s in alone.summaries if kind in s.mape]
        if totals:
            facts[f"validate.benchmarks.{kind}.total"] = _range(totals, _pct)
    return facts


def _coverage_facts(prefix: str, found) -> dict:
    """Per kind, the share of measured totals inside the 80% interval over every dataset, and the widths' range."""
    facts = {}
    for kind in ("ideal", "revised", "mva", "sim"):
        cells = [s.coverage[kind]["total"] for s in found.summaries if "total" in s.coverage.get(kind, {})]
        if cells:
            inside, count = sum(c[0] for c in cells), sum(c[1] for c in cells)
            facts[f"{prefix}.{kind}.coverage"] = f"{inside} of {count}"
            facts[f"{prefix}.{kind}.interval_width"] = _range([c[2] for c in cells], lambda v: f"{v:.0f}%")
    return facts


def _validation_facts(found) -> dict:
    facts = {}
    for summary in found.summaries:
        name = summary.datasets[0]
        for kind, phases in summary.mape.items():
            for quantity, value in phases.items():
                facts[f"validate.{name}.{kind}.{quantity.replace(' ', '_')}"] = _pct(value)
        if "total" in summary.repeats:
            facts[f"validate.{name}.repeats.total"] = _pct(summary.repeats["total"])
        facts[f"validate.{name}.configurations"] = str(summary.configurations)
        facts[f"validate.{name}.runs"] = str(summary.runs)
    if found.summaries:
        facts["validate.runs"] = str(sum(s.runs for s in found.summaries))
        within = sum(s.within["mva"]["total"] for s in found.summaries if "mva" in s.within)
        facts["validate.mva.within_15"] = f"{within} of {sum(s.configurations for s in found.summaries)}"
        for kind in ("ideal", "revised", "mva", "sim"):
            totals = [s.mape[kind]["total"] for s in found.summaries if kind in s.mape]
            if totals:
                facts[f"validate.{kind}.total"] = _range(totals, _pct)
            training = [s.mape[kind]["training"] for s in found.summaries if kind in s.mape]
            if training:
                facts[f"validate.{kind}.training"] = _range(training, _pct)
    return facts


def utilization_error(sweep, curves) -> tuple | None:
    """MVA's server utilisation against validate's measured medians over every (series, W) of the sweep: the mean
    and largest absolute difference, in points of utilisation (0-1), or None without both."""
    found = validated(sweep, curves)
    errors = []
    for series in sweep.series.values():
        for w in series.workers:
            measured = found.medians(series, w, "server_utilization")
            model = predicted(curves.of(series), "mva", "server_utilization", w)
            if measured and model is not None:
                errors.extend(abs(model - m) for m in measured)
    if not errors:
        return None
    return sum(errors) / len(errors), max(errors)


def saturation_facts(bench, saturation_model) -> dict:
    """Per saturation run the knee measured, each kind's knee and MAPE; over the runs how many curves each kind
    has within 10% and its knees within one client."""
    facts = {}
    if bench.saturation is None:
        return facts
    try:
        runs = saturation_model.comparisons(bench.saturation.path)["runs"]
    except ModelUnavailable:
        return facts
    counts = {}
    thinks = {}
    for run in runs:
        thinks.setdefault((run["inputs"]["parameters"], run["inputs"]["servers"]), []).append(run)
    for (parameters, servers), same in thinks.items():
        for index, run in enumerate(sorted(same, key=lambda r: r["inputs"]["think_us"]), 1):
            key = f"saturation.p{parameters}.s{servers}.z{index}"
            measured = run["measured"]["knee_clients"]
            facts[f"{key}.knee"] = str(measured)
            facts[f"{key}.knee_bound"] = f"{run['knee_bound']:.1f}"
            facts[f"{key}.plateau"] = f"{run['measured']['plateau_updates_per_s']:.0f}"
            for curve in run["curves"]:
                kind, mape = curve["kind"], curve.get("mape_percent")
                if mape is None:
                    continue
                facts[f"{key}.{kind}.mape"] = _pct(mape)
                facts[f"{key}.{kind}.knee"] = str(curve["knee_clients"])
                tally = counts.setdefault(kind, [0, 0, 0, []])
                tally[0] += mape <= 10.0
                tally[1] += abs(curve["knee_clients"] - measured) <= 1
                tally[2] += 1
                tally[3].append(mape)
    for kind, (within, knees, total, mapes) in counts.items():
        facts[f"saturation.{kind}.within_10"] = f"{within} of {total}"
        facts[f"saturation.{kind}.knees_within_1"] = f"{knees} of {total}"
        facts[f"saturation.{kind}.mape"] = _range(mapes, _pct)
    cvs = [r.service_cv for r in bench.saturation.runs]
    facts["saturation.service_cv"] = _range(cvs, lambda v: f"{v:.2f}")
    return facts


#: Benchmarks of the published bench files that pages quote: (fact name, file, benchmark, unit).
BENCH_FACTS = (
    ("bench.push_pull.messages.mlp", "push_pull.json", "BM_PushPull/path:0/2143272", "µs"),
    ("bench.push_pull.window.mlp", "push_pull.json", "BM_PushPull/path:1/2143272", "µs"),
    ("bench.raw_exchange.mlp", "push_pull.json", "BM_RawMpiExchange/2143272", "µs"),
    ("bench.allreduce.mlp", "push_pull.json", "BM_Allreduce/2143272", "µs"),
    ("bench.sgd_update.64mib", "server_update.json", "BM_SgdUpdate/67108864", "ms"),
    ("bench.triad.64mib", "server_update.json", "BM_Triad/67108864", "ms"),
    ("bench.train_step.mlp", "nn.json", "BM_TrainStepMlp/128", "ms"),
    ("bench.train_step.cnn", "nn.json", "BM_TrainStepCnn/128", "ms"),
    ("bench.matmul", "nn.json", "BM_OneDnnMatmul/128/784/512", "ms"),
)


def bench_facts(bench) -> dict:
    """The medians of the published benchmarks that pages quote, and the bench files' date and CPU."""
    facts = {}
    for name, file, benchmark, unit in BENCH_FACTS:
        found = bench.files.get(file)
        if found is None or benchmark not in found.benchmarks:
            continue
        seconds = found.benchmarks[benchmark].seconds
        facts[name] = f"{seconds * 1e6:.0f} µs" if unit == "µs" else f"{seconds * 1e3:.2f} ms"
    if bench.cpu():
        facts["bench.cpu"] = bench.cpu()
    dates = sorted(str(g.context.get("date", ""))[:10] for g in bench.files.values() if g.context.get("date"))
    if dates:
        facts["bench.date"] = dates[0]
    return facts


def provenance_facts(sweep) -> dict:
    """Where the published sweep was measured: CPU, cores, MPI, commit, date, repetitions, load."""
    facts = {"sweep.runs": str(len(sweep.runs))}
    cpus = sorted({r.cpu for r in sweep.runs if r.cpu})
    if cpus:
        facts["sweep.cpu"] = ", ".join(cpus)
    facts["sweep.cores"] = ", ".join(str(c) for c in sorted({r.cores for r in sweep.runs}))
    commits = sorted({m.git_commit[:7] for m in sweep.manifests if m.git_commit})
    if commits:
        facts["sweep.commit"] = ", ".join(commits)
    started = sorted(m.started for m in sweep.manifests if m.started)
    if started:
        facts["sweep.date"] = started[0][:10]
    repetitions = {}
    for run in sweep.runs:
        key = (run.dataset, run.io, run.servers, run.workers)
        repetitions[key] = repetitions.get(key, 0) + 1
    facts["sweep.repetitions"] = _range(list(repetitions.values()), str)
    facts["sweep.run_seconds"] = _range([r.phases["total"] for r in sweep.runs], lambda v: f"{v:.1f}") + " s"
    return facts


@dataclass
class _Single:
    """One manifest, read as a data set that has it."""

    manifest: object


def _under_load(*sweeps) -> list:
    """The manifests measured above the load limit (by override) or that do not record the load."""
    heavy, unrecorded = [], []
    for sweep in sweeps:
        manifests = [] if sweep is None else getattr(sweep, "manifests", None) or [getattr(sweep, "manifest", None)]
        for manifest in (m for m in manifests if m is not None):
            if manifest.other_cpu_share is None:
                unrecorded.append(manifest)
            elif manifest.under_load or manifest.other_cpu_share > LOAD_LIMIT:
                heavy.append(manifest)
    return heavy, unrecorded


def make_findings(context) -> Findings:
    """Every fact and the findings table, from the context the figures read."""
    sweep, curves = context.sweep, context.curves
    found = validated(sweep, curves)
    findings = Findings()
    facts = findings.facts
    facts.update(provenance_facts(sweep))
    facts.update(_validation_facts(found))
    facts.update(_coverage_facts("validate", found))
    alone = validated_from_benchmarks(sweep, curves)
    if alone is not None:
        facts.update(_alone_facts(alone))
        facts.update(_coverage_facts("validate.benchmarks", alone))
    facts.update(saturation_facts(context.bench, context.saturation))
    facts.update(rack_facts(context.rack))
    facts.update(bench_facts(context.bench))
    error = utilization_error(sweep, curves)
    if error is not None:
        facts["model.utilization_error.mean"] = f"{100 * error[0]:.0f} points"
        facts["model.utilization_error.max"] = f"{100 * error[1]:.0f} points"
    busiest = max((c.highest["server_utilization"] for c in found.configurations if c.servers == 1), default=None)
    if busiest is not None:
        facts["sweep.server_utilization_max"] = f"{100 * busiest:.0f}%"
    _sweep_facts(sweep, curves, found, facts)
    findings.rows = _rows(context, facts)
    findings.caveats = _caveats(context)
    return findings


def _sweep_facts(sweep, curves, found, facts) -> None:
    """RQ1 and RQ2 figures of the first dataset (the real one, Fashion-MNIST, where present)."""
    datasets = sweep.datasets()
    if not datasets:
        return
    dataset = "fashion-mnist" if "fashion-mnist" in datasets else datasets[0]
    one = find(sweep, dataset, "sequential", 1)
    if one:
        train = {w: found.medians(one, w, "compute") for w in one.workers}
        known = {w: t[0] for w, t in train.items() if t}
        if known:
            best = min(known, key=known.get)
            facts["sweep.fastest_workers"] = str(best)
            facts["sweep.fastest_training"] = f"{known[best]:.2f} s"
        knee = predicted(curves.of(one), "mva", "knee_workers", one.workers[-1])
        if knee is not None:
            facts["model.knee"] = f"{knee:.1f}"
    for io in ("sequential", "parallel"):
        series = find(sweep, dataset, io, 1)
        if not series:
            continue
        reads = {w: found.medians(series, w, "init_io") for w in series.workers}
        shares = {w: found.medians(series, w, "setup_share") for w in series.workers}
        first, last = series.workers[0], series.workers[-1]
        if reads[first] and reads[last]:
            facts[f"sweep.{io}.read"] = (f"{reads[first][0]:.2f} s at W = {first} to {reads[last][0]:.2f} s at "
                                         f"W = {last}")
        if shares[last]:
            facts[f"sweep.{io}.setup_share"] = f"{100 * shares[last][0]:.0f}%"
        model = predicted(curves.of(series), "revised", "init_io_s", last)
        if model is not None:
            facts[f"model.{io}.read"] = f"{model:.2f} s"
    facts["sweep.dataset"] = dataset


def _rows(context, facts) -> list:
    """The findings table: (question, 2016 study, measured here, the model, what limits the answer)."""
    rack = context.rack is not None
    get = facts.get
    rack_text = (f"rack, 1 Gbit/s: one server {get('rack.sequential.s1.utilization', 'n/a')} busy from W = "
                 f"{get('rack.sequential.s1.knee', 'n/a')}; 2 servers {get('rack.sequential.speedup', 'n/a')}"
                 if rack else "no rack sweep measured yet")
    rows = [
        ("RQ1 where one server stops scaling", STUDY["RQ1"],
         f"2 cores: training fastest at W = {get('sweep.fastest_workers', 'n/a')}; {rack_text}",
         f"MVA knee W* = {get('model.knee', 'n/a')} on this machine",
         "2 cores: W + S > 2 ranks share cores" + ("" if rack else "; the rack sweep would show the knee")),
        ("RQ2 initialisation and sequential I/O", STUDY["RQ2"],
         f"sequential read {get('sweep.sequential.read', 'n/a')} ({get('sweep.sequential.setup_share', 'n/a')} of "
         f"the run); parallel {get('sweep.parallel.read', 'n/a')}",
         f"revised read at W = 4: {get('model.sequential.read', 'n/a')}",
         "one local disk and page cache serve every reader"),
        ("RQ3 how the server becomes the bottleneck", STUDY["RQ3"],
         f"2 cores: server at most {get('sweep.server_utilization_max', 'n/a')} busy; one server's benchmark knee at "
         f"{_knees(facts)} clients" + (f"; {rack_text}" if rack else ""),
         f"saturation MAPE {get('saturation.mva.mape', 'n/a')} (mva); utilisation off by "
         f"{get('model.utilization_error.mean', 'n/a')}",
         "2 cores: workers wait for cores before the server"),
        ("RQ4 ideal against revised model", STUDY["RQ4"],
         f"total-time MAPE: ideal {get('validate.ideal.total', 'n/a')}, revised "
         f"{get('validate.revised.total', 'n/a')}, mva {get('validate.mva.total', 'n/a')}",
         f"mva's total within 15% on {get('validate.mva.within_15', 'n/a')} configurations (figure 8); from the "
         f"bench files alone mva {get('validate.benchmarks.mva.total', 'n/a')}; 80% interval holds "
         f"{get('validate.mva.coverage', 'n/a')}",
         f"{get('sweep.repetitions', 'n/a')} repetitions per configuration; runs of {get('sweep.run_seconds', 'n/a')}"),
        ("RQ5 remaining gaps", STUDY["RQ5"], _learners_verdict(context),
         "predicts samples/s, not time to accuracy",
         f"learners at W = {context.learners.runs[0].workers} on {get('sweep.cores', '?')} cores"
         if context.learners is not None else "no learner runs"),
    ]
    return rows


def _knees(facts) -> str:
    """The range of the measured one-server knees of the saturation benchmark."""
    knees = [int(v) for k, v in facts.items() if k.startswith("saturation.p") and ".s1.z" in k
             and k.endswith(".knee") and k.count(".") == 4]
    return _range(knees, str) if knees else "n/a"


def _learners_verdict(context) -> str:
    learners = context.learners
    if learners is None or learners.target() is None:
        return "no learner runs"
    from .learners import target_times
    parts = []
    for slowed, name in ((False, "even"), (True, "straggler")):
        timed = [(target_times(runs).median_s, learner.label) for learner, runs in learners.groups(slowed)
                 if target_times(runs).median_s is not None]
        if timed:
            best = min(timed)
            parts.append(f"{name}: {best[1]} first ({best[0]:.2f} s)")
    return f"time to {100 * learners.target():g}%: " + "; ".join(parts) if parts else "no learner reached the target"


def _caveats(context) -> list:
    """What limits the answers on this machine, each once."""
    sweep = context.sweep
    run = max(sweep.runs, key=lambda r: r.ranks)
    hosts = "one host" if run.hosts == 1 else f"{run.hosts} hosts"
    caveats = [
        f"**Shared cores.** The sweep had {run.cores} cores on {hosts}; every run of more than "
        f"{run.cores * run.hosts} ranks (W + S) shared them, up to {run.ranks} ranks, so training time cannot fall "
        "as 1/W and a slowdown past a knee cannot be told apart from core sharing.",
        "**One disk.** One local disk and page cache serve every reader; `--cold-cache` drops the file's pages "
        "before each read, but parallel readers share the disk's bandwidth, which a parallel file system would "
        "multiply.",
        "**Run-to-run spread.** Identical runs of a few seconds differ by 10-40% here; every figure is a median of "
        "repeated, interleaved runs.",
    ]
    if context.rack is None:
        caveats.append("**No rack sweep.** `docs/results/raw/rack` holds no runs: RQ1 and RQ3 rest on the 2-core "
                       "sweep and the saturation benchmark alone (`docs/results/measure.sh rack` measures it).")
    heavy, unrecorded = _under_load(sweep, context.rack, context.learners, context.communication,
                                    _Single(context.bench_manifest))
    if heavy:
        caveats.append("**Measured under load.** " + ", ".join(
            f"`{m.path}` (other processes took {100 * (m.other_cpu_share or 0):.0f}% of the CPU)" for m in heavy))
    names = [f"`{m.path}`" for m in unrecorded]
    if context.bench.folder is not None and context.bench_manifest is None:
        names.append(f"the benchmarks in `{context.bench.folder}` (no `{context.bench.folder.name}.manifest.json`)")
    if names:
        caveats.append("**Load not recorded.** " + ", ".join(names) + " record no `other_cpu_share`: how busy "
                       "the machine was while they were measured is not known.")
    return caveats
