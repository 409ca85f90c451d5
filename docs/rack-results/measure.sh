#!/usr/bin/env bash
# The rack sweeps of docs/rack.md ("The model against the rack"), three times each, with the load average
# logged before every sweep: 1 server at 1 Gbit/s and at 10 Gbit/s (workers at 1 Gbit/s), W = 1..6, and
# 2 servers at 4 workers. Usage (as root, from the repository root): docs/rack-results/measure.sh OUTDIR
# SETS (default "s1-1g s1-10g s2-1g") picks a subset.
set -euo pipefail
out="${1:?usage: measure.sh OUTDIR}"
sweep="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/jobs/rack/sweep.sh"
mkdir -p "$out"
log="$out/sweep.log"
for r in 1 2 3; do
  for set in ${SETS:-s1-1g s1-10g s2-1g}; do
    case "$set" in
      s1-1g) env=(SERVERS=1 SERVER_RATE=1gbit WORKERS="1 2 3 4 5 6") ;;
      s1-10g) env=(SERVERS=1 SERVER_RATE=10gbit WORKERS="1 2 3 4 5 6") ;;
      s2-1g) env=(SERVERS=2 SERVER_RATE=1gbit WORKERS="4") ;;
    esac
    echo "$(date -u +%FT%TZ) r$r $set loadavg $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
    env RATE=1gbit "${env[@]}" OUTDIR="$out/r$r/$set" NAME=meas "$sweep" >>"$log" 2>&1 ||
      echo "$(date -u +%FT%TZ) r$r $set FAILED" | tee -a "$log"
  done
done
echo "$(date -u +%FT%TZ) done loadavg $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
