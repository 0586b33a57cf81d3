#!/usr/bin/env bash
# The dah5 demo: 4 MPI ranks write one distributed 2-D array into one HDF5 dataset (row
# blocks of uneven sizes, one rank empty; the decomposition is recorded in the file) and
# read it back in column blocks; then 3 ranks read the same file; then h5dump and dah5 info
# show what is in it.
#   ./scripts/demo.sh [FILE.h5]    (DAH5_MPI=mpich for MPICH, DAH5_HDF5_DIR=/prefix for
#                                  another HDF5; see scripts/deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
dah5_install_deps

make --no-print-directory -s examples CARGO="cargo -q"
dah5_check_linked_hdf5 "$CARGO_TARGET_DIR/release/libdah5.so"
file=${1:-$BUILD/demo.h5}
echo "== mpiexec -n 4: write rows, read back columns =="
timeout 120 "$DAH5_MPIEXEC" -n 4 "$BUILD/examples/darray_roundtrip" "$file"
echo
echo "== mpiexec -n 3: read the same file with another number of ranks =="
timeout 120 "$DAH5_MPIEXEC" -n 3 "$BUILD/examples/darray_roundtrip" --read "$file"
echo
echo "== h5dump -H $file (a reader dah5 did not write) =="
h5dump -H "$file"
echo
echo "== h5dump -d /field $file =="
h5dump -d /field "$file"
echo
echo "== h5dump: the recorded decomposition ([rank, 0, :] offset, [rank, 1, :] count) =="
h5dump -d /dah5_blocks/field "$file"
echo
echo "== dah5 info --blocks $file =="
"$CARGO_TARGET_DIR/release/dah5" info --blocks "$file"
