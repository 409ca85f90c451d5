#!/usr/bin/env bash
# Installs the Debian 12 packages psbench needs (only those missing), then configures and builds it.
# Idempotent: a second run only rebuilds what changed. Usage: jobs/setup.sh [cmake preset, default 'default']
# MPICH beside Open MPI: `PSBENCH_MPI=mpich jobs/setup.sh` (or the preset `mpich`) also installs Debian's MPICH
# and its HDF5 and builds the preset `mpich`; Open MPI stays the machine's default mpirun, mpicc and h5pcc.
set -euo pipefail

mpi="${PSBENCH_MPI:-openmpi}"
[[ "${1:-}" == mpich ]] && mpi=mpich
[[ "$mpi" =~ ^(openmpi|mpich)$ ]] || { echo "setup: error: PSBENCH_MPI='$mpi' is not openmpi or mpich" >&2; exit 2; }
preset="${1:-$([[ "$mpi" == mpich ]] && echo mpich || echo default)}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(
  build-essential cmake pkg-config python3
  libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev hdf5-tools
  libdnnl-dev ocl-icd-opencl-dev
  libbenchmark-dev libgtest-dev
  libcli11-dev nlohmann-json3-dev zlib1g-dev
  dataset-fashion-mnist
  libsimgrid-dev
  python3-matplotlib
  slurm-wlm munge
  clang libclang-rt-14-dev
  iproute2
)
[[ "$mpi" == mpich ]] && packages+=(mpich libmpich-dev libhdf5-mpich-dev)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: error: packages are missing and installing them needs root (run as root or with sudo)" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
  # Debian ranks Open MPI above MPICH, but a machine may rank them otherwise: the generic names stay Open MPI's.
  for link in mpirun:/usr/bin/mpirun.openmpi mpi:/usr/bin/mpicc.openmpi h5pcc:/usr/bin/h5pcc.openmpi; do
    if update-alternatives --query "${link%%:*}" 2>/dev/null | grep -q '^Value: .*mpich'; then
      update-alternatives --set "${link%%:*}" "${link#*:}"
    fi
  done
else
  echo "setup: all ${#packages[@]} Debian packages present"
fi

echo "setup: configuring and building preset '$preset'"
cd "$root"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
echo "setup: built $root/build/$preset/src/cli/psbench"
