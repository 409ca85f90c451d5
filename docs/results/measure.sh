#!/usr/bin/env bash
# Measures what docs/results/report.md rests on, on this machine: the sweep (Fashion-MNIST and a synthetic
# set, W = 1..4 workers, S = 1 and 2 servers, sequential and parallel I/O, 1 epoch, cold cache, REPETITIONS
# runs of each, interleaved: identical 2-5 s runs differ by up to 40% on this shared machine, so the report
# and `psbench model validate` compare predictions with each configuration's median) with a manifest per
# dataset, and with it the calibration runs (1 server + 1 worker, both I/O modes, shuffled into each
# repetition: runs of their own, so the sweep that validates the model is not the one that calibrated it,
# made beside it); the benchmark files (bench/run_all.sh); then calib.json and the report. Writes into
# docs/results/raw/ (committed, a few hundred kB) and docs/results/. `calibration` remakes the calibration
# runs alone; `learners` and `communication` make the learner runs of figures 9 and 11; `clock` the check that slow
# evaluations leave the time to accuracy alone (docs/measured.md).
#
# Usage: docs/results/measure.sh [sweep|learners|communication|clock|bench|calibration|report|all]
# Environment: PSBENCH_BUILD [build/default], PSBENCH [its src/cli/psbench], DATA_DIR [build/data],
#   REPETITIONS [3] (runs of each sweep configuration, and of each calibration run)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${PSBENCH_BUILD:-$root/build/default}"
psbench="${PSBENCH:-$build/src/cli/psbench}"
data_dir="${DATA_DIR:-$root/build/data}"
raw="$root/docs/results/raw"
repetitions="${REPETITIONS:-3}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$data_dir" "$raw/sweep" "$raw/bench"

make_datasets() {
  [[ -r "$data_dir/fashion-mnist.h5" ]] || "$psbench" data convert --out "$data_dir/fashion-mnist.h5"
  # 100000 samples of 3x32x32 uint8: 307 MB of training images, enough for the reads to show against training.
  [[ -r "$data_dir/synth-3x32x32.h5" ]] || "$psbench" data synth --samples 100000 --test-samples 2000 \
    --shape 3,32,32 --classes 10 --seed 1 --out "$data_dir/synth-3x32x32.h5"
  # Let the new files' pages reach the disk first: the first cold-cache run would otherwise wait for them.
  sync
}

# shuffled SEED WORD...: the words in an order fixed by SEED (Fisher-Yates on bash's RANDOM).
shuffled() {
  RANDOM=$1
  shift
  local items=("$@") i j swap
  for ((i = ${#items[@]} - 1; i > 0; i--)); do
    j=$((RANDOM % (i + 1)))
    swap=${items[i]} items[i]=${items[j]} items[j]=$swap
  done
  echo "${items[@]}"
}

# write_manifest FOLDER RANKS_PER_NODE STARTED ENTRY...: FOLDER/manifest.json (docs/formats.md, Manifest) over the
# runs' JSON entries, written atomically.
write_manifest() {
  local folder="$1" ranks_per_node="$2" started="$3" runs
  shift 3
  runs="$(IFS=,; echo "$*")"
  cat >"$folder/manifest.json.tmp" <<JSON
{"format": 1, "scheduler": "mpirun", "job_id": "$$", "nodes": ["$(hostname)"], "ranks_per_node": $ranks_per_node,
 "git_commit": "$(git -C "$root" rev-parse HEAD)", "started": "$started", "runs": [$runs]}
JSON
  mv "$folder/manifest.json.tmp" "$folder/manifest.json"
}

# run_sweep NAME DATA MODEL: one folder per dataset, every (io, S, W) run, and its manifest (docs/formats.md, Manifest;
# ranks_per_node is the largest run's, 4 workers + 2 servers, all on this host). Each repetition runs its 16
# configurations and its two calibration runs in a shuffled order (seeded by the repetition): this VM's speed
# moves by 10-25% from one minute to the next, and the first touch of memory that sat free costs a run up to
# 0.9 s, so no configuration, and not the calibration, always takes the same place.
run_sweep() {
  local name="$1" data="$2" model="$3" folder="$raw/sweep/$1" entries=() started job jobs
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  rm -f "$folder"/w*.json  # a file of an earlier sweep would be read as one more repetition
  rm -f "$raw/calibration/$1"/w*.json
  for ((repetition = 1; repetition <= repetitions; repetition++)); do
    jobs=(calibration:sequential calibration:parallel)
    for io in sequential parallel; do
      for servers in 1 2; do
        for workers in 1 2 3 4; do jobs+=("$io:$servers:$workers"); done
      done
    done
    for job in $(shuffled "$repetition" "${jobs[@]}"); do
      local io servers workers
      IFS=: read -r io servers workers <<<"$job"
      if [[ $io == calibration ]]; then
        calibration_run "$1" "$2" "$3" "$servers" "$repetition"
        continue
      fi
      local file="w${workers}-s${servers}-${io}-r${repetition}.json" code=0
      local command=(mpirun --oversubscribe -np $((workers + servers)) "$psbench" train --data "$data"
        --model "$model" --servers "$servers" --io "$io" --epochs 1 --batch 64 --cold-cache --quiet
        --out "$folder/$file")
      echo "measure: $name $io S=$servers W=$workers #$repetition"
      "${command[@]}" || code=$?
      entries+=("{\"file\": \"$file\", \"command\": \"${command[*]/#$root\//}\", \"workers\": $workers, \"servers\": $servers, \"io\": \"$io\", \"repetition\": $repetition, \"exit_code\": $code}")
    done
  done
  write_manifest "$folder" 6 "$started" "${entries[@]}"
}

# The benchmark files (docs/formats.md, Bench file) with the project's own runner: nn, push/pull, server update, data I/O
# (the fresh-page chains too), server saturation and the trainer's set-up: what calib.json and the report rest on (not
# the trainer limit, which neither reads).
run_bench() {
  # The shared window lives in /dev/shm: without huge pages there a large model's server update slows several
  # times (docs/benchmarks.md); the files record it (window_huge_pages), and this line says it before the run.
  if ! grep -qE '^\S+ /dev/shm tmpfs \S*huge=(advise|always|within_size)' /proc/mounts; then
    echo "measure: warning: /dev/shm has no huge pages (mount -o remount,huge=advise /dev/shm gives them)" >&2
  fi
  PSBENCH_BUILD="$build" "$root/bench/run_all.sh" --only nn,push_pull,server_update,data_io,server_saturation,train_setup,shared_steps \
    --saturation-paths shared,messages --out "$raw/bench"
}

# calibration_run NAME DATA MODEL IO REPETITION: one of the runs `psbench model calibrate --runs` fits the
# step time, the server's service time and the exchange overhead of psbench train from (1 server + 1 worker,
# every rank with a core of its own; runs of their own, not among the validated ones).
calibration_run() {
  local folder="$raw/calibration/$1"
  mkdir -p "$folder"
  echo "measure: calibration $1 $4 #$5"
  mpirun -np 2 "$psbench" train --data "$2" --model "$3" --servers 1 --io "$4" --epochs 1 --batch 64 \
    --cold-cache --quiet --out "$folder/w1-s1-$4-$5.json"
}

# run_calibration NAME DATA MODEL: every repetition of the calibration runs, on their own.
run_calibration() {
  for ((repetition = 1; repetition <= repetitions; repetition++)); do
    for io in sequential parallel; do calibration_run "$@" "$io" "$repetition"; done
  done
}

# The learners between sync and async at W = 4 on Fashion-MNIST (`mlp:512,256`, batch 128, 3 epochs, a test
# evaluation every 25 steps, target 85 %): sync (4 ranks), and through 1 server bounded staleness s = 0 (BSP), 1
# and 4, unbounded async, and async with delay compensation (lambda 0.04); each without and with one worker slowed
# 4x (--straggler rank=2,factor=4, where the runs stop at the target: every learner still waits for the straggler
# at the end of an epoch, and the question is only how soon it reaches the target). REPETITIONS runs of each,
# in an order shuffled per repetition, with their manifest. Writes docs/results/raw/learners/.
run_learners() {
  local data="$1" folder="$raw/learners" entries=() started job
  local -A flags=([sync]="--mode sync" [bsp]="--staleness 0" [ssp1]="--staleness 1" [ssp4]="--staleness 4"
                  [async]="" [dcasgd]="--delay-compensation 0.04")
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  rm -f "$folder"/*.json
  for ((repetition = 1; repetition <= repetitions; repetition++)); do
    local jobs=()
    for learner in sync bsp ssp1 ssp4 async dcasgd; do jobs+=("$learner:even" "$learner:straggler"); done
    for job in $(shuffled "$((100 + repetition))" "${jobs[@]}"); do
      local learner pace ranks=5 extra=() code=0
      IFS=: read -r learner pace <<<"$job"
      [[ $learner == sync ]] && ranks=4
      [[ $pace == straggler ]] && extra=(--straggler rank=2,factor=4 --stop-at-target)
      local file="$learner-$pace-r$repetition.json"
      # shellcheck disable=SC2206  # the learner's flags are words
      local command=(mpirun --oversubscribe -np "$ranks" "$psbench" train --data "$data" --model mlp:512,256
        --batch 128 --epochs 3 ${flags[$learner]} "${extra[@]}" --eval-every 25 --target-accuracy 0.85 --quiet
        --out "$folder/$file")
      echo "measure: learners $learner $pace #$repetition"
      "${command[@]}" || code=$?
      entries+=("{\"file\": \"$file\", \"command\": \"${command[*]/#$root\//}\", \"learner\": \"$learner\", \"pace\": \"$pace\", \"repetition\": $repetition, \"exit_code\": $code}")
    done
  done
  write_manifest "$folder" 5 "$started" "${entries[@]}"
}

# CNTK's learners compared on bytes and time at W = 4 on Fashion-MNIST (`mlp:512,256`, batch 128, 3 epochs, a test
# evaluation every 25 steps, target 85 %): sync (4 ranks) and async (1 server + 4 workers, by messages, as 1-bit
# pushes travel), each with and without --compress onebit, and BMUF and model averaging with --block-samples 4096 and CNTK's other defaults (4 ranks).
# REPETITIONS runs of each, repetition r with --seed r (the 1-bit accuracy is a median over seeds), in an order
# shuffled per repetition, with their manifest. Writes
# docs/results/raw/communication/.
run_communication() {
  local data="$1" folder="$raw/communication" entries=() started job
  local -A flags=([sync]="--mode sync" [sync1bit]="--mode sync --compress onebit" [async]="--intra-node messages"
                  [async1bit]="--compress onebit --intra-node messages" [bmuf]="--mode bmuf --block-samples 4096"
                  [average]="--mode average --block-samples 4096")
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  rm -f "$folder"/*.json
  for ((repetition = 1; repetition <= repetitions; repetition++)); do
    for learner in $(shuffled "$((200 + repetition))" sync sync1bit async async1bit bmuf average); do
      local ranks=4 code=0
      [[ $learner == async* ]] && ranks=5
      local file="$learner-r$repetition.json"
      # shellcheck disable=SC2206  # the learner's flags are words
      local command=(mpirun --oversubscribe -np "$ranks" "$psbench" train --data "$data" --model mlp:512,256
        --batch 128 --epochs 3 ${flags[$learner]} --eval-every 25 --target-accuracy 0.85 --seed "$repetition" --quiet
        --out "$folder/$file")
      echo "measure: communication $learner #$repetition"
      "${command[@]}" || code=$?
      entries+=("{\"file\": \"$file\", \"command\": \"${command[*]/#$root\//}\", \"learner\": \"$learner\", \"repetition\": $repetition, \"exit_code\": $code}")
    done
  done
  write_manifest "$folder" 5 "$started" "${entries[@]}"
}

# The time-to-accuracy clock against slow evaluations: each mode (local on 1 rank; sync, bmuf and average with
# --block-samples 4096 on 4; async on 1 server + 4 workers) on Fashion-MNIST (`mlp:512,256`, batch 128, up to 5
# epochs: async's evaluations reach 85 % only in its fourth on this machine; a test evaluation every 25 steps,
# stopped at 85 %), with the evaluations at their own speed and each run ten times (--slow-evaluation 10). REPETITIONS runs of each, in an order shuffled per repetition, with their manifest; then
# the table of docs/measured.md's row: per mode and speed, the median time to 85 % and its range. Writes
# results/clock/ (not committed: no published report rests on it).
run_clock() {
  local data="$1" folder="$root/results/clock" entries=() started job
  local -A flags=([local]="--mode local" [sync]="--mode sync" [async]=""
                  [bmuf]="--mode bmuf --block-samples 4096" [average]="--mode average --block-samples 4096")
  local -A ranks=([local]=1 [sync]=4 [async]=5 [bmuf]=4 [average]=4)
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  rm -f "$folder"/*.json
  for ((repetition = 1; repetition <= repetitions; repetition++)); do
    local jobs=()
    for mode in local sync async bmuf average; do jobs+=("$mode:normal" "$mode:slow"); done
    for job in $(shuffled "$((300 + repetition))" "${jobs[@]}"); do
      local mode speed extra=() code=0
      IFS=: read -r mode speed <<<"$job"
      [[ $speed == slow ]] && extra=(--slow-evaluation 10)
      local file="$mode-$speed-r$repetition.json"
      # shellcheck disable=SC2206  # the mode's flags are words
      local command=(mpirun --oversubscribe -np "${ranks[$mode]}" "$psbench" train --data "$data" --model mlp:512,256
        --batch 128 --epochs 5 ${flags[$mode]} "${extra[@]}" --eval-every 25 --target-accuracy 0.85 --stop-at-target
        --quiet --out "$folder/$file")
      echo "measure: clock $mode $speed #$repetition"
      "${command[@]}" || code=$?
      entries+=("{\"file\": \"$file\", \"command\": \"${command[*]/#$root\//}\", \"mode\": \"$mode\", \"speed\": \"$speed\", \"repetition\": $repetition, \"exit_code\": $code}")
    done
  done
  write_manifest "$folder" 5 "$started" "${entries[@]}"
  clock_table "$folder"
}

# clock_table FOLDER: per mode, the median time to 85 % (and its range) at normal and tenfold evaluations.
clock_table() {
  python3 - "$1" <<'PY'
import json, pathlib, statistics, sys
runs = {}
for path in sorted(pathlib.Path(sys.argv[1]).glob("*-r*.json")):
    mode, speed, _ = path.stem.split("-")
    result = json.loads(path.read_text())
    runs.setdefault((mode, speed), []).append(result["train"]["time_to_target_s"])
for mode in ("local", "sync", "async", "bmuf", "average"):
    cells = []
    for speed in ("normal", "slow"):
        times = runs.get((mode, speed), [])
        if not times or None in times:
            cells.append(f"{speed}: not reached in {sum(t is None for t in times)} of {len(times)}")
            continue
        cells.append(f"{speed} {statistics.median(times):.2f} s ({min(times):.2f}-{max(times):.2f})")
    print(f"{mode}: " + ", ".join(cells))
PY
}

# calib.json from the bench files and the calibration runs, then the report over the sweep.
# (Paths relative to the repository root, so that report.md quotes a command that works in any checkout.)
run_report() {
  cd "$root"
  "$psbench" model calibrate --bench docs/results/raw/bench/*.json --runs docs/results/raw/calibration/*/*.json \
    --out docs/results/calib.json
  "$psbench" report docs/results/raw/sweep --bench docs/results/raw/bench --calib docs/results/calib.json \
    --learners docs/results/raw/learners --communication docs/results/raw/communication --out docs/results
}

case "${1:-all}" in
  sweep) make_datasets; run_sweep fashion-mnist "$data_dir/fashion-mnist.h5" mlp:512,256
         run_sweep synth-3x32x32 "$data_dir/synth-3x32x32.h5" mlp:128 ;;
  bench) run_bench ;;
  calibration) make_datasets; run_calibration fashion-mnist "$data_dir/fashion-mnist.h5" mlp:512,256
               run_calibration synth-3x32x32 "$data_dir/synth-3x32x32.h5" mlp:128 ;;
  learners) make_datasets; run_learners "$data_dir/fashion-mnist.h5" ;;
  clock) make_datasets; run_clock "$data_dir/fashion-mnist.h5" ;;
  communication) make_datasets; run_communication "$data_dir/fashion-mnist.h5" ;;
  report) run_report ;;
  all) "$0" sweep; "$0" learners; "$0" communication; "$0" bench; "$0" report ;;
  *) echo "measure: error: unknown step '$1' (sweep, learners, communication, clock, bench, calibration, report or all)" >&2
     exit 2 ;;
esac
