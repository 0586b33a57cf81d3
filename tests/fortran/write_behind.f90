! write_behind.f90: writes behind the caller (flags = DAH5_ASYNC) from Fortran (driven by
! tests/bindings.rs, checked by h5py).
!
! A time loop whose output overlaps the next step's work: the arrays written behind are
! declared `asynchronous` and reused every step.
!   u(1:nx, j0:j1, 1:1), real64: this rank's columns of step s, written behind as the block
!     (1:nx, j0:j1, s:s) of "u" (nx, ny, nsteps) with dah5_write_block;
!   ids(:), int32: the same columns, one block per column packed one after another, written
!     behind into "id" (nx, ny, nsteps) with dah5_write_blocks.
! Step 1 reads its own block back at once (a read waits for the writes behind it meets).
! Every step but the last waits (dah5_file_wait, without and with ierr) and then refills
! both arrays; the last step's writes are ended by dah5_file_flush, after which each rank
! reads the next rank's block of that step. Then the refusals (DAH5_ASYNC with
! DAH5_COLLECTIVE, into a chunked dataset, on a read), and dah5_file_close. Element
! (i, j, s) of "u" holds 1000 s + 10 j + i + 0.5, of "id" 1000 s + 10 j + i; ny = 2 n + 1.
!
!   write_behind_f PATH
program write_behind_f
  use mpi
  use dah5
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64, error_unit
  implicit none
  integer, parameter :: nx = 4, nsteps = 3
  integer :: ierr, rank, nranks, ny, i, j, j0, j1, k, s, next, failures, total, status
  character(len=256) :: path
  real(real64), allocatable, asynchronous :: u(:, :, :)
  integer(int32), allocatable, asynchronous :: ids(:)
  real(real64), allocatable :: back(:, :, :), theirs(:, :, :)
  integer(int64), allocatable :: lo(:, :), hi(:, :)
  integer(int64) :: dims(3)
  type(dah5_file) :: file
  type(dah5_dataset) :: u_set, id_set, chunked
  type(dah5_dataset_options) :: options

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  failures = 0
  ny = 2 * nranks + 1
  j0 = ny * rank / nranks + 1
  j1 = ny * (rank + 1) / nranks
  dims = [int(nx, int64), int(ny, int64), int(nsteps, int64)]
  allocate (u(1:nx, j0:j1, 1), ids(nx * (j1 - j0 + 1)), back(1:nx, j0:j1, 1))
  allocate (lo(3, j0:j1), hi(3, j0:j1))

  call dah5_file_create(MPI_COMM_WORLD, trim(path), file, flags=DAH5_TRUNC)
  call dah5_dataset_create(file, "u", DAH5_FLOAT64, dims, u_set)
  call dah5_dataset_create(file, "id", DAH5_INT32, dims, id_set)
  call dah5_file_wait(file, ierr=status)
  call expect(status == DAH5_OK, "a wait with nothing written behind")

  do s = 1, nsteps
     ! The step's "work": fill the arrays the previous step's writes no longer use.
     k = 0
     do j = j0, j1
        do i = 1, nx
           u(i, j, 1) = 1000 * s + 10 * j + i + 0.5_real64
           k = k + 1
           ids(k) = int(1000 * s + 10 * j + i, int32)
        end do
        lo(:, j) = [1_int64, int(j, int64), int(s, int64)]
        hi(:, j) = [int(nx, int64), int(j, int64), int(s, int64)]
     end do
     call dah5_write_block(u_set, [1_int64, int(j0, int64), int(s, int64)], &
          [int(nx, int64), int(j1, int64), int(s, int64)], u, DAH5_ASYNC)
     call dah5_write_blocks(id_set, lo, hi, ids, flags=DAH5_ASYNC, ierr=status)
     call expect(status == DAH5_OK, "dah5_write_blocks with DAH5_ASYNC")
     if (s == 1) then
        back = -1
        call dah5_read_block(u_set, [1_int64, int(j0, int64), 1_int64], &
             [int(nx, int64), int(j1, int64), 1_int64], back)
        call expect(all(abs(back - u) <= 0), "a read sees the write behind it meets")
     end if
     if (s == nsteps) exit
     if (mod(s, 2) == 1) then
        call dah5_file_wait(file)
     else
        call dah5_file_wait(file, ierr=status)
        call expect(status == DAH5_OK, "dah5_file_wait with ierr")
     end if
  end do
  ! The last step's writes are still behind: the flush ends every rank's, then any rank
  ! reads them.
  call dah5_file_flush(file)
  next = mod(rank + 1, nranks)
  j0 = ny * next / nranks + 1
  j1 = ny * (next + 1) / nranks
  allocate (theirs(1:nx, j0:j1, 1))
  call dah5_read_block(u_set, [1_int64, int(j0, int64), int(nsteps, int64)], &
       [int(nx, int64), int(j1, int64), int(nsteps, int64)], theirs)
  call expect(all(abs(theirs - u_values(j0, j1, nsteps)) <= 0), "the next rank's last step")

  ! Refused, with the arrays not lent: collective, chunked, and a read.
  call dah5_write_block(u_set, [1_int64, int(lbound(u, 2), int64), 1_int64], &
       [int(nx, int64), int(ubound(u, 2), int64), 1_int64], u, ior(DAH5_ASYNC, DAH5_COLLECTIVE), &
       ierr=status)
  call expect(status == DAH5_ERR_INVALID_ARGUMENT .and. &
       index(dah5_error_message(), "DAH5_ASYNC") > 0, "DAH5_ASYNC with DAH5_COLLECTIVE")
  options%chunk_ndims = 3
  options%chunk(1:3) = [int(nx, int64), 1_int64, 1_int64]
  call dah5_dataset_create(file, "chunked", DAH5_FLOAT64, dims, chunked, options)
  call dah5_write_block(chunked, [1_int64, int(lbound(u, 2), int64), 1_int64], &
       [int(nx, int64), int(ubound(u, 2), int64), 1_int64], u, DAH5_ASYNC, ierr=status)
  call expect(status == DAH5_ERR_INVALID_ARGUMENT .and. &
       index(dah5_error_message(), "DAH5_ASYNC") > 0, "DAH5_ASYNC into a chunked dataset")
  call dah5_read_block(u_set, [1_int64, int(lbound(u, 2), int64), 1_int64], &
       [int(nx, int64), int(ubound(u, 2), int64), 1_int64], back, DAH5_ASYNC, ierr=status)
  call expect(status == DAH5_ERR_INVALID_ARGUMENT .and. &
       index(dah5_error_message(), "reads are synchronous") > 0, "a read with DAH5_ASYNC")
  call dah5_file_close(file)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print "(a, i0, a, i0, a)", "fortran write behind: ", nranks, " ranks, ", &
       total, " failed checks"
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  ! Columns j0:j1 of step s, as the writer filled them.
  function u_values(j0, j1, s) result(v)
    integer, intent(in) :: j0, j1, s
    real(real64) :: v(1:nx, j0:j1, 1)
    integer :: i, j
    do j = j0, j1
       do i = 1, nx
          v(i, j, 1) = 1000 * s + 10 * j + i + 0.5_real64
       end do
    end do
  end function u_values

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       failures = failures + 1
       write (error_unit, "(a, i0, 4a)") "rank ", rank, ": FAILED: ", what, ": ", &
            dah5_error_message()
    end if
  end subroutine expect
end program write_behind_f
