"""Rewrite a subfiled darray of dah5 (a subfile per node) in the layout dah5 wrote before
subfiles per node, so that the tests can show dah5 still reads that layout:

    subfiles_per_rank.py PATH DATASET

Block i goes into a file of its own, PATH.d/<stem>.<i>.h5, as the dataset /block with the
block's dah5_subfiles_id; the virtual dataset is made again over those files, with every
attribute the darray had but dah5_subfile_nodes (which the old layout did not have); the
node subfiles are removed. Prints how many subfiles it made.
"""
import os
import sys

import h5py

path, name = sys.argv[1], sys.argv[2]
base = os.path.dirname(path)

with h5py.File(path, "r+") as f:
    darray = f[name]
    attrs = {k: v for k, v in darray.attrs.items() if k != "dah5_subfile_nodes"}
    prefix = attrs["dah5_subfiles"]
    layout = h5py.VirtualLayout(shape=darray.shape, dtype=darray.dtype)
    nodes, layout_blocks = set(), []
    for source in darray.virtual_sources():
        block = int(source.dset_name.lstrip("/").removeprefix("block"))
        node_file = os.path.join(base, source.file_name)
        nodes.add(node_file)
        with h5py.File(node_file, "r") as node:
            data = node[source.dset_name][...]
            write_id = node[source.dset_name].attrs["dah5_subfiles_id"]
        rank_file = f"{prefix}.{block}.h5"
        with h5py.File(os.path.join(base, rank_file), "w") as sub:
            sub.create_dataset("block", data=data).attrs["dah5_subfiles_id"] = write_id
        start, end = source.vspace.get_select_bounds()
        region = tuple(slice(s, e + 1) for s, e in zip(start, end))
        layout[region] = h5py.VirtualSource(rank_file, "block", shape=data.shape)
        layout_blocks.append(block)
    del f[name]
    darray = f.create_virtual_dataset(name, layout)
    for key, value in attrs.items():
        darray.attrs[key] = value

for node_file in nodes:
    os.remove(node_file)
print(f"{name}: {len(layout_blocks)} subfiles, one a rank")
