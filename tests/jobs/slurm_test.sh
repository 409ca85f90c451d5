#!/usr/bin/env bash
# A real one-node Slurm on localhost: starts munged, slurmctld and slurmd with a generated slurm.conf in
# a temporary folder, on ports of their own, declaring 10 CPUs (the machine may have fewer: the four jobs
# share its cores), submits with `sbatch --wait`, at once: train.sbatch with no options (mpirun),
# train.sbatch --ntasks=4 launched by srun (PMIx for Open MPI, PMI-2 for MPICH), sweep.sbatch --nodes=1 --ntasks-per-node=3 over two
# worker counts, and calibrate.sbatch with no options in quick mode; checks the results files and manifests
# and that `psbench model validate` and `predict` accept the calibration, and stops exactly the daemons it
# started, also when a check fails.
# Exit 77 (skipped) only where the daemons cannot run: not root, or Slurm or munge not installed.
set -euo pipefail
root="$1"
psbench="$2"

[[ $(id -u) -eq 0 ]] || { echo "skipped: slurmd and munged run as root, and this test is not root"; exit 77; }
for tool in munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (jobs/setup.sh installs slurm-wlm munge)"; exit 77; }
done

work="$(mktemp -d /tmp/psbench-slurm.XXXXXX)"
chmod 755 "$work" # munged wants every folder above its socket searchable by all
daemons=()
jobs_submitted=()
source "$(dirname "${BASH_SOURCE[0]}")/slurm_cluster.sh"
trap stop_cluster EXIT
trap 'exit 143' TERM INT

start_cluster
"$psbench" data synth --samples 1200 --shape 1,8,8 --classes 4 --out "$work/tiny.h5" >/dev/null
export PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" MODEL=mlp:16 EPOCHS=1 BATCH=32 RESULTS="$work/results"

# The three jobs run at once; each waits for its own end. From $work, so Slurm's log lands there.
cd "$work"
submit() {
  local name="$1" status=0
  shift
  timeout 120 sbatch --wait "$@" >"$work/$name.submit" 2>&1 || status=$?
  echo "$status" >"$work/$name.status"
}
submitters=()
submit train "$root/jobs/slurm/train.sbatch" &
submitters+=($!)
LAUNCHER=srun submit srun --ntasks=4 "$root/jobs/slurm/train.sbatch" &
submitters+=($!)
WORKERS="1 2" IO_MODES="sequential parallel" submit sweep --nodes=1 --ntasks-per-node=3 "$root/jobs/slurm/sweep.sbatch" &
submitters+=($!)
QUICK=1 submit calibrate "$root/jobs/slurm/calibrate.sbatch" &
submitters+=($!)
for name in train srun sweep calibrate; do
  for _ in $(seq 100); do grep -q "^Submitted batch job" "$work/$name.submit" 2>/dev/null && break; sleep 0.1; done
  jobs_submitted+=("$(sed -n 's/^Submitted batch job //p' "$work/$name.submit" 2>/dev/null)")
done
wait "${submitters[@]}" || true

commit="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
node="$(hostname -s)"
check() {
  local name="$1" launch="$2" ranks_per_node="$3" status job
  shift 3
  status="$(cat "$work/$name.status")"
  job="$(sed -n 's/^Submitted batch job //p' "$work/$name.submit")"
  [[ -n "$job" ]] || { echo "$name: not submitted:"; cat "$work/$name.submit"; exit 1; }
  [[ "$status" == 0 ]] || { echo "$name: sbatch --wait exited $status:"; cat "$work/$name.submit" "slurm-$job.out"; exit 1; }
  grep -q "psbench: $psbench (from PSBENCH_BIN)" "slurm-$job.out" || { echo "$name: no psbench line"; cat "slurm-$job.out"; exit 1; }
  python3 "$root/tests/jobs/check_results.py" "$work/results/slurm-$job" --scheduler slurm --job-id "$job" \
    --nodes "$node" --ranks-per-node "$ranks_per_node" --git-commit "$commit" --launch "$launch" "$@" ||
    { cat "slurm-$job.out"; exit 1; }
  echo "$name: job $job ok"
}
launch="$("$root/tests/jobs/expected_launch.sh" "$psbench")"
check train "$launch" 3 --run 2:1:sequential
check srun "env SLURM_HOSTFILE=" 4 --run 3:1:sequential
# srun starts Open MPI's ranks through PMIx, MPICH's through PMI-2.
plugin=pmix
[[ "$launch" == *" -f" ]] && plugin=pmi2
grep -q "srun --mpi=$plugin --distribution=arbitrary -n 4 " "$work/results/slurm-${jobs_submitted[1]}/manifest.json" ||
  { echo "srun: the manifest's command is not an srun --mpi=$plugin launch"; exit 1; }
check sweep "$launch" 3 --run 1:1:sequential --run 2:1:sequential --run 1:1:parallel --run 2:1:parallel
check calibrate "$launch" 3 --run 1:1:sequential:1 --run 1:1:parallel:1
python3 "$root/tests/jobs/check_calibration.py" "$work/results/slurm-${jobs_submitted[3]}" "$psbench" --samples 1200 \
  --input 1,8,8 --classes 4 --model mlp:16 --batch 32 || { cat "slurm-${jobs_submitted[3]}.out"; exit 1; }
echo "ok"
