# The C ABI of include/dah5.h, one Julia function per C function, same name, same argument
# order, in the header's order. tests/abi parses every `ccall` here and checks it against
# the header. Collective/local as documented in dah5.h.

"""Opaque C type of an open file (`struct dah5_file`)."""
mutable struct dah5_file end

"""Opaque C type of an open dataset (`struct dah5_dataset`)."""
mutable struct dah5_dataset end

"""Opaque C type of a dataset open in direct mode (`struct dah5_direct`)."""
mutable struct dah5_direct end

"""`struct dah5_dataset_options` of dah5.h."""
struct dah5_dataset_options
    version::UInt32
    flags::UInt32
    deflate_level::UInt32
    chunk_ndims::UInt32
    max_ndims::UInt32
    reserved::UInt32
    chunk::NTuple{32,UInt64}
    max_dims::NTuple{32,UInt64}
end

"""`struct dah5_file_options` of dah5.h."""
struct dah5_file_options
    version::UInt32
    flags::UInt32
    alignment_threshold::UInt64
    alignment::UInt64
    meta_block_size::UInt64
    metadata_cache_bytes::UInt64
    mpi_hints::Cstring
end

dah5_write_block(dataset, offset, count, mem_dtype, buf, xfer_flags) =
    ccall((:dah5_write_block, libdah5), Int32,
          (Ptr{dah5_dataset}, Ptr{UInt64}, Ptr{UInt64}, Int32, Ptr{Cvoid}, UInt32),
          dataset, offset, count, mem_dtype, buf, xfer_flags)

dah5_read_block(dataset, offset, count, mem_dtype, buf, xfer_flags) =
    ccall((:dah5_read_block, libdah5), Int32,
          (Ptr{dah5_dataset}, Ptr{UInt64}, Ptr{UInt64}, Int32, Ptr{Cvoid}, UInt32),
          dataset, offset, count, mem_dtype, buf, xfer_flags)

dah5_write_blocks(dataset, nblocks, offsets, counts, mem_dtype, buf, xfer_flags) =
    ccall((:dah5_write_blocks, libdah5), Int32,
          (Ptr{dah5_dataset}, UInt64, Ptr{UInt64}, Ptr{UInt64}, Int32, Ptr{Cvoid}, UInt32),
          dataset, nblocks, offsets, counts, mem_dtype, buf, xfer_flags)

dah5_read_blocks(dataset, nblocks, offsets, counts, mem_dtype, buf, xfer_flags) =
    ccall((:dah5_read_blocks, libdah5), Int32,
          (Ptr{dah5_dataset}, UInt64, Ptr{UInt64}, Ptr{UInt64}, Int32, Ptr{Cvoid}, UInt32),
          dataset, nblocks, offsets, counts, mem_dtype, buf, xfer_flags)

dah5_attr_write(file, object, name, dtype, ndims, count, buf) =
    ccall((:dah5_attr_write, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Cstring, Int32, UInt32, UInt64, Ptr{Cvoid}),
          file, object, name, dtype, ndims, count, buf)

dah5_attr_write_string(file, object, name, value) =
    ccall((:dah5_attr_write_string, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Cstring, Cstring), file, object, name, value)

dah5_attr_info(file, object, name, dtype_out, count_out) =
    ccall((:dah5_attr_info, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Cstring, Ref{Int32}, Ref{UInt64}),
          file, object, name, dtype_out, count_out)

dah5_attr_read(file, object, name, mem_dtype, capacity, buf, count_out) =
    ccall((:dah5_attr_read, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Cstring, Int32, UInt64, Ptr{Cvoid}, Ref{UInt64}),
          file, object, name, mem_dtype, capacity, buf, count_out)

dah5_attr_read_string(file, object, name, buf, len, len_out) =
    ccall((:dah5_attr_read_string, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Cstring, Ptr{UInt8}, Csize_t, Ref{Csize_t}),
          file, object, name, buf, len, len_out)

dah5_darray_write(file, name, dtype, ndims, dims, offset, count, buf, flags, options,
                  dataset_out) =
    ccall((:dah5_darray_write, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Int32, UInt32, Ptr{UInt64}, Ptr{UInt64}, Ptr{UInt64},
           Ptr{Cvoid}, UInt32, Ref{dah5_dataset_options}, Ref{Ptr{dah5_dataset}}),
          file, name, dtype, ndims, dims, offset, count, buf, flags, options, dataset_out)

dah5_darray_create(file, name, dtype, ndims, dims, offset, count, flags, options,
                   dataset_out) =
    ccall((:dah5_darray_create, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Int32, UInt32, Ptr{UInt64}, Ptr{UInt64}, Ptr{UInt64},
           UInt32, Ref{dah5_dataset_options}, Ref{Ptr{dah5_dataset}}),
          file, name, dtype, ndims, dims, offset, count, flags, options, dataset_out)

dah5_darray_write_blocks(file, name, dtype, ndims, dims, nblocks, offsets, counts, buf, flags,
                         options, dataset_out) =
    ccall((:dah5_darray_write_blocks, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Int32, UInt32, Ptr{UInt64}, UInt64, Ptr{UInt64}, Ptr{UInt64},
           Ptr{Cvoid}, UInt32, Ref{dah5_dataset_options}, Ref{Ptr{dah5_dataset}}),
          file, name, dtype, ndims, dims, nblocks, offsets, counts, buf, flags, options,
          dataset_out)

dah5_darray_create_blocks(file, name, dtype, ndims, dims, nblocks, offsets, counts, flags,
                          options, dataset_out) =
    ccall((:dah5_darray_create_blocks, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Int32, UInt32, Ptr{UInt64}, UInt64, Ptr{UInt64}, Ptr{UInt64},
           UInt32, Ref{dah5_dataset_options}, Ref{Ptr{dah5_dataset}}),
          file, name, dtype, ndims, dims, nblocks, offsets, counts, flags, options, dataset_out)

dah5_darray_block_ranks(dataset, capacity, nblocks_out, ranks_out) =
    ccall((:dah5_darray_block_ranks, libdah5), Int32,
          (Ptr{dah5_dataset}, UInt32, Ref{UInt32}, Ptr{Int32}),
          dataset, capacity, nblocks_out, ranks_out)

dah5_darray_blocks(dataset, capacity, nblocks_out, offsets_out, counts_out) =
    ccall((:dah5_darray_blocks, libdah5), Int32,
          (Ptr{dah5_dataset}, UInt32, Ref{UInt32}, Ptr{UInt64}, Ptr{UInt64}),
          dataset, capacity, nblocks_out, offsets_out, counts_out)

dah5_darray_partition(dataset, rank, nranks, offset_out, count_out) =
    ccall((:dah5_darray_partition, libdah5), Int32,
          (Ptr{dah5_dataset}, Int32, Int32, Ptr{UInt64}, Ptr{UInt64}),
          dataset, rank, nranks, offset_out, count_out)

dah5_dataset_options_default(options_out) =
    ccall((:dah5_dataset_options_default, libdah5), Int32,
          (Ref{dah5_dataset_options},), options_out)

dah5_dataset_options_init(options_out, version) =
    ccall((:dah5_dataset_options_init, libdah5), Int32,
          (Ref{dah5_dataset_options}, UInt32), options_out, version)

dah5_dataset_create(file, name, dtype, ndims, dims, options, dataset_out) =
    ccall((:dah5_dataset_create, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Int32, UInt32, Ptr{UInt64}, Ref{dah5_dataset_options},
           Ref{Ptr{dah5_dataset}}),
          file, name, dtype, ndims, dims, options, dataset_out)

dah5_dataset_open(file, name, dataset_out) =
    ccall((:dah5_dataset_open, libdah5), Int32,
          (Ptr{dah5_file}, Cstring, Ref{Ptr{dah5_dataset}}), file, name, dataset_out)

dah5_dataset_close(dataset) =
    ccall((:dah5_dataset_close, libdah5), Int32, (Ref{Ptr{dah5_dataset}},), dataset)

dah5_direct_create(path, name, dtype, ndims, dims, flags, nblocks, offsets, counts) =
    ccall((:dah5_direct_create, libdah5), Int32,
          (Cstring, Cstring, Int32, UInt32, Ptr{UInt64}, UInt32, UInt32, Ptr{UInt64}, Ptr{UInt64}),
          path, name, dtype, ndims, dims, flags, nblocks, offsets, counts)

dah5_direct_open(path, name, flags, direct_out) =
    ccall((:dah5_direct_open, libdah5), Int32, (Cstring, Cstring, UInt32, Ref{Ptr{dah5_direct}}),
          path, name, flags, direct_out)

dah5_direct_write_block(direct, offset, count, mem_dtype, buf) =
    ccall((:dah5_direct_write_block, libdah5), Int32,
          (Ptr{dah5_direct}, Ptr{UInt64}, Ptr{UInt64}, Int32, Ptr{Cvoid}),
          direct, offset, count, mem_dtype, buf)

dah5_direct_read_block(direct, offset, count, mem_dtype, buf) =
    ccall((:dah5_direct_read_block, libdah5), Int32,
          (Ptr{dah5_direct}, Ptr{UInt64}, Ptr{UInt64}, Int32, Ptr{Cvoid}),
          direct, offset, count, mem_dtype, buf)

dah5_direct_shape(direct, dtype_out, ndims_out, capacity, dims_out) =
    ccall((:dah5_direct_shape, libdah5), Int32,
          (Ptr{dah5_direct}, Ref{Int32}, Ref{UInt32}, UInt32, Ptr{UInt64}),
          direct, dtype_out, ndims_out, capacity, dims_out)

dah5_direct_sync(direct) =
    ccall((:dah5_direct_sync, libdah5), Int32, (Ptr{dah5_direct},), direct)

dah5_direct_close(direct) =
    ccall((:dah5_direct_close, libdah5), Int32, (Ref{Ptr{dah5_direct}},), direct)

dah5_dataset_extend(dataset, ndims, new_dims) =
    ccall((:dah5_dataset_extend, libdah5), Int32, (Ptr{dah5_dataset}, UInt32, Ptr{UInt64}),
          dataset, ndims, new_dims)

dah5_dataset_set_dim_names(dataset, ndims, names) =
    ccall((:dah5_dataset_set_dim_names, libdah5), Int32, (Ptr{dah5_dataset}, UInt32, Ptr{Cstring}),
          dataset, ndims, names)

dah5_dataset_dtype(dataset, dtype_out) =
    ccall((:dah5_dataset_dtype, libdah5), Int32, (Ptr{dah5_dataset}, Ref{Int32}),
          dataset, dtype_out)

dah5_dataset_ndims(dataset, ndims_out) =
    ccall((:dah5_dataset_ndims, libdah5), Int32, (Ptr{dah5_dataset}, Ref{UInt32}),
          dataset, ndims_out)

dah5_dataset_dims(dataset, capacity, dims_out) =
    ccall((:dah5_dataset_dims, libdah5), Int32, (Ptr{dah5_dataset}, UInt32, Ptr{UInt64}),
          dataset, capacity, dims_out)

dah5_file_options_default(options_out) =
    ccall((:dah5_file_options_default, libdah5), Int32, (Ref{dah5_file_options},),
          options_out)

dah5_file_options_init(options_out, version) =
    ccall((:dah5_file_options_init, libdah5), Int32, (Ref{dah5_file_options}, UInt32),
          options_out, version)

dah5_file_create(comm, path, flags, file_out) =
    ccall((:dah5_file_create, libdah5), Int32,
          (Int32, Cstring, UInt32, Ref{Ptr{dah5_file}}), comm, path, flags, file_out)

dah5_file_create_with(comm, path, flags, options, file_out) =
    ccall((:dah5_file_create_with, libdah5), Int32,
          (Int32, Cstring, UInt32, Ref{dah5_file_options}, Ref{Ptr{dah5_file}}),
          comm, path, flags, options, file_out)

dah5_file_open(comm, path, flags, file_out) =
    ccall((:dah5_file_open, libdah5), Int32,
          (Int32, Cstring, UInt32, Ref{Ptr{dah5_file}}), comm, path, flags, file_out)

dah5_file_open_with(comm, path, flags, options, file_out) =
    ccall((:dah5_file_open_with, libdah5), Int32,
          (Int32, Cstring, UInt32, Ref{dah5_file_options}, Ref{Ptr{dah5_file}}),
          comm, path, flags, options, file_out)

dah5_file_flush(file) =
    ccall((:dah5_file_flush, libdah5), Int32, (Ptr{dah5_file},), file)

dah5_file_wait(file) =
    ccall((:dah5_file_wait, libdah5), Int32, (Ptr{dah5_file},), file)

dah5_file_close(file) =
    ccall((:dah5_file_close, libdah5), Int32, (Ref{Ptr{dah5_file}},), file)

dah5_file_set_atomic(file, atomic) =
    ccall((:dah5_file_set_atomic, libdah5), Int32, (Ptr{dah5_file}, Int32), file, atomic)

dah5_group_create(file, path) =
    ccall((:dah5_group_create, libdah5), Int32, (Ptr{dah5_file}, Cstring), file, path)

dah5_version() = ccall((:dah5_version, libdah5), UInt32, ())

dah5_version_string() = ccall((:dah5_version_string, libdah5), Cstring, ())

dah5_status_name(status) = ccall((:dah5_status_name, libdah5), Cstring, (Int32,), status)

dah5_last_error(buf, len) =
    ccall((:dah5_last_error, libdah5), Csize_t, (Ptr{UInt8}, Csize_t), buf, len)

dah5_last_error_message() = ccall((:dah5_last_error_message, libdah5), Cstring, ())
