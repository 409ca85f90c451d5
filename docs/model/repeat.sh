#!/bin/bash
# Two more 1 server + 1 worker runs of each set, for a calibration that is not one run's luck.
set -u
P=${PSBENCH:-/work/wt-model/build/sweep/psbench-sweep}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Waits back off at once, as in every oversubscribed run of the sweep (W + S > 2 cores), not spin 10 ms.
export PSBENCH_SPIN_US=0
mkdir -p calib-runs
for rep in 1 2; do
  timeout 600 mpirun -np 2 $P train --data fm.h5 --model mlp:512,256 --batch 64 --epochs 1 --servers 1 --io sequential --out calib-runs/fm-w1-s1-sequential-r$rep.json --quiet
  timeout 600 mpirun -np 2 $P train --data synth.h5 --model mlp:64 --batch 64 --epochs 1 --servers 1 --io sequential --cold-cache --out calib-runs/synth-w1-s1-sequential-r$rep.json --quiet
  echo rep $rep $(cut -d' ' -f1 /proc/loadavg)
done
