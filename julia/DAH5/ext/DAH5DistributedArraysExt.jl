# write_darray / read_darray for DArrays on plain `addprocs` workers, through direct block
# mode (no MPI): the master creates the dataset and its block table, every worker writes
# (or reads) its own localpart with pwrite/pread at once, the master waits. With
# `mpi = true` they go through MPI instead (workers that are MPI ranks; needs `using MPI`).
module DAH5DistributedArraysExt

using DAH5
using Distributed
using DistributedArrays

function write_local(path, name, d, lock, file_locking)
    file = DAH5.direct_open(path, name; write = true, lock, file_locking)
    try
        DAH5.write_block(file, localpart(d), localindices(d))
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
