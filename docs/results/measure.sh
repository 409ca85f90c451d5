#!/usr/bin/env bash
# Measures what docs/results/report.md rests on, on this machine: the sweep (Fashion-MNIST and a synthetic
# set, W = 1..4 workers, S = 1 and 2 servers, sequential and parallel I/O, 1 epoch, cold cache, REPETITIONS
# runs of each, interleaved: identical 2-5 s runs differ by up to 40% on this shared machine, so the report
# and `psbench model validate` compare predictions with each configuration's median) with a manifest per
# dataset, and with it the calibration runs (1 server + 1 worker, both I/O modes, shuffled into each
# repetition: runs of their own, so the sweep that validates the model is not the one that calibrated it,
# made beside it); the rack sweep on the virtual rack (1 and 2 servers, W = 1..6, both I/O modes, 1 Gbit/s links;
# as root); the learner runs of figures 9 and 11; the benchmark files (bench/run_all.sh); then calib.json and the
# report. Writes into docs/results/raw/ (committed, a few hundred kB) and docs/results/. `calibration` remakes the
# calibration runs alone; `clock` the check that slow evaluations leave the time to accuracy alone (results/clock).
#
# Every step measures into a staging folder and records in each manifest other_cpu_share: the share of the
# machine's CPU time, while it measured, that processes other than its own took (from /proc/stat and the CPU time
# of its finished children). Above 0.10 it publishes nothing and exits 3, unless PSBENCH_ALLOW_LOAD=1, which
# publishes it with "under_load": true, and the report says "measured under load".
#
# Usage: docs/results/measure.sh [sweep|rack|learners|communication|clock|bench|calibration|report|all]
#   all: sweep, rack, learners, communication, bench and report, in that order
# Environment: PSBENCH_BUILD [build/default], PSBENCH [its src/cli/psbench], DATA_DIR [build/data],
#   REPETITIONS [5] (runs of each configuration, and of each calibration run), RESULTS_DIR [docs/results]
#   (where raw/ and the report go), PSBENCH_ALLOW_LOAD [0]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${PSBENCH_BUILD:-$root/build/default}"
psbench="${PSBENCH:-$build/src/cli/psbench}"
data_dir="${DATA_DIR:-$root/build/data}"
results="${RESULTS_DIR:-$root/docs/results}"
raw="$results/raw"
repetitions="${REPETITIONS:-5}"
# The largest share of the machine's CPU time other processes may take while a published measurement runs.
load_limit=0.10
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$data_dir" "$raw"
# Each step measures into a staging folder beside raw/ and moves its folders into raw/ only once accepted.
stage="$results/.measure-$$"
# The step's own CPU time is that of a cgroup of its own (cgroup v1 cpuacct, else v2), which every process it starts
# stays in, daemonised or not: Open MPI's daemons on the virtual rack leave the process tree, and a parent's
# children's CPU time (/proc/PID/stat) does not hold theirs. Without a cgroup to write (not root), that stat is used.
cgroup=""
for parent in /sys/fs/cgroup/cpuacct /sys/fs/cgroup/unified /sys/fs/cgroup; do
  if [[ -w "$parent/cgroup.procs" ]] && mkdir -p "$parent/psbench-measure-$$" 2>/dev/null &&
     echo $$ >"$parent/psbench-measure-$$/cgroup.procs" 2>/dev/null; then
    cgroup="$parent/psbench-measure-$$"
    break
  fi
  rmdir "$parent/psbench-measure-$$" 2>/dev/null || true
done
leave_cgroup() {
  [[ -n "$cgroup" ]] || return 0
  echo $$ >"${cgroup%/*}/cgroup.procs" 2>/dev/null || true
  rmdir "$cgroup" 2>/dev/null || true
}
trap 'rm -rf "$stage"; leave_cgroup' EXIT

# cpu_marks: "TOTAL BUSY OWN" in clock ticks: the machine's CPU time over all CPUs (/proc/stat), its busy part and
# this step's own CPU time. With a cgroup v1 cpuacct of its own: busy is the root cgroup's usage (every task) and own
# its cgroup's, both in the same accounting. Otherwise busy is /proc/stat's (all but idle and iowait; steal counts as
# busy: another guest took it) and own the cgroup v2's usage_usec, else this script's with that of its finished
# children (utime + stime + cutime + cstime of /proc/$$/stat: every run and rank, as each parent waits for them).
cpu_marks() {
  python3 - "$$" "$cgroup" <<'PY'
import os, sys
with open("/proc/stat", encoding="ascii") as f:
    cpu = [int(x) for x in f.readline().split()[1:9]]  # user nice system idle iowait irq softirq steal
tick = os.sysconf("SC_CLK_TCK")
group = sys.argv[2]
total, busy = sum(cpu), sum(cpu) - cpu[3] - cpu[4]


def read_int(path):
    with open(path, encoding="ascii") as f:
        return int(f.read())


if group and os.path.exists(f"{group}/cpuacct.usage"):
    busy = read_int(f"{os.path.dirname(group)}/cpuacct.usage") * tick // 10**9
    own = read_int(f"{group}/cpuacct.usage") * tick // 10**9
elif group:
    with open(f"{group}/cpu.stat", encoding="ascii") as f:
        own = int(dict(line.split() for line in f)["usage_usec"]) * tick // 10**6
else:
    with open(f"/proc/{sys.argv[1]}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()  # from field 3 (state) on
    own = sum(int(x) for x in fields[11:15])
print(total, busy, own)
PY
}

# begin_measurement: marks the start of a step's measurement.
begin_measurement() {
  mark="$(cpu_marks)"
  rm -rf "$stage"
  mkdir -p "$stage"
}

# end_measurement WHAT: sets share (other processes' share of the CPU time since begin_measurement) and under_load;
# above load_limit, stops with one error line (exit 3, nothing published) unless PSBENCH_ALLOW_LOAD=1.
end_measurement() {
  local now
  now="$(cpu_marks)"
  read -r share under_load < <(python3 - "$mark" "$now" "$load_limit" <<'PY'
import sys
(t0, b0, o0), (t1, b1, o1) = (map(int, m.split()) for m in sys.argv[1:3])
share = max(0.0, min(1.0, ((b1 - b0) - (o1 - o0)) / (t1 - t0))) if t1 > t0 else 0.0
print(f"{share:.4f}", "true" if share > float(sys.argv[3]) else "false")
PY
)
  echo "measure: $1: other processes took $share of the machine's CPU time"
  if [[ $under_load == true ]]; then
    if [[ "${PSBENCH_ALLOW_LOAD:-0}" != 1 ]]; then
      echo "measure: error: other processes took $share of the machine's CPU time while $1 was measured (the limit is $load_limit): nothing was published; stop the other work and measure again, or set PSBENCH_ALLOW_LOAD=1 to publish it stamped 'measured under load'" >&2
      exit 3
    fi
    echo "measure: warning: $1 is published as measured under load (PSBENCH_ALLOW_LOAD=1)" >&2
  fi
}

# stamp MANIFEST...: adds other_cpu_share and under_load to each manifest, atomically.
stamp() {
  python3 - "$share" "$under_load" "$@" <<'PY'
import json, os, sys
for path in sys.argv[3:]:
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["other_cpu_share"] = float(sys.argv[1])
    manifest["under_load"] = sys.argv[2] == "true"
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
PY
}

# publish PATH...: replaces raw/PATH with the staged PATH (a folder or a file), each by a rename.
publish() {
  local path
  for path in "$@"; do
    mkdir -p "$(dirname "$raw/$path")"
    rm -rf "$raw/$path.old"
    if [[ -e "$raw/$path" ]]; then mv "$raw/$path" "$raw/$path.old"; fi
    mv "$stage/$path" "$raw/$path"
    rm -rf "$raw/$path.old"
  done
}

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
# runs' JSON entries, written atomically; SCHEDULER [mpirun], NODES [this host] and LINK [none] when set.
write_manifest() {
  local folder="$1" ranks_per_node="$2" started="$3" runs nodes link=""
  shift 3
  runs="$(IFS=,; echo "$*")"
  nodes="${NODES:-[\"$(hostname)\"]}"
  [[ -z "${LINK:-}" ]] || link=" \"link\": $LINK,"
  cat >"$folder/manifest.json.tmp" <<JSON
{"format": 1, "scheduler": "${SCHEDULER:-mpirun}", "job_id": "$$", "nodes": $nodes, "ranks_per_node": $ranks_per_node,
 "git_commit": "$(git -C "$root" rev-parse HEAD)", "started": "$started",$link "runs": [$runs]}
JSON
  mv "$folder/manifest.json.tmp" "$folder/manifest.json"
}

# run_sweep NAME DATA MODEL: one folder per dataset, every (io, S, W) run, and its manifest (docs/formats.md, Manifest;
# ranks_per_node is the largest run's, 4 workers + 2 servers, all on this host). Each repetition runs its 16
# configurations and its two calibration runs in a shuffled order (seeded by the repetition): this VM's speed
# moves by 10-25% from one minute to the next, and the first touch of memory that sat free costs a run up to
# 0.9 s, so no configuration, and not the calibration, always takes the same place.
run_sweep() {
  local name="$1" data="$2" model="$3" folder="$stage/sweep/$1" entries=() started job jobs
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
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
  local started
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  # The shared window lives in /dev/shm: without huge pages there a large model's server update slows several
  # times (docs/benchmarks.md); the files record it (window_huge_pages), and this line says it before the run.
  if ! grep -qE '^\S+ /dev/shm tmpfs \S*huge=(advise|always|within_size)' /proc/mounts; then
    echo "measure: warning: /dev/shm has no huge pages (mount -o remount,huge=advise /dev/shm gives them)" >&2
  fi
  # The measurement writes into the tree (raw/), so run_all.sh's own check would call every file dirty: the commit is
  # HEAD's, marked dirty only where code outside docs/results differs from it.
  local commit
  commit="$(git -C "$root" rev-parse HEAD)"
  git -C "$root" diff --quiet HEAD -- . ':(exclude)docs/results' || commit+=-dirty
  PSBENCH_GIT_COMMIT="$commit" PSBENCH_BUILD="$build" "$root/bench/run_all.sh" --only nn,push_pull,server_update,data_io,server_saturation,train_setup,shared_steps \
    --saturation-paths shared,messages --out "$stage/bench"
  # The bench step's manifest (beside the folder, which calibrate reads as bench files): each file and the command.
  local entries=() file
  for file in "$stage"/bench/*.json; do
    entries+=("{\"file\": \"bench/${file##*/}\", \"command\": \"bench/run_all.sh --only nn,push_pull,server_update,data_io,server_saturation,train_setup,shared_steps --saturation-paths shared,messages\", \"exit_code\": 0}")
  done
  write_manifest "$stage" 2 "$started" "${entries[@]}"
  mv "$stage/manifest.json" "$stage/bench.manifest.json"
}

# calibration_run NAME DATA MODEL IO REPETITION: one of the runs `psbench model calibrate --runs` fits the
# step time, the server's service time and the exchange overhead of psbench train from (1 server + 1 worker,
# every rank with a core of its own; runs of their own, not among the validated ones).
calibration_run() {
  local folder="$stage/calibration/$1"
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
  local data="$1" folder="$stage/learners" entries=() started job
  local -A flags=([sync]="--mode sync" [bsp]="--staleness 0" [ssp1]="--staleness 1" [ssp4]="--staleness 4"
                  [async]="" [dcasgd]="--delay-compensation 0.04")
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
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
  local data="$1" folder="$stage/communication" entries=() started job
  local -A flags=([sync]="--mode sync" [sync1bit]="--mode sync --compress onebit" [async]="--intra-node messages"
                  [async1bit]="--compress onebit --intra-node messages" [bmuf]="--mode bmuf --block-samples 4096"
                  [average]="--mode average --block-samples 4096")
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
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

# The rack sweep (docs/rack.md): on the virtual rack of jobs/rack/ (as root), 1 and 2 servers, each on a node of its
# own, W = 1..6 workers one per node, sequential and parallel I/O, every link shaped to 1 Gbit/s; the rack sweep's
# defaults (mlp:1024,1024, batch 16, one epoch of a 1600-sample 1x28x28 synthetic set), whose 7.45 MB gradient makes
# the links, not this machine's cores, the bottleneck. REPETITIONS rounds, each in an order shuffled per round,
# each configuration a jobs/rack/sweep.sh call of its own (the rack up and down around it); files
# wW-sS-IO-rR.json and one manifest (scheduler rack, the link) in raw/rack.
run_rack() {
  local data="$data_dir/rack-synth-1x28x28.h5" folder="$stage/rack" entries=() started job scratch
  [[ $(id -u) -eq 0 ]] || { echo "measure: error: the rack step needs root (network namespaces and tc)" >&2; exit 2; }
  [[ -r "$data" ]] || "$psbench" data synth --samples 1600 --shape 1,28,28 --classes 10 --seed 1 --out "$data"
  mkdir -p "$folder"
  started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for ((repetition = 1; repetition <= repetitions; repetition++)); do
    for job in $(shuffled "$((400 + repetition))" 1:sequential 2:sequential 1:parallel 2:parallel); do
      local servers io code=0 workers
      IFS=: read -r servers io <<<"$job"
      scratch="$stage/rack-r$repetition-s$servers-$io"
      echo "measure: rack S=$servers $io #$repetition"
      RATE=1gbit SERVERS="$servers" WORKERS="1 2 3 4 5 6" IO="$io" DATA="$data" OUTDIR="$scratch" \
        PSBENCH_BIN="$psbench" NAME="ms$(($$ % 10000))" "$root/jobs/rack/sweep.sh" || code=$?
      for workers in 1 2 3 4 5 6; do
        local file="w$workers-s$servers-$io-r$repetition.json" run_code="$code"
        if [[ -e "$scratch/w$workers-s$servers-$io.json" ]]; then
          mv "$scratch/w$workers-s$servers-$io.json" "$folder/$file"
          run_code=0
        else
          ((run_code != 0)) || run_code=1
        fi
        entries+=("{\"file\": \"$file\", \"command\": \"RATE=1gbit SERVERS=$servers WORKERS='1 2 3 4 5 6' IO=$io jobs/rack/sweep.sh\", \"workers\": $workers, \"servers\": $servers, \"io\": \"$io\", \"repetition\": $repetition, \"exit_code\": $run_code}")
      done
      rm -rf "$scratch"
    done
  done
  local nodes
  nodes="$(python3 -c 'import json, sys; print(json.dumps(["n%d" % i for i in range(1, 9)]))')"
  SCHEDULER=rack NODES="$nodes" LINK='{"rate": "1gbit", "delay": "0ms"}' write_manifest "$folder" 1 "$started" \
    "${entries[@]}"
}

# calib.json from the bench files and the calibration runs, then the report over the sweep.
# (Paths relative to the repository root, so that report.md quotes a command that works in any checkout.)
run_report() {
  cd "$root"
  "$psbench" model calibrate --bench docs/results/raw/bench/*.json --runs docs/results/raw/calibration/*/*.json \
    --out docs/results/calib.json
  local rack=()
  if compgen -G "docs/results/raw/rack/w*.json" >/dev/null; then rack=(--rack docs/results/raw/rack); fi
  "$psbench" report docs/results/raw/sweep --bench docs/results/raw/bench --calib docs/results/calib.json \
    --learners docs/results/raw/learners --communication docs/results/raw/communication "${rack[@]}" --out docs/results
}

case "${1:-all}" in
  sweep) make_datasets; begin_measurement
         run_sweep fashion-mnist "$data_dir/fashion-mnist.h5" mlp:512,256
         run_sweep synth-3x32x32 "$data_dir/synth-3x32x32.h5" mlp:128
         end_measurement "the sweep"; stamp "$stage"/sweep/*/manifest.json
         publish sweep/fashion-mnist sweep/synth-3x32x32 calibration/fashion-mnist calibration/synth-3x32x32 ;;
  rack) begin_measurement; run_rack; end_measurement "the rack sweep"; stamp "$stage/rack/manifest.json"
        publish rack ;;
  bench) begin_measurement; run_bench; end_measurement "the benchmarks"; stamp "$stage/bench.manifest.json"
         publish bench bench.manifest.json ;;
  calibration) make_datasets; begin_measurement
               run_calibration fashion-mnist "$data_dir/fashion-mnist.h5" mlp:512,256
               run_calibration synth-3x32x32 "$data_dir/synth-3x32x32.h5" mlp:128
               end_measurement "the calibration runs"; publish calibration/fashion-mnist calibration/synth-3x32x32 ;;
  learners) make_datasets; begin_measurement; run_learners "$data_dir/fashion-mnist.h5"
            end_measurement "the learner runs"; stamp "$stage/learners/manifest.json"; publish learners ;;
  clock) make_datasets; begin_measurement; run_clock "$data_dir/fashion-mnist.h5"
         PSBENCH_ALLOW_LOAD=1 end_measurement "the clock check (not published)"; stamp "$root/results/clock/manifest.json" ;;
  communication) make_datasets; begin_measurement; run_communication "$data_dir/fashion-mnist.h5"
                 end_measurement "the communication runs"; stamp "$stage/communication/manifest.json"
                 publish communication ;;
  report) run_report ;;
  all) "$0" sweep; "$0" rack; "$0" learners; "$0" communication; "$0" bench; "$0" report ;;
  *) echo "measure: error: unknown step '$1' (sweep, rack, learners, communication, clock, bench, calibration, report or all)" >&2
     exit 2 ;;
esac
