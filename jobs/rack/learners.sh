#!/usr/bin/env bash
# CNTK's learners on the virtual rack, where the link is the bottleneck: brings up a rack of WORKERS + 1 nodes
# (the server alone on n1), runs each learner REPETITIONS times in an order shuffled per repetition, one rank per
# node over messages, writes LEARNER-rR.json per run, the manifest (docs/formats.md, "Manifest") and rack.json, and
# takes the rack down at the end, also when a run fails or the script is killed. Learners: sync and sync1bit
# (--mode sync, without and with --compress onebit), async and async1bit (1 server + WORKERS workers), bmuf and
# average (--block-samples BLOCK_SAMPLES, CNTK's other defaults); the ranks of a learner without a server take
# n1..nWORKERS.
#
# Usage (as root): jobs/rack/learners.sh [extra psbench train flags...]
# Environment (defaults in brackets):
#   RATE [1gbit]  BURST_US [rack.sh's]: the links (jobs/rack/rack.sh up)
#   WORKERS [4]  LEARNERS ["sync sync1bit async async1bit bmuf average"]  REPETITIONS [3]  BLOCK_SAMPLES [4096]
#   MODEL [mlp:512,256]  BATCH [128]  EPOCHS [1]  DATA [build/data/fashion-mnist.h5]
#   OUTDIR [results/rack-learners-<date>]  NAME  the rack's name [learn]  PSBENCH_BIN  the binary
#   SPIN_US [0]  RUN_TIMEOUT [600]  MPIRUN_FLAGS: as jobs/rack/sweep.sh takes them
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rack="$here/rack.sh"

job_name="rack/learners.sh"
# shellcheck source=../lib/job_common.sh
source "$root/jobs/lib/job_common.sh"

# learner_flags LEARNER: psbench train's flags of one learner (exit 2 on an unknown one).
learner_flags() {
  case "$1" in
    sync) echo "--mode sync" ;;
    sync1bit) echo "--mode sync --compress onebit" ;;
    async) echo "--servers 1" ;;
    async1bit) echo "--servers 1 --compress onebit" ;;
    bmuf) echo "--mode bmuf --block-samples $block_samples" ;;
    average) echo "--mode average --block-samples $block_samples" ;;
    *) die "LEARNERS: unknown learner '$1' (sync, sync1bit, async, async1bit, bmuf or average)" ;;
  esac
}

find_psbench
mpi_flavor="$(build_flavor "$psbench")"
[[ -n "$mpi_flavor" ]] || die "cannot tell which MPI $psbench is built with ('$psbench --version' names neither Open MPI nor MPICH)"
[[ $(id -u) -eq 0 ]] || die "the rack needs root (network namespaces and tc)"
rate="${RATE:-1gbit}"
workers="${WORKERS:-4}"
repetitions="${REPETITIONS:-3}"
block_samples="${BLOCK_SAMPLES:-4096}"
read -r -a learners <<<"${LEARNERS:-sync sync1bit async async1bit bmuf average}"
name="${NAME:-learn}"
data="${DATA:-$root/build/data/fashion-mnist.h5}"
outdir="${OUTDIR:-$root/results/rack-learners-$(date +%Y%m%d-%H%M%S)}"
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || die "WORKERS must be a positive count, got '$workers'"
[[ "$repetitions" =~ ^[1-9][0-9]*$ ]] || die "REPETITIONS must be a positive count, got '$repetitions'"
((${#learners[@]} > 0)) || die "LEARNERS is empty"
for learner in "${learners[@]}"; do learner_flags "$learner" >/dev/null; done
[[ -r "$data" ]] || die "dataset '$data' is not readable (psbench data convert makes Fashion-MNIST's)"
mkdir -p "$outdir"

read -r -a mpirun_flags <<<"${MPIRUN_FLAGS:-}"
burst=()
[[ -n "${BURST_US:-}" ]] && burst=(--burst-us "$BURST_US")
trap '"$rack" down --name "$name"' EXIT
"$rack" up $((workers + 1)) --rate "$rate" --servers 1 --name "$name" "${burst[@]}"
delay="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["delay"])' "/run/psr-$name/rack.json")"
mapfile -t nodes < <(awk '{print $1}' "/run/psr-$name/hostfile")
cp "/run/psr-$name/rack.json" "$outdir/rack.json"
python3 "$root/jobs/lib/manifest.py" init --manifest "$outdir/manifest.json" --scheduler rack --job-id "$name-$$" \
  --nodes "${nodes[@]}" --ranks-per-node 1 --git-commit "$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)" \
  --link-rate "$rate" --link-delay "$delay"
failed=0
for ((repetition = 1; repetition <= repetitions; repetition++)); do
  RANDOM=$((300 + repetition))
  order=("${learners[@]}")
  for ((i = ${#order[@]} - 1; i > 0; i--)); do
    j=$((RANDOM % (i + 1)))
    swap=${order[i]} order[i]=${order[j]} order[j]=$swap
  done
  for learner in "${order[@]}"; do
    read -r -a flags <<<"$(learner_flags "$learner")"
    servers=0 ranks="$workers"
    [[ $learner == async* ]] && servers=1 ranks=$((workers + 1))
    file="$learner-r$repetition.json"
    command=("$rack" mpirun --name "$name" -np "$ranks" $(mpi_export_flags PSBENCH_SPIN_US) "${mpirun_flags[@]}" "$psbench" train
      --data "$data" --model "${MODEL:-mlp:512,256}" "${flags[@]}" --intra-node messages --epochs "${EPOCHS:-1}"
      --batch "${BATCH:-128}" --quiet --out "$outdir/$file" "$@")
    echo "rack learners: $learner #$repetition at $rate -> $outdir/$file"
    code=0
    PSBENCH_SPIN_US="${SPIN_US:-0}" timeout "${RUN_TIMEOUT:-600}" "${command[@]}" || code=$?
    ((code == 0)) || failed=1
    python3 "$root/jobs/lib/manifest.py" add-run --manifest "$outdir/manifest.json" --file "$file" \
      --workers "$workers" --servers "$servers" --io sequential --exit-code "$code" -- "${command[@]}"
  done
done
echo "rack learners: results and manifest.json in $outdir"
exit "$failed"
