/* Exchange patterns that must survive librevprof's piggyback encodings
 * (copy up to REVPROF_PACK_MAX, struct datatype above it and for derived
 * types). Plain MPI; run natively or with LD_PRELOAD=librevprof.so.
 *
 *   rp_exchange sendrecv [ITERS]   the CoMD halo pattern (issue #8): every
 *       iteration mallocs fresh buffers and calls MPI_Sendrecv with a length
 *       that changes every iteration into a receive buffer of fixed capacity
 *       (every 7th iteration MPI_Sendrecv_replace, every 3rd a derived type
 *       with gaps).
 *   rp_exchange stress [ITERS]     blocking, non-blocking (several messages
 *       in flight), persistent (fresh and long-lived), MPI_Sendrecv and
 *       MPI_Sendrecv_replace traffic, lengths across both thresholds.
 *
 * Every received byte, every byte beyond the message, the gaps of the
 * derived type and every status count are checked. Rank 0 prints
 * "exchange MODE: N iterations, F failed checks"; exit status 1 if F > 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xA5
#define BIG 1048576 /* REVPROF_PACK_MAX's upper limit */

static int rank, size, failures;
static MPI_Datatype gappy; /* one int in 8 bytes: the struct path always */

static void fail(const char *what, int iter, long at, int got, int want) {
  if (failures++ < 10)
    fprintf(stderr, "rank %d iteration %d: %s at %ld: got %d, want %d\n",
            rank, iter, what, at, got, want);
}

static unsigned char pattern(int src, int iter, long k) {
  return (unsigned char)(src * 131 + iter * 7 + k * 13 + (k >> 8) + 1);
}

/* Message length in bytes of sender src in iteration iter, message m:
 * values around both default thresholds (2048 Open MPI, 8192 MPICH), zero,
 * spread-out values, and now and then around 1 MiB. */
static long length(int src, int iter, int m) {
  static const long edges[] = {0,    1,    8,    24,    2040, 2047,
                               2048, 2049, 2056, 4096,  8184, 8191,
                               8192, 8193, 8200, 16384, 24000};
  unsigned h = (unsigned)(iter * 2654435761u) ^ (unsigned)(src * 40503u) ^
               (unsigned)(m * 97u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  if (iter % 250 == 249)
    return BIG - 64 + (long)(h % 128); /* both sides of 1 MiB */
  if (h % 3 == 0)
    return edges[(h >> 4) % (sizeof edges / sizeof *edges)];
  return (long)((h >> 4) % 24001u);
}

/* Receive capacity in bytes: fixed, above both default thresholds; larger
 * in the iterations with messages around 1 MiB. */
static int cap_of(int iter) { return iter % 250 == 249 ? BIG + 72 : 24064; }
#define CAP cap_of(it)

static void fill(unsigned char *b, long n, int src, int iter) {
  for (long k = 0; k < n; k++)
    b[k] = pattern(src, iter, k);
}

/* Checks a receive of nbytes from src into b (capacity cap bytes) whose
 * status is st; derived: the gappy type (data in the first 4 bytes of
 * every 8). */
static void check(const unsigned char *b, long cap, long nbytes, int src,
                  int iter, const MPI_Status *st, int derived) {
  int count = -1;
  MPI_Get_count(st, derived ? gappy : MPI_BYTE, &count);
  long want = derived ? nbytes / 8 : nbytes;
  if (count != want)
    fail("status count", iter, 0, count, (int)want);
  if (st->MPI_SOURCE != src)
    fail("status source", iter, 0, st->MPI_SOURCE, src);
  for (long k = 0; k < cap; k++) {
    int w = k >= nbytes || (derived && k % 8 >= 4) ? SENTINEL
                                                   : pattern(src, iter, k);
    if (b[k] != w) {
      fail("byte", iter, k, b[k], w);
      return;
    }
  }
}

static unsigned char *fresh(long n) {
  unsigned char *b = malloc((size_t)(n > 0 ? n : 1));
  if (b == NULL) {
    fprintf(stderr, "rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  memset(b, SENTINEL, (size_t)(n > 0 ? n : 1));
  return b;
}

/* The CoMD pattern. */
static void sendrecv_iter(int it) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int derived = it % 3 == 2, replace = it % 7 == 6;
  MPI_Status st;
  long ns = length(rank, it, 0), nr = length(left, it, 0);
  if (replace)
    ns = nr = length(0, it, 0); /* one count for both halves */
  if (derived) {
    ns -= ns % 8;
    nr -= nr % 8;
  }
  MPI_Datatype t = derived ? gappy : MPI_BYTE;
  int es = derived ? 8 : 1;
  if (replace) {
    unsigned char *b = fresh(ns);
    fill(b, ns, rank, it);
    if (derived) /* the gaps do not travel */
      for (long k = 0; k < ns; k++)
        if (k % 8 >= 4)
          b[k] = SENTINEL;
    MPI_Sendrecv_replace(b, (int)(ns / es), t, right, it, left, it,
                         MPI_COMM_WORLD, &st);
    check(b, ns, nr, left, it, &st, derived);
    free(b);
    return;
  }
  unsigned char *s = fresh(ns), *r = fresh(CAP);
  fill(s, ns, rank, it);
  MPI_Sendrecv(s, (int)(ns / es), t, right, it, r, CAP / es, t, left, it,
               MPI_COMM_WORLD, &st);
  check(r, CAP, nr, left, it, &st, derived);
  free(s);
  free(r);
}

/* Mixed traffic; every rank runs the same kind in the same iteration. */
#define INFLIGHT 4
static unsigned char *lsbuf, *lrbuf; /* the long-lived persistent pair */
static MPI_Request lreq[2];
#define LLEN 9000 /* above both default thresholds */

static void stress_iter(int it) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st[2 * INFLIGHT];
  MPI_Request rq[2 * INFLIGHT];
  unsigned char *s[INFLIGHT], *r[INFLIGHT];
  long ns[INFLIGHT], nr[INFLIGHT];
  for (int m = 0; m < INFLIGHT; m++) {
    ns[m] = length(rank, it, m);
    nr[m] = length(left, it, m);
  }
  switch (it % 6) {
  case 0: /* blocking, receive first on odd ranks */
    s[0] = fresh(ns[0]);
    r[0] = fresh(CAP);
    fill(s[0], ns[0], rank, it);
    if (rank % 2 == 0)
      MPI_Send(s[0], (int)ns[0], MPI_BYTE, right, it, MPI_COMM_WORLD);
    MPI_Recv(r[0], CAP, MPI_BYTE, left, it, MPI_COMM_WORLD, &st[0]);
    if (rank % 2 != 0)
      MPI_Send(s[0], (int)ns[0], MPI_BYTE, right, it, MPI_COMM_WORLD);
    check(r[0], CAP, nr[0], left, it, &st[0], 0);
    free(s[0]);
    free(r[0]);
    break;
  case 1: /* several in flight, Waitall */
  case 2: /* same, completed one by one with Waitany / Testsome */
    for (int m = 0; m < INFLIGHT; m++) {
      r[m] = fresh(CAP);
      MPI_Irecv(r[m], CAP, MPI_BYTE, left, m, MPI_COMM_WORLD, &rq[m]);
    }
    for (int m = 0; m < INFLIGHT; m++) {
      s[m] = fresh(ns[m]);
      fill(s[m], ns[m], rank, it);
      MPI_Isend(s[m], (int)ns[m], MPI_BYTE, right, m, MPI_COMM_WORLD,
                &rq[INFLIGHT + m]);
    }
    if (it % 6 == 1)
      MPI_Waitall(2 * INFLIGHT, rq, st);
    else {
      int left_n = 2 * INFLIGHT;
      while (left_n > 0) {
        int idx[2 * INFLIGHT], n = 0;
        MPI_Status s2[2 * INFLIGHT];
        if (left_n % 2) {
          MPI_Waitany(2 * INFLIGHT, rq, &idx[0], &s2[0]);
          n = 1;
        } else
          MPI_Testsome(2 * INFLIGHT, rq, &n, idx, s2);
        for (int j = 0; j < n; j++)
          st[idx[j]] = s2[j];
        left_n -= n;
      }
    }
    for (int m = 0; m < INFLIGHT; m++) {
      check(r[m], CAP, nr[m], left, it, &st[m], 0);
      free(r[m]);
      free(s[m]);
    }
    break;
  case 3: /* fresh persistent requests, then the long-lived pair */
    r[0] = fresh(CAP);
    s[0] = fresh(ns[0]);
    fill(s[0], ns[0], rank, it);
    MPI_Recv_init(r[0], CAP, MPI_BYTE, left, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(s[0], (int)ns[0], MPI_BYTE, right, 0, MPI_COMM_WORLD,
                  &rq[1]);
    MPI_Startall(2, rq);
    MPI_Waitall(2, rq, st);
    check(r[0], CAP, nr[0], left, it, &st[0], 0);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    free(r[0]);
    free(s[0]);
    memset(lrbuf, SENTINEL, LLEN);
    fill(lsbuf, LLEN, rank, it);
    MPI_Startall(2, lreq);
    MPI_Waitall(2, lreq, st);
    check(lrbuf, LLEN, LLEN, left, it, &st[0], 0);
    break;
  case 4: /* Sendrecv next to a pending receive */
    r[1] = fresh(CAP);
    MPI_Irecv(r[1], CAP, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[0]);
    s[0] = fresh(ns[0]);
    r[0] = fresh(CAP);
    fill(s[0], ns[0], rank, it);
    MPI_Sendrecv(s[0], (int)ns[0], MPI_BYTE, right, 0, r[0], CAP, MPI_BYTE,
                 left, 0, MPI_COMM_WORLD, &st[0]);
    check(r[0], CAP, nr[0], left, it, &st[0], 0);
    s[1] = fresh(ns[1]);
    fill(s[1], ns[1], rank, it);
    MPI_Send(s[1], (int)ns[1], MPI_BYTE, right, 1, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], &st[1]);
    check(r[1], CAP, nr[1], left, it, &st[1], 0);
    for (int m = 0; m < 2; m++) {
      free(s[m]);
      free(r[m]);
    }
    break;
  default: { /* Sendrecv_replace, one length for everybody */
    long n = length(0, it, 0);
    s[0] = fresh(n);
    fill(s[0], n, rank, it);
    MPI_Sendrecv_replace(s[0], (int)n, MPI_BYTE, right, 5, left, 5,
                         MPI_COMM_WORLD, &st[0]);
    check(s[0], n, n, left, it, &st[0], 0);
    free(s[0]);
  }
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "sendrecv";
  int iters = argc > 2 ? atoi(argv[2]) : 2000;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype v;
  MPI_Type_vector(1, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 8, &gappy);
  MPI_Type_commit(&gappy);
  MPI_Type_free(&v);
  int stress = strcmp(mode, "stress") == 0;
  if (stress) {
    int left = (rank + size - 1) % size;
    lsbuf = fresh(LLEN);
    lrbuf = fresh(LLEN);
    MPI_Recv_init(lrbuf, LLEN, MPI_BYTE, left, 9, MPI_COMM_WORLD, &lreq[0]);
    MPI_Send_init(lsbuf, LLEN, MPI_BYTE, (rank + 1) % size, 9,
                  MPI_COMM_WORLD, &lreq[1]);
  } else if (strcmp(mode, "sendrecv") != 0) {
    if (rank == 0)
      fprintf(stderr, "usage: rp_exchange sendrecv|stress [ITERS]\n");
    MPI_Finalize();
    return 2;
  }
  for (int it = 0; it < iters; it++)
    if (stress)
      stress_iter(it);
    else
      sendrecv_iter(it);
  if (stress) {
    MPI_Request_free(&lreq[0]);
    MPI_Request_free(&lreq[1]);
    free(lsbuf);
    free(lrbuf);
  }
  MPI_Type_free(&gappy);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("exchange %s: %d iterations, %d failed checks\n", mode, iters,
           all);
  MPI_Finalize();
  return all > 0;
}
