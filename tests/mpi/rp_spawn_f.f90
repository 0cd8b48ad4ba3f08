! MPI_COMM_SPAWN from Fortran under revprof (issue 17): the parent job
! spawns one copy of this program (its own path, MPI_ARGV_NULL); the
! parent's rank 0 sends 41 to the child, which answers 42. When the parent
! runs under revprof and the child does not, revprof must see the Fortran
! spawn, or its clocks travel in front of the data the child receives.
! Prints "spawn: parent got N, F failed checks" (parent rank 0).
program rp_spawn_f
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, parent, child, v, failed
  integer :: errcodes(1), status(MPI_STATUS_SIZE)
  character(len=4096) :: cmd

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_GET_PARENT(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    call MPI_RECV(v, 1, MPI_INTEGER, 0, 7, parent, status, ierr)
    v = v + 1
    call MPI_SEND(v, 1, MPI_INTEGER, 0, 8, parent, ierr)
    call MPI_COMM_DISCONNECT(parent, ierr)
    call MPI_FINALIZE(ierr)
    stop
  end if
  call get_command_argument(0, cmd)
  call MPI_COMM_SPAWN(cmd, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, &
                      MPI_COMM_WORLD, child, errcodes, ierr)
  failed = 0
  if (ierr /= MPI_SUCCESS) failed = failed + 1
  if (rank == 0) then
    v = 41
    call MPI_SEND(v, 1, MPI_INTEGER, 0, 7, child, ierr)
    call MPI_RECV(v, 1, MPI_INTEGER, 0, 8, child, status, ierr)
    if (v /= 42) failed = failed + 1
    print '(A,I0,A,I0,A)', 'spawn: parent got ', v, ', ', failed, &
      ' failed checks'
  end if
  call MPI_COMM_DISCONNECT(child, ierr)
  call MPI_FINALIZE(ierr)
end program rp_spawn_f
