/* Exactness of librevprof's rules for messages that overlap (issue 14):
 * with the hand-written model rp_exact_p2p_model.lua (constants in
 * rp_exact_p2p_model.h: latency, gap g(d), MPI_Wait's own cost o(d), MPI_Isend, the late
 * receive MPI_Irecv) every rank's three clocks must equal the analytic
 * values to 1e-9 s after each phase:
 *   - k-neighbour exchanges, k = 1 ... 8, at an eager-like and a large
 *     size: k MPI_Irecv, k MPI_Isend, one MPI_Waitall;
 *   - receives posted late (the message waits for the receive), also a
 *     persistent one (posted at its MPI_Start);
 *   - synchronous sends (MPI_Ssend) to receivers that post late, by a
 *     blocking and a non-blocking receive, and early (the rendezvous
 *     rule: the sender returns max(0, t_post - t_send) later; costed
 *     as a standard send under REVPROF_WILDCARD=real), MPI_Issend to a
 *     late receiver (its completion that much later) and MPI_Ssend_init
 *     (a standard send); last, 4100 messages with a new tag each, then an
 *     MPI_Ssend the rule leaves (the counts' tables are full);
 *   - standard sends of the model's eager limit (EAGER bytes) to a
 *     receiver that posts late, MPI_Send and MPI_Isend: the same rule
 *     (the MPI has completed them only once the receive was posted, the
 *     host's eager limit being far lower); one byte less, none;
 *   - a train of 16 messages from one sender;
 *   - a gather of messages from every other rank to rank 0, completed
 *     by one MPI_Waitall, then by one MPI_Wait per receive (the endpoint's
 *     queue spans calls), then by MPI_Wait in the reverse of the order
 *     the messages come (each takes the endpoint's free time);
 *   - the same k receives completed by k MPI_Wait one after another;
 *   - (3 ranks or more) MPI_Waitany over two receives that have both
 *     arrived: the one first in predicted time completes first.
 * Each rank simulates every rank on paper, then compares its own clocks.
 * Argument "old": the model has no gap row (a format-1 model), and the
 * rule is the old one, each receive charged after the previous one at
 * T_Irecv(d). Argument "post": the model has the post row too, and each
 * non-blocking receive costs its rank T_post(d) as it is posted (its
 * t_post the clock before). Argument "load": the model has the gap_all
 * row too (GAP_ALL below; REVPROF_CONTENTION unset: epoch), and a
 * message that travelled while its receiver was itself sending (the
 * receiver's run of messages from BURST to NIC overlaps [t_send, at): the
 * exchanges, not the train, the late receivers or the gathers) is there
 * max(0, gap_all(P, d) - g(d)) later and takes its endpoint that much
 * longer. Argument "pair": the model has the MPI_Sendrecv row as well
 * as gap_all (SENDRECV in rp_exact_p2p_model.h), and the exchanges run at
 * EAGER bytes too: such a message, from another rank, travels no shorter
 * than T_Sendrecv(d) - o(d), the load's travel included, below EAGER as
 * before, and none to a message a rank sends itself at EAGER; "pair-off",
 * the same under REVPROF_CONTENTION=off (no load);
 * "pair-latency", the same exchanges under the load rule alone
 * (REVPROF_EXCHANGE unset: the row changes nothing).
 * Run with REVPROF_COMPUTE=annotate, REVPROF_STEP_MIN=5e-7,
 * REVPROF_STEP=1e-6, REVPROF_STEP_MAX=2e-6. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "revprof.h"
#include "rp_exact_p2p_model.h"

#define MAXP 16
#define MAXK 16
#define BIG 262144
#define EAGER (2 * BIG) /* the model's machine.eager_limit */

static const double STEP[NB] = {5e-7, 1e-6, 2e-6};

static int P, rank, failures, old, loaded, paired, pairs, rdv;
/* gap_all (rp_check.sh adds it for "load"): c + p * k * d per bound */
static const lin GAP_ALL = {{5e-7, 1e-6, 2e-6}, {3e-10, 6e-10, 1.2e-9}};
static double T[MAXP][NB];   /* the paper simulation: every rank's clocks */
static double NIC[MAXP][NB]; /* when each rank's next message can leave */
static double BURST[MAXP];   /* avg clock: when its run of messages began */
/* what each rank's endpoint took: [from, to) per message, kept from one
 * call to the next */
#define MAXTAKE 512
static double TAKE[MAXP][NB][MAXTAKE][2];
static int NTAKE[MAXP][NB];

/* r's endpoint takes a message there at a for len: the first t >= a at
 * which [t, t + len) overlaps nothing it took before */
static double take(int r, int b, double a, double len) {
  double t = a;
  for (int again = 1; again;) {
    again = 0;
    for (int i = 0; i < NTAKE[r][b]; i++)
      if (TAKE[r][b][i][0] < t + len && TAKE[r][b][i][1] > t) {
        t = TAKE[r][b][i][1];
        again = 1;
      }
  }
  if (len > 0 && NTAKE[r][b] < MAXTAKE) {
    TAKE[r][b][NTAKE[r][b]][0] = t;
    TAKE[r][b][NTAKE[r][b]++][1] = t + len;
  }
  return t;
}

static double gap(int b, double d) {
  if (old)
    return 0.0;
  return L(d < 65536 ? &GAP_SMALL : &GAP_LARGE, b, d);
}
static double own(int b, double d) { return L(old ? &IRECV : &WAIT, b, d); }

static void barrier_paper(void) {
  const double c[NB] = {5e-6, 1e-5, 2e-5}, s[NB] = {2.5e-6, 5e-6, 1e-5};
  for (int b = 0; b < NB; b++) {
    double m = 0;
    for (int r = 0; r < P; r++)
      m = mx(m, T[r][b]);
    for (int r = 0; r < P; r++)
      T[r][b] = m + c[b] + s[b] * log2(P);
  }
}

/* argument "post": the model has the post row (rp_exact_p2p_model.h's
 * POST), which each non-blocking receive costs its rank as it is posted */
static int with_post;

/* r posts a non-blocking receive of d bytes: t_post gets when (the clock
 * before), then r pays the post row's cost */
static void post_recv(int r, double d, double t_post[NB]) {
  for (int b = 0; b < NB; b++) {
    t_post[b] = T[r][b];
    if (with_post)
      T[r][b] += L(&POST, b, d);
  }
}

static void steps(int r, double n) {
  for (int b = 0; b < NB; b++)
    T[r][b] += n * STEP[b];
}

/* s posts an MPI_Isend of d bytes: ts gets its piggybacked time, left
 * when it has left */
static void isend(int s, double d, double ts[NB], double left[NB]) {
  if (NIC[s][1] < T[s][1])
    BURST[s] = T[s][1]; /* its endpoint was idle */
  for (int b = 0; b < NB; b++) {
    ts[b] = old ? T[s][b] : mx(T[s][b], NIC[s][b]);
    NIC[s][b] = ts[b] + gap(b, d);
    left[b] = ts[b] + gap(b, d);
    T[s][b] += L(&ISEND, b, d);
  }
}

/* s's blocking send of d bytes (MPI_Send, or MPI_Ssend with post: the
 * receive it meets posted at post): ts gets its piggybacked time; a
 * synchronous one returns max(0, post - ts) later */
static void blocking_send(int s, double d, double ts[NB],
                          const double post[NB]) {
  if (NIC[s][1] < T[s][1])
    BURST[s] = T[s][1];
  for (int b = 0; b < NB; b++) {
    ts[b] = old ? T[s][b] : mx(T[s][b], NIC[s][b]);
    NIC[s][b] = ts[b] + gap(b, d);
    T[s][b] += L(&SEND, b, d) + (post ? mx(0.0, post[b] - ts[b]) : 0.0);
  }
}

/* r's blocking receive of d bytes sent at ts */
static void blocking_recv(int r, double d, const double ts[NB]) {
  for (int b = 0; b < NB; b++)
    T[r][b] = mx(T[r][b] + L(&RECV, b, d), ts[b] + L(&LAT, b, d));
}

/* One receive as the completion rule sees it. */
typedef struct item {
  double at[NB], d, extra[NB]; /* extra: the load ("load") */
} item;

/* rank r's receive of d bytes sent by rank from at ts, posted at post */
static void arrive(int r, int from, item *it, const double ts[NB],
                   const double post[NB], double d) {
  for (int b = 0; b < NB; b++) {
    it->at[b] = mx(ts[b] + L(&LAT, b, d), post[b] + L(&IRECV, b, d));
    it->extra[b] = 0.0;
  }
  it->d = d;
  if (!(ts[1] < NIC[r][1] && it->at[1] > BURST[r]))
    return; /* not sent while r was sending */
  for (int b = 0; b < NB; b++) {
    double all = GAP_ALL.c[b] + P * GAP_ALL.k[b] * d;
    it->extra[b] = loaded ? mx(0.0, all - gap(b, d)) : 0.0;
    double lat = L(&LAT, b, d) + it->extra[b];
    if (paired && d >= EAGER && from != r)
      lat = mx(lat, L(&SENDRECV, b, d) - own(b, d));
    it->at[b] = mx(ts[b] + lat, post[b] + L(&IRECV, b, d));
  }
}

static int by_avg(const void *x, const void *y) {
  double a = ((const item *)x)->at[1], c = ((const item *)y)->at[1];
  return (a > c) - (a < c);
}

/* r's Waitall over n receives (and sends that left at left[], nsent of
 * them): in arrival order the endpoint takes each one gap long, at the
 * first time it is free from the message's arrival on (after those it
 * took in earlier calls), and the rank pays its own cost on each; old
 * rule: in request order, each at T_Irecv after the previous one. */
static void waitall(int r, item *it, int n, double left[][NB], int nsent) {
  if (!old && n > 1)
    qsort(it, (size_t)n, sizeof *it, by_avg);
  for (int b = 0; b < NB; b++) {
    double e = -INFINITY;
    for (int i = 0; i < n; i++) {
      e = old ? mx(it[i].at[b], e)
              : take(r, b, it[i].at[b], gap(b, it[i].d) + it[i].extra[b]);
      T[r][b] = mx(T[r][b] + own(b, it[i].d), e);
    }
    for (int i = 0; !old && i < nsent; i++)
      T[r][b] = mx(T[r][b], left[i][b]);
  }
}

/* 1 posts a receive of d bytes now, 0 an MPI_Isend (or MPI_Issend) of
 * it, both completed by one MPI_Wait; with rdv_rule, 0's completes no
 * earlier than the rendezvous rule says: max(0, t_post - t_send) after its
 * message left */
static void late_isend(double d, int rdv_rule) {
  double ts[NB], left[NB], post[NB];
  post_recv(1, d, post);
  isend(0, d, ts, left);
  for (int b = 0; b < NB && rdv_rule; b++)
    left[b] += mx(0.0, post[b] - ts[b]);
  waitall(0, NULL, 0, &left, 1);
  item it;
  arrive(1, 0, &it, ts, post, d);
  waitall(1, &it, 1, NULL, 0);
}

static void check(const char *phase) {
  double now[NB];
  revprof_now_bounds(&now[0], &now[1], &now[2]);
  for (int b = 0; b < NB; b++)
    if (!(fabs(now[b] - T[rank][b]) <= 1e-9)) {
      printf("FAIL rank %d after %s, clock %d: %.17g, expected %.17g\n", rank,
             phase, b, now[b], T[rank][b]);
      failures++;
    }
}

static char *sbuf, *rbuf;
/* statuses for MPI_Waitall (MPICH's MPI_STATUSES_IGNORE trips GCC's array
 * bound check) */
static MPI_Status sts[2 * MAXK + MAXP];

static int off(int j) { return 1 + j % (P - 1); }

/* k-neighbour exchange of d bytes: receive j from rank - off(j) with tag
 * j, send j to rank + off(j). */
static void exchange(int k, double d, int one_by_one) {
  MPI_Request req[2 * MAXK];
  size_t n = (size_t)d;
  for (int j = 0; j < k; j++)
    MPI_Irecv(rbuf + (size_t)j * n, (int)n, MPI_BYTE, (rank - off(j) + P) % P,
              j, MPI_COMM_WORLD, &req[j]);
  for (int j = 0; j < k; j++)
    MPI_Isend(sbuf, (int)n, MPI_BYTE, (rank + off(j)) % P, j, MPI_COMM_WORLD,
              &req[k + j]);
  if (one_by_one)
    for (int j = 0; j < 2 * k; j++)
      MPI_Wait(&req[j], MPI_STATUS_IGNORE);
  else
    MPI_Waitall(2 * k, req, sts);

  static double ts[MAXP][MAXK][NB], left[MAXP][MAXK][NB],
      post[MAXP][MAXK][NB];
  for (int r = 0; r < P; r++) {
    for (int j = 0; j < k; j++)
      post_recv(r, d, post[r][j]);
    for (int j = 0; j < k; j++)
      isend(r, d, ts[r][j], left[r][j]);
  }
  for (int r = 0; r < P; r++) {
    item it[MAXK];
    for (int j = 0; j < k; j++) {
      int from = (r - off(j) + P) % P;
      arrive(r, from, &it[j], ts[from][j], post[r][j], d);
    }
    if (!one_by_one)
      waitall(r, it, k, left[r], k);
    else {
      for (int j = 0; j < k; j++)
        waitall(r, &it[j], 1, NULL, 0);
      for (int j = 0; j < k; j++)
        waitall(r, NULL, 0, &left[r][j], 1);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  old = argc > 1 && strcmp(argv[1], "old") == 0;
  with_post = argc > 1 && strcmp(argv[1], "post") == 0;
  pairs = argc > 1 && strncmp(argv[1], "pair", 4) == 0;
  paired = pairs && strcmp(argv[1], "pair-latency") != 0;
  loaded = argc > 1 && (strcmp(argv[1], "load") == 0 ||
                        strcmp(argv[1], "pair") == 0 ||
                        strcmp(argv[1], "pair-latency") == 0);
  /* REVPROF_WILDCARD=real: no published posts, so no rendezvous rule */
  const char *wild = getenv("REVPROF_WILDCARD");
  rdv = !(wild && strcmp(wild, "real") == 0);
  if (P < 2 || P > MAXP || !revprof_enabled()) {
    if (rank == 0)
      fprintf(stderr, "rp_exact_p2p: needs 2..%d ranks and revprof on\n",
              MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  sbuf = calloc(EAGER, 1);
  rbuf = calloc((size_t)MAXK * BIG, 1);
  if (!sbuf || !rbuf)
    MPI_Abort(MPI_COMM_WORLD, 2);
  char phase[64];

  /* k-neighbour exchanges, eager-like and large (and, with the
     MPI_Sendrecv row, at the eager limit) */
  const double sizes[3] = {8, BIG, EAGER};
  for (int s = 0; s < 2 + pairs; s++)
    for (int k = 1; k <= 8; k++) {
      MPI_Barrier(MPI_COMM_WORLD);
      barrier_paper();
      exchange(k, sizes[s], 0);
      snprintf(phase, sizeof phase, "exchange k=%d d=%.0f", k, sizes[s]);
      check(phase);
    }

  /* with the exchanges at EAGER: every rank sends a message of EAGER
     bytes to itself while sending it, not a pair's exchange */
  if (pairs) {
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    MPI_Request req[2];
    MPI_Irecv(rbuf, EAGER, MPI_BYTE, rank, 90, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, EAGER, MPI_BYTE, rank, 90, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, sts);
    for (int r = 0; r < P; r++) {
      double ts[NB], left[NB], post[NB];
      item it;
      post_recv(r, EAGER, post);
      isend(r, EAGER, ts, left);
      arrive(r, r, &it, ts, post, EAGER);
      waitall(r, &it, 1, &left, 1);
    }
    check("message to itself at the eager limit");
  }

  /* the same receives completed one by one */
  MPI_Barrier(MPI_COMM_WORLD);
  barrier_paper();
  exchange(4, 1024, 1);
  check("exchange k=4 by MPI_Wait");

  /* late receivers: 1 posts its receive long after 0 sent */
  for (int s = 0; s < 2; s++) {
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    MPI_Request req;
    double ts[NB], left[NB], post[NB];
    if (rank == 0) {
      MPI_Isend(sbuf, (int)sizes[s], MPI_BYTE, 1, 50, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      REVPROF_COMPUTE_STEPS(1000);
      MPI_Irecv(rbuf, (int)sizes[s], MPI_BYTE, 0, 50, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    isend(0, sizes[s], ts, left);
    waitall(0, NULL, 0, &left, 1);
    steps(1, 1000);
    post_recv(1, sizes[s], post);
    item it;
    arrive(1, 0, &it, ts, post, sizes[s]);
    waitall(1, &it, 1, NULL, 0);
    snprintf(phase, sizeof phase, "late receiver d=%.0f", sizes[s]);
    check(phase);
  }

  /* a persistent receive made early, started late: posted at its start */
  {
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    MPI_Request req = MPI_REQUEST_NULL;
    double ts[NB], left[NB], post[NB];
    if (rank == 0) {
      MPI_Isend(sbuf, 8, MPI_BYTE, 1, 55, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv_init(rbuf, 8, MPI_BYTE, 0, 55, MPI_COMM_WORLD, &req);
      REVPROF_COMPUTE_STEPS(1000);
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Request_free(&req);
    }
    isend(0, 8, ts, left);
    waitall(0, NULL, 0, &left, 1);
    steps(1, 1000);
    post_recv(1, 8, post);
    item it;
    arrive(1, 0, &it, ts, post, 8);
    waitall(1, &it, 1, NULL, 0);
    check("persistent receive started late");
  }

  /* synchronous sends (the rendezvous rule): 0's MPI_Ssend returns
     max(0, t_post - t_send) later than a standard send would, t_post when
     1 posted the receive it meets. Case 0: 1 posts late, a blocking
     MPI_Recv; 1: late, an MPI_Irecv, 256 KiB; 2: 1 posts early (its second
     receive from 0 on the tag: the sender's second message meets it) */
  for (int c = 0; c < 3; c++) {
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    double d = c == 1 ? BIG : 8, ts[NB], post[NB], ts2[NB];
    MPI_Request req;
    if (rank == 0) {
      if (c == 2) {
        MPI_Send(sbuf, 8, MPI_BYTE, 1, 65, MPI_COMM_WORLD);
        REVPROF_COMPUTE_STEPS(1000);
      }
      MPI_Ssend(sbuf, (int)d, MPI_BYTE, 1, 65, MPI_COMM_WORLD);
    } else if (rank == 1) {
      if (c == 2) {
        MPI_Recv(rbuf, 8, MPI_BYTE, 0, 65, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(rbuf, 8, MPI_BYTE, 0, 65, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else {
        REVPROF_COMPUTE_STEPS(1000);
        if (c == 0)
          MPI_Recv(rbuf, 8, MPI_BYTE, 0, 65, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
        else {
          MPI_Irecv(rbuf, (int)d, MPI_BYTE, 0, 65, MPI_COMM_WORLD, &req);
          MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
      }
    }
    /* paper: 1's post, then 0's send(s), then 1's completion */
    if (c == 2) {
      blocking_send(0, 8, ts2, NULL);
      blocking_recv(1, 8, ts2);
      post_recv(1, d, post);
      steps(0, 1000);
    } else {
      steps(1, 1000);
      if (c == 1)
        post_recv(1, d, post);
      else /* a blocking receive is posted at its call's clock */
        memcpy(post, T[1], sizeof post);
    }
    blocking_send(0, d, ts, rdv ? post : NULL);
    if (c == 0)
      blocking_recv(1, d, ts);
    else {
      item it;
      arrive(1, 0, &it, ts, post, d);
      waitall(1, &it, 1, NULL, 0);
    }
    snprintf(phase, sizeof phase, "MPI_Ssend, receiver %s d=%.0f",
             c == 2 ? "early" : c == 1 ? "late (Irecv)" : "late (Recv)", d);
    check(phase);
  }

  /* non-blocking synchronous sends to a receiver that posts late: an
     MPI_Issend completes no earlier than when its message has left plus
     max(0, t_post - t_send) (with the gap row: the "old" model has none,
     and there completing a send costs nothing); an MPI_Ssend_init started
     twice is costed as a standard send (flagged) */
  for (int c = 0; c < 2; c++) {
    int times = c == 0 ? 1 : 2;
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == 0) {
      if (c == 0)
        MPI_Issend(sbuf, 8, MPI_BYTE, 1, 66, MPI_COMM_WORLD, &req);
      else
        MPI_Ssend_init(sbuf, 8, MPI_BYTE, 1, 66, MPI_COMM_WORLD, &req);
      for (int i = 0; i < times; i++) {
        if (c == 1)
          MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      if (c == 1)
        MPI_Request_free(&req);
    } else if (rank == 1)
      for (int i = 0; i < times; i++) {
        REVPROF_COMPUTE_STEPS(1000);
        MPI_Irecv(rbuf, 8, MPI_BYTE, 0, 66, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
    for (int i = 0; i < times; i++) {
      steps(1, 1000);
      late_isend(8, rdv && c == 0);
    }
    check(c == 0 ? "MPI_Issend, receiver late"
                 : "MPI_Ssend_init started twice, receiver late");
  }

  /* standard sends at the model's eager limit, to a receiver that posts
     late: an MPI_Send (c = 0, a blocking receive) and an MPI_Isend (1, an
     MPI_Irecv) wait for the post as synchronous ones do (the "old" model
     has no gap row, so its MPI_Isend is costed as eager, flagged
     eager-guess); one byte less (2) is eager */
  for (int c = 0; c < 3; c++) {
    double d = c == 2 ? EAGER - 1 : EAGER, ts[NB], post[NB];
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    MPI_Request req;
    if (rank == 0) {
      if (c == 1) {
        MPI_Isend(sbuf, (int)d, MPI_BYTE, 1, 68, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else
        MPI_Send(sbuf, (int)d, MPI_BYTE, 1, 68, MPI_COMM_WORLD);
    } else if (rank == 1) {
      REVPROF_COMPUTE_STEPS(1000);
      if (c == 1) {
        MPI_Irecv(rbuf, (int)d, MPI_BYTE, 0, 68, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else
        MPI_Recv(rbuf, (int)d, MPI_BYTE, 0, 68, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
    steps(1, 1000);
    if (c == 1)
      late_isend(d, rdv && !old);
    else {
      memcpy(post, T[1], sizeof post); /* a blocking receive's post */
      blocking_send(0, d, ts, rdv && c == 0 ? post : NULL);
      blocking_recv(1, d, ts);
    }
    snprintf(phase, sizeof phase, "%s of %.0f B, receiver late",
             c == 1 ? "MPI_Isend" : "MPI_Send", d);
    check(phase);
  }

  /* a train of 16 messages of 4 KiB from 0 to 1 */
  {
    enum { N = 16, D = 4096 };
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    MPI_Request req[N];
    for (int i = 0; i < N; i++) {
      if (rank == 1)
        MPI_Irecv(rbuf + (size_t)i * D, D, MPI_BYTE, 0, 60, MPI_COMM_WORLD,
                  &req[i]);
      else if (rank == 0)
        MPI_Isend(sbuf, D, MPI_BYTE, 1, 60, MPI_COMM_WORLD, &req[i]);
    }
    if (rank <= 1)
      MPI_Waitall(N, req, sts);
    double ts[N][NB], left[N][NB], post[N][NB];
    item it[N];
    for (int i = 0; i < N; i++) {
      post_recv(1, D, post[i]);
      isend(0, D, ts[i], left[i]);
      arrive(1, 0, &it[i], ts[i], post[i], D);
    }
    waitall(0, NULL, 0, left, N);
    waitall(1, it, N, NULL, 0);
    check("train of 16");
  }

  /* every other rank sends 64 KiB to 0: completed by one Waitall, then
     by one MPI_Wait per receive (the endpoint's queue is the same), then
     by MPI_Wait with the senders staggered so that rank 0 waits first for
     the message that comes last (each earlier one takes the endpoint's
     time before it where a gap fits: 50 steps apart, under a gap) */
  for (int how = 0; how < 3; how++) {
    enum { D = 65536, STAGGER = 50 };
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    MPI_Request req[MAXP];
    if (rank == 0) {
      for (int s = 1; s < P; s++)
        MPI_Irecv(rbuf + (size_t)(s - 1) * D, D, MPI_BYTE, s, 70,
                  MPI_COMM_WORLD, &req[s - 1]);
      if (how > 0)
        for (int s = 1; s < P; s++)
          MPI_Wait(&req[s - 1], MPI_STATUS_IGNORE);
      else
        MPI_Waitall(P - 1, req, sts);
    } else {
      if (how == 2)
        REVPROF_COMPUTE_STEPS(STAGGER * (P - rank));
      MPI_Isend(sbuf, D, MPI_BYTE, 0, 70, MPI_COMM_WORLD, &req[0]);
      MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    }
    double post[MAXP][NB], left[NB];
    item it[MAXP];
    for (int s = 1; s < P; s++)
      post_recv(0, D, post[s]);
    for (int s = 1; s < P; s++) {
      double ts[NB];
      if (how == 2)
        steps(s, STAGGER * (P - s));
      isend(s, D, ts, left);
      waitall(s, NULL, 0, &left, 1);
      arrive(0, s, &it[s - 1], ts, post[s], D);
    }
    if (how > 0)
      for (int s = 1; s < P; s++)
        waitall(0, &it[s - 1], 1, NULL, 0);
    else
      waitall(0, it, P - 1, NULL, 0);
    check(how == 0   ? "gather to 0"
          : how == 1 ? "gather to 0 by MPI_Wait"
                     : "gather to 0 by MPI_Wait, the last first");
  }

  /* Waitany: both messages there in real time, rank 1's (index 0, the
     one the MPI takes first) last in predicted time (1000 steps against
     10) */
  if (P >= 3) {
    MPI_Barrier(MPI_COMM_WORLD);
    barrier_paper();
    int idx[2] = {-1, -1};
    if (rank == 0) {
      MPI_Request rq[2];
      MPI_Irecv(rbuf, 8, MPI_BYTE, 1, 80, MPI_COMM_WORLD, &rq[0]);
      MPI_Irecv(rbuf + 8, 8, MPI_BYTE, 2, 80, MPI_COMM_WORLD, &rq[1]);
      for (int i = 0; i < 2; i++) { /* both there in real time */
        int f = 0;
        while (!f)
          MPI_Request_get_status(rq[i], &f, MPI_STATUS_IGNORE);
      }
      MPI_Waitany(2, rq, &idx[0], &sts[0]);
      MPI_Waitany(2, rq, &idx[1], &sts[1]);
      if (!old && (idx[0] != 1 || idx[1] != 0)) {
        printf("FAIL Waitany completed %d then %d, expected 1 then 0\n",
               idx[0], idx[1]);
        failures++;
      }
    } else if (rank <= 2) {
      REVPROF_COMPUTE_STEPS(rank == 1 ? 1000 : 10);
      MPI_Send(sbuf, 8, MPI_BYTE, 0, 80, MPI_COMM_WORLD);
    }
    /* paper (only rank 0's clock depends on idx, and only it knows it) */
    double post[2][NB], ts[3][NB];
    post_recv(0, 8, post[0]); /* from rank 1 */
    post_recv(0, 8, post[1]); /* from rank 2 */
    steps(1, 1000);
    steps(2, 10);
    for (int s = 1; s <= 2; s++)
      blocking_send(s, 8, ts[s], NULL);
    for (int i = 0; i < 2; i++) {
      item it;
      int from2 = idx[i] != 0; /* -1 on the ranks that do not know */
      arrive(0, 1 + from2, &it, ts[1 + from2], post[from2], 8);
      waitall(0, &it, 1, NULL, 0);
    }
    check("Waitany");
  }

  /* a new tag for each of 4100 messages fills the counts' tables (4096
     keys): the rendezvous rule is off from there, and this last MPI_Ssend
     is costed as a standard send, flagged (no clock check: the flag is
     what rp_check.sh checks) */
  for (int i = 0; i < 4100; i++)
    if (rank == 0)
      MPI_Send(sbuf, 0, MPI_BYTE, 1, 1000 + i, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv(rbuf, 0, MPI_BYTE, 0, 1000 + i, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (rank == 0)
    MPI_Ssend(sbuf, 8, MPI_BYTE, 1, 67, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(rbuf, 8, MPI_BYTE, 0, 67, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("p2p exact%s: %d ranks, %d mismatches\n",
           old         ? " (old rule)"
           : with_post ? " (post row)"
           : pairs     ? " (pair)"
           : loaded    ? " (load)"
                       : "",
           P, all);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
