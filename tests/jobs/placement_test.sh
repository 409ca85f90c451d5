#!/usr/bin/env bash
# jobs/lib/placement.sh: servers alone on the first node of several, workers filling the others in
# order; one node holds both; Slurm's task lists and hostfiles read back; capacities and their errors;
# a sweep's default worker counts.
set -euo pipefail
root="$1"
job_name=placement_test
source "$root/jobs/lib/job_common.sh"
source "$root/jobs/lib/placement.sh"
source "$root/jobs/lib/runs.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

expect() {
  [[ "$2" == "$3" ]] || { echo "$1: got '$2', expected '$3'"; exit 1; }
}

nodes=(n1 n2 n3)
slots=(16 16 16)
mpi_flavor=openmpi
write_hostfile 2 32 "$work/h"
expect "2 servers + 32 workers on 3 nodes" "$(cat "$work/h")" $'n1 slots=2\nn2 slots=16\nn3 slots=16'
write_hostfile 1 20 "$work/h"
expect "1 server + 20 workers on 3 nodes" "$(cat "$work/h")" $'n1 slots=1\nn2 slots=16\nn3 slots=4'
mpi_flavor=mpich
write_hostfile 1 20 "$work/h"
expect "MPICH's hostfile" "$(cat "$work/h")" $'n1:1\nn2:16\nn3:4'
mpi_flavor=openmpi
expect "ranks of 1 server + 3 workers" "$(rank_hosts 1 3 | tr '\n' ' ')" "n1 n2 n2 n2 "
expect "capacity, 3 nodes" "$(worker_capacity 2)" 32
write_hostfile 0 20 "$work/h"
expect "sync: 20 workers fill from the first node" "$(cat "$work/h")" $'n1 slots=16\nn2 slots=4'
expect "capacity, sync" "$(worker_capacity 0)" 48

nodes=(solo)
slots=(4)
write_hostfile 1 3 "$work/h"
expect "one node holds both" "$(cat "$work/h")" "solo slots=4"
expect "capacity, one node" "$(worker_capacity 1)" 3
expect "4 servers on 4 slots" "$( (worker_capacity 4) 2>&1 || true)" \
  "placement_test: error: SERVERS=4 leave no worker: the allocation has 4 rank(s); give it at least 5"
nodes=(a b)
slots=(1 8)
expect "2 servers on a 1-slot first node" "$( (worker_capacity 2) 2>&1 || true)" \
  "placement_test: error: SERVERS=2 do not fit on the servers' node a, which has 1 slot(s)"

expect "Slurm task list" "$(expand_tasks_per_node '16(x2),8,3(x1)' | tr '\n' ' ')" "16 16 8 3 "
printf '# a comment\nhostA slots=4 max_slots=8\nhostB\nhostB\n\nhostA slots=2\n' >"$work/hosts"
read_hostfile "$work/hosts"
expect "hostfile nodes" "${nodes[*]}" "hostA hostB"
expect "hostfile slots" "${slots[*]}" "6 2"
for pair in 1:"1" 2:"1 2" 4:"1 2 4" 6:"1 2 4 6" 32:"1 2 4 8 16 32"; do
  capacity="${pair%%:*}"
  expect "default workers for $capacity slots" "$(default_worker_counts)" "${pair#*:}"
done
echo "ok"
