#!/bin/sh
# Open MPI's rsh agent on the virtual rack (plm_rsh_agent): runs the daemon's command line on node $1, a
# namespace that jobs/rack/rack.sh made, under the node's own host name, through a shell as ssh would.
node="$1"
shift
case "$node" in
  psr-*-n[0-9]*) ;;
  *) echo "rack agent: error: '$node' is not a rack node (psr-NAME-nK)" >&2; exit 2 ;;
esac
ip netns list | grep -q "^$node\( \|\$\)" || { echo "rack agent: error: no namespace '$node'" >&2; exit 2; }
exec ip netns exec "$node" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$node" "$*"
