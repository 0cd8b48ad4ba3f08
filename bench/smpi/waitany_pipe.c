/* A pipeline of results that rank 0 takes in with MPI_Waitany, for
 * comparing librevprof's prediction of the request Waitany completes with
 * SimGrid's smpirun (bench/smpi-wildcard.sh). Rank 0 posts one MPI_Irecv
 * of D bytes from each other rank (a named source), then calls MPI_Waitany
 * over them (P - 1) * ITERS times; on each completion it sends an 8-byte
 * ack to that source and posts its next receive (until the source has sent
 * ITERS). Each other rank r, ITERS times: computes COST * (1 + (r * 7919 +
 * it * 104729) % 5 + ((3r + it) % 11) / 100) seconds in iteration it (1 to
 * 5.1 times COST, varying by rank and iteration), sends its D bytes to rank 0 and waits for the ack.
 * The computation is declared under the tools: smpi_execute_flops() on the
 * simulated 1 Gflop/s hosts under SimGrid (smpicc -DRP_SMPI),
 * revprof_compute_seconds() under librevprof (-DRP_REVPROF); built with
 * neither it is a real busy loop (clock_gettime, not MPI_Wtime, which is
 * the simulated clock under librevprof). Prints on rank 0
 * "waitany_pipe: P ranks, ITERS iterations, D bytes, T s, schedule H,
 * B bad" (T: the slowest rank's MPI_Wtime difference between a barrier and
 * the end; H: a hash of the (source, iteration) pairs in the order
 * MPI_Waitany completed them, so that two runs with the same H completed
 * them in the same order; B: results whose first or last byte is not
 * their sender's and iteration's).
 *   waitany_pipe ITERS COST [D] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_compute.h"

/* The byte a sender fills its result with in an iteration. */
static char mark(int sender, int it) { return (char)((sender + it) & 0x7f); }

/* Rank 0: takes in iters results from each of the size - 1 others; returns
 * the number of bad results, *h the completion order's hash. */
static int collect(int size, int iters, char *in, int d, uint64_t *h) {
  int n = size - 1, bad = 0;
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n);
  int *got = calloc((size_t)n, sizeof(int));
  if (req == NULL || got == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int j = 0; j < n; j++)
    MPI_Irecv(in + (size_t)j * (size_t)d, d, MPI_BYTE, j + 1, 0, MPI_COMM_WORLD,
              &req[j]);
  for (long done = 0; done < (long)n * iters; done++) {
    int j;
    MPI_Status st;
    MPI_Waitany(n, req, &j, &st);
    if (j == MPI_UNDEFINED)
      MPI_Abort(MPI_COMM_WORLD, 3);
    int src = j + 1, it = got[j]++;
    const char *r = in + (size_t)j * (size_t)d;
    bad += st.MPI_SOURCE != src ||
           (d > 0 && (r[0] != mark(src, it) || r[d - 1] != mark(src, it)));
    *h = hash(hash(*h, src), it);
    MPI_Send(&it, 1, MPI_INT, src, 1, MPI_COMM_WORLD);
    if (got[j] < iters)
      MPI_Irecv(in + (size_t)j * (size_t)d, d, MPI_BYTE, src, 0, MPI_COMM_WORLD,
                &req[j]);
  }
  free(got);
  free(req);
  return bad;
}

/* Another rank: iters rounds of computation, result, ack. */
static int produce(int rank, int iters, double base, char *out, int d) {
  int bad = 0;
  for (int it = 0; it < iters; it++) {
    compute(base * (1 + (int)(((long)rank * 7919 + (long)it * 104729) % 5) +
                    0.01 * ((rank * 3 + it) % 11))); /* no near-ties */
    memset(out, mark(rank, it), (size_t)d);
    MPI_Send(out, d, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    int ack;
    MPI_Recv(&ack, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    bad += ack != it;
  }
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iters = argc >= 3 ? atoi(argv[1]) : 0;
  double base = argc >= 3 ? atof(argv[2]) : -1.0;
  int d = argc >= 4 ? atoi(argv[3]) : 16;
  if (iters < 1 || base < 0.0 || d < 0 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: waitany_pipe ITERS COST [D] (2 ranks or"
                      " more)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t slot = d > 0 ? (size_t)d : 1;
  char *buf = malloc(rank == 0 ? (size_t)(size - 1) * slot : slot);
  if (buf == NULL) {
    fprintf(stderr, "waitany_pipe: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int bad = 0;
  uint64_t h = 14695981039346656037u;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank == 0)
    bad = collect(size, iters, buf, d, &h);
  else
    bad = produce(rank, iters, base, buf, d);
  double t = MPI_Wtime() - t0;
  double tmax;
  int allbad = bench_outcome(t, bad, &tmax);
  if (rank == 0)
    printf("waitany_pipe: %d ranks, %d iterations, %d bytes, %.9e s,"
           " schedule %016llx, %d bad\n",
           size, iters, d, tmax, (unsigned long long)h, allbad);
  free(buf);
  MPI_Finalize();
  return allbad != 0;
}
