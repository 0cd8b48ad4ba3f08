/* Blocking neighbourhood collectives (issue 17), predict mode: a rank's
 * clocks meet those of its in-neighbours only, by an MPI_Neighbor_allgather
 * of the clocks on the application's topology communicator (every member
 * makes the same extra call at the same point, so the order of collectives
 * stays the same on all), then the model's function is added at
 * p = neighbours + 1 (characterize measures it on a complete graph of p
 * members, each with p - 1 neighbours):
 *   now = max(own, in-neighbours' start clocks) + T_fn(k + 1, d),
 * k = the rank's real neighbours (MPI_PROC_NULL ones of a non-periodic
 * cartesian topology left out), d = bytes per block. */
#include "rp_coll.h"

#include <stdlib.h>
#include <string.h>

/* In-neighbour slots (what MPI_Neighbor_allgather fills) and real
 * neighbours of this rank on comm: 0, or REVPROF_EINVAL when comm has no
 * topology. */
static int neighbours(MPI_Comm comm, int *slots, int *real) {
  int kind = MPI_UNDEFINED, rank = 0;
  if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
    return REVPROF_EMPI;
  *slots = *real = 0;
  if (kind == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    *slots = 2 * ndims;
    for (int dim = 0; dim < ndims; dim++) {
      int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, dim, 1, &src, &dst);
      *real += (src != MPI_PROC_NULL) + (dst != MPI_PROC_NULL);
    }
    return 0;
  }
  if (kind == MPI_GRAPH) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, slots);
    *real = *slots;
    return 0;
  }
  if (kind == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    *slots = in;
    *real = in > out ? in : out;
    return 0;
  }
  return REVPROF_EINVAL;
}

void rp_nbr_meet(MPI_Comm comm, revprof_fn fn, double d) {
  int slots, real;
  if (rp_g.model == NULL || neighbours(comm, &slots, &real) != 0)
    return;
  enum { W = RP_NB + 1 }; /* clocks, then d */
  double mine[W], start[RP_NB], cost[RP_NB], stack[16 * W];
  double *in = slots <= 16 ? stack : malloc((size_t)slots * W * sizeof *in);
  for (int b = 0; b < RP_NB; b++)
    mine[b] = start[b] = rp_g.clk.now[b];
  mine[RP_NB] = d;
  if (in == NULL) {
    rp_report_flag("collective-clocks", "out of memory: a neighbourhood "
                   "collective costed without its neighbours' clocks");
  } else {
    for (int i = 0; i < slots * W; i++)
      in[i] = -1.0; /* MPI_PROC_NULL neighbours leave their slot alone */
    RP_UNLOCKED(PMPI_Neighbor_allgather(mine, W, MPI_DOUBLE, in, W,
                                        MPI_DOUBLE, comm));
    for (int i = 0; i < slots; i++)
      for (int b = 0; b < RP_NB; b++)
        if (in[i * W + b] > start[b])
          start[b] = in[i * W + b];
    if (in != stack)
      free(in);
  }
  rp_cost_fast(fn, (double)real + 1.0, d, cost);
  rp_t.cur_wait += rp_clock_coll(&rp_g.clk, start, cost);
  rp_t.cur_bytes += d;
}

/* The exchange of one start: this rank's clocks and d to its
 * out-neighbours, the in-neighbours' into r->nbr_in (out of memory: none,
 * the rule sees this rank's clocks only, rp_icoll_done). */
static void inbr_exchange(rp_req *r, MPI_Comm comm, int slots, double d) {
  rp_my_clocks(d, r->cmine);
  memcpy(r->cmax, r->cmine, sizeof r->cmax);
  r->sreq = MPI_REQUEST_NULL;
  double *in = malloc((size_t)(slots > 0 ? slots : 1) * RP_XCH_DOUBLES *
                      sizeof *in);
  if (in == NULL) {
    rp_report_flag("collective-clocks", "out of memory: a neighbourhood "
                   "collective costed without its neighbours' clocks");
    return;
  }
  for (int i = 0; i < slots * RP_XCH_DOUBLES; i++)
    in[i] = -1.0; /* MPI_PROC_NULL neighbours leave their slot alone */
  r->nbr_in = in;
  r->nbr_slots = slots;
  if (PMPI_Ineighbor_allgather(r->cmine, RP_XCH_DOUBLES, MPI_DOUBLE, in,
                               RP_XCH_DOUBLES, MPI_DOUBLE, comm,
                               &r->sreq) != MPI_SUCCESS) {
    r->sreq = MPI_REQUEST_NULL;
    r->nbr_slots = 0; /* own clocks only */
  }
}

static rp_req *inbr_record(int real, rp_wid w, revprof_fn fn) {
  rp_req *r = rp_req_new();
  r->kind = RP_REQ_COLL;
  r->wid = w;
  r->fn = fn;
  r->active = 1;
  r->p = (double)real + 1.0;
  return r;
}

rp_req *rp_inbr_begin(MPI_Comm comm, rp_wid w, revprof_fn fn, double d) {
  int slots, real;
  if (rp_g.model == NULL || neighbours(comm, &slots, &real) != 0)
    return NULL;
  rp_req *r = inbr_record(real, w, fn);
  inbr_exchange(r, comm, slots, d);
  return r;
}

rp_req *rp_pnbr_init(MPI_Comm comm, rp_wid w, revprof_fn fn, double d) {
  int slots, real;
  if (rp_g.model == NULL || neighbours(comm, &slots, &real) != 0)
    return NULL;
  rp_req *r = inbr_record(real, w, fn);
  r->persistent = 1;
  r->active = 0;
  r->nbr = 1;
  r->comm = comm;
  r->ubytes = d;
  /* the exchange is a persistent collective of its own, made now: they
     match in the order of their *_init, so the members may start them in
     different orders (as for rp_pcoll_init) */
  r->nbr_slots = 0;
  r->nbr_in = malloc((size_t)(slots > 0 ? slots : 1) * RP_XCH_DOUBLES *
                     sizeof *r->nbr_in);
#if MPI_VERSION >= 4
  if (r->nbr_in != NULL &&
      PMPI_Neighbor_allgather_init(r->cmine, RP_XCH_DOUBLES, MPI_DOUBLE,
                                   r->nbr_in, RP_XCH_DOUBLES, MPI_DOUBLE, comm,
                                   MPI_INFO_NULL, &r->preq) == MPI_SUCCESS)
    r->nbr_slots = slots;
  else
    r->preq = MPI_REQUEST_NULL;
#endif
  if (r->nbr_slots == 0 && slots > 0)
    rp_report_flag("collective-clocks", "a persistent neighbourhood "
                   "collective's clock exchange could not be made: costed "
                   "without its neighbours' clocks");
  return r;
}

void rp_pnbr_start(rp_req *r) {
  rp_my_clocks(r->ubytes, r->cmine);
  memcpy(r->cmax, r->cmine, sizeof r->cmax);
  r->sreq = MPI_REQUEST_NULL;
  if (r->nbr_in == NULL || r->preq == MPI_REQUEST_NULL)
    return; /* own clocks only */
  for (int i = 0; i < r->nbr_slots * RP_XCH_DOUBLES; i++)
    r->nbr_in[i] = -1.0; /* MPI_PROC_NULL neighbours leave their slot */
  r->sreq = r->preq; /* the same handle: its Wait leaves it inactive */
  if (PMPI_Start(&r->sreq) != MPI_SUCCESS)
    r->sreq = MPI_REQUEST_NULL;
}

void rp_inbr_done(rp_req *r) {
  double cost[RP_NB];
  if (r->sreq != MPI_REQUEST_NULL) /* every member started it */
    RP_UNLOCKED(PMPI_Wait(&r->sreq, MPI_STATUS_IGNORE));
  r->sreq = MPI_REQUEST_NULL; /* a persistent one stays in r->preq */
  for (int i = 0; i < r->nbr_slots; i++)
    for (int b = 0; b < RP_NB; b++)
      if (r->nbr_in[i * RP_XCH_DOUBLES + b] > r->cmax[b])
        r->cmax[b] = r->nbr_in[i * RP_XCH_DOUBLES + b];
  if (!r->persistent) { /* a persistent one keeps its buffer */
    free(r->nbr_in);
    r->nbr_in = NULL;
  }
  double d = r->cmine[RP_NB];
  rp_cost(r->fn, r->p, d, cost);
  rp_t.cur_wait += rp_clock_coll_complete(&rp_g.clk, r->cmax, cost);
  rp_t.cur_bytes += d;
}

double rp_nbr_mean_bytes(MPI_Comm comm, rp_counts counts,
                         const MPI_Datatype *types, MPI_Datatype type) {
  int kind = MPI_UNDEFINED, n = 0, rank = 0;
  if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
    return 0.0;
  if (kind == MPI_CART) {
    PMPI_Cartdim_get(comm, &n);
    n *= 2;
  } else if (kind == MPI_GRAPH) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &n);
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
  }
  if (n <= 0 || counts.a == NULL)
    return 0.0;
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    sum += rp_d_count(rp_count_at(counts, i), types ? &types[i] : &type,
                      rp_tsize);
  return sum / n;
}
