#!/usr/bin/env bash
# jobs/make_hostfile.sh: servers alone on the first node, workers on the rest; one node holds both.
set -euo pipefail
root="$1"
expected=$'n1 slots=2\nn2 slots=16\nn3 slots=16'
actual="$("$root/jobs/make_hostfile.sh" 2 16 n1 n2 n3)"
[[ "$actual" == "$expected" ]] || { echo "three nodes: got '$actual'"; exit 1; }
actual="$("$root/jobs/make_hostfile.sh" 1 3 solo)"
[[ "$actual" == "solo slots=4" ]] || { echo "one node: got '$actual'"; exit 1; }
if "$root/jobs/make_hostfile.sh" 1 2>/dev/null; then
  echo "missing arguments were accepted"
  exit 1
fi
echo "ok"
