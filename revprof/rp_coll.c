/* Collectives of librevprof: one shadow communicator per application
 * intra-communicator (cached as an attribute) carries the exchange of the
 * members' start clocks; the rule then sets now = max(starts) + T_fn(p, d). */
#include "rp_int.h"

#include <stdlib.h>
#include <string.h>

static int keyval = MPI_KEYVAL_INVALID;

/* the communicator looked up last: programs call collectives on one or two
 * communicators, and the attribute lookup was a fifth of a small
 * collective's overhead. Cleared when its attribute goes. */
static MPI_Comm last_comm = MPI_COMM_NULL;
static rp_comm *last_info;

/* Runs inside MPI_Comm_free, which the wrapper calls without the engine
 * lock (rp_mt.c): takes it. */
static int comm_delete(MPI_Comm comm, int kv, void *attr, void *extra) {
  rp_comm *c = attr;
  int fin = 0, took = rp_mt_hold();
  (void)comm;
  (void)kv;
  (void)extra;
  if (c == last_info) {
    last_comm = MPI_COMM_NULL;
    last_info = NULL;
  }
  PMPI_Finalized(&fin);
  if (!fin && !rp_g.finalized && c->shadow != MPI_COMM_NULL)
    PMPI_Comm_free(&c->shadow);
  free(c);
  rp_mt_release(took);
  return MPI_SUCCESS;
}

static rp_comm *lookup(MPI_Comm comm) {
  void *v = NULL;
  int flag = 0;
  if (comm == last_comm && comm != MPI_COMM_NULL)
    return last_info;
  if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
      PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag)
    return NULL;
  last_comm = comm;
  last_info = v;
  return v;
}

/* ------------------------------------------- other jobs' processes */

static int foreign_key = MPI_KEYVAL_INVALID;

/* 1 when a member of g is not in this job's MPI_COMM_WORLD */
static int outside_world(MPI_Group g) {
  MPI_Group world;
  int n = 0, out = 0;
  if (PMPI_Group_size(g, &n) != MPI_SUCCESS || n <= 0 ||
      PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
    return 0;
  int *in = malloc((size_t)n * sizeof *in), *tr = malloc((size_t)n * sizeof *tr);
  if (in && tr) {
    for (int i = 0; i < n; i++)
      in[i] = i;
    if (PMPI_Group_translate_ranks(g, n, in, world, tr) == MPI_SUCCESS)
      for (int i = 0; i < n && !out; i++)
        out = tr[i] == MPI_UNDEFINED;
  } else
    out = 1; /* cannot tell: the safe answer */
  free(in);
  free(tr);
  PMPI_Group_free(&world);
  return out;
}

int rp_comm_foreign(MPI_Comm comm) {
  void *v = NULL;
  int flag = 0, inter = 0, out = 0;
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
    return 0;
  if (foreign_key == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN,
                              &foreign_key, NULL) != MPI_SUCCESS)
    foreign_key = MPI_KEYVAL_INVALID;
  if (foreign_key != MPI_KEYVAL_INVALID &&
      PMPI_Comm_get_attr(comm, foreign_key, &v, &flag) == MPI_SUCCESS && flag)
    return v == (void *)&foreign_key; /* cached: &key yes, NULL no */
  MPI_Group g;
  if (PMPI_Comm_group(comm, &g) == MPI_SUCCESS) {
    out = outside_world(g);
    PMPI_Group_free(&g);
  }
  if (!out && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter &&
      PMPI_Comm_remote_group(comm, &g) == MPI_SUCCESS) {
    out = outside_world(g);
    PMPI_Group_free(&g);
  }
  if (foreign_key != MPI_KEYVAL_INVALID)
    PMPI_Comm_set_attr(comm, foreign_key, out ? (void *)&foreign_key : NULL);
  if (out)
    rp_report_flag("other-job", "messages to processes of another job "
                   "(spawned, connected or the parent) went without clocks; "
                   "collectives with them were costed locally");
  return out;
}

/* Records comm with its shadow (shadow MPI_COMM_NULL: create one, a
 * collective call over comm). */
static void attach(MPI_Comm comm, MPI_Comm shadow) {
  int inter = 0;
  rp_comm *c = calloc(1, sizeof *c);
  if (c == NULL) {
    if (shadow != MPI_COMM_NULL)
      PMPI_Comm_free(&shadow);
    return;
  }
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_rank(comm, &c->rank);
  PMPI_Comm_size(comm, &c->size);
  c->intra = !inter;
  c->shadow = shadow;
  if (c->intra && rp_g.dynamic && rp_comm_foreign(comm))
    c->intra = 0; /* the other job may not take part in a shadow */
  /* split rather than dup: no attribute copy callbacks of the application
   * run for revprof's private communicator */
  if (c->intra && c->shadow == MPI_COMM_NULL && c->size > 1) {
    int rc;
    RP_UNLOCKED(rc = PMPI_Comm_split(comm, 0, c->rank, &c->shadow));
    if (rc != MPI_SUCCESS)
      c->shadow = MPI_COMM_NULL;
  }
  if (PMPI_Comm_set_attr(comm, keyval, c) != MPI_SUCCESS) {
    if (c->shadow != MPI_COMM_NULL)
      PMPI_Comm_free(&c->shadow);
    free(c);
  }
}

void rp_comm_created(MPI_Comm newcomm) {
  if (newcomm != MPI_COMM_NULL && keyval != MPI_KEYVAL_INVALID)
    attach(newcomm, MPI_COMM_NULL);
}

static void fill(rp_comm *c, const rp_comm *info) {
  if (info)
    *c = *info;
  else {
    c->shadow = MPI_COMM_NULL;
    c->rank = 0;
    c->size = 1;
    c->intra = 0;
  }
  if (c->intra && c->size > 1 && c->shadow == MPI_COMM_NULL)
    c->intra = 0; /* no shadow after a fault: cost locally */
}

void rp_coll_start(rp_comm *c, MPI_Comm comm) {
  rp_comm *info = lookup(comm);
  if (info == NULL && comm != MPI_COMM_NULL) {
    attach(comm, MPI_COMM_NULL); /* everybody is in this collective now */
    info = lookup(comm);
  }
  fill(c, info);
}

void rp_coll_start_nb(rp_comm *c, MPI_Comm comm) {
  rp_comm *info = lookup(comm);
  if (info == NULL) {
    static int warned;
    if (!warned++)
      rp_warn("a non-blocking collective runs on a communicator revprof did "
              "not see created; its members' clocks are not combined");
    rp_report_flag("collective-clocks", "%d non-blocking collective(s) on "
                   "communicators revprof did not see created: members' "
                   "clocks not combined", warned);
  }
  fill(c, info);
}

/* The exchange is a blocking allreduce, before the application's call. A
 * non-blocking one started before it and completed after it would overlap
 * the two latencies, but costs more than both on Open MPI 4.1 at small
 * sizes (2 ranks, 8 B: MPI_Allreduce 1.8 us against 1.2 us, Allgather 8 us
 * against 1.2 us; bench/collective-overhead.sh). */
/* x before any exchange: this member's own clocks and d */
static void ex_init(const rp_comm *c, revprof_fn fn, double d, rp_coll_ex *x) {
  x->fn = fn;
  x->p = (double)c->size;
  x->synced = 0;
  rp_my_clocks(d, x->v);
}

void rp_coll_post(rp_comm *c, revprof_fn fn, double d, rp_coll_ex *x) {
  ex_init(c, fn, d, x);
  if (c->intra && c->size > 1)
    RP_UNLOCKED(x->synced = PMPI_Allreduce(MPI_IN_PLACE, x->v, RP_PB_DOUBLES,
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

/* The exchange a rooted collective needs, on the shadow: the root's clocks
 * broadcast (RP_ROOT_OUT), or the maximum reduced to the root (RP_ROOT_IN).
 * One rooted call of 32 bytes, cheaper than the allreduce. */
void rp_coll_post_rooted(rp_comm *c, revprof_fn fn, double d, int root,
                         rp_coll_ex *x) {
  double got[RP_PB_DOUBLES];
  int dir = rp_coll_root_dir(fn), ok;
  ex_init(c, fn, d, x);
  /* a bad root fails in the application's own call, not in revprof's */
  if (!c->intra || c->size < 2 || root < 0 || root >= c->size || dir == 0)
    return;
  memcpy(got, x->v, sizeof got);
  if (dir == RP_ROOT_OUT)
    RP_UNLOCKED(ok = PMPI_Bcast(got, RP_PB_DOUBLES, MPI_DOUBLE, root,
                                c->shadow));
  else
    RP_UNLOCKED(ok = PMPI_Reduce(x->v, got, RP_PB_DOUBLES, MPI_DOUBLE,
                                 MPI_MAX, root, c->shadow));
  if (ok == MPI_SUCCESS) /* per component: known may be own */
    rp_root_known(dir, c->rank == root, x->v, got, x->v, RP_PB_DOUBLES);
}

void rp_coll_finish(rp_coll_ex *x) {
  double cost[RP_NB];
  rp_cost(x->fn, x->p, x->v[RP_NB], cost);
  rp_t.cur_wait += rp_clock_coll(&rp_g.clk, x->v, cost);
  rp_t.cur_bytes += x->v[RP_NB];
}

/* The record of a non-blocking collective, with this member's clocks and d
 * (cmax = cmine until the exchange brings more) */
static rp_req *icoll_record(const rp_comm *c, rp_wid w, revprof_fn fn,
                            double d) {
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
                ? PMPI_Ibcast(r->cmax, RP_PB_DOUBLES, MPI_DOUBLE, root,
                              c->shadow, &r->sreq)
                : PMPI_Ireduce(r->cmine, r->cmax, RP_PB_DOUBLES, MPI_DOUBLE,
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
      PMPI_Iallreduce(r->cmine, r->cmax, RP_PB_DOUBLES, MPI_DOUBLE, MPI_MAX,
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
    rc = PMPI_Bcast_init(r->cmax, RP_PB_DOUBLES, MPI_DOUBLE, root, r->comm,
                         MPI_INFO_NULL, &r->preq);
  else if (r->root_dir == RP_ROOT_IN)
    rc = PMPI_Reduce_init(r->cmine, r->cmax, RP_PB_DOUBLES, MPI_DOUBLE,
                          MPI_MAX, root, r->comm, MPI_INFO_NULL, &r->preq);
  else
    rc = PMPI_Allreduce_init(r->cmine, r->cmax, RP_PB_DOUBLES, MPI_DOUBLE,
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
                  RP_PB_DOUBLES);
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
  rp_comm *parent = lookup(comm);
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
    attach(*r->newcomm, r->shadow_new);
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

MPI_Comm rp_comm_shadow(MPI_Comm comm) {
  rp_comm *c = lookup(comm);
  return c && c->intra ? c->shadow : MPI_COMM_NULL;
}

MPI_Comm rp_world_shadow(void) {
  rp_comm *c = lookup(MPI_COMM_WORLD);
  return c && c->shadow != MPI_COMM_NULL ? c->shadow : MPI_COMM_WORLD;
}

void rp_coll_startup(void) {
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &keyval,
                              NULL) != MPI_SUCCESS) {
    keyval = MPI_KEYVAL_INVALID;
    rp_warn("cannot create an attribute key; collectives are costed "
            "without combining clocks");
    rp_report_flag("collective-clocks", "no MPI attribute key: collectives "
                   "costed without combining clocks");
    return;
  }
  rp_comm_created(MPI_COMM_WORLD);
  rp_comm_created(MPI_COMM_SELF);
}

void rp_coll_shutdown(void) {
  if (foreign_key != MPI_KEYVAL_INVALID)
    PMPI_Comm_free_keyval(&foreign_key);
  foreign_key = MPI_KEYVAL_INVALID;
  if (keyval == MPI_KEYVAL_INVALID)
    return;
  PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
  PMPI_Comm_free_keyval(&keyval);
}
