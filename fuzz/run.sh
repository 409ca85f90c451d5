#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang, ASan+UBSan) and runs each for SECONDS (default 20) on a
# corpus that starts from fuzz/seeds/TARGET. A crash, leak, sanitizer report or hang (over 10 s on one
# input) stops it with a non-zero exit; the input that did it is kept in build/fuzz/findings/.
# allocator_may_return_null=1: a huge malloc returns NULL as it would in production (HDF5 reads sizes from
# a corrupt file's superblock and checks malloc's result), instead of ASan stopping at the request.
# fast_unwind_on_malloc=0: full allocation stacks (libhdf5 has no frame pointers), so that the H5Fopen
# suppression in fuzz/lsan.supp can match. quarantine_size_mb=64: ASan keeps less freed memory from reuse
# (its use-after-free window), so HDF5's huge transient buffers do not add up to a false out-of-memory over a
# 10-minute run. Each target's whole output is kept in build/fuzz/findings/TARGET.log.
# Usage: fuzz/run.sh [SECONDS per target] [target ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(fuzz_idx_parser fuzz_hdf5_layout)
  if [[ -d "$root/src/results" ]]; then targets+=(fuzz_results_reader); fi
fi
cd "$root"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j 2 --target "${targets[@]}"
mkdir -p build/fuzz/findings
for target in "${targets[@]}"; do
  corpus="build/fuzz/corpus/$target"
  mkdir -p "$corpus"
  cp -n "fuzz/seeds/$target"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz: $target for ${seconds} s"
  log="build/fuzz/findings/$target.log"
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:fast_unwind_on_malloc=0:quarantine_size_mb=64" \
    LSAN_OPTIONS="suppressions=$root/fuzz/lsan.supp:print_suppressions=0" UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    "build/fuzz/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/findings/$target-" "$corpus" >"$log" 2>&1 || true
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==|SUMMARY|INFO: seed corpus)" "$log" |
    grep -v "failed to allocate" || true
  if ls build/fuzz/findings/"$target"-* >/dev/null 2>&1 || grep -q "^SUMMARY" "$log"; then
    echo "fuzz: $target failed: build/fuzz/findings/$target-* (the whole output: $log)" >&2
    exit 1
  fi
done
echo "fuzz: no findings"
