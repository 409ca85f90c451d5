#!/usr/bin/env bash
# The main job: sets psbench up (Debian packages, build), converts Fashion-MNIST to HDF5 and trains with
# mpirun on 1 parameter server + 2 workers, printing the epoch lines, the phase table and the test accuracy.
#
# Usage: jobs/mpirun/fashion_mnist.sh [extra psbench train flags...]
# Environment: MODEL (default mlp:512,256; cnn takes minutes), EPOCHS (3), BATCH (64), LR (0.01),
#   MOMENTUM (0.9), WARMUP (200 warm-up steps per worker; see docs/running.md), RANKS (3: rank 0 serves, 1 and 2 work), SERVERS (1), HOSTFILE (an mpirun hostfile for a
#   rack; default: this machine), OUT (results/fashion_mnist_<model>.json), PRESET (cmake preset, default).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
preset="${PRESET:-default}"
model="${MODEL:-mlp:512,256}"
ranks="${RANKS:-3}"
servers="${SERVERS:-1}"
data="$root/data/fashion-mnist.h5"
out="${OUT:-$root/results/fashion_mnist_${model//[:,]/_}.json}"

"$root/jobs/setup.sh" "$preset"
psbench="$root/build/$preset/src/cli/psbench"

if [[ ! -s "$data" ]]; then
  "$psbench" data convert --out "$data"
fi

# Open MPI refuses root without these; beyond the core count it needs --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=(mpirun -np "$ranks")
if [[ -n "${HOSTFILE:-}" ]]; then
  launch+=(--hostfile "$HOSTFILE")
elif ((ranks > $(nproc))); then
  launch+=(--oversubscribe)
fi

mkdir -p "$(dirname "$out")"
"${launch[@]}" "$psbench" train --data "$data" --model "$model" --servers "$servers" --mode async \
  --batch "${BATCH:-64}" --epochs "${EPOCHS:-3}" --lr "${LR:-0.01}" --momentum "${MOMENTUM:-0.9}" --warmup-steps "${WARMUP:-200}" \
  --out "$out" "$@"
