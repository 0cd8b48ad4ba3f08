/* Collectives of librevprof: the shadow communicator of each application
 * intra-communicator (rp_comm.c) carries the exchange of the members' start
 * clocks; the rule then sets now = max(starts) + T_fn(p, d). */
#include "rp_coll.h"

#include <stdlib.h>
#include <string.h>

/* The exchange is a blocking allreduce, before the application's call. A
 * non-blocking one started before it and completed after it would overlap
 * the two latencies, but costs more than both on Open MPI 4.1 at small
 * sizes (2 ranks, 8 B: MPI_Allreduce 1.8 us against 1.2 us, Allgather 8 us
 * against 1.2 us; bench/collective-overhead.sh), and on MPICH 4.0 even
 * where the call is long enough to hide it (tried from 16 KiB on,
 * 2026-11-27: MPI_Alltoall of 64 KiB 1.12x native against 1.09x with the
 * blocking exchange, Allgather 1.06x against 1.05x, medians of 3 runs). */
/* A collective on an inter-communicator: costed as if it were local (no
 * exchange with the other group; 0 bytes, as the wrappers pass, over the
 * local group's size), which the report says. */
static void inter_noted(void) {
  static double n;
  n += 1.0;
  rp_report_flag("inter-collective", "%.0f collective call(s) on "
                 "inter-communicators costed locally: 0 bytes over the local "
                 "group's size, members' clocks not combined", n);
}

/* x before any exchange: this member's own clocks and d */
static void ex_init(const rp_comm *c, revprof_fn fn, double d, rp_coll_ex *x) {
  if (RP_UNLIKELY(c->inter))
    inter_noted();
  x->fn = fn;
  x->p = (double)c->size;
  x->synced = 0;
  x->part = REVPROF_FN_COUNT;
  x->has_arr = 0;
  rp_my_clocks(d, x->v);
}

void rp_coll_post(rp_comm *c, revprof_fn fn, double d, rp_coll_ex *x) {
  ex_init(c, fn, d, x);
  if (c->intra && c->size > 1)
    RP_UNLOCKED(x->synced = PMPI_Allreduce(MPI_IN_PLACE, x->v, RP_XCH_DOUBLES,
                                           MPI_DOUBLE, MPI_MAX,
                                           c->shadow) == MPI_SUCCESS);
}

int rp_coll_root_dir(revprof_fn fn) {
  switch (fn) {
  case REVPROF_FN_BCAST:
  case REVPROF_FN_IBCAST:
  case REVPROF_FN_SCATTER:
  case REVPROF_FN_SCATTERV:
    return RP_ROOT_OUT;
  case REVPROF_FN_REDUCE:
  case REVPROF_FN_GATHER:
  case REVPROF_FN_GATHERV:
    return RP_ROOT_IN;
  default:
    return 0;
  }
}

/* The part rows, and whether the run's model has each: asked at start-up
 * (rp_coll_startup), when the model is settled */
static const revprof_fn parts[3] = {REVPROF_FN_BCAST_ROOT,
                                    REVPROF_FN_BCAST_LATE,
                                    REVPROF_FN_REDUCE_LATE};
static unsigned char part_has[3];

revprof_fn rp_coll_part(revprof_fn fn, int is_root) {
  int k = fn == REVPROF_FN_BCAST                ? (is_root ? 0 : 1)
          : fn == REVPROF_FN_REDUCE && !is_root ? 2
                                                : -1;
  return k >= 0 && part_has[k] ? parts[k] : REVPROF_FN_COUNT;
}

/* The exchange a rooted collective needs, on the shadow: the root's clocks
 * broadcast (RP_ROOT_OUT), or the maximum reduced to the root (RP_ROOT_IN).
 * One rooted call of 32 bytes, cheaper than the allreduce. */
void rp_coll_post_rooted(rp_comm *c, revprof_fn fn, double d, int root,
                         rp_coll_ex *x) {
  double got[RP_XCH_DOUBLES];
  int dir = rp_coll_root_dir(fn), ok;
  ex_init(c, fn, d, x);
  /* a bad root fails in the application's own call, not in revprof's */
  if (!c->intra || c->size < 2 || root < 0 || root >= c->size || dir == 0)
    return;
  memcpy(got, x->v, sizeof got);
  if (dir == RP_ROOT_OUT)
    RP_UNLOCKED(ok = PMPI_Bcast(got, RP_XCH_DOUBLES, MPI_DOUBLE, root,
                                c->shadow));
  else
    RP_UNLOCKED(ok = PMPI_Reduce(x->v, got, RP_XCH_DOUBLES, MPI_DOUBLE,
                                 MPI_MAX, root, c->shadow));
  x->part = rp_coll_part(fn, c->rank == root);
  if (ok != MPI_SUCCESS)
    return;
  if (dir == RP_ROOT_OUT && c->rank != root) {
    memcpy(x->arr, got, sizeof x->arr); /* the root's start */
    x->has_arr = 1;
  }
  rp_root_known(dir, c->rank == root, x->v, got, x->v, RP_XCH_DOUBLES);
}

void rp_coll_finish(rp_coll_ex *x) {
  double cost[RP_NB];
  rp_cost_fast(x->fn, x->p, x->v[RP_NB], cost);
  if (x->part != REVPROF_FN_COUNT) {
    double part[RP_NB];
    rp_cost_fast(x->part, x->p, x->v[RP_NB], part);
    rp_t.cur_wait += rp_clock_rooted(&rp_g.clk, x->has_arr ? x->arr : NULL,
                                     cost, part);
  } else
    rp_t.cur_wait += rp_clock_coll(&rp_g.clk, x->v, cost);
  rp_t.cur_bytes += x->v[RP_NB];
}

/* The record of a non-blocking collective, with this member's clocks and d
 * (cmax = cmine until the exchange brings more) */
static rp_req *icoll_record(const rp_comm *c, rp_wid w, revprof_fn fn,
                            double d) {
  if (RP_UNLIKELY(c->inter))
    inter_noted();
  rp_req *r = rp_req_new();
  r->kind = RP_REQ_COLL;
  r->wid = w;
  r->fn = fn;
  r->active = 1;
  r->p = (double)c->size;
  rp_my_clocks(d, r->cmine);
  memcpy(r->cmax, r->cmine, sizeof r->cmax);
  return r;
}

rp_req *rp_icoll_begin_rooted(rp_comm *c, rp_wid w, revprof_fn fn, double d,
                              int root) {
  int dir = rp_coll_root_dir(fn);
  if (dir == 0)
    return rp_icoll_begin(c, w, fn, d);
  rp_req *r = icoll_record(c, w, fn, d);
  r->root_dir = dir;
  r->is_root = c->rank == root;
  if (!c->intra || c->size < 2 || root < 0 || root >= c->size)
    r->root_dir = 0; /* nothing exchanged: own clocks */
  else if ((dir == RP_ROOT_OUT
                ? PMPI_Ibcast(r->cmax, RP_XCH_DOUBLES, MPI_DOUBLE, root,
                              c->shadow, &r->sreq)
                : PMPI_Ireduce(r->cmine, r->cmax, RP_XCH_DOUBLES, MPI_DOUBLE,
                               MPI_MAX, root, c->shadow, &r->sreq)) !=
           MPI_SUCCESS) {
    r->sreq = MPI_REQUEST_NULL;
    r->root_dir = 0;
  }
  return r;
}

rp_req *rp_icoll_begin(rp_comm *c, rp_wid w, revprof_fn fn, double d) {
  rp_req *r = icoll_record(c, w, fn, d);
  if (c->intra && c->size > 1 &&
      PMPI_Iallreduce(r->cmine, r->cmax, RP_XCH_DOUBLES, MPI_DOUBLE, MPI_MAX,
                      c->shadow, &r->sreq) != MPI_SUCCESS)
    r->sreq = MPI_REQUEST_NULL;
  return r;
}

/* Persistent collectives (MPI 4): the record made at *_init keeps what
 * each start needs (d, the root) and a persistent collective of its own on
 * the shadow, made at the same time: persistent collectives match in the
 * order of their *_init, so the members may start them in different orders
 * (MPICH's coll/p_order), and so may the exchanges. Every start exchanges
 * the clocks of that start, and its completion applies the rule of the
 * non-blocking collective (rp_icoll_done). */
rp_req *rp_pcoll_init(rp_comm *c, rp_wid w, revprof_fn fn, double d,
                      int root) {
  rp_req *r = icoll_record(c, w, fn, d);
  r->persistent = 1;
  r->active = 0;
  r->ubytes = d;
  r->peer_spec = root;
  r->comm = c->intra && c->size > 1 ? c->shadow : MPI_COMM_NULL;
  if (root >= 0 && root < c->size) {
    r->root_dir = rp_coll_root_dir(fn);
    r->is_root = c->rank == root;
  }
#if MPI_VERSION >= 4
  int rc = MPI_SUCCESS;
  if (r->comm == MPI_COMM_NULL)
    ; /* nothing exchanged: own clocks */
  else if (r->root_dir == RP_ROOT_OUT)
    rc = PMPI_Bcast_init(r->cmax, RP_XCH_DOUBLES, MPI_DOUBLE, root, r->comm,
                         MPI_INFO_NULL, &r->preq);
  else if (r->root_dir == RP_ROOT_IN)
    rc = PMPI_Reduce_init(r->cmine, r->cmax, RP_XCH_DOUBLES, MPI_DOUBLE,
                          MPI_MAX, root, r->comm, MPI_INFO_NULL, &r->preq);
  else
    rc = PMPI_Allreduce_init(r->cmine, r->cmax, RP_XCH_DOUBLES, MPI_DOUBLE,
                             MPI_MAX, r->comm, MPI_INFO_NULL, &r->preq);
  if (rc != MPI_SUCCESS) {
    r->preq = MPI_REQUEST_NULL;
    rp_report_flag("collective-clocks", "a persistent collective's clock "
                   "exchange could not be made: its members' clocks are "
                   "not combined");
  }
#endif
  return r;
}

void rp_pcoll_start(rp_req *r) {
  rp_my_clocks(r->ubytes, r->cmine);
  memcpy(r->cmax, r->cmine, sizeof r->cmax);
  r->sreq = MPI_REQUEST_NULL;
  if (r->preq == MPI_REQUEST_NULL)
    return; /* nothing exchanged: own clocks */
  r->sreq = r->preq; /* the same handle: its Wait leaves it inactive */
  if (PMPI_Start(&r->sreq) != MPI_SUCCESS)
    r->sreq = MPI_REQUEST_NULL;
}

void rp_icoll_done(rp_req *r) {
  double cost[RP_NB];
  if (r->nbr_in != NULL) { /* a neighbourhood collective (rp_nbr.c) */
    rp_inbr_done(r);
    return;
  }
  if (r->sreq != MPI_REQUEST_NULL) /* every member started it */
    RP_UNLOCKED(PMPI_Wait(&r->sreq, MPI_STATUS_IGNORE));
  r->sreq = MPI_REQUEST_NULL; /* a persistent one stays in r->preq */
  if (r->root_dir != 0) /* per component: known may be arrived */
    rp_root_known(r->root_dir, r->is_root, r->cmine, r->cmax, r->cmax,
                  RP_XCH_DOUBLES);
  rp_cost(r->fn, r->p, r->cmax[RP_NB], cost);
  rp_t.cur_wait += rp_clock_coll_complete(&rp_g.clk, r->cmax, cost);
  rp_t.cur_bytes += r->cmax[RP_NB];
}

/* The new communicator's shadow is an idup of the parent's shadow (same
 * group and order), not of the parent: two outstanding idups of one
 * communicator can cross their context-id agreements in Open MPI 4.1 and
 * hang (seen in rp_semantics at 3 ranks once rooted collectives stopped
 * synchronizing the ranks before it), and the parent's shadow carries none
 * of the application's attributes to copy. A parent without a shadow (not
 * seen created, one member): the new communicator gets its shadow at its
 * first blocking collective, like any communicator revprof did not see. */
rp_req *rp_idup_begin(MPI_Comm comm, MPI_Comm *newcomm) {
  rp_req *r = rp_req_new();
  rp_comm *parent = rp_comm_lookup(comm);
  r->kind = RP_REQ_IDUP;
  r->wid = RP_W_MPI_Comm_idup;
  r->active = 1;
  r->newcomm = newcomm;
  if (parent && parent->intra && parent->shadow != MPI_COMM_NULL &&
      PMPI_Comm_idup(parent->shadow, &r->shadow_new, &r->sreq) !=
          MPI_SUCCESS)
    r->sreq = MPI_REQUEST_NULL;
  return r;
}

void rp_idup_done(rp_req *r) {
  if (r->sreq != MPI_REQUEST_NULL)
    RP_UNLOCKED(PMPI_Wait(&r->sreq, MPI_STATUS_IGNORE));
  if (*r->newcomm != MPI_COMM_NULL && r->shadow_new != MPI_COMM_NULL)
    rp_comm_attach(*r->newcomm, r->shadow_new);
  else if (r->shadow_new != MPI_COMM_NULL)
    PMPI_Comm_free(&r->shadow_new);
}

void rp_coll_meet_on(MPI_Comm comm, int p, revprof_fn fn, double d) {
  double v[RP_NB + 1], all[RP_NB + 1], cost[RP_NB];
  for (int b = 0; b < RP_NB; b++)
    v[b] = rp_g.clk.now[b];
  v[RP_NB] = d;
  int rc;
  RP_UNLOCKED(rc = PMPI_Allreduce(v, all, RP_NB + 1, MPI_DOUBLE, MPI_MAX,
                                  comm));
  if (rc != MPI_SUCCESS) {
    rp_report_flag("collective-clocks", "a collective's clocks could not be "
                   "exchanged: costed from this rank's clock alone");
    memcpy(all, v, sizeof all);
  }
  rp_cost_fast(fn, (double)p, all[RP_NB], cost);
  rp_t.cur_wait += rp_clock_coll(&rp_g.clk, all, cost);
}

/* ------------------------------------------------------------ set-up */

/* The starts of persistent ones: a neighbourhood collective's own rule */
static void coll_start(rp_req *r) {
  if (r->nbr)
    rp_pnbr_start(r);
  else
    rp_pcoll_start(r);
}

static const rp_req_kind_ops coll_ops = {coll_start, rp_icoll_done};
static const rp_req_kind_ops idup_ops = {NULL, rp_idup_done};
static const rp_req_kind_ops part_ops = {rp_part_start, rp_part_done};

void rp_coll_startup(void) {
  rp_req_kind_register(RP_REQ_COLL, &coll_ops);
  rp_req_kind_register(RP_REQ_IDUP, &idup_ops);
  rp_req_kind_register(RP_REQ_PSEND, &part_ops);
  rp_req_kind_register(RP_REQ_PRECV, &part_ops);
  for (int i = 0; i < 3; i++) /* no model: no part rows */
    part_has[i] =
        rp_g.model && revprof_model_has(rp_g.model, parts[i]) ? 1 : 0;
}
