#!/usr/bin/env bash
# jobs/mpirun/calibrate.sh on this machine in quick mode with a tiny synthetic set: the two calibration runs
# (1 server + 1 worker, each I/O mode) and the manifest that names them, the benchmark files, and a calib.json
# that `psbench model validate` and `psbench model predict` accept (check_calibration.py).
set -euo pipefail
root="$1"
psbench="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$psbench" data synth --samples 1200 --shape 1,8,8 --classes 4 --out "$work/tiny.h5" >/dev/null
PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" MODEL=mlp:16 BATCH=32 QUICK=1 JOB_ID=test-1 RESULTS="$work/results" \
  timeout 120 "$root/jobs/mpirun/calibrate.sh" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
folder="$work/results/mpirun-test-1"
[[ "$(tail -n 1 "$work/log")" == "$folder" ]] || { echo "the job's last line is not its folder:"; cat "$work/log"; exit 1; }
python3 "$root/tests/jobs/check_results.py" "$folder" --scheduler mpirun --job-id test-1 --nodes "$(hostname)" \
  --ranks-per-node 2 --git-commit "$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)" \
  --launch "$("$root/tests/jobs/expected_launch.sh" "$psbench")" --run 1:1:sequential:1 --run 1:1:parallel:1 || { cat "$work/log"; exit 1; }
python3 "$root/tests/jobs/check_calibration.py" "$folder" "$psbench" --samples 1200 --input 1,8,8 --classes 4 \
  --model mlp:16 --batch 32 || { cat "$work/log"; exit 1; }
echo "ok"
