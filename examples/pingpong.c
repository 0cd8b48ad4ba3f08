/* Ping-pong: ranks 2k and 2k+1 bounce messages of 0 B to --max bytes and
 * report half the round trip per size (from rank 0's pair), the quantity a
 * machine model calls latency; an odd last rank sits out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

int main(int argc, char **argv) {
  long maxbytes = 1 << 20, reps = 100;
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    long *dst = NULL;
    if (i + 1 < argc && strcmp(argv[i], "--max") == 0)
      dst = &maxbytes;
    else if (i + 1 < argc && strcmp(argv[i], "--reps") == 0)
      dst = &reps;
    if (dst)
      *dst = strtol(argv[++i], &end, 10);
    if (!dst || *end || *dst < 1 || *dst > (1l << 28)) {
      if (rank == 0)
        fprintf(stderr, "usage: pingpong [--max BYTES] [--reps N]\n"
                        "  sizes 0, 1, 2, 4, ... up to BYTES (default "
                        "1 MiB), N round trips each (default 100)\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (size < 2) {
    if (rank == 0)
      fprintf(stderr, "pingpong: needs at least 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  int peer = rank % 2 ? rank - 1 : rank + 1;
  int active = peer < size;
  unsigned char *buf = malloc((size_t)maxbytes);
  if (!buf) {
    fprintf(stderr, "pingpong: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double checksum = 0.0;
  if (rank == 0)
    printf("pingpong: ranks %d reps %ld\n%12s %16s %14s\n", size, reps,
           "bytes", "half RTT (s)", "MB/s");
  for (long bytes = 0; bytes <= maxbytes; bytes = bytes ? 2 * bytes : 1) {
    for (long i = 0; i < bytes; i++)
      buf[i] = (unsigned char)(rank + i + bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long r = 0; active && r < reps; r++) {
      if (rank % 2 == 0) {
        MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      }
    }
    double half = (MPI_Wtime() - t0) / (2.0 * (double)reps);
    for (long i = 0; i < bytes; i++)
      checksum += buf[i];
    if (rank == 0)
      printf("%12ld %16.9e %14.2f\n", bytes, half,
             half > 0 ? (double)bytes / half / 1e6 : 0.0);
  }
  double total;
  MPI_Reduce(&checksum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("pingpong: checksum %.10e\n", total);
  free(buf);
  MPI_Finalize();
  return 0;
}
