/* bench/compensation.sh's second program: every rank runs the same work
 * between MPI_Allreduce calls, and rank 0 also runs R tiny regions per
 * iteration, so that under compensate mode rank 0 alone carries the
 * instrumentation's delay and the others wait for it at each allreduce.
 * Without the regions' cost all ranks would reach each allreduce together;
 * parallel compensation must remove rank 0's overhead and the others'
 * waiting for it. The loop is region "loop"; rank 0 prints its real time
 * (MPI_Wtime, real in compensate mode) and a checksum.
 *
 *   comp_imbalance [--iters N] [--work K] [--regions R]
 *     N iterations (default 200) of K dependent steps (default 20000),
 *     R regions of one step each on rank 0 (default 2000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_regions.h"

int main(int argc, char **argv) {
  long iters = 200, work = 20000, regions = 2000;
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 1; i + 1 < argc; i += 2) {
    long v = strtol(argv[i + 1], NULL, 10);
    if (strcmp(argv[i], "--iters") == 0)
      iters = v;
    else if (strcmp(argv[i], "--work") == 0)
      work = v;
    else if (strcmp(argv[i], "--regions") == 0)
      regions = v;
  }
  double g = 1.0 + rank, sum = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  REGION_BEGIN("loop");
  for (long it = 0; it < iters; it++) {
    g = chain(g, work);
    for (long r = 0; rank == 0 && r < regions; r++) {
      REGION_BEGIN("tiny");
      g = chain(g, 1);
      REGION_END("tiny");
    }
    double m = g;
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    sum += m;
  }
  REGION_END("loop");
  double t = MPI_Wtime() - t0;
  if (rank == 0)
    printf("comp_imbalance: loop %.6f s checksum %.10g\n", t, sum);
  MPI_Finalize();
  return 0;
}
