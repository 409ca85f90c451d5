#!/usr/bin/env bash
# The machine's limit for N training ranks, beside what psbench's modes reach: per interleaved repetition,
# the train step benchmark (BM_TrainStepMlp at the batch, when the model is mlp:512,256), one local trainer
# alone, N local trainers at once (the limit: nothing shared but the machine), sync on N ranks, and async
# with 1 server and N - 1 workers without and with --pipeline. Writes OUT/trainer_limit.json: every run's
# samples/s and test accuracy, each variant's median, lowest and highest, and the ratios
# (docs/benchmarks.md, "Trainer limit").
# Usage: bench/trainer_limit.sh [--ranks N] [--repetitions R] [--epochs E] [--model SPEC] [--batch B]
#                               [--data FILE.h5] [--train-flags "FLAGS"] [--out DIR]
#   --ranks N        ranks of the sync and async runs, and local trainers of the limit (default 2)
#   --repetitions R  interleaved repetitions (default 5)
#   --epochs E       epochs of every run (default 1; 3 to compare test accuracy)
#   --model SPEC     default mlp:512,256
#   --batch B        default 128
#   --data FILE.h5   default data/fashion-mnist.h5 (jobs/setup.sh makes it)
#   --train-flags F  more flags for every psbench train (e.g. "--seed 2")
#   --out DIR        where trainer_limit.json and the runs' results go (default results/bench)
# Environment: PSBENCH_BUILD (default build/default of this repository), PSBENCH_MPIRUN (default: mpirun, or
# mpirun.mpich for an MPICH build when mpirun is Open MPI's).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PSBENCH_BUILD:-$repo/build/default}
ranks=2
repetitions=5
epochs=1
model=mlp:512,256
batch=128
data=$repo/data/fashion-mnist.h5
train_flags=
out=$repo/results/bench

die() {
  echo "psbench: error: $*" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --ranks) ranks=${2:?--ranks needs a count}; shift 2 ;;
    --repetitions) repetitions=${2:?--repetitions needs a count}; shift 2 ;;
    --epochs) epochs=${2:?--epochs needs a count}; shift 2 ;;
    --model) model=${2:?--model needs a spec}; shift 2 ;;
    --batch) batch=${2:?--batch needs a size}; shift 2 ;;
    --data) data=${2:?--data needs a file}; shift 2 ;;
    --train-flags) train_flags=${2?--train-flags needs flags}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see bench/trainer_limit.sh --help)" ;;
  esac
done
for count in "$ranks" "$repetitions" "$epochs" "$batch"; do
  [[ $count =~ ^[1-9][0-9]*$ ]] || die "'$count' is not a positive count"
done
(( ranks >= 2 )) || die "--ranks must be at least 2 (async needs a server and a worker)"
[[ -r $data ]] || die "data file '$data' cannot be read (jobs/setup.sh makes data/fashion-mnist.h5)"
psbench=$build/src/cli/psbench
[[ -x $psbench ]] || die "no psbench under '$build' (build first, or set PSBENCH_BUILD)"

source "$repo/jobs/lib/mpi_flavor.sh"
select_bench_launcher "$psbench"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
oversubscribe=()
(( ranks > $(nproc) )) && oversubscribe=($(mpi_oversubscribe_flag))
runs=$out/trainer_limit
rm -rf "$runs"
mkdir -p "$runs"
read -r -a extra <<<"$train_flags"
common=(--data "$data" --model "$model" --batch "$batch" --epochs "$epochs" --quiet "${extra[@]}")

step_bench=0
[[ $model == mlp:512,256 && -x $build/bench/nn/nn_bench ]] && step_bench=1
for ((r = 1; r <= repetitions; ++r)); do
  echo "== repetition $r of $repetitions"
  if (( step_bench )); then
    "$build/bench/nn/nn_bench" --benchmark_filter="^BM_TrainStepMlp/$batch(/|\$)" --benchmark_min_time=0.5 \
      --benchmark_out_format=json --benchmark_out="$runs/step-$r.json" >/dev/null
  fi
  "$psbench" train --mode local "${common[@]}" --out "$runs/local-$r.json"
  for ((k = 0; k < ranks; ++k)); do
    "$psbench" train --mode local "${common[@]}" --out "$runs/limit-$r-$k.json" &
  done
  wait
  "$launcher" -np "$ranks" "${oversubscribe[@]}" "$psbench" train --mode sync "${common[@]}" --out "$runs/sync-$r.json"
  "$launcher" -np "$ranks" "${oversubscribe[@]}" "$psbench" train "${common[@]}" --out "$runs/async-$r.json"
  "$launcher" -np "$ranks" "${oversubscribe[@]}" "$psbench" train --pipeline "${common[@]}" \
    --out "$runs/async_pipeline-$r.json"
done

commit=${PSBENCH_GIT_COMMIT:-$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)}
python3 - "$runs" "$ranks" "$repetitions" "$out/trainer_limit.json" "$commit" <<'EOF'
import datetime, json, os, statistics, sys
runs, ranks, repetitions, target, commit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
def train(path):
    with open(path) as f:
        return json.load(f)["train"]
variants = {name: [] for name in ("step", "local", "limit", "sync", "async", "async_pipeline")}
accuracy = {name: [] for name in ("local", "sync", "async", "async_pipeline")}
for r in range(1, repetitions + 1):
    try:
        with open(f"{runs}/step-{r}.json") as f:
            bench = json.load(f)["benchmarks"][0]
        variants["step"].append(bench["samples/s"])
    except FileNotFoundError:
        pass
    limit = [train(f"{runs}/limit-{r}-{k}.json")["samples_per_s"] for k in range(ranks)]
    variants["limit"].append(sum(limit))
    for name in accuracy:
        t = train(f"{runs}/{name}-{r}.json")
        variants[name].append(t["samples_per_s"])
        accuracy[name].append(t["test_accuracy"])
def spread(values):
    return {"median": statistics.median(values), "lowest": min(values), "highest": max(values), "runs": values}
with open(f"{runs}/local-1.json") as f:
    first = json.load(f)
context = {"cpu": first["env"]["cpu"], "onednn_isa": first["env"]["onednn_isa"], "cores": first["env"]["cores"],
           "host": first["env"]["hosts"][0], "git_commit": commit, "config": first["config"],
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")}
result = {"format": 1, "benchmark": "trainer_limit", "context": context, "ranks": ranks, "repetitions": repetitions,
          "samples_per_s": {k: spread(v) for k, v in variants.items() if v},
          "test_accuracy": {k: spread(v) for k, v in accuracy.items()}}
# Each ratio: of the medians, and within each repetition (the runs side by side) its median and range.
share = (ranks - 1) / ranks  # async has N - 1 workers: its limit is that share of N trainers'
pairs = {"sync_to_limit": ("sync", "limit", 1.0), "async_to_limit": ("async", "limit", share),
         "async_pipeline_to_limit": ("async_pipeline", "limit", share),
         "async_to_local": ("async", "local", ranks - 1), "async_pipeline_to_local": ("async_pipeline", "local", ranks - 1)}
if variants["step"]:
    pairs["local_to_step"] = ("local", "step", 1.0)
m = {k: v["median"] for k, v in result["samples_per_s"].items()}
result["ratios"] = {name: m[a] / (f * m[b]) for name, (a, b, f) in pairs.items()}
result["ratios_per_repetition"] = {
    name: spread([x / (f * y) for x, y in zip(variants[a], variants[b])]) for name, (a, b, f) in pairs.items()}
with open(target + ".tmp", "w") as f:
    json.dump(result, f, indent=1)
os.replace(target + ".tmp", target)
for k, v in result["samples_per_s"].items():
    print(f"{k:15s} median {v['median']:9.0f} samples/s  ({v['lowest']:.0f} .. {v['highest']:.0f})")
for k, v in result["ratios"].items():
    r = result["ratios_per_repetition"][k]
    print(f"{k:24s} {v:.3f}  (per repetition {r['lowest']:.3f} .. {r['highest']:.3f})")
EOF
echo "== wrote $out/trainer_limit.json"
