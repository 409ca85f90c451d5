# A private one-node Slurm cluster for slurm_test.sh (sourced): munged, slurmctld and slurmd under
# $work, on free ports, each started in the foreground of a background job so that its PID is known.
# The caller sets `work`, `daemons` and `jobs_submitted` (arrays), and traps stop_cluster on EXIT.

# Prints two free TCP ports on the loopback interface.
free_ports() {
  python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))'
}

# Writes $work/slurm.conf for this host alone, with `cpus` CPUs and auth through our munged.
write_slurm_conf() {
  local cpus="$1" host ports
  host="$(hostname -s)"
  read -r -a ports <<<"$(free_ports)"
  mkdir -p "$work/state" "$work/spool" "$work/log"
  cat >"$work/slurm.conf" <<CONF
ClusterName=psbenchtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
}

# Starts munged with a fresh key, then slurmctld and slurmd; fails unless the node is idle within 30 s.
start_cluster() {
  mkdir -m 755 "$work/munge"
  dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 status=none
  chmod 400 "$work/munge/key"
  munged -F --key-file="$work/munge/key" --socket="$work/munge/socket" --pid-file="$work/munge/pid" \
    --log-file="$work/munge/log" --seed-file="$work/munge/seed" >"$work/munge/out" 2>&1 &
  daemons+=($!)
  write_slurm_conf 10
  export SLURM_CONF="$work/slurm.conf"
  for _ in $(seq 50); do [[ -S "$work/munge/socket" ]] && break; sleep 0.1; done
  slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
  daemons+=($!)
  slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
  daemons+=($!)
  for _ in $(seq 60); do
    [[ "$(sinfo -h -o %T 2>/dev/null)" == idle ]] && return 0
    sleep 0.5
  done
  echo "the one-node Slurm did not come up in 30 s:"
  tail -n 5 "$work/munge/out" "$work/log/"*.out
  exit 1
}

# Cancels the jobs it submitted, stops the daemons it started (by PID), and removes $work.
stop_cluster() {
  local status=$? pid
  if ((${#jobs_submitted[@]} > 0)); then scancel "${jobs_submitted[@]}" 2>/dev/null || true; fi
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    pid="${daemons[i]}"
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$work"
  exit "$status"
}
