"""
    DAH5

Write and read one distributed array in one HDF5 file from many MPI ranks, through the dah5
C library (`libdah5`). Arrays keep Julia's column-major order: every file is opened with
`DAH5_ORDER_F`, so a Julia `(nx, ny)` array is stored as HDF5 dims `(ny, nx)` with the same
bytes, exactly as HDF5.jl writes it, and reads back as `(nx, ny)`.

Which calls are collective is as in `dah5.h`: `create_file`, `open_file`, `flush`, `close`,
`create_dataset`, `open_dataset` are collective over the file's communicator (every rank
calls, same order, same arguments); `write_block`/`read_block!` are independent unless
`collective = true`; the queries are local. No finalizer ever closes a handle: closing is
collective, and the garbage collector runs at different times on different ranks.

Point the package at the library with `DAH5.set_library!("/path/to/libdah5.so")` (a
preference, kept across sessions) or the `DAH5_LIBRARY` environment variable at the time the
package is precompiled; see README.md.
"""
module DAH5

using Preferences: @load_preference, @set_preferences!

export DAH5Error, create_file, open_file, create_dataset, open_dataset, write_block,
       read_block!, read_block, write_darray, read_darray

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
end

const FileOptions = dah5_file_options

"""`FileOptions` with the library's defaults (1 MiB alignment)."""
function FileOptions()
    options = Ref{dah5_file_options}()
    check(dah5_file_options_default(options))
    options[]
end

"""
    create_file(comm, path; truncate=false, options=FileOptions()) -> File

Create `path` for parallel I/O. **Collective** over `comm` (an `MPI.Comm`, or its Fortran
handle).
"""
function create_file(comm, path::AbstractString; truncate::Bool = false,
                     options::FileOptions = FileOptions())
    flags = DAH5_ORDER_F | (truncate ? DAH5_TRUNC : UInt32(0))
    out = Ref{Ptr{dah5_file}}(C_NULL)
    check(dah5_file_create_with(fortran_handle(comm), path, flags, Ref(options), out))
    File(out[])
end

"""
    open_file(comm, path; write=false, options=FileOptions()) -> File

Open an existing file, read-only unless `write`. **Collective** over `comm`.
"""
function open_file(comm, path::AbstractString; write::Bool = false,
                   options::FileOptions = FileOptions())
    flags = DAH5_ORDER_F | (write ? DAH5_RDWR : DAH5_RDONLY)
    out = Ref{Ptr{dah5_file}}(C_NULL)
    check(dah5_file_open_with(fortran_handle(comm), path, flags, Ref(options), out))
    File(out[])
end

"""`flush(file)`: write everything HDF5 holds to storage. **Collective**."""
Base.flush(file::File) = check(dah5_file_flush(file.ptr))

"""`close(file)`: close the file and its open datasets. **Collective**."""
function Base.close(file::File)
    handle = Ref(file.ptr)
    check(dah5_file_close(handle))
    file.ptr = handle[]
    nothing
end

# ---- Datasets ----

"""An open dataset. Close it with `close(dataset)` on every rank (or close its file)."""
mutable struct Dataset
    ptr::Ptr{dah5_dataset}
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

"""
    create_dataset(file, name, T, dims; fill_zeros=false) -> Dataset

Create dataset `name` (groups made) of element type `T` and Julia dims `dims`.
**Collective**: the same arguments on every rank.
"""
function create_dataset(file::File, name::AbstractString, ::Type{T}, dims::Dims;
                        fill_zeros::Bool = false) where {T}
    options = Ref{dah5_dataset_options}()
    check(dah5_dataset_options_default(options))
    options[] = dah5_dataset_options(options[].version, fill_zeros ? DAH5_FILL_ZEROS : UInt32(0))
    extents = UInt64[dims...]
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    check(dah5_dataset_create(file.ptr, name, dtype_code(T), UInt32(length(dims)), extents,
                              options, out))
    Dataset(out[])
end

"""`open_dataset(file, name) -> Dataset`. **Collective**."""
function open_dataset(file::File, name::AbstractString)
    out = Ref{Ptr{dah5_dataset}}(C_NULL)
    check(dah5_dataset_open(file.ptr, name, out))
    Dataset(out[])
end

"""`close(dataset)`. **Collective**."""
function Base.close(dataset::Dataset)
    handle = Ref(dataset.ptr)
    check(dah5_dataset_close(handle))
    dataset.ptr = handle[]
    nothing
end

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

function check_block(A::AbstractArray, block::Block)
    size(A) == map(length, block) ||
        throw(DimensionMismatch("array of size $(size(A)) for block $block of size $(map(length, block))"))
    all(r -> isempty(r) || first(r) >= 1, block) ||
        throw(ArgumentError("block $block: indices are 1-based"))
end

xfer_flags(collective::Bool, convert::Bool) =
    (collective ? DAH5_COLLECTIVE : DAH5_INDEPENDENT) | (convert ? DAH5_CONVERT : UInt32(0))

# Column-major contiguous memory, which dah5 reads and writes in place.
is_contiguous(A::DenseArray) = true
is_contiguous(A::StridedArray) = strides(A) == Base.size_to_strides(1, size(A)...)
is_contiguous(A::AbstractArray) = false

# dah5_write_block or dah5_read_block on the contiguous `buf`, kept alive for the call.
function transfer(c_function, dataset::Dataset, buf::AbstractArray{T}, block::Block,
                  collective::Bool, convert::Bool) where {T}
    offset, count = offset_count(block)
    GC.@preserve buf begin
        check(c_function(dataset.ptr, offset, count, dtype_code(T),
                         isempty(buf) ? C_NULL : pointer(buf), xfer_flags(collective, convert)))
    end
end

"""
    write_block(dataset, A, block; collective=false, convert=false)

Write `A` as the part `block` (a tuple of 1-based ranges, e.g. `localindices(d)`) of the
dataset. Independent unless `collective` (then every rank calls; a rank with nothing passes
an empty array and empty ranges). Contiguous arrays (`Array`, contiguous `SubArray`s) are
written in place; other arrays are copied first.
"""
function write_block(dataset::Dataset, A::AbstractArray{T}, block::Block;
                     collective::Bool = false, convert::Bool = false) where {T}
    check_block(A, block)
    buf = is_contiguous(A) ? A : Array(A)
    transfer(dah5_write_block, dataset, buf, block, collective, convert)
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

# ---- DistributedArrays (methods in ext/DAH5DistributedArraysExt.jl) ----

"""
    write_darray(path, name, d::DArray; comm=nothing, truncate=true, collective=false)

Write the DArray `d` as one dataset: every worker of `d` writes its `localpart` at its
`localindices`, all at once. The workers of `d` must be exactly the MPI ranks of `comm`
(MPIClusterManagers); `comm` is the Fortran handle of the communicator on the workers, or
`nothing` for `MPI.COMM_WORLD`. Needs `using MPI, DistributedArrays`.
"""
function write_darray end

"""
    read_darray(path, name, procs=workers(); comm=nothing) -> DArray

Read dataset `name` into a DArray distributed over `procs` (which must be the MPI ranks of
`comm`, and as many as `DistributedArrays.defaultdist` uses for the array). Needs
`using MPI, DistributedArrays`.
"""
function read_darray end

end # module DAH5
