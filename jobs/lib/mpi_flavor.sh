# Which MPI a job launches, and that MPI's launcher options (sourced by the job scripts and the benchmark
# scripts; the caller defines die). Two flavours: Open MPI (`--hostfile` of `host slots=N` lines,
# `--oversubscribe`, `-x VAR`, `--mca`) and MPICH's Hydra launcher (`-f` of `host:N` lines, `-hosts`, and it
# oversubscribes and passes the whole environment by itself). Under Slurm, srun starts Open MPI ranks through
# PMIx and MPICH ranks through PMI-2.

# Prints openmpi or mpich for the launcher command $1, from its --version; nothing when it cannot tell.
launcher_flavor() {
  local text
  text="$("$1" --version 2>&1)" || true
  case "$text" in
    *"Open MPI"* | *OpenRTE*) echo openmpi ;;
    *HYDRA* | *MPICH* | *"Intel(R) MPI"*) echo mpich ;;
  esac
}

# Prints openmpi or mpich for the psbench binary $1, from the MPI library its --version names; nothing when it
# cannot tell.
build_flavor() {
  case "$("$1" --version 2>/dev/null | sed -n 's/^MPI: //p')" in
    "Open MPI"*) echo openmpi ;;
    *MPICH* | *"Intel(R) MPI"* | MVAPICH*) echo mpich ;;
  esac
}

# Prints the flavour's name for messages.
flavor_name() { [[ "$1" == mpich ]] && echo MPICH || echo "Open MPI"; }

# Prints openmpi or mpich for any MPI program $1, from the MPI library it links (ldd; it is not run); nothing
# when it links none of theirs (Open MPI's libmpi.so.40, MPICH's libmpich, Intel MPI's libmpi.so.12).
program_flavor() {
  case "$(ldd "$1" 2>/dev/null)" in
    *libmpich* | *libmpi.so.12*) echo mpich ;;
    *libmpi.so.4[0-9]*) echo openmpi ;;
  esac
}

# Sets `mpi_launcher` and `mpi_flavor` for the psbench binary $1: select_launcher_for its MPI.
select_mpi_launcher() { select_launcher_for "$(build_flavor "$1")" "$1"; }

# Sets `mpi_launcher` and `mpi_flavor` for a program ($2, named in messages) built with the MPI flavour $1 (empty:
# unknown): MPIRUN, else mpirun; when mpirun belongs to another MPI than the program's, Debian's name for the
# program's own (mpirun.mpich, mpirun.openmpi). Dies with one line when the launcher's MPI cannot be told, or is not
# the program's and MPIRUN chose it.
select_launcher_for() {
  local wanted="$1"
  mpi_launcher="${MPIRUN:-mpirun}"
  command -v "$mpi_launcher" >/dev/null || die "no MPI launcher '$mpi_launcher' on PATH (jobs/setup.sh installs one; or set MPIRUN)"
  mpi_flavor="$(launcher_flavor "$mpi_launcher")"
  [[ -n "$mpi_flavor" ]] ||
    die "cannot tell which MPI '$mpi_launcher' launches: its --version names neither Open MPI nor MPICH's Hydra; set MPIRUN to one that does"
  [[ -z "$wanted" || "$wanted" == "$mpi_flavor" ]] && return
  if [[ -z "${MPIRUN:-}" ]] && command -v "mpirun.$wanted" >/dev/null; then
    mpi_launcher="mpirun.$wanted"
    mpi_flavor="$wanted"
    return
  fi
  die "$2 is built with $(flavor_name "$wanted") but '$mpi_launcher' launches $(flavor_name "$mpi_flavor"); set MPIRUN to $(flavor_name "$wanted")'s mpirun"
}

# Sets `mpi_flavor` from the psbench binary $1 alone (srun launches, so no mpirun tells); dies when it cannot tell.
require_build_flavor() {
  mpi_flavor="$(build_flavor "$1")"
  [[ -n "$mpi_flavor" ]] ||
    die "cannot tell which MPI $1 is built with ('$1 --version' names neither Open MPI nor MPICH), so not which srun --mpi to use"
}

# Prints srun's --mpi plugin for the flavour: PMIx for Open MPI, PMI-2 for MPICH.
srun_mpi_plugin() { [[ "$mpi_flavor" == mpich ]] && echo pmi2 || echo pmix; }

# Prints the launcher's hostfile option.
mpi_hostfile_flag() { [[ "$mpi_flavor" == mpich ]] && echo -f || echo --hostfile; }

# Turns "count host" lines (uniq -c's output) on stdin into the launcher's hostfile lines: consecutive ranks on a host.
mpi_hostfile_lines() {
  if [[ "$mpi_flavor" == mpich ]]; then
    awk '{print $2 ":" $1}'
  else
    awk '{print $2 " slots=" $1}'
  fi
}

# Sets `mpi_spread` to the launcher's options that place ranks round robin over the hosts of the hostfile $1
# (psbench's `host slots=N` lines, or a host once per slot).
mpi_spread_over_hosts() {
  if [[ "$mpi_flavor" == mpich ]]; then
    mpi_spread=(-hosts "$(awk '!/^[[:space:]]*(#|$)/ && !seen[$1]++ {printf "%s%s", sep, $1; sep=","}' "$1")")
  else
    mpi_spread=(--hostfile "$1" --map-by node)
  fi
}

# Prints the option that lets more ranks than cores run on a host (Hydra needs none).
mpi_oversubscribe_flag() { [[ "$mpi_flavor" == mpich ]] || echo --oversubscribe; }

# Prints the options that pass the environment variables $@ to the ranks (Hydra passes them all by itself).
mpi_export_flags() {
  [[ "$mpi_flavor" == mpich ]] && return
  local name
  for name in "$@"; do printf '%s\n' -x "$name"; done
}

# Sets `launcher` (a command line, split into words when run) and `mpi_flavor` for a benchmark script whose build
# holds the psbench binary $1: PSBENCH_MPIRUN when set (its first word tells the MPI), else select_mpi_launcher's.
select_bench_launcher() {
  if [[ -n "${PSBENCH_MPIRUN:-}" ]]; then
    launcher="$PSBENCH_MPIRUN"
    mpi_flavor="$(launcher_flavor "${launcher%% *}")"
    [[ -n "$mpi_flavor" ]] ||
      die "cannot tell which MPI PSBENCH_MPIRUN='$launcher' launches: its --version names neither Open MPI nor MPICH's Hydra"
    return
  fi
  select_mpi_launcher "$1"
  launcher="$mpi_launcher"
}
