#!/usr/bin/env bash
# jobs/mpirun/sweep.sh on this machine with a tiny synthetic set: one results file per (I/O mode, worker
# count) and a manifest naming each run, its command and its exit code.
set -euo pipefail
root="$1"
psbench="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$psbench" data synth --samples 1200 --shape 1,8,8 --classes 4 --out "$work/tiny.h5" >/dev/null
PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" WORKERS="1 2" MODEL=mlp:16 BATCH=32 JOB_ID=test-1 \
  RESULTS="$work/results" timeout 120 "$root/jobs/mpirun/sweep.sh" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
python3 "$root/tests/jobs/check_results.py" "$work/results/mpirun-test-1" --scheduler mpirun --job-id test-1 \
  --nodes "$(hostname)" --ranks-per-node 3 --git-commit "$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)" \
  --launch "$("$root/tests/jobs/expected_launch.sh" "$psbench")" \
  --run 1:1:sequential --run 2:1:sequential --run 1:1:parallel --run 2:1:parallel || { cat "$work/log"; exit 1; }
echo "ok"
