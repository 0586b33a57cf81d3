"""Direct block mode driven the way DAH5.write_darray drives it for plain `addprocs` workers
(ext/DAH5DistributedArraysExt.jl), from Python: ctypes with the Julia ccall types, no MPI.
The master makes the dataset with the DArray's block table (Julia order, DAH5_ORDER_F); three
forked workers each open it, write their localpart (a column block, F-ordered numpy), fsync
and close; then h5py checks the file.

    julia_direct.py LIBDAH5 PATH
"""
import ctypes
import os
import sys
from ctypes import POINTER, byref, c_char_p, c_int32, c_uint32, c_uint64, c_void_p

import h5py
import numpy as np

DAH5_TRUNC, DAH5_ORDER_F, DAH5_RDONLY, DAH5_RDWR, DAH5_FLOAT64 = 4, 16, 1, 2, 10
U64P = POINTER(c_uint64)
# The ccall tuples of julia/DAH5/src/libdah5.jl.
PROTOTYPES = {
    "dah5_direct_create": [c_char_p, c_char_p, c_int32, c_uint32, U64P, c_uint32, c_uint32, U64P, U64P],
    "dah5_direct_open": [c_char_p, c_char_p, c_uint32, POINTER(c_void_p)],
    "dah5_direct_write_block": [c_void_p, U64P, U64P, c_int32, c_void_p],
    "dah5_direct_sync": [c_void_p],
    "dah5_direct_close": [POINTER(c_void_p)],
}


def load(path):
    lib = ctypes.CDLL(path)
    for name, argtypes in PROTOTYPES.items():
        getattr(lib, name).argtypes = argtypes
        getattr(lib, name).restype = c_int32
    lib.dah5_last_error_message.restype = c_char_p
    return lib


def check(lib, status, what):
    if status != 0:
        sys.exit(f"{what}: {status}: {lib.dah5_last_error_message().decode()}")


def u64(values):
    return (c_uint64 * len(values))(*values)


def main():
    lib, path = load(sys.argv[1]), sys.argv[2].encode()
    nx, ny, workers = 5, 7, 3
    a = np.asfortranarray(np.arange(nx * ny, dtype="f8").reshape((nx, ny), order="F") * 1.5)
    # d.indices: column blocks (1:nx, j0:j1), 1-based; offsets and counts 0-based.
    cols = [(ny * w // workers, ny * (w + 1) // workers) for w in range(workers)]
    offsets = [v for j0, _ in cols for v in (0, j0)]
    counts = [v for j0, j1 in cols for v in (nx, j1 - j0)]
    check(lib, lib.dah5_direct_create(path, b"A", DAH5_FLOAT64, 2, u64([nx, ny]),
                                      DAH5_TRUNC | DAH5_ORDER_F, workers, u64(offsets),
                                      u64(counts)), "create")
    children = []
    for w, (j0, j1) in enumerate(cols):
        pid = os.fork()
        if pid == 0:  # the worker: @spawnat p write_local(...)
            d = c_void_p()
            check(lib, lib.dah5_direct_open(path, b"A", DAH5_RDWR | DAH5_ORDER_F, byref(d)), "open")
            part = np.asfortranarray(a[:, j0:j1])  # localpart(d)
            check(lib, lib.dah5_direct_write_block(d, u64([0, j0]), u64([nx, j1 - j0]),
                                                   DAH5_FLOAT64, part.ctypes.data), "write")
            check(lib, lib.dah5_direct_sync(d), "sync")
            check(lib, lib.dah5_direct_close(byref(d)), "close")
            os._exit(0)
        children.append(pid)
    for pid in children:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, f"worker {pid} failed"
    with h5py.File(path, "r") as f:
        stored = f["A"]
        assert stored.shape == (ny, nx), stored.shape
        assert np.array_equal(stored[()].T, a), "data differs"
        assert stored.attrs["dah5_writer_order"] == "F"
        table = f[stored.attrs["dah5_block_table"]]
        assert table[:, 1, :].tolist() == [[j1 - j0, nx] for j0, j1 in cols]
    print(f"{workers} workers wrote ({nx}, {ny}) without MPI; h5py sees its transpose and the blocks")


if __name__ == "__main__":
    main()
