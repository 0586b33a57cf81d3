"""Open the files tests/c/readers.c wrote with one reader nobody here wrote, and check that
it sees every variable with its dimension names, shape and values, and the attributes.

    readers.py READER FILE...    READER: h5py | netcdf4 | xarray-netcdf4 | xarray-h5netcdf
                                 | ncdump (its header and its full text dump, parsed)

Each reader runs in a process of its own (netCDF4 and h5py load different libhdf5 builds).
Prints one line per file; exits 1 at the first thing a reader gets wrong.
"""
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from check_pattern import pattern  # noqa: E402  (the formulas of tests/c/pattern.h)

# What readers.c writes: variable path -> (dimension names, dtype, shape), all C order.
EXPECTED = {
    "lat": (("lat",), "float64", (6,)),
    "lon": (("lon",), "float64", (8,)),
    "temp": (("lat", "lon"), "float64", (6, 8)),
    "series": (("time", "x"), "float32", (4, 5)),
    "ocean/salt": (("depth", "lat", "lon"), "int32", (3, 6, 8)),
}


def values(dtype, shape):
    return pattern(dtype, int(np.prod(shape))).reshape(shape)


def check(path, seen):
    """`seen`: variable path -> (dimension names, array) as the reader shows them."""
    for name, (dims, dtype, shape) in EXPECTED.items():
        assert name in seen, f"{path}: the reader does not show {name} (it shows {sorted(seen)})"
        got_dims, array = seen[name]
        assert tuple(got_dims) == dims, f"{path}: {name} has dims {got_dims}, not {dims}"
        array = np.asarray(array)
        assert array.shape == shape, f"{path}: {name} has shape {array.shape}"
        assert np.array_equal(array, values(dtype, shape)), f"{path}: {name} values differ"


def by_h5py(path):
    import h5py

    with h5py.File(path, "r") as f:
        assert f.attrs["title"] == "dah5 for every reader" and list(f.attrs["levels"]) == [10, 20, 30]
        assert f["temp"].attrs["units"] == "K"
        # A dimension's name is the name of the dataset attached to it as its scale.
        def dims(d):
            return [d.name.rsplit("/", 1)[-1]] if h5py.h5ds.is_scale(d.id) else [s[0].name.rsplit("/", 1)[-1] for s in d.dims]
        return {name: (dims(f[name]), f[name][()]) for name in EXPECTED}


def by_netcdf4(path):
    import netCDF4

    with netCDF4.Dataset(path) as nc:
        assert nc.title == "dah5 for every reader" and list(nc.levels) == [10, 20, 30]
        assert nc["temp"].units == "K" and nc["temp"].dah5_nblocks > 0
        assert nc.dimensions["time"].isunlimited()
        seen = {}
        for name in EXPECTED:
            var = nc[name]
            seen[name] = (var.dimensions, np.ma.getdata(var[:]))
        return seen


def by_xarray(engine):
    def read(path):
        import xarray as xr

        seen = {}
        for group in (None, "ocean"):
            with xr.open_dataset(path, engine=engine, group=group) as ds:
                if group is None:
                    assert ds.attrs["title"] == "dah5 for every reader"
                    assert ds["temp"].attrs["units"] == "K"
                for name, var in ds.variables.items():
                    key = f"{group}/{name}" if group else name
                    seen[key] = (var.dims, var.values)
        return seen
    return read


def by_ncdump(path):
    header = subprocess.run(["ncdump", "-h", path], check=True, capture_output=True, text=True).stdout
    for line in ("double temp(lat, lon) ;", "int salt(depth, lat, lon) ;",
                 "float series(time, x) ;", "time = UNLIMITED ; // (4 currently)",
                 'string :title = "dah5 for every reader" ;'):
        assert line in header, f"{path}: ncdump -h lacks {line!r}:\n{header}"
    text = subprocess.run(["ncdump", path], check=True, capture_output=True, text=True).stdout
    declared, data, groups, in_data, current = {}, {}, [], False, None
    for line in text.splitlines():
        s = line.strip()
        if m := re.match(r"group: (\S+) \{", s):
            groups.append(m[1])
            in_data = False
        elif s.startswith("} // group"):
            groups.pop()
        elif s == "data:":
            in_data = True
        elif m := re.match(r"\w+ (\w+)\(([^)]*)\) ;", s):
            declared["/".join(groups + [m[1]])] = tuple(d.strip() for d in m[2].split(","))
        elif in_data and (m := re.match(r"(\w+) =(.*)", s)):
            data["/".join(groups + [m[1]])] = current = [m[2]]
        elif current is not None and s:
            current.append(s)
        if current is not None and s.endswith(";"):
            current = None
    seen = {}
    for name in EXPECTED:
        numbers = " ".join(data[name]).rstrip(" ;").replace(",", " ").split()
        shape = EXPECTED[name][2]
        seen[name] = (declared[name], np.array([float(n) for n in numbers]).reshape(shape))
    return seen


READERS = {
    "h5py": by_h5py,
    "netcdf4": by_netcdf4,
    "xarray-netcdf4": by_xarray("netcdf4"),
    "xarray-h5netcdf": by_xarray("h5netcdf"),
    "ncdump": by_ncdump,
}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in READERS:
        sys.exit(__doc__)
    reader = sys.argv[1]
    for path in sys.argv[2:]:
        check(path, READERS[reader](path))
        print(f"{reader}: {path}: {len(EXPECTED)} variables with their dimension names, "
              f"shapes and values right")
