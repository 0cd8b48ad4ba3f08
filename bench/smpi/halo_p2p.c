/* Point-to-point exchanges whose messages overlap, for comparing
 * librevprof's prediction with SimGrid's smpirun (bench/smpi-p2p.sh) and
 * with native runs (bench/p2p-native.sh). Six cases, each
 * repeated ITERS times between two MPI_Wtime calls, after WARM untimed
 * iterations (default 1):
 *   halo     every rank posts K MPI_Irecv and K MPI_Isend of D bytes to its
 *            neighbours on a periodic ring at distances +1, -1, +2, -2, ...
 *            (tag j for the j-th), then one MPI_Waitall; where K >= P the
 *            distances wrap round to 1 and neighbours repeat (at P = 2
 *            all K go to the other rank)
 *   halowait the same halo completed as HPCCG and LULESH complete theirs:
 *            one MPI_Wait per receive in the order posted, then one per
 *            send
 *   train    rank 0 sends K messages of D bytes to rank 1 (MPI_Isend,
 *            MPI_Waitall), rank 1 pre-posts K MPI_Irecv and waits for all;
 *            the other ranks only start and stop the clock
 *   incast   every other rank sends K messages of D bytes to rank 0
 *            (MPI_Isend, MPI_Waitall); rank 0 has posted their receives,
 *            source by source, and completes them one MPI_Wait each in
 *            that order (messages that reach one endpoint together)
 *   stencil  a periodic 2-D grid (MPI_Dims_create): COMPUTE seconds of
 *            computation, D bytes to each of the 4 grid neighbours
 *            (Irecv, Isend, Waitall), an 8-byte MPI_Allreduce; K unused
 *   ssend    rank 0 sends K messages of D bytes to rank 1 with MPI_Ssend,
 *            then computes K x COMPUTE seconds; rank 1 computes COMPUTE
 *            seconds before each blocking MPI_Recv (a receiver that posts
 *            late: each synchronous send waits for it, so rank 0 starts
 *            its own work only when rank 1 has posted its last receive)
 *   send     the same with MPI_Send: a standard send waits as well from
 *            the eager limit on (SimGrid's 64 KiB), not below it
 * The computation is declared under the tools: smpi_execute_flops() on the
 * simulated 1 Gflop/s hosts under SimGrid (smpicc -DRP_SMPI),
 * revprof_compute_seconds() under librevprof (-DRP_REVPROF); built with
 * neither it is a real busy loop of COMPUTE seconds (clock_gettime, not
 * MPI_Wtime, which is the simulated clock under librevprof). Prints
 * "halo_p2p CASE: P ranks, K k, D bytes, ITERS iterations, T s, B bad" on
 * rank 0 (T: the slowest rank's MPI_Wtime difference; B: received halos
 * whose first or last byte is not their sender's), and, built with neither
 * tool, "halo_p2p fill: F s" (F: the real time rank 0 spent writing its
 * send buffer in the timed iterations, which librevprof measures as
 * computation).
 *   halo_p2p halo|halowait|train|incast|stencil|ssend|send D ITERS K COMPUTE
 *            [WARM] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_compute.h"

enum { HALO, HALOWAIT, TRAIN, INCAST, STENCIL, SSEND, SEND };
static const char *const case_names[] = {"halo",    "halowait", "train",
                                         "incast",  "stencil",  "ssend",
                                         "send"};

/* Real seconds rank 0 spent writing its send buffer in the timed
 * iterations; the plain build only (0 under the tools). */
static double fill_s;
static double fill_clock(void) {
#if !defined(RP_SMPI) && !defined(RP_REVPROF)
  return now();
#else
  return 0.0;
#endif
}

/* The byte a sender fills its halo with in an iteration. */
static char mark(int sender, int it) { return (char)((sender + it) & 0x7f); }

/* Peers of one exchange: message j goes to to[j] and comes from from[j],
 * with tag j, so that repeated peers still match one to one. */
typedef struct peers {
  int n;     /* messages each way */
  int *to;   /* destination rank of message j */
  int *from; /* source rank of receive j */
} peers;

/* Ring neighbours at distances +1, -1, +2, -2, ..., +(size - 1),
 * -(size - 1), then again from +1: never the rank itself. */
static void ring_peers(peers *p, int rank, int size) {
  for (int j = 0; j < p->n; j++) {
    int dist = j / 2 % (size - 1) + 1, dir = j % 2 ? -1 : 1;
    p->to[j] = ((rank + dir * dist) % size + size) % size;
    p->from[j] = ((rank - dir * dist) % size + size) % size;
  }
}

/* The 4 neighbours on a periodic 2-D grid of MPI_Dims_create's shape; the
 * j-th message travels in direction j (up, down, left, right). */
static void grid_peers(peers *p, int rank, int size) {
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  int r = rank / dims[1], c = rank % dims[1];
  int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
  for (int j = 0; j < 4; j++) {
    int tr = (r + dr[j] + dims[0]) % dims[0];
    int tc = (c + dc[j] + dims[1]) % dims[1];
    int fr = (r - dr[j] + dims[0]) % dims[0];
    int fc = (c - dc[j] + dims[1]) % dims[1];
    p->to[j] = tr * dims[1] + tc;
    p->from[j] = fr * dims[1] + fc;
  }
}

/* MPI_Waitall with statuses (MPICH's MPI_STATUSES_IGNORE trips GCC's
 * array bound check). */
static void waitall(int n, MPI_Request *req) {
  static MPI_Status *st;
  static int cap;
  if (n > cap) {
    free(st);
    st = malloc((size_t)n * sizeof *st);
    cap = st ? n : 0;
    if (st == NULL)
      MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Waitall(n, req, st);
}

/* One exchange of d bytes with every peer: all receives, all sends, one
 * MPI_Waitall (one MPI_Wait per request, in order, when one_by_one);
 * returns the number of received halos not as sent. */
static int exchange(const peers *p, char *out, char *in, int d, int it,
                    MPI_Request *req, int one_by_one) {
  for (int j = 0; j < p->n; j++)
    MPI_Irecv(in + (size_t)j * (size_t)d, d, MPI_BYTE, p->from[j], j,
              MPI_COMM_WORLD, &req[j]);
  for (int j = 0; j < p->n; j++)
    MPI_Isend(out, d, MPI_BYTE, p->to[j], j, MPI_COMM_WORLD, &req[p->n + j]);
  if (one_by_one)
    for (int j = 0; j < 2 * p->n; j++)
      MPI_Wait(&req[j], MPI_STATUS_IGNORE);
  else
    waitall(2 * p->n, req);
  int bad = 0;
  for (int j = 0; j < p->n && d > 0; j++) {
    const char *h = in + (size_t)j * (size_t)d;
    bad += h[0] != mark(p->from[j], it) || h[d - 1] != mark(p->from[j], it);
  }
  return bad;
}

/* Rank 0 sends n messages of d bytes to rank 1, which has posted their
 * receives; returns the number of messages not as sent. */
static int train(int rank, int n, char *out, char *in, int d, int it,
                 MPI_Request *req) {
  if (rank == 1) {
    for (int j = 0; j < n; j++)
      MPI_Irecv(in + (size_t)j * (size_t)d, d, MPI_BYTE, 0, j, MPI_COMM_WORLD,
                &req[j]);
    waitall(n, req);
    int bad = 0;
    for (int j = 0; j < n && d > 0; j++) {
      const char *h = in + (size_t)j * (size_t)d;
      bad += h[0] != mark(0, it) || h[d - 1] != mark(0, it);
    }
    return bad;
  }
  if (rank == 0) {
    for (int j = 0; j < n; j++)
      MPI_Isend(out, d, MPI_BYTE, 1, j, MPI_COMM_WORLD, &req[j]);
    waitall(n, req);
  }
  return 0;
}

/* Every other rank sends n messages of d bytes to rank 0, which completes
 * their receives one MPI_Wait each, source by source; returns the number
 * of messages not as sent. */
static int incast(int rank, int size, int n, char *out, char *in, int d,
                  int it, MPI_Request *req) {
  if (rank != 0) {
    for (int j = 0; j < n; j++)
      MPI_Isend(out, d, MPI_BYTE, 0, j, MPI_COMM_WORLD, &req[j]);
    waitall(n, req);
    return 0;
  }
  int m = (size - 1) * n, bad = 0;
  for (int i = 0; i < m; i++)
    MPI_Irecv(in + (size_t)i * (size_t)d, d, MPI_BYTE, 1 + i / n, i % n,
              MPI_COMM_WORLD, &req[i]);
  for (int i = 0; i < m; i++)
    MPI_Wait(&req[i], MPI_STATUS_IGNORE);
  for (int i = 0; i < m && d > 0; i++) {
    const char *h = in + (size_t)i * (size_t)d;
    bad += h[0] != mark(1 + i / n, it) || h[d - 1] != mark(1 + i / n, it);
  }
  return bad;
}

/* Rank 0 MPI_Ssends (sync) or MPI_Sends n messages of d bytes to rank 1,
 * then computes n x work seconds; rank 1 computes work seconds before
 * each receive; returns the number of messages not as sent. */
static int ssend(int rank, int n, char *out, char *in, int d, int it,
                 double work, int sync) {
  int bad = 0;
  for (int j = 0; j < n; j++)
    if (rank == 0 && sync)
      MPI_Ssend(out, d, MPI_BYTE, 1, j, MPI_COMM_WORLD);
    else if (rank == 0)
      MPI_Send(out, d, MPI_BYTE, 1, j, MPI_COMM_WORLD);
    else if (rank == 1) {
      compute(work);
      MPI_Recv(in, d, MPI_BYTE, 0, j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      bad += d > 0 && (in[0] != mark(0, it) || in[d - 1] != mark(0, it));
    }
  if (rank == 0)
    compute(n * work);
  return bad;
}

/* One iteration of the case (kind), its allreduced sum added to *sum;
 * returns the number of received halos not as sent. */
static int iteration(int kind, int rank, int size, const peers *p,
                     char *out, char *in, int d, int it, double work,
                     MPI_Request *req, double *sum) {
  int bad;
  double f0 = fill_clock();
  memset(out, mark(rank, it), (size_t)d);
  fill_s += fill_clock() - f0;
  if (kind == TRAIN)
    return train(rank, p->n, out, in, d, it, req);
  if (kind == INCAST)
    return incast(rank, size, p->n, out, in, d, it, req);
  if (kind == SSEND || kind == SEND)
    return ssend(rank, p->n, out, in, d, it, work, kind == SSEND);
  if (kind == STENCIL)
    compute(work);
  bad = exchange(p, out, in, d, it, req, kind == HALOWAIT);
  if (kind == STENCIL) {
    double local = (double)rank, all;
    MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *sum += all;
  }
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int kind = -1, d = 0, iters = 0, k = 0, warmups = 1;
  double work = 0.0; /* seconds of computation per stencil iteration */
  if (argc >= 6) {
    for (int i = HALO; i <= SEND; i++)
      if (strcmp(argv[1], case_names[i]) == 0)
        kind = i;
    d = atoi(argv[2]);
    iters = atoi(argv[3]);
    k = atoi(argv[4]);
    work = atof(argv[5]);
    if (argc >= 7)
      warmups = atoi(argv[6]);
  }
  if (kind < 0 || d < 0 || iters < 1 || (kind != STENCIL && k < 1) ||
      warmups < 0 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: halo_p2p halo|halowait|train|incast|stencil|"
                      "ssend|send D ITERS K COMPUTE [WARM] (2 ranks or "
                      "more)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int n = kind == STENCIL ? 4 : k; /* messages each way per rank */
  peers p = {n, malloc(sizeof(int) * (size_t)n),
             malloc(sizeof(int) * (size_t)n)};
  char *out = malloc(d > 0 ? (size_t)d : 1);
  /* messages this rank receives in one iteration (and requests) */
  size_t nin = kind == INCAST ? (rank == 0 ? (size_t)(size - 1) * (size_t)n : 0)
                              : (size_t)n;
  char *in = malloc((nin > 0 ? nin : 1) * (d > 0 ? (size_t)d : 1));
  MPI_Request *req =
      malloc(sizeof(MPI_Request) * (nin > (size_t)n ? nin : 2 * (size_t)n));
  if (!p.to || !p.from || !out || !in || !req) {
    fprintf(stderr, "halo_p2p: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (kind == HALO || kind == HALOWAIT)
    ring_peers(&p, rank, size);
  else if (kind == STENCIL)
    grid_peers(&p, rank, size);
  int bad = 0;
  double sum = 0.0, warm = 0.0;

  /* untimed iterations: the first messages between two ranks and the
     first touch of the buffers cost more (natively), which the steady
     state the rules describe does not */
  for (int w = 0; w < warmups; w++)
    bad += iteration(kind, rank, size, &p, out, in, d, iters, work, req, &warm);
  fill_s = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int it = 0; it < iters; it++)
    bad += iteration(kind, rank, size, &p, out, in, d, it, work, req, &sum);
  double t = MPI_Wtime() - t0;
  if (kind == STENCIL && sum != (double)iters * size * (size - 1) / 2)
    bad++;
  double tmax;
  int allbad = bench_outcome(t, bad, &tmax);
  if (rank == 0)
    printf("halo_p2p %s: %d ranks, %d k, %d bytes, %d iterations, %.9e s,"
           " %d bad\n",
           case_names[kind], size, n, d, iters, tmax, allbad);
  if (rank == 0 && fill_s > 0.0)
    printf("halo_p2p fill: %.9e s\n", fill_s);
  free(req);
  free(in);
  free(out);
  free(p.from);
  free(p.to);
  MPI_Finalize();
  return allbad != 0;
}
