/* An MPI-4 sessions program (issue 17): MPI_Session_init, a group from the
 * world process set, a communicator from it, one reduction, never MPI_Init.
 * Under revprof it must not run silently: rank 0 says that nothing was
 * predicted and writes a report marked NOT PREDICTED.
 * Prints "sessions: N ranks, F failed checks" on the first rank. */
#include <mpi.h>
#include <stdio.h>

int main(void) {
  MPI_Session s;
  MPI_Group g;
  MPI_Comm c;
  int rank, size, sum = 0, failed = 0;
  if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS)
    return 1;
  MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
  MPI_Comm_create_from_group(g, "org.revprof.test", MPI_INFO_NULL,
                             MPI_ERRORS_RETURN, &c);
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  int one = 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
  failed = sum != size;
  if (rank == 0)
    printf("sessions: %d ranks, %d failed checks\n", size, failed);
  MPI_Comm_free(&c);
  MPI_Group_free(&g);
  MPI_Session_finalize(&s);
  return failed;
}
