# Shared by every job script (sourced, not run): messages, finding psbench, the dataset, the git commit.
# The caller sets `root` (the repository) and `job_name` (e.g. slurm/train.sbatch) before sourcing.

# Prints one line, prefixed with the job's name.
say() { echo "$job_name: $*"; }

# Prints one error line on stderr and exits 2.
die() {
  echo "$job_name: error: $*" >&2
  exit 2
}

# Sets `psbench` from PSBENCH_BIN, else PATH, else the build folder (preset $1 first, then release,
# default), and says which it took.
find_psbench() {
  if [[ -n "${PSBENCH_BIN:-}" ]]; then
    [[ -x "$PSBENCH_BIN" && -f "$PSBENCH_BIN" ]] || die "PSBENCH_BIN='$PSBENCH_BIN' is not an executable file"
    psbench="$PSBENCH_BIN"
    say "psbench: $psbench (from PSBENCH_BIN)"
    return
  fi
  if psbench="$(command -v psbench)"; then
    say "psbench: $psbench (from PATH)"
    return
  fi
  local preset
  for preset in ${1:-} release default; do
    psbench="$root/build/$preset/src/cli/psbench"
    if [[ -x "$psbench" ]]; then
      say "psbench: $psbench (from the build folder)"
      return
    fi
  done
  die "no psbench found: set PSBENCH_BIN, put psbench on PATH, or build it with jobs/setup.sh"
}

# Sets `data` from DATA (which must be readable), else the default Fashion-MNIST file, converted once.
prepare_data() {
  if [[ -n "${DATA:-}" ]]; then
    [[ -f "$DATA" && -r "$DATA" ]] || die "DATA='$DATA' is not a readable file"
    data="$DATA"
    say "data: $data (from DATA)"
    return
  fi
  local folder="${DATA_DIR:-$root/data}"
  data="$folder/fashion-mnist.h5"
  mkdir -p "$folder" || die "cannot create '$folder' for the Fashion-MNIST file (set DATA or DATA_DIR)"
  # Jobs that start together lock the folder in turn: the first converts, the others find the file made.
  (
    flock 9
    if [[ ! -s "$data" ]]; then
      say "data: converting Fashion-MNIST to $data (once)"
      "$psbench" data convert --out "$data" >/dev/null ||
        die "converting Fashion-MNIST to '$data' failed (above); convert it once with 'psbench data convert --from IDX_FOLDER --out $data', or set DATA"
    fi
  ) 9<"$folder" || exit $?
  say "data: $data (Fashion-MNIST)"
}

# Prints the repository's commit, or `unknown` outside a git checkout.
git_commit() { git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown; }

source "$root/jobs/lib/mpi_flavor.sh"

# Open MPI refuses to run as root unless told to.
allow_mpi_as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
}
