"""Runs the report: `python3 -m psbench_report SWEEP_DIR --out DIR ...`."""

import sys

from psbench_report.cli import main

sys.exit(main())
