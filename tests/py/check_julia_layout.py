"""Check the file julia_like.py wrote against what HDF5.jl writes for the same arrays.

HDF5.jl stores a Julia array A of size (nx, ny) with HDF5 dims (ny, nx) and A's
column-major bytes unchanged, and ComplexF64 as the compound {r, i}. This script writes
that reference file with h5py (REFERENCE), then checks with h5py that PATH has the reversed
dims and the very same bytes; the test then runs h5diff on the two files.

    check_julia_layout.py PATH REFERENCE
"""
import sys

import h5py
import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from julia_like import julia_array, many_arrays, steps_array  # noqa: E402  (what julia_like.py wrote)

NX, NY = 4, 7


def main():
    path, reference = sys.argv[1], sys.argv[2]
    a = julia_array(NX, NY)
    m, w = many_arrays()  # written in many blocks per rank
    arrays = {"A": a, "Z": np.asfortranarray(a - 2j * a), "BC": m, "BW": w, "BE": m,
              "T": steps_array(a)}  # T: written behind, in steps
    with h5py.File(reference, "w") as ref:
        for name, julia in arrays.items():
            # The C-order view of Julia's bytes: shape (ny, nx), what HDF5.jl writes.
            ref.create_dataset(name, data=julia.T)
    with h5py.File(path, "r") as f:
        for name, julia in arrays.items():
            stored = f[name][()]
            assert stored.shape == julia.shape[::-1], (name, stored.shape)
            assert stored.dtype == julia.dtype, (name, stored.dtype)
            assert stored.tobytes() == julia.tobytes(order="F"), f"{name}: bytes differ"
    print(f"{', '.join(arrays)}: dims reversed and bytes as HDF5.jl writes them")


if __name__ == "__main__":
    main()
