#!/usr/bin/env bash
# Measures docs/reliability.md's table: runs each bad input and fault against the build's psbench and
# prints one markdown row per case (what the user sees, exit code, seconds from start to exit).
# Usage: tests/reliability/measure.sh [build folder, default build/default]  (needs 3 ranks' worth of mpirun)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build/default}"
psbench="$build/src/cli/psbench"
work="$(mktemp -d /tmp/psbench-reliability.XXXXXX)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$psbench" data convert --limit 600 --out "$work/f600.h5" >/dev/null
"$psbench" data convert --limit 300 --out "$work/f300.h5" >/dev/null
mkdir -p "$work/folder"
printf 'not hdf5\n' >"$work/text.h5"
run="mpirun -np 3 --oversubscribe $psbench train --model mlp:32 --batch 20 --epochs 4 --momentum 0.5 --quiet"
ok="--data $work/f600.h5 --out $work/r.json"

row() {  # row NAME COMMAND...: runs it, prints | NAME | line | exit | seconds |
  local name="$1"
  shift
  local start end code line
  start=$(date +%s.%N)
  "$@" >"$work/out.txt" 2>&1
  code=$?
  end=$(date +%s.%N)
  line=$( (grep -m1 "psbench: injected" "$work/out.txt"; grep -m1 "psbench: error" "$work/out.txt"
    grep -m1 "^resumed from" "$work/out.txt") | paste -sd ';' |
    cut -c1-260)
  if ((code == 137)); then
    line="$line; mpirun: $(grep -m1 'Process name' "$work/out.txt" | xargs), $(grep -m1 'Exit code' "$work/out.txt" | xargs)"
  fi
  printf '| %s | `%s` | %s | %.1f |\n' "$name" "${line//|/\\|}" "$code" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
}

echo "| case | what the user sees (first line) | exit | seconds |"
echo "|---|---|---|---|"
row "unknown flag" $run $ok --bogus-flag 3
row "missing --data" $run --out "$work/r.json"
row "--data missing file" $run --data "$work/none.h5" --out "$work/r.json"
row "--data not HDF5" $run --data "$work/text.h5" --out "$work/r.json"
row "--out is a folder" $run --data "$work/f600.h5" --out "$work/folder"
row "--out under a file" $run --data "$work/f600.h5" --out "$work/text.h5/r.json"
row "--out where no folder can be made" $run --data "$work/f600.h5" --out /proc/psbench/r.json
row "--trace is a folder" $run $ok --trace "$work/folder"
row "--batch given twice" $run $ok --batch 0
row "--servers 3 of 3 ranks" $run $ok --servers 3
row "--inject-fault unknown kind" $run $ok --inject-fault explode:rank=1
row "--inject-fault rank outside the job" $run $ok --inject-fault crash:rank=7,step=1
row "--straggler on a server" $run $ok --straggler rank=0,factor=2
row "--stall-timeout -1" $run $ok --stall-timeout -1
row "crash: worker rank 2 at step 5" $run $ok --inject-fault crash:rank=2,step=5
row "crash: server rank 0 at update 10" $run $ok --inject-fault crash:rank=0,step=10
row "stall: worker rank 2 (120 s), --stall-timeout 2" $run $ok --inject-fault stall:rank=2,seconds=120,step=3 --stall-timeout 2
row "stall: server rank 0 (120 s), --stall-timeout 2" $run $ok --inject-fault stall:rank=0,seconds=120,step=5 --stall-timeout 2
row "stall: worker, --intra-node messages" $run $ok --inject-fault stall:rank=1,seconds=120,step=2 --stall-timeout 2 --intra-node messages
row "stall 5 s, --stall-timeout 0 (off): finishes" $run $ok --inject-fault stall:rank=2,seconds=5,step=3 --stall-timeout 0
# Checkpoints: bad paths, other runs' checkpoints, and a crash resumed.
ck="$work/ck.h5"
row "--checkpoint is a folder" $run $ok --checkpoint "$work/folder"
row "--checkpoint in a folder that cannot be written" $run $ok --checkpoint /sys/ck.h5
row "--checkpoint where no folder can be made" $run $ok --checkpoint /proc/psbench/ck.h5
row "--checkpoint-every without --checkpoint" $run $ok --checkpoint-every 20
row "--checkpoint-every 0" $run $ok --checkpoint "$ck" --checkpoint-every 0
row "--resume missing file" $run $ok --resume "$work/none.h5"
row "--resume is a folder" $run $ok --resume "$work/folder"
row "--resume not HDF5" $run $ok --resume "$work/text.h5"
row "--resume HDF5 but no checkpoint (the data file)" $run $ok --resume "$work/f600.h5"
row "crash: worker rank 2 at step 30, --checkpoint-every 20" $run $ok --checkpoint "$ck" --checkpoint-every 20 \
  --inject-fault crash:rank=2,step=30
bare="mpirun -np 3 --oversubscribe $psbench train --batch 20 --momentum 0.5 --quiet $ok"  # for another model or --epochs
row "--resume that checkpoint with another --model" $bare --model mlp:16 --epochs 4 --resume "$ck"
row "--resume it with another --data shape" $run --data "$work/f300.h5" --out "$work/r.json" --resume "$ck"
row "--resume it with another worker count (2 servers + 1 worker)" $run $ok --servers 2 --resume "$ck"
row "--resume it with --epochs 1 (nothing left)" $bare --model mlp:32 --epochs 1 --resume "$ck"
loud="train --model mlp:32 --batch 20 --epochs 4 --momentum 0.5 $ok --resume $ck"  # prints the resume line
row "--resume it on 2 servers + 2 workers (re-sharded): finishes" mpirun -np 4 --oversubscribe "$psbench" $loud --servers 2
row "--resume it as it was written: finishes" mpirun -np 3 --oversubscribe "$psbench" $loud
rm -rf "$work"
