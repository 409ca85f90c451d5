#!/usr/bin/env bash
# An rsh agent for Open MPI (plm_rsh_agent) and MPICH's Hydra (-launcher-exec) that makes "nodes" on this machine: `uts_node_agent.sh HOST
# COMMAND...` runs COMMAND here, as ssh would run it, in a new UTS namespace whose host name is HOST, so
# that every rank it starts reports HOST as its host.
host="$1"
shift
exec unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
