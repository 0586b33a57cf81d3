"""h5py (mpio driver) on the pattern of bench/bench.c, with mpi4py's MPI-IO as the baseline
of the same rounds. Run with Debian's /usr/bin/python3 under mpiexec.

    h5py_bench.py bandwidth DIR MIB ROUNDS SHORT_ROUNDS   (SHORT_ROUNDS: of overwrite and read)
    h5py_bench.py metadata DIR COUNT [ROUNDS]

CSV on stdout as bench.c writes it: protocol,method,round,seconds,bytes,waited. As there,
methods run in an order shuffled each round, `waited` is the largest fraction of the time
any rank waited for a CPU, and the buffers sit where bench.c's do: 2 MiB aligned, with
transparent huge pages asked for (NumPy's own start 16 bytes into a page, and the kernel's
copy from such a buffer is about 30% slower here).
"""
import mmap
import os
import random
import sys
import time

import h5py
import numpy as np
from mpi4py import MPI

COMM = MPI.COMM_WORLD
RANK, SIZE = COMM.Get_rank(), COMM.Get_size()


def run_queue_wait():
    """This thread's time so far waiting for a CPU while runnable (seconds)."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1]) * 1e-9
    except (OSError, IndexError, ValueError):
        return 0.0


def timed(op):
    """(seconds, largest fraction of them any rank waited for a CPU)."""
    os.sync()
    COMM.Barrier()
    w0, t0 = run_queue_wait(), time.perf_counter()
    op()
    COMM.Barrier()
    seconds = time.perf_counter() - t0
    mine = (run_queue_wait() - w0) / seconds if seconds > 0 else 0.0
    return seconds, COMM.allreduce(mine, op=MPI.MAX)


def aligned(n):
    """n float64s, 2 MiB aligned, huge pages asked for (as bench.c's buffer())."""
    huge = 2 << 20
    raw = mmap.mmap(-1, n * 8 + huge)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        raw.madvise(mmap.MADV_HUGEPAGE)
    array = np.frombuffer(raw, dtype=np.float64)
    skip = (-array.ctypes.data % huge) // 8
    return array[skip:skip + n]


def shuffled(items, rnd):
    """The round's order, the same on every rank."""
    order = list(items)
    random.Random(rnd).shuffle(order)
    return order


class Run:
    def __init__(self, directory, mib):
        self.dir = directory
        self.n = mib * 131072
        self.buf = aligned(self.n)
        self.buf[:] = np.arange(RANK * self.n, (RANK + 1) * self.n, dtype=np.float64)
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


def bandwidth(directory, mib, rounds, short_rounds):
    run = Run(directory, mib)
    methods = [("h5py_ind", run.h5py_ind), ("h5py_coll", run.h5py_coll),
               ("mpi4py_ind", run.mpi4py_ind)]
    for protocol in ("overwrite", "new", "fsync", "read"):
        run.protocol = protocol
        n = short_rounds if protocol in ("overwrite", "read") else rounds
        for rnd in range(n + 1):  # round 0: warm-up
            for name, op in shuffled(methods, rnd):
                t, waited = timed(op)
                if RANK == 0:
                    print(f"{protocol},{name},{rnd},{t:.6f},{SIZE * run.n * 8},{waited:.4f}",
                          flush=True)
    run.close()


def metadata(directory, count, rounds):
    def create():
        with h5py.File(os.path.join(directory, "meta_h5py.h5"), "w", driver="mpio",
                       comm=COMM) as f:
            for i in range(count):
                d = f.create_dataset(f"d{i:06d}", (4,), "f8")
                d.attrs["a"] = 1.5

    for rnd in range(rounds + 1):  # round 0: warm-up
        t, waited = timed(create)
        if RANK == 0:
            print(f"metadata_{count},h5py,{rnd},{t:.6f},{count},{waited:.4f}", flush=True)


if __name__ == "__main__":
    mode, directory = sys.argv[1], sys.argv[2]
    if mode == "bandwidth":
        bandwidth(directory, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif mode == "metadata":
        metadata(directory, int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 5)
    else:
        sys.exit(__doc__)
