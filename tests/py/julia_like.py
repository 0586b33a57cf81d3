"""Call libdah5 exactly as the Julia package (julia/DAH5) does, from Python, under mpiexec.

Julia cannot be installed on the CI machines, so this driver stands in for it: no header,
symbols looked up by name in the library, each prototype declared with the ctypes types of
the Julia `ccall` tuple in julia/DAH5/src/libdah5.jl (tests/abi checks those against
dah5.h), files opened with DAH5_ORDER_F, column-major (order="F") numpy arrays indexed like
Julia's 1-based ranges, and the communicator passed as its Fortran handle
(`MPI.COMM_WORLD.py2f()`, what `MPI.API.MPI_Comm_c2f` gives in Julia).

    mpiexec -n 3 python3 julia_like.py LIBDAH5 PATH

Writes a (nx, ny) Float64 and a ComplexF64 array split by columns (DistributedArrays'
default for a wide 2-D array on 3 workers), reads them back split by rows, and checks the
error path the way DAH5Error gets its status and message. Then many blocks per rank, as
`DAH5.block_cyclic`, `darray_write_blocks`, `write_blocks`, `darray_create_blocks` and
`read_blocks` call the library: a (10, 7) matrix block-cyclic over a (nranks, 1) process grid
in (2, 3) tiles, written as a darray ("BC"), into a plain dataset with the blocks in reverse
order ("BW", ComplexF64, collective), and created then written in two calls ("BE"); each
rank reads back the next rank's blocks. Then writes behind ("T", (nx, ny, 3) Float64), as
`write_block(...; async = true)`, `wait(file)`, `write_blocks(...; async = true)` and
`flush(file)` call the library, holding each array written behind the way `DAH5.File` does
until the wait or flush has returned: every step from one buffer refilled after the wait,
the last one left to the flush. Rank 0 prints one line.
"""
import ctypes
import itertools
import sys
from ctypes import POINTER, Structure, byref, c_char_p, c_int32, c_size_t, c_uint32, c_uint64, c_void_p

import numpy as np
from mpi4py import MPI

DAH5_OK = 0
DAH5_TRUNC = 4
DAH5_ORDER_F = 16
DAH5_RDONLY = 1
DAH5_COLLECTIVE = 1
DAH5_ASYNC = 4
DAH5_FLOAT64 = 10
DAH5_COMPLEX128 = 12
DAH5_DARRAY_SUBFILED = 512
DAH5_ERR_INVALID_ARGUMENT = -1
DAH5_ERR_OUT_OF_BOUNDS = -4
DAH5_ERR_ALREADY_EXISTS = -7
FILE_OPTIONS_VERSION = 2
DATASET_OPTIONS_VERSION = 2


class FileOptions(Structure):
    """dah5_file_options, as the Julia struct mirrors it (mpi_hints::Cstring)."""

    _fields_ = [("version", c_uint32), ("flags", c_uint32),
                ("alignment_threshold", c_uint64), ("alignment", c_uint64),
                ("meta_block_size", c_uint64), ("metadata_cache_bytes", c_uint64),
                ("mpi_hints", c_char_p)]


class DatasetOptions(Structure):
    """dah5_dataset_options (chunk and max_dims are NTuple{32,UInt64} in Julia)."""

    _fields_ = [("version", c_uint32), ("flags", c_uint32), ("deflate_level", c_uint32),
                ("chunk_ndims", c_uint32), ("max_ndims", c_uint32), ("reserved", c_uint32),
                ("chunk", c_uint64 * 32), ("max_dims", c_uint64 * 32)]


U64P = POINTER(c_uint64)
# Julia ccall tuple → ctypes: Int32 c_int32, UInt32 c_uint32, Ptr{UInt64} U64P,
# Ptr{dah5_dataset} c_void_p, Ref{Ptr{dah5_file}} POINTER(c_void_p), Cstring c_char_p,
# Ptr{Cvoid} c_void_p, Ref{dah5_*_options} POINTER(struct), Csize_t c_size_t.
PROTOTYPES = {
    "dah5_write_block": (c_int32, [c_void_p, U64P, U64P, c_int32, c_void_p, c_uint32]),
    "dah5_read_block": (c_int32, [c_void_p, U64P, U64P, c_int32, c_void_p, c_uint32]),
    "dah5_dataset_options_init": (c_int32, [POINTER(DatasetOptions), c_uint32]),
    "dah5_dataset_create": (c_int32, [c_void_p, c_char_p, c_int32, c_uint32, U64P,
                                      POINTER(DatasetOptions), POINTER(c_void_p)]),
    "dah5_dataset_open": (c_int32, [c_void_p, c_char_p, POINTER(c_void_p)]),
    "dah5_dataset_close": (c_int32, [POINTER(c_void_p)]),
    "dah5_dataset_dtype": (c_int32, [c_void_p, POINTER(c_int32)]),
    "dah5_dataset_ndims": (c_int32, [c_void_p, POINTER(c_uint32)]),
    "dah5_dataset_dims": (c_int32, [c_void_p, c_uint32, U64P]),
    "dah5_file_options_init": (c_int32, [POINTER(FileOptions), c_uint32]),
    "dah5_file_create_with": (c_int32, [c_int32, c_char_p, c_uint32, POINTER(FileOptions),
                                        POINTER(c_void_p)]),
    "dah5_file_open_with": (c_int32, [c_int32, c_char_p, c_uint32, POINTER(FileOptions),
                                      POINTER(c_void_p)]),
    "dah5_file_flush": (c_int32, [c_void_p]),
    "dah5_file_wait": (c_int32, [c_void_p]),
    "dah5_file_close": (c_int32, [POINTER(c_void_p)]),
    "dah5_group_create": (c_int32, [c_void_p, c_char_p]),
    "dah5_darray_write": (c_int32, [c_void_p, c_char_p, c_int32, c_uint32, U64P, U64P, U64P,
                                    c_void_p, c_uint32, POINTER(DatasetOptions),
                                    POINTER(c_void_p)]),
    "dah5_darray_create": (c_int32, [c_void_p, c_char_p, c_int32, c_uint32, U64P, U64P, U64P,
                                     c_uint32, POINTER(DatasetOptions), POINTER(c_void_p)]),
    "dah5_dataset_set_dim_names": (c_int32, [c_void_p, c_uint32, POINTER(c_char_p)]),
    "dah5_darray_blocks": (c_int32, [c_void_p, c_uint32, POINTER(c_uint32), U64P, U64P]),
    "dah5_write_blocks": (c_int32, [c_void_p, c_uint64, U64P, U64P, c_int32, c_void_p,
                                    c_uint32]),
    "dah5_read_blocks": (c_int32, [c_void_p, c_uint64, U64P, U64P, c_int32, c_void_p, c_uint32]),
    "dah5_darray_write_blocks": (c_int32, [c_void_p, c_char_p, c_int32, c_uint32, U64P, c_uint64,
                                           U64P, U64P, c_void_p, c_uint32,
                                           POINTER(DatasetOptions), POINTER(c_void_p)]),
    "dah5_darray_create_blocks": (c_int32, [c_void_p, c_char_p, c_int32, c_uint32, U64P,
                                            c_uint64, U64P, U64P, c_uint32,
                                            POINTER(DatasetOptions), POINTER(c_void_p)]),
    "dah5_darray_block_ranks": (c_int32, [c_void_p, c_uint32, POINTER(c_uint32),
                                          POINTER(c_int32)]),
    "dah5_version": (c_uint32, []),
    "dah5_status_name": (c_char_p, [c_int32]),
    "dah5_last_error_message": (c_char_p, []),
    "dah5_last_error": (c_size_t, [c_char_p, c_size_t]),
}


class DAH5Error(Exception):
    """What the Julia DAH5Error carries: status, its name, the library's message."""

    def __init__(self, lib, status):
        self.status = status
        self.name = lib.dah5_status_name(status).decode()
        self.message = lib.dah5_last_error_message().decode()
        super().__init__(f"{self.name}: {self.message}")


class Lib:
    def __init__(self, path):
        self.dll = ctypes.CDLL(path)
        for name, (restype, argtypes) in PROTOTYPES.items():
            function = getattr(self.dll, name)  # lookup by name, as ccall does
            function.restype = restype
            function.argtypes = argtypes
            setattr(self, name, function)

    def check(self, status):
        if status != DAH5_OK:
            raise DAH5Error(self, status)


def u64(values):
    return (c_uint64 * len(values))(*values)


def offset_count(block):
    """Julia 1-based UnitRanges (first, last) → 0-based offset and count (Julia order)."""
    return (u64([first - 1 if last >= first else 0 for first, last in block]),
            u64([max(last - first + 1, 0) for first, last in block]))


def split(n, part, parts):
    """1-based (first, last) of part `part` of 1:n in `parts` (empty when last < first)."""
    return n * part // parts + 1, n * (part + 1) // parts


def write_block(lib, dataset, array, block, dtype, flags=0):
    assert array.flags.f_contiguous  # Julia arrays are column-major
    offset, count = offset_count(block)
    lib.check(lib.dah5_write_block(dataset, offset, count, dtype,
                                   array.ctypes.data if array.size else None, flags))


def read_block(lib, dataset, block, dtype, numpy_dtype, flags=0):
    shape = [max(last - first + 1, 0) for first, last in block]
    array = np.zeros(shape, dtype=numpy_dtype, order="F")
    offset, count = offset_count(block)
    lib.check(lib.dah5_read_block(dataset, offset, count, dtype,
                                  array.ctypes.data if array.size else None, flags))
    return array


def block_cyclic(dims, blocksize, procgrid, rank):
    """DAH5.block_cyclic: the blocks (1-based (first, last) per dimension) of 0-based `rank`,
    the process grid and the tiles both first dimension fastest (Julia's order)."""
    coords = np.unravel_index(rank, procgrid, order="F")
    mine = [[(t * b + 1, min((t + 1) * b, n)) for t in range(c, -(-n // b), p)]
            for n, b, p, c in zip(dims, blocksize, procgrid, coords)]
    # Iterators.product: the first dimension fastest.
    return [tuple(reversed(tiles)) for tiles in itertools.product(*reversed(mine))]


def offsets_counts(blocks):
    """DAH5.offsets_counts: every block's offset_count, block after block."""
    offsets, counts = [], []
    for block in blocks:
        offset, count = offset_count(block)
        offsets += list(offset)
        counts += list(count)
    return u64(offsets), u64(counts)


def part(array, block):
    """array[block...] of a Julia block, column-major."""
    return np.asfortranarray(array[tuple(slice(first - 1, last) for first, last in block)])


def pack(parts, dtype):
    """DAH5.pack: the parts one after another, each column-major."""
    return np.concatenate([np.zeros(0, dtype)] + [p.ravel(order="F") for p in parts])


def write_blocks(lib, dataset, array, blocks, dtype, flags=0):
    """DAH5.write_blocks(dataset, parts, blocks): the parts packed, one call. Returns the
    packed array (which DAH5.File holds when it was written behind)."""
    buf = pack([part(array, block) for block in blocks], array.dtype)
    offsets, counts = offsets_counts(blocks)
    lib.check(lib.dah5_write_blocks(dataset, len(blocks), offsets, counts, dtype,
                                    buf.ctypes.data if buf.size else None, flags))
    return buf


def read_blocks(lib, dataset, blocks, dtype, numpy_dtype, flags=0):
    """DAH5.read_blocks: one packed buffer, cut back into one array per block."""
    shapes = [[last - first + 1 for first, last in block] for block in blocks]
    buf = np.zeros(sum(int(np.prod(s)) for s in shapes), dtype=numpy_dtype)
    offsets, counts = offsets_counts(blocks)
    lib.check(lib.dah5_read_blocks(dataset, len(blocks), offsets, counts, dtype,
                                   buf.ctypes.data if buf.size else None, flags))
    parts, at = [], 0
    for shape in shapes:
        n = int(np.prod(shape))
        parts.append(buf[at:at + n].reshape(shape, order="F"))
        at += n
    return parts


def julia_array(nx, ny):
    """The global array A[i, j] = 10 i + j (1-based), column-major like Julia's."""
    i, j = np.meshgrid(np.arange(1, nx + 1), np.arange(1, ny + 1), indexing="ij")
    return np.asfortranarray(10.0 * i + j)


# The block-cyclic matrix of "BC", "BW" and "BE": Julia dims and tile size.
MANY_DIMS, BLOCKSIZE = (10, 7), (2, 3)


def many_arrays():
    """The arrays "BC" (= "BE") and "BW" hold, column-major like Julia's."""
    m = julia_array(*MANY_DIMS)
    return m, np.asfortranarray(m + 1j * m)


def write_many_blocks(lib, file, rank, size, dataset_options):
    m, w = many_arrays()
    grid = (size, 1)
    blocks = block_cyclic(MANY_DIMS, BLOCKSIZE, grid, rank)
    dims = u64(MANY_DIMS)
    # darray_write_blocks(file, "BC", parts, blocks, dims), as write_darray does for a
    # worker's pieces.
    buf = pack([part(m, block) for block in blocks], m.dtype)
    offsets, counts = offsets_counts(blocks)
    dataset = c_void_p()
    lib.check(lib.dah5_darray_write_blocks(file, b"BC", DAH5_FLOAT64, 2, dims, len(blocks),
                                           offsets, counts, buf.ctypes.data if buf.size else None,
                                           0, byref(dataset_options), byref(dataset)))
    # darray_blocks and darray_block_ranks: every tile, with the rank block_cyclic gives it.
    nblocks = c_uint32()
    lib.check(lib.dah5_darray_block_ranks(dataset, 0, byref(nblocks), None))
    n = nblocks.value
    ranks = (c_int32 * n)()
    table_offsets, table_counts = u64([0] * 2 * n), u64([0] * 2 * n)
    lib.check(lib.dah5_darray_block_ranks(dataset, n, byref(nblocks), ranks))
    lib.check(lib.dah5_darray_blocks(dataset, n, byref(nblocks), table_offsets, table_counts))
    owners = {block: r for r in range(size) for block in block_cyclic(MANY_DIMS, BLOCKSIZE, grid, r)}
    table = {}
    for b in range(n):
        offset, count = table_offsets[2 * b:2 * b + 2], table_counts[2 * b:2 * b + 2]
        if 0 not in count:  # an empty block, if the table keeps one for a rank
            table[tuple((o + 1, o + c) for o, c in zip(offset, count))] = ranks[b]
    assert table == owners, (table, owners)
    lib.check(lib.dah5_dataset_close(byref(dataset)))
    # create_dataset + write_blocks(ds, parts, reverse(blocks); collective = true).
    lib.check(lib.dah5_dataset_create(file, b"BW", DAH5_COMPLEX128, 2, dims,
                                      byref(dataset_options), byref(dataset)))
    write_blocks(lib, dataset, w, blocks[::-1], DAH5_COMPLEX128, DAH5_COLLECTIVE)
    lib.check(lib.dah5_dataset_close(byref(dataset)))
    # darray_create_blocks, then write_blocks of the first half and of the rest.
    lib.check(lib.dah5_darray_create_blocks(file, b"BE", DAH5_FLOAT64, 2, dims, len(blocks),
                                            offsets, counts, 0, byref(dataset_options),
                                            byref(dataset)))
    half = len(blocks) // 2
    write_blocks(lib, dataset, m, blocks[:half], DAH5_FLOAT64)
    write_blocks(lib, dataset, m, blocks[half:], DAH5_FLOAT64)
    lib.check(lib.dah5_dataset_close(byref(dataset)))


def read_many_blocks(lib, file, rank, size):
    """read_blocks of the next rank's blocks, each compared with the array."""
    m, w = many_arrays()
    blocks = block_cyclic(MANY_DIMS, BLOCKSIZE, (size, 1), (rank + 1) % size)
    dataset = c_void_p()
    for name, data, dtype, numpy_dtype, flags in [(b"BC", m, DAH5_FLOAT64, "f8", 0),
                                                  (b"BW", w, DAH5_COMPLEX128, "c16",
                                                   DAH5_COLLECTIVE),
                                                  (b"BE", m, DAH5_FLOAT64, "f8", 0)]:
        lib.check(lib.dah5_dataset_open(file, name, byref(dataset)))
        for block, got in zip(blocks, read_blocks(lib, dataset, blocks, dtype, numpy_dtype,
                                                  flags)):
            assert np.array_equal(got, part(data, block)), (name, block, got)
        lib.check(lib.dah5_dataset_close(byref(dataset)))


# "T": (nx, ny, STEPS), step s (1-based) holds A + 100 s.
STEPS = 3


def steps_array(a):
    """The array "T" holds, column-major like Julia's."""
    return np.asfortranarray(np.stack([a + 100.0 * s for s in range(1, STEPS + 1)], axis=2))


class Behind:
    """DAH5.File's `behind`: the arrays written behind (`async = true`), held from the write
    until `wait(file)`, `flush(file)` or `close(file)` has returned, then let go."""

    def __init__(self, lib, file):
        self.lib, self.file, self.held = lib, file, []

    def hold(self, array):  # hold_behind!
        self.held.append(array)

    def ending(self, call):  # ending_writes_behind: let go of what was held before the call
        held, self.held = self.held, []
        try:
            return call()
        finally:
            del held

    def wait(self):  # Base.wait(file)
        self.ending(lambda: self.lib.check(self.lib.dah5_file_wait(self.file)))

    def flush(self):  # Base.flush(file)
        self.ending(lambda: self.lib.check(self.lib.dah5_file_flush(self.file)))


def write_steps_behind(lib, file, a, columns, dataset_options):
    """T = create_dataset(file, "T", Float64, (nx, ny, STEPS)); every step fills one reused
    buffer (a rank's columns) and write_block(T, buf, (1:nx, j0:j1, s:s); async = true), then
    wait(file) before the next step refills it; the last step as write_blocks(T, parts,
    blocks; async = true), one block per column, ended by flush(file)."""
    (_, nx), (j0, j1) = columns
    behind = Behind(lib, file)
    dataset = c_void_p()
    lib.check(lib.dah5_dataset_create(file, b"T", DAH5_FLOAT64, 3, u64([nx, a.shape[1], STEPS]),
                                      byref(dataset_options), byref(dataset)))
    behind.wait()  # nothing written behind yet: DAH5_OK
    buf = np.zeros((nx, j1 - j0 + 1, 1), order="F")
    t = steps_array(a)
    for s in range(1, STEPS):
        buf[:, :, 0] = a[:, j0 - 1:j1] + 100.0 * s  # the step's work, into the reused buffer
        block = columns + [(s, s)]
        write_block(lib, dataset, buf, block, DAH5_FLOAT64, DAH5_ASYNC)
        behind.hold(buf)
        if s == 1:
            # Refused on every rank (write_block(...; async = true, collective = true)):
            # DAH5Error, and nothing held.
            try:
                write_block(lib, dataset, buf, block, DAH5_FLOAT64, DAH5_ASYNC | DAH5_COLLECTIVE)
                sys.exit("DAH5_ASYNC with DAH5_COLLECTIVE was accepted")
            except DAH5Error as e:
                assert e.status == DAH5_ERR_INVALID_ARGUMENT and "DAH5_ASYNC" in e.message, e
        behind.wait()
        assert not behind.held
    blocks = [((1, nx), (j, j), (STEPS, STEPS)) for j in range(j0, j1 + 1)]
    behind.hold(write_blocks(lib, dataset, t, blocks, DAH5_FLOAT64, DAH5_ASYNC))
    lib.check(lib.dah5_dataset_close(byref(dataset)))  # does not wait: the file holds buf
    assert len(behind.held) == 1
    behind.flush()
    assert not behind.held


def main():
    lib = Lib(sys.argv[1])
    path = sys.argv[2].encode()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    fcomm = comm.py2f()
    nx, ny = 4, 7
    a = julia_array(nx, ny)
    z = np.asfortranarray(a - 2j * a)

    options = FileOptions()
    lib.check(lib.dah5_file_options_init(byref(options), FILE_OPTIONS_VERSION))
    dataset_options = DatasetOptions()
    lib.check(lib.dah5_dataset_options_init(byref(dataset_options), DATASET_OPTIONS_VERSION))

    # Write by columns, as localindices(d) of a DArray would say: (1:nx, j0:j1).
    file = c_void_p()
    lib.check(lib.dah5_file_create_with(fcomm, path, DAH5_TRUNC | DAH5_ORDER_F,
                                        byref(options), byref(file)))
    j0, j1 = split(ny, rank, size)
    columns = [(1, nx), (j0, j1)]
    # "A" as DAH5.write_darray does it (dah5_darray_write records the decomposition), "Z"
    # as create_dataset + write_block do.
    dataset = c_void_p()
    local = np.asfortranarray(a[:, j0 - 1:j1])  # localpart(d)
    offset, count = offset_count(columns)
    lib.check(lib.dah5_darray_write(file, b"A", DAH5_FLOAT64, 2, u64([nx, ny]), offset, count,
                                    local.ctypes.data if local.size else None, 0,
                                    byref(dataset_options), byref(dataset)))
    nblocks, offsets, counts = c_uint32(), u64([0] * 2 * size), u64([0] * 2 * size)
    lib.check(lib.dah5_darray_blocks(dataset, size, byref(nblocks), offsets, counts))
    assert nblocks.value == size and list(counts)[2 * rank:2 * rank + 2] == [nx, j1 - j0 + 1]
    # set_dim_names!(A, ("x", "y")): Julia's order, like the dims; C readers see A(y, x).
    names = (c_char_p * 2)(b"x", b"y")
    lib.check(lib.dah5_dataset_set_dim_names(dataset, 2, names))
    lib.check(lib.dah5_dataset_close(byref(dataset)))
    lib.check(lib.dah5_dataset_create(file, b"Z", DAH5_COMPLEX128, 2, u64([nx, ny]),
                                      byref(dataset_options), byref(dataset)))
    write_block(lib, dataset, np.asfortranarray(z[:, j0 - 1:j1]), columns, DAH5_COMPLEX128,
                DAH5_COLLECTIVE)
    lib.check(lib.dah5_dataset_close(byref(dataset)))
    # "S" as darray_create(file, "S", Float64, block, dims; subfiled = true) and then
    # write_block of each column half: a subfiled darray written in steps.
    lib.check(lib.dah5_darray_create(file, b"S", DAH5_FLOAT64, 2, u64([nx, ny]), offset, count,
                                     DAH5_DARRAY_SUBFILED, byref(dataset_options),
                                     byref(dataset)))
    for first, last in [(1, nx // 2), (nx // 2 + 1, nx)]:
        part = [(first, last), (j0, j1)]
        write_block(lib, dataset, np.asfortranarray(a[first - 1:last, j0 - 1:j1]), part,
                    DAH5_FLOAT64)
    lib.check(lib.dah5_dataset_close(byref(dataset)))

    # A bad block raises DAH5Error with status and message, like the Julia wrapper.
    dataset = c_void_p()
    lib.check(lib.dah5_dataset_open(file, b"A", byref(dataset)))
    try:
        write_block(lib, dataset, np.zeros((1, 1), order="F"), [(nx + 1, nx + 1), (1, 1)],
                    DAH5_FLOAT64)
        sys.exit("an out-of-bounds block was accepted")
    except DAH5Error as e:
        assert e.status == DAH5_ERR_OUT_OF_BOUNDS, e
        assert e.name == "DAH5_ERR_OUT_OF_BOUNDS", e
        assert "dah5_write_block" in e.message and f"rank {rank}" in e.message, e
        buf = ctypes.create_string_buffer(8)
        full = lib.dah5_last_error(buf, len(buf))
        assert full == len(e.message.encode()) and buf.value == e.message.encode()[:7], full
    # create_group(file, "G/H"), then again: DAH5Error ALREADY_EXISTS on every rank.
    lib.check(lib.dah5_group_create(file, b"G/H"))
    try:
        lib.check(lib.dah5_group_create(file, b"G/H"))
        sys.exit("a group made twice was accepted")
    except DAH5Error as e:
        assert e.status == DAH5_ERR_ALREADY_EXISTS and '"G/H" exists already' in e.message, e
    write_many_blocks(lib, file, rank, size, dataset_options)
    write_steps_behind(lib, file, a, columns, dataset_options)
    lib.check(lib.dah5_file_close(byref(file)))
    assert file.value is None  # close sets the handle to NULL

    # Read back by rows (another decomposition), and the dims in Julia order.
    lib.check(lib.dah5_file_open_with(fcomm, path, DAH5_RDONLY | DAH5_ORDER_F,
                                      byref(options), byref(file)))
    i0, i1 = split(nx, rank, size)
    rows = [(i0, i1), (1, ny)]
    for name, data, dtype, numpy_dtype in [(b"A", a, DAH5_FLOAT64, "f8"),
                                           (b"Z", z, DAH5_COMPLEX128, "c16"),
                                           (b"S", a, DAH5_FLOAT64, "f8")]:
        lib.check(lib.dah5_dataset_open(file, name, byref(dataset)))
        ndims, dims, code = c_uint32(), u64([0, 0]), c_int32()
        lib.check(lib.dah5_dataset_ndims(dataset, byref(ndims)))
        lib.check(lib.dah5_dataset_dims(dataset, 2, dims))
        lib.check(lib.dah5_dataset_dtype(dataset, byref(code)))
        assert (ndims.value, list(dims), code.value) == (2, [nx, ny], dtype)
        got = read_block(lib, dataset, rows, dtype, numpy_dtype, DAH5_COLLECTIVE)
        assert np.array_equal(got, data[i0 - 1:i1, :]), (name, got)
        lib.check(lib.dah5_dataset_close(byref(dataset)))
    read_many_blocks(lib, file, rank, size)
    # "T" by rows, every step.
    lib.check(lib.dah5_dataset_open(file, b"T", byref(dataset)))
    got = read_block(lib, dataset, rows + [(1, STEPS)], DAH5_FLOAT64, "f8")
    assert np.array_equal(got, steps_array(a)[i0 - 1:i1]), got
    lib.check(lib.dah5_dataset_close(byref(dataset)))
    lib.check(lib.dah5_file_close(byref(file)))
    comm.Barrier()
    if rank == 0:
        print(f"julia-like ctypes driver: {size} ranks wrote ({nx}, {ny}) by columns, "
              f"subfiled S in 2 steps, read it by rows; block-cyclic {MANY_DIMS} in "
              f"{BLOCKSIZE} tiles over a ({size}, 1) grid; T in {STEPS} steps written "
              f"behind; dah5 {lib.dah5_version()}")


if __name__ == "__main__":
    main()
