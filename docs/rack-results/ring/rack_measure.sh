#!/usr/bin/env bash
# rack_measure.sh PSBENCH LABEL WORKERS REPS [OUT]: 1 server + W workers, mlp:1024,1024 batch 32 (rack.training's
# run), REPS times, with the server link's rx/tx bytes sampled every 1 ms (netsample.py) into OUT/LABEL-wW/netI.txt;
# then overlap.py and phases.py read them (docs/rack.md, "Push and pull on one link"). As root.
set -euo pipefail
psbench="$1"; label="$2"; W="$3"; reps="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
base="${5:-/tmp/ringm}"
rack="$root/jobs/rack/rack.sh"
name=rm$(($$ % 1000))
out=$base/$label-w$W
mkdir -p "$out"
trap '"$rack" down --name "$name" >/dev/null 2>&1 || true' EXIT
[[ -f $base/synth.h5 ]] || "$psbench" data synth --samples 640 --shape 1,28,28 --classes 10 --out $base/synth.h5 >/dev/null
"$rack" up $((W + 1)) --rate 1gbit --name "$name" >/dev/null
for i in $(seq 1 "$reps"); do
  ip netns exec psr-$name-n1 python3 "$here/netsample.py" psr-$name-if "$out/net$i.txt" 0.001 &
  sp=$!
  echo "$(date -u +%T) $label W=$W rep $i loadavg $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/log"
  PSBENCH_SPIN_US=0 "$rack" mpirun --name "$name" -np $((W + 1)) -x PSBENCH_SPIN_US "$psbench" train --data $base/synth.h5 \
    --model mlp:1024,1024 --servers 1 --intra-node messages --batch 32 --epochs 1 --momentum 0 --quiet --out "$out/run$i.json"
  kill -TERM $sp; wait $sp || true
  python3 - "$out/run$i.json" <<'PY' | tee -a "$out/log"
import json, sys
run = json.load(open(sys.argv[1]))
s = [r for r in run["per_rank"] if r["role"] == "server"][0]["server"]
T = run["model"]["parameter_bytes"] * 8 / 1e9
print(f"service/update {s['service_s']/s['updates']*1e3:.1f} ms = {s['service_s']/s['updates']/T:.3f} T (T {T*1e3:.1f} ms), updates {s['updates']}, util {run['server'].get('utilization')}")
PY
done
