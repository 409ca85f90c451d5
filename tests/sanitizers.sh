#!/usr/bin/env bash
# CI's sanitizer and fuzzing step (.ci/run runs it after the README's test command): builds the asan preset
# (AddressSanitizer + UndefinedBehaviorSanitizer, LeakSanitizer on, Open MPI's leaks suppressed by
# cmake/sanitizers/lsan.supp) and runs the unit and MPI tests under it, then builds the libFuzzer targets
# (preset fuzz) and runs each for SECONDS from its seeds (fuzz/run.sh). Any report fails it.
# Usage: tests/sanitizers.sh [SECONDS per fuzz target, default 20]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds="${1:-20}"
jobs="$(nproc)"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
# Test preset sanitizers (CMakePresets.json; a preset's label filter wins over -L/-LE on the command line) leaves
# to the default preset the 16-rank load tests (under ASan they oversubscribe 2 cores eightfold) and the nn
# tests' second run with ONEDNN_MAX_CPU_ISA=AVX2 (the same psbench code; only oneDNN's kernels differ).
ctest --preset sanitizers -j "$jobs"
fuzz/run.sh "$seconds"
