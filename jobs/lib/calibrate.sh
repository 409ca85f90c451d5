# A calibration job inside an allocation (sourced after runs.sh): the benchmarks that `psbench model calibrate`
# reads (bench/run_all.sh), the calibration runs (1 server + 1 worker, both I/O modes, placed as a sweep
# places them), then calib.json, all in one results folder with a manifest. The front-end sets what runs.sh
# needs (scheduler, job_id, nodes, slots, launcher, default_threads, psbench).

# The benchmarks `psbench model calibrate --bench` reads; run_all.sh's trainer_limit is not one of them.
# shared_steps (ranks sharing one node's cores) always runs within one node.
calibration_benchmarks=nn,push_pull,server_update,data_io,server_saturation,train_setup

# Sets bench_files to the files of run_all.sh's one-launch benchmarks in $outdir/bench (fresh-page reads, the
# set-up, the shared steps within one node: one file per launch), relative to $outdir, after the files named in
# the arguments.
collect_bench_files() {
  bench_files=("$@")
  local file
  for file in "$outdir"/bench/{data_io_fresh-,train_setup-,shared_steps-}*.json \
              "$outdir"/bench/one-node/shared_steps-*.json; do
    if [[ -e "$file" ]]; then bench_files+=("${file#"$outdir"/}"); fi
  done
}

# Reads and checks the calibration's own settings; dies on the first bad one.
read_calibration_settings() {
  quick="${QUICK:-0}"
  [[ "$quick" =~ ^[01]$ ]] || die "QUICK='$quick' is not 0 or 1"
  repetitions="${REPETITIONS:-$((quick ? 1 : 3))}"
  [[ "$repetitions" =~ ^[1-9][0-9]*$ ]] || die "REPETITIONS='$repetitions' is not a positive whole number"
  [[ "${MODEL:-mlp:512,256}" =~ ^(mlp:[1-9][0-9]*(,[1-9][0-9]*)*|cnn)$ ]] ||
    die "MODEL='$MODEL' is not a model spec: use mlp:H1,H2,... (e.g. mlp:512,256) or cnn"
  read -r -a bench_flags <<<"${BENCH_FLAGS:-}"
  ((quick)) && bench_flags=(--quick "${bench_flags[@]}")
  bench_build="${PSBENCH_BUILD:-$(cd "$(dirname "$psbench")/../.." && pwd)}"
  [[ -d "$bench_build/bench" ]] ||
    die "no benchmarks in '$bench_build' (the build folder of $psbench): set PSBENCH_BUILD to the build folder"
}

# Dies with psbench's own reason unless psbench can load the dataset (a readable file need not be one).
check_dataset() {
  local reason
  reason="$("$psbench" data inspect "$data" 2>&1 >/dev/null)" ||
    die "DATA='$data' is not a dataset psbench can load: ${reason#psbench: error: }"
}

# Writes a hostfile of the first $1 nodes of the allocation to $2.
write_bench_hostfile() {
  local count="$1" file="$2" i
  for ((i = 0; i < count; i++)); do echo "${nodes[i]} slots=${slots[i]}"; done >"$file"
}

# Runs bench/run_all.sh on the hostfile $1 into the folder $2, with its further flags after them.
run_benchmarks() {
  local hostfile="$1" out="$2"
  shift 2
  # The benchmarks start with mpirun even in a job whose runs srun starts.
  [[ -n "${mpi_launcher:-}" ]] || select_mpi_launcher "$psbench"
  local mpirun_line=("$mpi_launcher" $(mpi_oversubscribe_flag) "${mpirun_flags[@]}")
  # Inside Slurm, Open MPI would take the slots from the allocation and ignore the hostfile's.
  [[ "$scheduler" == slurm && "$mpi_flavor" == openmpi ]] && mpirun_line+=(--mca ras ^slurm)
  say "benchmarks on $(awk '{printf "%s%s", sep, $1; sep=","}' "$hostfile") -> $out"
  PSBENCH_BUILD="$bench_build" PSBENCH_MPIRUN="${mpirun_line[*]}" PSBENCH_GIT_COMMIT="$(git_commit)" \
    "$root/bench/run_all.sh" --hostfile "$hostfile" --data "$data" --out "$out" "${bench_flags[@]}" "$@" ||
    die "bench/run_all.sh failed (above); its files so far are in $out"
}

# The benchmark files for calibrate: between the first two nodes when there are two or more (server
# saturation then over messages, as a sweep's workers reach the servers' node), with push/pull, server
# saturation and the shared steps within one node in bench/one-node/; else all within the one node.
run_calibration_benchmarks() {
  local pair=$((${#nodes[@]} > 1 ? 2 : 1))
  write_bench_hostfile "$pair" "$outdir/hostfiles/bench-$pair-nodes.hosts"
  if ((pair == 1)); then
    run_benchmarks "$outdir/hostfiles/bench-1-nodes.hosts" "$outdir/bench" --only "$calibration_benchmarks,shared_steps"
    collect_bench_files bench/{nn,push_pull,server_update,data_io,server_saturation}.json
    return
  fi
  run_benchmarks "$outdir/hostfiles/bench-2-nodes.hosts" "$outdir/bench" --only "$calibration_benchmarks" \
    --saturation-paths messages
  write_bench_hostfile 1 "$outdir/hostfiles/bench-1-nodes.hosts"
  run_benchmarks "$outdir/hostfiles/bench-1-nodes.hosts" "$outdir/bench/one-node" --only push_pull,server_saturation,shared_steps
  collect_bench_files bench/{nn,push_pull,server_update,data_io}.json bench/messages/server_saturation.json
}

# The calibration runs, the two I/O modes interleaved in each repetition; stops at the first that fails.
run_calibration_runs() {
  local repetition io
  for ((repetition = 1; repetition <= repetitions; repetition++)); do
    for io in sequential parallel; do
      run_once 1 "$io" "$repetition" || die "calibration run w1-s1-$io-r$repetition failed (above)"
      run_files+=("w1-s1-$io-r$repetition.json")
    done
  done
}

# psbench model calibrate over the benchmark files and the runs; records it in the manifest.
write_calibration() {
  local command=("$psbench" model calibrate --bench "${bench_files[@]/#/$outdir/}" --runs "${run_files[@]/#/$outdir/}"
    --out "$outdir/calib.json")
  say "calibrate -> $outdir/calib.json"
  "${command[@]}" || die "psbench model calibrate failed (above)"
  python3 "$root/jobs/lib/manifest.py" set-calibration --manifest "$outdir/manifest.json" --file calib.json \
    --bench "${bench_files[@]}" -- "${command[@]}" || die "cannot update '$outdir/manifest.json'"
}

# The whole job: settings, data, folder, calibration runs (first: a model that does not fit the data stops
# the job before the long benchmarks), benchmarks, calib.json.
run_calibration_job() {
  extra_flags=()
  default_epochs=1
  default_cold=1
  MODE=async SERVERS=1 read_settings
  read_calibration_settings
  prepare_data
  check_dataset
  start_results
  run_files=()
  run_calibration_runs
  run_calibration_benchmarks
  write_calibration
  say "done: calib.json, $((${#bench_files[@]})) benchmark files and ${#run_files[@]} runs in $outdir"
  echo "$outdir"
}
