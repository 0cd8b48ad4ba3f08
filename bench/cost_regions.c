/* The instrumentation cost bench's program (bench/cost-model.sh, issue 11,
 * seed 002 Figs. 2-6): N tiny user regions, each a chain of K dependent
 * steps, on every rank, with an MPI_Allreduce every 1000 regions so that
 * the ranks run together. The loop's time (MPI_Wtime, real in compensate
 * mode) and a checksum (the same with and without revprof) are printed by
 * rank 0; with --calibrate, the seconds of one step instead.
 *
 *   cost_regions --regions N --work K       the run
 *   cost_regions --calibrate                seconds per step */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_regions.h"

int main(int argc, char **argv) {
  long regions = 1000000, work = 10;
  int calibrate = 0, rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--calibrate") == 0)
      calibrate = 1;
    else if (strcmp(argv[i], "--regions") == 0 && i + 1 < argc)
      regions = strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc)
      work = strtol(argv[++i], NULL, 10);
    else {
      if (rank == 0)
        fprintf(stderr, "usage: cost_regions [--regions N] [--work K] "
                        "[--calibrate]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  double g = 1.5, sum = 0.0;
  if (calibrate) { /* the best of a few rounds of 1e7 steps */
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
      double t0 = MPI_Wtime();
      g = chain(g, 10000000);
      double t = (MPI_Wtime() - t0) / 1e7;
      best = t < best ? t : best;
    }
    if (rank == 0)
      printf("cost_regions: step %.6e s (%g)\n", best, g > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < regions; i++) {
    REGION_BEGIN("tiny");
    g = chain(g, work);
    sum += g;
    REGION_END("tiny");
    if (i % 1000 == 999) {
      MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      g += 0.5; /* the chain never settles at its fixed point */
    }
  }
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("cost_regions: %ld regions of %ld steps, loop %.6f s, checksum "
           "%.12e\n", regions, work, t, sum);
  MPI_Finalize();
  return 0;
}
