/* How many communicators a program can keep at once: MPI_Comm_dup of
 * MPI_COMM_WORLD until the MPI refuses (errors returned) or N are made,
 * then an MPI_Allreduce on the last one and all freed. Rank 0 prints
 * "communicators: K of N". bench/comm-limit.sh runs it natively and under
 * librevprof, whose shadow communicators take context ids too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
  MPI_Finalize();
  return 0;
}
