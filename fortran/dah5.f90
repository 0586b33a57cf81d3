! dah5.f90: the Fortran module of dah5 (one source file; compile it with your mpif90).
!
!   mpif90 -c dah5.f90                      (makes dah5.mod and dah5.o)
!   mpif90 prog.f90 dah5.o -ldah5 ...       (see docs/fortran.md)
!
! Two layers:
!  - dah5_c_*: bind(C) interfaces to every function of include/dah5.h, argument for
!    argument (tests/abi checks them against the header). Use them only for what the
!    wrappers do not offer.
!  - the wrappers (dah5_file_create, dah5_write_block, ...): character(len=*) names,
!    integer communicators (from `use mpi`, or `comm%MPI_VAL` from `use mpi_f08`),
!    1-based index ranges lo(:) .. hi(:) as from lbound/ubound, generic transfers for
!    real32/real64/complex/int32/int64 arrays of any rank, and an optional `ierr`. Without
!    `ierr` a failure prints the library's message and ends the whole job (MPI_Abort on
!    MPI_COMM_WORLD, as MPI_ERRORS_ARE_FATAL does; error stop outside MPI_Init..Finalize).
!
! Every file is opened in Fortran order (DAH5_ORDER_F): an array A(nx, ny) is stored as HDF5
! dims (ny, nx) with the same bytes, exactly as HDF5's own Fortran API does, so h5py shows the
! transpose and Fortran/Julia readers get A(nx, ny) back.
!
! Which calls are collective is the same as in dah5.h: file and dataset create/open/close,
! group create, flush, and darray writes and creates (dah5_darray_write[_blocks],
! dah5_darray_create[_blocks]) are collective over the file's communicator; block transfers
! (dah5_write_block[s], dah5_read_block[s]) are independent unless flags=DAH5_COLLECTIVE;
! dah5_file_wait (this rank's writes behind, flags=DAH5_ASYNC) and the query functions are
! local.
module dah5
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_size_t, c_char, c_ptr, &
       c_null_ptr, c_null_char, c_associated, c_f_pointer, c_loc
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64, error_unit
  implicit none
  private

  ! ---- Constants: the #defines of dah5.h, same names and values (tests/abi checks). ----
  integer(c_int32_t), parameter, public :: DAH5_VERSION_MAJOR = 0
  integer(c_int32_t), parameter, public :: DAH5_VERSION_MINOR = 1
  integer(c_int32_t), parameter, public :: DAH5_VERSION_PATCH = 0
  integer(c_int32_t), parameter, public :: DAH5_VERSION_NUMBER = 100
  ! File flags.
  integer(c_int32_t), parameter, public :: DAH5_RDONLY = 1
  integer(c_int32_t), parameter, public :: DAH5_RDWR = 2
  integer(c_int32_t), parameter, public :: DAH5_TRUNC = 4
  integer(c_int32_t), parameter, public :: DAH5_ORDER_F = 16
  ! Transfer flags.
  integer(c_int32_t), parameter, public :: DAH5_INDEPENDENT = 0
  integer(c_int32_t), parameter, public :: DAH5_COLLECTIVE = 1
  integer(c_int32_t), parameter, public :: DAH5_CONVERT = 2
  ! Write behind the caller (dah5_write_block[s]): the array stays allocated and unmodified
  ! until dah5_file_wait, dah5_file_flush or dah5_file_close returns (docs/fortran.md).
  integer(c_int32_t), parameter, public :: DAH5_ASYNC = 4
  ! Dataset option flags, and the max dim of a dimension that grows without limit.
  integer(c_int32_t), parameter, public :: DAH5_FILL_ZEROS = 1
  integer(c_int32_t), parameter, public :: DAH5_SHUFFLE = 2
  integer(c_int64_t), parameter, public :: DAH5_UNLIMITED = -1_c_int64_t ! UINT64_MAX
  ! dah5_darray_write flag; file option flag.
  integer(c_int32_t), parameter, public :: DAH5_DARRAY_PARTIAL = 256
  ! dah5_darray_write and dah5_darray_create flag: each node's blocks in a file of its own.
  integer(c_int32_t), parameter, public :: DAH5_DARRAY_SUBFILED = 512
  integer(c_int32_t), parameter, public :: DAH5_ATOMIC = 1
  integer(c_int32_t), parameter, public :: DAH5_NO_CHECKS = 128
  ! dah5_direct_open flag: an advisory fcntl lock around each write.
  integer(c_int32_t), parameter, public :: DAH5_DIRECT_LOCK = 32
  integer(c_int32_t), parameter, public :: DAH5_NO_FILE_LOCKING = 64
  ! Element types.
  integer(c_int32_t), parameter, public :: DAH5_INT8 = 1
  integer(c_int32_t), parameter, public :: DAH5_INT16 = 2
  integer(c_int32_t), parameter, public :: DAH5_INT32 = 3
  integer(c_int32_t), parameter, public :: DAH5_INT64 = 4
  integer(c_int32_t), parameter, public :: DAH5_UINT8 = 5
  integer(c_int32_t), parameter, public :: DAH5_UINT16 = 6
  integer(c_int32_t), parameter, public :: DAH5_UINT32 = 7
  integer(c_int32_t), parameter, public :: DAH5_UINT64 = 8
  integer(c_int32_t), parameter, public :: DAH5_FLOAT32 = 9
  integer(c_int32_t), parameter, public :: DAH5_FLOAT64 = 10
  integer(c_int32_t), parameter, public :: DAH5_COMPLEX64 = 11
  integer(c_int32_t), parameter, public :: DAH5_COMPLEX128 = 12
  integer(c_int32_t), parameter, public :: DAH5_STRING = 13
  integer(c_int32_t), parameter, public :: DAH5_MAX_NDIMS = 32
  integer(c_int32_t), parameter, public :: DAH5_FILE_OPTIONS_VERSION = 2
  integer(c_int32_t), parameter, public :: DAH5_DATASET_OPTIONS_VERSION = 2
  ! Status codes.
  integer(c_int32_t), parameter, public :: DAH5_OK = 0
  integer(c_int32_t), parameter, public :: DAH5_ERR_INVALID_ARGUMENT = -1
  integer(c_int32_t), parameter, public :: DAH5_ERR_NULL_ARGUMENT = -2
  integer(c_int32_t), parameter, public :: DAH5_ERR_INVALID_HANDLE = -3
  integer(c_int32_t), parameter, public :: DAH5_ERR_OUT_OF_BOUNDS = -4
  integer(c_int32_t), parameter, public :: DAH5_ERR_TYPE_MISMATCH = -5
  integer(c_int32_t), parameter, public :: DAH5_ERR_NOT_FOUND = -6
  integer(c_int32_t), parameter, public :: DAH5_ERR_ALREADY_EXISTS = -7
  integer(c_int32_t), parameter, public :: DAH5_ERR_READ_ONLY = -8
  integer(c_int32_t), parameter, public :: DAH5_ERR_NOT_HDF5 = -9
  integer(c_int32_t), parameter, public :: DAH5_ERR_TRUNCATED = -10
  integer(c_int32_t), parameter, public :: DAH5_ERR_NO_SPACE = -11
  integer(c_int32_t), parameter, public :: DAH5_ERR_PERMISSION = -12
  integer(c_int32_t), parameter, public :: DAH5_ERR_COLLECTIVE_MISMATCH = -13
  integer(c_int32_t), parameter, public :: DAH5_ERR_HDF5 = -14
  integer(c_int32_t), parameter, public :: DAH5_ERR_MPI = -15
  integer(c_int32_t), parameter, public :: DAH5_ERR_IO = -16
  integer(c_int32_t), parameter, public :: DAH5_ERR_MPI_NOT_INITIALIZED = -17
  integer(c_int32_t), parameter, public :: DAH5_ERR_ABI_MISMATCH = -18
  integer(c_int32_t), parameter, public :: DAH5_ERR_PANIC = -19
  integer(c_int32_t), parameter, public :: DAH5_ERR_COLLECTIVE_TIMEOUT = -20
  integer(c_int32_t), parameter, public :: DAH5_ERR_UNSUPPORTED = -21
  integer(c_int32_t), parameter, public :: DAH5_ERR_FILE_CHANGED = -22
  integer(c_int32_t), parameter, public :: DAH5_ERR_IN_USE = -23

  ! ---- Option structs (interoperable; unsigned C fields are signed here, same bits). ----
  ! chunk and max_dims are in Fortran order (the files are opened with DAH5_ORDER_F).
  type, bind(C), public :: dah5_dataset_options
     integer(c_int32_t) :: version = DAH5_DATASET_OPTIONS_VERSION
     integer(c_int32_t) :: flags = 0
     integer(c_int32_t) :: deflate_level = 0
     integer(c_int32_t) :: chunk_ndims = 0
     integer(c_int32_t) :: max_ndims = 0
     integer(c_int32_t) :: reserved = 0
     integer(c_int64_t) :: chunk(DAH5_MAX_NDIMS) = 0
     integer(c_int64_t) :: max_dims(DAH5_MAX_NDIMS) = 0
  end type dah5_dataset_options

  type, bind(C), public :: dah5_file_options
     integer(c_int32_t) :: version = DAH5_FILE_OPTIONS_VERSION
     integer(c_int32_t) :: flags = 0
     integer(c_int64_t) :: alignment_threshold = 1048576
     integer(c_int64_t) :: alignment = 1048576
     integer(c_int64_t) :: meta_block_size = 0
     integer(c_int64_t) :: metadata_cache_bytes = 0
     type(c_ptr) :: mpi_hints = c_null_ptr ! set by the wrappers from their `hints` argument
  end type dah5_file_options

  ! ---- Handles: the library's opaque pointers, typed so a file is never a dataset. ----
  type, public :: dah5_file
     type(c_ptr) :: ptr = c_null_ptr
  end type dah5_file

  type, public :: dah5_dataset
     type(c_ptr) :: ptr = c_null_ptr
  end type dah5_dataset

  ! ---- The C ABI, one interface per exported function, in dah5.h's order. ----
  public :: dah5_c_write_block, dah5_c_read_block, dah5_c_dataset_options_default, &
       dah5_c_dataset_options_init, dah5_c_file_options_init, &
       dah5_c_dataset_create, dah5_c_dataset_open, dah5_c_dataset_close, dah5_c_dataset_dtype, &
       dah5_c_dataset_ndims, dah5_c_dataset_dims, dah5_c_file_options_default, &
       dah5_c_file_create, dah5_c_file_create_with, dah5_c_file_open, dah5_c_file_open_with, &
       dah5_c_file_flush, dah5_c_file_wait, dah5_c_file_close, dah5_c_version, dah5_c_version_string, &
       dah5_c_status_name, dah5_c_last_error, dah5_c_last_error_message, dah5_c_attr_write, &
       dah5_c_attr_write_string, dah5_c_attr_info, dah5_c_attr_read, dah5_c_attr_read_string, &
       dah5_c_darray_write, dah5_c_darray_create, dah5_c_darray_blocks, dah5_c_darray_partition, &
       dah5_c_dataset_extend, dah5_c_dataset_set_dim_names, dah5_c_file_set_atomic, dah5_c_direct_create, dah5_c_direct_open, &
       dah5_c_direct_write_block, dah5_c_direct_read_block, dah5_c_direct_shape, &
       dah5_c_direct_sync, dah5_c_direct_close, dah5_c_write_blocks, dah5_c_read_blocks, &
       dah5_c_darray_write_blocks, dah5_c_darray_create_blocks, dah5_c_darray_block_ranks
  interface
     ! Direct block mode (no MPI): see dah5.h. Called through these interfaces (with c_loc
     ! for the buffer); the MPI wrappers below are what Fortran programs normally use.
     function dah5_c_direct_create(path, name, dtype, ndims, dims, flags, nblocks, offsets, &
          counts) bind(C, name="dah5_direct_create") result(status)
       import :: c_int32_t, c_int64_t, c_char
       character(kind=c_char), intent(in) :: path(*), name(*)
       integer(c_int32_t), value :: dtype, ndims
       integer(c_int64_t), intent(in) :: dims(*)
       integer(c_int32_t), value :: flags, nblocks
       integer(c_int64_t), intent(in) :: offsets(*), counts(*)
       integer(c_int32_t) :: status
     end function dah5_c_direct_create

     function dah5_c_direct_open(path, name, flags, direct_out) &
          bind(C, name="dah5_direct_open") result(status)
       import :: c_int32_t, c_char, c_ptr
       character(kind=c_char), intent(in) :: path(*), name(*)
       integer(c_int32_t), value :: flags
       type(c_ptr), intent(inout) :: direct_out
       integer(c_int32_t) :: status
     end function dah5_c_direct_open

     function dah5_c_direct_write_block(direct, offset, count, mem_dtype, buf) &
          bind(C, name="dah5_direct_write_block") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: direct
       integer(c_int64_t), intent(in) :: offset(*), count(*)
       integer(c_int32_t), value :: mem_dtype
       type(c_ptr), value :: buf
       integer(c_int32_t) :: status
     end function dah5_c_direct_write_block

     function dah5_c_direct_read_block(direct, offset, count, mem_dtype, buf) &
          bind(C, name="dah5_direct_read_block") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: direct
       integer(c_int64_t), intent(in) :: offset(*), count(*)
       integer(c_int32_t), value :: mem_dtype
       type(c_ptr), value :: buf
       integer(c_int32_t) :: status
     end function dah5_c_direct_read_block

     function dah5_c_direct_shape(direct, dtype_out, ndims_out, capacity, dims_out) &
          bind(C, name="dah5_direct_shape") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: direct
       integer(c_int32_t), intent(inout) :: dtype_out, ndims_out
       integer(c_int32_t), value :: capacity
       integer(c_int64_t), intent(inout) :: dims_out(*)
       integer(c_int32_t) :: status
     end function dah5_c_direct_shape

     function dah5_c_direct_sync(direct) bind(C, name="dah5_direct_sync") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: direct
       integer(c_int32_t) :: status
     end function dah5_c_direct_sync

     function dah5_c_direct_close(direct) bind(C, name="dah5_direct_close") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), intent(inout) :: direct
       integer(c_int32_t) :: status
     end function dah5_c_direct_close


     function dah5_c_attr_write(file, object, name, dtype, ndims, count, buf) &
          bind(C, name="dah5_attr_write") result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: object(*), name(*)
       integer(c_int32_t), value :: dtype, ndims
       integer(c_int64_t), value :: count
       type(c_ptr), value :: buf
       integer(c_int32_t) :: status
     end function dah5_c_attr_write

     function dah5_c_attr_write_string(file, object, name, value) &
          bind(C, name="dah5_attr_write_string") result(status)
       import :: c_int32_t, c_char, c_ptr
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: object(*), name(*), value(*)
       integer(c_int32_t) :: status
     end function dah5_c_attr_write_string

     function dah5_c_attr_info(file, object, name, dtype_out, count_out) &
          bind(C, name="dah5_attr_info") result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: object(*), name(*)
       integer(c_int32_t), intent(inout) :: dtype_out
       integer(c_int64_t), intent(inout) :: count_out
       integer(c_int32_t) :: status
     end function dah5_c_attr_info

     function dah5_c_attr_read(file, object, name, mem_dtype, capacity, buf, count_out) &
          bind(C, name="dah5_attr_read") result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: object(*), name(*)
       integer(c_int32_t), value :: mem_dtype
       integer(c_int64_t), value :: capacity
       type(c_ptr), value :: buf
       integer(c_int64_t), intent(inout) :: count_out
       integer(c_int32_t) :: status
     end function dah5_c_attr_read

     function dah5_c_attr_read_string(file, object, name, buf, len, len_out) &
          bind(C, name="dah5_attr_read_string") result(status)
       import :: c_int32_t, c_size_t, c_char, c_ptr
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: object(*), name(*)
       character(kind=c_char), intent(inout) :: buf(*)
       integer(c_size_t), value :: len
       integer(c_size_t), intent(inout) :: len_out
       integer(c_int32_t) :: status
     end function dah5_c_attr_read_string

     function dah5_c_darray_write(file, name, dtype, ndims, dims, offset, count, buf, flags, &
          options, dataset_out) bind(C, name="dah5_darray_write") result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr, dah5_dataset_options
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int32_t), value :: dtype, ndims
       integer(c_int64_t), intent(in) :: dims(*), offset(*), count(*)
       type(c_ptr), value :: buf
       integer(c_int32_t), value :: flags
       type(dah5_dataset_options), intent(in) :: options
       type(c_ptr), intent(inout) :: dataset_out
       integer(c_int32_t) :: status
     end function dah5_c_darray_write

     function dah5_c_darray_create(file, name, dtype, ndims, dims, offset, count, flags, &
          options, dataset_out) bind(C, name="dah5_darray_create") result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr, dah5_dataset_options
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int32_t), value :: dtype, ndims
       integer(c_int64_t), intent(in) :: dims(*), offset(*), count(*)
       integer(c_int32_t), value :: flags
       type(dah5_dataset_options), intent(in) :: options
       type(c_ptr), intent(inout) :: dataset_out
       integer(c_int32_t) :: status
     end function dah5_c_darray_create

     function dah5_c_darray_blocks(dataset, capacity, nblocks_out, offsets_out, counts_out) &
          bind(C, name="dah5_darray_blocks") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), value :: capacity
       integer(c_int32_t), intent(inout) :: nblocks_out
       integer(c_int64_t), intent(inout) :: offsets_out(*), counts_out(*)
       integer(c_int32_t) :: status
     end function dah5_c_darray_blocks

     function dah5_c_darray_partition(dataset, rank, nranks, offset_out, count_out) &
          bind(C, name="dah5_darray_partition") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), value :: rank, nranks
       integer(c_int64_t), intent(inout) :: offset_out(*), count_out(*)
       integer(c_int32_t) :: status
     end function dah5_c_darray_partition

     function dah5_c_dataset_extend(dataset, ndims, new_dims) &
          bind(C, name="dah5_dataset_extend") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), value :: ndims
       integer(c_int64_t), intent(in) :: new_dims(*)
       integer(c_int32_t) :: status
     end function dah5_c_dataset_extend

     function dah5_c_dataset_set_dim_names(dataset, ndims, names) &
          bind(C, name="dah5_dataset_set_dim_names") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), value :: ndims
       type(c_ptr), intent(in) :: names(*)
       integer(c_int32_t) :: status
     end function dah5_c_dataset_set_dim_names

     function dah5_c_file_set_atomic(file, atomic) bind(C, name="dah5_file_set_atomic") &
          result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: file
       integer(c_int32_t), value :: atomic
       integer(c_int32_t) :: status
     end function dah5_c_file_set_atomic

     function dah5_c_group_create(file, path) bind(C, name="dah5_group_create") result(status)
       import :: c_int32_t, c_char, c_ptr
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int32_t) :: status
     end function dah5_c_group_create

     function dah5_c_write_block(dataset, offset, count, mem_dtype, buf, xfer_flags) &
          bind(C, name="dah5_write_block") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int64_t), intent(in) :: offset(*)
       integer(c_int64_t), intent(in) :: count(*)
       integer(c_int32_t), value :: mem_dtype
       type(c_ptr), value :: buf
       integer(c_int32_t), value :: xfer_flags
       integer(c_int32_t) :: status
     end function dah5_c_write_block

     function dah5_c_read_block(dataset, offset, count, mem_dtype, buf, xfer_flags) &
          bind(C, name="dah5_read_block") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int64_t), intent(in) :: offset(*)
       integer(c_int64_t), intent(in) :: count(*)
       integer(c_int32_t), value :: mem_dtype
       type(c_ptr), value :: buf
       integer(c_int32_t), value :: xfer_flags
       integer(c_int32_t) :: status
     end function dah5_c_read_block

     ! Many blocks in one transfer: offsets and counts are nblocks x ndims, block after
     ! block, in the handle's order (Fortran order here); buf holds the blocks one after
     ! another, each packed in that order.
     function dah5_c_write_blocks(dataset, nblocks, offsets, counts, mem_dtype, buf, xfer_flags) &
          bind(C, name="dah5_write_blocks") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int64_t), value :: nblocks
       integer(c_int64_t), intent(in) :: offsets(*), counts(*)
       integer(c_int32_t), value :: mem_dtype
       type(c_ptr), value :: buf
       integer(c_int32_t), value :: xfer_flags
       integer(c_int32_t) :: status
     end function dah5_c_write_blocks

     function dah5_c_read_blocks(dataset, nblocks, offsets, counts, mem_dtype, buf, xfer_flags) &
          bind(C, name="dah5_read_blocks") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int64_t), value :: nblocks
       integer(c_int64_t), intent(in) :: offsets(*), counts(*)
       integer(c_int32_t), value :: mem_dtype
       type(c_ptr), value :: buf
       integer(c_int32_t), value :: xfer_flags
       integer(c_int32_t) :: status
     end function dah5_c_read_blocks

     function dah5_c_darray_write_blocks(file, name, dtype, ndims, dims, nblocks, offsets, &
          counts, buf, flags, options, dataset_out) bind(C, name="dah5_darray_write_blocks") &
          result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr, dah5_dataset_options
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int32_t), value :: dtype, ndims
       integer(c_int64_t), intent(in) :: dims(*)
       integer(c_int64_t), value :: nblocks
       integer(c_int64_t), intent(in) :: offsets(*), counts(*)
       type(c_ptr), value :: buf
       integer(c_int32_t), value :: flags
       type(dah5_dataset_options), intent(in) :: options
       type(c_ptr), intent(inout) :: dataset_out
       integer(c_int32_t) :: status
     end function dah5_c_darray_write_blocks

     function dah5_c_darray_create_blocks(file, name, dtype, ndims, dims, nblocks, offsets, &
          counts, flags, options, dataset_out) bind(C, name="dah5_darray_create_blocks") &
          result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr, dah5_dataset_options
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int32_t), value :: dtype, ndims
       integer(c_int64_t), intent(in) :: dims(*)
       integer(c_int64_t), value :: nblocks
       integer(c_int64_t), intent(in) :: offsets(*), counts(*)
       integer(c_int32_t), value :: flags
       type(dah5_dataset_options), intent(in) :: options
       type(c_ptr), intent(inout) :: dataset_out
       integer(c_int32_t) :: status
     end function dah5_c_darray_create_blocks

     function dah5_c_darray_block_ranks(dataset, capacity, nblocks_out, ranks_out) &
          bind(C, name="dah5_darray_block_ranks") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), value :: capacity
       integer(c_int32_t), intent(inout) :: nblocks_out
       integer(c_int32_t), intent(inout) :: ranks_out(*)
       integer(c_int32_t) :: status
     end function dah5_c_darray_block_ranks

     function dah5_c_dataset_options_default(options_out) &
          bind(C, name="dah5_dataset_options_default") result(status)
       import :: c_int32_t, dah5_dataset_options
       type(dah5_dataset_options), intent(inout) :: options_out
       integer(c_int32_t) :: status
     end function dah5_c_dataset_options_default

     function dah5_c_dataset_options_init(options_out, version) &
          bind(C, name="dah5_dataset_options_init") result(status)
       import :: c_int32_t, dah5_dataset_options
       type(dah5_dataset_options), intent(inout) :: options_out
       integer(c_int32_t), value :: version
       integer(c_int32_t) :: status
     end function dah5_c_dataset_options_init

     function dah5_c_dataset_create(file, name, dtype, ndims, dims, options, dataset_out) &
          bind(C, name="dah5_dataset_create") result(status)
       import :: c_int32_t, c_int64_t, c_char, c_ptr, dah5_dataset_options
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int32_t), value :: dtype
       integer(c_int32_t), value :: ndims
       integer(c_int64_t), intent(in) :: dims(*)
       type(dah5_dataset_options), intent(in) :: options
       type(c_ptr), intent(inout) :: dataset_out
       integer(c_int32_t) :: status
     end function dah5_c_dataset_create

     function dah5_c_dataset_open(file, name, dataset_out) &
          bind(C, name="dah5_dataset_open") result(status)
       import :: c_int32_t, c_char, c_ptr
       type(c_ptr), value :: file
       character(kind=c_char), intent(in) :: name(*)
       type(c_ptr), intent(inout) :: dataset_out
       integer(c_int32_t) :: status
     end function dah5_c_dataset_open

     function dah5_c_dataset_close(dataset) bind(C, name="dah5_dataset_close") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), intent(inout) :: dataset
       integer(c_int32_t) :: status
     end function dah5_c_dataset_close

     function dah5_c_dataset_dtype(dataset, dtype_out) &
          bind(C, name="dah5_dataset_dtype") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), intent(inout) :: dtype_out
       integer(c_int32_t) :: status
     end function dah5_c_dataset_dtype

     function dah5_c_dataset_ndims(dataset, ndims_out) &
          bind(C, name="dah5_dataset_ndims") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), intent(inout) :: ndims_out
       integer(c_int32_t) :: status
     end function dah5_c_dataset_ndims

     function dah5_c_dataset_dims(dataset, capacity, dims_out) &
          bind(C, name="dah5_dataset_dims") result(status)
       import :: c_int32_t, c_int64_t, c_ptr
       type(c_ptr), value :: dataset
       integer(c_int32_t), value :: capacity
       integer(c_int64_t), intent(inout) :: dims_out(*)
       integer(c_int32_t) :: status
     end function dah5_c_dataset_dims

     function dah5_c_file_options_default(options_out) &
          bind(C, name="dah5_file_options_default") result(status)
       import :: c_int32_t, dah5_file_options
       type(dah5_file_options), intent(inout) :: options_out
       integer(c_int32_t) :: status
     end function dah5_c_file_options_default

     function dah5_c_file_options_init(options_out, version) &
          bind(C, name="dah5_file_options_init") result(status)
       import :: c_int32_t, dah5_file_options
       type(dah5_file_options), intent(inout) :: options_out
       integer(c_int32_t), value :: version
       integer(c_int32_t) :: status
     end function dah5_c_file_options_init

     function dah5_c_file_create(comm, path, flags, file_out) &
          bind(C, name="dah5_file_create") result(status)
       import :: c_int32_t, c_char, c_ptr
       integer(c_int32_t), value :: comm
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int32_t), value :: flags
       type(c_ptr), intent(inout) :: file_out
       integer(c_int32_t) :: status
     end function dah5_c_file_create

     function dah5_c_file_create_with(comm, path, flags, options, file_out) &
          bind(C, name="dah5_file_create_with") result(status)
       import :: c_int32_t, c_char, c_ptr, dah5_file_options
       integer(c_int32_t), value :: comm
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int32_t), value :: flags
       type(dah5_file_options), intent(in) :: options
       type(c_ptr), intent(inout) :: file_out
       integer(c_int32_t) :: status
     end function dah5_c_file_create_with

     function dah5_c_file_open(comm, path, flags, file_out) &
          bind(C, name="dah5_file_open") result(status)
       import :: c_int32_t, c_char, c_ptr
       integer(c_int32_t), value :: comm
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int32_t), value :: flags
       type(c_ptr), intent(inout) :: file_out
       integer(c_int32_t) :: status
     end function dah5_c_file_open

     function dah5_c_file_open_with(comm, path, flags, options, file_out) &
          bind(C, name="dah5_file_open_with") result(status)
       import :: c_int32_t, c_char, c_ptr, dah5_file_options
       integer(c_int32_t), value :: comm
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int32_t), value :: flags
       type(dah5_file_options), intent(in) :: options
       type(c_ptr), intent(inout) :: file_out
       integer(c_int32_t) :: status
     end function dah5_c_file_open_with

     function dah5_c_file_flush(file) bind(C, name="dah5_file_flush") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: file
       integer(c_int32_t) :: status
     end function dah5_c_file_flush

     function dah5_c_file_wait(file) bind(C, name="dah5_file_wait") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), value :: file
       integer(c_int32_t) :: status
     end function dah5_c_file_wait

     function dah5_c_file_close(file) bind(C, name="dah5_file_close") result(status)
       import :: c_int32_t, c_ptr
       type(c_ptr), intent(inout) :: file
       integer(c_int32_t) :: status
     end function dah5_c_file_close

     function dah5_c_version() bind(C, name="dah5_version") result(version)
       import :: c_int32_t
       integer(c_int32_t) :: version
     end function dah5_c_version

     function dah5_c_version_string() bind(C, name="dah5_version_string") result(text)
       import :: c_ptr
       type(c_ptr) :: text
     end function dah5_c_version_string

     function dah5_c_status_name(status) bind(C, name="dah5_status_name") result(text)
       import :: c_int32_t, c_ptr
       integer(c_int32_t), value :: status
       type(c_ptr) :: text
     end function dah5_c_status_name

     function dah5_c_last_error(buf, len) bind(C, name="dah5_last_error") result(full_len)
       import :: c_size_t, c_char
       character(kind=c_char), intent(inout) :: buf(*)
       integer(c_size_t), value :: len
       integer(c_size_t) :: full_len
     end function dah5_c_last_error

     function dah5_c_last_error_message() bind(C, name="dah5_last_error_message") result(text)
       import :: c_ptr
       type(c_ptr) :: text
     end function dah5_c_last_error_message
  end interface

  ! From libc, to read the library's static strings.
  interface
     function c_strlen(text) bind(C, name="strlen") result(length)
       import :: c_ptr, c_size_t
       type(c_ptr), value :: text
       integer(c_size_t) :: length
     end function c_strlen
  end interface

  ! ---- The Fortran API. ----
  public :: dah5_file_create, dah5_file_open, dah5_file_flush, dah5_file_wait, dah5_file_close
  public :: dah5_group_create
  public :: dah5_dataset_create, dah5_dataset_open, dah5_dataset_close
  public :: dah5_dataset_dtype, dah5_dataset_dims
  public :: dah5_file_options_default, dah5_dataset_options_default
  public :: dah5_write_block, dah5_read_block
  public :: dah5_version, dah5_version_string, dah5_status_name, dah5_error_message
  public :: dah5_file_set_atomic, dah5_dataset_extend, dah5_dataset_set_dim_names
  public :: dah5_darray_write, dah5_darray_create, dah5_darray_blocks, dah5_darray_partition
  public :: dah5_write_blocks, dah5_read_blocks
  public :: dah5_darray_write_blocks, dah5_darray_create_blocks, dah5_darray_block_ranks
  public :: dah5_attr_write, dah5_attr_write_string, dah5_attr_read, dah5_attr_read_string

  !> call dah5_write_block(dset, lo, hi, a [, flags] [, ierr])
  !> Write a(:, ...) as the block lo(1):hi(1), lo(2):hi(2), ... (1-based global indices) of
  !> dset. Independent unless flags = DAH5_COLLECTIVE (then every rank calls; a rank with
  !> nothing to write passes an empty array and hi = lo - 1). A non-contiguous array
  !> section is copied into a temporary by the compiler; a contiguous one is not copied.
  !> flags = DAH5_ASYNC writes behind the caller: `a` must then be a contiguous variable
  !> declared `asynchronous`, left allocated and unmodified until dah5_file_wait,
  !> dah5_file_flush or dah5_file_close returns (docs/fortran.md, "Writes behind").
  interface dah5_write_block
     module procedure write_real32, write_real64, write_complex64, write_complex128, &
          write_int32, write_int64
  end interface dah5_write_block

  !> call dah5_read_block(dset, lo, hi, a [, flags] [, ierr]): the inverse of dah5_write_block.
  interface dah5_read_block
     module procedure read_real32, read_real64, read_complex64, read_complex128, &
          read_int32, read_int64
  end interface dah5_read_block

  !> call dah5_darray_write(file, name, dims, lo, hi, a, dset [, flags] [, options] [, ierr])
  !> Collective: every rank passes the global dims and its part a = A(lo(1):hi(1), ...);
  !> the library checks the blocks, creates the dataset, records the decomposition and
  !> writes every part. flags: 0, DAH5_COLLECTIVE, DAH5_DARRAY_PARTIAL, or
  !> DAH5_DARRAY_SUBFILED (each node's parts in a file of its own, read as one array through
  !> a virtual dataset; see docs/subfiled.md).
  interface dah5_darray_write
     module procedure darray_write_real32, darray_write_real64, darray_write_complex64, &
          darray_write_complex128, darray_write_int32, darray_write_int64
  end interface dah5_darray_write

  !> call dah5_write_blocks(dset, lo, hi, a [, flags] [, ierr])
  !> Write nblocks = size(lo, 2) blocks in one transfer: block b is lo(:, b):hi(:, b)
  !> (1-based global indices, Fortran order), and `a` (any rank, usually 1-D) holds the
  !> blocks one after another, each in column-major order: size(a) is the sum of the blocks'
  !> sizes. Independent unless flags = DAH5_COLLECTIVE (then every rank calls; a rank with
  !> nothing to write passes lo and hi of shape (ndims, 0) and an empty array).
  !> flags = DAH5_ASYNC writes behind the caller, as for dah5_write_block.
  interface dah5_write_blocks
     module procedure write_blocks_real32, write_blocks_real64, write_blocks_complex64, &
          write_blocks_complex128, write_blocks_int32, write_blocks_int64
  end interface dah5_write_blocks

  !> call dah5_read_blocks(dset, lo, hi, a [, flags] [, ierr]): the inverse of dah5_write_blocks.
  interface dah5_read_blocks
     module procedure read_blocks_real32, read_blocks_real64, read_blocks_complex64, &
          read_blocks_complex128, read_blocks_int32, read_blocks_int64
  end interface dah5_read_blocks

  !> call dah5_darray_write_blocks(file, name, dims, lo, hi, a, dset [, flags] [, options] [, ierr])
  !> Collective: dah5_darray_write where each rank gives any number of blocks, lo(:, b):hi(:, b)
  !> as in dah5_write_blocks (none: shape (ndims, 0)); the blocks of all ranks are checked
  !> together and recorded with the rank that wrote each (dah5_darray_block_ranks).
  interface dah5_darray_write_blocks
     module procedure darray_write_blocks_real32, darray_write_blocks_real64, &
          darray_write_blocks_complex64, darray_write_blocks_complex128, &
          darray_write_blocks_int32, darray_write_blocks_int64
  end interface dah5_darray_write_blocks

  !> call dah5_attr_write(file, object, name, value [, ierr]): value a scalar or a 1-D array
  !> (collective: the same value on every rank). object: "/", a group or a dataset path.
  interface dah5_attr_write
     module procedure attr_write_real32, attr_write_real64, attr_write_complex64, &
          attr_write_complex128, attr_write_int32, attr_write_int64
  end interface dah5_attr_write

  !> call dah5_attr_read(file, object, name, value [, count] [, ierr]): into a scalar or a
  !> 1-D array with room for every element (local).
  interface dah5_attr_read
     module procedure attr_read_real32, attr_read_real64, attr_read_complex64, &
          attr_read_complex128, attr_read_int32, attr_read_int64
  end interface dah5_attr_read

  ! The message of the last failed wrapper call (the library's, or the wrapper's own).
  character(len=:), allocatable, save :: last_message

contains

  ! ---- Files (collective over comm / the file's communicator). ----

  !> Create `path` for parallel I/O (collective over comm). flags: 0 (default: fail if the
  !> file exists) or DAH5_TRUNC. Fortran order is always on. hints: MPI-IO hints
  !> "key=value;key=value"; atomic: MPI atomic mode.
  subroutine dah5_file_create(comm, path, file, flags, options, hints, atomic, ierr)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: path
    type(dah5_file), intent(inout) :: file
    integer, intent(in), optional :: flags
    type(dah5_file_options), intent(in), optional :: options
    character(len=*), intent(in), optional :: hints
    logical, intent(in), optional :: atomic
    integer, intent(out), optional :: ierr
    character(kind=c_char), allocatable, target :: c_hints(:)
    type(dah5_file_options) :: chosen
    chosen = file_options(options, hints, atomic, c_hints)
    call finish(dah5_c_file_create_with(int(comm, c_int32_t), c_string(path), &
         file_flags(flags, 0), chosen, file%ptr), ierr)
  end subroutine dah5_file_create

  !> Open `path` (collective over comm). flags: DAH5_RDONLY (default) or DAH5_RDWR.
  subroutine dah5_file_open(comm, path, file, flags, options, hints, atomic, ierr)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: path
    type(dah5_file), intent(inout) :: file
    integer, intent(in), optional :: flags
    type(dah5_file_options), intent(in), optional :: options
    character(len=*), intent(in), optional :: hints
    logical, intent(in), optional :: atomic
    integer, intent(out), optional :: ierr
    character(kind=c_char), allocatable, target :: c_hints(:)
    type(dah5_file_options) :: chosen
    chosen = file_options(options, hints, atomic, c_hints)
    call finish(dah5_c_file_open_with(int(comm, c_int32_t), c_string(path), &
         file_flags(flags, DAH5_RDONLY), chosen, file%ptr), ierr)
  end subroutine dah5_file_open

  !> MPI atomic mode on or off (collective).
  subroutine dah5_file_set_atomic(file, atomic, ierr)
    type(dah5_file), intent(in) :: file
    logical, intent(in) :: atomic
    integer, intent(out), optional :: ierr
    call finish(dah5_c_file_set_atomic(file%ptr, merge(1_c_int32_t, 0_c_int32_t, atomic)), ierr)
  end subroutine dah5_file_set_atomic

  !> Write everything HDF5 holds for the file to storage (collective).
  subroutine dah5_file_flush(file, ierr)
    type(dah5_file), intent(in) :: file
    integer, intent(out), optional :: ierr
    call finish(dah5_c_file_flush(file%ptr), ierr)
  end subroutine dah5_file_flush

  !> Wait until this rank's writes behind (flags = DAH5_ASYNC) on the file are in it; then
  !> their arrays are the caller's again. Local: no other rank takes part. A write behind
  !> that failed is said here, and again by every later wait, flush and close.
  subroutine dah5_file_wait(file, ierr)
    type(dah5_file), intent(in) :: file
    integer, intent(out), optional :: ierr
    call finish(dah5_c_file_wait(file%ptr), ierr)
  end subroutine dah5_file_wait

  !> Close the file and its open datasets (collective); file becomes null.
  subroutine dah5_file_close(file, ierr)
    type(dah5_file), intent(inout) :: file
    integer, intent(out), optional :: ierr
    call finish(dah5_c_file_close(file%ptr), ierr)
  end subroutine dah5_file_close

  subroutine dah5_file_options_default(options, ierr)
    type(dah5_file_options), intent(out) :: options
    integer, intent(out), optional :: ierr
    call finish(dah5_c_file_options_init(options, DAH5_FILE_OPTIONS_VERSION), ierr)
  end subroutine dah5_file_options_default

  ! ---- Groups. ----

  !> Create the group `path` and any missing group above it (collective: the same path on
  !> every rank). A path that exists, a group or a dataset, is DAH5_ERR_ALREADY_EXISTS on
  !> every rank. A dataset's create makes the groups above it already; this is for a group
  !> of its own (attributes, or what later calls write).
  subroutine dah5_group_create(file, path, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: ierr
    call finish(dah5_c_group_create(file%ptr, c_string(path)), ierr)
  end subroutine dah5_group_create

  ! ---- Datasets. ----

  !> Create dataset `name` of `dtype` (DAH5_FLOAT64, ...) with Fortran-order dims, e.g.
  !> [nx, ny] for A(nx, ny) (collective; intermediate groups are created).
  subroutine dah5_dataset_create(file, name, dtype, dims, dset, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: dtype
    integer(int64), intent(in) :: dims(:)
    type(dah5_dataset), intent(inout) :: dset
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(dah5_dataset_options) :: chosen
    if (present(options)) chosen = options
    call finish(dah5_c_dataset_create(file%ptr, c_string(name), int(dtype, c_int32_t), &
         size(dims, kind=c_int32_t), dims, chosen, dset%ptr), ierr)
  end subroutine dah5_dataset_create

  !> Open an existing dataset (collective).
  subroutine dah5_dataset_open(file, name, dset, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(out), optional :: ierr
    call finish(dah5_c_dataset_open(file%ptr, c_string(name), dset%ptr), ierr)
  end subroutine dah5_dataset_open

  !> Close a dataset (collective); dset becomes null.
  subroutine dah5_dataset_close(dset, ierr)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(out), optional :: ierr
    call finish(dah5_c_dataset_close(dset%ptr), ierr)
  end subroutine dah5_dataset_close

  subroutine dah5_dataset_options_default(options, ierr)
    type(dah5_dataset_options), intent(out) :: options
    integer, intent(out), optional :: ierr
    call finish(dah5_c_dataset_options_init(options, DAH5_DATASET_OPTIONS_VERSION), ierr)
  end subroutine dah5_dataset_options_default

  !> The dataset's element type (local).
  subroutine dah5_dataset_dtype(dset, dtype, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer, intent(out) :: dtype
    integer, intent(out), optional :: ierr
    integer(c_int32_t) :: value
    integer(c_int32_t) :: status
    value = 0
    status = dah5_c_dataset_dtype(dset%ptr, value)
    dtype = int(value)
    call finish(status, ierr)
  end subroutine dah5_dataset_dtype

  !> The dataset's extents in Fortran order (local); dims is (re)allocated to ndims.
  subroutine dah5_dataset_dims(dset, dims, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), allocatable, intent(out) :: dims(:)
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: all_dims(DAH5_MAX_NDIMS)
    integer(c_int32_t) :: ndims, status
    ndims = 0
    status = dah5_c_dataset_ndims(dset%ptr, ndims)
    if (status == DAH5_OK) status = dah5_c_dataset_dims(dset%ptr, DAH5_MAX_NDIMS, all_dims)
    if (status == DAH5_OK) then
       dims = all_dims(1:ndims)
    else
       allocate (dims(0))
    end if
    call finish(status, ierr)
  end subroutine dah5_dataset_dims

  !> Grow (or shrink) the dataset to `dims` (Fortran order), within its max dims
  !> (collective).
  subroutine dah5_dataset_extend(dset, dims, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: dims(:)
    integer, intent(out), optional :: ierr
    call finish(dah5_c_dataset_extend(dset%ptr, size(dims, kind=c_int32_t), dims), ierr)
  end subroutine dah5_dataset_extend

  !> Name the dimensions (collective, the same names on every rank), in Fortran's order
  !> like dims, the way netCDF-4 does: ncdump and xarray then show var(time, lat, lon) as
  !> var(lon, lat, time) in C order. A 1-D dataset of a name's length in the same group (a
  !> coordinate variable) becomes that dimension's scale. See dah5_dataset_set_dim_names.
  subroutine dah5_dataset_set_dim_names(dset, names, ierr)
    type(dah5_dataset), intent(in) :: dset
    character(len=*), intent(in) :: names(:)
    integer, intent(out), optional :: ierr
    character(kind=c_char, len=len(names) + 1), allocatable, target :: chars(:)
    type(c_ptr), allocatable :: pointers(:)
    integer :: i
    allocate (chars(size(names)), pointers(size(names)))
    do i = 1, size(names)
       chars(i) = trim(names(i)) // c_null_char
       pointers(i) = c_loc(chars(i))
    end do
    call finish(dah5_c_dataset_set_dim_names(dset%ptr, size(names, kind=c_int32_t), pointers), &
         ierr)
  end subroutine dah5_dataset_set_dim_names

  !> The decomposition dah5_darray_write recorded (local): block b was written by rank b - 1
  !> and is lo(:, b):hi(:, b), 1-based (hi = lo - 1 where a rank had nothing). For an array
  !> of dah5_darray_write_blocks, dah5_darray_block_ranks says which rank wrote block b.
  subroutine dah5_darray_blocks(dset, lo, hi, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), allocatable, intent(out) :: lo(:, :), hi(:, :)
    integer, intent(out), optional :: ierr
    integer(c_int32_t) :: ndims, nblocks, status
    integer(c_int64_t) :: none(1)
    ndims = 0
    nblocks = 0
    status = dah5_c_dataset_ndims(dset%ptr, ndims)
    if (status == DAH5_OK) status = dah5_c_darray_blocks(dset%ptr, 0, nblocks, none, none)
    allocate (lo(ndims, nblocks), hi(ndims, nblocks))
    if (status == DAH5_OK .and. nblocks > 0) status = dah5_c_darray_blocks(dset%ptr, nblocks, &
         nblocks, lo, hi)
    ! From 0-based offset and count to 1-based first and last.
    hi = lo + hi
    lo = lo + 1
    call finish(status, ierr)
  end subroutine dah5_darray_blocks

  !> The rank (0-based) that wrote each block of the table dah5_darray_blocks gives (local):
  !> ranks(b) wrote lo(:, b):hi(:, b). For an array of dah5_darray_write, ranks(b) = b - 1.
  subroutine dah5_darray_block_ranks(dset, ranks, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer, allocatable, intent(out) :: ranks(:)
    integer, intent(out), optional :: ierr
    integer(c_int32_t) :: nblocks, status
    integer(c_int32_t) :: none(1)
    integer(c_int32_t), allocatable :: got(:)
    nblocks = 0
    status = dah5_c_darray_block_ranks(dset%ptr, 0, nblocks, none)
    allocate (got(nblocks))
    if (status == DAH5_OK .and. nblocks > 0) status = dah5_c_darray_block_ranks(dset%ptr, &
         nblocks, nblocks, got)
    ranks = int(got)
    call finish(status, ierr)
  end subroutine dah5_darray_block_ranks

  !> A balanced block lo(:):hi(:) for `rank` (0-based) of `nranks` (local): the last Fortran
  !> dimension with at least nranks elements is split.
  subroutine dah5_darray_partition(dset, rank, nranks, lo, hi, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer, intent(in) :: rank, nranks
    integer(int64), allocatable, intent(out) :: lo(:), hi(:)
    integer, intent(out), optional :: ierr
    integer(c_int32_t) :: ndims, status
    ndims = 0
    status = dah5_c_dataset_ndims(dset%ptr, ndims)
    allocate (lo(ndims), hi(ndims))
    if (status == DAH5_OK) status = dah5_c_darray_partition(dset%ptr, int(rank, c_int32_t), &
         int(nranks, c_int32_t), lo, hi)
    hi = lo + hi
    lo = lo + 1
    call finish(status, ierr)
  end subroutine dah5_darray_partition

  ! ---- Block transfers: one specific per type; the array may have any rank. ----
  ! (Fortran cannot be generic over a type parameter: the twelve specifics differ only in
  ! the element type, its dah5 dtype and the direction; `transfer` does the work.) A
  ! write's array is `asynchronous`: with DAH5_ASYNC the library reads it after the call
  ! returns, and an `asynchronous` actual that is not simply contiguous (which would be
  ! copied into a temporary that ends at the return) is then a compile-time error.

  subroutine write_real32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    real(real32), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.true., dset, lo, hi, shape(a, int64), DAH5_FLOAT32, buf, flags, ierr)
  end subroutine write_real32

  subroutine write_real64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    real(real64), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.true., dset, lo, hi, shape(a, int64), DAH5_FLOAT64, buf, flags, ierr)
  end subroutine write_real64

  subroutine write_complex64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    complex(real32), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.true., dset, lo, hi, shape(a, int64), DAH5_COMPLEX64, buf, flags, ierr)
  end subroutine write_complex64

  subroutine write_complex128(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    complex(real64), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.true., dset, lo, hi, shape(a, int64), DAH5_COMPLEX128, buf, flags, ierr)
  end subroutine write_complex128

  subroutine write_int32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    integer(int32), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.true., dset, lo, hi, shape(a, int64), DAH5_INT32, buf, flags, ierr)
  end subroutine write_int32

  subroutine write_int64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    integer(int64), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.true., dset, lo, hi, shape(a, int64), DAH5_INT64, buf, flags, ierr)
  end subroutine write_int64

  subroutine read_real32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    real(real32), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.false., dset, lo, hi, shape(a, int64), DAH5_FLOAT32, buf, flags, ierr)
  end subroutine read_real32

  subroutine read_real64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    real(real64), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.false., dset, lo, hi, shape(a, int64), DAH5_FLOAT64, buf, flags, ierr)
  end subroutine read_real64

  subroutine read_complex64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    complex(real32), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.false., dset, lo, hi, shape(a, int64), DAH5_COMPLEX64, buf, flags, ierr)
  end subroutine read_complex64

  subroutine read_complex128(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    complex(real64), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.false., dset, lo, hi, shape(a, int64), DAH5_COMPLEX128, buf, flags, ierr)
  end subroutine read_complex128

  subroutine read_int32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    integer(int32), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.false., dset, lo, hi, shape(a, int64), DAH5_INT32, buf, flags, ierr)
  end subroutine read_int32

  subroutine read_int64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:)
    integer(int64), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer(.false., dset, lo, hi, shape(a, int64), DAH5_INT64, buf, flags, ierr)
  end subroutine read_int64

  ! The shared body of every transfer: check that lo, hi and the array agree with each other
  ! and with the dataset's rank, convert 1-based lo..hi to 0-based offset/count, and call the
  ! library. When this wrapper finds an error in a collective transfer, the rank still takes
  ! part (with an empty block), so the other ranks finish instead of waiting for it; the
  ! error is returned on this rank.
  subroutine transfer(write, dset, lo, hi, array_shape, dtype, buf, flags, ierr)
    logical, intent(in) :: write
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:), hi(:), array_shape(:)
    integer(c_int32_t), intent(in) :: dtype
    type(c_ptr), intent(in) :: buf
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: offset(DAH5_MAX_NDIMS), count(DAH5_MAX_NDIMS)
    integer(c_int32_t) :: ndims, xfer, status
    character(len=:), allocatable :: problem
    xfer = 0
    if (present(flags)) xfer = int(flags, c_int32_t)
    ndims = 0
    status = dah5_c_dataset_ndims(dset%ptr, ndims)
    if (status /= DAH5_OK) then
       call finish(status, ierr)
       return
    end if
    problem = block_problem(merge("dah5_write_block", "dah5_read_block ", write), ndims, lo, hi, &
         array_shape)
    offset = 0
    count = 0
    if (len(problem) == 0) then
       count(1:ndims) = max(hi - lo + 1, 0_int64)
       offset(1:ndims) = max(lo - 1, 0_int64)
    else if (iand(xfer, DAH5_COLLECTIVE) == 0) then
       call fail(DAH5_ERR_INVALID_ARGUMENT, problem, ierr)
       return
    end if
    if (write) then
       status = dah5_c_write_block(dset%ptr, offset, count, dtype, buf, xfer)
    else
       status = dah5_c_read_block(dset%ptr, offset, count, dtype, buf, xfer)
    end if
    if (status == DAH5_OK .and. len(problem) > 0) then
       call fail(DAH5_ERR_INVALID_ARGUMENT, problem, ierr)
    else
       call finish(status, ierr)
    end if
  end subroutine transfer

  ! Why lo, hi and the array cannot describe one block of an ndims-dimensional dataset, or
  ! "" when they can. An empty range (hi = lo - 1) is an empty block.
  function block_problem(what, ndims, lo, hi, array_shape) result(problem)
    character(len=*), intent(in) :: what
    integer(c_int32_t), intent(in) :: ndims
    integer(int64), intent(in) :: lo(:), hi(:), array_shape(:)
    character(len=:), allocatable :: problem
    if (size(lo) /= ndims .or. size(hi) /= ndims .or. size(array_shape) /= ndims) then
       problem = trim(what) // " (Fortran): the dataset has " // &
            itoa(int(ndims, int64)) // " dimensions, but lo has " // itoa(size(lo, kind=int64)) // &
            ", hi " // itoa(size(hi, kind=int64)) // " and the array " // &
            itoa(size(array_shape, kind=int64))
    else if (any(max(hi - lo + 1, 0_int64) /= array_shape)) then
       problem = trim(what) // " (Fortran): the block lo:hi has extents (" // &
            itoa_list(max(hi - lo + 1, 0_int64)) // ") but the array has shape (" // &
            itoa_list(array_shape) // ")"
    else if (all(array_shape > 0) .and. any(lo < 1)) then
       problem = trim(what) // " (Fortran): lo = (" // itoa_list(lo) // &
            ") is below 1 (indices are 1-based)"
    else
       problem = ""
    end if
  end function block_problem

  ! ---- Many blocks in one transfer: one specific per type, as for one block. ----

  subroutine write_blocks_real32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    real(real32), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.true., dset, lo, hi, size(a, kind=int64), DAH5_FLOAT32, buf, flags, ierr)
  end subroutine write_blocks_real32

  subroutine write_blocks_real64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    real(real64), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.true., dset, lo, hi, size(a, kind=int64), DAH5_FLOAT64, buf, flags, ierr)
  end subroutine write_blocks_real64

  subroutine write_blocks_complex64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    complex(real32), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.true., dset, lo, hi, size(a, kind=int64), DAH5_COMPLEX64, buf, flags, ierr)
  end subroutine write_blocks_complex64

  subroutine write_blocks_complex128(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    complex(real64), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.true., dset, lo, hi, size(a, kind=int64), DAH5_COMPLEX128, buf, flags, ierr)
  end subroutine write_blocks_complex128

  subroutine write_blocks_int32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    integer(int32), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.true., dset, lo, hi, size(a, kind=int64), DAH5_INT32, buf, flags, ierr)
  end subroutine write_blocks_int32

  subroutine write_blocks_int64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    integer(int64), intent(in), target, contiguous, asynchronous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.true., dset, lo, hi, size(a, kind=int64), DAH5_INT64, buf, flags, ierr)
  end subroutine write_blocks_int64

  subroutine read_blocks_real32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    real(real32), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.false., dset, lo, hi, size(a, kind=int64), DAH5_FLOAT32, buf, flags, ierr)
  end subroutine read_blocks_real32

  subroutine read_blocks_real64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    real(real64), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.false., dset, lo, hi, size(a, kind=int64), DAH5_FLOAT64, buf, flags, ierr)
  end subroutine read_blocks_real64

  subroutine read_blocks_complex64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    complex(real32), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.false., dset, lo, hi, size(a, kind=int64), DAH5_COMPLEX64, buf, flags, ierr)
  end subroutine read_blocks_complex64

  subroutine read_blocks_complex128(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    complex(real64), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.false., dset, lo, hi, size(a, kind=int64), DAH5_COMPLEX128, buf, flags, ierr)
  end subroutine read_blocks_complex128

  subroutine read_blocks_int32(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    integer(int32), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.false., dset, lo, hi, size(a, kind=int64), DAH5_INT32, buf, flags, ierr)
  end subroutine read_blocks_int32

  subroutine read_blocks_int64(dset, lo, hi, a, flags, ierr)
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    integer(int64), intent(inout), target, contiguous :: a(..)
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call transfer_blocks(.false., dset, lo, hi, size(a, kind=int64), DAH5_INT64, buf, flags, ierr)
  end subroutine read_blocks_int64

  ! The shared body of dah5_write_blocks and dah5_read_blocks, as `transfer` is for one
  ! block: a wrapper error in a collective transfer still takes part, with no blocks.
  subroutine transfer_blocks(write, dset, lo, hi, nelements, dtype, buf, flags, ierr)
    logical, intent(in) :: write
    type(dah5_dataset), intent(in) :: dset
    integer(int64), intent(in) :: lo(:, :), hi(:, :), nelements
    integer(c_int32_t), intent(in) :: dtype
    type(c_ptr), intent(in) :: buf
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: ierr
    integer(c_int64_t), allocatable :: offsets(:, :), counts(:, :)
    integer(c_int32_t) :: ndims, xfer, status
    character(len=:), allocatable :: problem
    xfer = 0
    if (present(flags)) xfer = int(flags, c_int32_t)
    ndims = 0
    status = dah5_c_dataset_ndims(dset%ptr, ndims)
    if (status /= DAH5_OK) then
       call finish(status, ierr)
       return
    end if
    problem = blocks_problem(merge("dah5_write_blocks", "dah5_read_blocks ", write), ndims, lo, &
         hi, nelements)
    if (len(problem) > 0 .and. iand(xfer, DAH5_COLLECTIVE) == 0) then
       call fail(DAH5_ERR_INVALID_ARGUMENT, problem, ierr)
       return
    end if
    call offsets_counts(lo, hi, len(problem) == 0, offsets, counts)
    if (write) then
       status = dah5_c_write_blocks(dset%ptr, size(offsets, 2, kind=c_int64_t), offsets, counts, &
            dtype, buf, xfer)
    else
       status = dah5_c_read_blocks(dset%ptr, size(offsets, 2, kind=c_int64_t), offsets, counts, &
            dtype, buf, xfer)
    end if
    if (status == DAH5_OK .and. len(problem) > 0) then
       call fail(DAH5_ERR_INVALID_ARGUMENT, problem, ierr)
    else
       call finish(status, ierr)
    end if
  end subroutine transfer_blocks

  ! The 0-based offsets and counts (ndims x nblocks, block after block) of the 1-based blocks
  ! lo(:, b):hi(:, b); no blocks when they are not `usable`.
  subroutine offsets_counts(lo, hi, usable, offsets, counts)
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    logical, intent(in) :: usable
    integer(c_int64_t), allocatable, intent(out) :: offsets(:, :), counts(:, :)
    if (usable) then
       counts = max(hi - lo + 1, 0_int64)
       offsets = max(lo - 1, 0_int64)
    else
       allocate (offsets(size(lo, 1), 0), counts(size(lo, 1), 0))
    end if
  end subroutine offsets_counts

  ! Why lo and hi cannot describe blocks of an ndims-dimensional dataset whose elements are
  ! in an array of `nelements` (not checked when absent), or "" when they can.
  function blocks_problem(what, ndims, lo, hi, nelements) result(problem)
    character(len=*), intent(in) :: what
    integer(c_int32_t), intent(in) :: ndims
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    integer(int64), intent(in), optional :: nelements
    character(len=:), allocatable :: problem
    integer(int64) :: extents(size(lo, 1), size(lo, 2))
    integer :: b
    problem = ""
    if (size(lo, 1) /= ndims .or. any(shape(hi) /= shape(lo))) then
       problem = trim(what) // " (Fortran): the dataset has " // itoa(int(ndims, int64)) // &
            " dimensions, but lo has shape (" // itoa_list(shape(lo, int64)) // ") and hi (" // &
            itoa_list(shape(hi, int64)) // "); lo(:, b) and hi(:, b) are block b"
       return
    end if
    extents = max(hi - lo + 1, 0_int64)
    if (present(nelements)) then
       if (sum(product(extents, dim=1)) /= nelements) then
          problem = trim(what) // " (Fortran): the blocks lo:hi hold " // &
               itoa(sum(product(extents, dim=1))) // " elements but the array has " // &
               itoa(nelements)
          return
       end if
    end if
    do b = 1, size(lo, 2)
       if (all(extents(:, b) > 0) .and. any(lo(:, b) < 1)) then
          problem = trim(what) // " (Fortran): block " // itoa(int(b, int64)) // ": lo = (" // &
               itoa_list(lo(:, b)) // ") is below 1 (indices are 1-based)"
          return
       end if
    end do
  end function blocks_problem

  ! ---- Distributed arrays and attributes: one specific per type, as for blocks. ----

  subroutine darray_write_real32(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    real(real32), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray(file, name, dims, lo, hi, shape(a, int64), DAH5_FLOAT32, buf, dset, flags, options, ierr)
  end subroutine darray_write_real32

  subroutine darray_write_real64(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    real(real64), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray(file, name, dims, lo, hi, shape(a, int64), DAH5_FLOAT64, buf, dset, flags, options, ierr)
  end subroutine darray_write_real64

  subroutine darray_write_complex64(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    complex(real32), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray(file, name, dims, lo, hi, shape(a, int64), DAH5_COMPLEX64, buf, dset, flags, options, ierr)
  end subroutine darray_write_complex64

  subroutine darray_write_complex128(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    complex(real64), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray(file, name, dims, lo, hi, shape(a, int64), DAH5_COMPLEX128, buf, dset, flags, options, ierr)
  end subroutine darray_write_complex128

  subroutine darray_write_int32(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    integer(int32), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray(file, name, dims, lo, hi, shape(a, int64), DAH5_INT32, buf, dset, flags, options, ierr)
  end subroutine darray_write_int32

  subroutine darray_write_int64(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    integer(int64), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray(file, name, dims, lo, hi, shape(a, int64), DAH5_INT64, buf, dset, flags, options, ierr)
  end subroutine darray_write_int64

  subroutine darray_write_blocks_real32(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    real(real32), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray_many(file, name, dims, lo, hi, DAH5_FLOAT32, dset, flags, options, ierr, buf, &
         size(a, kind=int64))
  end subroutine darray_write_blocks_real32

  subroutine darray_write_blocks_real64(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    real(real64), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray_many(file, name, dims, lo, hi, DAH5_FLOAT64, dset, flags, options, ierr, buf, &
         size(a, kind=int64))
  end subroutine darray_write_blocks_real64

  subroutine darray_write_blocks_complex64(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    complex(real32), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray_many(file, name, dims, lo, hi, DAH5_COMPLEX64, dset, flags, options, ierr, buf, &
         size(a, kind=int64))
  end subroutine darray_write_blocks_complex64

  subroutine darray_write_blocks_complex128(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    complex(real64), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray_many(file, name, dims, lo, hi, DAH5_COMPLEX128, dset, flags, options, ierr, buf, &
         size(a, kind=int64))
  end subroutine darray_write_blocks_complex128

  subroutine darray_write_blocks_int32(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    integer(int32), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray_many(file, name, dims, lo, hi, DAH5_INT32, dset, flags, options, ierr, buf, &
         size(a, kind=int64))
  end subroutine darray_write_blocks_int32

  subroutine darray_write_blocks_int64(file, name, dims, lo, hi, a, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    integer(int64), intent(in), target, contiguous :: a(..)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr) :: buf
    buf = c_null_ptr
    if (size(a) > 0) buf = c_loc(a) ! c_loc needs a nonzero size
    call darray_many(file, name, dims, lo, hi, DAH5_INT64, dset, flags, options, ierr, buf, &
         size(a, kind=int64))
  end subroutine darray_write_blocks_int64

  !> call dah5_darray_create_blocks(file, name, dtype, dims, lo, hi, dset [, flags] [, options] [, ierr])
  !> Collective: dah5_darray_write_blocks without the data; each rank then writes its blocks
  !> with dah5_write_blocks (or dah5_write_block), in as many calls as it likes.
  subroutine dah5_darray_create_blocks(file, name, dtype, dims, lo, hi, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(in) :: dtype
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    call darray_many(file, name, dims, lo, hi, dtype, dset, flags, options, ierr)
  end subroutine dah5_darray_create_blocks

  ! The shared body of dah5_darray_write_blocks (with buf and nelements) and
  ! dah5_darray_create_blocks (without), as `darray` is for one block: a wrapper error still
  ! takes part in the collective call, with ndims 0, so that the library refuses it on every
  ! rank.
  subroutine darray_many(file, name, dims, lo, hi, dtype, dset, flags, options, ierr, buf, &
       nelements)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:, :), hi(:, :)
    integer(c_int32_t), intent(in) :: dtype
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    type(c_ptr), intent(in), optional :: buf
    integer(int64), intent(in), optional :: nelements
    integer(c_int64_t), allocatable :: offsets(:, :), counts(:, :)
    integer(c_int64_t) :: extents(DAH5_MAX_NDIMS)
    integer(c_int32_t) :: ndims, status, bits
    type(dah5_dataset_options) :: chosen
    character(len=:), allocatable :: problem
    if (present(options)) chosen = options
    bits = 0
    if (present(flags)) bits = int(flags, c_int32_t)
    ndims = int(min(size(dims), DAH5_MAX_NDIMS), c_int32_t)
    problem = blocks_problem(merge("dah5_darray_write_blocks ", "dah5_darray_create_blocks", &
         present(buf)), ndims, lo, hi, nelements)
    extents = 0
    extents(1:ndims) = dims(1:ndims)
    call offsets_counts(lo, hi, len(problem) == 0, offsets, counts)
    if (len(problem) > 0) ndims = 0
    if (present(buf)) then
       status = dah5_c_darray_write_blocks(file%ptr, c_string(name), dtype, ndims, extents, &
            size(offsets, 2, kind=c_int64_t), offsets, counts, buf, bits, chosen, dset%ptr)
    else
       status = dah5_c_darray_create_blocks(file%ptr, c_string(name), dtype, ndims, extents, &
            size(offsets, 2, kind=c_int64_t), offsets, counts, bits, chosen, dset%ptr)
    end if
    if (len(problem) > 0) then
       call fail(DAH5_ERR_INVALID_ARGUMENT, problem, ierr)
    else
       call finish(status, ierr)
    end if
  end subroutine darray_many

  subroutine attr_write_real32(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    real(real32), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    call finish(dah5_c_attr_write(file%ptr, c_string(object), c_string(name), DAH5_FLOAT32, &
         int(rank(value), c_int32_t), size(value, kind=c_int64_t), c_loc(value)), ierr)
  end subroutine attr_write_real32

  subroutine attr_write_real64(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    real(real64), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    call finish(dah5_c_attr_write(file%ptr, c_string(object), c_string(name), DAH5_FLOAT64, &
         int(rank(value), c_int32_t), size(value, kind=c_int64_t), c_loc(value)), ierr)
  end subroutine attr_write_real64

  subroutine attr_write_complex64(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    complex(real32), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    call finish(dah5_c_attr_write(file%ptr, c_string(object), c_string(name), DAH5_COMPLEX64, &
         int(rank(value), c_int32_t), size(value, kind=c_int64_t), c_loc(value)), ierr)
  end subroutine attr_write_complex64

  subroutine attr_write_complex128(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    complex(real64), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    call finish(dah5_c_attr_write(file%ptr, c_string(object), c_string(name), DAH5_COMPLEX128, &
         int(rank(value), c_int32_t), size(value, kind=c_int64_t), c_loc(value)), ierr)
  end subroutine attr_write_complex128

  subroutine attr_write_int32(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    integer(int32), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    call finish(dah5_c_attr_write(file%ptr, c_string(object), c_string(name), DAH5_INT32, &
         int(rank(value), c_int32_t), size(value, kind=c_int64_t), c_loc(value)), ierr)
  end subroutine attr_write_int32

  subroutine attr_write_int64(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    integer(int64), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    call finish(dah5_c_attr_write(file%ptr, c_string(object), c_string(name), DAH5_INT64, &
         int(rank(value), c_int32_t), size(value, kind=c_int64_t), c_loc(value)), ierr)
  end subroutine attr_write_int64

  subroutine attr_read_real32(file, object, name, value, count, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    real(real32), intent(inout), target, contiguous :: value(..)
    integer(int64), intent(out), optional :: count
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: got
    got = 0
    call finish(dah5_c_attr_read(file%ptr, c_string(object), c_string(name), DAH5_FLOAT32, &
         size(value, kind=c_int64_t), c_loc(value), got), ierr)
    if (present(count)) count = got
  end subroutine attr_read_real32

  subroutine attr_read_real64(file, object, name, value, count, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    real(real64), intent(inout), target, contiguous :: value(..)
    integer(int64), intent(out), optional :: count
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: got
    got = 0
    call finish(dah5_c_attr_read(file%ptr, c_string(object), c_string(name), DAH5_FLOAT64, &
         size(value, kind=c_int64_t), c_loc(value), got), ierr)
    if (present(count)) count = got
  end subroutine attr_read_real64

  subroutine attr_read_complex64(file, object, name, value, count, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    complex(real32), intent(inout), target, contiguous :: value(..)
    integer(int64), intent(out), optional :: count
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: got
    got = 0
    call finish(dah5_c_attr_read(file%ptr, c_string(object), c_string(name), DAH5_COMPLEX64, &
         size(value, kind=c_int64_t), c_loc(value), got), ierr)
    if (present(count)) count = got
  end subroutine attr_read_complex64

  subroutine attr_read_complex128(file, object, name, value, count, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    complex(real64), intent(inout), target, contiguous :: value(..)
    integer(int64), intent(out), optional :: count
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: got
    got = 0
    call finish(dah5_c_attr_read(file%ptr, c_string(object), c_string(name), DAH5_COMPLEX128, &
         size(value, kind=c_int64_t), c_loc(value), got), ierr)
    if (present(count)) count = got
  end subroutine attr_read_complex128

  subroutine attr_read_int32(file, object, name, value, count, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    integer(int32), intent(inout), target, contiguous :: value(..)
    integer(int64), intent(out), optional :: count
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: got
    got = 0
    call finish(dah5_c_attr_read(file%ptr, c_string(object), c_string(name), DAH5_INT32, &
         size(value, kind=c_int64_t), c_loc(value), got), ierr)
    if (present(count)) count = got
  end subroutine attr_read_int32

  subroutine attr_read_int64(file, object, name, value, count, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    integer(int64), intent(inout), target, contiguous :: value(..)
    integer(int64), intent(out), optional :: count
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: got
    got = 0
    call finish(dah5_c_attr_read(file%ptr, c_string(object), c_string(name), DAH5_INT64, &
         size(value, kind=c_int64_t), c_loc(value), got), ierr)
    if (present(count)) count = got
  end subroutine attr_read_int64

  !> Write (or replace) a UTF-8 string attribute (collective).
  subroutine dah5_attr_write_string(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name, value
    integer, intent(out), optional :: ierr
    call finish(dah5_c_attr_write_string(file%ptr, c_string(object), c_string(name), &
         c_string(value)), ierr)
  end subroutine dah5_attr_write_string

  !> Read a string attribute (local); value is allocated to its length.
  subroutine dah5_attr_read_string(file, object, name, value, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: object, name
    character(len=:), allocatable, intent(out) :: value
    integer, intent(out), optional :: ierr
    character(kind=c_char), allocatable :: buf(:)
    integer(c_int32_t) :: dtype, status
    integer(c_int64_t) :: length
    integer(c_size_t) :: got
    integer :: i
    dtype = 0
    length = 0
    got = 0
    status = dah5_c_attr_info(file%ptr, c_string(object), c_string(name), dtype, length)
    allocate (buf(length + 1))
    if (status == DAH5_OK) status = dah5_c_attr_read_string(file%ptr, c_string(object), &
         c_string(name), buf, size(buf, kind=c_size_t), got)
    allocate (character(len=got) :: value)
    do i = 1, int(got)
       value(i:i) = buf(i)
    end do
    call finish(status, ierr)
  end subroutine dah5_attr_read_string

  ! The shared body of dah5_darray_write: as `transfer`, check lo, hi and the array, then
  ! call the library. A wrapper error still takes part in the collective call, with ndims 0
  ! so that the library refuses it on every rank (nothing is created anywhere).
  !> call dah5_darray_create(file, name, dtype, dims, lo, hi, dset [, flags] [, options] [, ierr])
  !> Collective: dah5_darray_write without the data (dtype DAH5_FLOAT64, ...); each rank then
  !> writes its part lo:hi with dah5_write_block, in as many steps as it likes. With
  !> DAH5_DARRAY_SUBFILED the darray is complete once dah5_dataset_close (collective)
  !> returns without an error on every rank.
  subroutine dah5_darray_create(file, name, dtype, dims, lo, hi, dset, flags, options, ierr)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(in) :: dtype
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    call darray(file, name, dims, lo, hi, max(hi - lo + 1, 0_int64), dtype, c_null_ptr, dset, &
         flags, options, ierr, create=.true.)
  end subroutine dah5_darray_create

  subroutine darray(file, name, dims, lo, hi, array_shape, dtype, buf, dset, flags, options, ierr, &
       create)
    type(dah5_file), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: dims(:), lo(:), hi(:), array_shape(:)
    integer(c_int32_t), intent(in) :: dtype
    type(c_ptr), intent(in) :: buf
    type(dah5_dataset), intent(inout) :: dset
    integer, intent(in), optional :: flags
    type(dah5_dataset_options), intent(in), optional :: options
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: create
    logical :: creating
    integer(c_int64_t) :: offset(DAH5_MAX_NDIMS), count(DAH5_MAX_NDIMS), extents(DAH5_MAX_NDIMS)
    integer(c_int32_t) :: ndims, status, bits
    type(dah5_dataset_options) :: chosen
    character(len=:), allocatable :: problem
    if (present(options)) chosen = options
    bits = 0
    if (present(flags)) bits = int(flags, c_int32_t)
    ndims = int(min(size(dims), DAH5_MAX_NDIMS), c_int32_t)
    creating = .false.
    if (present(create)) creating = create
    problem = block_problem(merge("dah5_darray_create", "dah5_darray_write ", creating), ndims, &
         lo, hi, array_shape)
    offset = 0
    count = 0
    extents = 0
    extents(1:ndims) = dims(1:ndims)
    if (len(problem) == 0) then
       count(1:ndims) = max(hi - lo + 1, 0_int64)
       offset(1:ndims) = max(lo - 1, 0_int64)
    else
       ndims = 0
    end if
    if (creating) then
       status = dah5_c_darray_create(file%ptr, c_string(name), dtype, ndims, extents, offset, &
            count, bits, chosen, dset%ptr)
    else
       status = dah5_c_darray_write(file%ptr, c_string(name), dtype, ndims, extents, offset, &
            count, buf, bits, chosen, dset%ptr)
    end if
    if (len(problem) > 0) then
       call fail(DAH5_ERR_INVALID_ARGUMENT, problem, ierr)
    else
       call finish(status, ierr)
    end if
  end subroutine darray

  ! ---- Library information and errors (local). ----

  !> The running library's version, major * 10000 + minor * 100 + patch.
  integer function dah5_version()
    dah5_version = int(dah5_c_version())
  end function dah5_version

  !> "dah5 0.1.0; HDF5 1.10.8; Open MPI v4.1.4".
  function dah5_version_string() result(text)
    character(len=:), allocatable :: text
    call copy_c_string(dah5_c_version_string(), text)
  end function dah5_version_string

  !> "DAH5_ERR_OUT_OF_BOUNDS" for DAH5_ERR_OUT_OF_BOUNDS, ...
  function dah5_status_name(status) result(text)
    integer, intent(in) :: status
    character(len=:), allocatable :: text
    call copy_c_string(dah5_c_status_name(int(status, c_int32_t)), text)
  end function dah5_status_name

  !> What the last failed call of this module said (names the function, the rank, the bad
  !> value, and what HDF5 or MPI reported underneath); "" if none failed.
  function dah5_error_message() result(text)
    character(len=:), allocatable :: text
    if (allocated(last_message)) then
       text = last_message
    else
       text = ""
    end if
  end function dah5_error_message

  ! ---- Helpers. ----

  ! Report `status`: into ierr when present; otherwise stop the program if it is an error.
  subroutine finish(status, ierr)
    integer(c_int32_t), intent(in) :: status
    integer, intent(out), optional :: ierr
    if (status /= DAH5_OK) then
       call fail(status, library_message(), ierr)
    else if (present(ierr)) then
       ierr = DAH5_OK
    end if
  end subroutine finish

  subroutine fail(status, message, ierr)
    integer(c_int32_t), intent(in) :: status
    character(len=*), intent(in) :: message
    integer, intent(out), optional :: ierr
    character(len=:), allocatable :: name
    last_message = message
    if (present(ierr)) then
       ierr = int(status)
    else
       name = dah5_status_name(int(status))
       call end_job("dah5: " // name // ": " // message)
    end if
  end subroutine fail

  ! The default error path: print the message and end the whole job. A rank that only
  ! stopped would hang: its exit runs HDF5's handlers, which close the open files
  ! collectively, and the other ranks wait in their next collective call. Outside
  ! MPI_Init .. MPI_Finalize there is no job to end, and error stop does.
  subroutine end_job(text)
    use mpi, only: MPI_COMM_WORLD, MPI_Wtime
    character(len=*), intent(in) :: text
    logical :: initialized, finalized
    integer :: code
    double precision :: until
    write (error_unit, "(a)") text
    flush (error_unit)
    call MPI_Initialized(initialized, code)
    call MPI_Finalized(finalized, code)
    if (initialized .and. .not. finalized) then
       ! MPICH's Hydra ends the job at MPI_Abort and, on a loaded machine, now and then
       ! before its proxy forwarded the message just printed: let it arrive first.
       until = MPI_Wtime() + 0.2d0
       do while (MPI_Wtime() < until)
       end do
       call MPI_Abort(MPI_COMM_WORLD, 1, code)
    end if
    error stop 1
  end subroutine end_job

  ! The library's last error message, copied with dah5_last_error.
  function library_message() result(text)
    character(len=:), allocatable :: text
    character(kind=c_char), allocatable :: buf(:)
    integer(c_size_t) :: length
    integer :: i
    allocate (buf(1))
    length = dah5_c_last_error(buf, 0_c_size_t)
    deallocate (buf)
    allocate (buf(length + 1))
    length = dah5_c_last_error(buf, size(buf, kind=c_size_t))
    allocate (character(len=length) :: text)
    do i = 1, int(length)
       text(i:i) = buf(i)
    end do
  end function library_message

  ! A copy of a NUL-terminated C string owned by the library.
  subroutine copy_c_string(ptr, text)
    type(c_ptr), intent(in) :: ptr
    character(len=:), allocatable, intent(out) :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, length
    if (.not. c_associated(ptr)) then
       text = ""
       return
    end if
    length = int(c_strlen(ptr))
    call c_f_pointer(ptr, chars, [length])
    allocate (character(len=length) :: text)
    do i = 1, length
       text(i:i) = chars(i)
    end do
  end subroutine copy_c_string

  ! A Fortran string as a NUL-terminated C string (trailing blanks dropped, as Fortran
  ! compares them away).
  function c_string(text) result(chars)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=len_trim(text) + 1) :: chars
    chars = trim(text) // c_null_char
  end function c_string

  integer(c_int32_t) function file_flags(flags, default)
    integer, intent(in), optional :: flags
    integer(c_int32_t), intent(in) :: default
    file_flags = default
    if (present(flags)) file_flags = int(flags, c_int32_t)
    file_flags = ior(file_flags, DAH5_ORDER_F)
  end function file_flags

  ! The options to pass: `options` or the defaults, with `atomic` and `hints` (kept alive in
  ! c_hints, which the caller owns until the call returns).
  type(dah5_file_options) function file_options(options, hints, atomic, c_hints)
    type(dah5_file_options), intent(in), optional :: options
    character(len=*), intent(in), optional :: hints
    logical, intent(in), optional :: atomic
    character(kind=c_char), allocatable, target, intent(inout) :: c_hints(:)
    integer :: i
    if (present(options)) file_options = options
    if (present(atomic)) then
       if (atomic) file_options%flags = ior(file_options%flags, DAH5_ATOMIC)
    end if
    if (present(hints)) then
       allocate (c_hints(len_trim(hints) + 1))
       do i = 1, len_trim(hints)
          c_hints(i) = hints(i:i)
       end do
       c_hints(len_trim(hints) + 1) = c_null_char
       file_options%mpi_hints = c_loc(c_hints)
    end if
  end function file_options


  function itoa(value) result(text)
    integer(int64), intent(in) :: value
    character(len=:), allocatable :: text
    character(len=24) :: buf
    write (buf, "(i0)") value
    text = trim(buf)
  end function itoa

  function itoa_list(values) result(text)
    integer(int64), intent(in) :: values(:)
    character(len=:), allocatable :: text
    integer :: i
    text = ""
    do i = 1, size(values)
       if (i > 1) text = text // ", "
       text = text // itoa(values(i))
    end do
  end function itoa_list
end module dah5
