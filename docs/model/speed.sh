#!/usr/bin/env bash
# Wall and CPU time of `psbench model predict` (the Model speed rows of docs/measured.md, explained in
# docs/model.md), with the 1-minute load average before each command: on a shared machine the wall time reads
# the load as much as the model. Usage: docs/model/speed.sh PSBENCH CALIB [REPEATS]
B="${1:?usage: speed.sh PSBENCH CALIB [REPEATS]}"
C="${2:?usage: speed.sh PSBENCH CALIB [REPEATS]}"
run() {
  local load
  load="$(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "%e s wall, %U s user + %S s sys, load $load: $*" "$B" model predict --calib "$C" "$@" >/dev/null
}
for _ in $(seq "${3:-2}"); do
  run --workers 100000 --kind ideal --platform bluewaters --ranks-per-node 32
  run --workers 100000 --kind revised --platform bluewaters --ranks-per-node 32
  run --workers 100000 --kind mva --platform bluewaters --ranks-per-node 32
  run --workers 2^0-2^17 --kind mva --platform bluewaters --ranks-per-node 32
  run --workers 100000 --kind mva
  run --workers 4096 --kind sim --platform bluewaters --ranks-per-node 32
  run --workers 4096 --samples 2621440 --kind sim --platform bluewaters --ranks-per-node 32 --io parallel
  run --workers 4096 --samples 2621440 --kind sim --platform bluewaters --ranks-per-node 32 --io sequential
  run --workers 4096 --samples 2621440 --kind sim --io sequential
  run --workers 4096 --samples 2621440 --kind sim --io parallel
done
