#!/usr/bin/env bash
# A sweep with mpirun: one psbench train run per worker count and I/O mode, on this machine or across
# the nodes of a hostfile (the servers then get the first node to themselves), every results file in
# one folder with a manifest, for the performance model and the report.
#
#   jobs/mpirun/sweep.sh                                          # this machine: 1 and 2 workers
#   HOSTFILE=jobs/mpirun/hosts.example WORKERS="1 2 4 8 16" jobs/mpirun/sweep.sh --intra-node messages
#
# Settings (environment, defaults in docs/running.md): HOSTFILE, DATA, MODEL, MODE, SERVERS, WORKERS
# ("1 2" on this machine; with a hostfile 1 2 4 ... up to every worker slot), IO_MODES, EPOCHS (1), BATCH,
# THREADS, COLD_CACHE, MPIRUN_FLAGS, TRAIN_FLAGS, RESULTS, OUTDIR, and for a virtual rack
# SCHEDULER=rack, LINK_RATE, LINK_DELAY. Results: results/mpirun-<date>-<pid>/. Extra arguments go to
# every psbench train.
set -euo pipefail

job_name=mpirun/sweep.sh
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ -z "${HOSTFILE:-}" ]]; then
  export WORKERS="${WORKERS:-1 2}"
  most=0
  for count in $WORKERS; do [[ "$count" =~ ^[0-9]+$ ]] && ((count > most)) && most=$count; done
  local_ranks=$((most + ${SERVERS:-1}))
fi
source "$root/jobs/mpirun/machines.sh"
find_psbench
run_sweep "$@"
