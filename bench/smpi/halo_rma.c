/* A one-sided halo exchange on a periodic ring, for comparing librevprof's
 * prediction with SimGrid's smpirun (bench/smpi-onesided.sh). Each of ITERS
 * iterations computes for COMPUTE seconds, then every rank puts D bytes
 * into each neighbour's window, synchronized either by MPI_Win_fence
 * (fence) or by post-start-complete-wait (pscw). The computation is
 * declared, not run: smpi_execute_flops() of COMPUTE seconds on the
 * simulated 1 Gflop/s hosts under SimGrid (built with smpicc, -DRP_SMPI),
 * revprof_compute_seconds() under librevprof (-DRP_REVPROF), a busy loop
 * natively (bench_compute.h). Prints "halo MODE: P ranks, D bytes, ITERS iterations,
 * T s" (rank 0, MPI_Wtime: simulated under both tools) and checks the
 * halos it received.
 *   halo_rma fence|pscw D ITERS COMPUTE */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_compute.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 5 || (strcmp(argv[1], "fence") && strcmp(argv[1], "pscw"))) {
    if (rank == 0)
      fprintf(stderr, "usage: halo_rma fence|pscw D ITERS COMPUTE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int pscw = strcmp(argv[1], "pscw") == 0;
  int d = atoi(argv[2]), iters = atoi(argv[3]);
  double work = atof(argv[4]);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  char *halo, *mine = malloc((size_t)d > 0 ? (size_t)d : 1);
  MPI_Win win;
  /* per iteration parity two halo slots, [0, d) from the left and
     [d, 2d) from the right: after a fence the neighbours may already put
     the next iteration's halos, into the other pair */
  MPI_Win_allocate(4 * (MPI_Aint)d, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &halo,
                   &win);
  MPI_Group world, nb;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int pair[2] = {left, right};
  MPI_Group_incl(world, left == right ? 1 : 2, pair, &nb);
  int bad = 0;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (!pscw)
    MPI_Win_fence(0, win);
  for (int it = 0; it < iters; it++) {
    compute(work);
    memset(mine, (rank + it) & 0x7f, (size_t)d);
    if (pscw) {
      MPI_Win_post(nb, 0, win);
      MPI_Win_start(nb, 0, win);
    }
    MPI_Aint at = (MPI_Aint)(it % 2) * 2 * d;
    MPI_Put(mine, d, MPI_BYTE, right, at, d, MPI_BYTE, win);
    MPI_Put(mine, d, MPI_BYTE, left, at + d, d, MPI_BYTE, win);
    if (pscw) {
      MPI_Win_complete(win);
      MPI_Win_wait(win);
    } else
      MPI_Win_fence(0, win);
    if (d > 0 && (halo[at] != (char)((left + it) & 0x7f) ||
                  halo[at + 2 * d - 1] != (char)((right + it) & 0x7f)))
      bad++;
  }
  double t = MPI_Wtime() - t0;
  double tmax;
  int allbad = bench_outcome(t, bad, &tmax);
  if (rank == 0)
    printf("halo %s: %d ranks, %d bytes, %d iterations, %.9e s, %d bad\n",
           argv[1], size, d, iters, tmax, allbad);
  MPI_Group_free(&nb);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  free(mine);
  MPI_Finalize();
  return allbad != 0;
}
