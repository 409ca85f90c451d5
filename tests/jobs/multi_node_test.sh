#!/usr/bin/env bash
# The servers get a node to themselves: sweep.pbs on a PBS node file of three "nodes" (n1 n2 n3, 2 MPI
# processes each), where mpirun reaches each node through an rsh agent that starts its daemon in a
# UTS namespace named after it. Checks each run's ranks per host: the server alone on n1, workers
# filling n2 then n3. Exit 77 (skipped) where this machine cannot make UTS namespaces.
set -euo pipefail
root="$1"
psbench="$2"
agent="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/uts_node_agent.sh"
unshare --uts true 2>/dev/null || { echo "skipped: unshare --uts fails here (no CAP_SYS_ADMIN)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '%s\n' n1 n1 n2 n2 n3 n3 >"$work/nodefile"
# The launcher reaches each "node" through the agent: Open MPI's rsh agent, or Hydra's rsh launcher.
launcher_agent="--mca plm_rsh_agent $agent"
[[ "$("$root/tests/jobs/expected_launch.sh" "$psbench")" == *" -f" ]] && launcher_agent="-launcher rsh -launcher-exec $agent"
"$psbench" data synth --samples 1200 --shape 1,8,8 --classes 4 --out "$work/tiny.h5" >/dev/null
(cd "$work" && env -i HOME="$work" PATH=/usr/bin:/bin PBS_NODEFILE="$work/nodefile" PBS_O_WORKDIR="$root" \
  PBS_JOBID=200.pbs PBS_NP=6 PBS_JOBNAME=psbench-sweep RESULTS="$work/results" PSBENCH_BIN="$psbench" \
  DATA="$work/tiny.h5" MODEL=mlp:16 BATCH=32 WORKERS="1 4" IO_MODES=parallel MPIRUN_FLAGS="$launcher_agent" \
  timeout 120 bash "$root/jobs/pbs/sweep.pbs") >"$work/log" 2>&1 || { echo "sweep.pbs failed:"; cat "$work/log"; exit 1; }
python3 "$root/tests/jobs/check_results.py" "$work/results/pbs-200.pbs" --scheduler pbs --job-id 200.pbs \
  --nodes n1 n2 n3 --ranks-per-node 2 --git-commit "$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)" \
  --launch "$("$root/tests/jobs/expected_launch.sh" "$psbench")" --run 1:1:parallel --run 4:1:parallel --placed ||
  { cat "$work/log"; exit 1; }
echo "ok"
