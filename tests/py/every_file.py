"""Open every HDF5 file the test suite left under DIR in every reader, and read every
variable whole: what each test checks the values of, the others must at least open.

    every_file.py DIR              the files; runs the readers below, one process each
    every_file.py READER FILE...   one reader: h5py | netcdf4 | xarray-netcdf4 |
                                   xarray-h5netcdf | ncdump

Files h5dump cannot open either are the tests' broken ones on purpose (truncated, a job
ended by MPI_Abort before its file was closed); they are listed, not opened, as is a
subfiled darray whose subfiles a test damaged. Files whose
block table is schema 1 (tests that rewrite one, named *schema1*) have 2-D attributes,
which netCDF cannot represent, and two files h5py wrote (external storage, a circle of
groups) are for h5py only. Exits 1 naming the first file a reader fails on.
"""
import glob
import subprocess
import sys

READERS = ["h5py", "netcdf4", "xarray-netcdf4", "xarray-h5netcdf", "ncdump"]
# The files tests break on purpose: truncated by hand, or left by a job MPI_Abort ended
# before it closed its file (Fortran's default error path, a refused environment variable).
# A subfile cut short by tests/subfiled.rs; a file tests/openers.rs truncates under a reader.
BROKEN_ON_PURPOSE = ("/truncated.h5", "/stop.h5", "/split_bad_env/t.h5",
                     "/subfiled_damaged/a.h5.d/grp~v.node0.h5", "/openers_truncated/cut.h5")
# The main file of those subfiles (one of them removed, one cut short): it opens, but what a
# reader then shows for the damaged blocks differs (h5py fill values; netCDF-C on HDF5 1.14
# an error), which is why dah5 reads subfiles itself. Its header is checked, not its values.
DAMAGED_ON_PURPOSE = ("/subfiled_damaged/a.h5",)
# Written by h5py, not dah5, for what h5py alone reads: the layouts direct mode refuses, one
# of them in an external file (which netCDF-C does not read); groups in a circle (a hard link
# to a group above it, tests/groups.rs), which netCDF-C (4.9) follows until it crashes.
NOT_DAH5 = ("/direct_refused/refused.h5", "/groups_circle/circle.h5")


def by_h5py(path):
    import h5py

    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: obj[()] if isinstance(obj, h5py.Dataset) else None)


def groups(nc):
    yield nc
    for g in nc.groups.values():
        yield from groups(g)


# netCDF4-python indexes with one more dimension than the variable has, and numpy 1.x
# arrays stop at 32: a 32-dim variable opens, but its values cannot be read through it
# (docs/schema.md, "What each reader shows").
NUMPY_MAX_NDIM = 32


def by_netcdf4(path):
    import netCDF4

    with netCDF4.Dataset(path) as nc:
        for g in groups(nc):
            for var in g.variables.values():
                if var.ndim < NUMPY_MAX_NDIM:
                    var[...]


def by_xarray(engine):
    def read(path):
        import netCDF4
        import xarray as xr

        with netCDF4.Dataset(path) as nc:
            paths = [g.path for g in groups(nc)]
        # h5netcdf refuses a dataset without dimension scales unless told how to name its
        # dims, as it would be for any HDF5 file that is not netCDF (docs/schema.md).
        options = {"phony_dims": "sort"} if engine == "h5netcdf" else {}
        for group in paths:
            with xr.open_dataset(path, engine=engine, group=group, **options) as ds:
                for var in ds.variables.values():
                    if engine == "h5netcdf" or var.ndim < NUMPY_MAX_NDIM:
                        var.load()
    return read


def by_ncdump(path):
    subprocess.run(["ncdump", path], check=True, capture_output=True)


OPEN = {"h5py": by_h5py, "netcdf4": by_netcdf4, "xarray-netcdf4": by_xarray("netcdf4"),
        "xarray-h5netcdf": by_xarray("h5netcdf"), "ncdump": by_ncdump}


def one_reader(reader, paths):
    for path in paths:
        try:
            OPEN[reader](path)
        except Exception as e:  # noqa: BLE001  (any failure of a reader is the finding)
            sys.exit(f"{reader} cannot read {path}: {type(e).__name__}: {e}")
    print(f"{reader}: {len(paths)} files read")


def main(directory):
    files = sorted(glob.glob(f"{directory}/**/*.h5", recursive=True))
    readable, broken = [], []
    for path in files:
        ok = subprocess.run(["h5dump", "-H", path], capture_output=True).returncode == 0
        (readable if ok else broken).append(path)
    unexpected = [p for p in broken if not p.endswith(BROKEN_ON_PURPOSE)]
    if unexpected:
        sys.exit(f"h5dump cannot open {', '.join(unexpected)}")
    damaged = [p for p in readable if p.endswith(DAMAGED_ON_PURPOSE)]
    readable = [p for p in readable if p not in damaged]
    netcdf = [p for p in readable if "schema1" not in p and not p.endswith(NOT_DAH5)]
    for reader in READERS:
        paths = readable if reader == "h5py" else netcdf
        subprocess.run([sys.executable, __file__, reader, *paths], check=True)
    print(f"{len(readable)} files open in h5dump and h5py, {len(netcdf)} of them in ncdump, "
          f"netCDF4 and xarray (both engines) too; {len(broken)} broken and {len(damaged)} "
          "damaged on purpose: " + ", ".join(broken + damaged))


if __name__ == "__main__":
    if len(sys.argv) == 2:
        main(sys.argv[1])
    elif len(sys.argv) > 2 and sys.argv[1] in OPEN:
        one_reader(sys.argv[1], sys.argv[2:])
    else:
        sys.exit(__doc__)
