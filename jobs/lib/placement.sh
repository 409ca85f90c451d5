# Where the ranks go (sourced): the allocation is `nodes` (host names) and `slots` (ranks each may run).
# In async mode ranks 0..S-1 are the servers: with more than one node they get the first node to
# themselves and the workers fill the others in order; on one node they share it with the workers.

# Sets `nodes` and `slots` from an Open MPI hostfile (`host slots=N`, or a host once per slot).
read_hostfile() {
  local file="$1" host rest count
  [[ -f "$file" && -r "$file" ]] || die "hostfile '$file' is not a readable file"
  nodes=()
  slots=()
  declare -A seen=()
  while read -r host rest; do
    [[ -z "$host" || "$host" == \#* ]] && continue
    count=1
    [[ " $rest" =~ [[:space:]]slots=([0-9]+) ]] && count="${BASH_REMATCH[1]}"
    if [[ -z "${seen[$host]:-}" ]]; then
      seen[$host]=${#nodes[@]}
      nodes+=("$host")
      slots+=(0)
    fi
    slots[${seen[$host]}]=$((slots[${seen[$host]}] + count))
  done <"$file"
  ((${#nodes[@]} > 0)) || die "hostfile '$file' names no host"
}

# Prints one count per node from Slurm's compressed list, e.g. "16(x2),8" -> 16 16 8 on three lines.
expand_tasks_per_node() {
  local part i
  for part in ${1//,/ }; do
    if [[ "$part" =~ ^([0-9]+)\(x([0-9]+)\)$ ]]; then
      for ((i = 0; i < BASH_REMATCH[2]; i++)); do echo "${BASH_REMATCH[1]}"; done
    elif [[ "$part" =~ ^[0-9]+$ ]]; then
      echo "$part"
    else
      die "cannot read the task counts '$1' (SLURM_TASKS_PER_NODE)"
    fi
  done
}

# Prints the most workers the allocation holds with `servers` servers (0 in sync mode), or dies.
worker_capacity() {
  local servers="$1" total=0 count
  for count in "${slots[@]}"; do total=$((total + count)); done
  if ((${#nodes[@]} == 1 || servers == 0)); then
    ((total > servers)) ||
      die "SERVERS=$servers leave no worker: the allocation has $total rank(s); give it at least $((servers + 1))"
    echo $((total - servers))
    return
  fi
  ((servers <= slots[0])) ||
    die "SERVERS=$servers do not fit on the servers' node ${nodes[0]}, which has ${slots[0]} slot(s)"
  echo $((total - slots[0]))
}

# Prints one host per rank, in rank order, for `servers` servers and `workers` workers.
rank_hosts() {
  local servers="$1" workers="$2" first=0 i count
  if ((${#nodes[@]} > 1 && servers > 0)); then
    for ((i = 0; i < servers; i++)); do echo "${nodes[0]}"; done
    first=1
  else
    workers=$((workers + servers))
  fi
  for ((i = first; i < ${#nodes[@]} && workers > 0; i++)); do
    count=$((slots[i] < workers ? slots[i] : workers))
    for ((; count > 0; count--, workers--)); do echo "${nodes[i]}"; done
  done
}

# Writes the launcher's hostfile for that layout: consecutive ranks on one host become one line.
write_hostfile() {
  rank_hosts "$1" "$2" | uniq -c | mpi_hostfile_lines >"$3"
}
