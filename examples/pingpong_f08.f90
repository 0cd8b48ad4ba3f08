! Ping-pong between ranks 0 and 1 in Fortran 2008 (`use mpi_f08`): the
! program and checks of pingpong_f.f90 (`use mpi`) with mpi_f08's handle
! types, TYPE(MPI_Status) and ierror left out (it is optional), plus one
! call that passes it. Rank 0 prints the time of REPS round trips of N
! doubles by MPI_Wtime: under revprof the prediction, natively the real time.
!   mpiexec -n 2 ./pingpong_f08 [N [REPS]]
program pingpong_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nproc, n, reps, i, k, cnt, idx, bad, nargs
  type(MPI_Status) :: status
  type(MPI_Request) :: reqs(2)
  double precision, allocatable :: buf(:)
  double precision :: t0, t1, s(2)
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  n = 128
  reps = 100
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (nargs >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) reps
  end if
  if (nproc < 2) then
    if (rank == 0) print '(A)', 'pingpong_f08: needs 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  allocate (buf(max(n, 1)))
  bad = 0
  if (ierr /= MPI_SUCCESS) bad = bad + 1

  call MPI_Barrier(MPI_COMM_WORLD)
  t0 = MPI_Wtime()
  do i = 1, reps
    if (rank == 0) then
      do k = 1, n
        buf(k) = dble(i * k)
      end do
      call MPI_Send(buf, n, MPI_DOUBLE_PRECISION, 1, 7, MPI_COMM_WORLD)
      call MPI_Recv(buf, n, MPI_DOUBLE_PRECISION, 1, 8, MPI_COMM_WORLD, status)
      call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt)
      if (cnt /= n .or. status%MPI_SOURCE /= 1 .or. status%MPI_TAG /= 8) &
        bad = bad + 1
      do k = 1, n
        if (buf(k) /= dble(i * k) + 1d0) bad = bad + 1
      end do
    else if (rank == 1) then
      call MPI_Recv(buf, n, MPI_DOUBLE_PRECISION, 0, 7, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
      do k = 1, n
        buf(k) = buf(k) + 1d0
      end do
      call MPI_Send(buf, n, MPI_DOUBLE_PRECISION, 0, 8, MPI_COMM_WORLD)
    end if
  end do
  t1 = MPI_Wtime()

  ! MPI_IN_PLACE: every rank adds (rank + 1)
  s(1) = dble(rank + 1)
  s(2) = 1d0
  call MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD)
  if (s(1) /= dble(nproc * (nproc + 1) / 2) .or. s(2) /= dble(nproc)) &
    bad = bad + 1
  ! requests: a ring exchange, one request completed by MPI_Waitany
  ! (1-based index, MPI_STATUS_IGNORE), the other by MPI_Wait with a status
  ! (and both then by MPI_Waitall with MPI_STATUSES_IGNORE: a no-op)
  call MPI_Irecv(s(1), 1, MPI_DOUBLE_PRECISION, mod(rank + nproc - 1, nproc), &
                 9, MPI_COMM_WORLD, reqs(1))
  s(2) = dble(rank)
  call MPI_Isend(s(2), 1, MPI_DOUBLE_PRECISION, mod(rank + 1, nproc), 9, &
                 MPI_COMM_WORLD, reqs(2))
  call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE)
  if (idx < 1 .or. idx > 2) then
    bad = bad + 1
  else if (reqs(idx) /= MPI_REQUEST_NULL) then
    bad = bad + 1
  end if
  call MPI_Wait(reqs(3 - idx), status)
  if (idx == 2 .and. status%MPI_SOURCE /= mod(rank + nproc - 1, nproc)) &
    bad = bad + 1
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (s(1) /= dble(mod(rank + nproc - 1, nproc))) bad = bad + 1
  if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) &
    bad = bad + 1

  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD)
  if (rank == 0) then
    print '(A,I0,A,I0,A,ES23.16)', 'pingpong_f08: ', reps, ' round trips of ', &
      8 * n, ' bytes: elapsed ', t1 - t0
    print '(A,I0,A)', 'pingpong_f08: ', bad, ' failed checks'
  end if
  deallocate (buf)
  call MPI_Finalize()
end program pingpong_f08
