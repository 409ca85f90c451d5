#!/usr/bin/env bash
# Runs psbench train once per worker count and I/O mode, writing one results file per run, so that the
# performance model can be fitted to how start-up and compute time grow with the workers (the study's sweep).
#
# Usage: jobs/sweep.sh [extra psbench train flags...]
# Environment (defaults in brackets):
#   DATA      HDF5 dataset [data/fashion-mnist.h5]      PSBENCH  the binary [build/release or build/default]
#   WORKERS   worker counts ["1 2"]                      SERVERS  parameter servers [1]
#   IO_MODES  "sequential parallel" or one of them ["sequential parallel"]
#   MODEL [mlp:512,256]  EPOCHS [1]  BATCH [64]  MODE [async]  OUTDIR [results/sweep-<date>]
#   HOSTFILE  an Open MPI hostfile (jobs/make_hostfile.sh writes one that isolates the servers); none: this node
#   LAUNCHER  the launcher [mpirun]; mpirun's options go in MPIRUN_FLAGS
#   COLD_CACHE  1 to pass --cold-cache [1]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
psbench="${PSBENCH:-}"
if [[ -z "$psbench" ]]; then
  for preset in release default; do
    if [[ -x "$root/build/$preset/src/cli/psbench" ]]; then
      psbench="$root/build/$preset/src/cli/psbench"
      break
    fi
  done
fi
if [[ -z "$psbench" || ! -x "$psbench" ]]; then
  echo "sweep: error: no psbench binary; run jobs/setup.sh or set PSBENCH" >&2
  exit 2
fi
data="${DATA:-$root/data/fashion-mnist.h5}"
if [[ ! -r "$data" ]]; then
  echo "sweep: error: dataset '$data' is not readable; make it with 'psbench data convert' or set DATA" >&2
  exit 2
fi
servers="${SERVERS:-1}"
mode="${MODE:-async}"
outdir="${OUTDIR:-$root/results/sweep-$(date +%Y%m%d-%H%M%S)}"
launcher="${LAUNCHER:-mpirun}"
read -r -a mpirun_flags <<<"${MPIRUN_FLAGS:-}"
cold=()
[[ "${COLD_CACHE:-1}" == 1 ]] && cold=(--cold-cache)
[[ $(id -u) -eq 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$outdir"

for io in ${IO_MODES:-sequential parallel}; do
  for workers in ${WORKERS:-1 2}; do
    [[ "$mode" == sync ]] && ranks="$workers" || ranks=$((workers + servers))
    launch=("$launcher" -np "$ranks" "${mpirun_flags[@]}")
    if [[ -n "${HOSTFILE:-}" ]]; then
      launch+=(--hostfile "$HOSTFILE")
    elif ((ranks > $(nproc))); then
      launch+=(--oversubscribe)
    fi
    server_flags=()
    [[ "$mode" == async ]] && server_flags=(--servers "$servers")
    out="$outdir/${mode}_${io}_s${servers}_w${workers}.json"
    echo "sweep: $io I/O, $workers worker(s) -> $out"
    "${launch[@]}" "$psbench" train --data "$data" --model "${MODEL:-mlp:512,256}" --mode "$mode" \
      "${server_flags[@]}" --io "$io" --epochs "${EPOCHS:-1}" --batch "${BATCH:-64}" "${cold[@]}" \
      --quiet --out "$out" "$@"
  done
done
echo "sweep: results in $outdir"
