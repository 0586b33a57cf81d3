# write_darray / read_darray(...; mpi = true): for DArrays whose workers are MPI ranks
# (MPIClusterManagers).
#
# The master (not an MPI rank) only orchestrates: it starts the same collective dah5 calls on
# every worker at once with remotecall, and each worker moves its own pieces, all of them in
# one dah5_darray_write_blocks (a worker may hold several: DAH5.local_pieces). Nothing is
# gathered.
module DAH5MPIDistributedArraysExt

using DAH5
using Distributed
using DistributedArrays
using MPI

worker_comm(comm) = comm === nothing ? MPI.COMM_WORLD : comm

# Every worker of the call must be a rank of the communicator, and every rank a worker, or
# the collective calls would wait for ranks that never come.
function check_ranks(comm, nworkers)
    size = MPI.Comm_size(comm)
    size == nworkers ||
        throw(ArgumentError("the DArray has $nworkers workers but the communicator has $size ranks; dah5 needs one worker per rank"))
end

# Run f(args...) on every process in procs at the same time; rethrow the first failure.
function on_all(f, procs, args...)
    asyncmap(p -> remotecall_fetch(f, p, args...), procs)
end

function write_local(path, name, d, comm, truncate, collective, subfiled)
    comm = worker_comm(comm)
    check_ranks(comm, length(procs(d)))
    file = DAH5.create_file(comm, path; truncate)
    try
        # Every piece of this worker in one call, which checks the pieces of all workers
        # together and records each with the rank that wrote it. A subfiled darray holds
        # one block a rank (its subfile): dah5_darray_write.
        blocks, parts = DAH5.local_pieces(d)
        if subfiled
            DAH5.darray_write(file, name, only(parts), only(blocks), size(d); collective,
                              subfiled)
        else
            DAH5.darray_write_blocks(file, name, parts, blocks, size(d); collective)
        end
    finally
        close(file) # collective, and closes the dataset
    end
    nothing
end

function DAH5.mpi_write_darray(path::AbstractString, name::AbstractString, d::DArray;
                               comm = nothing, truncate::Bool = true, collective::Bool = false,
                               subfiled::Bool = false)
    # On the master, so that every worker or none starts the collective calls.
    DAH5.check_pieces(d)
    on_all(write_local, procs(d), path, name, d, comm, truncate, collective, subfiled)
    nothing
end

function dataset_info(path, name, comm, nprocs)
    comm = worker_comm(comm)
    check_ranks(comm, nprocs)
    file = DAH5.open_file(comm, path)
    try
        dataset = DAH5.open_dataset(file, name)
        (eltype(dataset), size(dataset))
    finally
        close(file)
    end
end

function read_local(path, name, T, block, comm)
    file = DAH5.open_file(worker_comm(comm), path)
    try
        A = Array{T}(undef, map(length, block)...)
        DAH5.read_block!(A, DAH5.open_dataset(file, name), block)
    finally
        close(file)
    end
end

function DAH5.mpi_read_darray(path::AbstractString, name::AbstractString, procs; comm = nothing)
    T, dims = first(on_all(dataset_info, procs, path, name, comm, length(procs)))
    used = prod(DistributedArrays.defaultdist(dims, procs))
    used == length(procs) ||
        throw(ArgumentError("an array of size $dims is split over $used of the $(length(procs)) workers; pass procs[1:$used] and a communicator of those ranks"))
    DArray(block -> read_local(path, name, T, block, comm), dims, procs)
end

end
