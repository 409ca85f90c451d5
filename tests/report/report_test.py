"""Tests of `psbench report` and its module psbench_report, from the committed fixtures.

Environment: PSBENCH (the psbench binary), PSBENCH_REPORT_PATH (the folder holding psbench_report).
Run one test: python3 report_test.py ReportTest.test_every_section_and_figure."""

import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SWEEP = FIXTURES / "sweep"
BENCH = FIXTURES / "bench"
FAKE_MODEL = HERE / "fake_model.py"
TEST_CALIBRATION = HERE.parent / "cli" / "model" / "calib.json"
PSBENCH = os.environ.get("PSBENCH", "psbench")
MODULE_PATH = os.environ.get("PSBENCH_REPORT_PATH", str(HERE.parents[1] / "src" / "report"))
FIGURE_STEMS = ("fig1_time_vs_workers", "fig2_phase_breakdown", "fig3_server_vs_workers", "fig4_staleness",
                "fig5_initial_io", "fig6_server_saturation", "fig7_scale_prediction", "fig8_predicted_vs_measured")


def png_size(path: Path) -> tuple:
    """(width, height) from a PNG's signature and IHDR chunk; fails on anything that is not a PNG."""
    header = path.read_bytes()[:24]
    if header[:8] != b"\x89PNG\r\n\x1a\n" or header[12:16] != b"IHDR":
        raise AssertionError(f"{path} is not a PNG file")
    return struct.unpack(">II", header[16:24])


def run_module(*args) -> subprocess.CompletedProcess:
    """python3 -m psbench_report ARGS with the module on PYTHONPATH."""
    environment = dict(os.environ, PYTHONPATH=MODULE_PATH, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "psbench_report", *map(str, args)], capture_output=True, text=True,
                          env=environment, timeout=300, check=False)


def run_psbench(*args) -> subprocess.CompletedProcess:
    """psbench ARGS (the binary under test)."""
    return subprocess.run([PSBENCH, *map(str, args)], capture_output=True, text=True, timeout=300, check=False)


class ReportTest(unittest.TestCase):
    """Each test gets a scratch folder; fixtures are copied into it before any change."""

    def setUp(self):
        self.scratch = Path(tempfile.mkdtemp(prefix="psbench-report-test."))
        self.calib = self.scratch / "calib.json"
        self.calib.write_text("{}")

    def tearDown(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def copy_sweep(self) -> Path:
        target = self.scratch / "sweep"
        shutil.copytree(SWEEP, target)
        return target

    def copy_sweep_as_format_2(self) -> Path:
        """The fixture sweep copied and rewritten as results format 2 (which adds env.cpu and env.onednn_isa)."""
        sweep = self.copy_sweep()
        for path in sweep.glob("w*.json"):
            document = json.loads(path.read_text())
            document["format"] = 2
            document["env"].update(cpu="AMD EPYC 7B13", onednn_isa="avx2")
            path.write_text(json.dumps(document))
        return sweep

    def assert_one_error(self, done, *fragments):
        lines = [line for line in done.stderr.splitlines() if line.startswith("psbench: error:")]
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(len(lines), 1, done.stderr)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])
        self.assertFalse((self.scratch / "out").exists(), "a failed report must write nothing")

    def assert_drawn(self, out: Path, number: int, stem: str) -> str:
        """report.md's text, after checking that it has figure NUMBER and that STEM.png is at least 1000 x 600."""
        text = (out / "report.md").read_text()
        self.assertIn(f"*Figure {number}:", text)
        width, height = png_size(out / f"{stem}.png")
        self.assertGreaterEqual(width, 1000)
        self.assertGreaterEqual(height, 600)
        return text

    def make_learners(self, times: dict) -> Path:
        """A learners folder from the fixture's W = 2 run: one results file per (learner flags, straggler) of times,
        each with a curve that crosses 0.85 at the given time (None: stays below it)."""
        folder = self.scratch / "learners"
        folder.mkdir()
        base = json.loads((SWEEP / "w2-s1-sequential.json").read_text())
        base["format"] = 2
        base["env"].update(cpu="AMD EPYC 7B13", onednn_isa="avx2")
        for index, ((mode, staleness, compensation, straggler), reached) in enumerate(times.items()):
            run = json.loads(json.dumps(base))
            run["config"].update(mode=mode, staleness=staleness, delay_compensation=compensation,
                                 straggler=straggler, target_accuracy=0.85, stop_at_target=bool(straggler))
            end = 2.0 * (reached or 5.0)
            run["curve"] = [{"time_s": end * k / 4, "accuracy": 0.70 + (0.17 if reached else 0.1) * k / 4,
                             "samples": 100 * k, "steps": k, "epoch": 0, "loss": 1.0, "test_loss": 1.0}
                            for k in range(1, 5)]
            run["train"]["time_to_target_s"] = reached
            (folder / f"run{index}.json").write_text(json.dumps(run))
        return folder

    def test_learners_figure_table_and_answer(self):
        """Figure 9, the time-to-target table (median of the runs that reached it) and RQ5's verdict on the SSP claim
        come from the learner runs."""
        slow = "rank=2,factor=4"
        folder = self.make_learners({("sync", -1, 0.0, ""): 1.5, ("async", -1, 0.0, ""): 0.8,
                                     ("async", 0, 0.0, slow): 6.0, ("async", 4, 0.0, slow): 4.0,
                                     ("async", -1, 0.0, slow): 1.2, ("async", -1, 0.04, ""): None})
        out = self.scratch / "out"
        done = run_psbench("report", SWEEP, "--learners", folder, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = self.assert_drawn(out, 9, "fig9_learners")
        table = text[text.index("### Learners: time to 85% test accuracy"):]
        self.assertIn("| sync (allreduce) | even | 1.50 s (1.50-1.50, 1/1) |", table)
        self.assertIn("| DC-ASGD λ = 0.04 | even | not reached (0/1) |", table)
        self.assertIn("| SSP s = 4 | one straggler | 4.00 s (4.00-4.00, 1/1) |", table)
        rq5 = text[text.index("## RQ5"):text.index("### Learners")]
        self.assertIn("Without a straggler the first to reach 85% was async (unbounded) (0.80 s).", rq5)
        self.assertIn("s = 0 took 6.00 s, s = 4 4.00 s, unbounded async 1.20 s.", rq5)
        self.assertIn("before s = 0 beside a straggler holds", rq5)
        self.assertIn("--learners", text)

    def test_plan_figure_and_section(self):
        """Figure 10 and the section "Planning a cluster" quote what `psbench model plan` answers for the command
        the section names (figure 10 draws its surface)."""
        out = self.scratch / "out"
        done = run_module(SWEEP, "--calib", self.calib, "--psbench", FAKE_MODEL, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = self.assert_drawn(out, 10, "fig10_plan")
        start = text.index("## Planning a cluster")
        section = text[start:text.index("\n## ", start)]
        command = section[section.index("`psbench model plan --calib") + 1:].split("`")[0].split()
        self.assertEqual(command[:4], ["psbench", "model", "plan", "--calib"])
        command[4] = str(TEST_CALIBRATION)
        plan = run_psbench(*command[1:], "--confirm", "0", "--format", "json")
        self.assertEqual(plan.returncode, 0, plan.stderr)
        answer = json.loads(plan.stdout)
        best, setup = answer["recommendation"], answer["study"]
        self.assertIn(f"searched {answer['searched']} configurations", section)
        self.assertIn(f"recommends {best['servers']} server{'' if best['servers'] == 1 else 's'} and "
                      f"{best['workers']} workers, {best['ranks_per_node']} ranks per node", section)
        self.assertIn(f"Its bottleneck: {best['bottleneck']['words']}.", section)
        self.assertIn(f"Its bottleneck: {setup['bottleneck']['words']}.", section)
        self.assertIn(f"{answer['searched']}", section)
        svg = (out / "fig10_plan.svg").read_text()
        self.assertIn(f"recommended: S = {best['servers']}, W = {best['workers']}", svg)
        for servers in {point["servers"] for point in answer["surface"]}:
            self.assertIn(f"S = {servers}<", svg.replace("</", "<"))

    def make_communication(self, bytes_sent: dict) -> Path:
        """A communication folder: one run per (mode, compress, block samples) of bytes_sent, the bytes each worker
        sent over its 400 samples, each reaching 0.85 at its fourth evaluation (400 samples) at 1 s."""
        keys = list(bytes_sent)
        folder = self.make_learners({("async" if mode == "async" else mode, -1, 0.0, f"{index}"): 1.0
                                     for index, (mode, _, _) in enumerate(keys)})
        folder = folder.rename(self.scratch / "communication")
        for index, (mode, compress, block) in enumerate(keys):
            path = folder / f"run{index}.json"
            run = json.loads(path.read_text())
            run["config"].update(compress=compress, straggler="", stop_at_target=False)
            if block:
                run["config"]["block_samples"] = block
            for rank in run["per_rank"]:
                if rank["role"] == "worker":
                    rank["worker"].update(samples=400, exchange={"bytes_sent": bytes_sent[(mode, compress, block)],
                                                                 "bytes_received": 0})
            path.write_text(json.dumps(run))
        return folder

    def test_communication_figure_and_table(self):
        """Figure 11 and the table "Communication" quote each learner's bytes per sample, its bytes to the target
        (pro rata of the first worker's samples at the first evaluation at or above it) and the ratios."""
        folder = self.make_communication({("sync", "none", 0): 4.0e8, ("sync", "onebit", 0): 1.0e7,
                                          ("async", "none", 0): 8.0e8, ("async", "onebit", 0): 4.0e8,
                                          ("bmuf", "none", 4096): 2.0e6, ("average", "none", 4096): 4.0e6})
        out = self.scratch / "out"
        done = run_psbench("report", SWEEP, "--communication", folder, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = self.assert_drawn(out, 11, "fig11_communication")
        table = text[text.index("### Communication: bytes and time to 85% test accuracy"):]
        self.assertIn("sync + 1-bit sends 40.0x fewer bytes per sample than sync (allreduce); async + 1-bit sends "
                      "2.0x fewer bytes per sample than async (unbounded); BMUF (block 4096) sends 200.0x fewer", table)
        self.assertIn("| sync (allreduce) | 1,000,000 | 400.0 (400.0-400.0) | 1.00 s (1.00-1.00, 1/1) |", table)
        self.assertIn("| sync + 1-bit | 25,000 | 10.0 (10.0-10.0) |", table)
        self.assertIn("| model averaging (block 4096) | 10,000 | 4.0 (4.0-4.0) |", table)
        self.assertIn("--communication", text)
        svg = (out / "fig11_communication.svg").read_text()
        for label in ("async + 1-bit", "BMUF (block 4096)", "MB the first worker sent"):
            self.assertIn(label, svg)

    def test_communication_run_of_local_mode_is_one_error(self):
        folder = self.make_communication({("local", "none", 0): 1.0})
        done = run_psbench("report", SWEEP, "--communication", folder, "--out", self.scratch / "out")
        self.assert_one_error(done, "run0.json", "--mode local")

    def test_learner_run_without_curve(self):
        folder = self.make_learners({("async", -1, 0.0, ""): 1.0})
        path = folder / "run0.json"
        document = json.loads(path.read_text())
        del document["curve"]
        path.write_text(json.dumps(document))
        done = run_psbench("report", SWEEP, "--learners", folder, "--out", self.scratch / "out")
        self.assert_one_error(done, "run0.json", "'curve'")

    def test_every_section_and_figure(self):
        """Every section and figure of a format 2 sweep (`psbench model validate`, behind figure 8, reads format 2
        results files only)."""
        out = self.scratch / "out"
        done = run_module(self.copy_sweep_as_format_2(), "--bench", BENCH, "--calib", self.calib,
                          "--psbench", FAKE_MODEL, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = (out / "report.md").read_text()
        lines = text.splitlines()
        self.assertTrue(lines[4].startswith("- Data measured at "), lines[4])
        self.assertIn("report made at `", lines[4])
        self.assertTrue(lines[5].startswith("- CPU: AMD EPYC 7B13; MPI: Open MPI v4.1.4; sweep measured "), lines[5])
        # The findings table, one row per question, within the first 40 lines; no line longer than 400 characters.
        head = lines[:40]
        self.assertIn("## Findings", head)
        for question in range(1, 6):
            self.assertTrue(any(line.startswith(f"| RQ{question} ") for line in head), head)
        self.assertEqual([n for n, line in enumerate(lines, 1) if len(line) > 400], [])
        for heading in ("## What this report rests on", "## RQ1", "## RQ2", "## RQ3", "## RQ4", "## RQ5",
                        "## Caveats", "## Appendix: runs and benchmarks"):
            self.assertIn(heading, text)
        self.assertEqual(text.count("**Shared cores.**"), 1)
        self.assertIn("](runs.csv)", text)
        runs = (out / "runs.csv").read_text().splitlines()
        self.assertEqual(runs[0].split(",")[:4], ["set", "file", "dataset", "workers"])
        self.assertEqual(len(runs) - 1, len(list(SWEEP.glob("w*.json"))))
        self.assertTrue((out / "bench.csv").exists())
        facts = json.loads((out / "facts.json").read_text())
        self.assertIn("validate.mva.total", facts)
        self.assertIn("**No rack sweep.**", text)
        for number, stem in enumerate(FIGURE_STEMS, start=1):
            self.assertIn(f"*Figure {number}:", text)
            self.assertIn(f"]({stem}.png)", text)
            width, height = png_size(out / f"{stem}.png")
            self.assertGreaterEqual(width, 1000, stem)
            self.assertGreaterEqual(height, 600, stem)
            self.assertIn("<svg", (out / f"{stem}.svg").read_text()[:2000])
        self.assertNotIn("Model unavailable", text)
        self.assertIn("| data | phase | ideal |", text)
        self.assertEqual(sorted(p.name for p in out.iterdir() if p.name.startswith(".")), [])
        self.assert_saturation_curves(out)

    def assert_saturation_curves(self, out: Path):
        """Figure 6 draws the real `psbench model saturation` curves and report.md quotes their errors and knees."""
        text = (out / "report.md").read_text()
        figure6 = text[text.index("*Figure 6:"):]
        figure6 = figure6[:figure6.index("\n")]
        self.assertNotIn("no MVA or simulation curves", text)
        model = run_psbench("model", "saturation", "--bench", BENCH / "server_saturation.json", "--format", "json")
        self.assertEqual(model.returncode, 0, model.stderr)
        runs = json.loads(model.stdout)["runs"]
        self.assertEqual(len(runs), 2)
        for run in runs:
            rq3 = text[text.index("## RQ3"):text.index("## RQ4")]
            row = next(line for line in rq3.splitlines()
                       if line.startswith(f"| {run['inputs']['parameters']:,} | {run['inputs']['servers']} |"))
            self.assertIn(f"| {run['measured']['plateau_updates_per_s']:.0f} | {run['measured']['knee_clients']} | "
                          f"{run['knee_bound']:.1f} |", row)
            for curve in run["curves"]:
                self.assertIn(f"{curve['mape_percent']:.1f}%, {curve['knee_clients']}", row)
        svg = (out / "fig6_server_saturation.svg").read_text()
        for label in ("MVA model (colour: server count)", "SimGrid simulation (colour: server count)",
                      "knee, measured", "knee, MVA model", "knee, SimGrid simulation"):
            self.assertIn(label, svg)

    def test_png_reads_back_with_matplotlib(self):
        import matplotlib.image
        out = self.scratch / "out"
        done = run_module(SWEEP, "--bench", BENCH, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        pixels = matplotlib.image.imread(out / "fig2_phase_breakdown.png")
        self.assertGreaterEqual(pixels.shape[1], 1000)
        self.assertGreaterEqual(pixels.shape[0], 600)

    def test_without_model_says_so_and_names_the_figures(self):
        out = self.scratch / "out"
        done = run_psbench("report", SWEEP, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = (out / "report.md").read_text()
        self.assertIn("**Model unavailable**", text)
        self.assertIn("no calibration file was given", text)
        self.assertIn("Figure 7 (", text)
        self.assertIn("Figure 8 (", text)
        self.assertIn("fig1_time_vs_workers.png", text)
        self.assertIn("no model curves", text)
        self.assertFalse((out / "fig8_predicted_vs_measured.png").exists())

    def test_missing_file_named_by_the_manifest(self):
        sweep = self.copy_sweep()
        victim = json.loads((sweep / "manifest.json").read_text())["runs"][0]["file"]
        (sweep / victim).unlink()
        done = run_psbench("report", sweep, "--out", self.scratch / "out")
        self.assert_one_error(done, str(sweep / victim), "is missing")

    def test_malformed_file(self):
        sweep = self.copy_sweep()
        (sweep / "w2-s1-sequential.json").write_text('{"format": 1, "config": ')
        done = run_psbench("report", sweep, "--out", self.scratch / "out")
        self.assert_one_error(done, "w2-s1-sequential.json", "is not valid JSON")

    def test_missing_key(self):
        sweep = self.copy_sweep()
        path = sweep / "w1-s1-parallel.json"
        document = json.loads(path.read_text())
        del document["phases"]["init_io"]
        path.write_text(json.dumps(document))
        done = run_psbench("report", sweep, "--out", self.scratch / "out")
        self.assert_one_error(done, "w1-s1-parallel.json", "phases.init_io")

    def test_mixed_versions(self):
        sweep = self.copy_sweep()
        path = sweep / "w2-s1-parallel.json"
        document = json.loads(path.read_text())
        document["format"] = 2
        document["env"].update(cpu="AMD EPYC", onednn_isa="avx2")
        path.write_text(json.dumps(document))
        done = run_psbench("report", sweep, "--out", self.scratch / "out")
        self.assert_one_error(done, "w2-s1-parallel.json", "must not mix versions")

    def test_unknown_format(self):
        sweep = self.copy_sweep()
        path = sweep / "w1-s1-sequential.json"
        document = json.loads(path.read_text())
        document["format"] = 3
        path.write_text(json.dumps(document))
        done = run_psbench("report", sweep, "--out", self.scratch / "out")
        self.assert_one_error(done, "w1-s1-sequential.json", "has format 3")

    def test_format_2_needs_env_cpu(self):
        sweep = self.copy_sweep()
        for path in sweep.glob("w*.json"):
            document = json.loads(path.read_text())
            document["format"] = 2
            document["env"].update(cpu="AMD EPYC 7B13", onednn_isa="avx2")
            if path.name == "w2-s1-parallel.json":
                del document["env"]["cpu"]
            path.write_text(json.dumps(document))
        done = run_psbench("report", sweep, "--out", self.scratch / "out")
        self.assert_one_error(done, "w2-s1-parallel.json", "env.cpu")

    def test_format_2_is_read(self):
        sweep = self.copy_sweep_as_format_2()
        out = self.scratch / "out"
        done = run_psbench("report", sweep, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("CPU AMD EPYC 7B13", (out / "report.md").read_text())

    def test_repeated_runs_count_once_by_their_median(self):
        """`psbench model validate` and the report compare a configuration's median: three runs of one configuration
        (its fixture, half its time and twice it) are one configuration measured at the fixture's time."""
        sweep = self.copy_sweep_as_format_2()
        base = json.loads((sweep / "w1-s1-parallel.json").read_text())
        for name, scale in (("r2", 0.5), ("r3", 2.0)):
            repeat = json.loads(json.dumps(base))
            repeat["phases"] = {phase: seconds * scale for phase, seconds in base["phases"].items()}
            repeat["config"]["out"] = f"w1-s1-parallel-{name}.json"
            (sweep / f"w1-s1-parallel-{name}.json").write_text(json.dumps(repeat))
        runs = sorted(sweep.glob("w*.json"))
        done = run_psbench("model", "validate", "--calib", HERE.parents[0] / "cli" / "model" / "calib.json", *runs,
                           "--kind", "mva")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("over 4 configurations (the median of 6 runs)", done.stdout)
        total = [line.split() for line in done.stdout.splitlines() if "w1-s1-parallel" in line and " total " in line]
        self.assertEqual(len(total), 1, done.stdout)
        self.assertEqual(total[0][5:7], ["3", f"{base['phases']['total']:.3f}"])
        out = self.scratch / "out"
        done = run_module(sweep, "--bench", BENCH, "--calib", self.calib, "--psbench", FAKE_MODEL, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Over 4 configurations, each the median of its runs (6 runs), as `psbench model validate`",
                      (out / "report.md").read_text())

    def test_quoted_total_mape_is_validates(self):
        """The report quotes the total-time MAPE of `psbench model validate --format json` on the same files, per
        kind."""
        sweep = self.copy_sweep_as_format_2()
        runs = sorted(sweep.glob("w*.json"))
        done = run_psbench("model", "validate", "--calib", HERE.parents[0] / "cli" / "model" / "calib.json", *runs,
                           "--kind", "all", "--format", "json")
        self.assertEqual(done.returncode, 0, done.stderr)
        document = json.loads(done.stdout)
        self.assertEqual(document["format"], 1)
        mape = document["over_configurations"]["mape_percent"]
        out = self.scratch / "out"
        done = run_module(sweep, "--bench", BENCH, "--calib", self.calib, "--psbench", FAKE_MODEL, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = (out / "report.md").read_text()
        header = next(line for line in text.splitlines() if line.startswith("| data | phase | "))
        kinds = [cell.strip() for cell in header.strip("|").split("|")][2:]
        quoted = [line for line in text.splitlines() if line.startswith("| ") and "| total |" in line]
        self.assertEqual(len(quoted), 1, text)
        cells = [cell.strip() for cell in quoted[0].strip("|").split("|")][2:]
        found = {kind: re.match(r"([0-9.]+)% \(", cell).group(1) for kind, cell in zip(kinds, cells)}
        self.assertEqual(set(found), set(document["kind_order"]), quoted[0])
        for kind, value in found.items():
            self.assertEqual(value, f"{mape[kind]['total']:.1f}", f"{kind}: report {value}%, validate "
                                                                    f"{mape[kind]['total']}%")

    def test_quoted_training_median_is_validates(self):
        """RQ1 quotes a point's training time as `psbench model validate --format json` measures the configuration
        of the same files: with three runs whose training times are the fixture's, 0.6 and 2.9 times it, the median
        (not their mean, nor the first run's) at W = 1."""
        sweep = self.copy_sweep_as_format_2()
        base = json.loads((sweep / "w1-s1-sequential.json").read_text())
        for name, scale in (("r2", 0.6), ("r3", 2.9)):
            repeat = json.loads(json.dumps(base))
            repeat["train"]["training_s"] = base["train"]["training_s"] * scale
            repeat["config"]["out"] = f"w1-s1-sequential-{name}.json"
            (sweep / f"w1-s1-sequential-{name}.json").write_text(json.dumps(repeat))
        runs = sorted(sweep.glob("w*.json"))
        done = run_psbench("model", "validate", "--calib", HERE.parents[0] / "cli" / "model" / "calib.json", *runs,
                           "--kind", "all", "--format", "json")
        self.assertEqual(done.returncode, 0, done.stderr)
        document = json.loads(done.stdout)
        chosen = [c for c in document["configurations"]
                  if any(Path(f).name == "w1-s1-sequential.json" for f in c["files"])]
        self.assertEqual(len(chosen), 1, done.stdout)
        self.assertEqual(chosen[0]["repetitions"], 3)
        training = chosen[0]["measured"]["compute"]
        out = self.scratch / "out"
        done = run_module(sweep, "--bench", BENCH, "--calib", self.calib, "--psbench", FAKE_MODEL, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = (out / "report.md").read_text()
        rq1 = [line for line in text[text.index("## RQ1"):text.index("## RQ2")].splitlines()
               if ", 1 server: training time " in line]
        self.assertEqual(len(rq1), 1, text)
        quoted = re.search(r"training time W=1: ([0-9.]+) s", rq1[0])
        self.assertIsNotNone(quoted, rq1[0])
        self.assertEqual(quoted.group(1), f"{training:.2f}", f"report {quoted.group(1)} s, validate {training} s")
        quoted_read = re.search(r"sequential I/O, 1 server: initial read \(slowest wait \+ read\) W=1: ([0-9.]+) s",
                                text)
        self.assertIsNotNone(quoted_read, text)
        self.assertEqual(quoted_read.group(1), f"{chosen[0]['measured']['init_io']:.2f}")

    def test_rack_sweep_answers_rq1_and_rq3(self):
        """With --rack, figure 12 is drawn and RQ1 and RQ3 quote the rack's utilisation and what a second server
        gives; the caveat "No rack sweep" is gone."""
        rack = self.scratch / "rack"
        rack.mkdir()
        base = json.loads((SWEEP / "w1-s1-sequential.json").read_text())
        for servers in (1, 2):
            for workers in (1, 2, 3):
                run = json.loads(json.dumps(base))
                run["config"].update(servers=servers)
                run["env"].update(servers=servers, workers=workers, ranks=servers + workers,
                                  hosts=[f"n{k}" for k in range(1, servers + workers + 1)])
                run["server"].update(utilization=min(1.0, 0.4 * workers))
                run["train"].update(samples_per_s=100.0 * min(workers, 2) * servers)
                run["per_rank"] = [dict(r, role="server") for r in base["per_rank"][:1]] * servers + [
                    r for r in base["per_rank"] if r["role"] == "worker"][:1] * workers
                (rack / f"w{workers}-s{servers}-sequential.json").write_text(json.dumps(run))
        out = self.scratch / "out"
        done = run_psbench("report", SWEEP, "--rack", rack, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = self.assert_drawn(out, 12, "fig12_rack")
        rq1 = text[text.index("## RQ1"):text.index("## RQ2")]
        self.assertIn("sequential I/O, 1 server: utilisation W=1: 0.40, W=2: 0.80, W=3: 1.00", rq1)
        self.assertIn("2 servers over 1 at W = 3: 2.00x", rq1)
        rq3 = text[text.index("## RQ3"):text.index("## RQ4")]
        self.assertIn("one server's utilisation reaches 1.00 (sequential I/O)", rq3)
        self.assertNotIn("**No rack sweep.**", text)

    def test_single_worker_count(self):
        sweep = self.copy_sweep()
        for path in sweep.glob("w1-*.json"):
            path.unlink()
        (sweep / "manifest.json").unlink()
        out = self.scratch / "out"
        done = run_psbench("report", sweep, "--bench", BENCH, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = (out / "report.md").read_text()
        for number in (1, 3, 5):
            self.assertIn(f"*Figure {number} (", text)
            self.assertIn("single worker count", text)
        self.assertTrue((out / "fig2_phase_breakdown.png").exists())
        self.assertTrue((out / "fig4_staleness.png").exists())
        self.assertFalse((out / "fig1_time_vs_workers.png").exists())

    def test_empty_folder(self):
        (self.scratch / "empty").mkdir()
        done = run_psbench("report", self.scratch / "empty", "--out", self.scratch / "out")
        self.assert_one_error(done, "holds no results files")

    def test_bad_bench_file(self):
        bench = self.scratch / "bench"
        shutil.copytree(BENCH, bench)
        (bench / "push_pull.json").write_text("[1, 2]")
        done = run_psbench("report", SWEEP, "--bench", bench, "--out", self.scratch / "out")
        self.assert_one_error(done, "push_pull.json", "is not a JSON object")


if __name__ == "__main__":
    unittest.main()
