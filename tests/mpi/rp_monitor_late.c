/* Online monitoring's last round when one rank comes to MPI_Finalize late:
 * every rank passes a barrier, then rank 0 sleeps MS milliseconds (the
 * argument, default 500) before MPI_Finalize while the others go there at
 * once. Under the timer's rounds (REVPROF_MONITOR_INTERVAL in seconds,
 * shorter than the sleep) each rank used to put its last profile in the
 * round of its own clock as it reached MPI_Finalize, rank 0's rounds after
 * the others', and both rounds were discarded. Built natively, run with
 * LD_PRELOAD. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  long ms = argc > 1 ? atol(argv[1]) : 500;
  if (rank == 0 && ms > 0) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
  }
  MPI_Finalize();
  return 0;
}
