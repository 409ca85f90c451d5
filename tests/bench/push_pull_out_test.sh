#!/usr/bin/env bash
# bench_push_pull with 1 server and 3 workers writes one well-formed --benchmark_out file: only the first worker
# writes it (Google Benchmark opens the file in every process given the flag, and the other workers once made it
# unreadable). It asserts nothing about speed.
# Usage: push_pull_out_test.sh BENCH_PUSH_PULL
set -euo pipefail
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun -np 4 "$1" --max-bytes=4096 --benchmark_min_time=0.001 --benchmark_filter='BM_PushPull/path:0' \
  --benchmark_out_format=json --benchmark_out="$out" >/dev/null
python3 - "$out" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
names = [run["name"] for run in document["benchmarks"]]
assert names, "no runs in the file"
assert len(names) == len(set(names)), f"runs reported more than once: {names}"
assert "psbench_cpu" in document["context"], document["context"]
print(f"{len(names)} runs, one writer")
PY
