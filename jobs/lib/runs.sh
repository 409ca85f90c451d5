# One run or a sweep of runs inside an allocation (sourced, after mpi_flavor.sh). The front-end sets: scheduler,
# job_id, nodes, slots (placement.sh), launcher (mpirun or srun), default_threads and psbench (find_psbench).
# Settings come from the environment (docs/running.md lists them); all are checked before the dataset
# is prepared and before anything is written.

# Reads and checks the settings every run shares; dies on the first bad one.
read_settings() {
  model="${MODEL:-mlp:512,256}"
  mode="${MODE:-async}"
  epochs="${EPOCHS:-${default_epochs:-3}}"
  batch="${BATCH:-64}"
  threads="${THREADS:-${default_threads:-1}}"
  [[ "$mode" =~ ^(async|sync)$ ]] || die "MODE='$mode' is not async or sync"
  servers=0
  [[ "$mode" == async ]] && servers="${SERVERS:-1}"
  [[ "$servers" =~ ^[0-9]+$ ]] || die "SERVERS='$servers' is not a whole number"
  [[ "$mode" == sync || "$servers" -ge 1 ]] || die "SERVERS=$servers: async mode needs at least one server"
  [[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "THREADS='$threads' is not a positive whole number"
  cold=()
  [[ "${COLD_CACHE:-${default_cold:-0}}" == 1 ]] && cold=(--cold-cache)
  read -r -a train_flags <<<"${TRAIN_FLAGS:-}"
  read -r -a mpirun_flags <<<"${MPIRUN_FLAGS:-}"
  capacity="$(worker_capacity "$servers")" || exit 2
  choose_mpi
}

# Sets `mpi_flavor` (and for mpirun `mpi_launcher`) from the MPI psbench is built with and the launcher's own;
# with srun, dies unless Slurm has that MPI's plugin (PMIx for Open MPI, PMI-2 for MPICH).
choose_mpi() {
  if [[ "$launcher" != srun ]]; then
    select_mpi_launcher "$psbench"
    return
  fi
  require_build_flavor "$psbench"
  srun --mpi=list 2>&1 | grep -qw "$(srun_mpi_plugin)" ||
    die "LAUNCHER=srun needs Slurm's $(srun_mpi_plugin) plugin for $(flavor_name "$mpi_flavor"), and 'srun --mpi=list' names none; use LAUNCHER=mpirun"
}

# Checks an I/O mode.
check_io() { [[ "$1" =~ ^(sequential|parallel)$ ]] || die "I/O mode '$1' is not sequential or parallel"; }

# Makes the results folder and its manifest; refuses a folder that already holds one.
start_results() {
  outdir="${OUTDIR:-${RESULTS:-$root/results}/$scheduler-$job_id}"
  [[ ! -e "$outdir/manifest.json" ]] || die "'$outdir' already holds a manifest; set OUTDIR to a new folder"
  mkdir -p "$outdir/hostfiles" || die "cannot create the results folder '$outdir'"
  local most=0 count link=()
  for count in "${slots[@]}"; do ((count > most)) && most=$count; done
  [[ -n "${LINK_RATE:-}${LINK_DELAY:-}" ]] && link=(--link-rate "${LINK_RATE:-}" --link-delay "${LINK_DELAY:-}")
  python3 "$root/jobs/lib/manifest.py" init --manifest "$outdir/manifest.json" --scheduler "$scheduler" \
    --job-id "$job_id" --nodes "${nodes[@]}" --ranks-per-node "$most" --git-commit "$(git_commit)" "${link[@]}" ||
    die "cannot write '$outdir/manifest.json'"
  local layout=() i
  for i in "${!nodes[@]}"; do layout+=("${nodes[i]}:${slots[i]}"); done
  say "$scheduler job $job_id on ${#nodes[@]} node(s) (node:slots ${layout[*]}); results in $outdir"
}

# Sets `launch` to the launcher's command line for `workers` workers (hostfile written beside the results).
launch_command() {
  local workers="$1" ranks=$(($1 + servers)) hosts="$outdir/hostfiles/w$1-s$servers.hosts"
  if [[ "$launcher" == srun ]]; then
    rank_hosts "$servers" "$workers" >"$hosts"
    launch=(env "SLURM_HOSTFILE=$hosts" srun "--mpi=$(srun_mpi_plugin)" --distribution=arbitrary -n "$ranks" -c "$threads")
    return
  fi
  write_hostfile "$servers" "$workers" "$hosts"
  launch=("$mpi_launcher" -np "$ranks" "$(mpi_hostfile_flag)" "$hosts")
  # Inside Slurm, Open MPI would take the slots from the allocation and ignore the hostfile's counts.
  [[ "$scheduler" == slurm && "$mpi_flavor" == openmpi ]] && launch+=(--mca ras ^slurm)
  launch+=("${mpirun_flags[@]}")
}

# Runs psbench train once (workers $1, I/O mode $2, optional repetition $3 in the file's name) and records it
# in the manifest; returns psbench's exit code.
run_once() {
  local workers="$1" io="$2" file="w$1-s$servers-$2${3:+-r$3}.json" status=0 server_flags=() repetition=()
  [[ -n "${3:-}" ]] && repetition=(--repetition "$3")
  launch_command "$workers"
  [[ "$mode" == async ]] && server_flags=(--servers "$servers")
  local command=("${launch[@]}" "$psbench" train --data "$data" --model "$model" --mode "$mode"
    "${server_flags[@]}" --io "$io" --epochs "$epochs" --batch "$batch" --threads "$threads" "${cold[@]}"
    --out "$outdir/$file" "${train_flags[@]}" "${extra_flags[@]}")
  say "run: $workers worker(s), $servers server(s), $io I/O -> $outdir/$file"
  "${command[@]}" || status=$?
  python3 "$root/jobs/lib/manifest.py" add-run --manifest "$outdir/manifest.json" --file "$file" \
    --workers "$workers" --servers "$servers" --io "$io" "${repetition[@]}" --exit-code "$status" -- "${command[@]}" ||
    die "cannot update '$outdir/manifest.json'"
  ((status == 0)) || say "run $file failed with exit code $status"
  return "$status"
}

# One run on the whole allocation: every slot not a server's is a worker.
run_train() {
  extra_flags=("$@")
  read_settings
  local io="${IO:-sequential}"
  check_io "$io"
  prepare_data
  start_results
  run_once "$capacity" "$io"
}

# Prints the default worker counts: powers of two below the capacity, then the capacity.
default_worker_counts() {
  local count=1 counts=()
  while ((count < capacity)); do
    counts+=("$count")
    count=$((count * 2))
  done
  counts+=("$capacity")
  echo "${counts[*]}"
}

# One run per worker count and I/O mode; fails at the end if any run failed.
run_sweep() {
  extra_flags=("$@")
  default_epochs=1
  default_cold=1
  read_settings
  local io workers failed=()
  local -a io_modes worker_counts
  read -r -a io_modes <<<"${IO_MODES:-sequential parallel}"
  read -r -a worker_counts <<<"${WORKERS:-$(default_worker_counts)}"
  for io in "${io_modes[@]}"; do check_io "$io"; done
  for workers in "${worker_counts[@]}"; do
    [[ "$workers" =~ ^[1-9][0-9]*$ ]] || die "WORKERS has '$workers', not a positive whole number"
    ((workers <= capacity)) || die "WORKERS has $workers, but the allocation holds only $capacity worker(s)"
  done
  prepare_data
  start_results
  for io in "${io_modes[@]}"; do
    for workers in "${worker_counts[@]}"; do
      run_once "$workers" "$io" || failed+=("w$workers-s$servers-$io")
    done
  done
  ((${#failed[@]} == 0)) || { say "${#failed[@]} run(s) failed: ${failed[*]} (see above)"; return 1; }
  say "all $((${#io_modes[@]} * ${#worker_counts[@]})) run(s) done; manifest: $outdir/manifest.json"
}
