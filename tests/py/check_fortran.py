"""Check the file tests/fortran/blocks.f90 wrote, with h5py: every dataset's dims are the
Fortran dims reversed (HDF5's C order, as HDF5's own Fortran API stores them), and every
element holds the value blocks.f90 gave it (one block per rank, and many in many/); the
group it made is there, empty.

    check_fortran.py PATH NRANKS
"""
import sys

import h5py
import numpy as np

BASE_DIMS = [3, 4, 2, 5]


def fortran_dims(k, nranks):
    dims = BASE_DIMS[:k]
    dims[-1] = 2 * nranks + 1
    return dims


def linear_numbers(dims):
    """v of blocks.f90: each element's column-major linear number, from 1, as A(dims)."""
    return np.arange(1, int(np.prod(dims)) + 1, dtype=np.int64).reshape(dims, order="F")


def check(dataset, fdims, expected, dtype):
    assert dataset.shape == tuple(reversed(fdims)), (dataset.name, dataset.shape, fdims)
    assert dataset.dtype == np.dtype(dtype), (dataset.name, dataset.dtype)
    # h5py gives the C-order view: its transpose is the Fortran array.
    data = dataset[()].T
    if not np.array_equal(data, expected.astype(dtype)):
        bad = np.argwhere(data != expected)
        sys.exit(f"{dataset.name}: {len(bad)} wrong elements, first at {bad[0]}")


def main():
    path, nranks = sys.argv[1], int(sys.argv[2])
    checked = 0
    with h5py.File(path, "r") as f:
        for k in range(1, 5):
            dims = fortran_dims(k, nranks)
            check(f[f"ranks/r{k}"], dims, linear_numbers(dims) + 0.25, "f8")
            checked += 1
        dims = fortran_dims(2, nranks)
        v = linear_numbers(dims)
        for name, expected, dtype in [
            ("int32", v, "i4"),
            ("int64", v + 2**40, "i8"),
            ("float32", v + 0.5, "f4"),
            ("float64", v + 0.25, "f8"),
            ("complex64", v - 1j * v, "c8"),
            ("complex128", v + 0.5 - 1j * v, "c16"),
        ]:
            check(f[f"types/{name}"], dims, expected, dtype)
            checked += 1
        # Many blocks per rank (2 x 1 tiles dealt round-robin): the same v.
        dims = [6, 2 * nranks + 1]
        v = linear_numbers(dims)
        for name, expected, dtype in [
            ("blocks", v + 0.25, "f8"),  # dah5_write_blocks
            ("darray", v + 2**40, "i8"),  # dah5_darray_write_blocks
            ("created", v, "i4"),  # dah5_darray_create_blocks + dah5_write_blocks
        ]:
            check(f[f"many/{name}"], dims, expected, dtype)
            checked += 1
        assert "refused" not in f["many"], list(f["many"])  # one rank's bad call: nothing made
        # dah5_group_create's group: empty, its parent made with it; none in the read-only file.
        assert isinstance(f["groups/empty"], h5py.Group) and len(f["groups/empty"]) == 0
        assert list(f["groups"]) == ["empty"] and "ro" not in f, list(f)
    print(f"{checked} datasets match the Fortran arrays")


if __name__ == "__main__":
    main()
