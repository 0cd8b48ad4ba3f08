/* Wildcard receives decided in predicted time (issue 15): a self-scheduling
 * master-worker, 20 rounds. Rank 0 hands a task to each worker, then
 * receives results with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) and gives
 * the next task (or a stop) to whoever answered. Worker w declares a task
 * cost of w * 100 us (revprof_compute_seconds) but really sleeps
 * (P - w) * SLEEP us before answering, so the worker first in predicted
 * time is the last one in real time. With the hand-written model
 * rp_exact_p2p_model.lua (constants in rp_exact_p2p_model.h) rank 0
 * simulates the round on paper: the schedule (who answered, in order) and its three
 * clocks at the end of each round must equal the paper's to 1e-9 s.
 *
 * Arguments: [real] (REVPROF_WILDCARD=real: only the data are checked,
 * the schedule is the host's), [probe] (the master finds each result with
 * MPI_Probe(MPI_ANY_SOURCE) and receives it from the status's source),
 * [iprobe] (an MPI_Iprobe loop instead), [waitany] (the master keeps one
 * MPI_Irecv per worker and completes them with MPI_Waitany; on paper a
 * receive's message is there at max(t_send + latency, t_post + T_Irecv)
 * and the Waitany ends at max(now + o(d), that)), [testany] (the same
 * with an MPI_Testany loop), [waitsome], [testsome] (the same with
 * MPI_Waitsome or an MPI_Testsome loop: one receive per call), [flood] (no rounds: rank 1 sends FLOOD small
 * messages to rank 0 before rank 0 takes them with MPI_ANY_SOURCE, more
 * than a sender's log keeps: those beyond it are left to the MPI, in
 * order, and counted; prints "wildcard flood: ..."), [cancel] (no rounds,
 * 3 ranks or more: rank 1 cancels a send to rank 0, then only rank
 * 2 sends; rank 0's wildcard receive must take rank 2's message, not wait
 * for the cancelled one; where the MPI cannot cancel a send (Open MPI 4.1
 * and MPICH 4.0.2 cannot, here: the test then only checks that nothing
 * breaks), rank 0 takes that one first; prints "wildcard cancel: ..."),
 * [irecv] (the master takes each result with
 * MPI_Irecv(MPI_ANY_SOURCE) and MPI_Wait: the receive is deferred until
 * the Wait decides its message; on paper the first message there, at
 * t_send + latency, and the Wait ends at max(now + o(d), max(t_send +
 * latency, t_post + T_Irecv))), [irecvtest] (the same with an MPI_Test
 * loop), [defer] (no rounds, 3 ranks or more: MPI's order among deferred
 * wildcard receives and the receives, probes, cancels, frees and
 * completion calls around them, MPI_Sendrecv from MPI_ANY_SOURCE in
 * predicted order, and senders that wait for a pending receive's match
 * (rendezvous, MPI_Ssend) while its rank waits elsewhere, and the order
 * of two pending ones when the first is waited for; prints
 * "wildcard defer: ..."),
 * [exchange] (ranks in pairs, EXCHANGES times: each posts a receive
 * from MPI_ANY_SOURCE, then sends a rendezvous-sized MPI_Send to the
 * other, both leaving a barrier of the pair at once: a blocking send lets
 * the MPI have the pending receive before its own message is logged, or
 * each could wait in MPI_Recv for the other's logged, unsent message;
 * prints "wildcard exchange: ..."),
 * [stall] (rank 0 receives from MPI_ANY_SOURCE while rank 1 sleeps
 * STALL_US before it sends and ranks 2 and up wait in MPI_Recv for rank
 * 0: run with REVPROF_WILDCARD_STALL below the sleep, rank 0 says on
 * stderr that its receive waits and what the others do; prints "wildcard
 * stall: ..."),
 * [sendrecv] (4 ranks or more: rank 0 receives rank 3's 1 KiB from
 * MPI_ANY_SOURCE while rank 1, whose clock could still undercut it, is in
 * an MPI_Sendrecv with rank 2, which waits in MPI_Recv for rank 0: the
 * decision takes rank 3's message at once, no time-out; prints "wildcard
 * sendrecv: ..."; [waitrecv] and [waitallrecv]: the same with rank 1 in
 * MPI_Wait on an MPI_Irecv from rank 2 after an MPI_Send to it, or in
 * MPI_Waitall on an MPI_Irecv and an MPI_Isend; prints "wildcard
 * waitrecv: ..." or "wildcard waitallrecv: ..."),
 * [cycle] (every worker also waits
 * for the master with MPI_Recv before answering its first task: blocked
 * ranks that only the deciding rank can release). Prints "wildcard
 * exact: P ranks, N rounds, M mismatches". Run with
 * REVPROF_COMPUTE=annotate, REVPROF_STEP_MIN=5e-7, REVPROF_STEP=1e-6,
 * REVPROF_STEP_MAX=2e-6. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "revprof.h"
#include "rp_exact_p2p_model.h"

#define MAXP 16
#define ROUNDS 20
#define TASKS_PER_WORKER 3
#define SLEEP_US 4000
#define T_TASK 1
#define T_STOP 2
#define T_RESULT 3
#define T_FLOOD 4
#define FLOOD 1100 /* more than the log's 1024 per destination */
#define EXCHANGES 300
#define T_STALL 5
#define T_SR 6
#define STALL_US 2500000


static int P, rank, mismatches, real_mode, probe, iprobe, cycle, waitany,
    testany, flood, cancel, waitsome, testsome, irecv, irecvtest, defer,
    exchange, stall, sendrecv, waitrecv, waitallrecv;

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static double cost_of(int w) { return w * 1e-4; }

/* paper: every rank's clocks and endpoint, one bound at a time */
static double now[MAXP][NB], nic[MAXP][NB];

static double send_paper(int r, int b, double d) {
  double t = mx(now[r][b], nic[r][b]);
  nic[r][b] = t + L(&GAP_SMALL, b, d);
  now[r][b] += L(&SEND, b, d);
  return t;
}
static void recv_paper(int r, int b, double t_send, double d) {
  now[r][b] = mx(now[r][b] + L(&RECV, b, d), t_send + L(&LAT, b, d));
}
/* waitany: when each worker's receive was posted */
static double post[MAXP][NB];
static double there(int w, int b, double t_send, double d) {
  if (!waitany)
    return t_send + L(&LAT, b, d);
  return mx(t_send + L(&LAT, b, d), post[w][b] + L(&IRECV, b, d));
}

/* The round on paper from clocks t0 (all ranks after the barrier): the
 * schedule is decided on the avg bound, then each bound follows it. */
static void round_paper(const double t0[NB], const double nic0[NB],
                        int *order, int ntasks, double out[NB]) {
  const double d = (double)sizeof(int);
  double res_t[MAXP][NB]; /* each worker's pending result: departure */
  int pending[MAXP];
  for (int b = 0; b < NB; b++)
    for (int r = 0; r < P; r++) {
      now[r][b] = t0[b];
      nic[r][b] = nic0[b];
    }
  /* schedule on the avg bound, replayed for the others */
  for (int pass = 0; pass < 2; pass++) {
    for (int b = 0; b < NB; b++) {
      if (pass == 0 && b != 1)
        continue;
      if (pass == 1 && b == 1)
        continue;
      for (int r = 0; r < P; r++) {
        now[r][b] = t0[b];
        nic[r][b] = r == 0 ? nic0[b] : t0[b];
      }
      int next = 0, k = 0, out_n = 0;
      for (int w = 1; w < P && waitany; w++) /* the receives, posted */
        post[w][b] = now[0][b];
      for (int w = 1; w < P; w++) {
        double ts = send_paper(0, b, d);
        recv_paper(w, b, ts, d);
        if (cycle) { /* the worker's extra wait for a go from the master */
          double tg = send_paper(0, b, d);
          recv_paper(w, b, tg, d);
        }
        now[w][b] += cost_of(w);
        res_t[w][b] = send_paper(w, b, d);
        pending[w] = 1;
        next++;
        out_n++;
      }
      while (out_n > 0) {
        int who = -1;
        if (pass == 0) {
          for (int w = 1; w < P; w++)
            if (pending[w] && (who < 0 || there(w, b, res_t[w][b], d) <
                                              there(who, b, res_t[who][b], d)))
              who = w;
          order[k] = who;
        } else
          who = order[k];
        k++;
        pending[who] = 0;
        if (irecv) /* posted just before its Wait */
          now[0][b] = mx(now[0][b] + L(&WAIT, b, d),
                         mx(res_t[who][b] + L(&LAT, b, d),
                            now[0][b] + L(&IRECV, b, d)));
        else if (waitany) /* (a probe costs nothing: as a receive) */
          now[0][b] = mx(now[0][b] + L(&WAIT, b, d),
                         there(who, b, res_t[who][b], d));
        else
          recv_paper(0, b, res_t[who][b], d);
        double ts = send_paper(0, b, d);
        recv_paper(who, b, ts, d);
        if (waitany && next < ntasks) /* its next receive, posted */
          post[who][b] = now[0][b];
        if (next < ntasks) {
          next++;
          now[who][b] += cost_of(who);
          res_t[who][b] = send_paper(who, b, d);
          pending[who] = 1;
        } else
          out_n--;
      }
      out[b] = now[0][b];
    }
  }
}

static void check(const char *what, double got, double want) {
  if (fabs(got - want) > 1e-9) {
    if (mismatches++ < 10)
      fprintf(stderr, "rank %d: %s = %.12g, expected %.12g\n", rank, what,
              got, want);
  }
}

static int results[MAXP];
static MPI_Request rq[MAXP];

static void master(int ntasks, int *order) {
  int next = 0, out_n = 0, k = 0, task, go = 0;
  for (int w = 1; w < P && waitany; w++)
    MPI_Irecv(&results[w], 1, MPI_INT, w, T_RESULT, MPI_COMM_WORLD, &rq[w]);
  for (int w = 1; w < P; w++) {
    task = next++;
    MPI_Send(&task, 1, MPI_INT, w, T_TASK, MPI_COMM_WORLD);
    if (cycle)
      MPI_Send(&go, 1, MPI_INT, w, T_TASK, MPI_COMM_WORLD);
    out_n++;
  }
  while (out_n > 0) {
    MPI_Status st;
    int result = -1, src;
    if (waitany) {
      int i = -1, f = 0;
      if (waitsome) { /* one at a time, in predicted order */
        int idx[MAXP], n = 0;
        MPI_Status sts[MAXP];
        while (n == 0) {
          if (testsome)
            MPI_Testsome(P - 1, rq + 1, &n, idx, sts);
          else
            MPI_Waitsome(P - 1, rq + 1, &n, idx, sts);
        }
        if (n != 1 && mismatches++ < 10)
          fprintf(stderr, "Waitsome/Testsome completed %d\n", n);
        i = idx[0];
        st = sts[0];
      } else if (testany)
        while (!f)
          MPI_Testany(P - 1, rq + 1, &i, &f, &st);
      else
        MPI_Waitany(P - 1, rq + 1, &i, &st);
      result = results[i + 1];
    } else if (irecv) {
      MPI_Request r;
      int f = 0;
      MPI_Irecv(&result, 1, MPI_INT, MPI_ANY_SOURCE, T_RESULT, MPI_COMM_WORLD,
                &r);
      if (irecvtest)
        while (!f)
          MPI_Test(&r, &f, &st);
      else
        MPI_Wait(&r, &st);
    } else if (probe || iprobe) {
      int flag = 0;
      if (probe)
        MPI_Probe(MPI_ANY_SOURCE, T_RESULT, MPI_COMM_WORLD, &st);
      else
        while (!flag)
          MPI_Iprobe(MPI_ANY_SOURCE, T_RESULT, MPI_COMM_WORLD, &flag, &st);
      src = st.MPI_SOURCE;
      MPI_Recv(&result, 1, MPI_INT, src, T_RESULT, MPI_COMM_WORLD, &st);
    } else
      MPI_Recv(&result, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
               MPI_COMM_WORLD, &st);
    src = st.MPI_SOURCE;
    int n = 0;
    MPI_Get_count(&st, MPI_INT, &n);
    if (st.MPI_TAG != T_RESULT || n != 1 || result != 1000 * src + 7) {
      if (mismatches++ < 10)
        fprintf(stderr, "master: bad result %d tag %d count %d from %d\n",
                result, st.MPI_TAG, n, src);
    }
    order[k++] = src;
    if (next < ntasks) {
      task = next++;
      MPI_Send(&task, 1, MPI_INT, src, T_TASK, MPI_COMM_WORLD);
      if (waitany)
        MPI_Irecv(&results[src], 1, MPI_INT, src, T_RESULT, MPI_COMM_WORLD,
                  &rq[src]);
    } else {
      MPI_Send(&task, 1, MPI_INT, src, T_STOP, MPI_COMM_WORLD);
      out_n--;
    }
  }
}

static void worker(void) {
  int first = 1;
  for (;;) {
    int task, go;
    MPI_Status st;
    MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == T_STOP)
      break;
    if (cycle && first)
      MPI_Recv(&go, 1, MPI_INT, 0, T_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    first = 0;
    revprof_compute_seconds(cost_of(rank));
    sleep_us((long)(P - rank) * SLEEP_US);
    int result = 1000 * rank + 7;
    MPI_Send(&result, 1, MPI_INT, 0, T_RESULT, MPI_COMM_WORLD);
  }
}

static void expect(int ok, const char *what, int got) {
  if (!ok && mismatches++ < 10)
    fprintf(stderr, "defer: %s (got %d)\n", what, got);
}

static void send_int(int v, int to, int tag) {
  MPI_Send(&v, 1, MPI_INT, to, tag, MPI_COMM_WORLD);
}

/* [defer]: each stage between barriers; rank 0 receives */
static void defer_checks(void) {
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Status st;
  MPI_Request dq[2];
  int a = -1, b = -1, c = -1, f = 0, n = 0;
  /* 1. a receive from one source posted after a pending wildcard one:
     the wildcard takes the first message */
  if (rank == 1) {
    send_int(1, 0, 6);
    send_int(2, 0, 6);
  }
  if (rank == 0) {
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 6, w, &dq[0]);
    MPI_Recv(&b, 1, MPI_INT, 1, 6, w, &st);
    MPI_Wait(&dq[0], &st);
    expect(a == 1 && st.MPI_SOURCE == 1, "wildcard Irecv before a Recv", a);
    expect(b == 2, "the Recv after a wildcard Irecv", b);
  }
  MPI_Barrier(w);
  /* 2. two pending ones and MPI_Waitall: one message each, from the
     senders, ANY_TAG */
  if (rank == 1 || rank == 2)
    send_int(100 + rank, 0, 7);
  if (rank == 0) {
    MPI_Status sts[2];
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, &dq[0]);
    MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 7, w, &dq[1]);
    MPI_Waitall(2, dq, sts);
    expect(a == 100 + sts[0].MPI_SOURCE && sts[0].MPI_TAG == 7, "Waitall 1", a);
    expect(b == 100 + sts[1].MPI_SOURCE && sts[0].MPI_SOURCE != sts[1].MPI_SOURCE,
           "Waitall 2", b);
    MPI_Get_count(&sts[1], MPI_INT, &n);
    expect(n == 1, "count", n);
  }
  MPI_Barrier(w);
  /* 3. a probe after a pending one sees the second message */
  if (rank == 1) {
    send_int(31, 0, 12);
    send_int(32, 0, 12);
  }
  if (rank == 0) {
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 12, w, &dq[0]);
    MPI_Probe(MPI_ANY_SOURCE, 12, w, &st);
    MPI_Recv(&b, 1, MPI_INT, st.MPI_SOURCE, 12, w, &st);
    MPI_Wait(&dq[0], &st);
    expect(a == 31 && b == 32, "probe after a wildcard Irecv", a * 100 + b);
  }
  MPI_Barrier(w);
  /* 4. cancel; MPI_Request_get_status; Waitany over a wildcard and a
     receive from one source */
  if (rank == 0) {
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 8, w, &dq[0]);
    MPI_Cancel(&dq[0]);
    MPI_Wait(&dq[0], &st);
    MPI_Test_cancelled(&st, &f);
    expect(f == 1, "cancelled", f);
  }
  MPI_Barrier(w);
  if (rank == 2)
    send_int(11, 0, 11);
  if (rank == 0) {
    f = 0;
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 11, w, &dq[0]);
    while (!f)
      MPI_Request_get_status(dq[0], &f, &st);
    expect(st.MPI_SOURCE == 2, "Request_get_status's source", st.MPI_SOURCE);
    MPI_Wait(&dq[0], &st);
    expect(a == 11 && st.MPI_SOURCE == 2, "after Request_get_status", a);
  }
  MPI_Barrier(w);
  if (rank == 1)
    send_int(13, 0, 13);
  if (rank == 2)
    send_int(14, 0, 14);
  if (rank == 0) {
    int i, seen = 0;
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 13, w, &dq[0]);
    MPI_Irecv(&b, 1, MPI_INT, 2, 14, w, &dq[1]);
    for (int k = 0; k < 2; k++) {
      MPI_Waitany(2, dq, &i, &st);
      seen |= 1 << i;
    }
    expect(seen == 3 && a == 13 && b == 14, "Waitany", a * 100 + b);
  }
  MPI_Barrier(w);
  /* 5. freed while pending: the message is still taken (the next
     wildcard receive gets the one after it) */
  if (rank == 1) {
    send_int(51, 0, 15);
    send_int(52, 0, 15);
  }
  if (rank == 0) {
    static int lost = -1;
    MPI_Irecv(&lost, 1, MPI_INT, MPI_ANY_SOURCE, 15, w, &dq[0]);
    MPI_Request_free(&dq[0]);
    MPI_Recv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 15, w, &st);
    expect(c == 52, "the receive after a freed one", c);
  }
  MPI_Barrier(w);
  /* 6. MPI_Sendrecv from MPI_ANY_SOURCE takes the message first in
     predicted time: rank 2's (declared 100 us, then 20 ms asleep), not
     rank 1's (declared 300 us, no sleep), which is there first really */
  if (rank == 1 || rank == 2) {
    revprof_compute_seconds(rank == 1 ? 3e-4 : 1e-4);
    if (rank == 2)
      sleep_us(20000);
    send_int(60 + rank, 0, 21);
  }
  if (rank == 1)
    MPI_Recv(&c, 1, MPI_INT, 0, 20, w, &st);
  if (rank == 0) {
    int src;
    a = 60;
    MPI_Sendrecv(&a, 1, MPI_INT, 1, 20, &b, 1, MPI_INT, MPI_ANY_SOURCE, 21,
                 w, &st);
    src = st.MPI_SOURCE;
    MPI_Recv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 21, w, &st);
    expect(b == 60 + src && c == 60 + st.MPI_SOURCE && src != st.MPI_SOURCE,
           "Sendrecv's data", b);
    expect(!revprof_enabled() || src == 2,
           "Sendrecv from MPI_ANY_SOURCE: first in predicted time is rank 2",
           src);
  }
  MPI_Barrier(w);
  /* 7. senders that wait for the match of a pending wildcard receive
     while its rank waits for them elsewhere: a rendezvous-sized MPI_Send
     and an MPI_Ssend to rank 0 before a barrier it enters with the
     receives pending; both ranks 1 and 2 exchanging large messages from
     MPI_ANY_SOURCE receives posted first (natively none of these waits) */
  {
    enum { BIG = 1 << 17 };
    int *big = calloc(BIG, sizeof *big), *in = calloc(BIG, sizeof *in);
    if (rank == 0) {
      MPI_Irecv(in, BIG, MPI_INT, MPI_ANY_SOURCE, 30, w, &dq[0]);
      MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 31, w, &dq[1]);
    }
    if (rank == 1) {
      big[BIG - 1] = 77;
      MPI_Send(big, BIG, MPI_INT, 0, 30, w);
    }
    if (rank == 2) {
      b = 78;
      MPI_Ssend(&b, 1, MPI_INT, 0, 31, w);
    }
    MPI_Barrier(w);
    if (rank == 0) {
      MPI_Status sts[2];
      MPI_Waitall(2, dq, sts);
      expect(in[BIG - 1] == 77 && a == 78, "rendezvous and Ssend to pending receives", a);
    }
    if (rank == 1 || rank == 2) { /* exchange, receives posted first */
      int peer = 3 - rank;
      MPI_Request r;
      MPI_Irecv(in, BIG, MPI_INT, MPI_ANY_SOURCE, 32, w, &r);
      big[0] = rank;
      MPI_Send(big, BIG, MPI_INT, peer, 32, w);
      MPI_Wait(&r, &st);
      expect(in[0] == peer && st.MPI_SOURCE == peer, "large exchange", in[0]);
    }
    free(big);
    free(in);
  }
  MPI_Barrier(w);
  /* 8. (4 ranks or more) MPI_Wait on the first of two pending receives
     while rank 3 runs without MPI (nothing can be proven yet): the second
     must not go to the MPI before the first is decided, or it could take
     the message the first is decided on (HPCCG's make_local_matrix hung
     so) */
  if (P >= 4) {
    if (rank == 1)
      send_int(81, 0, 40);
    if (rank == 2) {
      sleep_us(5000);
      send_int(82, 0, 40);
    }
    if (rank == 3)
      sleep_us(30000);
    if (rank == 0) {
      MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 40, w, &dq[0]);
      MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 40, w, &dq[1]);
      MPI_Wait(&dq[0], &st);
      expect(a == 80 + st.MPI_SOURCE, "first of two pending", a);
      MPI_Wait(&dq[1], &st);
      expect(b == 80 + st.MPI_SOURCE && a + b == 163, "second of two pending",
             b);
    }
  }
  MPI_Barrier(w);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &mismatches, &mismatches, 1, MPI_INT,
             MPI_SUM, 0, w);
  if (rank == 0)
    printf("wildcard defer: %d ranks, %d mismatches\n", P, mismatches);
}

/* [exchange]: pairs (0, 1), (2, 3), ...; an odd last rank idles */
static void exchange_checks(void) {
  enum { BIG = 1 << 16 }; /* 256 KiB: rendezvous on every MPI */
  int peer = rank ^ 1, *out = calloc(BIG, sizeof *out),
      *in = calloc(BIG, sizeof *in);
  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, peer < P ? rank / 2 : MPI_UNDEFINED, rank,
                 &pair);
  for (int k = 0; peer < P && k < EXCHANGES; k++) {
    MPI_Request r;
    MPI_Status st;
    out[0] = k;
    out[BIG - 1] = rank;
    MPI_Barrier(pair);
    MPI_Irecv(in, BIG, MPI_INT, MPI_ANY_SOURCE, 33, MPI_COMM_WORLD, &r);
    MPI_Send(out, BIG, MPI_INT, peer, 33, MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    if ((in[0] != k || in[BIG - 1] != peer || st.MPI_SOURCE != peer) &&
        mismatches++ < 10)
      fprintf(stderr, "exchange %d: %d from %d (rank %d), expected %d from "
              "%d\n", k, in[0], in[BIG - 1], st.MPI_SOURCE, k, peer);
  }
  if (pair != MPI_COMM_NULL)
    MPI_Comm_free(&pair);
  free(out);
  free(in);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &mismatches, &mismatches, 1, MPI_INT,
             MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("wildcard exchange: %d ranks, %d exchanges, %d mismatches\n", P,
           EXCHANGES, mismatches);
}

/* [stall]: one wildcard receive that waits for a sleeping sender */
static void stall_checks(void) {
  int v = -1;
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_STALL, MPI_COMM_WORLD, &st);
    if ((v != 1 || st.MPI_SOURCE != 1) && mismatches++ < 10)
      fprintf(stderr, "stall: %d from %d, expected 1 from 1\n", v,
              st.MPI_SOURCE);
    for (int r = 2; r < P; r++)
      MPI_Send(&r, 1, MPI_INT, r, T_STALL, MPI_COMM_WORLD);
  } else if (rank == 1) {
    sleep_us(STALL_US);
    MPI_Send(&rank, 1, MPI_INT, 0, T_STALL, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&v, 1, MPI_INT, 0, T_STALL, MPI_COMM_WORLD, &st);
    if (v != rank && mismatches++ < 10)
      fprintf(stderr, "stall: rank %d got %d\n", rank, v);
  }
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &mismatches, &mismatches, 1, MPI_INT,
             MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("wildcard stall: %d ranks, %d mismatches\n", P, mismatches);
}

/* [sendrecv]: rank 0 decides rank 3's message (SR_INTS ints) while rank 1,
 * whose clock could undercut it, is inside MPI_Sendrecv waiting for rank
 * 2, which waits for rank 0 ([waitrecv]: inside MPI_Wait, [waitallrecv]:
 * inside MPI_Waitall, on a receive from rank 2; name: the variant) */
#define SR_INTS 256
static void sendrecv_checks(const char *name) {
  int v = -1, x = rank, *big = calloc(SR_INTS, sizeof *big);
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(big, SR_INTS, MPI_INT, MPI_ANY_SOURCE, T_SR, MPI_COMM_WORLD,
             &st);
    if ((big[0] != 3 || big[SR_INTS - 1] != 3 || st.MPI_SOURCE != 3) &&
        mismatches++ < 10)
      fprintf(stderr, "%s: %d from %d, expected 3 from 3\n", name, big[0],
              st.MPI_SOURCE);
    MPI_Send(&x, 1, MPI_INT, 2, T_SR, MPI_COMM_WORLD);
  } else if (rank == 1) {
    if (waitrecv || waitallrecv) {
      MPI_Request wq[2];
      MPI_Status wst[2];
      MPI_Irecv(&v, 1, MPI_INT, 2, T_SR, MPI_COMM_WORLD, &wq[0]);
      if (waitrecv) {
        MPI_Send(&x, 1, MPI_INT, 2, T_SR, MPI_COMM_WORLD);
        MPI_Wait(&wq[0], &st);
      } else {
        MPI_Isend(&x, 1, MPI_INT, 2, T_SR, MPI_COMM_WORLD, &wq[1]);
        MPI_Waitall(2, wq, wst);
      }
    } else
      MPI_Sendrecv(&x, 1, MPI_INT, 2, T_SR, &v, 1, MPI_INT, 2, T_SR,
                   MPI_COMM_WORLD, &st);
    if (v != 2 && mismatches++ < 10)
      fprintf(stderr, "%s: rank 1 got %d from rank 2\n", name, v);
  } else if (rank == 2) {
    MPI_Recv(&v, 1, MPI_INT, 0, T_SR, MPI_COMM_WORLD, &st);
    int w = -1;
    MPI_Recv(&w, 1, MPI_INT, 1, T_SR, MPI_COMM_WORLD, &st);
    if ((v != 0 || w != 1) && mismatches++ < 10)
      fprintf(stderr, "%s: rank 2 got %d and %d\n", name, v, w);
    MPI_Send(&x, 1, MPI_INT, 1, T_SR, MPI_COMM_WORLD);
  } else if (rank == 3) {
    big[0] = big[SR_INTS - 1] = 3;
    MPI_Send(big, SR_INTS, MPI_INT, 0, T_SR, MPI_COMM_WORLD);
  }
  free(big);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &mismatches, &mismatches, 1, MPI_INT,
             MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("wildcard %s: %d ranks, %d mismatches\n", name, P, mismatches);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (int i = 1; i < argc; i++) {
    real_mode |= strcmp(argv[i], "real") == 0;
    probe |= strcmp(argv[i], "probe") == 0;
    iprobe |= strcmp(argv[i], "iprobe") == 0;
    cycle |= strcmp(argv[i], "cycle") == 0;
    testany |= strcmp(argv[i], "testany") == 0;
    testsome |= strcmp(argv[i], "testsome") == 0;
    waitsome |= testsome || strcmp(argv[i], "waitsome") == 0;
    flood |= strcmp(argv[i], "flood") == 0;
    cancel |= strcmp(argv[i], "cancel") == 0;
    waitany |= testany || waitsome || strcmp(argv[i], "waitany") == 0;
    irecvtest |= strcmp(argv[i], "irecvtest") == 0;
    irecv |= irecvtest || strcmp(argv[i], "irecv") == 0;
    defer |= strcmp(argv[i], "defer") == 0;
    exchange |= strcmp(argv[i], "exchange") == 0;
    stall |= strcmp(argv[i], "stall") == 0;
    sendrecv |= strcmp(argv[i], "sendrecv") == 0;
    waitrecv |= strcmp(argv[i], "waitrecv") == 0;
    waitallrecv |= strcmp(argv[i], "waitallrecv") == 0;
  }
  if (P < 2 || P > MAXP) {
    if (rank == 0)
      fprintf(stderr, "rp_wildcard: 2 to %d ranks\n", MAXP);
    MPI_Finalize();
    return 1;
  }
  if (flood) { /* messages in order, whoever decides */
    if (rank == 1)
      for (int i = 0; i < FLOOD; i++)
        MPI_Send(&i, 1, MPI_INT, 0, T_FLOOD, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; rank == 0 && i < FLOOD; i++) {
      int v = -1;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_FLOOD, MPI_COMM_WORLD, &st);
      if ((v != i || st.MPI_SOURCE != 1) && mismatches++ < 10)
        fprintf(stderr, "flood: message %d from %d, expected %d from 1\n", v,
                st.MPI_SOURCE, i);
    }
    if (rank == 0)
      printf("wildcard flood: %d messages, %d mismatches\n", FLOOD,
             mismatches);
    MPI_Finalize();
    return 0;
  }
  if ((sendrecv || waitrecv || waitallrecv) && P >= 4) {
    sendrecv_checks(waitrecv      ? "waitrecv"
                    : waitallrecv ? "waitallrecv"
                                  : "sendrecv");
    MPI_Finalize();
    return 0;
  }
  if (stall) {
    stall_checks();
    MPI_Finalize();
    return 0;
  }
  if (exchange) {
    exchange_checks();
    MPI_Finalize();
    return 0;
  }
  if (defer && P >= 3) {
    defer_checks();
    MPI_Finalize();
    return 0;
  }
  if (cancel && P >= 3) {
    enum { BIG = 8 }; /* eager: its Wait returns, cancelled or not */
    char *big = calloc(BIG, 1);
    int gone = 0, v = -1;
    MPI_Status st;
    if (rank == 1) { /* a message the receiver has not matched */
      MPI_Request cr;
      MPI_Isend(big, BIG, MPI_CHAR, 0, T_FLOOD, MPI_COMM_WORLD, &cr);
      MPI_Cancel(&cr);
      MPI_Wait(&cr, &st);
      MPI_Test_cancelled(&st, &gone);
    }
    MPI_Bcast(&gone, 1, MPI_INT, 1, MPI_COMM_WORLD);
    if (rank == 0 && !gone) /* the MPI could not cancel it: take it */
      MPI_Recv(big, BIG, MPI_CHAR, MPI_ANY_SOURCE, T_FLOOD, MPI_COMM_WORLD,
               &st);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
      v = 2;
      MPI_Send(&v, 1, MPI_INT, 0, T_FLOOD, MPI_COMM_WORLD);
    }
    if (rank == 0) {
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_FLOOD, MPI_COMM_WORLD, &st);
      if ((v != 2 || st.MPI_SOURCE != 2) && mismatches++ < 10)
        fprintf(stderr, "cancel: got %d from %d\n", v, st.MPI_SOURCE);
      printf("wildcard cancel: send %s, %d mismatches\n",
             gone ? "cancelled" : "not cancelled (taken)", mismatches);
    }
    free(big);
    MPI_Finalize();
    return 0;
  }
  int ntasks = TASKS_PER_WORKER * (P - 1), order[MAXP * TASKS_PER_WORKER];
  int want[MAXP * TASKS_PER_WORKER], same_all = 1;
  double nic0[NB] = {0, 0, 0};
  for (int round = 0; round < ROUNDS; round++) {
    double t0[NB], t1[NB], exp_t[NB];
    MPI_Barrier(MPI_COMM_WORLD);
    revprof_now_bounds(&t0[0], &t0[1], &t0[2]);
    if (rank == 0) {
      master(ntasks, order);
      revprof_now_bounds(&t1[0], &t1[1], &t1[2]);
      round_paper(t0, nic0, want, ntasks, exp_t);
      /* the master's endpoint after its last send (stop to the last) */
      for (int b = 0; b < NB; b++)
        nic0[b] = nic[0][b];
      int same = memcmp(want, order, (size_t)ntasks * sizeof *order) == 0;
      same_all &= same;
      if (!real_mode && revprof_enabled()) {
        if (!same && mismatches++ < 10) {
          fprintf(stderr, "round %d: schedule", round);
          for (int k = 0; k < ntasks; k++)
            fprintf(stderr, " %d/%d", order[k], want[k]);
          fprintf(stderr, " (got/expected)\n");
        }
        const char *names[NB] = {"min", "avg", "max"};
        for (int b = 0; b < NB; b++) {
          char what[64];
          snprintf(what, sizeof what, "round %d end (%s)", round, names[b]);
          check(what, t1[b], exp_t[b]);
        }
      }
    } else
      worker();
  }
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &mismatches, &mismatches, 1, MPI_INT,
             MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("wildcard exact%s: %d ranks, %d rounds, %d mismatches; schedule "
           "%s the predicted one in every round\n",
           real_mode ? " (real)" : "", P, ROUNDS, mismatches,
           same_all ? "is" : "is not");
  MPI_Finalize();
  return 0;
}
