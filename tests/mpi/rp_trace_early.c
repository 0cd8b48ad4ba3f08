/* A run that ends early for the trace tests: a ring of messages, then every
 * rank exits without MPI_Finalize, so its trace must end marked partial. */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size;
  double x = 1.0, y = 0.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 3; k++)
    MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, k, &y, 1, MPI_DOUBLE,
                 (rank + size - 1) % size, k, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d leaves without MPI_Finalize\n", rank);
  fflush(stdout);
  exit(0);
}
