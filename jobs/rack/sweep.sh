#!/usr/bin/env bash
# A worker sweep on the virtual rack: brings up a rack with the servers on nodes of their own (n1..nS) and one
# worker per node after them, runs psbench train once per worker count over messages (TCP between the nodes),
# writes one results file per run, the manifest (docs/formats.md, "Manifest": scheduler "rack", the link's rate and delay) and
# rack.json (the rack as made, with the servers' rate), and takes the rack down at the end, also when a run fails or the sweep is killed.
#
# Usage (as root): jobs/rack/sweep.sh [extra psbench train flags...]
# Environment (defaults in brackets):
#   RATE [1gbit]  SERVER_RATE [RATE]  DELAY [0ms]  BURST_US [rack.sh's]: the links (jobs/rack/rack.sh up)
#   SERVERS [1]  WORKERS ["1 2 3 4"]  MODEL [mlp:1024,1024]  BATCH [16]  EPOCHS [1]  IO [sequential]
#   DATA  HDF5 dataset [a synthetic 1x28x28, 10-class set of SAMPLES [1600] samples made in OUTDIR]
#   OUTDIR [results/rack-<date>]  NAME  the rack's name [sweep]  PSBENCH_BIN  the binary [PATH, then build/release or build/default]
#   SPIN_US [0]  PSBENCH_SPIN_US of every rank: the rack's nodes share this machine's cores, so waits back off
#   RUN_TIMEOUT [600]  seconds a run may take before it is ended (its exit code is then 124)
#   MPIRUN_FLAGS  more mpirun options, e.g. "--mca btl_tcp_eager_limit 1048576 --mca btl_tcp_rndv_eager_limit
#             1048576" (docs/rack.md: what the TCP eager limit does to push and pull)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rack="$here/rack.sh"

job_name="rack/sweep.sh"
# shellcheck source=../lib/job_common.sh
source "$root/jobs/lib/job_common.sh"

# The manifest (docs/formats.md, "Manifest") through the jobs' own writer (jobs/lib/manifest.py), which renames each version
# into place, so a sweep killed midway leaves a manifest of the runs that finished.
start_manifest() {
  python3 "$root/jobs/lib/manifest.py" init --manifest "$outdir/manifest.json" --scheduler rack \
    --job-id "$name-$$" --nodes "${nodes[@]}" --ranks-per-node 1 \
    --git-commit "$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)" --link-rate "$rate" --link-delay "$delay"
}

find_psbench
mpi_flavor="$(build_flavor "$psbench")"
[[ -n "$mpi_flavor" ]] || die "cannot tell which MPI $psbench is built with ('$psbench --version' names neither Open MPI nor MPICH)"
[[ $(id -u) -eq 0 ]] || die "the rack needs root (network namespaces and tc)"
rate="${RATE:-1gbit}"
server_rate="${SERVER_RATE:-$rate}"
delay="${DELAY:-0ms}"
servers="${SERVERS:-1}"
workers_list="${WORKERS:-1 2 3 4}"
io="${IO:-sequential}"
name="${NAME:-sweep}"
outdir="${OUTDIR:-$root/results/rack-$(date +%Y%m%d-%H%M%S)}"
[[ "$io" =~ ^(sequential|parallel)$ ]] || die "IO must be sequential or parallel, got '$io'"
[[ "$servers" =~ ^[1-9][0-9]*$ ]] || die "SERVERS must be a positive count, got '$servers'"
max_workers=0
for w in $workers_list; do
  [[ "$w" =~ ^[1-9][0-9]*$ ]] || die "WORKERS must be positive counts, got '$w'"
  ((w > max_workers)) && max_workers="$w"
done
((max_workers > 0)) || die "WORKERS is empty"
mkdir -p "$outdir"
data="${DATA:-$outdir/synth.h5}"
if [[ -z "${DATA:-}" ]]; then
  "$psbench" data synth --samples "${SAMPLES:-1600}" --shape 1,28,28 --classes 10 --out "$data" >/dev/null
fi
[[ -r "$data" ]] || die "dataset '$data' is not readable"

read -r -a mpirun_flags <<<"${MPIRUN_FLAGS:-}"
burst=()
[[ -n "${BURST_US:-}" ]] && burst=(--burst-us "$BURST_US")
trap '"$rack" down --name "$name"' EXIT
"$rack" up $((servers + max_workers)) --rate "$rate" --server-rate "$server_rate" --delay "$delay" \
  --servers "$servers" --name "$name" "${burst[@]}"
delay="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["delay"])' "/run/psr-$name/rack.json")"
mapfile -t nodes < <(awk '{print $1}' "/run/psr-$name/hostfile")
cp "/run/psr-$name/rack.json" "$outdir/rack.json"  # the rack as made: server rate, bucket, interface, addresses
start_manifest
failed=0
for workers in $workers_list; do
  file="w${workers}-s${servers}-${io}.json"
  command=("$rack" mpirun --name "$name" -np $((servers + workers)) $(mpi_export_flags PSBENCH_SPIN_US) "${mpirun_flags[@]}" "$psbench" train
    --data "$data" --model "${MODEL:-mlp:1024,1024}" --servers "$servers" --intra-node messages --io "$io"
    --epochs "${EPOCHS:-1}" --batch "${BATCH:-16}" --quiet --out "$outdir/$file" "$@")
  echo "rack sweep: $servers server(s) at $server_rate, $workers worker(s) at $rate -> $outdir/$file"
  code=0
  PSBENCH_SPIN_US="${SPIN_US:-0}" timeout "${RUN_TIMEOUT:-600}" "${command[@]}" || code=$?
  ((code == 0)) || failed=1
  python3 "$root/jobs/lib/manifest.py" add-run --manifest "$outdir/manifest.json" --file "$file" \
    --workers "$workers" --servers "$servers" --io "$io" --exit-code "$code" -- "${command[@]}"
done
echo "rack sweep: results and manifest.json in $outdir"
exit "$failed"
