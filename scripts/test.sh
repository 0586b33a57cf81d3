#!/usr/bin/env bash
# Run every dah5 test: Rust unit tests, then C, Fortran and Python programs under mpiexec
# with 1-4 ranks checked by h5py and h5dump, the header drift and strict-compile checks, and
# lint; on one MPI stack:
#   ./scripts/test.sh                    Open MPI and its parallel HDF5
#   DAH5_MPI=mpich ./scripts/test.sh     MPICH and its parallel HDF5 (target/mpich)
#   DAH5_HDF5_DIR=/prefix ./scripts/test.sh
#                                        another parallel HDF5 of that MPI (target/hdf5-*):
#                                        a cluster's module, or scripts/hdf5-source.sh's 2.2
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
dah5_test_deps
echo "dah5: testing on $(. /etc/os-release && echo "$PRETTY_NAME"), $DAH5_MPI ($($DAH5_MPIEXEC --version 2>&1 | grep -m1 -iE 'open mpi|version')), HDF5 $DAH5_HDF5_VERSION ($HDF5_DIR)" >&2

cargo fmt --check
cargo clippy --all-targets -- -D warnings
# The library the tests load (they build it too) must be linked to the HDF5 asked for.
cargo build --lib
dah5_check_linked_hdf5 "$CARGO_TARGET_DIR/debug/libdah5.so"
cargo test
# Every file the tests left (under $CARGO_TARGET_DIR/tmp) opens, whole, in every reader:
# h5dump, h5py, ncdump, netCDF4-python, xarray with both engines.
/usr/bin/python3 tests/py/every_file.py "$CARGO_TARGET_DIR/tmp"
