# The Slurm side of a job (sourced by train.sbatch and sweep.sbatch after they set `root` and `job_name`):
# the nodes and tasks of the allocation, and psbench.
source "$root/jobs/lib/job_common.sh"
source "$root/jobs/lib/placement.sh"
source "$root/jobs/lib/runs.sh"

# Sets `nodes` and `slots` from SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE (e.g. "16(x2),8").
slurm_allocation() {
  mapfile -t nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
  mapfile -t slots < <(expand_tasks_per_node "$SLURM_TASKS_PER_NODE")
  ((${#nodes[@]} > 0 && ${#nodes[@]} == ${#slots[@]})) ||
    die "cannot match SLURM_JOB_NODELIST='$SLURM_JOB_NODELIST' with SLURM_TASKS_PER_NODE='$SLURM_TASKS_PER_NODE'"
}

scheduler=slurm
job_id="$SLURM_JOB_ID"
launcher="${LAUNCHER:-mpirun}"
[[ "$launcher" =~ ^(mpirun|srun)$ ]] || die "LAUNCHER='$launcher' is not mpirun or srun"
default_threads="${SLURM_CPUS_PER_TASK:-1}"
slurm_allocation
allow_mpi_as_root
find_psbench
