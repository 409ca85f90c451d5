#!/usr/bin/env bash
# jobs/sweep.sh on a tiny synthetic set: one results file per (I/O mode, worker count), each naming the
# run's I/O mode and worker count in its config.
set -euo pipefail
root="$1"
psbench="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$psbench" data synth --samples 1200 --shape 1,8,8 --classes 4 --out "$work/tiny.h5" >/dev/null
PSBENCH="$psbench" DATA="$work/tiny.h5" WORKERS="1 2" MODEL=mlp:16 BATCH=32 OUTDIR="$work/out" \
  "$root/jobs/sweep.sh" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
for io in sequential parallel; do
  for workers in 1 2; do
    file="$work/out/async_${io}_s1_w${workers}.json"
    [[ -s "$file" ]] || { echo "missing $file"; cat "$work/log"; exit 1; }
    python3 - "$file" "$io" "$workers" <<'PY'
import json, sys
path, io, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
run = json.load(open(path))
assert run["config"]["io"] == io, run["config"]
assert run["env"]["ranks"] == workers + 1, run["env"]
assert run["train"]["steps"] > 0, run["train"]
PY
  done
done
echo "ok"
