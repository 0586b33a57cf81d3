! error_stop.f90: the last rank hits `error stop` with a file open (after a flush), while the
! other ranks wait in their own MPI_Allreduce. The job must end as it does without dah5,
! with a line on stderr naming the open file; the file opens as of its flush
! (driven by tests/exits.rs).
!
!   error_stop PATH
program error_stop
  use mpi_f08
  use dah5
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  implicit none
  integer :: rank, nranks, comm, one, total
  character(len=256) :: path
  type(dah5_file) :: file
  type(dah5_dataset) :: dset
  real(real64) :: values(8)
  integer :: i

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  comm = MPI_COMM_WORLD%MPI_VAL
  call get_command_argument(1, path)
  values = [(real(i - 1, real64), i = 1, 8)]

  call dah5_file_create(comm, trim(path), file, flags=DAH5_TRUNC)
  call dah5_dataset_create(file, "flushed", DAH5_FLOAT64, [8_int64], dset)
  if (rank == 0) then
     call dah5_write_block(dset, [1_int64], [8_int64], values, DAH5_COLLECTIVE)
  else
     call dah5_write_block(dset, [1_int64], [0_int64], values(1:0), DAH5_COLLECTIVE)
  end if
  call dah5_file_flush(file)
  call dah5_dataset_create(file, "unflushed", DAH5_FLOAT64, [8_int64], dset)

  if (rank == nranks - 1) error stop "a solver failed"
  one = 1
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  write (error_unit, "(a, i0, a)") "rank ", rank, ": not reached: the job went on"
  call MPI_Finalize()
end program error_stop
