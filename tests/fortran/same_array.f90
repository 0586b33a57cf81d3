! same_array.f90: the Fortran half of the C/Fortran layout test (see tests/c/same_array.c).
! A(i, j) = (i - 1) + 1000 (j - 1), columns j split over the ranks, Fortran dims (nx, ny).
!
!   mpiexec -n 2 ./same_array_f f.h5
program same_array
  use mpi
  use dah5
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  integer, parameter :: nx = 5, ny = 7
  integer :: ierr, rank, nranks, i, j, j0, j1
  character(len=256) :: path
  real(real64), allocatable :: a(:, :)
  type(dah5_file) :: file
  type(dah5_dataset) :: dset

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  j0 = ny * rank / nranks + 1
  j1 = ny * (rank + 1) / nranks
  allocate (a(1:nx, j0:j1))
  do j = j0, j1
     do i = 1, nx
        a(i, j) = (i - 1) + 1000.0_real64 * (j - 1)
     end do
  end do
  call dah5_file_create(MPI_COMM_WORLD, trim(path), file, flags=DAH5_TRUNC)
  call dah5_dataset_create(file, "u", DAH5_FLOAT64, [int(nx, int64), int(ny, int64)], dset)
  call dah5_write_block(dset, lbound(a, kind=int64), ubound(a, kind=int64), a, DAH5_COLLECTIVE)
  call dah5_file_close(file)
  call MPI_Finalize(ierr)
end program same_array
