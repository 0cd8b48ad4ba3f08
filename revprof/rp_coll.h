/* Collectives of librevprof: blocking, non-blocking and persistent clock
 * exchanges (rp_coll.c), those folded into the application's call
 * (rp_coll_fold.c), neighbourhood collectives (rp_nbr.c), partitioned
 * communication (rp_part.c). Above rp_p2p.h. */
#ifndef RP_COLL_H
#define RP_COLL_H

#include "rp_p2p.h"

/* Registers the request kinds of this layer (collective, Comm_idup,
 * partitioned) with the request table (rp_req_kind_register): called once
 * by the engine at MPI_Init. */
void rp_coll_startup(void);

/* A blocking collective's clock exchange: the members' start clocks and d
 * (maximum), then now = max(starts) + T_fn(p, d). rp_coll_post exchanges
 * them before the application's collective, rp_coll_finish applies the
 * rule after it. */
typedef struct rp_coll_ex {
  double v[RP_XCH_DOUBLES]; /* start clocks and d; the maximum after */
  revprof_fn fn;
  double p;
  int synced; /* 1: exchanged by a blocking allreduce on the shadow, which
                 every member enters before any leaves: a barrier */
  /* a rooted call: the row of this member's own part (rp_coll_part;
     REVPROF_FN_COUNT: none, the rule over v), and whether the root's start
     clocks arrived (a broadcast's non-root: arr) */
  revprof_fn part;
  int has_arr;
  double arr[RP_NB];
} rp_coll_ex;
void rp_coll_post(rp_comm *c, revprof_fn fn, double d, rp_coll_ex *x);
void rp_coll_finish(rp_coll_ex *x);
/* Rooted collectives (MPI_Bcast, MPI_Scatter(v), MPI_Reduce, MPI_Gather(v)
 * and their non-blocking forms) exchange only what their data carries: the
 * root's clocks to the others, or everyone's maximum to the root; each
 * member then knows what rp_root_known says. The direction of fn's data
 * (RP_ROOT_OUT, RP_ROOT_IN; 0 for a collective that is not rooted). */
int rp_coll_root_dir(revprof_fn fn);
/* The model row of a rooted call's member's own part (rp_clock_rooted):
 * bcast_root at MPI_Bcast's root, bcast_late at its other members,
 * reduce_late at MPI_Reduce's non-roots; REVPROF_FN_COUNT for the others,
 * and where the model lacks the row (the whole call's rule then). */
revprof_fn rp_coll_part(revprof_fn fn, int is_root);
void rp_coll_post_rooted(rp_comm *c, revprof_fn fn, double d, int root,
                         rp_coll_ex *x);
/* rp_coll_fold.c: the same exchange inside the application's call; 1 when
 * done so (rc: the call's return code), 0 when the call does not fold and
 * nothing was done. Every member decides alike. */
int rp_fold_MPI_Allgather(rp_comm *c, revprof_fn fn, double d, int *rc,
                          const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm);
int rp_fold_MPI_Alltoall(rp_comm *c, revprof_fn fn, double d, int *rc,
                         const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm);
int rp_fold_MPI_Allreduce(rp_comm *c, revprof_fn fn, double d, int *rc,
                          const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int rp_fold_MPI_Reduce(rp_comm *c, revprof_fn fn, double d, int *rc,
                       const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm);
int rp_fold_MPI_Bcast(rp_comm *c, revprof_fn fn, double d, int *rc,
                      void *buffer, int count, MPI_Datatype datatype, int root,
                      MPI_Comm comm);
int rp_fold_MPI_Scatter(rp_comm *c, revprof_fn fn, double d, int *rc,
                        const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm);
int rp_fold_MPI_Gather(rp_comm *c, revprof_fn fn, double d, int *rc,
                       const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm);
void rp_fold_finalize(void);
/* Non-blocking collective: starts the clock exchange; the rule runs when
 * the application's request completes. */
rp_req *rp_icoll_begin(rp_comm *c, rp_wid w, revprof_fn fn, double d);
rp_req *rp_icoll_begin_rooted(rp_comm *c, rp_wid w, revprof_fn fn, double d,
                              int root);
void rp_icoll_done(rp_req *r);
/* A persistent collective's record (inactive; root -1: not rooted), and
 * the clock exchange of each of its starts (from rp_req_start). */
rp_req *rp_pcoll_init(rp_comm *c, rp_wid w, revprof_fn fn, double d,
                      int root);
void rp_pcoll_start(rp_req *r);
/* The clocks of comm's p members meet (an allreduce of clocks and d on
 * comm, which every member calls), then fn at p and the largest d is
 * added: the rule of the collectives revprof costs on a private
 * communicator (a fence, file open/close and collective access). */
void rp_coll_meet_on(MPI_Comm comm, int p, revprof_fn fn, double d);

/* ---------------------------------------------------------- rp_nbr.c */

/* A blocking neighbourhood collective fn of d bytes per block on the
 * topology communicator comm (predict mode; no-op without a model or a
 * topology): the clocks meet the in-neighbours', the model's fn at
 * p = neighbours + 1 is added. */
void rp_nbr_meet(MPI_Comm comm, revprof_fn fn, double d);
/* The same for a non-blocking one: the clocks go to the out-neighbours by
 * an MPI_Ineighbor_allgather started now; rp_inbr_done (at completion)
 * applies now = max(now, max(own, in-neighbours' starts) + T_fn(k + 1, d)).
 * NULL (nothing to do) without a model or a topology. */
rp_req *rp_inbr_begin(MPI_Comm comm, rp_wid w, revprof_fn fn, double d);
/* A persistent one (MPI 4 MPI_Neighbor_*_init): the record, and each start
 * (from rp_req_start) sending the clocks of that start. */
rp_req *rp_pnbr_init(MPI_Comm comm, rp_wid w, revprof_fn fn, double d);
void rp_pnbr_start(rp_req *r);
void rp_inbr_done(rp_req *r);
/* Bytes per block of a v/w neighbourhood alltoall on comm: the mean over
 * its out-neighbour slots of counts[i] elements of types[i] (types NULL:
 * all of type). */
double rp_nbr_mean_bytes(MPI_Comm comm, rp_counts counts,
                         const MPI_Datatype *types, MPI_Datatype type);

/* ---------------------------------------------------------- rp_part.c */

/* Partitioned communication (MPI 4): a start of the request (rp_req_start)
 * and its completion (rp_req_done). */
void rp_part_start(rp_req *r);
void rp_part_done(rp_req *r);
/* Comm_idup: second idup of the parent for the shadow. */
rp_req *rp_idup_begin(MPI_Comm comm, MPI_Comm *newcomm);
void rp_idup_done(rp_req *r);

#endif
