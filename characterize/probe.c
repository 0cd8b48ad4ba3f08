/* revprof-probe: the MPI program 'revprof monitor-probe' runs under
 * librevprof (LD_PRELOAD) with REVPROF_MONITOR_PROBE set: its application
 * ranks run the Bottleneck Offload Interval search inside MPI_Init and
 * exit there (revprof/rp_monitor.c). Without librevprof it does nothing. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    fprintf(stderr, "revprof-probe: not run under librevprof with "
                    "REVPROF_MONITOR_PROBE: nothing probed\n");
  MPI_Finalize();
  return 1;
}
