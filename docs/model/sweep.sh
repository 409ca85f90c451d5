#!/bin/bash
# The validation sweep of docs/model.md: W = 1..4, S = 1, 2, both I/O modes, Fashion-MNIST and a synthetic set.
set -u
P=${PSBENCH:-/work/wt-model/build/default/src/cli/psbench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p runs
for set in fm synth; do
  if [ $set = fm ]; then data=fm.h5; model=mlp:512,256; extra=""; else data=synth.h5; model=mlp:64; extra=--cold-cache; fi
  for io in sequential parallel; do
    for s in 1 2; do
      for w in 1 2 3 4; do
        out=runs/$set-w$w-s$s-$io.json
        [ -f $out ] && continue
        start=$(date +%s.%N)
        timeout 600 mpirun -np $((w + s)) --oversubscribe $P train --data $data --model $model --batch 64 --epochs 1 \
          --servers $s --io $io $extra --out $out --quiet
        echo "$out rc=$? $(echo "$(date +%s.%N) - $start" | bc) s $(cut -d' ' -f1 /proc/loadavg)"
      done
    done
  done
done
