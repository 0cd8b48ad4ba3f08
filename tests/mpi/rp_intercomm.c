/* Collectives on an inter-communicator under librevprof: the two halves of
 * MPI_COMM_WORLD (even and odd ranks) joined by MPI_Intercomm_create; a
 * broadcast from the even group's first rank (MPI_ROOT) to the odd group,
 * an MPI_Allreduce across the groups and a barrier, each checked. Rank 0
 * prints "intercomm: N ranks, K failed checks". At least 2 ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0)
      printf("intercomm: needs 2 ranks or more\n");
    MPI_Finalize();
    return 1;
  }
  int color = rank % 2, lrank;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Comm_rank(half, &lrank);
  /* the other group's leader: world rank 1 for the evens, 0 for the odds */
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  int v[4] = {0, 0, 0, 0};
  if (color == 0) {
    if (lrank == 0)
      v[0] = 42, v[3] = 43;
    MPI_Bcast(v, 4, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  } else {
    MPI_Bcast(v, 4, MPI_INT, 0, inter);
    bad += v[0] != 42 || v[3] != 43;
  }
  /* each group gets the sum of the other group's contributions */
  int one = 1, got = 0, remote;
  MPI_Comm_remote_size(inter, &remote);
  MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, inter);
  bad += got != remote;
  MPI_Barrier(inter);
  int all = 0;
  MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("intercomm: %d ranks, %d failed checks\n", size, all);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return all != 0;
}
