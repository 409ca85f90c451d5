#!/usr/bin/env bash
# Bad set-ups stop before any run with one clear line on stderr, exit code 2 and no results folder:
# no psbench found, an unreadable DATA, more servers than ranks (and their neighbours), and the calibration
# job's own: an unknown MODEL, a DATA that is no dataset, a bad REPETITIONS; a launcher whose MPI cannot be told. Also checks that
# a repository without PSBENCH_BIN or psbench on PATH takes its own build folder, and says so.
set -euo pipefail
root="$1"
psbench="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
host="$(hostname)"
printf '%s\n' "$host" "$host" "$host" >"$work/nodefile"
"$psbench" data synth --samples 300 --shape 1,4,4 --classes 2 --out "$work/tiny.h5" >/dev/null
# A copy of the scripts with no build folder: psbench can only come from PSBENCH_BIN or PATH.
mkdir -p "$work/bare"
cp -r "$root/jobs" "$work/bare/"

# Runs a job script like a batch system would; $1 is the repository, $2 the script, then settings.
run_job() {
  local repo="$1" script="$2"
  shift 2
  (cd "$work" && env -i HOME="$work" PATH=/usr/bin:/bin PBS_NODEFILE="$work/nodefile" PBS_O_WORKDIR="$repo" \
    PBS_JOBID=7.pbs PBS_NP=3 PBS_JOBNAME=bad RESULTS="$work/results" "$@" \
    timeout 60 bash "$repo/jobs/$script" >"$work/out" 2>"$work/err")
}

# Expects the last run to have failed with exit 2 and exactly one stderr line matching $2.
expect_error() {
  local what="$1" pattern="$2" status="$3"
  [[ "$status" == 2 ]] || { echo "$what: exit code $status, not 2"; cat "$work/out" "$work/err"; exit 1; }
  [[ "$(wc -l <"$work/err")" == 1 ]] || { echo "$what: stderr is not one line:"; cat "$work/err"; exit 1; }
  grep -Eq "$pattern" "$work/err" || { echo "$what: '$(cat "$work/err")' does not match '$pattern'"; exit 1; }
  [[ ! -e "$work/results" ]] || { echo "$what: a results folder was made"; ls -R "$work/results"; exit 1; }
  echo "$what: $(cat "$work/err")"
}

case_status() { "$@" && echo 0 || echo $?; }

status="$(case_status run_job "$work/bare" pbs/train.pbs DATA="$work/tiny.h5")"
expect_error "no psbench" '^pbs/train.pbs: error: no psbench found: set PSBENCH_BIN, put psbench on PATH, or build it' "$status"
status="$(case_status run_job "$root" slurm/sweep.sbatch PSBENCH_BIN="$work/nothing/psbench")"
expect_error "outside Slurm" '^slurm/sweep.sbatch: error: not inside a Slurm job; submit it with sbatch$' "$status"
status="$(case_status run_job "$root" pbs/sweep.pbs PSBENCH_BIN="$work/nothing/psbench")"
expect_error "PSBENCH_BIN missing" "^pbs/sweep.pbs: error: PSBENCH_BIN='$work/nothing/psbench' is not an executable file$" "$status"
status="$(case_status run_job "$root" pbs/train.pbs PSBENCH_BIN="$psbench" DATA="$work/missing.h5")"
expect_error "DATA missing" "^pbs/train.pbs: error: DATA='$work/missing.h5' is not a readable file$" "$status"
status="$(case_status run_job "$root" pbs/train.pbs PSBENCH_BIN="$psbench" DATA="$work")"
expect_error "DATA a folder" "^pbs/train.pbs: error: DATA='$work' is not a readable file$" "$status"
status="$(case_status run_job "$root" pbs/train.pbs PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" SERVERS=3)"
expect_error "3 servers on 3 ranks" '^pbs/train.pbs: error: SERVERS=3 leave no worker: the allocation has 3 rank\(s\); give it at least 4$' "$status"
status="$(case_status run_job "$root" pbs/train.pbs PSBENCH_BIN="$psbench" DATA_DIR="$work/fm" SERVERS=4)"
expect_error "4 servers, no DATA" '^pbs/train.pbs: error: SERVERS=4 leave no worker' "$status"
[[ ! -e "$work/fm" ]] || { echo "Fashion-MNIST was converted for a job that cannot run"; exit 1; }
status="$(case_status run_job "$root" pbs/sweep.pbs PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" WORKERS="1 4")"
expect_error "4 workers on 3 ranks" '^pbs/sweep.pbs: error: WORKERS has 4, but the allocation holds only 2 worker\(s\)$' "$status"
printf 'n1 slots=1\nn2 slots=4\n' >"$work/hosts"
status="$(case_status run_job "$root" mpirun/sweep.sh PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" HOSTFILE="$work/hosts" SERVERS=2)"
expect_error "2 servers on a 1-slot node" '^mpirun/sweep.sh: error: SERVERS=2 do not fit on the servers. node n1, which has 1 slot\(s\)$' "$status"
status="$(case_status run_job "$root" pbs/train.pbs PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" IO=fast)"
expect_error "bad I/O mode" "^pbs/train.pbs: error: I/O mode 'fast' is not sequential or parallel$" "$status"
status="$(case_status run_job "$root" pbs/calibrate.pbs PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" MODEL=rnn)"
expect_error "calibration, unknown model" \
  "^pbs/calibrate.pbs: error: MODEL='rnn' is not a model spec: use mlp:H1,H2,... \(e.g. mlp:512,256\) or cnn$" "$status"
status="$(case_status run_job "$root" pbs/calibrate.pbs PSBENCH_BIN="$psbench" DATA="$work/nodefile")"
expect_error "calibration, DATA not a dataset" \
  "^pbs/calibrate.pbs: error: DATA='$work/nodefile' is not a dataset psbench can load: '$work/nodefile': not an HDF5 file$" \
  "$status"
status="$(case_status run_job "$root" mpirun/calibrate.sh PSBENCH_BIN="$psbench" DATA="$work/missing.h5")"
expect_error "calibration, DATA missing" "^mpirun/calibrate.sh: error: DATA='$work/missing.h5' is not a readable file$" "$status"
status="$(case_status run_job "$root" mpirun/calibrate.sh PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" REPETITIONS=0)"
expect_error "calibration, no repetition" "^mpirun/calibrate.sh: error: REPETITIONS='0' is not a positive whole number$" "$status"

# A launcher whose MPI cannot be told (neither Open MPI nor MPICH's Hydra by its --version): one line naming it.
mkdir -p "$work/fakempi"
printf '#!/bin/sh\necho "FooMPI launcher 1.0"\n' >"$work/fakempi/mpirun"
chmod +x "$work/fakempi/mpirun"
status="$(case_status run_job "$root" pbs/train.pbs PSBENCH_BIN="$psbench" DATA="$work/tiny.h5" MPIRUN="$work/fakempi/mpirun")"
expect_error "unknown MPI launcher" \
  "^pbs/train.pbs: error: cannot tell which MPI '$work/fakempi/mpirun' launches: its --version names neither Open MPI nor MPICH's Hydra" \
  "$status"

# The build-folder branch: the bare copy with a build folder, stopped by a bad setting after the lookup.
mkdir -p "$work/bare/build/default/src/cli"
ln -s "$psbench" "$work/bare/build/default/src/cli/psbench"
status="$(case_status run_job "$work/bare" pbs/train.pbs DATA="$work/tiny.h5" SERVERS=3)"
expect_error "bare copy, 3 servers" '^pbs/train.pbs: error: SERVERS=3 leave no worker' "$status"
grep -qx "pbs/train.pbs: psbench: $work/bare/build/default/src/cli/psbench (from the build folder)" "$work/out" ||
  { echo "the build folder was not taken:"; cat "$work/out"; exit 1; }
echo "ok"
