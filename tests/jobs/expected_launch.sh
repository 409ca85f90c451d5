#!/usr/bin/env bash
# Prints the command prefix (check_results.py --launch) with which the mpirun jobs launch the psbench binary $1:
# Open MPI's `mpirun -np RANKS --hostfile`, or for an MPICH build Hydra's `-f`, through mpirun when it is MPICH's
# and Debian's mpirun.mpich when mpirun is Open MPI's.
set -euo pipefail
case "$("$1" --version | sed -n 's/^MPI: //p')" in
  "Open MPI"*) echo "mpirun -np RANKS --hostfile" ;;
  MPICH*)
    if mpirun --version 2>&1 | grep -q HYDRA; then echo "mpirun -np RANKS -f"; else echo "mpirun.mpich -np RANKS -f"; fi ;;
  *) echo "expected_launch.sh: cannot tell the MPI of $1" >&2; exit 1 ;;
esac
