#!/usr/bin/env bash
# Writes an Open MPI hostfile that gives the parameter servers the first node to themselves and fills
# the other nodes with workers, so that ranks 0..S-1 (the servers) never share a node with a worker.
#
# Usage: jobs/make_hostfile.sh SERVERS WORKER_SLOTS_PER_NODE NODE [NODE...] > hostfile
# With a single node, servers and workers share it (SERVERS + WORKER_SLOTS_PER_NODE slots).
set -euo pipefail

if (($# < 3)); then
  echo "usage: $0 SERVERS WORKER_SLOTS_PER_NODE NODE [NODE...]" >&2
  exit 2
fi
servers="$1"
slots="$2"
shift 2
nodes=("$@")

if ((${#nodes[@]} == 1)); then
  echo "${nodes[0]} slots=$((servers + slots))"
  exit 0
fi
echo "${nodes[0]} slots=$servers"
for node in "${nodes[@]:1}"; do
  echo "$node slots=$slots"
done
