# write_darray / read_darray for DArrays on plain `addprocs` workers, through direct block
# mode (no MPI): the master creates the dataset and its block table, every worker writes
# (or reads) its own pieces with pwrite/pread at once, the master waits. With
# `mpi = true` they go through MPI instead (workers that are MPI ranks; needs `using MPI`).
#
# A DArray has a piece per entry of `d.pids`, which may name a process more than once (a
# DArray built with more pieces than processes): every piece of this process is written,
# whatever the distribution. DistributedArrays.jl keeps one local part per process, that of
# the first of its pieces (`localindices(d)`); a piece it holds no data for is refused with
# an ArgumentError rather than written with another piece's data.
module DAH5DistributedArraysExt

using DAH5
using Distributed
using DistributedArrays

# The data of this process's piece `block`.
function piece_data(d::DArray, block)
    block == localindices(d) && return localpart(d)
    throw(ArgumentError("worker $(myid()) holds the pieces $(local_blocks(d)) of the DArray, but DistributedArrays.jl keeps the data of one piece a process ($(localindices(d))): there is none for $block. Build the DArray with one piece per process (each process's part may be any block), or write the blocks with DAH5.darray_write_blocks"))
end

local_blocks(d::DArray) = [d.indices[i] for i in eachindex(d.pids) if d.pids[i] == myid()]

function DAH5.local_pieces(d::DArray)
    blocks = local_blocks(d)
    blocks, [piece_data(d, block) for block in blocks]
end

function write_local(path, name, d, lock, file_locking)
    file = DAH5.direct_open(path, name; write = true, lock, file_locking)
    try
        foreach((block, part) -> DAH5.write_block(file, part, block), DAH5.local_pieces(d)...)
        flush(file) # fsync: the master reports success only for data on storage
    finally
        close(file)
    end
    nothing
end

function DAH5.write_darray(path::AbstractString, name::AbstractString, d::DArray;
                           mpi::Bool = false, truncate::Bool = true, lock::Bool = false,
                           file_locking::Bool = true, kwargs...)
    mpi && return DAH5.mpi_write_darray(path, name, d; truncate, kwargs...)
    isempty(kwargs) || throw(ArgumentError("$(join(keys(kwargs), ", ")) need mpi = true"))
    blocks = [d.indices[i] for i in eachindex(d.pids)]
    DAH5.direct_create(path, name, eltype(d), size(d); truncate, blocks = vec(blocks),
                       file_locking)
    @sync for p in unique(procs(d))
        @async remotecall_wait(write_local, p, path, name, d, lock, file_locking)
    end
    nothing
end

function read_local(path, name, T, block)
    file = DAH5.direct_open(path, name)
    try
        DAH5.read_block!(Array{T}(undef, map(length, block)...), file, block)
    finally
        close(file)
    end
end

function DAH5.read_darray(path::AbstractString, name::AbstractString, procs = workers();
                          mpi::Bool = false, kwargs...)
    mpi && return DAH5.mpi_read_darray(path, name, procs; kwargs...)
    file = DAH5.direct_open(path, name)
    T, dims = eltype(file), size(file)
    close(file)
    DArray(block -> read_local(path, name, T, block), dims, procs)
end

end
