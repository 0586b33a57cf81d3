! darray2d.f90: a 2-D array decomposed over MPI ranks, written into one HDF5 dataset and
! read back with another decomposition, from Fortran.
!
! Every rank holds its columns of A(nx, ny) in an array declared with the global indices,
! A(1:nx, j0:j1), so lbound/ubound are exactly the block to write. Reading back, every rank
! takes whole rows instead, B(i0:i1, 1:ny). h5dump shows the dataset as (ny, nx): HDF5's
! C order, the same bytes, as HDF5's own Fortran API stores it.
!
!   mpiexec -n 3 ./darray2d darray2d.h5
program darray2d
  use mpi
  use dah5
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  integer, parameter :: nx = 6, ny = 8
  integer :: ierr, rank, nranks, i, j, errors, total_errors, i0, i1, j0, j1
  character(len=256) :: path
  real(real64), allocatable :: a(:, :), b(:, :)
  type(dah5_file) :: file
  type(dah5_dataset) :: dset

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  path = "darray2d.h5"
  if (command_argument_count() > 0) call get_command_argument(1, path)

  ! Write: this rank's columns j0..j1, A(i, j) = 100 i + j.
  call split(ny, rank, nranks, j0, j1)
  allocate (a(1:nx, j0:j1))
  do j = j0, j1
     do i = 1, nx
        a(i, j) = 100.0_real64 * i + j
     end do
  end do
  call dah5_file_create(MPI_COMM_WORLD, trim(path), file, flags=DAH5_TRUNC)
  call dah5_dataset_create(file, "A", DAH5_FLOAT64, [int(nx, int64), int(ny, int64)], dset)
  call dah5_write_block(dset, lbound(a, kind=int64), ubound(a, kind=int64), a)
  call dah5_file_close(file) ! closes dset too

  ! Read back by rows: rows i0..i1, all columns.
  call split(nx, rank, nranks, i0, i1)
  allocate (b(i0:i1, 1:ny))
  call dah5_file_open(MPI_COMM_WORLD, trim(path), file)
  call dah5_dataset_open(file, "A", dset)
  call dah5_read_block(dset, lbound(b, kind=int64), ubound(b, kind=int64), b)
  call dah5_file_close(file)
  errors = 0
  do j = 1, ny
     do i = i0, i1
        if (abs(b(i, j) - (100.0_real64 * i + j)) > 0) errors = errors + 1 ! exact
     end do
  end do
  print "(7(a, i0), a)", "rank ", rank, ": wrote A(1:", nx, &
       ", ", j0, ":", j1, "), read A(", i0, ":", i1, ", 1:", ny, ")"
  call MPI_Allreduce(errors, total_errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print "(a, i0, a)", "darray2d: ", total_errors, " wrong elements"
  call MPI_Finalize(ierr)
  if (total_errors /= 0) error stop 1

contains

  ! Indices first..last (1-based) of part `part` of n split in `parts`; empty when
  ! last = first - 1.
  subroutine split(n, part, parts, first, last)
    integer, intent(in) :: n, part, parts
    integer, intent(out) :: first, last
    first = n * part / parts + 1
    last = n * (part + 1) / parts
  end subroutine split
end program darray2d
