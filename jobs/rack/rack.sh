#!/usr/bin/env bash
# A virtual rack on one machine: N node network namespaces behind a bridge (the top-of-rack switch) in a
# namespace of its own, each node linked to the switch by a veth pair that tc shapes in both directions, plus a
# head namespace (the login node) from which mpirun (Open MPI's or MPICH's Hydra) launches across the nodes through
# an rsh agent.
# Everything it makes is named psr-NAME-*; nothing in the root namespace gets an address, a route or a link.
#
# Usage (as root):
#   jobs/rack/rack.sh up N --rate R [--delay D] [--server-rate R2] [--servers S] [--burst-us B]
#                          [--name NAME]
#   jobs/rack/rack.sh down [--name NAME | --all]
#   jobs/rack/rack.sh mpirun [--name NAME] MPIRUN-ARGS...   mpirun from the head node, TCP over the rack only
#   jobs/rack/rack.sh exec [--name NAME] COMMAND...         COMMAND on the head node, its mpiruns set for the rack
#   jobs/rack/rack.sh show [--name NAME]                    the rack's state file (JSON)
# R, R2: tc rates (e.g. 1gbit, 10gbit, 500mbit); D: one-way delay of each link (e.g. 0.1ms; needs the kernel's
# netem); S: the first S nodes hold the servers and get R2; NAME: [a-z0-9]{1,6}, default "rack".
# The state (hostfile, hostfile.mpich, hosts, rack.json) lives in /run/psr-NAME; docs/rack.md describes all of it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly prefix="psr"
readonly subnet="10.77.0"
# shellcheck source=../lib/mpi_flavor.sh
source "$here/../lib/mpi_flavor.sh"

die() {
  echo "rack: error: $*" >&2
  exit 2
}

# Names of everything a rack NAME owns.
ns_switch() { echo "$prefix-$1-sw"; }
ns_head() { echo "$prefix-$1-head"; }
ns_node() { echo "$prefix-$1-n$2"; }
if_rack() { echo "$prefix-$1-if"; }
state_dir() { echo "/run/$prefix-$1"; }

# Rack names are short: a 15-character interface name must hold psr-NAME-p200.
check_name() {
  [[ "$1" =~ ^[a-z0-9]{1,6}$ ]] || die "rack name '$1' must be 1 to 6 of [a-z0-9]"
}

# FLAG RATE: RATE must be a tc rate in bits per second.
check_rate() {
  [[ "$2" =~ ^[0-9]+(\.[0-9]+)?(bit|kbit|mbit|gbit)$ ]] || die "$1 '$2' is not a tc rate such as 1gbit or 500mbit"
}

# Bytes per second of a tc rate such as 1gbit (tc's bit units are powers of ten).
rate_bytes_per_s() {
  awk -v r="$1" 'BEGIN { m = 1; if (r ~ /kbit$/) m = 1e3; else if (r ~ /mbit$/) m = 1e6; else if (r ~ /gbit$/) m = 1e9;
    sub(/[a-z]+$/, "", r); printf "%.0f", r * m / 8 }'
}

# The token bucket: large enough to ride out the qdisc watchdog's wake-up latency (docs/rack.md, "Shaping").
burst_bytes() {
  awk -v bps="$(rate_bytes_per_s "$1")" -v us="$2" 'BEGIN { b = bps * us / 1e6; if (b < 16384) b = 16384; printf "%.0f", b }'
}

# Shapes the egress of DEV in namespace NS: a token bucket at RATE, then netem's DELAY where one is asked for.
shape() {
  local ns="$1" dev="$2" rate="$3" delay="$4" burst_us="$5"
  local burst
  burst="$(burst_bytes "$rate" "$burst_us")"
  tc -n "$ns" qdisc add dev "$dev" root handle 1: tbf rate "$rate" burst "$burst" latency 100ms
  if [[ "$delay" != 0ms ]]; then
    tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 10: netem delay "$delay" limit 100000
  fi
}

# Fails unless this kernel has netem (tc's delay): many VM kernels ship without CONFIG_NET_SCH_NETEM.
check_netem() {
  local ns="$1"
  tc -n "$ns" qdisc add dev lo root netem delay 1ms 2>/dev/null ||
    die "--delay needs the kernel's netem qdisc (CONFIG_NET_SCH_NETEM), which this kernel lacks; use --delay 0"
  tc -n "$ns" qdisc del dev lo root
}

# A namespace with loopback up and no IPv6 (Open MPI would otherwise also try the link-local addresses).
make_namespace() {
  ip netns add "$1"
  ip -n "$1" link set lo up
  ip netns exec "$1" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
}

# Links namespace NS to the switch through port PORT at address ADDR; RATE "" leaves the link unshaped.
attach() {
  local name="$1" ns="$2" port="$3" addr="$4" rate="$5" delay="$6" burst_us="$7"
  local switch dev
  switch="$(ns_switch "$name")"
  dev="$(if_rack "$name")"
  ip -n "$switch" link add "$port" type veth peer name "$dev" netns "$ns"
  ip -n "$switch" link set "$port" master "$prefix-$name-br" up
  ip -n "$ns" addr add "$addr/24" dev "$dev"
  ip -n "$ns" link set "$dev" up
  if [[ -n "$rate" ]]; then
    shape "$ns" "$dev" "$rate" "$delay" "$burst_us"       # the node's uplink
    shape "$switch" "$port" "$rate" "$delay" "$burst_us"  # its downlink
  fi
}

# /etc/hosts of the rack (ip netns exec binds /etc/netns/NS/hosts over /etc/hosts) and the hostfiles: Open MPI's
# (`host slots=1`) and Hydra's (`host:1`).
write_names() {
  local name="$1" nodes="$2" dir="$3"
  local hosts="$dir/hosts" i
  printf '127.0.0.1 localhost\n%s.254 %s\n' "$subnet" "$(ns_head "$name")" >"$hosts"
  : >"$dir/hostfile"
  : >"$dir/hostfile.mpich"
  for ((i = 1; i <= nodes; i++)); do
    printf '%s.%d %s\n' "$subnet" "$i" "$(ns_node "$name" "$i")" >>"$hosts"
    printf '%s slots=1\n' "$(ns_node "$name" "$i")" >>"$dir/hostfile"
    printf '%s:1\n' "$(ns_node "$name" "$i")" >>"$dir/hostfile.mpich"
  done
  for ns in "$(ns_head "$name")" $(node_namespaces "$name" "$nodes"); do
    mkdir -p "/etc/netns/$ns"
    cp "$hosts" "/etc/netns/$ns/hosts"
  done
}

# The node namespaces of rack NAME with N nodes.
node_namespaces() {
  local i
  for ((i = 1; i <= $2; i++)); do ns_node "$1" "$i"; done
}

# rack.json: what up made, for show, the sweep and the manifest.
write_state() {
  local name="$1" nodes="$2" rate="$3" delay="$4" server_rate="$5" servers="$6" burst_us="$7" dir="$8"
  cat >"$dir/rack.json.tmp" <<EOF
{"name": "$name", "nodes": $nodes, "servers": $servers, "rate": "$rate", "delay": "$delay",
 "server_rate": "$server_rate", "burst_us": $burst_us, "interface": "$(if_rack "$name")",
 "hostfile": "$dir/hostfile", "head": "$(ns_head "$name")", "subnet": "$subnet.0/24"}
EOF
  mv "$dir/rack.json.tmp" "$dir/rack.json"
}

# up: checks every argument before it makes anything.
cmd_up() {
  local nodes="" rate="" delay=0ms server_rate="" servers=1 burst_us=1000 name=rack
  [[ $# -gt 0 && "$1" != -* ]] && { nodes="$1"; shift; }
  while [[ $# -gt 0 ]]; do
    [[ $# -ge 2 ]] || die "up: '$1' needs a value"
    case "$1" in
      --rate) rate="${2:-}"; shift 2 ;;
      --delay) delay="${2:-}"; shift 2 ;;
      --server-rate) server_rate="${2:-}"; shift 2 ;;
      --servers) servers="${2:-}"; shift 2 ;;
      --burst-us) burst_us="${2:-}"; shift 2 ;;
      --name) name="${2:-}"; shift 2 ;;
      *) die "up: unknown argument '$1'" ;;
    esac
  done
  [[ "$nodes" =~ ^[0-9]+$ ]] && ((nodes >= 1 && nodes <= 200)) || die "up: the node count N must be 1 to 200"
  check_name "$name"
  check_rate --rate "$rate"
  [[ -z "$server_rate" ]] && server_rate="$rate"
  check_rate --server-rate "$server_rate"
  [[ "$delay" =~ ^[0-9]+(\.[0-9]+)?(us|ms)$ ]] || die "--delay '$delay' is not a delay such as 0.1ms or 50us"
  [[ "$servers" =~ ^[0-9]+$ ]] && ((servers <= nodes)) || die "--servers must be 0 to N ($nodes)"
  [[ "$burst_us" =~ ^[0-9]+$ ]] && ((burst_us > 0)) || die "--burst-us must be a positive count of microseconds"
  [[ $(id -u) -eq 0 ]] || die "up needs root (network namespaces and tc)"
  ip netns list | grep -q "^$prefix-$name-" && die "a rack '$name' is up already; run 'rack.sh down --name $name'"
  build_rack "$name" "$nodes" "$rate" "$delay" "$server_rate" "$servers" "$burst_us"
}

# Makes the switch, the head and the nodes, then the names and the state; removes it all if any step fails.
build_rack() {
  local name="$1" nodes="$2" rate="$3" delay="$4" server_rate="$5" servers="$6" burst_us="$7"
  local switch dir i node_rate
  trap 'remove_rack "$name"' EXIT  # a failed or interrupted up removes what it made
  switch="$(ns_switch "$name")"
  dir="$(state_dir "$name")"
  mkdir -p "$dir"
  make_namespace "$switch"
  if [[ "$delay" =~ ^0+(\.0+)?(us|ms)$ ]]; then
    delay=0ms
  else
    check_netem "$switch"
  fi
  ip -n "$switch" link add "$prefix-$name-br" type bridge stp_state 0 forward_delay 0
  ip -n "$switch" link set "$prefix-$name-br" up
  make_namespace "$(ns_head "$name")"
  attach "$name" "$(ns_head "$name")" "$prefix-$name-ph" "$subnet.254" "" 0ms "$burst_us"
  for ((i = 1; i <= nodes; i++)); do
    node_rate="$rate"
    ((i <= servers)) && node_rate="$server_rate"
    make_namespace "$(ns_node "$name" "$i")"
    attach "$name" "$(ns_node "$name" "$i")" "$prefix-$name-p$i" "$subnet.$i" "$node_rate" "$delay" "$burst_us"
  done
  write_names "$name" "$nodes" "$dir"
  write_state "$name" "$nodes" "$rate" "$delay" "$server_rate" "$servers" "$burst_us" "$dir"
  trap - EXIT
  echo "rack: $nodes node(s) up as $prefix-$name-n1..n$nodes at $rate (servers' $servers node(s): $server_rate)," \
    "delay $delay; hostfile $dir/hostfile"
}

# Ends the processes inside the rack's namespaces (its own mpirun and ranks), then deletes the namespaces, the
# names and the state. Safe to run any number of times, also after a killed run or a failed up.
remove_rack() {
  local name="$1" match="$prefix-$1-"
  [[ "$name" == "*" ]] && match="$prefix-"
  local namespaces pids
  namespaces="$(ip netns list | awk '{print $1}' | grep "^$match" || true)"
  for signal in TERM KILL; do
    pids="$(for ns in $namespaces; do ip netns pids "$ns" 2>/dev/null; done | sort -u)"
    [[ -z "$pids" ]] && break
    # shellcheck disable=SC2086  # one argument per pid
    kill -s "$signal" $pids 2>/dev/null || true
    sleep 0.5
  done
  for ns in $namespaces; do ip netns del "$ns"; done
  # Defence in depth: the rack never makes a link in the root namespace; remove one with its prefix if found.
  for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$match" || true); do
    ip link del "$link"
  done
  rm -rf /etc/netns/"$match"* /run/"${match%-}"
  [[ "$name" == "*" ]] && rm -rf /run/"$prefix"-*
  return 0
}

# down [--name NAME | --all].
cmd_down() {
  local name=rack
  case "${1:-}" in
    --all) name="*" ;;
    --name) name="${2:-}"; check_name "$name" ;;
    "") ;;
    *) die "down: unknown argument '$1'" ;;
  esac
  [[ $(id -u) -eq 0 ]] || die "down needs root"
  remove_rack "$name"
}

# Runs COMMAND... on the head node with both MPIs' settings for the rack in the environment, read by every mpirun it
# starts, as docs/rack.md measured them. Open MPI (OMPI_MCA_*): the rsh agent, one daemon per node from the head,
# TCP over the rack's interface only (MPI and Open MPI's out-of-band traffic), no core binding, one-sided
# communication by osc/pt2pt. MPICH's Hydra (HYDRA_*): the same agent as its rsh launcher, its control traffic on
# the rack's interface; MPICH's UCX: TCP on that interface only (else UCX takes shared memory and CMA between the
# namespaces, which share one kernel, and the link is never used). RACK_HOSTFILE names Open MPI's hostfile,
# RACK_HOSTFILE_MPICH Hydra's. It execs all the way down, so a signal to this script (a timeout, a kill) reaches
# COMMAND itself.
cmd_exec() {
  local name=rack
  [[ "${1:-}" == --name ]] && { name="${2:-}"; shift 2 || shift; }
  check_name "$name"
  [[ $# -gt 0 ]] || die "exec: no command"
  local dir head iface
  dir="$(state_dir "$name")"
  head="$(ns_head "$name")"
  iface="$(if_rack "$name")"
  [[ -r "$dir/hostfile" ]] || die "no rack '$name' is up (no $dir/hostfile); run 'rack.sh up' first"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RACK_HOSTFILE="$dir/hostfile"
  export OMPI_MCA_plm_rsh_agent="$here/agent.sh" OMPI_MCA_plm_rsh_no_tree_spawn=1 OMPI_MCA_btl=tcp,self
  export OMPI_MCA_btl_tcp_if_include="$iface" OMPI_MCA_oob_tcp_if_include="$iface"
  export OMPI_MCA_hwloc_base_binding_policy=none
  # One-sided communication (--inter-node rma) over TCP: Open MPI 4.1 selects no working component by default there
  # (osc/ucx takes the window and fails it; osc/rdma needs a network that does remote writes), so the rack names
  # osc/pt2pt, which emulates it by messages, and osc/sm for the shared windows within a node.
  export OMPI_MCA_osc=sm,pt2pt
  export RACK_HOSTFILE_MPICH="$dir/hostfile.mpich" HYDRA_LAUNCHER=rsh HYDRA_LAUNCHER_EXEC="$here/agent.sh"
  export HYDRA_IFACE="$iface" UCX_TLS=self,tcp UCX_NET_DEVICES="$iface"
  exec ip netns exec "$head" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$head" "$@"
}

# mpirun on the head node across the rack's hostfile, with cmd_exec's settings, then MPIRUN-ARGS. The launcher is
# that of the MPI the program links (the first argument that is a path to an executable file; jobs/lib/mpi_flavor.sh),
# else MPIRUN or mpirun; Hydra gets its own hostfile.
cmd_mpirun() {
  local name=rack arg program="" hostfile
  [[ "${1:-}" == --name ]] && { name="${2:-}"; shift 2 || shift; }
  check_name "$name"
  [[ -r "$(state_dir "$name")/hostfile" ]] || die "no rack '$name' is up (no $(state_dir "$name")/hostfile); run 'rack.sh up' first"
  for arg in "$@"; do
    [[ "$arg" == */* && -f "$arg" && -x "$arg" ]] && { program="$arg"; break; }
  done
  select_launcher_for "$([[ -n "$program" ]] && program_flavor "$program")" "$program"
  hostfile=(--hostfile "$(state_dir "$name")/hostfile")
  [[ "$mpi_flavor" == mpich ]] && hostfile=(-f "$(state_dir "$name")/hostfile.mpich")
  cmd_exec --name "$name" "$mpi_launcher" "${hostfile[@]}" "$@"
}

# show: prints rack.json.
cmd_show() {
  local name=rack
  [[ "${1:-}" == --name ]] && name="${2:-}"
  check_name "$name"
  [[ -r "$(state_dir "$name")/rack.json" ]] || die "no rack '$name' is up"
  cat "$(state_dir "$name")/rack.json"
}

main() {
  local command="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "$command" in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    mpirun) cmd_mpirun "$@" ;;
    exec) cmd_exec "$@" ;;
    show) cmd_show "$@" ;;
    *) die "usage: rack.sh up N --rate R [--delay D] [--server-rate R2] [--servers S] [--name NAME] | down [--name NAME | --all] | mpirun [--name NAME] ARGS... | exec [--name NAME] COMMAND... | show [--name NAME]" ;;
  esac
}

main "$@"
