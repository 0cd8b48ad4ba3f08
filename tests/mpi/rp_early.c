/* Runs that end early under librevprof: "abort" (rank 0 calls MPI_Abort),
 * "exit" (every rank leaves without MPI_Finalize), "segv" (the last rank
 * dies of SIGSEGV), "term" (the last rank gets SIGTERM), "kill" (after
 * 2 s of collectives the last rank gets SIGKILL). Each affected rank
 * must leave a PARTIAL report (for "kill" no handler runs: the last
 * checkpoint, REVPROF_CHECKPOINT). "burn" ends normally after 0.2 s of CPU
 * work between two MPI calls (REVPROF_COMPUTE=measure); "long" ends
 * normally after 1 s of collectives (checkpoints written, then removed).
 * Plain MPI. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Spins until this thread has used `seconds` of CPU time. */
static double burn(double seconds) {
  struct timespec t0, t;
  volatile double x = 0;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do {
    for (int i = 0; i < 100000; i++)
      x += i * 1e-9;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  } while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < seconds);
  return x;
}

/* Allreduces with short sleeps between them for `seconds` (rank 0's
 * clock decides): thousands of events, not millions. */
static void collectives_for(double seconds) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    int go = (t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) <
             seconds;
    MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!go)
      break;
    usleep(200);
  }
}

/* The other ranks, once one has aborted or died: the launcher kills them.
 * If it does not (MPICH 4.0.2's Hydra once left the abort case's rank 1
 * running on a loaded machine), they leave without MPI_Finalize, whose
 * report gathering would wait for the dead rank forever. */
static void wait_to_be_killed(void) {
  sleep(30);
  _exit(2);
}

int main(int argc, char **argv) {
  int rank, size, x = 1;
  const char *mode = argc > 1 ? argv[1] : "exit";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    MPI_Send(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD);
  if (rank == size - 1) {
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD); /* the answer */
  }
  if (rank == 0)
    MPI_Recv(&x, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  fflush(stdout);
  if (strcmp(mode, "abort") == 0) {
    if (rank == 0)
      MPI_Abort(MPI_COMM_WORLD, 3);
    else
      wait_to_be_killed();
  } else if (strcmp(mode, "exit") == 0)
    exit(0);
  else if (strcmp(mode, "burn") == 0) {
    burn(0.2);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "kill") == 0) {
    /* past the trace's 1 s periodic flush, then the last rank is killed
       with no chance to write anything */
    collectives_for(2.0);
    if (rank == size - 1)
      raise(SIGKILL);
    wait_to_be_killed();
  } else if (strcmp(mode, "long") == 0) {
    collectives_for(1.0);
  } else if (strcmp(mode, "segv") == 0 || strcmp(mode, "term") == 0) {
    if (rank == size - 1)
      raise(strcmp(mode, "segv") == 0 ? SIGSEGV : SIGTERM);
    wait_to_be_killed();
  }
  MPI_Finalize();
  return 0;
}
