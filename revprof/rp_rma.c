/* One-sided communication (issue 17): the clock rules of windows, in
 * predict mode. Each window revprof saw created carries, as an attribute,
 * a private communicator over its group (for the clock messages), the
 * origin's queue of operations (rp_rma_queue) and what its post-start-
 * complete-wait epochs need. The rules (docs/revprof.md, "One-sided"):
 *   - an operation costs its origin nothing when issued; it completes
 *     the model's MPI_Put, MPI_Get or MPI_Accumulate of its bytes later;
 *     with the model's gap row an origin's operations share its endpoint
 *     as its messages do (latencies overlap, bytes queue one gap apart),
 *     without it they go one after the other (rp_rma_queue); with its
 *     gap_all row too, an operation of an active-target epoch (no lock of
 *     the window held by this rank) drains at the rate of the window's
 *     group all moving data at once (REVPROF_CONTENTION=epoch, the
 *     default: fences and post-start-complete-wait are how a group
 *     exchanges data together), a passive-target one at the pair's;
 *   - a fence settles the queue and is a collective over the window's
 *     group: the clocks meet (their maximum) and the model's MPI_Win_fence
 *     is added; its first half overlaps the operations in flight;
 *   - post -> start and complete -> wait carry clocks as messages do
 *     (latency of 0 bytes); complete settles the queue first;
 *   - passive target: unlock settles the queue and adds the model's
 *     MPI_Win_lock (lock + unlock); flush settles it. The target's clock
 *     is not involved, so contention between origins is left out.
 * Outside predict mode (no model) every hook returns at once. */
#include "rp_ops.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_POST = 1, TAG_COMPLETE = 2 };

typedef struct rp_win {
  MPI_Comm comm;          /* private, over the window's group */
  MPI_Group group;        /* the window's group (rank translation) */
  int size;
  int locks;              /* locks of it this rank holds (Win_lock,
                             Win_lock_all): passive target */
  double pending[RP_NB];  /* queued operations' completion (origin) */
  int *origins, norigins; /* posted to (Win_post), in comm's ranks */
  int *targets, ntargets; /* started to (Win_start) */
  double post_pb[RP_PB_DOUBLES];
  MPI_Request *post_reqs; /* one per origin, completed at Win_wait */
  size_t origins_cap, targets_cap, reqs_cap;
} rp_win;

static int keyval = MPI_KEYVAL_INVALID;

static void win_free_state(rp_win *w) {
  if (w == NULL)
    return;
  for (int i = 0; w->post_reqs && i < w->norigins; i++)
    if (w->post_reqs[i] != MPI_REQUEST_NULL)
      PMPI_Request_free(&w->post_reqs[i]);
  if (w->comm != MPI_COMM_NULL)
    PMPI_Comm_free(&w->comm);
  if (w->group != MPI_GROUP_NULL)
    PMPI_Group_free(&w->group);
  free(w->origins);
  free(w->targets);
  free(w->post_reqs);
  free(w);
}

/* Runs inside MPI_Win_free, called without the engine lock (rp_mt.c). */
static int win_delete(MPI_Win win, int key, void *val, void *extra) {
  (void)win;
  (void)key;
  (void)extra;
  int took = rp_mt_hold();
  win_free_state(val);
  rp_mt_release(took);
  return MPI_SUCCESS;
}

void rp_rma_startup(void) {
  if (rp_g.model == NULL)
    return;
  if (PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &keyval,
                             NULL) != MPI_SUCCESS) {
    keyval = MPI_KEYVAL_INVALID;
    rp_report_flag("one-sided", "no MPI window attribute key: one-sided "
                   "calls costed as 0 s");
  }
}

void rp_rma_shutdown(void) {
  if (keyval != MPI_KEYVAL_INVALID)
    PMPI_Win_free_keyval(&keyval);
  keyval = MPI_KEYVAL_INVALID;
}

static rp_win *state(MPI_Win win) {
  void *v = NULL;
  int found = 0;
  if (keyval == MPI_KEYVAL_INVALID || win == MPI_WIN_NULL ||
      PMPI_Win_get_attr(win, keyval, &v, &found) != MPI_SUCCESS)
    return NULL;
  if (!found) { /* made through a binding revprof does not wrap */
    rp_report_flag("one-sided", "a window revprof did not see created "
                   "(a Fortran MPI_Win_allocate?): its calls cost 0 s");
    return NULL;
  }
  return v;
}

void rp_rma_created(MPI_Win win, MPI_Comm comm) {
  if (keyval == MPI_KEYVAL_INVALID || win == MPI_WIN_NULL)
    return;
  rp_win *w = calloc(1, sizeof *w);
  int rank = 0;
  if (w) {
    w->comm = MPI_COMM_NULL;
    w->group = MPI_GROUP_NULL;
  }
  PMPI_Comm_rank(comm, &rank);
  /* split, not dup: the application's copy callbacks never see it; every
     member creates the window, so every member takes part */
  int rc = MPI_ERR_OTHER;
  if (w)
    RP_UNLOCKED(rc = PMPI_Comm_split(comm, 0, rank, &w->comm));
  if (w == NULL || rc != MPI_SUCCESS ||
      PMPI_Win_get_group(win, &w->group) != MPI_SUCCESS ||
      PMPI_Win_set_attr(win, keyval, w) != MPI_SUCCESS) {
    win_free_state(w);
    rp_report_flag("one-sided", "a window's clock state could not be "
                   "made: its calls costed as 0 s");
    return;
  }
  PMPI_Comm_size(w->comm, &w->size);
}

void rp_rma_op(MPI_Win win, revprof_fn fn, double d) {
  rp_win *w = state(win);
  if (w == NULL)
    return;
  double cost[RP_NB], gap[RP_NB];
  rp_cost_fast(fn, 2.0, d, cost);
  if (rp_g.p2p_overlap) {
    double extra[RP_NB], p = rp_g.load_p; /* world, or ... */
    if (p <= 0.0 && rp_g.epoch_load && w->locks == 0 && w->size > 1)
      p = (double)w->size; /* ... an active-target epoch's group */
    rp_load_extra(p, d, extra); /* its bytes drain slower under load */
    rp_cost_fast(REVPROF_FN_GAP, 2.0, d, gap); /* world's has it already */
    for (int b = 0; b < RP_NB; b++) {
      cost[b] += extra[b];
      if (rp_g.load_p <= 0.0)
        gap[b] += extra[b];
    }
    rp_rma_queue(rp_g.clk.now, w->pending, cost, gap, rp_g.nic_free);
  } else {
    rp_rma_queue(rp_g.clk.now, w->pending, cost, NULL, NULL);
  }
  rp_t.cur_bytes += d;
}

void rp_rma_fence(MPI_Win win) {
  rp_win *w = state(win);
  if (w == NULL)
    return;
  double cost[RP_NB], half[RP_NB];
  rp_cost_fast(REVPROF_FN_WIN_FENCE, (double)w->size, 0.0, cost);
  /* a fence synchronizes, waits for the operations, synchronizes again
     (SMPI's is two barriers around the wait): its first half overlaps the
     operations in flight */
  for (int b = 0; b < RP_NB; b++)
    half[b] = 0.5 * cost[b];
  rp_rma_settle(&rp_g.clk, w->pending, half);
  rp_coll_meet_on(w->comm, w->size, REVPROF_FN_WIN_FENCE, 0.0);
}

void rp_rma_flush(MPI_Win win) {
  rp_win *w = state(win);
  if (w)
    rp_rma_settle(&rp_g.clk, w->pending, NULL);
}

void rp_rma_lock(MPI_Win win) {
  rp_win *w = state(win);
  if (w)
    w->locks++;
}

void rp_rma_unlock(MPI_Win win) {
  rp_win *w = state(win);
  if (w == NULL)
    return;
  if (w->locks > 0)
    w->locks--;
  double cost[RP_NB];
  rp_rma_settle(&rp_g.clk, w->pending, NULL);
  rp_cost_fast(REVPROF_FN_WIN_LOCK, 2.0, 0.0, cost);
  rp_clock_local(&rp_g.clk, cost);
}

/* group's members as ranks of w->comm, into *out (grown): their number,
 * or REVPROF_EMPI / REVPROF_ENOMEM */
static int members(rp_win *w, MPI_Group group, int **out, size_t *cap) {
  int n = 0;
  if (PMPI_Group_size(group, &n) != MPI_SUCCESS || n < 0)
    return REVPROF_EMPI;
  int *in = malloc((size_t)(n ? n : 1) * sizeof *in);
  int *o = rp_grow(*out, cap, (size_t)(n ? n : 1), sizeof *o);
  if (in == NULL || o == NULL) {
    free(in);
    return REVPROF_ENOMEM;
  }
  *out = o;
  for (int i = 0; i < n; i++)
    in[i] = i;
  int rc = PMPI_Group_translate_ranks(group, n, in, w->group, o);
  free(in);
  return rc == MPI_SUCCESS ? n : REVPROF_EMPI;
}

/* the clocks of a PSCW message from rank `from` of w->comm */
static void recv_clocks(rp_win *w, int from, int tag) {
  double pb[RP_PB_DOUBLES], lat[RP_NB], zero[RP_NB] = {0.0, 0.0, 0.0};
  int rc = MPI_ERR_OTHER;
  if (from != MPI_UNDEFINED)
    RP_UNLOCKED(rc = PMPI_Recv(pb, RP_PB_DOUBLES, MPI_DOUBLE, from, tag,
                               w->comm, MPI_STATUS_IGNORE));
  if (rc != MPI_SUCCESS)
    return;
  rp_cost_fast(REVPROF_FN_LATENCY, 2.0, 0.0, lat);
  rp_t.cur_wait += rp_clock_recv(&rp_g.clk, zero, pb, lat);
}

void rp_rma_post(MPI_Group group, MPI_Win win) {
  rp_win *w = state(win);
  if (w == NULL)
    return;
  int n = members(w, group, &w->origins, &w->origins_cap);
  MPI_Request *r = n < 0 ? NULL
                         : rp_grow(w->post_reqs, &w->reqs_cap,
                                   (size_t)(n ? n : 1), sizeof *r);
  if (r == NULL) {
    w->norigins = 0;
    return;
  }
  w->post_reqs = r;
  w->norigins = n;
  memcpy(w->post_pb, rp_g.clk.now, sizeof rp_g.clk.now);
  w->post_pb[RP_PB_META] = rp_pb_meta(rp_g.rank, 0.0);
  w->post_pb[RP_PB_SEQ] = -1.0;
  for (int i = 0; i < n; i++) {
    r[i] = MPI_REQUEST_NULL;
    if (w->origins[i] != MPI_UNDEFINED)
      PMPI_Isend(w->post_pb, RP_PB_DOUBLES, MPI_DOUBLE, w->origins[i],
                 TAG_POST, w->comm, &r[i]);
  }
}

void rp_rma_start(MPI_Group group, MPI_Win win) {
  rp_win *w = state(win);
  if (w == NULL)
    return;
  int n = members(w, group, &w->targets, &w->targets_cap);
  w->ntargets = n < 0 ? 0 : n;
  for (int i = 0; i < w->ntargets; i++)
    recv_clocks(w, w->targets[i], TAG_POST);
}

void rp_rma_complete(MPI_Win win) {
  rp_win *w = state(win);
  if (w == NULL)
    return;
  rp_rma_settle(&rp_g.clk, w->pending, NULL);
  double pb[RP_PB_DOUBLES];
  memcpy(pb, rp_g.clk.now, sizeof rp_g.clk.now);
  pb[RP_PB_META] = rp_pb_meta(rp_g.rank, 0.0);
  pb[RP_PB_SEQ] = -1.0;
  /* the targets receive after their MPI_Win_wait, which our completed
     MPI_Win_complete lets return: a send cannot block them */
  for (int i = 0; i < w->ntargets; i++)
    if (w->targets[i] != MPI_UNDEFINED)
      RP_UNLOCKED(PMPI_Send(pb, RP_PB_DOUBLES, MPI_DOUBLE, w->targets[i],
                            TAG_COMPLETE, w->comm));
  w->ntargets = 0;
}

void rp_rma_wait(MPI_Win win) {
  rp_win *w = state(win);
  if (w == NULL)
    return;
  for (int i = 0; i < w->norigins; i++)
    recv_clocks(w, w->origins[i], TAG_COMPLETE);
  for (int i = 0; i < w->norigins; i++)
    RP_UNLOCKED(PMPI_Wait(&w->post_reqs[i], MPI_STATUS_IGNORE));
  w->norigins = 0;
}

void rp_rma_test(MPI_Win win, int flag) {
  if (flag)
    rp_rma_wait(win);
}
