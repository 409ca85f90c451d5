#!/usr/bin/env bash
# Runs every psbench microbenchmark and writes results/bench/NAME.json (docs/benchmarks.md):
#   nn.json, push_pull.json, server_update.json, data_io.json, data_io_fresh-DATA-rK.json (the trainer's
#   readers into fresh pages, one launch each) (Google Benchmark's JSON format) and
#   server_saturation.json (its own format, documented there: the clients reach the servers through the
#   node's shared window, psbench train's intra-node path) and, with --saturation-paths shared,messages,
#   messages/server_saturation.json (the same benchmark over MPI messages, as between nodes; a folder of its
#   own, so that `psbench model calibrate --bench DIR/*.json` and `psbench report --bench DIR` read the
#   shared-window curves only), trainer_limit.json (bench/trainer_limit.sh: N local trainers at once
#   beside sync and async on N ranks), train_setup-wW.json (the trainer's set-up with 1 server and W = 1..3
#   workers, one launch each) and shared_steps-kK-rR.json (K ranks' train steps at once on the node's cores beside
#   one rank's alone, K = 1 .. 3 x cores (on more than 4 cores 1, c/4, c/2, c, 3c/2, 2c, 3c), one launch per K and
#   repetition, the repetitions interleaved over K).
# Usage: bench/run_all.sh [--only LIST] [--large] [--hostfile FILE] [--clients K] [--repetitions R]
#                         [--data FILE.h5] [--data-ranks N] [--saturation-paths LIST] [--out DIR]
#   --only LIST      comma-separated subset of: nn,push_pull,server_update,data_io,server_saturation,
#                    trainer_limit,train_setup,shared_steps
#   --large          a real cluster's sizes: push/pull up to 256 MiB, a 1.1 GB HDF5 file, longer points
#   --quick          the smallest sizes and shortest runs, to check that everything runs and writes its
#                    files (tests/bench); its figures mean nothing
#   --hostfile FILE  an Open MPI hostfile; the MPI benchmarks spread over its hosts round robin
#   --clients K      clients of the saturation benchmark (default 16; it launches 2 + K ranks)
#   --repetitions R  repetitions of each Google Benchmark (push/pull: at least 7, interleaved at random), of each read
#                    mode, each saturation pass and each shared-steps launch (default 5: the calibration keeps each
#                    parameter's median and spread over them)
#   --data FILE.h5   the HDF5 file bench_data_io reads (default: one made with psbench data synth)
#   --data-ranks N   readers of bench_data_io (default 2)
#   --saturation-paths LIST  the saturation benchmark's paths: shared, messages or both (default shared; both
#                    took 11 minutes on 2 cores, over the 10-minute budget of the default run)
#   --out DIR        where the files go (default results/bench)
# Environment: PSBENCH_BUILD (the build folder, default build/default of this repository), PSBENCH_MPIRUN
# (the launcher, default mpirun, or mpirun.mpich for an MPICH build where mpirun is Open MPI's),
# PSBENCH_GIT_COMMIT (default: git rev-parse HEAD, "-dirty" when the work tree has changes), which every file records.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PSBENCH_BUILD:-$repo/build/default}
only=nn,push_pull,server_update,data_io,server_saturation,trainer_limit,train_setup,shared_steps
large=0
quick=0
hostfile=
clients=16
repetitions=5
data=
data_ranks=2
saturation_paths=shared
out=$repo/results/bench

die() {
  echo "psbench: error: $*" >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --only) only=${2:?--only needs a list}; shift 2 ;;
    --large) large=1; shift ;;
    --quick) quick=1; shift ;;
    --hostfile) hostfile=${2:?--hostfile needs a file}; shift 2 ;;
    --clients) clients=${2:?--clients needs a count}; shift 2 ;;
    --repetitions) repetitions=${2:?--repetitions needs a count}; shift 2 ;;
    --data) data=${2:?--data needs a file}; shift 2 ;;
    --data-ranks) data_ranks=${2:?--data-ranks needs a count}; shift 2 ;;
    --saturation-paths) saturation_paths=${2:?--saturation-paths needs a list}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see bench/run_all.sh --help)" ;;
  esac
done

for name in ${only//,/ }; do
  case $name in nn|push_pull|server_update|data_io|server_saturation|trainer_limit|train_setup|shared_steps) ;; *) die "--only: unknown benchmark '$name'" ;; esac
done
for path in ${saturation_paths//,/ }; do
  case $path in shared|messages) ;; *) die "--saturation-paths: unknown path '$path' (shared or messages)" ;; esac
done
for count in "$clients" "$repetitions" "$data_ranks"; do
  [[ $count =~ ^[1-9][0-9]*$ ]] || die "'$count' is not a positive count"
done
[[ -z $hostfile || -r $hostfile ]] || die "hostfile '$hostfile' cannot be read"
[[ -z $data || -r $data ]] || die "data file '$data' cannot be read"
[[ -d $build/bench ]] || die "no benchmarks under '$build' (build first, or set PSBENCH_BUILD)"

if [[ -z ${PSBENCH_GIT_COMMIT:-} ]]; then
  PSBENCH_GIT_COMMIT=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
  if [[ $PSBENCH_GIT_COMMIT != unknown ]] && ! git -C "$repo" diff --quiet HEAD 2>/dev/null; then
    PSBENCH_GIT_COMMIT+=-dirty
  fi
fi
export PSBENCH_GIT_COMMIT
source "$repo/jobs/lib/mpi_flavor.sh"
select_bench_launcher "$build/src/cli/psbench"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
mkdir -p "$out"
cores=$(nproc)

# mpi RANKS COMMAND...: the launcher with a hostfile when given, else oversubscribed when ranks exceed cores.
mpi() {
  local ranks=$1
  shift
  local options=(-np "$ranks")
  if [[ -n $hostfile ]]; then
    mpi_spread_over_hosts "$hostfile"
    options+=("${mpi_spread[@]}")
  elif (( ranks > cores )); then
    options+=($(mpi_oversubscribe_flag))
  fi
  $launcher "${options[@]}" "$@"
}

wanted() { [[ ,$only, == *,$1,* ]]; }

# Repetitions interleaved at random, so a slow stretch of the machine spreads over every benchmark's repetitions
# rather than moving one benchmark's median.
gbench_flags=(--benchmark_repetitions="$repetitions" --benchmark_enable_random_interleaving=true
              --benchmark_out_format=json)
min_time=(0.2 0.1 0.05)  # nn, server_update, push_pull
if (( quick )); then
  gbench_flags=(--benchmark_repetitions=2 --benchmark_out_format=json)
  min_time=(0.01 0.01 0.01)
fi

# step NAME COMMAND...: runs one benchmark, timed; its JSON goes to $out/NAME.json.
step() {
  local name=$1
  shift
  local start=$SECONDS
  echo "== $name: $*"
  rm -f "$out/$name.json"
  "$@"
  [[ -s $out/$name.json ]] || die "$name wrote no $out/$name.json"
  echo "== $name: $((SECONDS - start)) s, wrote $out/$name.json"
}

total_start=$SECONDS
if wanted nn; then
  filter=()
  (( quick )) && filter=(--benchmark_filter='BM_TrainStepMlp/32|BM_EvaluateMlp|BM_OneDnnMatmul')
  step nn "$build/bench/nn/nn_bench" "${gbench_flags[@]}" "${filter[@]}" --benchmark_min_time="${min_time[0]}" \
    --benchmark_out="$out/nn.json"
fi
if wanted server_update; then
  filter=()
  (( quick )) && filter=(--benchmark_filter='/4096/')
  step server_update "$build/bench/ps/bench_server_update" "${gbench_flags[@]}" "${filter[@]}" \
    --benchmark_min_time="${min_time[1]}" --benchmark_out="$out/server_update.json"
fi
if wanted push_pull; then
  max_bytes=$((64 << 20))
  filter=()
  (( large )) && max_bytes=$((256 << 20))
  (( quick )) && max_bytes=4096 filter=(--benchmark_filter='/4096/')
  # One worker runs the loop (rank 0 follows its commands), so its random order of the repetitions is safe:
  # each size's update, raw exchange and push/pull repetitions interleave with everything else. At least 7 of
  # them: a transfer between two ranks here runs at one of two speeds, 2x apart, from one moment to the next
  # (docs/benchmarks.md), and the limit and the push/pull it is set against are both medians.
  exchange_repetitions=()
  (( ! quick && repetitions < 7 )) && exchange_repetitions=(--benchmark_repetitions=7)
  step push_pull mpi 2 "$build/bench/ps/bench_push_pull" --max-bytes="$max_bytes" "${gbench_flags[@]}" \
    "${exchange_repetitions[@]}" "${filter[@]}" --benchmark_enable_random_interleaving=true \
    --benchmark_min_time="${min_time[2]}" --benchmark_out="$out/push_pull.json"
fi
if wanted data_io || wanted trainer_limit; then
  if [[ -z $data ]]; then
    samples=200000
    (( large )) && samples=1400000
    (( quick )) && samples=2000
    data=$out/data/synth-$samples.h5
    if [[ ! -r $data ]]; then
      mkdir -p "$out/data"
      "$build/src/cli/psbench" data synth --samples "$samples" --test-samples 1000 --shape 1,28,28 --classes 10 \
        --out "$data"
    fi
  fi
fi
if wanted data_io; then
  reads=$((repetitions < 5 ? 5 : repetitions))  # medians of at least 5 interleaved repetitions
  (( quick )) && reads=1
  step data_io mpi "$data_ranks" "$build/bench/data/bench_data_io" "$data" --repeat "$reads" \
    --benchmark-out "$out/data_io.json"
  # A trainer's readers: fresh processes reading in turn into fresh pages, one launch per repetition (a
  # process's second read lands on pages it cleared already), at two file sizes so that calibrate fits a
  # reader's fixed cost beside its cost per byte.
  small_samples=50000
  (( quick )) && small_samples=1000
  small=$out/data/synth-$small_samples.h5
  if [[ ! -r $small ]]; then
    mkdir -p "$out/data"
    "$build/src/cli/psbench" data synth --samples "$small_samples" --test-samples 1000 --shape 1,28,28 --classes 10 \
      --out "$small"
  fi
  for file in "$data" "$small"; do
    for (( launch = 1; launch <= reads; ++launch )); do
      step "data_io_fresh-$(basename "$file" .h5)-r$launch" mpi "$data_ranks" "$build/bench/data/bench_data_io" \
        "$file" --only sequential+whole --fresh-buffers --repeat 1 --warmup 0 \
        --benchmark-out "$out/data_io_fresh-$(basename "$file" .h5)-r$launch.json"
    done
  done
fi
if wanted server_saturation; then
  sizes=()
  # A point lasts --seconds, or 20 exchanges of one client where that is longer, up to max_seconds: with the
  # cnn's 13 MB, Z = 2-4 busy D makes a cycle 20-70 ms here, so the cap decides its points' length.
  seconds=0.2 max_seconds=0.5
  (( large )) && seconds=1 max_seconds=2
  # Medians of at least 5 interleaved passes: with 3, a slow stretch of the machine in two of them moved the
  # points of a curve by 10-20% (docs/benchmarks.md).
  saturation_repetitions=$((repetitions < 5 ? 5 : repetitions))
  (( quick )) && seconds=0.05 max_seconds=0.05 clients=2 saturation_repetitions=1 sizes=(--parameters 4096 --think-us 200 --min-cycles 2)
  for path in ${saturation_paths//,/ }; do
    name=server_saturation
    [[ $path == messages ]] && name=messages/server_saturation && mkdir -p "$out/messages"
    step "$name" mpi "$((2 + clients))" "$build/bench/ps/bench_server_saturation" --servers 1,2 --path "$path" \
      --max-clients "$clients" --seconds "$seconds" --max-seconds "$max_seconds" \
      --repetitions "$saturation_repetitions" "${sizes[@]}" --json "$out/$name.json"
  done
fi
if wanted trainer_limit; then
  # Fashion-MNIST when jobs/setup.sh made it (its test accuracy means something), else the benchmarks' data.
  limit_data=$repo/data/fashion-mnist.h5
  [[ -r $limit_data ]] || limit_data=$data
  limit_repetitions=$((repetitions < 5 ? 5 : repetitions))
  (( quick )) && limit_repetitions=1
  step trainer_limit "$repo/bench/trainer_limit.sh" --repetitions "$limit_repetitions" --data "$limit_data" \
    --out "$out"
fi
if wanted train_setup; then
  # One psbench train run per iteration on a small file (its read and training are subtracted; the set-up holds the
  # model, not the data), 1 server and W workers: at W = 1..3 on 2 cores, the ranks share cores from W = 2.
  setup_data=$out/data/synth-setup-4096.h5
  if [[ ! -r $setup_data ]]; then
    mkdir -p "$out/data"
    "$build/src/cli/psbench" data synth --samples 4096 --test-samples 512 --shape 1,28,28 --classes 10 \
      --out "$setup_data"
  fi
  for workers in 1 2 3; do
    step "train_setup-w$workers" mpi "$((1 + workers))" "$build/bench/ps/bench_train_setup" --data="$setup_data" \
      "${gbench_flags[@]}" --benchmark_min_time="${min_time[0]}" --benchmark_out="$out/train_setup-w$workers.json"
  done
fi
if wanted shared_steps; then
  # k ranks each running train steps at once, beside one rank alone in the same launch: every k of 1 .. 3 x cores
  # on a node of up to 4 cores, else 1, c/4, c/2, c, 3c/2, 2c and 3c (a launch per k and repetition). The
  # repetitions are the outer loop, so every k sees the machine's slow and quiet stretches alike.
  launches=$repetitions
  if (( cores <= 4 )); then
    rank_counts=$(seq 1 $((3 * cores)))
  else
    rank_counts=$(printf '%s\n' 1 $((cores / 4)) $((cores / 2)) "$cores" $((3 * cores / 2)) $((2 * cores)) \
      $((3 * cores)) | sort -nu)
  fi
  (( quick )) && rank_counts="1 2" launches=1
  for (( launch = 1; launch <= launches; ++launch )); do
    for ranks in $rank_counts; do
      step "shared_steps-k$ranks-r$launch" mpi "$ranks" "$build/bench/nn/bench_shared_steps" --benchmark_out_format=json \
        --benchmark_out="$out/shared_steps-k$ranks-r$launch.json"
    done
  done
fi
echo "== all: $((SECONDS - total_start)) s, commit $PSBENCH_GIT_COMMIT, files in $out"
