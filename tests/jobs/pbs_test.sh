#!/usr/bin/env bash
# The PBS scripts run as PBS runs them: bash with only PBS's variables (PBS_NODEFILE, PBS_O_WORKDIR,
# PBS_JOBID, PBS_NP, PBS_JOBNAME) and those qsub -v would pass, from the home folder.
# - Two train.pbs jobs start together with no DATA: one converts Fashion-MNIST, the other waits and
#   reuses it; psbench comes from PATH.
# - sweep.pbs on a tiny synthetic set: default worker counts (1 and 2 on 3 slots), both I/O modes.
# - calibrate.pbs on the same set in quick mode: its two runs, and a calib.json that `psbench model validate`
#   and `predict` accept.
set -euo pipefail
root="$1"
psbench="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
host="$(hostname)"
printf '%s\n' "$host" "$host" "$host" >"$work/nodefile"
commit="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
launch="$("$root/tests/jobs/expected_launch.sh" "$psbench")"

# Runs jobs/pbs/$1 as job $2 with the settings given after them.
pbs_job() {
  local script="$1" job="$2"
  shift 2
  (cd "$work" && env -i HOME="$work" PATH="$(dirname "$psbench"):/usr/bin:/bin" PBS_NODEFILE="$work/nodefile" \
    PBS_O_WORKDIR="$root" PBS_JOBID="$job" PBS_NP=3 PBS_JOBNAME="psbench-${script%.pbs}" RESULTS="$work/results" \
    "$@" timeout 120 bash "$root/jobs/pbs/$script") >"$work/$job.log" 2>&1
}

# Fails with the job's log unless its results folder holds what `check_results.py` is told.
check() {
  local job="$1"
  shift
  python3 "$root/tests/jobs/check_results.py" "$work/results/pbs-$job" --scheduler pbs --job-id "$job" \
    --nodes "$host" --ranks-per-node 3 --git-commit "$commit" --launch "$launch" "$@" ||
    { cat "$work/$job.log"; exit 1; }
}

pbs_job train.pbs 101.pbs DATA_DIR="$work/data" MODEL=mlp:16 BATCH=256 EPOCHS=1 &
first=$!
pbs_job train.pbs 102.pbs DATA_DIR="$work/data" MODEL=mlp:16 BATCH=256 EPOCHS=1 &
second=$!
wait "$first" || { echo "train.pbs 101 failed:"; cat "$work/101.pbs.log"; exit 1; }
wait "$second" || { echo "train.pbs 102 failed:"; cat "$work/102.pbs.log"; exit 1; }
for job in 101.pbs 102.pbs; do
  check "$job" --run 2:1:sequential
  grep -q "psbench: $psbench (from PATH)" "$work/$job.log" || { echo "$job: no 'from PATH' line"; cat "$work/$job.log"; exit 1; }
  grep -q "data: $work/data/fashion-mnist.h5 (Fashion-MNIST)" "$work/$job.log" || { echo "$job: no data line"; exit 1; }
done
conversions="$(cat "$work/101.pbs.log" "$work/102.pbs.log" | grep -c "converting Fashion-MNIST")" || true
[[ "$conversions" == 1 ]] || { echo "Fashion-MNIST was converted $conversions times, not once"; exit 1; }
python3 - "$work/results/pbs-101.pbs/w2-s1-sequential.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["train"]["samples"] == 60000, run["train"]["samples"]   # the whole Fashion-MNIST training split
PY

"$psbench" data synth --samples 1200 --shape 1,8,8 --classes 4 --out "$work/tiny.h5" >/dev/null
pbs_job sweep.pbs 103.pbs DATA="$work/tiny.h5" MODEL=mlp:16 BATCH=32 ||
  { echo "sweep.pbs failed:"; cat "$work/103.pbs.log"; exit 1; }
check 103.pbs --run 1:1:sequential --run 2:1:sequential --run 1:1:parallel --run 2:1:parallel
grep -q -- "--cold-cache" "$work/results/pbs-103.pbs/manifest.json" || { echo "a sweep runs with --cold-cache"; exit 1; }

pbs_job calibrate.pbs 104.pbs DATA="$work/tiny.h5" MODEL=mlp:16 BATCH=32 QUICK=1 ||
  { echo "calibrate.pbs failed:"; cat "$work/104.pbs.log"; exit 1; }
check 104.pbs --run 1:1:sequential:1 --run 1:1:parallel:1
python3 "$root/tests/jobs/check_calibration.py" "$work/results/pbs-104.pbs" "$psbench" --samples 1200 --input 1,8,8 \
  --classes 4 --model mlp:16 --batch 32 || { cat "$work/104.pbs.log"; exit 1; }
echo "ok"
