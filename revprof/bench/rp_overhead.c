/* librevprof's overhead on a ping-pong, side by side in one run: rounds
 * alternate between the native library (PMPI_Send / PMPI_Recv, what a
 * program without revprof calls) and the wrapped one (MPI_Send / MPI_Recv
 * through librevprof: clock rules and piggyback). Prints the best one-way
 * latency of each per message size and their ratio. Run on 2 ranks with
 * REVPROF_MODEL set (bench/pingpong-overhead.sh does it), or in sample mode
 * (bench/sampling.sh).
 * usage: rp_bench_overhead [ROUNDS [PINGPONGS_AT_8B [SIZES]]]
 * SIZES: message sizes in bytes, comma-separated (default
 * 8,1024,65536,1048576); ping-pongs per round at each size:
 * PINGPONGS_AT_8B / (1 + bytes / 8192), at least 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "revprof.h"

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm,
                       MPI_Status *);

/* Best one-way latency over reps ping-pongs of n bytes, seconds. */
static double pingpong(int rank, char *buf, int n, int reps, send_fn snd,
                       recv_fn rcv) {
  PMPI_Barrier(MPI_COMM_WORLD);
  double t0 = PMPI_Wtime();
  for (int i = 0; i < reps; i++) {
    if (rank == 0) {
      snd(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      rcv(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      rcv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      snd(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  }
  double t = (PMPI_Wtime() - t0) / (2.0 * reps);
  PMPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* rank 0's figure */
  return t;
}

/* The sizes of a comma-separated list into sizes[max]; their count, or -1
 * for a bad list (a size not a number in [0, 1 GiB]). */
static int parse_sizes(const char *text, int *sizes, int max) {
  int n = 0;
  for (const char *p = text; *p; n++) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0 || v > (1L << 30) || n == max ||
        (*end != ',' && *end != '\0'))
      return -1;
    sizes[n] = (int)v;
    p = *end ? end + 1 : end;
  }
  return n;
}

int main(int argc, char **argv) {
  int sizes[32] = {8, 1024, 65536, 1048576}, nsizes = 4;
  int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 15;
  long budget = argc > 2 ? atol(argv[2]) : 20000; /* ping-pongs at 8 B */
  const char *mode = getenv("REVPROF_MODE");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0)
      fprintf(stderr, "rp_overhead: run on 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (argc > 3 && (nsizes = parse_sizes(argv[3], sizes, 32)) < 1) {
    if (rank == 0)
      fprintf(stderr, "rp_overhead: bad SIZES '%s' (bytes, comma-separated)\n",
              argv[3]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0)
    printf("# librevprof %s (REVPROF_MODE=%s); best of %d alternating rounds\n"
           "%10s %14s %14s %10s\n",
           revprof_enabled() ? "on" : "OFF (pass-through)",
           mode ? mode : "predict", rounds, "bytes", "native us", "revprof us",
           "ratio");
  for (int s = 0; s < nsizes; s++) {
    int n = sizes[s];
    int reps = (int)(budget / (1 + n / 8192));
    if (reps < 1)
      reps = 1;
    char *buf = calloc((size_t)n, 1);
    double best[2] = {1e30, 1e30};
    pingpong(rank, buf, n, reps / 4 + 1, PMPI_Send, PMPI_Recv); /* warm */
    pingpong(rank, buf, n, reps / 4 + 1, MPI_Send, MPI_Recv);
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < 2; k++) {
        int w = (r + k) % 2; /* alternate which goes first */
        double t = w ? pingpong(rank, buf, n, reps, MPI_Send, MPI_Recv)
                     : pingpong(rank, buf, n, reps, PMPI_Send, PMPI_Recv);
        if (t < best[w])
          best[w] = t;
      }
    if (rank == 0)
      printf("%10d %14.3f %14.3f %10.3f\n", n, best[0] * 1e6, best[1] * 1e6,
             best[1] / best[0]);
    free(buf);
  }
  MPI_Finalize();
  return 0;
}
