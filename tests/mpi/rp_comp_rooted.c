/* Compensate mode's rule for rooted collectives: the delays of the other
 * ranks reach a member the way the data does. Each rank makes N calls of
 * MPI_Wtime (compensate-mode events) with an injected overhead per event
 * that depends on its rank (REVPROF_INJECT_OVERHEAD, set here before
 * MPI_Init from the launcher's rank variable: 4 us on rank 0, 2 us on rank
 * 1, none on the others), so the delays are ordered d0 > d1 > d2; then the
 * root, rank 0, busy-waits 0.3 s of real time, so the others wait for it
 * in the collective named by argv[1] (bcast, scatter, gather, allreduce;
 * argv[2]: doubles per member, default 1). Rank 0 prints
 * "comp-rooted: COLL N ranks, K failed checks" (the data). At least 3
 * ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  if (r == NULL)
    r = getenv("PMI_RANK");
  if (r != NULL) {
    int wr = atoi(r);
    setenv("REVPROF_INJECT_OVERHEAD", wr == 0 ? "4e-6" : wr == 1 ? "2e-6" : "0",
           1);
  }
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *coll = argc > 1 ? argv[1] : "bcast";
  int n = argc > 2 ? atoi(argv[2]) : 1;
  if (size < 3 || r == NULL || n < 1) {
    if (rank == 0)
      printf("comp-rooted: needs 3 ranks or more, the launcher's rank "
             "variable and a count >= 1\n");
    MPI_Finalize();
    return 1;
  }
  for (int i = 0; i < 100000; i++)
    MPI_Wtime(); /* an event each, injected overhead included */
  if (rank == 0)
    for (double t0 = now(); now() - t0 < 0.3;)
      ;
  double *mine = malloc(sizeof(double) * (size_t)n);
  double *all = malloc(sizeof(double) * (size_t)n * (size_t)size);
  for (int i = 0; i < n; i++)
    mine[i] = rank + 0.5 * i;
  for (int j = 0; j < n * size; j++)
    all[j] = (double)(j / n) + 0.5 * (j % n);
  if (strcmp(coll, "bcast") == 0) {
    if (rank != 0)
      for (int i = 0; i < n; i++)
        mine[i] = -1;
    MPI_Bcast(mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
      bad += mine[i] != 0.5 * i;
  } else if (strcmp(coll, "scatter") == 0) {
    MPI_Scatter(all, n, MPI_DOUBLE, mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
      bad += mine[i] != rank + 0.5 * i;
  } else if (strcmp(coll, "gather") == 0) {
    if (rank == 0)
      memset(all, 0, sizeof(double) * (size_t)n * (size_t)size);
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int j = 0; rank == 0 && j < n * size; j++)
      bad += all[j] != (double)(j / n) + 0.5 * (j % n);
  } else {
    MPI_Allreduce(MPI_IN_PLACE, mine, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
      bad += mine[i] != size - 1 + 0.5 * i;
  }
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("comp-rooted: %s %d ranks, %d failed checks\n", coll, size, total);
  free(mine);
  free(all);
  MPI_Finalize();
  return 0;
}
