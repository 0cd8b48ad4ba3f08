! MPI-4 large counts from `use mpi_f08` (an INTEGER(KIND=MPI_COUNT_KIND)
! count): the MPI's module calls its C MPI_Send_c / MPI_Recv_c, which
! revprof wraps, against int-count calls on the other side; the data and
! the count must arrive as sent. Built only where the MPI's mpi_f08 has
! the large-count forms (MPICH 4; not Open MPI 4.1). Rank 1 prints
! "large-count f08: bad B count N".
program rp_f08_count
  use mpi_f08
  implicit none
  integer :: rank, buf(16), i, bad
  integer(kind=MPI_COUNT_KIND) :: n
  type(MPI_Status) :: st
  integer(kind=MPI_COUNT_KIND) :: cnt
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  n = 16
  bad = 0
  if (rank == 0) then
    buf = [(i * 7, i = 1, 16)]
    call MPI_Send(buf, n, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
    call MPI_Send(buf, 16, MPI_INTEGER, 1, 4, MPI_COMM_WORLD)
  else
    buf = -1
    call MPI_Recv(buf, 16, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, st)
    do i = 1, 16
      if (buf(i) /= i * 7) bad = bad + 1
    end do
    buf = -1
    call MPI_Recv(buf, n, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    do i = 1, 16
      if (buf(i) /= i * 7) bad = bad + 1
    end do
    print '(A,I0,A,I0)', 'large-count f08: bad ', bad, ' count ', cnt
  end if
  call MPI_Finalize()
end program rp_f08_count
