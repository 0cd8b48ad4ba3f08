/* One timing kernel per MPI function of REVPROF_FUNCTION_TABLE. The timed
 * part holds only the measured call(s); everything a function needs to be
 * measured in its intended state (receive pre-posted, message arrived) is
 * set up before the synchronization and completed after the clock stops. */
#include "kernels.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "charlib.h"

#define TAG 4242

/* ------------------------------------------------------------- helpers */

/* Waits until the message from the partner has arrived (or at least its
 * envelope, for rendezvous protocols). */
static void await_arrival(rp_kctx *k) {
  int flag = 0;
  while (!flag)
    MPI_Iprobe(0, TAG, k->comm, &flag, MPI_STATUS_IGNORE);
}

static void post_irecv_on_1(rp_kctx *k) {
  if (k->rank == 1)
    MPI_Irecv(k->rbuf, k->count, MPI_BYTE, 0, TAG, k->comm, &k->req);
}

/* The message of Recv/Irecv: sent by 0 before the sync, seen by 1. */
static void send_ahead(rp_kctx *k) {
  if (k->rank == 0)
    MPI_Isend(k->sbuf, k->count, MPI_BYTE, 1, TAG, k->comm, &k->req);
  else
    await_arrival(k);
}

static void wait_req(rp_kctx *k) {
  if (k->req != MPI_REQUEST_NULL)
    MPI_Wait(&k->req, MPI_STATUS_IGNORE);
}

static double since(double t0) { return MPI_Wtime() - t0; }

/* ------------------------------------------------------ point-to-point */

static double run_send(rp_kctx *k, double t0) {
  if (k->rank != 0)
    return RP_NOT_TIMED;
  MPI_Send(k->sbuf, k->count, MPI_BYTE, 1, TAG, k->comm);
  return since(t0);
}

static double run_recv(rp_kctx *k, double t0) {
  if (k->rank != 1)
    return RP_NOT_TIMED;
  MPI_Recv(k->rbuf, k->count, MPI_BYTE, 0, TAG, k->comm, MPI_STATUS_IGNORE);
  return since(t0);
}

/* Half a ping-pong round trip, timed by rank 0 from the second exchange:
 * the first one absorbs the skew left by the synchronization, so the
 * partner is known to wait in MPI_Recv when the timed ping leaves. */
static double run_latency(rp_kctx *k, double t0) {
  (void)t0;
  if (k->rank == 0) {
    double t = 0.0;
    for (int i = 0; i < 2; i++) {
      t = MPI_Wtime();
      MPI_Send(k->sbuf, k->count, MPI_BYTE, 1, TAG, k->comm);
      MPI_Recv(k->rbuf, k->count, MPI_BYTE, 1, TAG, k->comm,
               MPI_STATUS_IGNORE);
    }
    return since(t) / 2.0;
  }
  for (int i = 0; i < 2; i++) {
    MPI_Recv(k->rbuf, k->count, MPI_BYTE, 0, TAG, k->comm,
             MPI_STATUS_IGNORE);
    MPI_Send(k->sbuf, k->count, MPI_BYTE, 0, TAG, k->comm);
  }
  return RP_NOT_TIMED;
}

static double run_isend(rp_kctx *k, double t0) {
  if (k->rank != 0)
    return RP_NOT_TIMED;
  MPI_Isend(k->sbuf, k->count, MPI_BYTE, 1, TAG, k->comm, &k->req);
  return since(t0); /* initiation only; completed in post */
}

static double run_irecv(rp_kctx *k, double t0) {
  if (k->rank != 1)
    return RP_NOT_TIMED;
  MPI_Irecv(k->rbuf, k->count, MPI_BYTE, 0, TAG, k->comm, &k->req);
  MPI_Wait(&k->req, MPI_STATUS_IGNORE);
  return since(t0);
}

/* MPI_Wait's own cost on a receive: posted before the synchronization,
 * its message sent and the send completed, and the receiver polls the
 * request (MPI_Request_get_status, which leaves it to MPI_Wait) until the
 * data is there: a send can complete before its data has arrived (an
 * eager message in flight, as SimGrid's detached sends below 64 KiB). */
static void post_and_deliver(rp_kctx *k) {
  if (k->rank == 1) {
    int flag = 0;
    MPI_Irecv(k->rbuf, k->count, MPI_BYTE, 0, TAG, k->comm, &k->req);
    while (!flag)
      MPI_Request_get_status(k->req, &flag, MPI_STATUS_IGNORE);
  } else {
    MPI_Isend(k->sbuf, k->count, MPI_BYTE, 1, TAG, k->comm, &k->req);
    MPI_Wait(&k->req, MPI_STATUS_IGNORE);
  }
}

static double run_wait(rp_kctx *k, double t0) {
  if (k->rank != 1)
    return RP_NOT_TIMED;
  MPI_Wait(&k->req, MPI_STATUS_IGNORE);
  return since(t0);
}

/* Rank 1 times, on its own clock, from a 0-byte request to rank 0 until it
 * has n messages of d bytes (receives posted before the request, rank 0
 * sends them back to back with MPI_Isend). */
static double train(rp_kctx *k, int n) {
  enum { GO = TAG + 1 };
  double t = 0.0;
  MPI_Status st[REVPROF_GAP_TRAIN]; /* (MPICH's MPI_STATUSES_IGNORE trips
                                      GCC's array bound check) */
  if (k->rank == 1) {
    for (int i = 0; i < n; i++)
      MPI_Irecv(k->rbuf + (size_t)i * (size_t)k->count, k->count, MPI_BYTE,
                0, TAG, k->comm, &k->train[i]);
    t = MPI_Wtime();
    MPI_Send(NULL, 0, MPI_BYTE, 0, GO, k->comm);
    MPI_Waitall(n, k->train, st);
    return MPI_Wtime() - t;
  }
  MPI_Recv(NULL, 0, MPI_BYTE, 1, GO, k->comm, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    MPI_Isend(k->sbuf, k->count, MPI_BYTE, 1, TAG, k->comm, &k->train[i]);
  MPI_Waitall(n, k->train, st);
  return t;
}

/* The injection gap g(d): how much later each further message of a train
 * completes, (T(8) - T(1)) / 7, both on rank 1's clock, so that neither
 * the synchronization's skew nor the request's latency counts. It is the
 * slower of the sender's and the receiver's per-message period. (Noise
 * can make one repetition's difference negative: measure() drops it, as
 * it drops any time below 0, so the smallest gaps lean slightly high; the
 * raw CSV holds no negative time.) */
static double run_gap(rp_kctx *k, double t0) {
  (void)t0;
  double tn = train(k, REVPROF_GAP_TRAIN), t1 = train(k, 1);
  return k->rank == 1 ? (tn - t1) / (REVPROF_GAP_TRAIN - 1) : RP_NOT_TIMED;
}

/* The same train from every member to the next at once (a ring): each
 * posts its receives from the previous member, tells it so, hears the same
 * from the next and sends it its train. Timed on each member's clock from
 * its word to the previous one until its own n messages are there. */
static double ring_train(rp_kctx *k, int n) {
  enum { GO = TAG + 3 };
  int next = (k->rank + 1) % k->size;
  int prev = (k->rank + k->size - 1) % k->size;
  MPI_Request req[2 * REVPROF_GAP_TRAIN];
  MPI_Status st[2 * REVPROF_GAP_TRAIN];
  for (int i = 0; i < n; i++)
    MPI_Irecv(k->rbuf + (size_t)i * (size_t)k->count, k->count, MPI_BYTE,
              prev, TAG, k->comm, &req[i]);
  /* the word to the previous member and the next one's, both at once */
  MPI_Request go[2];
  MPI_Irecv(NULL, 0, MPI_BYTE, next, GO, k->comm, &go[0]);
  double t = MPI_Wtime();
  MPI_Isend(NULL, 0, MPI_BYTE, prev, GO, k->comm, &go[1]);
  MPI_Waitall(2, go, st); /* (not MPI_STATUSES_IGNORE: see train) */
  for (int i = 0; i < n; i++)
    MPI_Isend(k->sbuf, k->count, MPI_BYTE, next, TAG, k->comm, &req[n + i]);
  MPI_Waitall(2 * n, req, st);
  return MPI_Wtime() - t;
}

/* The gap under load, g_p(d): as run_gap, with every member of the group
 * sending its train at once, so that the messages share whatever the
 * network shares (a backbone, a memory bus); the slowest member's. A
 * first train of 1, not timed, lines the members up: a member that
 * started early (the start window's clock offsets are only as good as
 * their ping-pong) would otherwise count the others' lateness in T(8). */
static double run_gap_all(rp_kctx *k, double t0) {
  (void)t0;
  ring_train(k, 1);
  double tn = ring_train(k, REVPROF_GAP_TRAIN), t1 = ring_train(k, 1);
  return (tn - t1) / (REVPROF_GAP_TRAIN - 1);
}

/* Posting a receive whose message is not there yet (nor sent): rank 1
 * posts a train of REVPROF_GAP_TRAIN receives, timed per receive, then
 * asks rank 0 for their messages and waits for them (not timed). What a
 * halo's MPI_Irecv calls cost their rank before any message comes. */
static double run_post(rp_kctx *k, double t0) {
  enum { GO = TAG + 2 };
  MPI_Status st[REVPROF_GAP_TRAIN];
  int n = REVPROF_GAP_TRAIN;
  double t = 0.0;
  (void)t0;
  if (k->rank == 1) {
    double t1 = MPI_Wtime();
    for (int i = 0; i < n; i++)
      MPI_Irecv(k->rbuf + (size_t)i * (size_t)k->count, k->count, MPI_BYTE,
                0, TAG, k->comm, &k->train[i]);
    t = (MPI_Wtime() - t1) / n;
    MPI_Send(NULL, 0, MPI_BYTE, 0, GO, k->comm);
    MPI_Waitall(n, k->train, st);
    return t;
  }
  MPI_Recv(NULL, 0, MPI_BYTE, 1, GO, k->comm, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    MPI_Isend(k->sbuf, k->count, MPI_BYTE, 1, TAG, k->comm, &k->train[i]);
  MPI_Waitall(n, k->train, st);
  return RP_NOT_TIMED;
}

static double run_sendrecv(rp_kctx *k, double t0) {
  int other = 1 - k->rank;
  MPI_Sendrecv(k->sbuf, k->count, MPI_BYTE, other, TAG, k->rbuf, k->count,
               MPI_BYTE, other, TAG, k->comm, MPI_STATUS_IGNORE);
  return since(t0);
}

/* --------------------------------------------------------- collectives */

static double run_barrier(rp_kctx *k, double t0) {
  MPI_Barrier(k->comm);
  return since(t0);
}

static double run_bcast(rp_kctx *k, double t0) {
  MPI_Bcast(k->sbuf, k->count, MPI_BYTE, 0, k->comm);
  return since(t0);
}

static double run_reduce(rp_kctx *k, double t0) {
  MPI_Reduce(k->sbuf, k->rbuf, k->count, MPI_UNSIGNED_CHAR, MPI_SUM, 0,
             k->comm);
  return since(t0);
}

/* A member's own part of a rooted call (the rows a rooted rule uses for
 * one member, docs/revprof.md "Rooted collectives"). */

/* The root's own time in MPI_Bcast, the members starting together: its
 * sends (eager: they return before the data arrives; rendezvous: they
 * wait for the receivers). */
static double run_bcast_root(rp_kctx *k, double t0) {
  MPI_Bcast(k->sbuf, k->count, MPI_BYTE, 0, k->comm);
  return k->rank == 0 ? since(t0) : RP_NOT_TIMED;
}

void rp_wait_until(double t) {
#ifdef RP_SMPI
  double now = MPI_Wtime(); /* simulated clock: sleep to t */
  if (now < t) {
    double w = t - now;
    struct timespec ts = {(time_t)w, (long)((w - floor(w)) * 1e9) + 1};
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    nanosleep(&ts, NULL); /* smpi_nanosleep: advances simulated time */
  }
#else
  while (MPI_Wtime() < t)
    ; /* spin */
#endif
}

/* ------------------------------------------------------- eager limit */

#define TAG_EAGER_D (TAG + 2) /* the next size, from rank 0 to rank 1 */

typedef struct eager_arg {
  MPI_Comm comm;
  unsigned char *buf;
} eager_arg;

/* Rank 0: whether an MPI_Send of d bytes waits for a receive posted
 * RP_EAGER_DELAY late (rank 1 is told d, then posts late each time). */
static int send_waits(long d, void *arg) {
  eager_arg *a = arg;
  int waited = 0;
  MPI_Send(&d, 1, MPI_LONG, 1, TAG_EAGER_D, a->comm);
  for (int i = 0; i < RP_EAGER_REPS; i++) {
    MPI_Barrier(a->comm);
    double t = MPI_Wtime();
    MPI_Send(a->buf, (int)d, MPI_BYTE, 1, TAG, a->comm);
    waited += MPI_Wtime() - t > RP_EAGER_DELAY / 2;
  }
  return 2 * waited > RP_EAGER_REPS;
}

double rp_eager_probe(MPI_Comm p2p, long dmax) {
  int rank;
  MPI_Comm_rank(p2p, &rank);
  if (dmax > INT_MAX)
    dmax = INT_MAX;
  eager_arg a = {p2p, malloc(dmax > 0 ? (size_t)dmax : 1)};
  long d = 0;
  int ok = a.buf != NULL, all;
  double limit = 0.0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, p2p);
  if (!all) /* both skip: rank 1 is told d = 0 at once */
    dmax = 0;
  else
    memset(a.buf, 1, (size_t)(dmax > 0 ? dmax : 1));
  if (rank == 0) { /* two searches that agree, else the median of three:
                      a send descheduled past the delay misleads one */
    double l[3];
    for (int i = 0; i < 3; i++) {
      l[i] = rp_char_eager_search(dmax, send_waits, &a);
      if (i == 1 && l[0] == l[1])
        break;
    }
    if (l[0] == l[1])
      limit = l[0];
    else /* the median of the three */
      limit = fmax(fmin(l[0], l[1]), fmin(fmax(l[0], l[1]), l[2]));
    MPI_Send(&d, 1, MPI_LONG, 1, TAG_EAGER_D, p2p); /* done */
  } else
    for (;;) {
      MPI_Recv(&d, 1, MPI_LONG, 0, TAG_EAGER_D, p2p, MPI_STATUS_IGNORE);
      if (d <= 0)
        break;
      for (int i = 0; i < RP_EAGER_REPS; i++) {
        MPI_Barrier(p2p);
        rp_wait_until(MPI_Wtime() + RP_EAGER_DELAY);
        MPI_Recv(a.buf, (int)d, MPI_BYTE, 0, TAG, p2p, MPI_STATUS_IGNORE);
      }
    }
  free(a.buf);
  return limit;
}

static void rooted_call(rp_kctx *k, int reduce) {
  if (reduce)
    MPI_Reduce(k->sbuf, k->rbuf, k->count, MPI_UNSIGNED_CHAR, MPI_SUM, 0,
               k->comm);
  else
    MPI_Bcast(k->sbuf, k->count, MPI_BYTE, 0, k->comm);
}

/* A member that comes last (rank p - 1; the root is 0): the others call
 * at once, it calls when their data had time to reach it (twice the
 * slowest member's time in an untimed call just before, and 10 us), and
 * times its own call from its entry: what a member pays for a broadcast
 * whose data is there, or for its part of a reduction that waits for no
 * one. */
static double late_member(rp_kctx *k, int reduce) {
  double t = MPI_Wtime(), mine, worst;
  rooted_call(k, reduce);
  mine = MPI_Wtime() - t;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, k->comm);
  int last = k->rank == k->size - 1;
  if (last)
    rp_wait_until(MPI_Wtime() + 2.0 * worst + 10e-6);
  t = MPI_Wtime();
  rooted_call(k, reduce);
  return last ? since(t) : RP_NOT_TIMED;
}

static double run_bcast_late(rp_kctx *k, double t0) {
  (void)t0;
  return late_member(k, 0);
}

static double run_reduce_late(rp_kctx *k, double t0) {
  (void)t0;
  return late_member(k, 1);
}

static double run_allreduce(rp_kctx *k, double t0) {
  MPI_Allreduce(k->sbuf, k->rbuf, k->count, MPI_UNSIGNED_CHAR, MPI_SUM,
                k->comm);
  return since(t0);
}

static double run_gather(rp_kctx *k, double t0) {
  MPI_Gather(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->count, MPI_BYTE, 0,
             k->comm);
  return since(t0);
}

static double run_gatherv(rp_kctx *k, double t0) {
  MPI_Gatherv(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->counts, k->displs,
              MPI_BYTE, 0, k->comm);
  return since(t0);
}

static double run_scatter(rp_kctx *k, double t0) {
  MPI_Scatter(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->count, MPI_BYTE, 0,
              k->comm);
  return since(t0);
}

static double run_scatterv(rp_kctx *k, double t0) {
  MPI_Scatterv(k->sbuf, k->counts, k->displs, MPI_BYTE, k->rbuf, k->count,
               MPI_BYTE, 0, k->comm);
  return since(t0);
}

static double run_allgather(rp_kctx *k, double t0) {
  MPI_Allgather(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->count, MPI_BYTE,
                k->comm);
  return since(t0);
}

static double run_allgatherv(rp_kctx *k, double t0) {
  MPI_Allgatherv(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->counts, k->displs,
                 MPI_BYTE, k->comm);
  return since(t0);
}

static double run_alltoall(rp_kctx *k, double t0) {
  MPI_Alltoall(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->count, MPI_BYTE,
               k->comm);
  return since(t0);
}

static double run_alltoallv(rp_kctx *k, double t0) {
  MPI_Alltoallv(k->sbuf, k->counts, k->displs, MPI_BYTE, k->rbuf, k->counts,
                k->displs, MPI_BYTE, k->comm);
  return since(t0);
}

static double run_reduce_scatter(rp_kctx *k, double t0) {
  MPI_Reduce_scatter(k->sbuf, k->rbuf, k->counts, MPI_UNSIGNED_CHAR, MPI_SUM,
                     k->comm);
  return since(t0);
}

static double run_reduce_scatter_block(rp_kctx *k, double t0) {
  MPI_Reduce_scatter_block(k->sbuf, k->rbuf, k->count, MPI_UNSIGNED_CHAR,
                           MPI_SUM, k->comm);
  return since(t0);
}

static double run_scan(rp_kctx *k, double t0) {
  MPI_Scan(k->sbuf, k->rbuf, k->count, MPI_UNSIGNED_CHAR, MPI_SUM, k->comm);
  return since(t0);
}

static double run_exscan(rp_kctx *k, double t0) {
  MPI_Exscan(k->sbuf, k->rbuf, k->count, MPI_UNSIGNED_CHAR, MPI_SUM,
             k->comm);
  return since(t0);
}

/* Non-blocking collectives: initiation and completion by MPI_Wait. */
static double run_ibarrier(rp_kctx *k, double t0) {
  MPI_Ibarrier(k->comm, &k->req);
  MPI_Wait(&k->req, MPI_STATUS_IGNORE);
  return since(t0);
}

static double run_ibcast(rp_kctx *k, double t0) {
  MPI_Ibcast(k->sbuf, k->count, MPI_BYTE, 0, k->comm, &k->req);
  MPI_Wait(&k->req, MPI_STATUS_IGNORE);
  return since(t0);
}

static double run_iallreduce(rp_kctx *k, double t0) {
  MPI_Iallreduce(k->sbuf, k->rbuf, k->count, MPI_UNSIGNED_CHAR, MPI_SUM,
                 k->comm, &k->req);
  MPI_Wait(&k->req, MPI_STATUS_IGNORE);
  return since(t0);
}

static double run_ialltoall(rp_kctx *k, double t0) {
  MPI_Ialltoall(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->count, MPI_BYTE,
                k->comm, &k->req);
  MPI_Wait(&k->req, MPI_STATUS_IGNORE);
  return since(t0);
}

/* --------------------------------------------------------------- local */

/* Cost of one MPI_Wtime call: a loop of RP_WTIME_CALLS calls between two
 * more, so the start of the repetition does not matter. */
static double run_wtime(rp_kctx *k, double t0) {
  volatile double sink = 0.0;
  (void)k;
  (void)t0;
  double a = MPI_Wtime();
  for (int i = 0; i < RP_WTIME_CALLS; i++)
    sink += MPI_Wtime();
  double b = MPI_Wtime();
  (void)sink;
  return (b - a) / RP_WTIME_CALLS;
}

/* ------------------------------------------------------------ one-sided */

/* Rank 0 works on rank 1's window under a shared lock taken before the
 * synchronization; each operation is timed with the flush that completes
 * it at the target (what an epoch's end waits for). */
static void lock_target(rp_kctx *k) {
  if (k->rank == 0)
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, k->win);
}

static void unlock_target(rp_kctx *k) {
  if (k->rank == 0)
    MPI_Win_unlock(1, k->win);
}

/* MPI_Put, MPI_Get or MPI_Accumulate (k->fn) of d bytes to rank 1 and the
 * flush that completes it there */
static double run_rma_op(rp_kctx *k, double t0) {
  if (k->rank != 0)
    return RP_NOT_TIMED;
  if (k->fn == REVPROF_FN_PUT)
    MPI_Put(k->sbuf, k->count, MPI_BYTE, 1, 0, k->count, MPI_BYTE, k->win);
  else if (k->fn == REVPROF_FN_GET)
    MPI_Get(k->sbuf, k->count, MPI_BYTE, 1, 0, k->count, MPI_BYTE, k->win);
  else
    MPI_Accumulate(k->sbuf, k->count, MPI_UNSIGNED_CHAR, 1, 0, k->count,
                   MPI_UNSIGNED_CHAR, MPI_SUM, k->win);
  MPI_Win_flush(1, k->win);
  return since(t0);
}

static double run_win_lock(rp_kctx *k, double t0) {
  if (k->rank != 0)
    return RP_NOT_TIMED;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, k->win);
  MPI_Win_unlock(1, k->win);
  return since(t0);
}

static double run_win_fence(rp_kctx *k, double t0) {
  MPI_Win_fence(0, k->win);
  return since(t0);
}

/* ------------------------------------------------ neighbourhood */

#ifndef RP_SMPI /* SimGrid 3.32's SMPI implements no neighbourhood
                   collectives (nor distributed graphs) */
static double run_neighbor_allgather(rp_kctx *k, double t0) {
  MPI_Neighbor_allgather(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->count,
                         MPI_BYTE, k->graph);
  return since(t0);
}

static double run_neighbor_alltoall(rp_kctx *k, double t0) {
  MPI_Neighbor_alltoall(k->sbuf, k->count, MPI_BYTE, k->rbuf, k->count,
                        MPI_BYTE, k->graph);
  return since(t0);
}
#endif

/* ------------------------------------------------------------- file I/O */

#ifndef RP_SMPI /* SimGrid 3.32's SMPI declares MPI-IO, but aborts on a host
                   without a simulated disk and crashed writing on one */
#define IO_MODE (MPI_MODE_CREATE | MPI_MODE_RDWR)

/* A call on the point's file failed while timing, after rp_kctx_init found
 * the file usable (file system full or gone): measuring cannot go on. */
static void io_fatal(const rp_kctx *k, const char *call, int rc) {
  char msg[MPI_MAX_ERROR_STRING] = "";
  int n = 0;
  MPI_Error_string(rc, msg, &n);
  fprintf(stderr, "revprof-characterize: %s on %s failed: %s\n", call,
          k->path, msg);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Removes the point's file once every member has closed it. */
static void io_remove(rp_kctx *k) {
  MPI_Barrier(k->comm);
  if (k->rank == 0)
    MPI_File_delete(k->path, MPI_INFO_NULL);
}

/* Each repetition opens (and creates) a new file; closed and removed
 * after the clock stops. */
static double run_file_open(rp_kctx *k, double t0) {
  int rc = MPI_File_open(k->comm, k->path, IO_MODE, MPI_INFO_NULL, &k->fh);
  double t = since(t0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_open", rc);
  return t;
}

static void close_and_remove(rp_kctx *k) {
  int rc = MPI_File_close(&k->fh);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_close", rc);
  io_remove(k);
}

/* The file MPI_File_close closes, opened before the synchronization. */
static void open_ahead(rp_kctx *k) {
  int rc = MPI_File_open(k->comm, k->path, IO_MODE, MPI_INFO_NULL, &k->fh);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_open", rc);
}

static double run_file_close(rp_kctx *k, double t0) {
  int rc = MPI_File_close(&k->fh);
  double t = since(t0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_close", rc);
  return t;
}

/* MPI_File_write_at, _read_at or their _all forms (k->fn): d bytes at this
 * rank's own offset rank * d of the file kept open over the point */
static double run_file_rw(rp_kctx *k, double t0) {
  MPI_Offset at = (MPI_Offset)k->rank * k->count;
  int rc;
  if (k->fn == REVPROF_FN_FILE_WRITE_AT)
    rc = MPI_File_write_at(k->fh, at, k->sbuf, k->count, MPI_BYTE,
                           MPI_STATUS_IGNORE);
  else if (k->fn == REVPROF_FN_FILE_READ_AT)
    rc = MPI_File_read_at(k->fh, at, k->rbuf, k->count, MPI_BYTE,
                          MPI_STATUS_IGNORE);
  else if (k->fn == REVPROF_FN_FILE_WRITE_AT_ALL)
    rc = MPI_File_write_at_all(k->fh, at, k->sbuf, k->count, MPI_BYTE,
                               MPI_STATUS_IGNORE);
  else
    rc = MPI_File_read_at_all(k->fh, at, k->rbuf, k->count, MPI_BYTE,
                              MPI_STATUS_IGNORE);
  double t = since(t0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, revprof_fn_name(k->fn), rc);
  return t;
}

/* MPI_File_sync: each member first writes RP_IO_SYNC_BYTES at its own
 * offset (untimed), so that every repetition has the same data to flush. */
static void write_ahead(rp_kctx *k) {
  int rc = MPI_File_write_at(k->fh, (MPI_Offset)k->rank * RP_IO_SYNC_BYTES,
                             k->sbuf, RP_IO_SYNC_BYTES, MPI_BYTE,
                             MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_write_at", rc);
}

static double run_file_sync(rp_kctx *k, double t0) {
  int rc = MPI_File_sync(k->fh);
  double t = since(t0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_sync", rc);
  return t;
}

/* MPI_File_set_size and _preallocate start from an empty file (collective,
 * untimed), so that each repetition allocates d bytes anew. */
static void truncate_ahead(rp_kctx *k) {
  int rc = MPI_File_set_size(k->fh, 0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_set_size", rc);
}

static double run_file_size(rp_kctx *k, double t0) {
  int rc = k->fn == REVPROF_FN_FILE_SET_SIZE
               ? MPI_File_set_size(k->fh, (MPI_Offset)k->count)
               : MPI_File_preallocate(k->fh, (MPI_Offset)k->count);
  double t = since(t0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, revprof_fn_name(k->fn), rc);
  return t;
}

/* The plainest view: bytes from the file's start, contiguous */
static double run_file_set_view(rp_kctx *k, double t0) {
  int rc = MPI_File_set_view(k->fh, 0, MPI_BYTE, MPI_BYTE, "native",
                             MPI_INFO_NULL);
  double t = since(t0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_set_view", rc);
  return t;
}

/* MPI_File_delete (one rank, MPI_COMM_SELF): the file it deletes is made
 * and closed before the synchronization. */
static void create_ahead(rp_kctx *k) {
  open_ahead(k);
  int rc = MPI_File_close(&k->fh);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_close", rc);
}

static double run_file_delete(rp_kctx *k, double t0) {
  int rc = MPI_File_delete(k->path, MPI_INFO_NULL);
  double t = since(t0);
  if (rc != MPI_SUCCESS)
    io_fatal(k, "MPI_File_delete", rc);
  return t;
}

/* A failure while setting a point up: said once per process, the point is
 * left out (run.txt lists it) and the run goes on. */
static int io_setup_failed(const rp_kctx *k, const char *call, int rc) {
  static int said;
  char msg[MPI_MAX_ERROR_STRING] = "";
  int n = 0;
  MPI_Error_string(rc, msg, &n);
  if (!said)
    fprintf(stderr, "revprof-characterize: %s on %s failed: %s; points "
                    "whose file cannot be set up are left out (run.txt)\n",
            call, k->path, msg);
  said = 1;
  return REVPROF_EIO;
}

/* Names the point's file (rank 0 numbers it) and opens it on every member.
 * Reads and writes keep it open with their regions written once, so that
 * each repetition reads existing data or overwrites it. A collective read
 * may read other members' data for them, so for it the data are synced
 * first (MPI's sync-barrier-sync; an independent read reads its own rank's
 * writes, visible without). Sync, set_size, preallocate and set_view keep
 * it open, empty. Open, close and delete try the file once and remove it;
 * their repetitions make their own. */
static int io_init(rp_kctx *k, rp_io_place *io, int ok) {
  long seq = k->rank == 0 ? ++io->seq : 0;
  MPI_Bcast(&seq, 1, MPI_LONG, 0, k->comm);
  snprintf(k->path, sizeof k->path, "%s/revprof-io-%ld-%ld.dat", io->dir,
           io->tag, seq);
  int rc = MPI_File_open(k->comm, k->path, IO_MODE, MPI_INFO_NULL, &k->fh);
  if (rc != MPI_SUCCESS) {
    k->fh = MPI_FILE_NULL;
    return io_setup_failed(k, "MPI_File_open", rc);
  }
  if (k->fn == REVPROF_FN_FILE_OPEN || k->fn == REVPROF_FN_FILE_CLOSE ||
      k->fn == REVPROF_FN_FILE_DELETE) {
    rc = MPI_File_close(&k->fh);
    io_remove(k);
    return rc == MPI_SUCCESS ? 0 : io_setup_failed(k, "MPI_File_close", rc);
  }
  if (k->fn != REVPROF_FN_FILE_WRITE_AT && k->fn != REVPROF_FN_FILE_READ_AT &&
      k->fn != REVPROF_FN_FILE_WRITE_AT_ALL &&
      k->fn != REVPROF_FN_FILE_READ_AT_ALL)
    return 0; /* sync, set_size, preallocate, set_view: the file, open */
  int rw = MPI_SUCCESS, s1 = MPI_SUCCESS, s2 = MPI_SUCCESS;
  int shared = k->fn == REVPROF_FN_FILE_READ_AT_ALL;
  if (ok)
    rw = MPI_File_write_at(k->fh, (MPI_Offset)k->rank * k->count, k->sbuf,
                           k->count, MPI_BYTE, MPI_STATUS_IGNORE);
  if (shared) /* collective: every member, ok or not */
    s1 = MPI_File_sync(k->fh);
  MPI_Barrier(k->comm);
  if (shared)
    s2 = MPI_File_sync(k->fh);
  if (rw != MPI_SUCCESS)
    return io_setup_failed(k, "MPI_File_write_at", rw);
  if (s1 != MPI_SUCCESS || s2 != MPI_SUCCESS)
    return io_setup_failed(k, "MPI_File_sync", s1 != MPI_SUCCESS ? s1 : s2);
  return 0;
}
#endif

/* ---------------------------------------------------------------- table */

static const rp_kernel kernels[REVPROF_FN_COUNT] = {
    [REVPROF_FN_SEND] = {post_irecv_on_1, run_send, wait_req},
    [REVPROF_FN_RECV] = {send_ahead, run_recv, wait_req},
    [REVPROF_FN_LATENCY] = {NULL, run_latency, NULL},
    [REVPROF_FN_ISEND] = {post_irecv_on_1, run_isend, wait_req},
    [REVPROF_FN_IRECV] = {send_ahead, run_irecv, wait_req},
    [REVPROF_FN_SENDRECV] = {NULL, run_sendrecv, NULL},
    [REVPROF_FN_WAIT] = {post_and_deliver, run_wait, NULL},
    [REVPROF_FN_GAP] = {NULL, run_gap, NULL},
    [REVPROF_FN_POST] = {NULL, run_post, NULL},
    [REVPROF_FN_GAP_ALL] = {NULL, run_gap_all, NULL},
    [REVPROF_FN_BARRIER] = {NULL, run_barrier, NULL},
    [REVPROF_FN_BCAST] = {NULL, run_bcast, NULL},
    [REVPROF_FN_REDUCE] = {NULL, run_reduce, NULL},
    [REVPROF_FN_BCAST_ROOT] = {NULL, run_bcast_root, NULL},
    [REVPROF_FN_BCAST_LATE] = {NULL, run_bcast_late, NULL},
    [REVPROF_FN_REDUCE_LATE] = {NULL, run_reduce_late, NULL},
    [REVPROF_FN_ALLREDUCE] = {NULL, run_allreduce, NULL},
    [REVPROF_FN_GATHER] = {NULL, run_gather, NULL},
    [REVPROF_FN_GATHERV] = {NULL, run_gatherv, NULL},
    [REVPROF_FN_SCATTER] = {NULL, run_scatter, NULL},
    [REVPROF_FN_SCATTERV] = {NULL, run_scatterv, NULL},
    [REVPROF_FN_ALLGATHER] = {NULL, run_allgather, NULL},
    [REVPROF_FN_ALLGATHERV] = {NULL, run_allgatherv, NULL},
    [REVPROF_FN_ALLTOALL] = {NULL, run_alltoall, NULL},
    [REVPROF_FN_ALLTOALLV] = {NULL, run_alltoallv, NULL},
    [REVPROF_FN_REDUCE_SCATTER] = {NULL, run_reduce_scatter, NULL},
    [REVPROF_FN_REDUCE_SCATTER_BLOCK] = {NULL, run_reduce_scatter_block,
                                         NULL},
    [REVPROF_FN_SCAN] = {NULL, run_scan, NULL},
    [REVPROF_FN_EXSCAN] = {NULL, run_exscan, NULL},
    [REVPROF_FN_IBARRIER] = {NULL, run_ibarrier, NULL},
    [REVPROF_FN_IBCAST] = {NULL, run_ibcast, NULL},
    [REVPROF_FN_IALLREDUCE] = {NULL, run_iallreduce, NULL},
    [REVPROF_FN_IALLTOALL] = {NULL, run_ialltoall, NULL},
    [REVPROF_FN_WTIME] = {NULL, run_wtime, NULL},
    [REVPROF_FN_PUT] = {lock_target, run_rma_op, unlock_target},
    [REVPROF_FN_GET] = {lock_target, run_rma_op, unlock_target},
    [REVPROF_FN_ACCUMULATE] = {lock_target, run_rma_op, unlock_target},
    [REVPROF_FN_WIN_LOCK] = {NULL, run_win_lock, NULL},
    [REVPROF_FN_WIN_FENCE] = {NULL, run_win_fence, NULL},
#ifndef RP_SMPI
    [REVPROF_FN_NEIGHBOR_ALLGATHER] = {NULL, run_neighbor_allgather, NULL},
    [REVPROF_FN_NEIGHBOR_ALLTOALL] = {NULL, run_neighbor_alltoall, NULL},
    [REVPROF_FN_FILE_OPEN] = {NULL, run_file_open, close_and_remove},
    [REVPROF_FN_FILE_CLOSE] = {open_ahead, run_file_close, io_remove},
    [REVPROF_FN_FILE_WRITE_AT] = {NULL, run_file_rw, NULL},
    [REVPROF_FN_FILE_READ_AT] = {NULL, run_file_rw, NULL},
    [REVPROF_FN_FILE_WRITE_AT_ALL] = {NULL, run_file_rw, NULL},
    [REVPROF_FN_FILE_READ_AT_ALL] = {NULL, run_file_rw, NULL},
    [REVPROF_FN_FILE_SYNC] = {write_ahead, run_file_sync, NULL},
    [REVPROF_FN_FILE_SET_SIZE] = {truncate_ahead, run_file_size, NULL},
    [REVPROF_FN_FILE_PREALLOCATE] = {truncate_ahead, run_file_size, NULL},
    [REVPROF_FN_FILE_SET_VIEW] = {NULL, run_file_set_view, NULL},
    [REVPROF_FN_FILE_DELETE] = {create_ahead, run_file_delete, NULL},
#endif
};

#ifndef RP_SMPI
/* comm as a distributed graph in which every member is the neighbour of
 * every other (collective over comm) */
static MPI_Comm complete_graph(MPI_Comm comm, int rank, int size) {
  MPI_Comm g = MPI_COMM_NULL;
  int n = size - 1;
  int *nb = malloc((size_t)(n > 0 ? n : 1) * sizeof *nb);
  int *wt = malloc((size_t)(n > 0 ? n : 1) * sizeof *wt);
  if (nb == NULL || wt == NULL)
    n = 0; /* still takes part: an empty neighbourhood */
  for (int i = 0, j = 0; n > 0 && i < size; i++)
    if (i != rank) {
      wt[j] = 1; /* equal weights (MPI_UNWEIGHTED upsets GCC's checks) */
      nb[j++] = i;
    }
  static int none[1];
  MPI_Dist_graph_create_adjacent(comm, n, n ? nb : none, n ? wt : none, n,
                                 n ? nb : none, n ? wt : none, MPI_INFO_NULL,
                                 0, &g);
  free(nb);
  free(wt);
  return g;
}
#endif

static int one_sided(revprof_fn fn) {
  return fn == REVPROF_FN_PUT || fn == REVPROF_FN_GET ||
         fn == REVPROF_FN_ACCUMULATE || fn == REVPROF_FN_WIN_LOCK ||
         fn == REVPROF_FN_WIN_FENCE;
}

const rp_kernel *rp_kernel_get(revprof_fn fn) {
  if ((unsigned)fn >= REVPROF_FN_COUNT || kernels[fn].run == NULL)
    return NULL;
  return &kernels[fn];
}

/* Page-aligned buffer of at least 64 bytes, filled with val. */
static unsigned char *buffer(size_t bytes, int val) {
  void *p = NULL;
  size_t n = bytes < 64 ? 64 : bytes;
  if (posix_memalign(&p, 4096, n) != 0)
    return NULL;
  memset(p, val, n); /* first touch before timing */
  return p;
}

int rp_kctx_init(rp_kctx *k, revprof_fn fn, MPI_Comm comm, long d,
                 rp_io_place *io) {
  size_t s, r;
  memset(k, 0, sizeof *k);
  k->fn = fn;
  k->comm = comm;
  k->req = MPI_REQUEST_NULL;
  k->win = MPI_WIN_NULL;
  k->graph = MPI_COMM_NULL;
  k->fh = MPI_FILE_NULL;
  MPI_Comm_rank(comm, &k->rank);
  MPI_Comm_size(comm, &k->size);
  k->count = (int)d;
  rp_char_buffers(fn, k->size, d, &s, &r);
  k->fill = 1; /* the byte the send buffer holds (rp_kctx_fresh) */
  k->sbuf = buffer(s, k->fill);
  k->sbytes = k->sbuf ? s : 0;
  k->rbuf = buffer(r, 0);
  k->counts = malloc((size_t)k->size * sizeof *k->counts);
  k->displs = malloc((size_t)k->size * sizeof *k->displs);
  int ok = k->sbuf && k->rbuf && k->counts && k->displs;
  if (one_sided(fn)) /* collective: every member, whatever ok says */
    MPI_Win_create(ok ? k->rbuf : NULL, ok ? (MPI_Aint)r : 0, 1,
                   MPI_INFO_NULL, comm, &k->win);
#ifndef RP_SMPI
  if (fn == REVPROF_FN_NEIGHBOR_ALLGATHER || fn == REVPROF_FN_NEIGHBOR_ALLTOALL)
    k->graph = complete_graph(comm, k->rank, k->size);
  if (rp_char_fn_io(fn)) { /* collective: every member, whatever ok says */
    int rc = io && io->dir ? io_init(k, io, ok) : REVPROF_EINVAL;
    if (rc != 0)
      return rc;
  }
#else
  (void)io;
#endif
  if (!ok)
    return REVPROF_ENOMEM;
  for (int i = 0; i < k->size; i++) {
    k->counts[i] = k->count;
    k->displs[i] = i * k->count; /* fits: rp_char_fits checked p * d */
  }
  return 0;
}

void rp_kctx_free(rp_kctx *k) {
  if (k->win != MPI_WIN_NULL)
    MPI_Win_free(&k->win);
  if (k->graph != MPI_COMM_NULL)
    MPI_Comm_free(&k->graph);
#ifndef RP_SMPI
  if (k->fh != MPI_FILE_NULL) { /* reads and writes: open over the point */
    MPI_File_close(&k->fh);
    io_remove(k);
  }
#endif
  free(k->sbuf);
  free(k->rbuf);
  free(k->counts);
  free(k->displs);
  k->sbuf = k->rbuf = NULL;
  k->counts = k->displs = NULL;
}

void rp_kctx_fresh(rp_kctx *k) {
#ifdef RP_SMPI
  (void)k;
#else
  if (k->sbytes == 0 || !rp_char_fresh_send(k->fn))
    return;
  k->fill = (unsigned char)(k->fill % 0x7f + 1); /* 1 .. 127, never the same
                                                    twice running */
  memset(k->sbuf, k->fill, k->sbytes);
#endif
}
