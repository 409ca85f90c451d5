#!/usr/bin/env bash
# bench_kernel_copy runs every shift and size it documents (docs/benchmarks.md), each copy complete (no
# run skipped with an error, a rate above zero). It asserts nothing about speed: that is the benchmark's job.
# Usage: kernel_copy_test.sh BENCH_KERNEL_COPY
set -euo pipefail
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$1" --benchmark_min_time=0.001 --benchmark_out_format=json --benchmark_out="$out" >/dev/null
python3 - "$out" <<'PY'
import json, sys
runs = {run["name"]: run for run in json.load(open(sys.argv[1]))["benchmarks"]}
expected = {f"BM_KernelCopy/shift:{shift}/{size}" for shift in range(0, 64, 2) for size in (262144, 1048576, 2143272)}
assert set(runs) == expected, f"runs {sorted(set(runs) ^ expected)} missing or unexpected"
for name, run in runs.items():
    assert not run.get("error_occurred"), f"{name}: {run.get('error_message')}"
    assert run["bytes_per_second"] > 0, f"{name}: no bytes moved"
print(f"{len(runs)} runs, every copy complete")
PY
