/* Point-to-point of librevprof (rp_p2p.c): the request table, the
 * piggyback on every message, completions, Sendrecv, matched receives,
 * large counts, the Bsend buffer. Above rp_state.h, below the collectives. */
#ifndef RP_P2P_H
#define RP_P2P_H

#include "rp_match.h"
#include "rp_sample.h"
#include "rp_state.h"


void rp_p2p_startup(void);
void rp_p2p_shutdown(void);
/* A thread's blocking records and scratch (rp_thr), made and freed. */
void rp_thr_init(rp_thr *t);
void rp_thr_free(rp_thr *t);

rp_req *rp_req_new(void);
/* After the PMPI call that created *request: files the record under the
 * handle, or drops it when the call failed (a send's: its call time in
 * sample mode first, rp_send_end). */
void rp_req_post(rp_req *r, int rc, MPI_Request *request);
/* The oldest record filed under h. Handles are not unique: Open MPI hands
 * out one shared handle for operations that completed at once. */
rp_req *rp_req_find(MPI_Request h);
/* Same, skipping records claimed by this call already, and claims the one
 * returned (array completions: duplicates get distinct records). */
rp_req *rp_req_claim(MPI_Request h);
/* What a Wait or Test takes: rp_req_find; with threads rp_req_claim, the
 * claim kept (like those of rp_reqs_claim) until rp_reqs_unclaim after the
 * completion has run. */
rp_req *rp_req_take(MPI_Request h);
void rp_reqs_unclaim(rp_req **recs, int n);
/* A completion call reported the request done with status st (the
 * library's status; want_status: the application looks at it). Runs the
 * completion rule, unpacks, fixes the status, releases the record unless it
 * is persistent. */
void rp_req_done(rp_req *r, MPI_Status *st, int want_status);
/* MPI_Request_get_status saw it complete: deliver data and status early. */
void rp_req_peek(rp_req *r, MPI_Status *st, int want_status);
/* MPI_Start on a persistent request. */
void rp_req_start(rp_req *r);
/* After PMPI_Start(all) w: in sample mode, a persistent send that stamped
 * a sampled message times the call from its stamp (calls.csv). */
void rp_req_started(rp_req *r, rp_wid w);
/* What a layer above does with its kinds of request (collectives,
 * Comm_idup, partitioned): at each start of a persistent one and at
 * completion. Registered once at MPI_Init (rp_coll_startup): the table
 * keeps this layer from calling up into theirs. */
typedef struct rp_req_kind_ops {
  void (*start)(rp_req *r);
  void (*done)(rp_req *r);
} rp_req_kind_ops;
void rp_req_kind_register(int kind, const rp_req_kind_ops *ops);
/* MPI_Request_free on a request revprof knows. */
int rp_req_free_user(rp_req *r, MPI_Request *request);
/* Progress of requests the application freed while active. */
void rp_zombies_progress(int final);

/* The completion calls (Wait*, Test*: kinds complete_* of wrappers.spec).
 * Records of n requests, NULL for the ones revprof does not know (*found
 * counts the known ones; NULL when out of memory); statuses to pass to
 * PMPI (the application's, or scratch when it ignores them but revprof
 * needs them); whether array entry st completed without error; the
 * records of a Waitsome/Testsome, whose statuses follow the indices. */
rp_req **rp_reqs_claim(int n, const MPI_Request reqs[], int *found);
MPI_Status *rp_statuses_for(int n, MPI_Status *user, int found);
int rp_completed_ok(int rc, const MPI_Status *st);
void rp_done_some(rp_req **recs, int found, int rc, int outcount,
                  const int *indices, MPI_Status *st, int want);
/* Waitany and Testany (flag NULL: Waitany) over receives only, with the
 * model's overlap rows: among the requests the MPI has completed, the one
 * whose message is there first in predicted time is completed (the
 * report's any-order flag counts the calls where that was not the first
 * of them in the array, the one MPI_Waitany would have taken). Returns 1
 * when it made the call (its code in *rc), 0 when the caller makes it. */
int rp_any_predicted(int n, MPI_Request reqs[], rp_req **recs, int found,
                     int *index, int *flag, MPI_Status *status, int *rc);
/* Waitsome and Testsome (test 1) over receives from distinct sources of
 * one communicator, decided in predicted time (rp_match_any): the receive
 * whose message is there first, alone (*outcount 1; MPI allows returning
 * one), or none yet for Testsome (0). Returns 1 when it made the call (its
 * code in *rc), 0 when the caller makes it. */
int rp_some_predicted(int n, MPI_Request reqs[], rp_req **recs, int found,
                      int test, int *outcount, int *indices,
                      MPI_Status *statuses, int *rc);
/* Waitall and Testall: the n records, statuses in request order. */
void rp_done_all(rp_req **recs, int found, int rc, int n, MPI_Status *st,
                 int want);
/* The completions of one call settled together (rp_clock_complete): a
 * call completing several requests opens a batch before rp_req_done and
 * settles it after; rp_req_done outside a batch settles at once. */
void rp_batch_begin(void);
void rp_batch_settle(void);

/* Sends: r NULL for a blocking call (uses the built-in record). The
 * inline versions below handle the common blocking case (small gap-free
 * data to a real peer) without calls; everything else goes here. */
rp_req *rp_send_begin_slow(rp_req *r, rp_wid w, revprof_fn fn,
                           const void *buf, int count, MPI_Datatype type,
                           int dest, int tag, MPI_Comm comm);
rp_req *rp_send_init(rp_wid w, revprof_fn fn, const void *buf, int count,
                     MPI_Datatype type, int dest, int tag, MPI_Comm comm);
rp_req *rp_recv_begin_slow(rp_req *r, rp_wid w, revprof_fn fn, void *buf,
                           int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm);
void rp_recv_end_slow(rp_req *r, int rc, MPI_Status *st, int want_status);
/* After a receive's rule: wildcard bookkeeping and the trace message. */
void rp_recv_after(rp_req *r, const MPI_Status *st, const double *pb,
                   const double lat[RP_NB], double bytes);
rp_req *rp_recv_init(rp_wid w, revprof_fn fn, void *buf, int count,
                     MPI_Datatype type, int source, int tag, MPI_Comm comm);

/* memcpy for the copy path: payloads of up to 16 bytes (the latency-bound
 * ones) without a library call, as two possibly overlapping moves. */
static inline void rp_copy(void *dst, const void *src, size_t n) {
  char *d = dst;
  const char *s = src;
  if (n >= 8 && n <= 16) {
    uint64_t a, b;
    __builtin_memcpy(&a, s, 8);
    __builtin_memcpy(&b, s + n - 8, 8);
    __builtin_memcpy(d, &a, 8);
    __builtin_memcpy(d + n - 8, &b, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t a, b;
    __builtin_memcpy(&a, s, 4);
    __builtin_memcpy(&b, s + n - 4, 4);
    __builtin_memcpy(d, &a, 4);
    __builtin_memcpy(d + n - 4, &b, 4);
  } else if (n < 4) {
    for (size_t i = 0; i < n; i++)
      d[i] = s[i];
  } else
    __builtin_memcpy(d, s, n);
}

/* A message leaving this rank: t_send into pb, the send's cost T_fn(d) on
 * the clocks; with the model's gap row messages leave one gap apart
 * (rp_clock_inject) and left (may be NULL) gets when this one has left. */
static inline void rp_send_clock(revprof_fn fn, double bytes, double *pb,
                                 double *left) {
  double cost[RP_NB], gap[RP_NB];
  if (RP_UNLIKELY(rp_g.clockless)) { /* what zero costs would give */
    for (int b = 0; b < RP_NB; b++) {
      pb[b] = rp_g.clk.now[b];
      if (left)
        left[b] = pb[b];
    }
    return;
  }
  rp_cost_fast(fn, 2.0, bytes, cost);
  if (!rp_g.p2p_overlap) {
    rp_clock_send(&rp_g.clk, cost, pb);
    return;
  }
  rp_cost_fast(REVPROF_FN_GAP, 2.0, bytes, gap);
  if (rp_g.epoch_load && rp_g.nic_free[RP_AVG] < rp_g.clk.now[RP_AVG])
    rp_g.burst_from = rp_g.clk.now[RP_AVG]; /* the endpoint was idle */
  rp_clock_inject(&rp_g.clk, cost, gap, rp_g.nic_free, pb);
  if (left)
    for (int b = 0; b < RP_NB; b++)
      left[b] = pb[b] + gap[b];
}

/* Sends the wrapper passes to PMPI as (r->wbuf, r->wcount, r->wtype); a
 * blocking one (r NULL) is then published as blocked on dest
 * (rp_match_send). */
static inline rp_req *rp_send_begin(rp_req *r, rp_wid w, revprof_fn fn,
                                    const void *buf, int count,
                                    MPI_Datatype type, int dest, int tag,
                                    MPI_Comm comm) {
  if (r == NULL && type == rp_last_type && rp_last_tinfo.plain &&
      count >= 0 && dest != MPI_PROC_NULL && !rp_g.dynamic) {
    double bytes = (double)count * rp_last_tinfo.size;
    if (bytes <= rp_g.fast_max) { /* copy path, blocking record */
      rp_req *b = &rp_th()->bsend;
      int h = RP_PB_BYTES;
      if (RP_UNLIKELY(rp_g.clockless)) { /* sample mode: its flag */
        b->pack[0] = (char)rp_sample_flag(bytes, dest, tag, comm);
        if (RP_SFLAG_BYTES > 1)
          memset(b->pack + 1, 0, RP_SFLAG_BYTES - 1);
        h = RP_SFLAG_BYTES;
      } else {
        double *pb = (double *)(void *)b->pack; /* malloc'ed: aligned */
        rp_send_clock(fn, bytes, pb, NULL);
        pb[RP_PB_META] = rp_pb_meta(rp_g.rank, bytes);
        rp_match_log_block(pb, bytes, dest, tag, comm);
      }
      rp_copy(b->pack + h, buf, (size_t)bytes);
      b->enc = RP_ENC_PACK;
      b->wbuf = b->pack;
      b->wcount = (int)bytes + h;
      b->wtype = MPI_PACKED;
      rp_t.cur_bytes += bytes;
      return b;
    }
  }
  if (r != NULL)
    return rp_send_begin_slow(r, w, fn, buf, count, type, dest, tag, comm);
  r = rp_send_begin_slow(NULL, w, fn, buf, count, type, dest, tag, comm);
  rp_match_send(dest, comm,
                r->enc == RP_ENC_PACK ? (double)(r->wcount - RP_PB_BYTES)
                                      : r->ubytes);
  return r;
}

/* A blocking send call w, costed as fn, is over (after PMPI): in sample
 * mode, its own time when it stamped a sampled message (rp_sample_sent;
 * an MPI_Isend's is taken in rp_req_post); a synchronous one, or a
 * standard one of the model's eager limit or more (rp_t.cur_bytes, the
 * call's bytes), waits for its receive's post (rp_clock_rendezvous, where
 * rp_match_rendezvous finds it; std: a standard send, counted in rdv_std
 * or rdv_std_missed). */
void rp_rendezvous_slow(int std);
/* Wrappers whose requests get the rendezvous rule at their completion:
 * MPI_Issend (not MPI_Ssend_init: the flag counts calls, and its starts
 * are not calls of it); from the model's eager limit on, MPI_Isend and
 * the starts of MPI_Send_init (counted per message, rdv_std). */
static inline int rp_w_sync_request(rp_wid w) {
  return w == RP_W_MPI_Issend || w == RP_W_MPI_Issend_c;
}
static inline int rp_w_std_request(rp_wid w) {
  return w == RP_W_MPI_Isend || w == RP_W_MPI_Isend_c ||
         w == RP_W_MPI_Send_init || w == RP_W_MPI_Send_init_c;
}
static inline void rp_send_end(rp_wid w, revprof_fn fn) {
  rp_sample_sent(w, fn);
  if (rp_g.pub && (w == RP_W_MPI_Ssend || w == RP_W_MPI_Ssend_c))
    rp_rendezvous_slow(0); /* predict mode, one host */
  else if (RP_UNLIKELY(rp_t.cur_bytes >= rp_g.eager_limit) &&
           (w == RP_W_MPI_Send || w == RP_W_MPI_Send_c))
    rp_rendezvous_slow(1); /* predict mode */
}

/* Deferred wildcard receives (rp_p2p.c): an MPI_Irecv from MPI_ANY_SOURCE
 * that rp_recv_begin marked RP_DEF_PENDING is posted with rp_defer_post in
 * place of PMPI (a generalized request); its message is decided when a
 * completion call asks for it (rp_defer_ready: wait, the call blocks until
 * the records complete; else one look), or when a receive or probe posted
 * later on its communicator with a tag that meets its own comes
 * (rp_defer_flush). */
int rp_defer_post(rp_req *r, MPI_Request *request);
void rp_defer_flush_slow(int tag, MPI_Comm comm);
static inline void rp_defer_flush(int tag, MPI_Comm comm) {
  if (RP_UNLIKELY(rp_g.wildq != NULL))
    rp_defer_flush_slow(tag, comm);
}
void rp_defer_ready_slow(rp_req **recs, int n, int wait);
static inline void rp_defer_ready(rp_req **recs, int n, int wait) {
  if (RP_UNLIKELY(rp_g.wild_open > 0) && recs)
    rp_defer_ready_slow(recs, n, wait);
}
/* MPI_Wait and MPI_Waitall, after rp_defer_ready: a rank that waits for
 * a receive from a known source can send nothing until that source sends
 * (its own messages of the call were logged when posted), so for the
 * others' wildcard decisions it is published as blocked on that source,
 * as in MPI_Recv: the first receive among reqs whose message revprof has
 * not seen yet (a receive delivered early, by a status peek, may complete
 * at once and is skipped, as are receives revprof does not see whole). */
void rp_wait_publish_slow(rp_req **recs, int n, const MPI_Request reqs[]);
static inline void rp_wait_publish(rp_req **recs, int n,
                                   const MPI_Request reqs[]) {
  if (rp_g.pub && recs)
    rp_wait_publish_slow(recs, n, reqs);
}
/* MPI_Cancel of a deferred receive (before PMPI_Cancel). */
void rp_defer_cancel(rp_req *r);
/* A blocking send of count elements of type by wrapper w: one that may
 * wait for its receiver (above RP_DEFER_EAGER bytes, or synchronous) first
 * lets the MPI have the pending deferred receives (rp_enter does it for
 * the other calls that may block). Called before the message is logged
 * (rp_match_log): a flush may receive, blocking, a message another rank
 * logged, and that rank may be in its own flush; were its message logged
 * first, two ranks exchanging from wildcard receives would each wait in
 * PMPI_Recv for a message the other logged but had not sent. */
#define RP_DEFER_EAGER 1024.0
void rp_defer_send_slow(rp_wid w, int count, MPI_Datatype type);
static inline void rp_defer_before_send(rp_wid w, int count,
                                        MPI_Datatype type) {
  if (RP_UNLIKELY(rp_g.wildq != NULL))
    rp_defer_send_slow(w, count, type);
}

/* Whether the MPI holds a receive the application posted on comm (or a
 * deferred one left to the MPI) that may take a message of tag: a
 * wildcard receive decided in predicted time could then be handed a
 * message that receive takes first (why: rp_held_why). */
int rp_recvs_held(int tag, MPI_Comm comm);
extern const char rp_held_why[];

/* Receives: the wrapper passes (r->wbuf, r->wcount, r->wtype) to PMPI. */
static inline rp_req *rp_recv_begin(rp_req *r, rp_wid w, revprof_fn fn,
                                    void *buf, int count, MPI_Datatype type,
                                    int source, int tag, MPI_Comm comm) {
  if (r == NULL && type == rp_last_type && rp_last_tinfo.plain &&
      count >= 0 && source != MPI_PROC_NULL && !rp_g.dynamic) {
    double cap = (double)count * rp_last_tinfo.size;
    if (cap <= rp_g.fast_max) {
      rp_req *b = &rp_th()->brecv; /* only what rp_recv_end's fast path reads */
      b->fn = fn;
      b->ubuf = buf;
      b->peer_spec = source;
      b->tag_spec = tag;
      b->comm = comm;
      b->enc = RP_ENC_PACK;
      b->unpacked = 0;
      b->wbuf = b->pack;
      b->wcount = (int)cap + rp_g.pbw;
      b->wtype = MPI_PACKED;
      return b;
    }
  }
  return rp_recv_begin_slow(r, w, fn, buf, count, type, source, tag, comm);
}

/* The source a blocking receive passes to PMPI: a wildcard decided in
 * predicted time (rp_match_source), else the one posted, on which the rank
 * is then published as blocked. */
static inline int rp_recv_source(int source, int tag, MPI_Comm comm) {
  rp_defer_flush(tag, comm);
  if (RP_LIKELY(source != MPI_ANY_SOURCE)) {
    if (rp_g.pub && source >= 0)
      rp_match_block_recv(source, comm);
    return source;
  }
  if (rp_g.pub && rp_recvs_held(tag, comm)) {
    rp_match_real(rp_held_why);
    return source;
  }
  source = rp_match_source(source, tag, comm);
  if (rp_g.pub && source >= 0)
    rp_match_block_recv(source, comm);
  return source;
}

/* A blocking receive's post (rp_match_posted), then its source
 * (rp_recv_source); in one step for a known source with no wildcard
 * receive deferred (then no flush can come between). */
static inline int rp_recv_post(int source, int tag, MPI_Comm comm) {
  if (RP_LIKELY(source >= 0) && rp_g.pub && rp_g.wildq == NULL) {
    rp_match_recv_slow(source, tag, comm);
    return source;
  }
  rp_match_posted(source, tag, comm);
  return rp_recv_source(source, tag, comm);
}

/* The status to give PMPI: the application's; else none at all when the
 * copy path needs nothing from it (the size travels in the piggyback; no
 * wildcard to record, no trace); else revprof's own. */
static inline MPI_Status *rp_recv_status(const rp_req *r, MPI_Status *user,
                                         MPI_Status *local) {
  if (user != MPI_STATUS_IGNORE)
    return user;
  if (r->enc == RP_ENC_PACK && r->blocking &&
      r->peer_spec != MPI_ANY_SOURCE && !rp_g.tracing && !rp_g.clockless)
    return MPI_STATUS_IGNORE; /* (sample mode: the size is in the status) */
  return local;
}

/* After the PMPI receive: data and piggyback out, status corrected (when
 * want_status), receive rule applied. st may be MPI_STATUS_IGNORE only as
 * rp_recv_status allows. */
static inline void rp_recv_end(rp_req *r, int rc, MPI_Status *st,
                               int want_status) {
  if (rc == MPI_SUCCESS && r->enc == RP_ENC_PACK && r->blocking &&
      RP_UNLIKELY(rp_g.clockless)) { /* sample mode: [flag | data] */
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS ||
        n < RP_SFLAG_BYTES || (unsigned char)r->pack[0] != RP_SFLAG_NO)
      goto slow; /* sampled, or not revprof's: the general path */
    rp_copy(r->ubuf, r->pack + RP_SFLAG_BYTES, (size_t)(n - RP_SFLAG_BYTES));
    if (want_status)
      PMPI_Status_set_elements(st, MPI_BYTE, n - RP_SFLAG_BYTES);
    rp_t.cur_bytes += n - RP_SFLAG_BYTES;
    return;
  }
  if (rc == MPI_SUCCESS && r->enc == RP_ENC_PACK && r->blocking) {
    double pb[RP_PB_DOUBLES], cost[RP_NB], lat[RP_NB];
    __builtin_memcpy(pb, r->pack, RP_PB_BYTES);
    double d = rp_pb_size(pb), cap = (double)(r->wcount - RP_PB_BYTES);
    int n = 0;
    if (st == MPI_STATUS_IGNORE) {
      if (d > cap) /* cannot be: more would have been a truncation error */
        d = cap;
    } else if (d > cap || want_status) {
      if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n < RP_PB_BYTES)
        goto slow; /* no piggyback? let the general path say so */
      d = n - RP_PB_BYTES;
      if (want_status)
        PMPI_Status_set_elements(st, MPI_BYTE, n - RP_PB_BYTES);
    }
    rp_copy(r->ubuf, r->pack + RP_PB_BYTES, (size_t)d);
    rp_match_got(pb);
    rp_cost_fast(r->fn, 2.0, d, cost);
    rp_cost_fast(REVPROF_FN_LATENCY, 2.0, d, lat);
    rp_t.cur_wait += rp_clock_recv(&rp_g.clk, cost, pb, lat);
    rp_t.cur_bytes += d;
    if (r->peer_spec == MPI_ANY_SOURCE || rp_g.tracing)
      rp_recv_after(r, st, pb, lat, d);
    return;
  }
slow:
  rp_recv_end_slow(r, rc, st, want_status);
}

/* Removes the piggyback from a probed message's status (count - 32 B). */
void rp_status_unpiggyback(MPI_Status *st, MPI_Comm comm);
/* A message matched by MPI_(I)mprobe on comm: remembered when comm reaches
 * another job, so that its MPI_(I)mrecv is native. */
void rp_message_probed(MPI_Message message, MPI_Comm comm);

/* MPI_Sendrecv and MPI_Sendrecv_replace (request NULL), MPI_Isendrecv and
 * MPI_Isendrecv_replace (MPI 4); w: the wrapper, for the statistics. */
int rp_sendrecv(rp_wid w, const void *sendbuf, int sendcount,
                MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                MPI_Comm comm, MPI_Status *status, int replace,
                MPI_Request *request);

/* Mrecv / Imrecv: receive a matched message (request NULL: blocking). */
int rp_mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
             MPI_Status *status, MPI_Request *request);

/* ------------------------------------------------ MPI-4 large counts */

/* MPI_Count arrays are read as 64-bit integers (rp_counts). */
_Static_assert(sizeof(MPI_Count) == 8, "MPI_Count is not 64 bits");

/* Whether a large-count argument fits the int path. */
static inline int rp_fits_int(MPI_Count n) {
  return n >= INT_MIN && n <= INT_MAX;
}

/* A point-to-point (count, type) of a _c binding as the int path takes it:
 * the same when count fits in an int, else one element of a contiguous
 * type of count elements (same type signature, so any binding on the
 * other side matches it), freed by rp_big_out once the call is posted. */
typedef struct rp_bigc {
  int count;
  MPI_Datatype type;
  MPI_Datatype made; /* MPI_DATATYPE_NULL: none */
} rp_bigc;
void rp_big_make(rp_bigc *b, MPI_Count count, MPI_Datatype type);
void rp_big_out(rp_bigc *b);
static inline void rp_big_in(rp_bigc *b, MPI_Count count, MPI_Datatype type) {
  b->made = MPI_DATATYPE_NULL;
  b->count = (int)count;
  b->type = type;
  if (!rp_fits_int(count))
    rp_big_make(b, count, type);
}

/* The MPI_Comm_free wrapper, before the free: pending deferred wildcard
 * receives on comm are decided or given to the MPI, and every pending
 * record on comm is marked comm_gone (MPI lets a program free a
 * communicator its requests still use; after the free MPICH rejects the
 * handle, so their completion must not look the communicator up). */
void rp_p2p_comm_freed(MPI_Comm comm);

/* The MPI_Type_free wrapper: forget cached types built on t. */
void rp_p2p_type_freed(MPI_Datatype t);

/* MPICH 4.0 keeps the datatype of a cancelled receive of a non-contiguous
 * type alive, and says at MPI_Finalize how many datatype objects it kept
 * ("yaksa: N leaked handle pool objects", natively too). A large receive
 * under revprof goes with a struct type of revprof's: the datatype objects
 * that kept only because of that (the struct, and a contiguous user type
 * with the derived types it is built from), distinct, counted over the run
 * (rp_leak_line takes them off the warning). 0 with other MPIs. */
long rp_p2p_leaked(void);

/* Bsend buffer: revprof attaches a larger one so piggybacks fit. */
int rp_buffer_attach(void *buf, int size);
int rp_buffer_detach(void *addr, int *size);

#endif
