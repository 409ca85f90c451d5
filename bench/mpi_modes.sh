#!/usr/bin/env bash
# Trains Fashion-MNIST mlp:512,256 for 3 epochs in every mode under Open MPI and under MPICH on this machine, side
# by side, and compares the final test accuracies: async with 1 and 2 servers on both intra-node paths, sync, bmuf,
# average, 1-bit sync and async, SSP, DC-ASGD and the pipeline, 2 workers each. Async modes run R seeds, the
# synchronous ones (deterministic for a seed) one; within each repetition the two MPIs alternate, mode by mode, so a
# drift of the machine falls on both.
#
# Usage: bench/mpi_modes.sh [--repetitions R] [--epochs E] [--out DIR]
#   --repetitions R  seeds of each async mode under each MPI (default 3; the summary takes their median)
#   --epochs E       epochs of each run (default 3)
#   --out DIR        default results/mpi-modes; DIR/{openmpi,mpich}/MODE-rN.json are the results files and
#                    DIR/summary.txt the table: mode, Open MPI and MPICH accuracy (medians), their difference
# Needs both builds: build/default (jobs/setup.sh) and build/mpich (PSBENCH_MPI=mpich jobs/setup.sh), and
# data/fashion-mnist.h5 (jobs/mpirun/fashion_mnist.sh converts it; or set DATA).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repetitions=3
epochs=3
out=$repo/results/mpi-modes

die() {
  echo "psbench: error: $*" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=${2:?--repetitions needs a count}; shift 2 ;;
    --epochs) epochs=${2:?--epochs needs a count}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see bench/mpi_modes.sh --help)" ;;
  esac
done
for count in "$repetitions" "$epochs"; do
  [[ $count =~ ^[1-9][0-9]*$ ]] || die "'$count' is not a positive count"
done
data=${DATA:-$repo/data/fashion-mnist.h5}
[[ -r $data ]] || die "data file '$data' cannot be read (jobs/mpirun/fashion_mnist.sh converts it; or set DATA)"
declare -A builds=([openmpi]=$repo/build/default [mpich]=$repo/build/mpich)
declare -A launchers=([openmpi]="mpirun --oversubscribe -np" [mpich]="mpiexec.mpich -n")
for mpi in openmpi mpich; do
  [[ -x ${builds[$mpi]}/src/cli/psbench ]] ||
    die "no psbench in '${builds[$mpi]}' (build it: jobs/setup.sh, PSBENCH_MPI=mpich jobs/setup.sh)"
done
[[ ! -e $out ]] || die "'$out' exists; give --out a new folder"
mkdir -p "$out/openmpi" "$out/mpich"

# MODE=RANKS:FLAGS, 2 workers each (and 1 or 2 servers in the parameter-server modes); sync-kind modes end in :sync.
modes=(
  "async-window=3:--intra-node shared-memory"
  "async-messages=3:--intra-node messages"
  "async-2servers-window=4:--servers 2 --intra-node shared-memory"
  "async-2servers-messages=4:--servers 2 --intra-node messages"
  "sync=2:--mode sync:sync"
  "bmuf=2:--mode bmuf --block-samples 4096:sync"
  "average=2:--mode average --block-samples 4096:sync"
  "onebit-sync=2:--mode sync --compress onebit:sync"
  "onebit-async=3:--compress onebit"
  "ssp=3:--staleness 1"
  "dcasgd=3:--delay-compensation 0.04"
  "pipeline=3:--pipeline"
)

for ((r = 1; r <= repetitions; r++)); do
  for entry in "${modes[@]}"; do
    name=${entry%%=*}
    IFS=: read -r ranks flags kind <<<"${entry#*=}"
    [[ $kind == sync && $r -gt 1 ]] && continue
    for mpi in openmpi mpich; do
      echo "mpi_modes: $name under $mpi, seed $r"
      # shellcheck disable=SC2086 # the launcher and the flags are word lists
      ${launchers[$mpi]} "$ranks" "${builds[$mpi]}/src/cli/psbench" train --data "$data" --model mlp:512,256 \
        --epochs "$epochs" --seed "$r" $flags --quiet --out "$out/$mpi/$name-r$r.json"
    done
  done
done

python3 - "$out" "${modes[@]%%=*}" >"$out/summary.txt" <<'PY'
import json, pathlib, statistics, sys
out, names = pathlib.Path(sys.argv[1]), sys.argv[2:]
def accuracies(mpi, name):
    return [json.loads(f.read_text())["train"]["test_accuracy"] for f in sorted((out / mpi).glob(f"{name}-r*.json"))]
print(f"{'mode':26s} {'Open MPI %':>11s} {'MPICH %':>9s} {'MPICH - Open MPI':>17s} runs")
for name in names:
    a, b = accuracies("openmpi", name), accuracies("mpich", name)
    ma, mb = 100 * statistics.median(a), 100 * statistics.median(b)
    print(f"{name:26s} {ma:11.2f} {mb:9.2f} {mb - ma:+17.2f} {len(a)}/{len(b)}")
PY
cat "$out/summary.txt"
