# write_darray / read_darray for DArrays on plain `addprocs` workers, through direct block
# mode (no MPI): the master creates the dataset and its block table, every worker writes
# (or reads) its own pieces with pwrite/pread at once, the master waits. With
# `mpi = true` they go through MPI instead (workers that are MPI ranks; needs `using MPI`).
#
# A DArray has a piece per entry of `d.pids` (`d.indices`), whatever its distribution, and
# every piece of a process is written. `d.pids` may name a process more than once (a DArray
# built with more pieces than processes), but DistributedArrays.jl keeps one local part a
# process (one registry entry per array): such a process's pieces share one array, which
# holds one of them (whichever was made first). Such a DArray is refused (`check_pieces`, on
# the master, before any worker starts) rather than written with one piece's data in
# another's place.
module DAH5DistributedArraysExt

using DAH5
using Distributed
using DistributedArrays

function DAH5.check_pieces(d::DArray)
    allunique(d.pids) && return nothing
    shared = unique(filter(p -> count(==(p), d.pids) > 1, vec(d.pids)))
    throw(ArgumentError("the DArray has $(length(d.pids)) pieces on $(length(unique(d.pids))) processes (processes $(join(shared, ", ")) hold several), but DistributedArrays.jl keeps one local part a process, so those pieces have no data of their own. Build the DArray with one piece a process (a piece may be any block), or call DAH5.darray_write_blocks on every rank with all of its blocks"))
end

# The data of this process's piece `block` (check_pieces made sure there is one).
function piece_data(d::DArray, block)
    block == localindices(d) ||
        throw(ArgumentError("worker $(myid()) has no data for the piece $block of the DArray (its local part is $(localindices(d)))"))
    localpart(d)
end

function DAH5.local_pieces(d::DArray)
    blocks = [d.indices[i] for i in eachindex(d.pids) if d.pids[i] == myid()]
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
    DAH5.check_pieces(d)
    blocks = [d.indices[i] for i in eachindex(d.pids)]
    DAH5.direct_create(path, name, eltype(d), size(d); truncate, blocks = vec(blocks),
                       file_locking)
    @sync for p in procs(d)
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
