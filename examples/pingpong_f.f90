! Ping-pong between ranks 0 and 1 in Fortran (`use mpi`), with the checks a
! Fortran binding must pass: data received intact, MPI_STATUS_IGNORE and
! MPI_STATUSES_IGNORE, a status read back by MPI_GET_COUNT, MPI_IN_PLACE,
! non-blocking requests, 1-based MPI_WAITANY indices. Rank 0 prints the
! time of REPS round trips of N doubles by MPI_WTIME: under revprof the
! prediction, natively the real time.
!   mpiexec -n 2 ./pingpong_f [N [REPS]]
program pingpong_f
  use mpi
  implicit none
  integer :: ierr, rank, nproc, n, reps, i, k, cnt, idx, bad, nargs
  integer :: status(MPI_STATUS_SIZE), reqs(2)
  double precision, allocatable :: buf(:)
  double precision :: t0, t1, s(2)
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
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
    if (rank == 0) print '(A)', 'pingpong_f: needs 2 ranks'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  allocate (buf(max(n, 1)))
  bad = 0

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  t0 = MPI_WTIME()
  do i = 1, reps
    if (rank == 0) then
      do k = 1, n
        buf(k) = dble(i * k)
      end do
      call MPI_SEND(buf, n, MPI_DOUBLE_PRECISION, 1, 7, MPI_COMM_WORLD, ierr)
      call MPI_RECV(buf, n, MPI_DOUBLE_PRECISION, 1, 8, MPI_COMM_WORLD, &
                    status, ierr)
      call MPI_GET_COUNT(status, MPI_DOUBLE_PRECISION, cnt, ierr)
      if (cnt /= n .or. status(MPI_SOURCE) /= 1 .or. status(MPI_TAG) /= 8) &
        bad = bad + 1
      do k = 1, n
        if (buf(k) /= dble(i * k) + 1d0) bad = bad + 1
      end do
    else if (rank == 1) then
      call MPI_RECV(buf, n, MPI_DOUBLE_PRECISION, 0, 7, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      do k = 1, n
        buf(k) = buf(k) + 1d0
      end do
      call MPI_SEND(buf, n, MPI_DOUBLE_PRECISION, 0, 8, MPI_COMM_WORLD, ierr)
    end if
  end do
  t1 = MPI_WTIME()

  ! MPI_IN_PLACE: every rank adds (rank + 1)
  s(1) = dble(rank + 1)
  s(2) = 1d0
  call MPI_ALLREDUCE(MPI_IN_PLACE, s, 2, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (s(1) /= dble(nproc * (nproc + 1) / 2) .or. s(2) /= dble(nproc)) &
    bad = bad + 1
  ! requests: a ring exchange, one request completed by MPI_WAITANY
  ! (1-based index), both by MPI_WAITALL with MPI_STATUSES_IGNORE
  call MPI_IRECV(s(1), 1, MPI_DOUBLE_PRECISION, mod(rank + nproc - 1, nproc), &
                 9, MPI_COMM_WORLD, reqs(1), ierr)
  s(2) = dble(rank)
  call MPI_ISEND(s(2), 1, MPI_DOUBLE_PRECISION, mod(rank + 1, nproc), 9, &
                 MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITANY(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
  if (idx < 1 .or. idx > 2 .or. reqs(idx) /= MPI_REQUEST_NULL) bad = bad + 1
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (s(1) /= dble(mod(rank + nproc - 1, nproc))) bad = bad + 1
  if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) &
    bad = bad + 1

  ! summed as a double: with MPICH's `use mpi` (no interfaces for choice
  ! buffers) gfortran warns when one routine gets an INTEGER and a REAL
  s(1) = dble(bad)
  call MPI_ALLREDUCE(MPI_IN_PLACE, s(1), 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  bad = nint(s(1))
  if (rank == 0) then
    print '(A,I0,A,I0,A,ES23.16)', 'pingpong_f: ', reps, ' round trips of ', &
      8 * n, ' bytes: elapsed ', t1 - t0
    print '(A,I0,A)', 'pingpong_f: ', bad, ' failed checks'
  end if
  deallocate (buf)
  call MPI_FINALIZE(ierr)
end program pingpong_f
