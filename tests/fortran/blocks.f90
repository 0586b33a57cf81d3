! blocks.f90: the Fortran module under mpiexec (driven by tests/bindings.rs, checked by
! tests/py/check_fortran.py).
!
!   blocks PATH         write one dataset per element type (rank 2) and per array rank 1..4
!                       (real64), and many blocks per rank ("many/": dah5_write_blocks,
!                       dah5_darray_write_blocks, dah5_darray_create_blocks), read everything
!                       back, and check the error paths with ierr.
!   blocks PATH stop    one rank's bad write without ierr: the job must end with the message.
!
! Every dataset's last dimension is 2 * nranks + 1, split over the ranks (uneven, and one
! rank of a split can be empty); element at 1-based global indices (i1, ..., ik) holds its
! column-major linear number v (from 1), as check_fortran.py expects:
! int32 v, int64 v + 2**40, real32 v + 0.5, real64 v + 0.25, complex64 (v, -v),
! complex128 (v + 0.5, -v).
program blocks
  use mpi_f08
  use dah5
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64, error_unit
  implicit none
  integer, parameter :: max_rank = 4
  integer(int64), parameter :: base_dims(max_rank) = [3_int64, 4_int64, 2_int64, 5_int64]
  integer(int64), parameter :: big = 2_int64**40
  integer :: rank, nranks, comm, failures, total, k
  character(len=256) :: path, mode
  type(dah5_file) :: file

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  comm = MPI_COMM_WORLD%MPI_VAL ! dah5 takes the Fortran handle, also from mpi_f08
  call get_command_argument(1, path)
  mode = ""
  if (command_argument_count() > 1) call get_command_argument(2, mode)
  failures = 0

  if (mode == "stop") then
     call stop_without_ierr()
  end if

  call dah5_file_create(comm, trim(path), file, flags=DAH5_TRUNC)
  call write_types()
  do k = 1, max_rank
     call write_rank(k)
  end do
  call write_many_blocks()
  call error_paths()
  call dah5_file_close(file)

  call dah5_file_open(comm, trim(path), file)
  call read_types()
  do k = 1, max_rank
     call read_rank(k)
  end do
  call read_many_blocks()
  call read_only_refuses_writes()
  call dah5_file_close(file)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print "(a, i0, a, i0, a)", "fortran blocks: ", nranks, " ranks, ", total, &
       " failed checks"
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       failures = failures + 1
       write (error_unit, "(a, i0, 2a)") "rank ", rank, ": FAILED: ", what
    end if
  end subroutine expect

  ! The dataset's dims: base_dims(1:k) with the last replaced by 2 * nranks + 1.
  function global_dims(k) result(dims)
    integer, intent(in) :: k
    integer(int64) :: dims(k)
    dims = base_dims(1:k)
    dims(k) = 2 * nranks + 1
  end function global_dims

  ! This rank's part of the last dimension of dims (all of the others).
  subroutine my_block(dims, part, lo, hi)
    integer(int64), intent(in) :: dims(:)
    integer, intent(in) :: part
    integer(int64), intent(out) :: lo(size(dims)), hi(size(dims))
    integer :: k
    k = size(dims)
    lo = 1
    hi = dims
    lo(k) = dims(k) * part / nranks + 1
    hi(k) = dims(k) * (part + 1) / nranks
  end subroutine my_block

  ! v of every element of the block lo..hi, in column-major order.
  function block_values(dims, lo, hi) result(v)
    integer(int64), intent(in) :: dims(:), lo(:), hi(:)
    integer(int64), allocatable :: v(:)
    integer(int64) :: index(size(dims)), n, i, stride
    integer :: d
    n = product(max(hi - lo + 1, 0_int64))
    allocate (v(n))
    index = lo
    do i = 1, n
       v(i) = 1
       stride = 1
       do d = 1, size(dims)
          v(i) = v(i) + (index(d) - 1) * stride
          stride = stride * dims(d)
       end do
       ! next index, first dimension fastest
       do d = 1, size(dims)
          if (index(d) < hi(d)) then
             index(d) = index(d) + 1
             exit
          end if
          index(d) = lo(d)
       end do
    end do
  end function block_values

  ! The transfer flags of the n-th dataset: collective every other one.
  integer function flags_for(n)
    integer, intent(in) :: n
    flags_for = DAH5_INDEPENDENT
    if (mod(n, 2) == 0) flags_for = DAH5_COLLECTIVE
  end function flags_for

  ! ---- one dataset per element type, arrays of rank 2 ----

  subroutine write_types()
    integer(int64) :: dims(2), lo(2), hi(2)
    integer(int64), allocatable :: v(:)
    type(dah5_dataset) :: dset
    integer(int32), allocatable :: i32(:, :)
    integer(int64), allocatable :: i64(:, :)
    real(real32), allocatable :: r32(:, :)
    real(real64), allocatable :: r64(:, :)
    complex(real32), allocatable :: c64(:, :)
    complex(real64), allocatable :: c128(:, :)
    dims = global_dims(2)
    call my_block(dims, rank, lo, hi)
    allocate (v, source=block_values(dims, lo, hi))
    ! (Allocated on assignment with bounds 1..n: only lo and hi say where the block goes.)
    i32 = reshape(int(v, int32), hi - lo + 1)
    i64 = reshape(v + big, hi - lo + 1)
    r32 = reshape(real(v, real32) + 0.5, hi - lo + 1)
    r64 = reshape(real(v, real64) + 0.25, hi - lo + 1)
    c64 = reshape(cmplx(v, -v, kind=real32), hi - lo + 1)
    c128 = reshape(cmplx(real(v, real64) + 0.5, -v, kind=real64), hi - lo + 1)
    call dah5_dataset_create(file, "types/int32", DAH5_INT32, dims, dset)
    call dah5_write_block(dset, lo, hi, i32, flags_for(1))
    call dah5_dataset_create(file, "types/int64", DAH5_INT64, dims, dset)
    call dah5_write_block(dset, lo, hi, i64, flags_for(2))
    call dah5_dataset_create(file, "types/float32", DAH5_FLOAT32, dims, dset)
    call dah5_write_block(dset, lo, hi, r32, flags_for(3))
    call dah5_dataset_create(file, "types/float64", DAH5_FLOAT64, dims, dset)
    call dah5_write_block(dset, lo, hi, r64, flags_for(4))
    call dah5_dataset_create(file, "types/complex64", DAH5_COMPLEX64, dims, dset)
    call dah5_write_block(dset, lo, hi, c64, flags_for(5))
    call dah5_dataset_create(file, "types/complex128", DAH5_COMPLEX128, dims, dset)
    call dah5_write_block(dset, lo, hi, c128, flags_for(6))
  end subroutine write_types

  ! Every rank reads the whole of each dataset and compares.
  subroutine read_types()
    integer(int64) :: dims(2), lo(2)
    integer(int64), allocatable :: v(:), got_dims(:)
    type(dah5_dataset) :: dset
    integer :: dtype
    integer(int32), allocatable :: i32(:, :)
    integer(int64), allocatable :: i64(:, :)
    real(real32), allocatable :: r32(:, :)
    real(real64), allocatable :: r64(:, :)
    complex(real32), allocatable :: c64(:, :)
    complex(real64), allocatable :: c128(:, :)
    dims = global_dims(2)
    lo = 1
    allocate (v, source=block_values(dims, lo, dims))
    allocate (i32(dims(1), dims(2)), i64(dims(1), dims(2)), r32(dims(1), dims(2)), &
         r64(dims(1), dims(2)), c64(dims(1), dims(2)), c128(dims(1), dims(2)))
    call dah5_dataset_open(file, "types/int32", dset)
    call dah5_dataset_dims(dset, got_dims)
    call expect(all(got_dims == dims), "dah5_dataset_dims gives the Fortran-order dims")
    call dah5_dataset_dtype(dset, dtype)
    call expect(dtype == DAH5_INT32, "dah5_dataset_dtype of types/int32")
    call dah5_read_block(dset, lo, dims, i32)
    call expect(all(i32 == reshape(int(v, int32), shape(i32))), "int32 values")
    call dah5_dataset_open(file, "types/int64", dset)
    call dah5_read_block(dset, lo, dims, i64)
    call expect(all(i64 == reshape(v + big, shape(i64))), "int64 values")
    call dah5_dataset_open(file, "types/float32", dset)
    call dah5_read_block(dset, lo, dims, r32)
    call expect(all(abs(r32 - reshape(real(v, real32) + 0.5, shape(r32))) <= 0), "float32 values")
    call dah5_dataset_open(file, "types/float64", dset)
    call dah5_read_block(dset, lo, dims, r64, DAH5_COLLECTIVE)
    call expect(all(abs(r64 - reshape(real(v, real64) + 0.25, shape(r64))) <= 0), "float64 values")
    call dah5_dataset_open(file, "types/complex64", dset)
    call dah5_read_block(dset, lo, dims, c64)
    call expect(all(abs(c64 - reshape(cmplx(v, -v, kind=real32), shape(c64))) <= 0), &
         "complex64 values")
    call dah5_dataset_open(file, "types/complex128", dset)
    call dah5_read_block(dset, lo, dims, c128)
    call expect(all(abs(c128 - reshape(cmplx(real(v, real64) + 0.5, -v, kind=real64), &
         shape(c128))) <= 0), "complex128 values")
  end subroutine read_types

  ! ---- real64 arrays of rank k = 1..4 (the generic resolving by rank) ----

  subroutine write_rank(k)
    integer, intent(in) :: k
    integer(int64) :: dims(k), lo(k), hi(k)
    real(real64), allocatable, target :: flat(:)
    type(dah5_dataset) :: dset
    character(len=16) :: name
    dims = global_dims(k)
    call my_block(dims, rank, lo, hi)
    flat = real(block_values(dims, lo, hi), real64) + 0.25
    write (name, "(a, i0)") "ranks/r", k
    call dah5_dataset_create(file, trim(name), DAH5_FLOAT64, dims, dset)
    call transfer_rank(.true., dset, k, lo, hi, flat, flags_for(k))
    call dah5_dataset_close(dset)
  end subroutine write_rank

  ! Each rank reads, collectively, the block another rank wrote (another decomposition).
  subroutine read_rank(k)
    integer, intent(in) :: k
    integer(int64) :: dims(k), lo(k), hi(k)
    real(real64), allocatable, target :: flat(:)
    type(dah5_dataset) :: dset
    character(len=16) :: name
    dims = global_dims(k)
    call my_block(dims, mod(rank + 1, nranks), lo, hi)
    allocate (flat(product(max(hi - lo + 1, 0_int64))))
    flat = -1
    write (name, "(a, i0)") "ranks/r", k
    call dah5_dataset_open(file, trim(name), dset)
    call transfer_rank(.false., dset, k, lo, hi, flat, DAH5_COLLECTIVE)
    call expect(all(abs(flat - (real(block_values(dims, lo, hi), real64) + 0.25)) <= 0), &
         trim(name) // " values")
    call dah5_dataset_close(dset)
  end subroutine read_rank

  ! flat seen as an array of rank k with the global bounds lo..hi.
  subroutine transfer_rank(write, dset, k, lo, hi, flat, flags)
    logical, intent(in) :: write
    type(dah5_dataset), intent(in) :: dset
    integer, intent(in) :: k, flags
    integer(int64), intent(in) :: lo(k), hi(k)
    real(real64), intent(inout), target, contiguous :: flat(:)
    real(real64), pointer, contiguous :: a1(:), a2(:, :), a3(:, :, :), a4(:, :, :, :)
    select case (k)
    case (1)
       a1(lo(1):hi(1)) => flat
       if (write) call dah5_write_block(dset, lo, hi, a1, flags)
       if (.not. write) call dah5_read_block(dset, lo, hi, a1, flags)
    case (2)
       a2(lo(1):hi(1), lo(2):hi(2)) => flat
       if (write) call dah5_write_block(dset, lo, hi, a2, flags)
       if (.not. write) call dah5_read_block(dset, lo, hi, a2, flags)
    case (3)
       a3(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)) => flat
       if (write) call dah5_write_block(dset, lo, hi, a3, flags)
       if (.not. write) call dah5_read_block(dset, lo, hi, a3, flags)
    case (4)
       a4(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), lo(4):hi(4)) => flat
       if (write) call dah5_write_block(dset, lo, hi, a4, flags)
       if (.not. write) call dah5_read_block(dset, lo, hi, a4, flags)
    end select
  end subroutine transfer_rank

  ! ---- many blocks per rank ----
  ! The (6, 2 nranks + 1) arrays "many/*" are cut into 2 x 1 tiles, 3 a column; tile t
  ! (0-based, column-major) is rank mod(t, owners)'s. Each rank lists its tiles last first
  ! (not in file order), and the values are v as for one block: real64 v + 0.25 in
  ! many/blocks, int64 v + 2**40 in many/darray, int32 v in many/created.

  function many_dims() result(dims)
    integer(int64) :: dims(2)
    dims = [6_int64, int(2 * nranks + 1, int64)]
  end function many_dims

  ! The tiles of rank `part` of `owners`: lo(:, b):hi(:, b) is its block b.
  subroutine tiles_of(part, owners, lo, hi)
    integer, intent(in) :: part, owners
    integer(int64), allocatable, intent(out) :: lo(:, :), hi(:, :)
    integer(int64) :: dims(2), t, ntiles
    integer :: b
    dims = many_dims()
    ntiles = 3 * dims(2)
    allocate (lo(2, count([(mod(t, int(owners, int64)) == part, t = 0, ntiles - 1)])))
    allocate (hi(2, size(lo, 2)))
    b = 0
    do t = ntiles - 1, 0, -1
       if (mod(t, int(owners, int64)) /= part) cycle
       b = b + 1
       lo(:, b) = [2 * mod(t, 3_int64) + 1, t / 3 + 1]
       hi(:, b) = lo(:, b) + [1_int64, 0_int64]
    end do
  end subroutine tiles_of

  ! v of every element of the blocks, block after block.
  function tiles_values(lo, hi) result(v)
    integer(int64), intent(in) :: lo(:, :), hi(:, :)
    integer(int64), allocatable :: v(:)
    integer :: b
    allocate (v(0))
    do b = 1, size(lo, 2)
       v = [v, block_values(many_dims(), lo(:, b), hi(:, b))]
    end do
  end function tiles_values

  ! Owners of many/darray: every rank but the last of several, which takes part with none.
  integer function darray_owners()
    darray_owners = max(nranks - 1, 1)
  end function darray_owners

  subroutine write_many_blocks()
    integer(int64), allocatable :: lo(:, :), hi(:, :), v(:), i64(:), tlo(:, :), thi(:, :)
    real(real64), allocatable :: r64(:)
    integer(int32), allocatable :: i32(:)
    integer, allocatable :: ranks(:)
    type(dah5_dataset) :: dset
    integer :: half, b, ierr
    integer(int64) :: t, dims(2)
    dims = many_dims()
    call tiles_of(rank, nranks, lo, hi)
    allocate (v, source=tiles_values(lo, hi))
    allocate (r64, source=real(v, real64) + 0.25)
    call dah5_dataset_create(file, "many/blocks", DAH5_FLOAT64, many_dims(), dset)
    call dah5_write_blocks(dset, lo, hi, r64, DAH5_COLLECTIVE)
    ! The wrapper's own check: the array must hold exactly the blocks' elements.
    call dah5_write_blocks(dset, lo, hi, r64(2:), ierr=ierr)
    call expect(ierr == DAH5_ERR_INVALID_ARGUMENT, "dah5_write_blocks with a short array")
    call expect(index(dah5_error_message(), "elements but the array has") > 0, dah5_error_message())
    ! The library's: two blocks of one call that overlap.
    call dah5_write_blocks(dset, reshape([1_int64, 1_int64, 2_int64, 1_int64], [2, 2]), &
         reshape([2_int64, 1_int64, 2_int64, 1_int64], [2, 2]), r64(1:3), ierr=ierr)
    call expect(ierr == DAH5_ERR_INVALID_ARGUMENT, "overlapping blocks in one call")
    call dah5_dataset_close(dset)

    ! A darray of many blocks per rank, one rank without any.
    call tiles_of(rank, darray_owners(), lo, hi)
    if (rank >= darray_owners()) call expect(size(lo, 2) == 0, "the last rank has no tile")
    allocate (i64, source=tiles_values(lo, hi) + big)
    call dah5_darray_write_blocks(file, "many/darray", many_dims(), lo, hi, i64, dset)
    call dah5_darray_blocks(dset, tlo, thi)
    call dah5_darray_block_ranks(dset, ranks)
    call expect(size(ranks) == size(tlo, 2), "one rank for every block of the table")
    call expect(count(all(thi >= tlo, dim=1)) == 3 * dims(2), "every tile in the table")
    do b = 1, min(size(ranks), size(tlo, 2))
       if (any(thi(:, b) < tlo(:, b))) cycle ! an empty block, if the table keeps one
       t = (tlo(1, b) - 1) / 2 + 3 * (tlo(2, b) - 1)
       call expect(ranks(b) == mod(t, int(darray_owners(), int64)), "the rank of a table block")
       call expect(all(thi(:, b) - tlo(:, b) == [1_int64, 0_int64]), "a table block is a tile")
    end do
    call dah5_dataset_close(dset)

    ! One rank's array too short for its blocks: that rank takes part with ndims 0, so the
    ! call fails on every rank and nothing is created.
    call tiles_of(rank, nranks, lo, hi)
    if (rank == 0) then
       call dah5_darray_write_blocks(file, "many/refused", dims, lo, hi, r64(2:), dset, ierr=ierr)
       call expect(ierr == DAH5_ERR_INVALID_ARGUMENT, "rank 0's short array, on rank 0")
       call expect(index(dah5_error_message(), "elements but the array has") > 0, &
            dah5_error_message())
    else
       call dah5_darray_write_blocks(file, "many/refused", dims, lo, hi, r64, dset, ierr=ierr)
       call expect(ierr /= DAH5_OK, "rank 0's short array, on the other ranks")
    end if

    ! dah5_darray_create_blocks, then the blocks written in two calls.
    call tiles_of(rank, nranks, lo, hi)
    allocate (i32, source=int(tiles_values(lo, hi), int32))
    call dah5_darray_create_blocks(file, "many/created", DAH5_INT32, many_dims(), lo, hi, dset)
    half = size(lo, 2) / 2
    call dah5_write_blocks(dset, lo(:, :half), hi(:, :half), i32(:2 * half))
    call dah5_write_blocks(dset, lo(:, half + 1:), hi(:, half + 1:), i32(2 * half + 1:), &
         DAH5_COLLECTIVE)
    call dah5_dataset_close(dset)
  end subroutine write_many_blocks

  ! Each rank reads the tiles of the next rank (another set of blocks), then its own.
  subroutine read_many_blocks()
    integer(int64), allocatable :: lo(:, :), hi(:, :), v(:), i64(:)
    real(real64), allocatable :: r64(:)
    integer(int32), allocatable :: i32(:)
    type(dah5_dataset) :: dset
    call tiles_of(mod(rank + 1, nranks), nranks, lo, hi)
    allocate (v, source=tiles_values(lo, hi))
    allocate (r64(size(v)), i64(size(v)), i32(size(v)))
    call dah5_dataset_open(file, "many/blocks", dset)
    call dah5_read_blocks(dset, lo, hi, r64)
    call expect(all(abs(r64 - (real(v, real64) + 0.25)) <= 0), "many/blocks values")
    call dah5_dataset_open(file, "many/darray", dset)
    call dah5_read_blocks(dset, lo, hi, i64, DAH5_COLLECTIVE)
    call expect(all(i64 == v + big), "many/darray values")
    call dah5_dataset_open(file, "many/created", dset)
    call dah5_read_blocks(dset, lo, hi, i32)
    call expect(all(i32 == int(v, int32)), "many/created values")
  end subroutine read_many_blocks

  ! ---- errors, returned in ierr ----

  subroutine error_paths()
    type(dah5_dataset) :: dset
    real(real64) :: small(2, 2), right(3, 4)
    integer(int32) :: wrong_type(3, 4)
    integer(int64) :: dims(2), lo(2), hi(2)
    integer :: ierr
    character(len=:), allocatable :: message
    small = 0
    right = 0
    wrong_type = 0
    dims = global_dims(2)
    call dah5_dataset_open(file, "types/float64", dset)

    call dah5_write_block(dset, [1_int64, 1_int64], [3_int64, 3_int64], small, ierr=ierr)
    message = dah5_error_message()
    call expect(ierr == DAH5_ERR_INVALID_ARGUMENT, "array shape /= lo:hi is an invalid argument")
    call expect(index(message, "shape (2, 2)") > 0, "the message names the shape: " // message)

    call dah5_write_block(dset, [1_int64, 1_int64, 1_int64], [3_int64, 4_int64, 1_int64], &
         small, ierr=ierr)
    call expect(ierr == DAH5_ERR_INVALID_ARGUMENT, "3 indices for a 2-D dataset")
    call expect(index(dah5_error_message(), "2 dimensions") > 0, dah5_error_message())

    call dah5_write_block(dset, [dims(1) - 1, 1_int64], [dims(1) + 1, 4_int64], right, ierr=ierr)
    call expect(ierr == DAH5_ERR_OUT_OF_BOUNDS, "a block past the end is out of bounds")
    call expect(len(dah5_error_message()) > 0, "out of bounds has a message")

    call dah5_write_block(dset, [1_int64, 1_int64], [3_int64, 4_int64], wrong_type, ierr=ierr)
    call expect(ierr == DAH5_ERR_TYPE_MISMATCH, "int32 into float64 is a type mismatch")
    call expect(dah5_status_name(ierr) == "DAH5_ERR_TYPE_MISMATCH", "dah5_status_name")

    ! A wrapper error on one rank of a collective transfer: that rank gets it, the others
    ! complete (no hang), and what they wrote is there.
    call my_block(dims, rank, lo, hi)
    block
      real(real64), allocatable :: mine(:, :)
      allocate (mine(lo(1):hi(1), lo(2):hi(2)))
      mine = reshape(real(block_values(dims, lo, hi), real64) + 0.25, shape(mine))
      if (rank == 1) then
         call dah5_write_block(dset, lo, hi + 1, mine, DAH5_COLLECTIVE, ierr)
         call expect(ierr == DAH5_ERR_INVALID_ARGUMENT, "rank 1's bad collective block")
      else
         call dah5_write_block(dset, lo, hi, mine, DAH5_COLLECTIVE, ierr)
         call expect(ierr == DAH5_OK, "the other ranks' collective write")
      end if
    end block
    call dah5_dataset_close(dset, ierr)
    call expect(ierr == DAH5_OK, "collective close after the errors")

    ! A group of its own, with its parent; made again, it exists already on every rank.
    call dah5_group_create(file, "groups/empty")
    call dah5_group_create(file, "groups/empty", ierr)
    call expect(ierr == DAH5_ERR_ALREADY_EXISTS, "a group made twice exists already")
    call expect(index(dah5_error_message(), '"groups/empty" exists already') > 0, &
         dah5_error_message())
  end subroutine error_paths

  subroutine read_only_refuses_writes()
    type(dah5_dataset) :: dset
    real(real64) :: one(1, 1)
    integer :: ierr
    one = 1
    call dah5_dataset_open(file, "types/float64", dset)
    call dah5_write_block(dset, [1_int64, 1_int64], [1_int64, 1_int64], one, ierr=ierr)
    call expect(ierr == DAH5_ERR_READ_ONLY, "writing a read-only file")
    call dah5_group_create(file, "ro", ierr)
    call expect(ierr == DAH5_ERR_READ_ONLY, "a group in a read-only file")
  end subroutine read_only_refuses_writes

  ! Without ierr, a failure ends the whole job with the library's message: one rank's bad
  ! independent write, while the others wait in the (collective) close.
  subroutine stop_without_ierr()
    type(dah5_dataset) :: dset
    real(real64) :: one(1, 1)
    one = 1
    call dah5_file_create(comm, trim(path), file, flags=DAH5_TRUNC)
    call dah5_dataset_create(file, "x", DAH5_FLOAT64, [2_int64, 2_int64], dset)
    if (rank == 0) then
       call dah5_write_block(dset, [5_int64, 1_int64], [5_int64, 1_int64], one)
       print "(a)", "not reached"
    end if
    call dah5_file_close(file)
    print "(a)", "not reached"
  end subroutine stop_without_ierr
end program blocks
