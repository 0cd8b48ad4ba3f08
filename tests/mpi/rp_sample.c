/* Sample mode (REVPROF_MODE=sample, issue 10): a known pattern of messages
 * whose count, sizes and delays the checks (rp_check.sh sample) compare
 * with latency.csv and sample.txt.
 *
 * [count] (the default): on a ring, each rank sends its right neighbour
 * ROUNDS blocking 8-byte messages (MPI_Send/MPI_Recv), ROUNDS 1 KiB ones
 * by MPI_Isend/MPI_Irecv/MPI_Waitall, ROUNDS 64-byte ones through
 * persistent requests, and ROUNDS 16-byte ones by MPI_Sendrecv; prints
 * "sample count: P ranks, N messages" (N: all ranks). [set] (the build
 * linked with librevprof): the same, sampling every message by
 * revprof_sample_set("all") until the MPI_Sendrecv part, none by
 * revprof_sample_set("off") from there; a bad text must be refused.
 * [delay]: rank 0 sends DELAYED messages of 3000 bytes to rank 1, which
 * sleeps DELAY_MS before each receive (the message waits there); prints
 * "sample delay: ...". Their latency is at least DELAY_MS.
 * [partitioned] (MPI 4): on a ring, ROUNDS partitioned messages of
 * PARTS partitions of 64 bytes (MPI_Psend_init/MPI_Precv_init, each
 * started ROUNDS times, partitions made ready one by one); prints "sample
 * partitioned: P ranks, N messages, B bad", or "... not available" with
 * an MPI before 4.
 * [burst]: rank 0 sends rank 1 BURSTS bursts of BURST messages, BURST_MS
 * ms apart, message k of a burst 2^k bytes (size class k + 1 tells its
 * place in the burst): a counter of BURST without jitter samples the same
 * place of every burst (aliasing with the program's period), one with
 * jitter several places. (The timer's version of this pathology is a unit
 * test with a synthetic clock, tests/unit/test_sample_rule.c: a real
 * sleep's overshoot would make it a test of the host's scheduler.)
 * [coll]: collectives alone (ROUNDS of MPI_Bcast and MPI_Allreduce), no
 * point-to-point message: sample mode has nothing to stamp and must say
 * why; prints "sample coll: P ranks, N calls, B bad". */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef RP_LINKED
#include "revprof.h"
#endif

#define ROUNDS 100
#define DELAYED 10
#define DELAY_MS 20
#define BURSTS 40
#define BURST 8
#define BURST_MS 1

static void sleep_ms(double ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

#ifdef RP_LINKED
static int set_api; /* [set] */
#endif

static int count_pattern(int rank, int p) {
  int right = (rank + 1) % p, left = (rank + p - 1) % p, bad = 0;
  char a[1024], b[1024];
  MPI_Status sts[2]; /* (not MPI_STATUSES_IGNORE: GCC 12 on MPICH's header) */
  for (int i = 0; i < ROUNDS; i++) { /* blocking, 8 bytes */
    memset(a, i & 0x7f, 8);
    if (rank % 2 == 0) {
      MPI_Send(a, 8, MPI_CHAR, right, 1, MPI_COMM_WORLD);
      MPI_Recv(b, 8, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(b, 8, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(a, 8, MPI_CHAR, right, 1, MPI_COMM_WORLD);
    }
    bad += b[7] != (char)(i & 0x7f);
  }
  for (int i = 0; i < ROUNDS; i++) { /* non-blocking, 1 KiB */
    MPI_Request rq[2];
    memset(a, (i + 1) & 0x7f, sizeof a);
    MPI_Irecv(b, (int)sizeof b, MPI_CHAR, left, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(a, (int)sizeof a, MPI_CHAR, right, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, sts);
    bad += b[1023] != (char)((i + 1) & 0x7f);
  }
  MPI_Request pr[2];
  MPI_Recv_init(b, 64, MPI_CHAR, left, 3, MPI_COMM_WORLD, &pr[0]);
  MPI_Send_init(a, 64, MPI_CHAR, right, 3, MPI_COMM_WORLD, &pr[1]);
  for (int i = 0; i < ROUNDS; i++) { /* persistent, 64 bytes */
    memset(a, (i + 2) & 0x7f, 64);
    MPI_Startall(2, pr);
    MPI_Waitall(2, pr, sts);
    bad += b[63] != (char)((i + 2) & 0x7f);
  }
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
#ifdef RP_LINKED
  if (set_api)
    bad += revprof_sample_set("off") != 0;
#endif
  for (int i = 0; i < ROUNDS; i++) { /* Sendrecv, 16 bytes */
    memset(a, (i + 3) & 0x7f, 16);
    MPI_Sendrecv(a, 16, MPI_CHAR, right, 4, b, 16, MPI_CHAR, left, 4,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    bad += b[15] != (char)((i + 3) & 0x7f);
  }
  return bad;
}

/* [partitioned]: the number of received partitions not as sent */
#define PARTS 4
static int partitioned_pattern(int rank, int p) {
  int bad = 0;
#if MPI_VERSION >= 4
  int right = (rank + 1) % p, left = (rank + p - 1) % p;
  char a[PARTS * 64], b[PARTS * 64];
  MPI_Request rq[2];
  MPI_Status sts[2];
  MPI_Precv_init(b, PARTS, 64, MPI_CHAR, left, 6, MPI_COMM_WORLD,
                 MPI_INFO_NULL, &rq[0]);
  MPI_Psend_init(a, PARTS, 64, MPI_CHAR, right, 6, MPI_COMM_WORLD,
                 MPI_INFO_NULL, &rq[1]);
  for (int i = 0; i < ROUNDS; i++) {
    MPI_Startall(2, rq);
    for (int k = 0; k < PARTS; k++) {
      memset(a + 64 * k, (i + k) & 0x7f, 64);
      MPI_Pready(k, rq[1]);
    }
    MPI_Waitall(2, rq, sts);
    for (int k = 0; k < PARTS; k++)
      bad += b[64 * k + 63] != (char)((i + k) & 0x7f);
  }
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
#else
  (void)rank;
  (void)p;
#endif
  return bad;
}

int main(int argc, char **argv) {
  int rank, p, bad = 0, all;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char *what = argc > 1 ? argv[1] : "count";
  if (p < 2) {
    fprintf(stderr, "rp_sample: 2 ranks or more\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(what, "count") == 0 || strcmp(what, "set") == 0) {
#ifdef RP_LINKED
    set_api = strcmp(what, "set") == 0;
    if (set_api)
      bad += revprof_sample_set("all") != 0 ||
             revprof_sample_set("random:1.5") == 0;
#endif
    bad += count_pattern(rank, p);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("sample count: %d ranks, %d messages, %d bad\n", p,
             4 * ROUNDS * p, all);
  } else if (strcmp(what, "partitioned") == 0) {
#if MPI_VERSION >= 4
    bad += partitioned_pattern(rank, p);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("sample partitioned: %d ranks, %d messages, %d bad\n", p,
             ROUNDS * p, all);
#else
    bad += partitioned_pattern(rank, p);
    if (rank == 0)
      printf("sample partitioned: not available (MPI %d)\n", MPI_VERSION);
#endif
  } else if (strcmp(what, "delay") == 0) {
    char buf[3000];
    memset(buf, 7, sizeof buf);
    for (int i = 0; i < DELAYED; i++) {
      if (rank == 0)
        MPI_Send(buf, (int)sizeof buf, MPI_CHAR, 1, 5, MPI_COMM_WORLD);
      else if (rank == 1) {
        sleep_ms(DELAY_MS);
        MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, 0, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
      printf("sample delay: %d messages of %d bytes, %d ms late\n", DELAYED,
             (int)sizeof buf, DELAY_MS);
  } else if (strcmp(what, "burst") == 0) {
    char buf[1 << (BURST - 1)];
    memset(buf, 1, sizeof buf);
    for (int i = 0; i < BURSTS; i++) {
      for (int k = 0; k < BURST; k++) {
        if (rank == 0)
          MPI_Send(buf, 1 << k, MPI_CHAR, 1, 6, MPI_COMM_WORLD);
        else if (rank == 1)
          MPI_Recv(buf, 1 << k, MPI_CHAR, 0, 6, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      }
      if (rank == 0)
        sleep_ms(BURST_MS);
    }
    if (rank == 0)
      printf("sample burst: %d bursts of %d messages every %d ms\n", BURSTS,
             BURST, BURST_MS);
  } else if (strcmp(what, "coll") == 0) {
    for (int i = 0; i < ROUNDS; i++) {
      int v = rank == 0 ? i : -1, sum;
      MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
      MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      bad += v != i || sum != i * p;
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("sample coll: %d ranks, %d calls, %d bad\n", p, 2 * ROUNDS,
             all);
  } else if (strcmp(what, "edges") == 0) {
    /* where a sampled message's stamp has no shadow to follow it on: a
       message to itself on MPI_COMM_SELF (stamped all the same), one on
       an inter-communicator (not sampled, flagged sample-lost); and one
       received by MPI_Mprobe + MPI_Mrecv (the stamp on the probed
       message's communicator) */
    int v = rank + 10, w = -1;
    MPI_Request rq;
    MPI_Irecv(&w, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &rq);
    MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_SELF);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    bad += w != v;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7,
                         &inter);
    int hr;
    MPI_Comm_rank(half, &hr);
    if (hr == 0) {
      w = -1;
      MPI_Sendrecv(&v, 1, MPI_INT, 0, 2, &w, 1, MPI_INT, 0, 2, inter,
                   MPI_STATUS_IGNORE);
      bad += w != (rank % 2 ? 10 : 11);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    if (rank == 1)
      MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    else if (rank == 0) {
      MPI_Message msg;
      MPI_Mprobe(1, 3, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
      MPI_Mrecv(&w, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
      bad += w != 11;
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("sample edges: %d ranks, %d bad\n", p, all);
  } else {
    if (rank == 0)
      fprintf(stderr, "rp_sample: count, set, partitioned, delay, burst, "
                      "coll or edges\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return bad != 0;
}
