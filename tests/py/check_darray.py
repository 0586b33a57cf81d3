"""Check what tests/c/darray.c wrote with h5py alone, knowing nothing of dah5 but the
schema in docs/schema.md.

    check_darray.py blocks PATH DSET DTYPE    rebuild the array block by block from the
                                              block table (schema 2); every block holds the
                                              pattern, together they cover the array
    check_darray.py attrs PATH                attributes of every dtype, and strings
    check_darray.py series PATH STEPS         the extendible time series
    check_darray.py to-schema1 PATH DSET      rewrite the darray's block table the way
                                              dah5 0.1 wrote it (schema 1: 2-D attributes)
"""
import sys

import h5py
import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from check_pattern import pattern  # noqa: E402  (the formulas of tests/c/pattern.h)

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]


def blocks(path, name, dtype):
    with h5py.File(path, "r") as f:
        d = f[name]
        a = d.attrs
        assert a["dah5_darray_version"] == 2, dict(a)
        assert a["dah5_writer_order"] in ("C", "F"), a["dah5_writer_order"]
        table = f[a["dah5_block_table"]]
        assert table.shape == (a["dah5_nblocks"], 2, d.ndim), table.shape
        assert table.attrs["dah5_table_of"] == d.name, table.attrs["dah5_table_of"]
        offsets, counts = table[:, 0, :], table[:, 1, :]
        expected = pattern(dtype, d.size).reshape(d.shape)
        covered = np.zeros(d.shape, dtype=np.int64)
        for offset, count in zip(offsets, counts):
            if 0 in count:
                continue
            where = tuple(slice(o, o + c) for o, c in zip(offset, count))
            assert np.array_equal(d[where], expected[where]), f"block {offset} {count}"
            covered[where] += 1
        assert covered.max() <= 1, "blocks overlap"
        assert bool(a["dah5_complete"]) == bool(covered.min() == 1), "dah5_complete is wrong"
        print(f"{name}: {len(offsets)} blocks rebuilt from the block table, order "
              f"{a['dah5_writer_order']}, complete {bool(a['dah5_complete'])}")


def attrs(path):
    text = "tempête ☂ 42"
    with h5py.File(path, "r") as f:
        for obj in (f, f["grp"], f["grp/data"]):
            for dtype in DTYPES:
                want = pattern(dtype, 10)[7:10]
                scalar, array = obj.attrs[f"scalar_{dtype}"], obj.attrs[f"array_{dtype}"]
                assert np.ndim(scalar) == 0 and scalar.dtype == np.dtype(dtype), (dtype, scalar)
                assert scalar == want[0], (obj.name, dtype, scalar, want[0])
                assert array.dtype == np.dtype(dtype) and np.array_equal(array, want), (obj.name, dtype)
            title = obj.attrs["title"]
            assert isinstance(title, str) and title == text, (obj.name, title)
        assert "differs" not in f.attrs and "shape" not in f.attrs, "a rejected attribute was written"
    print("attributes of 12 dtypes and strings on /, a group and a dataset match")


def series(path, steps):
    with h5py.File(path, "r") as f:
        d = f["series"]
        assert d.shape == (steps, 6, 5) and d.maxshape == (None, 6, 5), (d.shape, d.maxshape)
        assert d.chunks is not None
        assert np.array_equal(d[()], pattern("float64", d.size).reshape(d.shape))
    print(f"series: {steps} steps of (6, 5), unlimited first dim, every value right")


def to_schema1(path, name):
    with h5py.File(path, "r+") as f:
        a = f[name].attrs
        table = f[a["dah5_block_table"]][()]
        del f[a["dah5_block_table"]]
        del a["dah5_block_table"]
        a["dah5_darray_version"] = np.uint32(1)
        a["dah5_block_offsets"] = table[:, 0, :]
        a["dah5_block_counts"] = table[:, 1, :]
    print(f"{name}: block table rewritten in schema 1 ({len(table)} blocks)")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "blocks":
        blocks(*sys.argv[2:5])
    elif mode == "attrs":
        attrs(sys.argv[2])
    elif mode == "to-schema1":
        to_schema1(*sys.argv[2:4])
    elif mode == "series":
        series(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
