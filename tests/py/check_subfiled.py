"""Read a subfiled darray (a virtual dataset over one file per node) with readers no one
here wrote, and compare each with the pattern of tests/c/pattern.h:

    check_subfiled.py PATH DATASET DTYPE D0 [D1 ...]

h5py (whole and a slice across blocks), h5dump (its text, parsed), and for numbers that
netCDF has, ncdump and xarray with both engines. Prints one line per reader; exits 1 at the
first difference.
"""
import re
import subprocess
import sys

import h5py
import numpy as np
import xarray as xr

from check_pattern import pattern

path, name, dtype = sys.argv[1], sys.argv[2], sys.argv[3]
shape = tuple(int(d) for d in sys.argv[4:])
want = pattern(dtype, int(np.prod(shape))).reshape(shape)


def same(reader, got):
    got = np.asarray(got)
    if got.shape != shape or not np.array_equal(got, want):
        diff = np.argwhere(got != want)[:5] if got.shape == shape else got.shape
        sys.exit(f"{reader}: {path} {name} differs from the pattern: {diff}")
    print(f"{reader}: {name} {shape} {dtype} matches")


with h5py.File(path, "r") as f:
    d = f[name]
    assert d.is_virtual, f"{name} is not a virtual dataset"
    assert d.attrs["dah5_complete"] == 1, dict(d.attrs)
    files = {s.file_name for s in d.virtual_sources()}
    # A subfile per node: the darray says how many (dah5_subfile_nodes).
    assert d.attrs["dah5_subfile_nodes"] == len(files), (dict(d.attrs), files)
    print(f"h5py: {name} maps {len(files)} subfiles ({sorted(files)[0]} ...)")
    same("h5py", d[...])
    middle = tuple(slice(n // 4, n - n // 4) for n in shape)
    assert np.array_equal(d[middle], want[middle]), "h5py: a slice across blocks differs"

# -y: values only, one a line; -m: every digit of a float.
dump = subprocess.run(["h5dump", "-y", "-w", "0", "-m", "%.17g", "-d", name, path],
                      check=True, capture_output=True, text=True).stdout
numbers = dump.split("DATA {", 1)[1].split("}", 1)[0].replace(",", " ").split()
same("h5dump", np.array(numbers, dtype=float).astype(want.dtype).reshape(shape))

if want.dtype.kind in "iuf":
    group, _, var = name.rpartition("/")
    # A variable in a group is named by its path, one in the root by its name.
    text = subprocess.run(["ncdump", "-p", "17,17", "-v", "/" + name if group else var, path],
                          check=True, capture_output=True, text=True).stdout
    if group:
        text = text.split(f"group: {group.split('/')[-1]} {{", 1)[1]
    body = re.search(rf"data:.*?\n\s*{var} =(.*?);", text, re.S).group(1)
    same("ncdump", np.array(body.replace(",", " ").split(), dtype=float).astype(want.dtype).reshape(shape))
    for engine, extra in [("netcdf4", {}), ("h5netcdf", {"phony_dims": "sort"})]:
        with xr.open_dataset(path, engine=engine, group=group or None, **extra) as ds:
            same(f"xarray ({engine})", ds[var].values)
