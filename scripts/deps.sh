#!/usr/bin/env bash
# Install what dah5 needs on Debian/Ubuntu: parallel HDF5 (Open MPI build), Open MPI,
# libclang (bindgen for mpi-sys), gfortran (the Fortran module), the HDF5 tools,
# Debian's h5py/mpi4py for the tests, MPICH's library (a test loads it as the "other" MPI)
# and matplotlib for the benchmark's plot.
# Uses apt-get as root, sudo otherwise. Sourced by demo.sh and test.sh.
#
# On a cluster, do not run this: load your modules instead, e.g.
#   module load openmpi hdf5/1.10-parallel      (names differ per site)
#   export HDF5_DIR=/path/to/parallel/hdf5      (if hdf5 is not found by pkg-config)
# and make sure `mpicc` is the wrapper of the MPI that HDF5 was built with.
set -euo pipefail

DAH5_APT_PACKAGES=(
    libhdf5-openmpi-dev openmpi-bin libopenmpi-dev libclang-dev pkg-config
    hdf5-tools python3-h5py-mpi python3-mpi4py python3-numpy python3-matplotlib gcc g++ gfortran
    make libmpich12
)

dah5_install_deps() {
    local missing=()
    for p in "${DAH5_APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "dah5: installing ${missing[*]}" >&2
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if ! command -v cargo >/dev/null; then
        echo "dah5: cargo (Rust >= 1.85) is needed; install it with rustup (https://rustup.rs)" >&2
        exit 1
    fi
}

# Open MPI refuses to run as root, and more ranks than cores, unless told; containers and
# CI machines often are root with 2 cores.
dah5_mpi_env() {
    if [[ $(id -u) -eq 0 ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
}
