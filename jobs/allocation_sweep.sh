#!/usr/bin/env bash
# Runs jobs/sweep.sh inside a batch allocation: writes a hostfile that gives the servers the first node
# alone, defaults WORKERS to every worker slot, and names the results folder after the job.
#
# Usage: jobs/allocation_sweep.sh LABEL SLOTS_PER_NODE NODE [NODE...] -- [extra psbench train flags...]
# (called by jobs/slurm/psbench.sbatch and jobs/pbs/psbench.pbs; LABEL is e.g. slurm-1234)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
label="$1"
slots="$2"
shift 2
nodes=()
while (($# > 0)) && [[ "$1" != "--" ]]; do
  nodes+=("$1")
  shift
done
(($# > 0)) && shift
servers="${SERVERS:-1}"
hostfile="${TMPDIR:-/tmp}/psbench-hosts-$label"
"$root/jobs/make_hostfile.sh" "$servers" "$slots" "${nodes[@]}" >"$hostfile"
worker_slots=$((${#nodes[@]} == 1 ? slots : slots * (${#nodes[@]} - 1)))

export HOSTFILE="$hostfile"
export WORKERS="${WORKERS:-$worker_slots}"
export OUTDIR="${OUTDIR:-$root/results/$label}"
echo "psbench: $label on ${#nodes[@]} node(s): ${nodes[*]}; servers $servers; workers $WORKERS"
exec "$root/jobs/sweep.sh" "$@"
