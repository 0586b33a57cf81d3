"""
    DAH5

Write and read one distributed array in one HDF5 file from many MPI ranks, through the dah5
C library (`libdah5`). Arrays keep Julia's column-major order: every file is opened with
`DAH5_ORDER_F`, so a Julia `(nx, ny)` array is stored as HDF5 dims `(ny, nx)` with the same
bytes, exactly as HDF5.jl writes it, and reads back as `(nx, ny)`.

Which calls are collective is as in `dah5.h`: `create_file`, `open_file`, `flush`, `close`,
`create_group`, `create_dataset`, `open_dataset` are collective over the file's
communicator (every rank calls, same order, same arguments), and so are `darray_write`,
`darray_create`, `darray_write_blocks` and `darray_create_blocks`; `write_block`/`read_block!`
and `write_blocks`/`read_blocks!` are independent unless `collective = true`; `wait(file)`
(for this rank's writes behind, `async = true`) and the queries are local. No finalizer ever
closes a handle: closing is collective, and the garbage collector runs at different times on
different ranks.

Point the package at the library with `DAH5.set_library!("/path/to/libdah5.so")` (a
preference, kept across sessions) or the `DAH5_LIBRARY` environment variable at the time the
package is precompiled; see README.md.
"""
module DAH5

using Preferences: @load_preference, @set_preferences!

export DAH5Error, direct_create, direct_open, create_file, open_file, create_group, create_dataset, open_dataset,
       write_block, read_block!, read_block, darray_write, darray_create, darray_blocks, darray_partition, extend!,
       set_dim_names!, set_atomic!, write_attribute, read_attribute, write_darray, read_darray,
       write_blocks, read_blocks!, read_blocks, darray_write_blocks, darray_create_blocks,
       darray_block_ranks, block_cyclic

"""The path (or soname) of libdah5 this package calls."""
const libdah5 = @load_preference("libdah5", get(ENV, "DAH5_LIBRARY", "libdah5"))

"""
    DAH5.set_library!(path)

Remember `path` as the libdah5 to use (a Preferences.jl preference of this package); takes
effect when Julia restarts.
"""
function set_library!(path::AbstractString)
    @set_preferences!("libdah5" => String(path))
    @info "DAH5 will use $path after Julia restarts."
end

include("constants.jl")
include("libdah5.jl")

# ---- Errors ----

"""
    DAH5Error(status, name, message)

A failed dah5 call: `status` is the `DAH5_ERR_*` code, `name` its name, `message` the
library's message (function, rank, offending value, HDF5/MPI detail).
"""
struct DAH5Error <: Exception
    status::Int32
    name::String
    message::String
end

function DAH5Error(status::Integer)
    DAH5Error(Int32(status), status_name(status), unsafe_string(dah5_last_error_message()))
end

Base.showerror(io::IO, e::DAH5Error) = print(io, "DAH5Error ", e.name, ": ", e.message)

check(status::Integer) = status == DAH5_OK ? nothing : throw(DAH5Error(status))

"""The running library's version, `major * 10000 + minor * 100 + patch`."""
version() = Int(dah5_version())

"""`"dah5 0.1.0; HDF5 1.10.8; Open MPI v4.1.4"`."""
version_string() = unsafe_string(dah5_version_string())

"""The name of a status code (`"DAH5_ERR_OUT_OF_BOUNDS"`)."""
status_name(status::Integer) = unsafe_string(dah5_status_name(Int32(status)))

# ---- Communicators ----

"""
    fortran_handle(comm)

The communicator as dah5 takes it: its Fortran handle. An `Integer` is taken as one
already; with MPI.jl loaded an `MPI.Comm` is converted with `MPI.API.MPI_Comm_c2f`.
"""
fortran_handle(comm::Integer) = Int32(comm)

# ---- Files ----

"""An open file. Close it with `close(file)` on every rank."""
mutable struct File
    ptr::Ptr{dah5_file}
    # The arrays written behind (`async = true`) since the last `wait`, `flush` or `close`:
    # the library reads them after their calls returned, so the file keeps them from the
    # garbage collector until one of those calls has returned.
    behind::Vector{Any}
    # For `behind`: tasks on other threads may write behind on the same file.
    lock::ReentrantLock
    File(ptr::Ptr{dah5_file}) = new(ptr, Any[], ReentrantLock())
end

# Keep `buf`, just written behind into a dataset of `file`, until the file's next `wait`,
# `flush` or `close` has returned.
function hold_behind!(file::File, buf::AbstractArray)
    lock(() -> push!(file.behind, buf), file.lock)
    nothing
end

# Run `call` (dah5_file_wait, flush or close, which first wait for this rank's writes behind
# on the file), then let go of the arrays written behind before it began: once it returned,
# whatever it returned, the library no longer reads them (dah5.h). An array written behind
# meanwhile by another task stays held for the next one.
function ending_writes_behind(call, file::File)
    held = lock(file.lock) do
        taken = file.behind
        file.behind = Any[]
        taken
    end
    GC.@preserve held call()
end

const FileOptions = dah5_file_options

"""`FileOptions` with the library's defaults (objects of 1 MiB or more aligned to the file system's unit)."""
function FileOptions()
    options = Ref{dah5_file_options}()
    check(dah5_file_options_init(options, DAH5_FILE_OPTIONS_VERSION))
    options[]
end

# Run f(options) with `hints` (MPI-IO hints, key => value) and `atomic` put into the
# options; the hints string lives until f returns.
function with_options(f, options::FileOptions, hints, atomic::Bool)
    text = join(("$k=$v" for (k, v) in hints), ";")
    GC.@preserve text begin
        full = dah5_file_options(options.version, options.flags | (atomic ? DAH5_ATOMIC : UInt32(0)),
                                 options.alignment_threshold, options.alignment,
                                 options.meta_block_size, options.metadata_cache_bytes,
                                 isempty(text) ? reinterpret(Cstring, C_NULL) : Base.unsafe_convert(Cstring, text))
        f(Ref(full))
    end
end

"""
    create_file(comm, path; truncate=false, atomic=false, hints=(), options=FileOptions()) -> File

Create `path` for parallel I/O. **Collective** over `comm` (an `MPI.Comm`, or its Fortran
handle). `hints` are MPI-IO hints (`"romio_cb_write" => "enable"`), `atomic` turns MPI atomic
mode on; `options` sets alignment and metadata tuning.
"""
function create_file(comm, path::AbstractString; truncate::Bool = false, atomic::Bool = false,
                     hints = (), options::FileOptions = FileOptions())
    flags = DAH5_ORDER_F | (truncate ? DAH5_TRUNC : UInt32(0))
    out = Ref{Ptr{dah5_file}}(C_NULL)
    with_options(options, hints, atomic) do ref
        check(dah5_file_create_with(fortran_handle(comm), path, flags, ref, out))
    end
    File(out[])
end

"""
    open_file(comm, path; write=false, atomic=false, hints=(), options=FileOptions()) -> File

Open an existing file, read-only unless `write`. **Collective** over `comm`.
"""
function open_file(comm, path::AbstractString; write::Bool = false, atomic::Bool = false,
                   hints = (), options::FileOptions = FileOptions())
    flags = DAH5_ORDER_F | (write ? DAH5_RDWR : DAH5_RDONLY)
    out = Ref{Ptr{dah5_file}}(C_NULL)
    with_options(options, hints, atomic) do ref
        check(dah5_file_open_with(fortran_handle(comm), path, flags, ref, out))
    end
    File(out[])
end

"""`set_atomic!(file, on)`: MPI atomic mode on or off. **Collective**."""
set_atomic!(file::File, on::Bool) = check(dah5_file_set_atomic(file.ptr, Int32(on)))

"""
`flush(file)`: write everything HDF5 holds to storage, after every rank's writes behind
(a write behind that failed on any rank throws its `DAH5Error` on every rank). **Collective**.
"""
Base.flush(file::File) = ending_writes_behind(() -> check(dah5_file_flush(file.ptr)), file)

"""
`wait(file)`: wait until this rank's writes behind (`write_block(...; async = true)`,
`write_blocks(...; async = true)`) on the file are in it; then their arrays are the
caller's again, and the file lets go of them. **Local**: this rank's writes only, no other
rank takes part; other ranks see the data after `flush(file)`. A write behind that failed
throws its `DAH5Error` here, and again at every later `wait`, `flush` and `close`.
"""
Base.wait(file::File) = ending_writes_behind(() -> check(dah5_file_wait(file.ptr)), file)

# Close through `closer` (which takes a pointer to the handle and sets it to NULL), so
# that a second close is a no-op, as in C.
function close_handle!(object, closer)
    handle = Ref(object.ptr)
    check(closer(handle))
    object.ptr = handle[]
    nothing
end

"""
`close(file)`: close the file and its open datasets, after every rank's writes behind.
**Collective**.
"""
Base.close(file::File) = ending_writes_behind(() -> close_handle!(file, dah5_file_close), file)

# ---- Groups ----

"""
    create_group(file, path)

Create the group `path` (a path from the root, `"results/step1"`) and any missing group
above it: a group of its own, to hold attributes or what later calls write (a dataset's
create makes the groups above it already). **Collective**: the same path on every rank. A
path that exists (a group or a dataset) throws `DAH5Error` with status
`DAH5_ERR_ALREADY_EXISTS`, on every rank.
"""
create_group(file::File, path::AbstractString) = check(dah5_group_create(file.ptr, path))

# ---- Datasets ----

"""An open dataset. Close it with `close(dataset)` on every rank (or close its file)."""
mutable struct Dataset
    ptr::Ptr{dah5_dataset}
    # Its file, which holds the arrays written behind into it (closing the dataset does
    # not wait for them; the file's wait, flush and close do).
    file::File
end

const DTYPES = Dict{DataType,Int32}(
    Int8 => DAH5_INT8, Int16 => DAH5_INT16, Int32 => DAH5_INT32, Int64 => DAH5_INT64,
    UInt8 => DAH5_UINT8, UInt16 => DAH5_UINT16, UInt32 => DAH5_UINT32, UInt64 => DAH5_UINT64,
    Float32 => DAH5_FLOAT32, Float64 => DAH5_FLOAT64, ComplexF32 => DAH5_COMPLEX64,
    ComplexF64 => DAH5_COMPLEX128)

"""The dah5 dtype code of a Julia element type; an `ArgumentError` for other types."""
function dtype_code(T::Type)
    haskey(DTYPES, T) || throw(ArgumentError("dah5 has no dtype for $T; use one of $(join(keys(DTYPES), ", "))"))
    DTYPES[T]
end

julia_type(code::Integer) = findfirst(==(code), DTYPES)

"""`DAH5.UNLIMITED`: a `max_dims` entry for a dimension that grows without limit."""
const UNLIMITED = DAH5_UNLIMITED

padded(values) = ntuple(i -> i <= length(values) ? UInt64(values[i]) : UInt64(0), 32)

"""
    dataset_options(; fill_zeros=false, deflate=0, shuffle=false, chunk=nothing, max_dims=nothing)

`dah5_dataset_options` (Julia order for `chunk` and `max_dims`; `UNLIMITED` in `max_dims`
for a growing dimension). Compressed datasets are written collectively.
"""
function dataset_options(; fill_zeros::Bool = false, deflate::Integer = 0, shuffle::Bool = false,
                         chunk = nothing, max_dims = nothing)
    defaults = Ref{dah5_dataset_options}()
    check(dah5_dataset_options_init(defaults, DAH5_DATASET_OPTIONS_VERSION))
    flags = (fill_zeros ? DAH5_FILL_ZEROS : UInt32(0)) | (shuffle ? DAH5_SHUFFLE : UInt32(0))
    chunk_dims = something(chunk, ())
    max = something(max_dims, ())
    dah5_dataset_options(defaults[].version, flags, UInt32(deflate), UInt32(length(chunk_dims)),
                         UInt32(length(max)), UInt32(0), padded(chunk_dims), padded(max))
end

"""
    create_dataset(file, name, T, dims; fill_zeros=false, deflate=0, shuffle=false,
                   chunk=nothing, max_dims=nothing) -> Dataset

Create dataset `name` (groups made) of element type `T` and Julia dims `dims`.
**Collective**: the same arguments on every rank.
"""
function create_dataset(file::File, name::AbstractString, ::Type{T}, dims::Dims;
                        options...) where {T}
    extents = UInt64[dims...]
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    check(dah5_dataset_create(file.ptr, name, dtype_code(T), UInt32(length(dims)), extents,
                              Ref(dataset_options(; options...)), out))
    Dataset(out[], file)
end

"""`extend!(dataset, dims)`: grow (or shrink) to `dims`, within its max dims. **Collective**."""
function extend!(dataset::Dataset, dims::Dims)
    check(dah5_dataset_extend(dataset.ptr, UInt32(length(dims)), UInt64[dims...]))
    dataset
end

"""
`set_dim_names!(dataset, names)`: name the dimensions, in Julia's order like the dims
(`("lon", "lat", "time")`), the way netCDF-4 does, so that ncdump and xarray show them (in C
order: `var(time, lat, lon)`). A 1-D dataset of a name's length in the same group becomes that
dimension's coordinate variable. **Collective**, the same names on every rank; given once.
"""
function set_dim_names!(dataset::Dataset, names)
    strings = String[String(n) for n in names]
    GC.@preserve strings begin
        # unsafe_convert refuses a name with a NUL in it (ArgumentError).
        pointers = Cstring[Base.unsafe_convert(Cstring, s) for s in strings]
        check(dah5_dataset_set_dim_names(dataset.ptr, UInt32(length(pointers)), pointers))
    end
    dataset
end

"""`open_dataset(file, name) -> Dataset`. **Collective**."""
function open_dataset(file::File, name::AbstractString)
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    check(dah5_dataset_open(file.ptr, name, out))
    Dataset(out[], file)
end

"""`close(dataset)`. **Collective**."""
Base.close(dataset::Dataset) = close_handle!(dataset, dah5_dataset_close)

"""The dataset's Julia element type. Local."""
function Base.eltype(dataset::Dataset)
    code = Ref{Int32}(0)
    check(dah5_dataset_dtype(dataset.ptr, code))
    julia_type(code[])
end

"""The dataset's Julia dims. Local."""
function Base.size(dataset::Dataset)
    ndims = Ref{UInt32}(0)
    check(dah5_dataset_ndims(dataset.ptr, ndims))
    extents = zeros(UInt64, ndims[])
    check(dah5_dataset_dims(dataset.ptr, ndims[], extents))
    Tuple(Int.(extents))
end

Base.ndims(dataset::Dataset) = length(size(dataset))

# ---- Blocks ----

const Block = Tuple{Vararg{AbstractUnitRange{<:Integer}}}

# 0-based offset and count of 1-based ranges; an empty range is an empty block.
offset_count(block::Block) =
    (UInt64[isempty(r) ? 0 : first(r) - 1 for r in block], UInt64[length(r) for r in block])

check_one_based(block::Block) =
    all(r -> isempty(r) || first(r) >= 1, block) ||
        throw(ArgumentError("block $block: indices are 1-based"))

function check_block(A::AbstractArray, block::Block)
    size(A) == map(length, block) ||
        throw(DimensionMismatch("array of size $(size(A)) for block $block of size $(map(length, block))"))
    check_one_based(block)
end

xfer_flags(collective::Bool, convert::Bool, async::Bool) =
    (collective ? DAH5_COLLECTIVE : DAH5_INDEPENDENT) | (convert ? DAH5_CONVERT : UInt32(0)) |
    (async ? DAH5_ASYNC : UInt32(0))

# Column-major contiguous memory, which dah5 reads and writes in place.
is_contiguous(A::DenseArray) = true
is_contiguous(A::StridedArray) = strides(A) == Base.size_to_strides(1, size(A)...)
is_contiguous(A::AbstractArray) = false

# dah5_write_block or dah5_read_block on the contiguous `buf`, kept alive for the call
# (a write behind keeps it longer: `hold_behind!`).
function transfer(c_function, dataset::Dataset, buf::AbstractArray{T}, block::Block,
                  collective::Bool, convert::Bool, async::Bool = false) where {T}
    offset, count = offset_count(block)
    GC.@preserve buf begin
        check(c_function(dataset.ptr, offset, count, dtype_code(T),
                         isempty(buf) ? C_NULL : pointer(buf),
                         xfer_flags(collective, convert, async)))
    end
end

"""
    write_block(dataset, A, block; collective=false, convert=false, async=false)

Write `A` as the part `block` (a tuple of 1-based ranges, e.g. `localindices(d)`) of the
dataset. Independent unless `collective` (then every rank calls; a rank with nothing passes
an empty array and empty ranges). Contiguous arrays (`Array`, contiguous `SubArray`s) are
written in place; other arrays are copied first.

`async = true` writes behind the caller (`DAH5_ASYNC`): the call checks the write, starts it
and returns while the library writes from the array. The file holds on to the array (or
to the copy written from) until `wait(file)`, `flush(file)` or `close(file)` has returned;
until then do not change `A`'s values, nor resize it (`push!`, `resize!`: its memory would
move). Independent writes of contiguous datasets (not chunked or compressed, not subfiled)
in their own element type only; others throw `DAH5Error` `DAH5_ERR_INVALID_ARGUMENT`.
"""
function write_block(dataset::Dataset, A::AbstractArray{T}, block::Block;
                     collective::Bool = false, convert::Bool = false,
                     async::Bool = false) where {T}
    check_block(A, block)
    buf = is_contiguous(A) ? A : Array(A)
    transfer(dah5_write_block, dataset, buf, block, collective, convert, async)
    async && hold_behind!(dataset.file, buf)
    nothing
end

"""
    read_block!(A, dataset, block; collective=false, convert=false) -> A

Read the part `block` of the dataset into `A` (in place when `A` is contiguous).
"""
function read_block!(A::AbstractArray{T}, dataset::Dataset, block::Block;
                     collective::Bool = false, convert::Bool = false) where {T}
    check_block(A, block)
    buf = is_contiguous(A) ? A : Array{T}(undef, size(A))
    transfer(dah5_read_block, dataset, buf, block, collective, convert)
    buf === A || copyto!(A, buf)
    A
end

"""`read_block(dataset, block; collective=false) -> Array` of the dataset's element type."""
read_block(dataset::Dataset, block::Block; collective::Bool = false) =
    read_block!(Array{eltype(dataset)}(undef, map(length, block)...), dataset, block;
                collective = collective)

# ---- Many blocks in one call ----

# 0-based offsets and counts of the blocks, block after block (nblocks × ndims, Julia order).
function offsets_counts(blocks)
    offsets = UInt64[]
    counts = UInt64[]
    for block in blocks
        offset, count = offset_count(block)
        append!(offsets, offset)
        append!(counts, count)
    end
    offsets, counts
end

block_length(block::Block) = prod(map(length, block); init = 1)

# `buf` holds the blocks one after another, each column-major.
function check_packed(buf::AbstractArray, blocks)
    n = sum(block_length, blocks; init = 0)
    length(buf) == n ||
        throw(DimensionMismatch("an array of $(length(buf)) elements for blocks of $n elements"))
    foreach(check_one_based, blocks)
end

# `parts` (one array per block) as one contiguous buffer, block after block.
function pack(parts::AbstractVector{<:AbstractArray{T}}, blocks) where {T}
    length(parts) == length(blocks) ||
        throw(DimensionMismatch("$(length(parts)) arrays for $(length(blocks)) blocks"))
    foreach(check_block, parts, blocks)
    buf = Vector{T}(undef, sum(length, parts; init = 0))
    at = 0
    for part in parts
        copyto!(buf, at + 1, part, 1, length(part)) # column-major, whatever the part's type
        at += length(part)
    end
    buf
end

# The packed `buf` cut back into one array per block.
function unpack(buf::AbstractVector, blocks)
    at = 0
    map(blocks) do block
        n = block_length(block)
        part = reshape(buf[at+1:at+n], map(length, block))
        at += n
        part
    end
end

contiguous(buf::AbstractArray) = is_contiguous(buf) ? buf : Array(buf)

# dah5_write_blocks or dah5_read_blocks on the contiguous `buf`, kept alive for the call
# (a write behind keeps it longer: `hold_behind!`).
function transfer_blocks(c_function, dataset::Dataset, buf::AbstractArray{T}, blocks,
                         collective::Bool, convert::Bool, async::Bool = false) where {T}
    offsets, counts = offsets_counts(blocks)
    GC.@preserve buf begin
        check(c_function(dataset.ptr, UInt64(length(blocks)), offsets, counts, dtype_code(T),
                         isempty(buf) ? C_NULL : pointer(buf),
                         xfer_flags(collective, convert, async)))
    end
end

"""
    write_blocks(dataset, parts, blocks; collective=false, convert=false, async=false)
    write_blocks(dataset, buf, blocks; collective=false, convert=false, async=false)

Write many blocks in one transfer (one HDF5 selection for all of them): `blocks` is a vector
of blocks (tuples of 1-based ranges, in any order, not overlapping), and the data either
`parts`, one array per block (`size(parts[k]) == map(length, blocks[k])`), or `buf`, one
array holding the blocks one after another, each column-major (its length the sum of theirs).
Independent unless `collective` (then every rank calls; a rank with nothing passes empty
vectors of the element type, `Matrix{T}[]` or `T[]`). `async = true` writes behind the
caller, as for `write_block`: the file holds on to `buf` (`parts` are packed into a new
array, which it holds) until `wait(file)`, `flush(file)` or `close(file)` has returned.
"""
function write_blocks(dataset::Dataset, buf::AbstractArray, blocks::AbstractVector;
                      collective::Bool = false, convert::Bool = false, async::Bool = false)
    check_packed(buf, blocks)
    source = contiguous(buf)
    transfer_blocks(dah5_write_blocks, dataset, source, blocks, collective, convert, async)
    async && hold_behind!(dataset.file, source)
    nothing
end

write_blocks(dataset::Dataset, parts::AbstractVector{<:AbstractArray}, blocks::AbstractVector;
             kwargs...) = write_blocks(dataset, pack(parts, blocks), blocks; kwargs...)

"""
    read_blocks!(buf, dataset, blocks; collective=false, convert=false) -> buf

Read many blocks in one transfer into `buf`, which holds them one after another, each
column-major (as `write_blocks` takes them).
"""
function read_blocks!(buf::AbstractArray{T}, dataset::Dataset, blocks::AbstractVector;
                      collective::Bool = false, convert::Bool = false) where {T}
    check_packed(buf, blocks)
    dest = is_contiguous(buf) ? buf : Array{T}(undef, size(buf))
    transfer_blocks(dah5_read_blocks, dataset, dest, blocks, collective, convert)
    dest === buf || copyto!(buf, dest)
    buf
end

"""`read_blocks(dataset, blocks; collective=false) -> Vector` of `Array`s, one per block."""
function read_blocks(dataset::Dataset, blocks::AbstractVector; collective::Bool = false)
    buf = Vector{eltype(dataset)}(undef, sum(block_length, blocks; init = 0))
    unpack(read_blocks!(buf, dataset, blocks; collective), blocks)
end

"""
    block_cyclic(dims, blocksize, procgrid, rank) -> Vector of blocks

The blocks of 0-based `rank` in a block-cyclic distribution (ScaLAPACK's, in any number of
dimensions), Julia order throughout: the array of size `dims` is cut into tiles of
`blocksize` (smaller at the ends), and tile `(t₁, t₂, ...)` (0-based) belongs to the process
at `(t₁ % p₁, t₂ % p₂, ...)` of the process grid `procgrid = (p₁, p₂, ...)`, where rank `r`
sits at `Tuple(CartesianIndices(procgrid)[r + 1]) .- 1` (first dimension fastest: Fortran's
order, the same as an MPI Cartesian communicator of the reversed dims). The blocks come in
column-major order of their tiles, as `write_blocks` and `darray_write_blocks` take them.
"""
function block_cyclic(dims::Dims{N}, blocksize::Dims{N}, procgrid::Dims{N},
                      rank::Integer) where {N}
    0 <= rank < prod(procgrid) ||
        throw(ArgumentError("rank $rank is not in a process grid of $(prod(procgrid))"))
    all(>(0), blocksize) || throw(ArgumentError("block size $blocksize: every extent must be > 0"))
    coords = Tuple(CartesianIndices(procgrid)[rank+1]) .- 1
    # This process's tiles along each dimension, as ranges of indices.
    mine = ntuple(N) do d
        [t*blocksize[d]+1:min((t + 1) * blocksize[d], dims[d])
         for t in coords[d]:procgrid[d]:cld(dims[d], blocksize[d])-1]
    end
    vec([Tuple(block) for block in Iterators.product(mine...)])
end

# ---- Distributed arrays ----

darray_flags(collective, partial, subfiled) =
    (collective ? DAH5_COLLECTIVE : UInt32(0)) | (partial ? DAH5_DARRAY_PARTIAL : UInt32(0)) |
    (subfiled ? DAH5_DARRAY_SUBFILED : UInt32(0))

"""
    darray_write(file, name, A, block, dims; collective=false, partial=false, subfiled=false,
                 options...) -> Dataset

Every rank passes its part `A` of the array of size `dims`, at `block` (1-based ranges, as
`localindices`): the library checks the blocks (in bounds, disjoint, covering the array
unless `partial`), creates the dataset, records the decomposition in it and writes every
part. **Collective**. `options` as for `create_dataset` (compressed: one chunk per block).
`subfiled = true`: each node's parts go to a file of the node's own (`path.d/`), which every HDF5
reader reads as one array through a virtual dataset (docs/subfiled.md).
"""
function darray_write(file::File, name::AbstractString, A::AbstractArray{T}, block::Block,
                      dims::Dims; collective::Bool = false, partial::Bool = false,
                      subfiled::Bool = false, options...) where {T}
    check_block(A, block)
    buf = is_contiguous(A) ? A : Array(A)
    offset, count = offset_count(block)
    flags = darray_flags(collective, partial, subfiled)
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    GC.@preserve buf begin
        check(dah5_darray_write(file.ptr, name, dtype_code(T), UInt32(length(dims)),
                                UInt64[dims...], offset, count,
                                isempty(buf) ? C_NULL : pointer(buf), flags,
                                Ref(dataset_options(; options...)), out))
    end
    Dataset(out[], file)
end

"""
    darray_create(file, name, T, block, dims; partial=false, subfiled=false, options...) -> Dataset

`darray_write` without the data: the blocks are checked and recorded, and each rank then
writes its part (with `subfiled`, only inside its own `block`) with `write_block`, in as many
steps as it likes. **Collective**, and so is `close` of the dataset, which marks a subfiled
darray complete only when every rank wrote its file without an error.
"""
function darray_create(file::File, name::AbstractString, ::Type{T}, block::Block, dims::Dims;
                       partial::Bool = false, subfiled::Bool = false, options...) where {T}
    offset, count = offset_count(block)
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    check(dah5_darray_create(file.ptr, name, dtype_code(T), UInt32(length(dims)),
                             UInt64[dims...], offset, count, darray_flags(false, partial, subfiled),
                             Ref(dataset_options(; options...)), out))
    Dataset(out[], file)
end

"""
    darray_write_blocks(file, name, parts, blocks, dims; collective=false, partial=false,
                        options...) -> Dataset
    darray_write_blocks(file, name, buf, blocks, dims; ...) -> Dataset

`darray_write` where each rank gives any number of blocks, with their data as for
`write_blocks` (`parts`, one array per block, or the packed `buf`); a rank with none passes
empty vectors of the element type (`Matrix{T}[]` or `T[]`: the dtype is an argument every
rank must agree on). The blocks of every rank are checked together (in bounds, disjoint, covering
the array unless `partial`) and recorded with the rank that wrote each (`darray_block_ranks`).
**Collective**. (A subfiled darray holds one block a rank: `darray_write`.)
"""
function darray_write_blocks(file::File, name::AbstractString, buf::AbstractArray{T},
                             blocks::AbstractVector, dims::Dims; collective::Bool = false,
                             partial::Bool = false, options...) where {T}
    check_packed(buf, blocks)
    buf = contiguous(buf)
    offsets, counts = offsets_counts(blocks)
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    GC.@preserve buf begin
        check(dah5_darray_write_blocks(file.ptr, name, dtype_code(T), UInt32(length(dims)),
                                       UInt64[dims...], UInt64(length(blocks)), offsets, counts,
                                       isempty(buf) ? C_NULL : pointer(buf),
                                       darray_flags(collective, partial, false),
                                       Ref(dataset_options(; options...)), out))
    end
    Dataset(out[], file)
end

darray_write_blocks(file::File, name::AbstractString, parts::AbstractVector{<:AbstractArray},
                    blocks::AbstractVector, dims::Dims; kwargs...) =
    darray_write_blocks(file, name, pack(parts, blocks), blocks, dims; kwargs...)

"""
    darray_create_blocks(file, name, T, blocks, dims; partial=false, options...) -> Dataset

`darray_write_blocks` without the data: the blocks are checked and recorded, and each rank
then writes them with `write_blocks` (or `write_block`), in as many calls as it likes.
**Collective**.
"""
function darray_create_blocks(file::File, name::AbstractString, ::Type{T},
                              blocks::AbstractVector, dims::Dims; partial::Bool = false,
                              options...) where {T}
    offsets, counts = offsets_counts(blocks)
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    check(dah5_darray_create_blocks(file.ptr, name, dtype_code(T), UInt32(length(dims)),
                                    UInt64[dims...], UInt64(length(blocks)), offsets, counts,
                                    darray_flags(false, partial, false),
                                    Ref(dataset_options(; options...)), out))
    Dataset(out[], file)
end

ranges(offset, count) = Tuple(Int(o) + 1:Int(o + c) for (o, c) in zip(offset, count))

"""
    darray_blocks(dataset) -> Vector of blocks (tuples of 1-based ranges)

The decomposition `darray_write` recorded: block i was written by rank i - 1 (for an array of
`darray_write_blocks`, by rank `darray_block_ranks(dataset)[i]`). Local.
"""
function darray_blocks(dataset::Dataset)
    n = ndims(dataset)
    nblocks = Ref{UInt32}(0)
    check(dah5_darray_blocks(dataset.ptr, UInt32(0), nblocks, C_NULL, C_NULL))
    offsets = zeros(UInt64, n, nblocks[])
    counts = zeros(UInt64, n, nblocks[])
    check(dah5_darray_blocks(dataset.ptr, nblocks[], nblocks, offsets, counts))
    [ranges(offsets[:, b], counts[:, b]) for b in 1:nblocks[]]
end

"""
    darray_block_ranks(dataset) -> Vector{Int}

The 0-based rank that wrote each block of `darray_blocks(dataset)`. Local.
"""
function darray_block_ranks(dataset::Dataset)
    nblocks = Ref{UInt32}(0)
    check(dah5_darray_block_ranks(dataset.ptr, UInt32(0), nblocks, C_NULL))
    ranks = zeros(Int32, nblocks[])
    check(dah5_darray_block_ranks(dataset.ptr, nblocks[], nblocks, ranks))
    Int.(ranks)
end

"""
    darray_partition(dataset, rank, nranks) -> block

A balanced block for 0-based `rank` of `nranks` (the last Julia dimension with at least
`nranks` elements is split). Local.
"""
function darray_partition(dataset::Dataset, rank::Integer, nranks::Integer)
    offset = zeros(UInt64, ndims(dataset))
    count = zeros(UInt64, ndims(dataset))
    check(dah5_darray_partition(dataset.ptr, Int32(rank), Int32(nranks), offset, count))
    ranges(offset, count)
end

# ---- Attributes: write collective, read local ----

"""
    write_attribute(file, object, name, value)

`value` a number, a vector of numbers, or a string, on `object` (`"/"`, a group or a
dataset path). **Collective**: the same value on every rank.
"""
write_attribute(file::File, object::AbstractString, name::AbstractString, value::AbstractString) =
    check(dah5_attr_write_string(file.ptr, object, name, value))

function write_attribute(file::File, object::AbstractString, name::AbstractString, value::T) where {T<:Number}
    ref = Ref(value)
    GC.@preserve ref begin
        check(dah5_attr_write(file.ptr, object, name, dtype_code(T), UInt32(0), UInt64(1),
                              Base.unsafe_convert(Ptr{T}, ref)))
    end
end

function write_attribute(file::File, object::AbstractString, name::AbstractString,
                         value::AbstractVector{T}) where {T<:Number}
    buf = Vector{T}(value)
    GC.@preserve buf begin
        check(dah5_attr_write(file.ptr, object, name, dtype_code(T), UInt32(1),
                              UInt64(length(buf)), pointer(buf)))
    end
end

"""
    read_attribute(file, object, name) -> String, or Vector of numbers

Local. Scalars come back as 1-element vectors.
"""
function read_attribute(file::File, object::AbstractString, name::AbstractString)
    code = Ref{Int32}(0)
    count = Ref{UInt64}(0)
    check(dah5_attr_info(file.ptr, object, name, code, count))
    if code[] == DAH5_STRING
        buf = Vector{UInt8}(undef, count[] + 1)
        len = Ref{Csize_t}(0)
        check(dah5_attr_read_string(file.ptr, object, name, buf, length(buf), len))
        return String(buf[1:len[]])
    end
    values = Vector{julia_type(code[])}(undef, count[])
    check(dah5_attr_read(file.ptr, object, name, code[], count[], values, count))
    values
end

# ---- Direct block mode: no MPI (Distributed.jl workers started with addprocs) ----

"""A dataset open in direct mode (a plain file descriptor). Close it with `close`."""
mutable struct Direct
    ptr::Ptr{dah5_direct}
end

no_file_locking(file_locking::Bool) = file_locking ? UInt32(0) : DAH5_NO_FILE_LOCKING

"""
    direct_create(path, name, T, dims; truncate=true, blocks=nothing, file_locking=true)

Create (or add to `path`, without `truncate`) a dataset for direct mode, from one process,
no MPI: contiguous, allocated, aligned. `blocks` (a vector of tuples of 1-based ranges, one
per worker) is recorded as the block table. `file_locking = false` where the file system
has no flock (some NFS and Lustre mounts).
"""
function direct_create(path::AbstractString, name::AbstractString, ::Type{T}, dims::Dims;
                       truncate::Bool = true, blocks = nothing,
                       file_locking::Bool = true) where {T}
    flags = DAH5_ORDER_F | (truncate ? DAH5_TRUNC : UInt32(0)) | no_file_locking(file_locking)
    table = something(blocks, ())
    offsets, counts = offsets_counts(table)
    check(dah5_direct_create(path, name, dtype_code(T), UInt32(length(dims)), UInt64[dims...],
                             flags, UInt32(length(table)), offsets, counts))
end

"""
    direct_open(path, name; write=false, lock=false, file_locking=true) -> Direct

Open for direct transfers (any process, no MPI); `lock` takes an advisory fcntl lock
around each write, for file systems without coherent concurrent writes; `file_locking`
as for `direct_create`.
"""
function direct_open(path::AbstractString, name::AbstractString; write::Bool = false,
                     lock::Bool = false, file_locking::Bool = true)
    flags = DAH5_ORDER_F | (write ? DAH5_RDWR : DAH5_RDONLY) |
            (lock ? DAH5_DIRECT_LOCK : UInt32(0)) | no_file_locking(file_locking)
    out = Ref{Ptr{dah5_direct}}(C_NULL)
    check(dah5_direct_open(path, name, flags, out))
    Direct(out[])
end

function shape(file::Direct)
    code = Ref{Int32}(0)
    n = Ref{UInt32}(0)
    dims = zeros(UInt64, DAH5_MAX_NDIMS)
    check(dah5_direct_shape(file.ptr, code, n, UInt32(DAH5_MAX_NDIMS), dims))
    julia_type(code[]), Tuple(Int.(dims[1:n[]]))
end

Base.eltype(file::Direct) = shape(file)[1]
Base.size(file::Direct) = shape(file)[2]

"""`flush(direct)`: fsync what this process wrote."""
Base.flush(file::Direct) = check(dah5_direct_sync(file.ptr))

Base.close(file::Direct) = close_handle!(file, dah5_direct_close)

"""`write_block(direct, A, block)`: pwrite this process's part (no MPI)."""
function write_block(file::Direct, A::AbstractArray{T}, block::Block) where {T}
    check_block(A, block)
    buf = is_contiguous(A) ? A : Array(A)
    offset, count = offset_count(block)
    GC.@preserve buf begin
        check(dah5_direct_write_block(file.ptr, offset, count, dtype_code(T),
                                      isempty(buf) ? C_NULL : pointer(buf)))
    end
    nothing
end

"""`read_block!(A, direct, block) -> A`: pread a part (no MPI)."""
function read_block!(A::AbstractArray{T}, file::Direct, block::Block) where {T}
    check_block(A, block)
    buf = is_contiguous(A) ? A : Array{T}(undef, size(A))
    offset, count = offset_count(block)
    GC.@preserve buf begin
        check(dah5_direct_read_block(file.ptr, offset, count, dtype_code(T),
                                     isempty(buf) ? C_NULL : pointer(buf)))
    end
    buf === A || copyto!(A, buf)
    A
end

# ---- DistributedArrays (methods in ext/DAH5DistributedArraysExt.jl, and
# ext/DAH5MPIDistributedArraysExt.jl for mpi = true) ----

function mpi_write_darray end
function mpi_read_darray end

"""
    DAH5.local_pieces(d::DArray) -> (blocks, parts)

Every piece of `d` this process holds: its blocks (`d.indices` of each entry of `d.pids`
that is `myid()`) and their data. Defined by the DistributedArrays extension; used by
`write_darray`, after `DAH5.check_pieces(d)` (which refuses a DArray whose `pids` name a
process twice: DistributedArrays.jl keeps one local part a process).
"""
function local_pieces end
function check_pieces end

"""
    write_darray(path, name, d::DArray; truncate=true, lock=false, file_locking=true,
                 mpi=false, comm=nothing, subfiled=false)

Write the DArray `d` as one dataset, every worker all of its pieces (`DAH5.local_pieces`)
in one call, all workers at once; the decomposition is recorded in the file. By default through direct mode,
for plain `addprocs` workers (no MPI): the master creates the dataset, each worker
`pwrite`s its part. With `mpi = true` (and `using MPI`), through MPI for workers that are
MPI ranks (MPIClusterManagers): `comm` is the Fortran handle of the communicator on the
workers, `nothing` for `MPI.COMM_WORLD`; `subfiled = true` (with `mpi = true`) writes each
node's parts to a file of the node's own, read as one array through a virtual dataset
(docs/subfiled.md). Needs `using DistributedArrays`.
"""
function write_darray end

"""
    read_darray(path, name, procs=workers(); mpi=false, comm=nothing) -> DArray

Read dataset `name` into a DArray over `procs`, each worker reading its own part (direct
mode by default; `mpi = true` as for `write_darray`). Needs `using DistributedArrays`.
"""
function read_darray end

end # module DAH5
