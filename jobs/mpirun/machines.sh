# The machines of an mpirun job (sourced by sweep.sh and fashion_mnist.sh after they set `root`,
# `job_name`, and `local_ranks`, the ranks this machine runs when no HOSTFILE is given).
source "$root/jobs/lib/job_common.sh"
source "$root/jobs/lib/placement.sh"
source "$root/jobs/lib/runs.sh"

scheduler="${SCHEDULER:-mpirun}"
[[ "$scheduler" =~ ^(mpirun|rack)$ ]] || die "SCHEDULER='$scheduler' is not mpirun or rack"
job_id="${JOB_ID:-$(date -u +%Y%m%d-%H%M%S)-$$}"
launcher=mpirun
default_threads=1
if [[ -n "${HOSTFILE:-}" ]]; then
  read_hostfile "$HOSTFILE"
else
  # This machine: as many slots as ranks; beyond the cores the ranks share them (waits back off).
  nodes=("$(hostname)")
  slots=("$local_ranks")
fi
allow_mpi_as_root
