#!/usr/bin/env bash
# Run every dah5 test: Rust unit tests, then C programs under mpiexec with 1-4 ranks
# checked by h5py and h5dump, the header drift and strict-compile checks, and lint.
#   ./scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
dah5_install_deps
dah5_mpi_env

cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo test
