/* A loop of one collective, for comparing librevprof's prediction with
 * SimGrid's smpirun (bench/smpi-coll.sh). Each of ITERS iterations
 * computes (rank r for COMPUTE * (1 + SKEW * r / (P - 1)) seconds: SKEW > 0
 * makes the late ranks decide when the collective ends), then calls FN on
 * D bytes per rank (Allgather, Alltoall: D bytes per block). The
 * computation is declared as in bench_compute.h. Prints "coll FN: P ranks,
 * D bytes, ITERS iterations, T s, N bad" (rank 0, MPI_Wtime: simulated
 * under both tools) after checking every result.
 *   coll_loop allreduce|bcast|reduce|allgather|alltoall|barrier|bcast0 D ITERS
 *             COMPUTE [SKEW] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_compute.h"

static const char *const fns[] = {"allreduce", "bcast",    "reduce",
                                  "allgather", "alltoall", "barrier",
                                  "bcast0"};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, fn = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; argc > 1 && i < 7; i++)
    if (strcmp(argv[1], fns[i]) == 0)
      fn = i;
  if (argc < 5 || fn < 0) {
    if (rank == 0)
      fprintf(stderr, "usage: coll_loop allreduce|bcast|reduce|allgather|"
                      "alltoall|barrier|bcast0 D ITERS COMPUTE [SKEW]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int d = atoi(argv[2]), iters = atoi(argv[3]);
  double work = atof(argv[4]), skew = argc > 5 ? atof(argv[5]) : 0.0;
  if (size > 1)
    work *= 1.0 + skew * rank / (size - 1);
  int n = d / (int)sizeof(int); /* ints per rank (per block) */
  int blocks = fn == 3 || fn == 4 ? size : 1;
  int *in = malloc(((size_t)n * blocks + 1) * sizeof *in);
  int *out = malloc(((size_t)n * blocks + 1) * sizeof *out);
  int bad = 0;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int it = 0; it < iters; it++) {
    compute(work);
    for (int b = 0; b < blocks; b++)
      for (int i = 0; i < n; i++)
        in[b * n + i] = rank + it + b;
    switch (fn) {
    case 0:
      MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      for (int i = 0; i < n; i++)
        bad += out[i] != size * it + size * (size - 1) / 2;
      break;
    case 1:
    case 6: {
      int root = fn == 1 ? it % size : 0;
      MPI_Bcast(in, n, MPI_INT, root, MPI_COMM_WORLD);
      for (int i = 0; i < n; i++)
        bad += in[i] != root + it;
      break;
    }
    case 2:
      MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
      for (int i = 0; rank == 0 && i < n; i++)
        bad += out[i] != size * it + size * (size - 1) / 2;
      break;
    case 3:
      MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
      for (int b = 0; b < size; b++)
        for (int i = 0; i < n; i++)
          bad += out[b * n + i] != b + it;
      break;
    case 4:
      MPI_Alltoall(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
      for (int b = 0; b < size; b++)
        for (int i = 0; i < n; i++)
          bad += out[b * n + i] != b + it + rank;
      break;
    default:
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  double t = MPI_Wtime() - t0;
  double tmax;
  int allbad = bench_outcome(t, bad, &tmax);
  if (rank == 0)
    printf("coll %s: %d ranks, %d bytes, %d iterations, %.9e s, %d bad\n",
           argv[1], size, d, iters, tmax, allbad);
  free(in);
  free(out);
  MPI_Finalize();
  return allbad != 0;
}
