# The PBS side of a job (sourced by train.pbs and sweep.pbs after they set `root` and `job_name`): the
# nodes and MPI processes of PBS_NODEFILE, and psbench. Debian's Open MPI has no PBS TM
# support, so mpirun reads the nodes from a hostfile and starts remote ranks through ssh.
source "$root/jobs/lib/job_common.sh"
source "$root/jobs/lib/placement.sh"
source "$root/jobs/lib/runs.sh"

[[ -n "${PBS_NODEFILE:-}" ]] || die "not inside a PBS job (no PBS_NODEFILE); submit it with qsub"
# PBS_NODEFILE names a node once per MPI process it may run (mpiprocs of its chunk).
read_hostfile "$PBS_NODEFILE"
scheduler=pbs
job_id="${PBS_JOBID:-$$}"
launcher=mpirun
# PBS sets OMP_NUM_THREADS to the chunk's ncpus / mpiprocs (ompthreads).
default_threads="${OMP_NUM_THREADS:-1}"
allow_mpi_as_root
find_psbench
