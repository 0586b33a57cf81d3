"""Make the datasets direct mode must refuse, with h5py (a writer dah5 did not write).

    make_refused.py PATH
"""
import sys

import h5py
import numpy as np

with h5py.File(sys.argv[1], "w") as f:
    data = np.arange(10, dtype="f8")
    f.create_dataset("chunked", data=data, chunks=(5,))
    f.create_dataset("compressed", data=data, compression="gzip")
    space = h5py.h5s.create_simple((10,))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    h5py.h5d.create(f.id, b"compact", h5py.h5t.NATIVE_DOUBLE, space, dcpl=dcpl)
    f.create_dataset("external", shape=(10,), dtype="f8", external=[("external.bin", 0, 80)])
    f.create_dataset("unallocated", shape=(10,), dtype="f8")  # h5py allocates when written
    f.create_dataset("bigendian", data=data.astype(">f8"))
    f.create_dataset("fine", data=data)
