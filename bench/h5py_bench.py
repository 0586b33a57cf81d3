"""h5py (mpio driver) on the pattern of bench/bench.c, with mpi4py's MPI-IO as the baseline
of the same rounds. Run with Debian's /usr/bin/python3 under mpiexec.

    h5py_bench.py bandwidth DIR MIB ROUNDS
    h5py_bench.py metadata DIR COUNT

CSV on stdout as bench.c writes it: protocol,method,round,seconds,bytes
"""
import os
import sys
import time

import h5py
import numpy as np
from mpi4py import MPI

COMM = MPI.COMM_WORLD
RANK, SIZE = COMM.Get_rank(), COMM.Get_size()


def timed(op):
    os.sync()
    COMM.Barrier()
    t0 = time.perf_counter()
    op()
    COMM.Barrier()
    return time.perf_counter() - t0


class Run:
    def __init__(self, directory, mib):
        self.dir = directory
        self.n = mib * 131072
        self.buf = np.arange(RANK * self.n, (RANK + 1) * self.n, dtype=np.float64)
        self.lo, self.hi = RANK * self.n, (RANK + 1) * self.n
        self.protocol = None
        existing = self.path("h5py_existing.h5")
        self.file = h5py.File(existing, "w", driver="mpio", comm=COMM)
        self.dset = self.file.create_dataset("x", (SIZE * self.n,), "f8")
        self.dset[self.lo:self.hi] = self.buf
        self.mf = MPI.File.Open(COMM, self.path("mpi4py_existing.bin"),
                                MPI.MODE_CREATE | MPI.MODE_RDWR)
        self.mf.Write_at(self.lo * 8, self.buf)
        COMM.Barrier()

    def path(self, name):
        return os.path.join(self.dir, name)

    def h5py_op(self, collective):
        def transfer(d):
            if self.protocol == "read":
                d.read_direct(self.buf, np.s_[self.lo:self.hi])
            else:
                d[self.lo:self.hi] = self.buf

        def maybe_collective(d):
            if collective:
                with d.collective:
                    transfer(d)
            else:
                transfer(d)

        if self.protocol in ("overwrite", "read"):
            maybe_collective(self.dset)
            return
        with h5py.File(self.path("h5py_new.h5"), "w", driver="mpio", comm=COMM) as f:
            maybe_collective(f.create_dataset("x", (SIZE * self.n,), "f8"))
            if self.protocol == "fsync":
                f.flush()

    def h5py_ind(self):
        self.h5py_op(False)

    def h5py_coll(self):
        self.h5py_op(True)

    def mpi4py_ind(self):
        if self.protocol == "read":
            self.mf.Read_at(self.lo * 8, self.buf)
            return
        if self.protocol == "overwrite":
            self.mf.Write_at(self.lo * 8, self.buf)
            return
        name = self.path("mpi4py_new.bin")
        if RANK == 0 and os.path.exists(name):
            MPI.File.Delete(name)
        COMM.Barrier()
        f = MPI.File.Open(COMM, name, MPI.MODE_CREATE | MPI.MODE_WRONLY)
        f.Write_at(self.lo * 8, self.buf)
        if self.protocol == "fsync":
            f.Sync()
        f.Close()

    def close(self):
        self.file.close()
        self.mf.Close()


def bandwidth(directory, mib, rounds):
    run = Run(directory, mib)
    methods = [("h5py_ind", run.h5py_ind), ("h5py_coll", run.h5py_coll),
               ("mpi4py_ind", run.mpi4py_ind)]
    for protocol in ("overwrite", "new", "fsync", "read"):
        run.protocol = protocol
        for rnd in range(rounds + 1):  # round 0: warm-up
            for k in range(len(methods)):
                name, op = methods[(k + rnd) % len(methods)]
                t = timed(op)
                if RANK == 0:
                    print(f"{protocol},{name},{rnd},{t:.6f},{SIZE * run.n * 8}", flush=True)
    run.close()


def metadata(directory, count):
    for rnd in range(3):
        def create():
            with h5py.File(os.path.join(directory, "meta_h5py.h5"), "w", driver="mpio",
                           comm=COMM) as f:
                for i in range(count):
                    d = f.create_dataset(f"d{i:06d}", (4,), "f8")
                    d.attrs["a"] = 1.5
        t = timed(create)
        if RANK == 0:
            print(f"metadata_{count},h5py,{rnd},{t:.6f},{count}", flush=True)


if __name__ == "__main__":
    mode, directory = sys.argv[1], sys.argv[2]
    if mode == "bandwidth":
        bandwidth(directory, int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "metadata":
        metadata(directory, int(sys.argv[3]))
    else:
        sys.exit(__doc__)
