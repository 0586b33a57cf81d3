! darray.f90: distributed arrays, attributes and a time series from Fortran (driven by
! tests/bindings.rs, checked by h5py).
!
! A(5, 2 n + 1) real64 is split by columns over the n ranks; A(i, j) holds l + l / 1024
! with l = (i - 1) + 5 (j - 1), its column-major position: tests/c/pattern.h's float64
! pattern of the C-order index of the same element, so tests/py/check_pattern.py and
! check_darray.py check the file.
!
!   darray_f PATH
program darray_f
  use mpi
  use dah5
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64, error_unit
  implicit none
  integer, parameter :: nx = 5
  integer :: ierr, rank, nranks, ny, i, j, j0, j1, t, failures, total, status
  character(len=256) :: path
  real(real64), allocatable :: a(:, :), b(:, :), step(:, :)
  integer(int64), allocatable :: lo(:, :), hi(:, :), plo(:), phi(:)
  integer(int32) :: steps(3), small(2)
  real(real64) :: dt
  character(len=:), allocatable :: title
  type(dah5_file) :: file
  type(dah5_dataset) :: dset, series, missing, sub
  type(dah5_dataset_options) :: options

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  failures = 0
  ny = 2 * nranks + 1
  j0 = ny * rank / nranks + 1
  j1 = ny * (rank + 1) / nranks
  allocate (a(1:nx, j0:j1))
  do j = j0, j1
     do i = 1, nx
        a(i, j) = value(i, j)
     end do
  end do

  call dah5_file_create(MPI_COMM_WORLD, trim(path), file, flags=DAH5_TRUNC, &
       hints="romio_cb_write=enable")
  call dah5_darray_write(file, "A", [int(nx, int64), int(ny, int64)], lbound(a, kind=int64), &
       ubound(a, kind=int64), a, dset)
  call dah5_darray_blocks(dset, lo, hi)
  call expect(size(lo, 2) == nranks, "one block per rank")
  call expect(all(lo(:, rank + 1) == lbound(a, kind=int64)) .and. &
       all(hi(:, rank + 1) == ubound(a, kind=int64)), "my block in the table, 1-based")
  call dah5_dataset_set_dim_names(dset, ["x", "y"])
  call dah5_dataset_set_dim_names(dset, ["x", "y"], ierr=status)
  call expect(status == DAH5_ERR_INVALID_ARGUMENT, "dimensions are named once")

  ! A wrong block on rank 0 only: every rank fails, nothing is created.
  if (rank == 0) then
     call dah5_darray_write(file, "B", [int(nx, int64), int(ny, int64)], [1_int64, 1_int64], &
          [2_int64, 2_int64], a, missing, ierr=status)
  else
     call dah5_darray_write(file, "B", [int(nx, int64), int(ny, int64)], lbound(a, kind=int64), &
          ubound(a, kind=int64), a, missing, ierr=status)
  end if
  call expect(status == DAH5_ERR_INVALID_ARGUMENT, "a bad block on rank 0 fails everywhere")
  call dah5_dataset_open(file, "B", missing, ierr=status)
  call expect(status == DAH5_ERR_NOT_FOUND, "the refused darray was not created")

  call dah5_attr_write(file, "A", "dt", 0.5_real64)
  call dah5_attr_write(file, "/", "steps", [1_int32, 2_int32, 3_int32])
  call dah5_attr_write_string(file, "/", "title", "fortran darray")

  ! A time series: (nx, t) growing along its last (Fortran) dimension.
  options%max_ndims = 2
  options%max_dims(1:2) = [int(nx, int64), DAH5_UNLIMITED]
  call dah5_dataset_create(file, "series", DAH5_FLOAT64, [int(nx, int64), 0_int64], series, options)
  call dah5_dataset_set_dim_names(series, ["x   ", "time"])
  allocate (step(nx, 1))
  do t = 1, 3
     call dah5_dataset_extend(series, [int(nx, int64), int(t, int64)])
     step(:, 1) = [(10.0_real64 * t + i, i = 1, nx)]
     if (rank == 0) call dah5_write_block(series, [1_int64, int(t, int64)], [int(nx, int64), int(t, int64)], step)
  end do
  ! A subfiled darray declared first, then written a column at a time by each rank.
  call dah5_darray_create(file, "S", DAH5_FLOAT64, [int(nx, int64), int(ny, int64)], &
       lbound(a, kind=int64), ubound(a, kind=int64), sub, DAH5_DARRAY_SUBFILED)
  do j = j0, j1
     call dah5_write_block(sub, [1_int64, int(j, int64)], [int(nx, int64), int(j, int64)], a(:, j:j))
  end do
  call dah5_dataset_close(sub)
  call dah5_file_close(file)

  ! Read back with dah5_darray_partition (a different split when n > 1), and the attributes.
  call dah5_file_open(MPI_COMM_WORLD, trim(path), file)
  call dah5_dataset_open(file, "A", dset)
  call dah5_darray_partition(dset, rank, nranks, plo, phi)
  allocate (b(plo(1):phi(1), plo(2):phi(2)))
  call dah5_read_block(dset, plo, phi, b, DAH5_COLLECTIVE)
  do j = int(plo(2)), int(phi(2))
     do i = int(plo(1)), int(phi(1))
        if (abs(b(i, j) - value(i, j)) > 0) failures = failures + 1
     end do
  end do
  call dah5_dataset_open(file, "S", sub)
  b = -1
  call dah5_read_block(sub, plo, phi, b)
  call expect(all(abs(b - a_values(plo, phi)) <= 0), "the subfiled darray reads back")
  call dah5_attr_read(file, "A", "dt", dt)
  call expect(abs(dt - 0.5_real64) <= 0, "scalar attribute")
  call dah5_attr_read(file, "/", "steps", steps)
  call expect(all(steps == [1, 2, 3]), "array attribute")
  call dah5_attr_read(file, "/", "steps", small, ierr=status)
  call expect(status == DAH5_ERR_INVALID_ARGUMENT, "an attribute into too small an array")
  call dah5_attr_read_string(file, "/", "title", title)
  call expect(title == "fortran darray", "string attribute")
  call dah5_file_close(file)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print "(a, i0, a, i0, a)", "fortran darray: ", nranks, " ranks, ", total, &
       " failed checks"
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  function a_values(lo, hi) result(v)
    integer(int64), intent(in) :: lo(:), hi(:)
    real(real64) :: v(lo(1):hi(1), lo(2):hi(2))
    integer :: i, j
    do j = int(lo(2)), int(hi(2))
       do i = int(lo(1)), int(hi(1))
          v(i, j) = value(i, j)
       end do
    end do
  end function a_values

  real(real64) function value(i, j)
    integer, intent(in) :: i, j
    integer :: l
    l = (i - 1) + nx * (j - 1)
    value = l + l / 1024.0_real64
  end function value

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       failures = failures + 1
       write (error_unit, "(a, i0, 2a)") "rank ", rank, ": FAILED: ", what
    end if
  end subroutine expect
end program darray_f
