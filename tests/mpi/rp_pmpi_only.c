/* A program whose MPI calls revprof cannot see, as with language bindings
 * it does not wrap: "pmpi" calls MPI only through PMPI_ names, MPI_Init
 * included; "init" calls MPI_Init and MPI_Finalize, everything else
 * through PMPI_. A ring exchange and a sum, checked; rank 0 prints
 * "pmpi-only MODE: sum S, 0 failed checks". "unwrapped": everything through
 * MPI_ names but one message that rank 0 sends with PMPI_Send to rank 1's
 * MPI_Recv: it arrives without piggyback (its data is not checked: revprof
 * cannot deliver a message without piggyback, see docs/revprof.md). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "pmpi";
  int init = strcmp(mode, "init") == 0, rank, size, bad = 0;
  if (strcmp(mode, "unwrapped") == 0) {
    int x = 7;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      PMPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      printf("pmpi-only %s: done\n", mode);
    MPI_Finalize();
    return 0;
  }
  if (init)
    MPI_Init(&argc, &argv);
  else
    PMPI_Init(&argc, &argv);
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  PMPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0,
                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  bad += got != left;
  int sum = 0;
  PMPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  bad += sum != size * (size - 1) / 2;
  int allbad = 0;
  PMPI_Reduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("pmpi-only %s: sum %d, %d failed checks\n", mode, sum, allbad);
  if (init)
    MPI_Finalize();
  else
    PMPI_Finalize();
  return allbad != 0;
}
