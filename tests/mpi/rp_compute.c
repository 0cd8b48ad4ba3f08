/* Computation as REVPROF_COMPUTE counts it, on a plain MPI program:
 *   "burn"         0.2 s of CPU between two barriers (an unmodified program)
 *   "annotated"    0.2 s of CPU, a barrier, 0.1 s of CPU, then
 *                  revprof_compute_seconds(1.0) (when librevprof is
 *                  loaded), then 0.2 s of CPU more
 *   "iprobe N"     N empty MPI_Iprobe calls, nothing else
 *   "wtime N"      N MPI_Wtime calls, nothing else
 * Each rank prints "loop <s>" (MPI_Wtime around the work: the prediction
 * under revprof, the real time natively) and "real <s>" (CLOCK_MONOTONIC).
 * revprof_compute_seconds is a weak reference: a native run has none. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void revprof_compute_seconds(double s) __attribute__((weak));

static double now(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Spins until this thread has used `seconds` of CPU time. */
static double burn(double seconds) {
  volatile double x = 0;
  double t0 = now(CLOCK_THREAD_CPUTIME_ID);
  do {
    for (int i = 0; i < 100000; i++)
      x += i * 1e-9;
  } while (now(CLOCK_THREAD_CPUTIME_ID) - t0 < seconds);
  return x;
}

int main(int argc, char **argv) {
  int rank, flag;
  const char *mode = argc > 1 ? argv[1] : "burn";
  long n = argc > 2 ? atol(argv[2]) : 200000;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  double w0 = MPI_Wtime(), r0 = now(CLOCK_MONOTONIC), acc = 0.0;
  if (strcmp(mode, "burn") == 0)
    burn(0.2);
  else if (strcmp(mode, "annotated") == 0) {
    burn(0.2);
    MPI_Barrier(MPI_COMM_WORLD);
    burn(0.1);
    if (revprof_compute_seconds)
      revprof_compute_seconds(1.0);
    burn(0.2);
  } else if (strcmp(mode, "iprobe") == 0) {
    for (long i = 0; i < n; i++)
      MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag,
                 MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "wtime") == 0) {
    for (long i = 0; i < n; i++)
      acc += MPI_Wtime();
  } else {
    fprintf(stderr, "rp_compute: unknown mode %s\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double w1 = MPI_Wtime(), r1 = now(CLOCK_MONOTONIC);
  printf("rank %d loop %.9f real %.9f%s\n", rank, w1 - w0, r1 - r0,
         acc < 0 ? " (never)" : "");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
