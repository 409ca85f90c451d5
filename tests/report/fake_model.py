#!/usr/bin/env python3
"""A test double for `psbench model predict --format json` (docs/formats.md#predict-json), used only by the report's
tests until they run the real model: it prints simple, clearly artificial curves (1/W compute, linear sequential
reads) for whatever workers, servers, I/O mode and platform it is asked for. `model saturation` (which needs no
calibration) goes to the real binary named by PSBENCH, and so do `model validate` and `model plan`, with the
committed test calibration tests/cli/model/calib.json in place of the placeholder the tests pass. Any other
subcommand fails."""

import json
import os
import sys
from pathlib import Path

TEST_CALIBRATION = Path(__file__).resolve().parents[1] / "cli" / "model" / "calib.json"


def option(argv, name, default=None):
    """The value after `name` in argv."""
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv):
    if argv[:2] == ["model", "saturation"] and os.environ.get("PSBENCH"):
        os.execv(os.environ["PSBENCH"], [os.environ["PSBENCH"], *argv])
    if argv[:2] in (["model", "validate"], ["model", "plan"]) and os.environ.get("PSBENCH"):
        argv = list(argv)
        if "--calib" in argv:
            argv[argv.index("--calib") + 1] = str(TEST_CALIBRATION)
        os.execv(os.environ["PSBENCH"], [os.environ["PSBENCH"], *argv])
    if argv[:2] != ["model", "predict"] or option(argv, "--format") != "json":
        print("psbench: error: the fake model only answers 'model predict --format json'", file=sys.stderr)
        return 2
    workers = [int(w) for w in option(argv, "--workers").split(",")]
    servers, io, chosen = int(option(argv, "--servers")), option(argv, "--io"), option(argv, "--kind", "all")
    predictions = []
    for kind, slowdown in (("ideal", 1.0), ("revised", 1.2), ("mva", 1.3), ("sim", 1.4)):
        if chosen not in ("all", kind):
            continue
        for w in workers:
            init = 0.1 * (w if io == "sequential" and kind != "ideal" else 1)
            compute = 4.0 / w * slowdown + (0.3 * w / servers if kind != "ideal" else 0.0)
            predictions.append({"kind": kind, "workers": w, "servers": servers, "init_io_s": init,
                                "compute_s": compute, "total_s": init + compute + 0.2,
                                "updates_per_s": 900.0 * min(w, 2 * servers), "samples_per_s": 6e4 / compute,
                                "server_utilization": min(1.0, 0.45 * w / servers), "staleness_mean": w - 1.0,
                                "knee_workers": 2.0 * servers})
    inputs = {"platform": option(argv, "--platform"), "io": io}
    print(json.dumps({"format": 1, "kind_order": ["ideal", "revised", "mva", "sim"], "inputs": inputs,
                      "predictions": predictions}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
