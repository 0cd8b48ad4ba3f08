/* How many communicators a program can keep at once: MPI_Comm_dup of
 * MPI_COMM_WORLD until the MPI refuses (errors returned) or N are made,
 * then an MPI_Allreduce on the last one and all freed. Rank 0 prints
 * "communicators: K of N". Then R (default 2000) rounds of MPI_Comm_dup
 * and MPI_Comm_free of a duplicate of MPI_COMM_WORLD, timed on the host's
 * clock (MPI_Wtime is the predicted one under librevprof): rank 0 prints
 * "dup+free: T us" (the median of 5 batches, per round).
 * bench/comm-limit.sh runs it natively and under librevprof, whose shadow
 * communicators take context ids and creation time too. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double host_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 5000, rank, k = 0, one = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
  if (c == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  while (k < n && MPI_Comm_dup(MPI_COMM_WORLD, &c[k]) == MPI_SUCCESS)
    k++;
  if (k > 0)
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c[k - 1]);
  if (rank == 0)
    printf("communicators: %d of %d (allreduce on the last: %d)\n", k, n,
           sum);
  for (int i = 0; i < k; i++)
    MPI_Comm_free(&c[i]);
  free(c);

  int rounds = argc > 2 ? atoi(argv[2]) : 2000;
  if (rounds > 0) {
    MPI_Comm parent, dup;
    double batch[5];
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    for (int b = 0; b < 5; b++) {
      MPI_Barrier(parent);
      double t0 = host_now();
      for (int i = 0; i < rounds; i++) {
        MPI_Comm_dup(parent, &dup);
        MPI_Comm_free(&dup);
      }
      batch[b] = (host_now() - t0) / rounds;
    }
    qsort(batch, 5, sizeof batch[0], cmp_double);
    if (rank == 0)
      printf("dup+free: %.2f us\n", batch[2] * 1e6);
    MPI_Comm_free(&parent);
  }
  MPI_Finalize();
  return 0;
}
