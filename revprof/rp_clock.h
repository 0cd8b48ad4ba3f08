/* Prediction rules of librevprof (predict mode): pure functions on a rank's
 * simulated clocks, no MPI, so that every rule is unit-tested on its own.
 * Times are seconds, sizes bytes. Every array of three is [min, avg, max]. */
#ifndef RP_CLOCK_H
#define RP_CLOCK_H

#include <stddef.h>

enum { RP_MIN = 0, RP_AVG = 1, RP_MAX = 2, RP_NB = 3 };

/* A rank's simulated time and where it went. Three clocks travel together:
 * the one driven by the models' lower bounds (and REVPROF_STEP_MIN), the
 * typical one, and the upper one. Invariant per bound:
 * now = compute + comm + wait (all start at 0 in MPI_Init). */
typedef struct rp_clock {
  double now[RP_NB];     /* simulated time since MPI_Init, seconds */
  double compute[RP_NB]; /* computation added between MPI calls, seconds */
  double comm[RP_NB];    /* model cost of MPI calls, seconds */
  double wait[RP_NB];    /* waiting for a message or for group members */
} rp_clock;

void rp_clock_init(rp_clock *c);

/* Computation: now += dt. */
void rp_clock_compute(rp_clock *c, const double dt[RP_NB]);

/* A local MPI cost that needs nobody else (e.g. posting an Isend,
 * MPI_Wtime): now += cost, counted as communication. */
void rp_clock_local(rp_clock *c, const double cost[RP_NB]);

/* Send: t_send = now (the value piggybacked on the message), then
 * now += cost (the model's sender cost T_send(d)). t_send may be NULL.
 * (Inline: it runs on the critical path of every small message.) */
static inline void rp_clock_send(rp_clock *c, const double cost[RP_NB],
                                 double t_send[RP_NB]) {
  for (int b = 0; b < RP_NB; b++) {
    if (t_send)
      t_send[b] = c->now[b];
    c->now[b] += cost[b];
    c->comm[b] += cost[b];
  }
}

/* Receive (blocking receive, or completion of a non-blocking one):
 * now = max(now + cost, t_send + latency), per bound, where cost is the
 * receiver's T_recv(d), t_send the piggybacked send start and latency the
 * model's transit time T_latency(d). The excess over now + cost is waiting.
 * Returns the avg clock's waiting time. */
static inline double rp_clock_recv(rp_clock *c, const double cost[RP_NB],
                                   const double t_send[RP_NB],
                                   const double latency[RP_NB]) {
  double wavg = 0.0;
  for (int b = 0; b < RP_NB; b++) {
    double ready = c->now[b] + cost[b];     /* receiver done copying */
    double arrive = t_send[b] + latency[b]; /* message there */
    double w = arrive > ready ? arrive - ready : 0.0;
    c->comm[b] += cost[b];
    c->wait[b] += w;
    c->now[b] = ready + w;
    if (b == RP_AVG)
      wavg = w;
  }
  return wavg;
}

/* ------------------------------------------------ messages that overlap
 * (LogGP-like: each rank's endpoint takes messages one gap after another;
 * the model's "gap" row is g(d), its "MPI_Wait" row a completed receive's
 * own cost o(d), MPI_Irecv the cost of a receive posted late.) */

/* A message leaving: messages from one rank leave one gap apart, so
 * t_send = max(now, nic_free) is the time piggybacked, nic_free becomes
 * t_send + gap, and now += cost (the call's own cost, T_Send or T_Isend),
 * per bound. A gap of 0 (a model without the row) gives rp_clock_send. */
static inline void rp_clock_inject(rp_clock *c, const double cost[RP_NB],
                                   const double gap[RP_NB],
                                   double nic_free[RP_NB],
                                   double t_send[RP_NB]) {
  for (int b = 0; b < RP_NB; b++) {
    double t = c->now[b] > nic_free[b] ? c->now[b] : nic_free[b];
    t_send[b] = t;
    nic_free[b] = t + gap[b];
    c->now[b] += cost[b];
    c->comm[b] += cost[b];
  }
}

/* A receive completed by a Wait or Test (not a blocking receive): its
 * message is there at max(t_send + latency, t_post + late), where t_post
 * is when the receive was posted and late what a receive posted after its
 * message had arrived costs (a copy when it went eagerly, the transfer
 * when it waited for the receive). */
typedef struct rp_arrival {
  double at[RP_NB];   /* the message there (rp_arrival_at) */
  double gap[RP_NB];  /* endpoint's gap g(d) before the next one */
  double own[RP_NB];  /* the rank's own cost o(d) of completing it */
  double done;        /* out: the avg clock once this one is complete */
  int src, tag;       /* for the trace (not read by the rules) */
  double bytes, t_send;
} rp_arrival;

void rp_arrival_at(const double t_send[RP_NB], const double latency[RP_NB],
                   const double t_post[RP_NB], const double late[RP_NB],
                   double at[RP_NB]);

/* 1 when a message sent at t_send and there at `at` travelled while the
 * receiving rank was itself sending, its endpoint busy with a burst of
 * messages from `from` until `until` (avg clock): [t_send, at) and
 * [from, until) overlap. Such a message belongs to an exchange (a halo:
 * ranks sending to each other at once), not to a lone train or a reply. */
static inline int rp_exchanging(double t_send, double at, double from,
                                double until) {
  return t_send < until && at > from;
}

/* A rank's receiving endpoint: when it was busy taking its recent
 * messages, [start, end) per bound (a message one gap long, messages one
 * after another one time), sorted by start and disjoint; the older half
 * is forgotten when RP_EP_HIST are kept. Zeroed: nothing taken yet. */
#define RP_EP_HIST 32
typedef struct rp_endpoint {
  int n[RP_NB];
  double start[RP_NB][RP_EP_HIST], end[RP_NB][RP_EP_HIST];
} rp_endpoint;

/* The endpoint takes a message that is there at a and occupies it for
 * len (bound b): at the first t >= a where [t, t + len) is free of what
 * it took before, in an earlier call or this one, which it records;
 * returns t. So messages completed in the order they arrive queue one
 * gap apart, and one completed after a later one (a program waiting in
 * another order than the messages came) takes the free time before it
 * instead of queueing behind it. */
double rp_endpoint_take(rp_endpoint *ep, int b, double a, double len);

/* The n receives one call completed (Waitall, Waitsome, Testall,
 * Testsome; Wait and Waitany: n = 1), in the order of their arrival (avg
 * clock; a is sorted in place). The endpoint takes them one gap apart,
 * e_i = max(at_i, e_{i-1} + gap_{i-1}) (rp_endpoint_take: after what it
 * took in earlier calls too, so that k receives completed by k MPI_Wait
 * queue as in one Waitall), and the rank spends its own cost on each,
 * now = max(now + own_i, e_i); so k messages in flight together end at
 * the latest arrival plus the gaps they queue for, not at the sum of k
 * receive costs. The excess over now + own counts as waiting. Sets each
 * a[i].done; returns the avg clock's waiting time. */
double rp_clock_complete(rp_clock *c, rp_arrival *a, int n,
                         rp_endpoint *ep);

/* A send's completion (Wait on an MPI_Isend): no earlier than its message
 * has left, done = t_send + gap: now = max(now, done), the increment
 * counted as communication. */
void rp_clock_sent(rp_clock *c, const double done[RP_NB]);

/* A synchronous send's rendezvous: its transfer starts once both sides
 * have posted, at max(t_send, t_post), t_send its message's departure and
 * t_post when its receive was posted, so the sender returns that much
 * later than a standard send would: now += max(0, t_post - t_send), per
 * bound, counted as waiting (for the receiver). Returns the avg clock's
 * waiting time. */
double rp_clock_rendezvous(rp_clock *c, const double t_send[RP_NB],
                           const double t_post[RP_NB]);

/* Blocking collective: every member's start clock combined into start_max
 * (per bound, the maximum over the members, this rank included), then
 * now = start_max + cost. Time from now to start_max is waiting. Returns the
 * avg clock's waiting time. */
double rp_clock_coll(rp_clock *c, const double start_max[RP_NB],
                     const double cost[RP_NB]);

/* Completion of a non-blocking collective started when the members' clocks
 * were start_max (maximum over members at their start calls):
 * now = max(now, start_max + cost). The increment counts as communication
 * up to cost and as waiting beyond. Returns the avg clock's waiting time. */
double rp_clock_coll_complete(rp_clock *c, const double start_max[RP_NB],
                              const double cost[RP_NB]);

/* Rooted collectives: a member knows, when the call completes, the start
 * clocks of the members whose data reached it, and no others. Data leaves
 * the root in MPI_Bcast and MPI_Scatter(v) (RP_ROOT_OUT: a non-root learns
 * the root's clocks, the root learns nothing) and goes to it in MPI_Reduce
 * and MPI_Gather(v) (RP_ROOT_IN: the root learns every member's, the others
 * nothing). The rule is rp_clock_coll with start_max the maximum over what
 * this member knows, its own start included: a non-root of a broadcast
 * ends at max(own, root) + cost, its root at own + cost; the root of a
 * reduction at max(all) + cost, the others at own + cost. */
enum { RP_ROOT_OUT = 1, RP_ROOT_IN = 2 };

/* A member's own part of a rooted collective, where the model measures it
 * (part: the rows bcast_root at a broadcast's root, bcast_late at its other
 * members, reduce_late at a reduction's non-roots): the member ends at
 * max(now + part, arrived + cost), arrived the start clocks its data
 * brought (a broadcast's root's; NULL: none, so now + part). A broadcast
 * whose root returned early, or whose data waits for a late member, thus
 * costs that member what the machine charges it, not the whole call. The
 * increment counts as waiting up to arrived - now, as communication
 * beyond. With part = cost it is rp_clock_coll over max(now, arrived).
 * Returns the avg clock's waiting time. */
double rp_clock_rooted(rp_clock *c, const double *arrived,
                       const double cost[RP_NB], const double part[RP_NB]);

/* 1 when a member (is_root: the root) learns other members' clocks from a
 * rooted collective of direction dir, else 0 (also for a bad dir). */
int rp_root_learns(int dir, int is_root);

/* What a member knows: known = own, raised per component to arrived's
 * when it learns (rp_root_learns). n components (clocks, then d); known
 * may be own or arrived (each component is read before it is written). */
void rp_root_known(int dir, int is_root, const double *own,
                   const double *arrived, double *known, int n);

/* One-sided communication. An origin's operation costs it nothing when
 * issued (the call returns at once); it completes at the target cost later
 * (the model's MPI_Put/Get/Accumulate of its bytes: issue to completion,
 * as measured). With the model's gap row (gap != NULL) the operations of
 * an origin share its endpoint as messages do (rp_clock_inject): each
 * starts at t = max(now, nic_free), nic_free becomes t + gap(d), and it
 * completes at t + cost, so their latencies overlap and their bytes queue;
 * pending = max(pending, t + cost). Without the row (gap == NULL, a
 * format-1 model) they go one after the other: pending = max(pending, now)
 * + cost. Per bound. An epoch's end (fence, complete, unlock, flush) waits
 * for them (rp_rma_settle): now = max(now, pending - overlap), the
 * increment counted as communication; pending starts again at 0. */
void rp_rma_queue(const double now[RP_NB], double pending[RP_NB],
                  const double cost[RP_NB], const double *gap,
                  double *nic_free);
void rp_rma_settle(rp_clock *c, double pending[RP_NB],
                   const double overlap[RP_NB]);

/* Predicted arrival time (avg clock) of a message sent at t_send. */
double rp_clock_arrival(const double t_send[RP_NB],
                        const double latency[RP_NB]);

/* ------------------------------------------------------ compute amounts */

/* Compute time of n annotated steps: n * step[b] per bound (step is
 * REVPROF_STEP_MIN, REVPROF_STEP, REVPROF_STEP_MAX). Negative n gives 0. */
void rp_compute_steps(const double step[RP_NB], double n, double out[RP_NB]);

/* Compute time given directly in seconds: the same on all three clocks.
 * Negative or non-finite seconds give 0. */
void rp_compute_seconds(double s, double out[RP_NB]);

/* Measured host CPU time of a gap (seconds) scaled to the target machine:
 * cpu * scale on all three clocks. */
void rp_compute_measured(double cpu, double scale, double out[RP_NB]);

/* Instruction count times seconds per instruction (when counters exist). */
void rp_compute_instructions(double ins, double sec_per_ins,
                             double out[RP_NB]);

/* ----------------------------------------------- message sizes, bytes */
/* The size d a collective is costed with, from the arguments that are
 * significant on this rank (the engine then takes the maximum over the
 * members, so ranks whose arguments are ignored agree with the others).
 * Datatypes are opaque here: type points at the caller's datatype handle
 * and tsize returns its size in bytes; a rule calls tsize only for handles
 * that are significant, so ignored arguments are never touched. "inplace"
 * is 1 when the send (for scatter: receive) buffer is MPI_IN_PLACE. */
typedef double (*rp_tsize_fn)(const void *type);

/* An array of counts as the call gave it: int (the classic bindings) or
 * 64-bit MPI_Count (the MPI-4 large-count _c bindings). */
typedef struct rp_counts {
  const void *a; /* NULL: none */
  int wide;      /* 1: 64-bit elements */
} rp_counts;
#define rp_counts_of(arr)                                                     \
  ((rp_counts){(const void *)(arr),                                           \
               _Generic((arr), const int *: 0, int *: 0, default: 1)})
/* Element i (the caller checked 0 <= i < the array's length). */
double rp_count_at(rp_counts c, int i);

/* Bcast, Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block: count
 * elements of the operation's type. */
double rp_d_count(double count, const void *type, rp_tsize_fn tsize);

/* Gather, Allgather, Alltoall: bytes sent by (to) each rank; with
 * MPI_IN_PLACE the receive count describes the block instead. */
double rp_d_send_block(int inplace, double sendcount, const void *sendtype,
                       double recvcount, const void *recvtype,
                       rp_tsize_fn tsize);

/* Gatherv, Allgatherv: this rank's send block; with MPI_IN_PLACE its own
 * entry recvcounts[rank] (0 <= rank < n). */
double rp_d_send_blockv(int inplace, double sendcount, const void *sendtype,
                        rp_counts recvcounts, int rank, int n,
                        const void *recvtype, rp_tsize_fn tsize);

/* Scatter: bytes received by each rank; at a root with MPI_IN_PLACE as the
 * receive buffer, the send count describes the block. */
double rp_d_recv_block(int inplace, double sendcount, const void *sendtype,
                       double recvcount, const void *recvtype,
                       rp_tsize_fn tsize);

/* Scatterv: this rank's receive block; in place at the root, its own entry
 * sendcounts[rank]. */
double rp_d_recv_blockv(int inplace, rp_counts sendcounts, int rank, int n,
                        const void *sendtype, double recvcount,
                        const void *recvtype, rp_tsize_fn tsize);

/* Alltoallv: average bytes sent to each of the n ranks (with MPI_IN_PLACE
 * the receive counts). */
double rp_d_alltoallv(int inplace, rp_counts sendcounts, const void *sendtype,
                      rp_counts recvcounts, const void *recvtype, int n,
                      rp_tsize_fn tsize);

/* Alltoallw: average bytes sent to each rank; types are arrays of n handles
 * stride bytes apart. */
double rp_d_alltoallw(int inplace, rp_counts sendcounts,
                      const void *sendtypes, rp_counts recvcounts,
                      const void *recvtypes, int n, size_t stride,
                      rp_tsize_fn tsize);

/* Reduce_scatter: the block this rank keeps, recvcounts[rank]. */
double rp_d_reduce_scatter(rp_counts recvcounts, int rank, int n,
                           const void *type, rp_tsize_fn tsize);

/* --------------------------------------------------- wildcard receives */

/* Detector of wildcard receives whose predicted arrival order disagrees
 * with the real matching: remembers the last RP_WILD_KEEP wildcard receives
 * (communicator id, tag asked, sender, predicted arrival). A new wildcard
 * receive of a message from another sender that the prediction has arriving
 * earlier than a remembered one whose tag rule would have accepted it means
 * the predicted run would have matched differently. */
#define RP_WILD_KEEP 16

typedef struct rp_wild_entry {
  unsigned long comm; /* communicator id (handle bits) */
  int tag_spec;       /* tag asked for (any_tag for a wildcard) */
  int src;            /* rank matched, in the communicator */
  double arrival;     /* predicted arrival, avg clock, seconds */
} rp_wild_entry;

typedef struct rp_wild {
  rp_wild_entry e[RP_WILD_KEEP];
  int n, next;        /* entries used, ring position */
  int any_tag;        /* the MPI library's MPI_ANY_TAG value */
  long receives;      /* wildcard receives seen */
  long suspicious;    /* those the predicted order would have given away */
  /* wildcard receives and probes decided in predicted time (rp_match.c):
     proven first, taken after REVPROF_WILDCARD_TIMEOUT, left to the MPI */
  long exact, timeouts, real;
  double wait_s;      /* host seconds spent waiting for the proofs */
} rp_wild;

/* ------------------------------ wildcard receives decided in predicted time */

/* What a rank waiting in a receive from MPI_ANY_SOURCE knows of another
 * rank (rp_match.c reads it from the rank's published state and message
 * log): whether it can still send a message that arrives, in predicted
 * time, before the earliest one known. */
enum rp_peer_state {
  RP_PEER_OUT = 0,  /* running the program: its clock only grows */
  RP_PEER_IN = 1,   /* inside an MPI call revprof does not describe */
  RP_PEER_RECV = 2, /* blocked in a receive from one rank (on) */
  RP_PEER_ANY = 3,  /* blocked in a receive from any rank (a wildcard
                       being decided) */
  RP_PEER_COLL = 4, /* inside a collective of a communicator the waiting
                       rank belongs to that nobody leaves before all have
                       joined, and the waiting rank has not joined yet */
  RP_PEER_GONE = 5, /* in MPI_Finalize: sends nothing more */
  RP_PEER_SEND = 6  /* in a blocking send to on (eager: it returns by
                       itself; rendezvous: it waits for on's receive) */
};

typedef struct rp_match_peer {
  int state;       /* enum rp_peer_state */
  int on;          /* RP_PEER_RECV: the rank it waits for; RP_PEER_SEND:
                      the one it sends to */
  int fed;         /* RP_PEER_RECV: a message from on to it is under way;
                      RP_PEER_ANY: one from anyone */
  int member;      /* it can send on the receive's communicator */
  int has;         /* a message of it the receive may take is known */
  int unknown;     /* its log lost messages the receive may take */
  int active;      /* it makes progress: computing (running, no MPI call
                      since the last look) or its clock moved; one that
                      only polls MPI or waits inside it is not */
  double clock;    /* lower bound of its next message's departure, s */
  double arrival;  /* has: that message's predicted arrival, s */
  double release;  /* RP_PEER_ANY: the earliest its receive can complete,
                      by its own decision's reckoning, s */
  double bound;    /* out: lower bound of its next departure, s */
  double sent;     /* RP_PEER_SEND: the message's bytes (not read by
                      rp_match_decide) */
} rp_match_peer;

enum { RP_MATCH_WAIT = 0, RP_MATCH_TAKE = 1 };

/* Conservative decision of rank self's wildcard receive among n ranks
 * (Chandy-Misra-Bryant, lookahead the model's least latency): the known
 * message arriving first (ties: the lower rank) is taken once no member
 * can still send one arriving earlier. A rank's next departure is at least
 * its clock; one blocked on a receive from a rank r with nothing under way
 * departs after r's next departure plus the lookahead, one blocked on a
 * wildcard with nothing under way after the earliest other rank's; the
 * waiting rank itself, a rank blocked on it with nothing under way, one in
 * a collective with it and one finalizing never undercut (each waits for
 * the waiting rank to act first, which it does only after this receive),
 * nor does a cycle of blocked ranks that excludes it (deadlocked); a rank
 * waiting on a wildcard departs no earlier than its receive can complete
 * (its release, which it publishes as the waiting rank publishes its own
 * in *release: the earliest known message, or the earliest a rank may
 * still make one arrive; the ranks' releases rise by the lookahead from
 * one look to the next, as null messages do). Fills p[].bound. Returns
 * RP_MATCH_TAKE with *who, or RP_MATCH_WAIT with *stuck = 1 when no rank
 * that may still undercut is active (the caller may time out) and 0 when
 * one is, or nothing is known. */
int rp_match_decide(rp_match_peer *p, int n, int self, double lookahead,
                    int *who, int *stuck, double *release);

/* ------------------------------------------------------------ piggyback */

/* How a point-to-point message carries the sender's clocks (docs/revprof.md,
 * "Piggyback"): */
typedef enum rp_pb_way {
  RP_PB_NONE = 0,   /* the user's arguments unchanged: no message
                       (MPI_PROC_NULL, a negative count MPI will reject) or
                       a peer in another job, which may not run revprof */
  RP_PB_COPY = 1,   /* [clocks | data] copied into one MPI_PACKED buffer */
  RP_PB_CLOCKS = 2, /* no data: the clocks alone, as doubles */
  RP_PB_TYPE = 3    /* a struct datatype over the clocks and the data */
} rp_pb_way;

/* The choice for a message of bytes data bytes: no_message (MPI_PROC_NULL
 * or count < 0), foreign (the peer may not run revprof), plain (a named,
 * gap-free datatype: memcpy packs it), copy_ok (memcpy gives MPI_Pack's
 * format here and a pack buffer is at hand), pack_max (REVPROF_PACK_MAX:
 * larger data goes by datatype). */
rp_pb_way rp_pb_choose(int no_message, int foreign, double bytes, int plain,
                       int copy_ok, double pack_max);

void rp_wild_init(rp_wild *w, int any_tag);

/* Records a receive posted with MPI_ANY_SOURCE (tag_spec as posted) that
 * matched a message from src with tag and predicted arrival. Returns 1 when
 * it is counted as suspicious. */
int rp_wild_record(rp_wild *w, unsigned long comm, int tag_spec, int src,
                   int tag, double arrival);

#endif
