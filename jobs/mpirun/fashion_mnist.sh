#!/usr/bin/env bash
# The main job: sets psbench up (Debian packages, build) unless PSBENCH_BIN or PATH has one, converts
# Fashion-MNIST to HDF5 once, and trains with mpirun on 1 parameter server + 2 workers, printing the
# epoch lines, the phase table and the test accuracy.
#
# Usage: jobs/mpirun/fashion_mnist.sh [extra psbench train flags...]
# Environment: MODEL (default mlp:512,256; cnn takes minutes), EPOCHS (3), BATCH (64), LR (0.01),
#   MOMENTUM (0.9), WARMUP (200 warm-up steps per worker; see docs/running.md), RANKS (3: rank 0 serves,
#   1 and 2 work), SERVERS (1), HOSTFILE (an mpirun hostfile for a rack; default: this machine),
#   PRESET (cmake preset, default), and those of docs/running.md. Results: results/mpirun-<date>-<pid>/.
set -euo pipefail

job_name=mpirun/fashion_mnist.sh
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
preset="${PRESET:-default}"
local_ranks="${RANKS:-3}"
[[ "$local_ranks" =~ ^[1-9][0-9]*$ ]] || { echo "$job_name: error: RANKS='$local_ranks' is not a positive whole number" >&2; exit 2; }
source "$root/jobs/mpirun/machines.sh"

if [[ -z "${PSBENCH_BIN:-}" ]] && ! command -v psbench >/dev/null; then
  "$root/jobs/setup.sh" "$preset"
fi
find_psbench "$preset"
run_train --lr "${LR:-0.01}" --momentum "${MOMENTUM:-0.9}" --warmup-steps "${WARMUP:-200}" "$@"
