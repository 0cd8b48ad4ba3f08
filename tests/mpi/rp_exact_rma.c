/* Exactness of librevprof's one-sided rules (rp_rma.c) and neighbourhood
 * collectives (rp_nbr.c): with the
 * hand-written rp_exact_model.lua (constants repeated below) every rank's
 * three clocks after each phase must equal the analytic values to 1e-9 s.
 * Every rank computes every rank's clocks on paper, then compares its own.
 *   phase 1  fence epoch: each rank puts 4096 (r + 1) bytes, then 64,
 *            then 4096, to r + 1: without a gap row each put queues behind
 *            the one before, with one (argument "gap": the model has GAP
 *            below) each starts one gap after it; the closing fence's first half
 *            overlaps the puts in flight. Argument "load" (the model has
 *            GAP and GAP_ALL, REVPROF_CONTENTION=world): with 2 ranks or
 *            more every operation's gap is max(GAP, GAP_ALL(p)) and its
 *            completion later by max(0, GAP_ALL(p) - GAP), and every
 *            message's latency too; argument "epoch" (the same model,
 *            REVPROF_CONTENTION unset: epoch) the same for the operations
 *            of phases 1 and 2 (active target, the window's group is the
 *            world), not for phase 3's (passive target) nor for messages
 *   phase 2  post-start-complete-wait on a ring: r exposes to r - 1,
 *            gets 16 bytes from r + 1
 *   phase 3  passive target: an accumulate to rank 0 under a shared lock,
 *            then a put and a flush under lock_all
 *   phase 4  MPI_Neighbor_allgather on a 1-D ring, periodic and not: the
 *            clocks meet the neighbours' only (rp_nbr.c)
 *   phase 5  MPI_Ineighbor_allgather with computation before its wait,
 *            MPI_Neighbor_alltoallv (costed at its mean block)
 * Run with REVPROF_COMPUTE=annotate REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6
 * REVPROF_STEP_MAX=2e-6. Prints "rma exact: P ranks, M mismatches". */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "rp_exact_paper.h"

typedef struct lin {
  double c[NB], k[NB];
} lin;
static const lin PUT = {{1e-6, 2e-6, 4e-6}, {5e-10, 1e-9, 2e-9}};
static const lin GET = {{1.5e-6, 3e-6, 6e-6}, {1e-9, 2e-9, 4e-9}};
static const lin ACC = {{2e-6, 4e-6, 8e-6}, {1.5e-9, 3e-9, 6e-9}};
static const lin LOCK = {{3e-6, 6e-6, 1.2e-5}, {0, 0, 0}};
static const lin LAT = {{3e-6, 5e-6, 8e-6}, {1e-9, 2e-9, 4e-9}};
static const lin GAP = {{2e-7, 4e-7, 8e-7}, {2.5e-10, 5e-10, 1e-9}};
/* gap_all: the same constant, p * d times these */
static const lin GAP_ALL = {{2e-7, 4e-7, 8e-7}, {2e-10, 4e-10, 8e-10}};
static const lin A2A = {{3e-6, 4e-6, 8e-6}, {2e-9, 3e-9, 6e-9}};

static double L(const lin *f, int b, double d) { return f->c[b] + f->k[b] * d; }
static double fence_cost(int b, double p) {
  const double c[NB] = {3.5e-6, 7e-6, 1.4e-5}, s[NB] = {1.5e-6, 3e-6, 6e-6};
  return c[b] + s[b] * log2(p);
}

static double nbr_allgather(int b, double p, double d) {
  const double c[NB] = {1e-6, 2e-6, 4e-6}, s[NB] = {5e-7, 1e-6, 2e-6},
               k[NB] = {5e-10, 1e-9, 2e-9};
  return c[b] + s[b] * p + k[b] * d;
}

static int gapped, loaded, epoch; /* the run's variant */
static int passive; /* phase 3: operations under a lock */
static double nic[MAXP][NB]; /* each rank's endpoint free (gapped) */

static double gap_all(int b, double d) {
  return GAP_ALL.c[b] + GAP_ALL.k[b] * size * d;
}
/* what a d-byte message's bytes take longer under load (world) */
static double extra(int b, double d) {
  return loaded ? fmax(0.0, gap_all(b, d) - L(&GAP, b, d)) : 0.0;
}
/* ... and a one-sided operation's (world, or epoch outside a lock) */
static double extra_op(int b, double d) {
  return loaded || (epoch && !passive)
             ? fmax(0.0, gap_all(b, d) - L(&GAP, b, d))
             : 0.0;
}
/* rank r issues an operation of d bytes costing cost at T[r][b] with an
   empty queue: its completion (rp_rma_queue) */
static double issue(int r, int b, double d, double cost) {
  if (!gapped)
    return T[r][b] + cost;
  double t = fmax(T[r][b], nic[r][b]);
  nic[r][b] = t + L(&GAP, b, d) + extra_op(b, d);
  return t + cost + extra_op(b, d);
}

/* all clocks meet, then each adds a fence */
static void fence_rule(void) {
  for (int b = 0; b < NB; b++) {
    double m = 0.0;
    for (int r = 0; r < size; r++)
      m = fmax(m, T[r][b]);
    for (int r = 0; r < size; r++)
      T[r][b] = m + fence_cost(b, size);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  gapped = argc > 1 && (strcmp(argv[1], "gap") == 0 ||
                        strcmp(argv[1], "load") == 0 ||
                        strcmp(argv[1], "epoch") == 0);
  loaded = gapped && strcmp(argv[1], "load") == 0 && size > 1;
  epoch = gapped && strcmp(argv[1], "epoch") == 0 && size > 1;
  if (size > MAXP)
    MPI_Abort(MPI_COMM_WORLD, 2);
  char *base;
  MPI_Win win;
  MPI_Aint bytes = 4096 * (MPI_Aint)(size + 1) + 256;
  MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(T, 0, sizeof T);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  static char src[4096 * MAXP], dst[64];

  /* ---- phase 1: fence */
  REVPROF_COMPUTE_STEPS(10 * (rank + 1));
  for (int r = 0; r < size; r++)
    steps(r, 10 * (r + 1));
  MPI_Win_fence(0, win);
  fence_rule();
  REVPROF_COMPUTE_STEPS(rank + 1);
  MPI_Put(src, 4096 * (rank + 1), MPI_BYTE, next, 0, 4096 * (rank + 1),
          MPI_BYTE, win);
  MPI_Put(src, 64, MPI_BYTE, next, bytes - 256, 64, MPI_BYTE, win);
  MPI_Put(src, 4096, MPI_BYTE, next, 4096 * (MPI_Aint)size, 4096, MPI_BYTE,
          win);
  MPI_Win_fence(0, win);
  for (int r = 0; r < size; r++) {
    steps(r, r + 1);
    for (int b = 0; b < NB; b++) {
      double d1 = 4096.0 * (r + 1), t1 = L(&PUT, b, d1), t2 = L(&PUT, b, 64.0);
      double t3 = L(&PUT, b, 4096.0);
      double done = issue(r, b, d1, t1);
      done = gapped ? fmax(done, issue(r, b, 64.0, t2)) : done + t2;
      done = gapped ? fmax(done, issue(r, b, 4096.0, t3)) : done + t3;
      /* the fence's first half overlaps the puts' end */
      T[r][b] = fmax(T[r][b], done - 0.5 * fence_cost(b, size));
    }
  }
  fence_rule();
  compare("fence");

  /* ---- phase 2: post-start-complete-wait on a ring */
  MPI_Group world, to, from;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &next, &to);
  MPI_Group_incl(world, 1, &prev, &from);
  REVPROF_COMPUTE_STEPS(2 * (rank + 1));
  MPI_Win_post(from, 0, win);
  MPI_Win_start(to, 0, win);
  MPI_Get(dst, 16, MPI_BYTE, next, 0, 16, MPI_BYTE, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  double post[MAXP][NB], done[MAXP][NB];
  for (int r = 0; r < size; r++) {
    steps(r, 2 * (r + 1));
    memcpy(post[r], T[r], sizeof post[r]);
  }
  for (int r = 0; r < size; r++) /* start: the target's post arrives */
    for (int b = 0; b < NB; b++) {
      double arrive = post[(r + 1) % size][b] + L(&LAT, b, 0.0) + extra(b, 0);
      T[r][b] = fmax(T[r][b], arrive);
      T[r][b] = issue(r, b, 16.0, L(&GET, b, 16.0)); /* complete */
      done[r][b] = T[r][b];
    }
  for (int r = 0; r < size; r++) /* wait: the origin's complete arrives */
    for (int b = 0; b < NB; b++)
      T[r][b] = fmax(T[r][b], done[(r + size - 1) % size][b] +
                                  L(&LAT, b, 0.0) + extra(b, 0));
  compare("pscw");
  MPI_Group_free(&to);
  MPI_Group_free(&from);
  MPI_Group_free(&world);

  /* ---- phase 3: passive target */
  int one = 1;
  passive = 1;
  REVPROF_COMPUTE_STEPS(rank + 1);
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, bytes - 128, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Win_lock_all(0, win);
  MPI_Put(src, 8, MPI_BYTE, next, bytes - 64, 8, MPI_BYTE, win);
  MPI_Win_flush(next, win);
  MPI_Win_unlock_all(win);
  for (int r = 0; r < size; r++) {
    steps(r, r + 1);
    for (int b = 0; b < NB; b++) {
      T[r][b] = issue(r, b, 4.0, L(&ACC, b, 4.0)) + L(&LOCK, b, 0.0);
      T[r][b] = issue(r, b, 8.0, L(&PUT, b, 8.0)) + L(&LOCK, b, 0.0);
    }
  }
  compare("lock");
  passive = 0;

  /* ---- phase 4: neighbourhood allgather on a ring, periodic and not */
  for (int periodic = 1; periodic >= 0; periodic--) {
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {periodic};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    REVPROF_COMPUTE_STEPS(3 * (rank + 1));
    char nsend[16] = {0}, nrecv[32];
    MPI_Neighbor_allgather(nsend, 16, MPI_BYTE, nrecv, 16, MPI_BYTE, ring);
    double start[MAXP][NB];
    for (int r = 0; r < size; r++) {
      steps(r, 3 * (r + 1));
      memcpy(start[r], T[r], sizeof start[r]);
    }
    for (int r = 0; r < size; r++) {
      int l = r - 1, h = r + 1, k = 0;
      if (periodic) {
        l = (r + size - 1) % size;
        h = (r + 1) % size;
      }
      for (int b = 0; b < NB; b++) {
        double m = start[r][b];
        if (l >= 0)
          m = fmax(m, start[l][b]);
        if (h < size)
          m = fmax(m, start[h][b]);
        k = (l >= 0) + (h < size);
        T[r][b] = m + nbr_allgather(b, k + 1.0, 16.0);
      }
    }
    compare(periodic ? "neighbours (periodic)" : "neighbours");
    MPI_Comm_free(&ring);
  }

  /* ---- phase 5: non-blocking and v neighbourhood collectives on the
     periodic ring: MPI_Ineighbor_allgather's clocks leave at the start,
     the rule applies at the wait, after computing; MPI_Neighbor_alltoallv
     of 8 and 24 bytes costs the model's alltoall (here its fallback
     MPI_Alltoall) at its mean block of 16 bytes */
  {
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    char nsend[32] = {0}, nrecv[64];
    MPI_Request req;
    REVPROF_COMPUTE_STEPS(2 * (rank + 1));
    MPI_Ineighbor_allgather(nsend, 16, MPI_BYTE, nrecv, 16, MPI_BYTE, ring,
                            &req);
    REVPROF_COMPUTE_STEPS(7);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    double start[MAXP][NB];
    for (int r = 0; r < size; r++) {
      steps(r, 2 * (r + 1));
      memcpy(start[r], T[r], sizeof start[r]);
      steps(r, 7);
    }
    for (int r = 0; r < size; r++) {
      int l = (r + size - 1) % size, h = (r + 1) % size;
      for (int b = 0; b < NB; b++) {
        double m = fmax(start[r][b], fmax(start[l][b], start[h][b]));
        T[r][b] = fmax(T[r][b], m + nbr_allgather(b, 3.0, 16.0));
      }
    }
    compare("ineighbor");
#if MPI_VERSION >= 4
    /* the persistent form, started twice: each start as the non-blocking */
    MPI_Request pr;
    MPI_Neighbor_allgather_init(nsend, 16, MPI_BYTE, nrecv, 16, MPI_BYTE,
                                ring, MPI_INFO_NULL, &pr);
    for (int round = 0; round < 2; round++) {
      REVPROF_COMPUTE_STEPS((round + 1) * (rank + 1));
      MPI_Start(&pr);
      REVPROF_COMPUTE_STEPS(rank == 0 ? 40 : 2);
      MPI_Wait(&pr, MPI_STATUS_IGNORE);
      for (int r = 0; r < size; r++) {
        steps(r, (round + 1) * (r + 1));
        memcpy(start[r], T[r], sizeof start[r]);
        steps(r, r == 0 ? 40 : 2);
      }
      for (int r = 0; r < size; r++) {
        int l = (r + size - 1) % size, h = (r + 1) % size;
        for (int b = 0; b < NB; b++) {
          double m = fmax(start[r][b], fmax(start[l][b], start[h][b]));
          T[r][b] = fmax(T[r][b], m + nbr_allgather(b, 3.0, 16.0));
        }
      }
      compare("persistent neighbour allgather");
    }
    MPI_Request_free(&pr);
#endif
    int sc[2] = {8, 24}, sd[2] = {0, 8}, rc[2] = {24, 8}, rd[2] = {0, 24};
    REVPROF_COMPUTE_STEPS(rank + 1);
    MPI_Neighbor_alltoallv(nsend, sc, sd, MPI_BYTE, nrecv, rc, rd, MPI_BYTE,
                           ring);
    for (int r = 0; r < size; r++) {
      steps(r, r + 1);
      memcpy(start[r], T[r], sizeof start[r]);
    }
    for (int r = 0; r < size; r++) {
      int l = (r + size - 1) % size, h = (r + 1) % size;
      for (int b = 0; b < NB; b++)
        T[r][b] = fmax(start[r][b], fmax(start[l][b], start[h][b])) +
                  L(&A2A, b, 16.0);
    }
    compare("neighbor_alltoallv");
    MPI_Comm_free(&ring);
  }

  MPI_Win_free(&win);
  int all = 0;
  MPI_Reduce(&mismatches, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("rma exact%s: %d ranks, %d mismatches\n",
           argc > 1 && strcmp(argv[1], "load") == 0    ? " (load)"
           : argc > 1 && strcmp(argv[1], "epoch") == 0 ? " (epoch)"
           : gapped                                    ? " (gap row)"
                                                       : "",
           size, all);
  MPI_Finalize();
  return 0;
}
