"""Check a dataset written by the tests with h5py: shape (HDF5's C order), dtype, and every
element equal to the closed form of its linear index (the formulas of tests/c/pattern.h).

    check_pattern.py PATH DATASET DTYPE D0 [D1 ...]

Prints one line and exits 0 when all holds; exits 1 with the first differences otherwise.
"""
import sys

import h5py
import numpy as np


def pattern(dtype, n):
    l = np.arange(n, dtype=np.uint64)
    li = l.astype(np.int64)
    if dtype == "int8":
        return ((li % 251) - 125).astype(np.int8)
    if dtype == "int16":
        return ((li % 65521) - 32760).astype(np.int16)
    if dtype == "int32":
        return (li * 3 - 123456).astype(np.int32)
    if dtype == "int64":
        return li * 1000003 - 5000000000000
    if dtype == "uint8":
        return (l % 251).astype(np.uint8)
    if dtype == "uint16":
        return (l % 65521).astype(np.uint16)
    if dtype == "uint32":
        return (l * 5 + 7).astype(np.uint32)
    if dtype == "uint64":
        return l * 1000003 + (1 << 40)
    if dtype == "float32":
        return l.astype(np.float32) * np.float32(0.25) - np.float32(100)
    if dtype == "float64":
        return l.astype(np.float64) + l.astype(np.float64) / 1024.0
    if dtype == "complex64":
        f = l.astype(np.float32)
        return (f * np.float32(0.25) - 1j * (f * np.float32(0.5))).astype(np.complex64)
    if dtype == "complex128":
        f = l.astype(np.float64)
        return f + 0.5 - 1j * f
    raise SystemExit(f"unknown dtype {dtype}")


def main():
    path, name, dtype = sys.argv[1:4]
    dims = tuple(int(d) for d in sys.argv[4:])
    with h5py.File(path, "r") as f:
        dset = f[name]
        if dset.shape != dims:
            raise SystemExit(f"{name}: shape {dset.shape}, expected {dims}")
        if dset.dtype != np.dtype(dtype):
            raise SystemExit(f"{name}: dtype {dset.dtype}, expected {dtype}")
        data = dset[()]
    expected = pattern(dtype, int(np.prod(dims))).reshape(dims)
    wrong = np.argwhere(data != expected)
    if len(wrong):
        first = [tuple(int(i) for i in w) for w in wrong[:5]]
        print(f"{name}: {len(wrong)} elements differ, first at {first}: "
              f"{[data[w] for w in first]} vs {[expected[w] for w in first]}")
        sys.exit(1)
    print(f"{path}:{name}: {dtype} {dims}, all {data.size} elements match")


if __name__ == "__main__":
    main()
