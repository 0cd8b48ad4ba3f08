/* revprof_now and revprof_now_bounds in each mode: the simulated clocks in
 * predict mode; 0 where no clock is simulated (compensate and sample modes,
 * whose clocks carry other figures, and revprof off). Prints
 * "now: RANK ENABLED NOW MIN AVG MAX" per rank after a barrier; rp_check.sh
 * case now-modes checks the figures against the mode. */
#include <mpi.h>
#include <stdio.h>

#include "revprof.h"

int main(int argc, char **argv) {
  int rank;
  double lo, avg, hi;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  revprof_now_bounds(&lo, &avg, &hi);
  printf("now: %d %d %.9g %.9g %.9g %.9g\n", rank, revprof_enabled(),
         revprof_now(), lo, avg, hi);
  MPI_Finalize();
  return 0;
}
