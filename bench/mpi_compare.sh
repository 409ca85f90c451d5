#!/usr/bin/env bash
# Measures psbench's exchange under Open MPI and under MPICH on this machine, side by side: bench_push_pull
# (both intra-node paths: over MPI messages, path:0, and through the node's shared window, path:1), the server
# saturation benchmark on both paths, and the main job (1 server + 2 workers on Fashion-MNIST) with the default
# shared window and with --intra-node messages. The two MPIs alternate within each repetition, so a drift of the
# machine falls on both. Run it on a quiet machine.
#
# Usage: bench/mpi_compare.sh [--repetitions R] [--epochs E] [--quick] [--out DIR]
#   --repetitions R  main-job runs per MPI and path, and the benchmarks' repetitions (default 3)
#   --epochs E       epochs of each main-job run (default 3)
#   --quick          the benchmarks' shortest settings and one 1-epoch run each: checks that everything runs
#   --out DIR        default results/mpi-compare; DIR/openmpi and DIR/mpich hold each MPI's files:
#                    bench/push_pull.json, bench/server_saturation.json, bench/messages/server_saturation.json,
#                    train/{window,messages}-rN/ (each a main job's folder); DIR/summary.txt compares their medians
# Needs both builds: build/default (jobs/setup.sh) and build/mpich (PSBENCH_MPI=mpich jobs/setup.sh), and
# data/fashion-mnist.h5 (jobs/mpirun/fashion_mnist.sh converts it; or set DATA).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repetitions=3
epochs=3
quick=0
out=$repo/results/mpi-compare

die() {
  echo "psbench: error: $*" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=${2:?--repetitions needs a count}; shift 2 ;;
    --epochs) epochs=${2:?--epochs needs a count}; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see bench/mpi_compare.sh --help)" ;;
  esac
done
for count in "$repetitions" "$epochs"; do
  [[ $count =~ ^[1-9][0-9]*$ ]] || die "'$count' is not a positive count"
done
data=${DATA:-$repo/data/fashion-mnist.h5}
[[ -r $data ]] || die "data file '$data' cannot be read (jobs/mpirun/fashion_mnist.sh converts it; or set DATA)"
declare -A builds=([openmpi]=$repo/build/default [mpich]=$repo/build/mpich)
for mpi in openmpi mpich; do
  [[ -x ${builds[$mpi]}/src/cli/psbench && -d ${builds[$mpi]}/bench ]] ||
    die "no psbench and benchmarks in '${builds[$mpi]}' (build them: jobs/setup.sh, PSBENCH_MPI=mpich jobs/setup.sh)"
done
[[ ! -e $out ]] || die "'$out' exists; give --out a new folder"
((quick)) && epochs=1 repetitions=1
bench_flags=(--repetitions "$repetitions")
((quick)) && bench_flags=(--quick)

for mpi in openmpi mpich; do
  echo "mpi_compare: benchmarks under $mpi"
  PSBENCH_BUILD=${builds[$mpi]} "$repo/bench/run_all.sh" --only push_pull,server_saturation \
    --saturation-paths shared,messages "${bench_flags[@]}" --out "$out/$mpi/bench"
done

for ((r = 1; r <= repetitions; r++)); do
  for path in window messages; do
    flags=()
    [[ $path == messages ]] && flags=(--intra-node messages)
    for mpi in openmpi mpich; do
      echo "mpi_compare: main job under $mpi, $path path, repetition $r"
      PSBENCH_BIN=${builds[$mpi]}/src/cli/psbench DATA=$data EPOCHS=$epochs OUTDIR=$out/$mpi/train/$path-r$r \
        "$repo/jobs/mpirun/fashion_mnist.sh" --quiet "${flags[@]}"
    done
  done
done

python3 - "$out" >"$out/summary.txt" <<'PY'
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
print("median of each MPI, and MPICH / Open MPI")
def push_pull(mpi):
    doc = json.loads((out / mpi / "bench" / "push_pull.json").read_text())
    return {b["run_name"]: b["real_time"] for b in doc["benchmarks"] if b.get("aggregate_name") == "median"}
a, b = push_pull("openmpi"), push_pull("mpich")
print("\nbench_push_pull, real time per iteration (Google Benchmark's unit)")
for name in sorted(set(a) & set(b)):
    print(f"  {name:60s} {a[name]:12.1f} {b[name]:12.1f} {b[name] / a[name]:6.2f}")
print("\nmain job, samples per second")
for path in ("window", "messages"):
    rates = {mpi: statistics.median(json.loads(f.read_text())["train"]["samples_per_s"]
                                    for f in sorted((out / mpi / "train").glob(f"{path}-r*/w*.json")))
             for mpi in ("openmpi", "mpich")}
    print(f"  {path:60s} {rates['openmpi']:12.1f} {rates['mpich']:12.1f} {rates['mpich'] / rates['openmpi']:6.2f}")
print("\nserver saturation: compare openmpi/bench/{,messages/}server_saturation.json with mpich's "
      "(psbench model saturation --bench FILE reads each)")
PY
cat "$out/summary.txt"
