#!/usr/bin/env bash
# Calibrates the performance model with mpirun in one command, on this machine or across the nodes of a
# hostfile: the benchmarks (the MPI ones between the first two nodes when there are two or more, and within
# one), the calibration runs (1 server + 1 worker, both I/O modes; with a hostfile the server alone on the
# first node, as a sweep places it) and `psbench model calibrate`; calib.json, the benchmark files, the runs
# and manifest.json land in one folder, printed at the end.
#
#   jobs/mpirun/calibrate.sh                                    # this machine
#   HOSTFILE=hosts DATA=/shared/fm.h5 jobs/mpirun/calibrate.sh  # a rack
#   QUICK=1 jobs/mpirun/calibrate.sh                            # shortest benchmarks, 1 repetition
#
# Settings (environment, defaults in docs/running.md): HOSTFILE, DATA, MODEL, REPETITIONS (3; QUICK=1: 1),
# QUICK, EPOCHS (1), BATCH, THREADS, COLD_CACHE (1), BENCH_FLAGS (more bench/run_all.sh flags), MPIRUN_FLAGS,
# TRAIN_FLAGS, PSBENCH_BUILD, RESULTS, OUTDIR. Results: results/mpirun-<date>-<pid>/.
set -euo pipefail

job_name=mpirun/calibrate.sh
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
local_ranks=2
source "$root/jobs/mpirun/machines.sh"
source "$root/jobs/lib/calibrate.sh"
find_psbench
run_calibration_job
