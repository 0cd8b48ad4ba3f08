/* Wildcard receives decided in predicted time (rp_match.c): every rank
 * logs the messages it sends and publishes its state (clock, blocked or
 * not, on whom) in a window of shared memory; a receive or probe from
 * MPI_ANY_SOURCE takes the message that arrives first in predicted time
 * once no other rank can still send one that arrives earlier
 * (rp_match_decide), then receives it from its source. Core layer: uses
 * rp_state and rp_comm only. */
#ifndef RP_MATCH_H
#define RP_MATCH_H

#include "rp_state.h"

/* At MPI_Init after rp_comm_startup, and at MPI_Finalize: collective over
 * MPI_COMM_WORLD. On only in predict mode, with REVPROF_WILDCARD=predicted,
 * without MPI_THREAD_MULTIPLE and with every rank on one node (else the
 * report says why wildcard receives took the MPI's order). */
void rp_match_startup(void);
void rp_match_shutdown(void);

void rp_match_log_slow(double *pb, double bytes, int dest, int tag,
                       MPI_Comm comm);
void rp_match_got_slow(int src, double seq);

/* A message of bytes to rank dest of comm with tag leaves: logged, and
 * pb[RP_PB_SEQ] gets its number (-1: not logged). */
static inline void rp_match_log(double *pb, double bytes, int dest, int tag,
                                MPI_Comm comm) {
  if (rp_g.pub)
    rp_match_log_slow(pb, bytes, dest, tag, comm);
  else
    pb[RP_PB_SEQ] = -1.0;
}

/* rp_match_log, then rp_match_send: a blocking send's message, the
 * communicator looked up once. */
void rp_match_log_block_slow(double *pb, double bytes, int dest, int tag,
                             MPI_Comm comm);
static inline void rp_match_log_block(double *pb, double bytes, int dest,
                                      int tag, MPI_Comm comm) {
  if (rp_g.pub)
    rp_match_log_block_slow(pb, bytes, dest, tag, comm);
  else
    pb[RP_PB_SEQ] = -1.0;
}

/* A logged message to rank dest of comm (piggyback pb) was cancelled:
 * receivers no longer wait for it. */
void rp_match_cancelled(const double *pb, int dest, MPI_Comm comm);

/* A message with piggyback pb was received: its log entry is taken. */
static inline void rp_match_got(const double *pb) {
  if (rp_g.pub && pb[RP_PB_SEQ] >= 0.0)
    rp_match_got_slow(rp_pb_rank(pb), pb[RP_PB_SEQ]);
}

/* The source a blocking receive or probe (source, tag, comm) passes to
 * PMPI: source itself unless it is MPI_ANY_SOURCE, else the rank of comm
 * whose message arrives first in predicted time (waits for the proof, or
 * REVPROF_WILDCARD_TIMEOUT). */
int rp_match_source(int source, int tag, MPI_Comm comm);
/* Same for a non-blocking probe from MPI_ANY_SOURCE: 1 with *src decided;
 * 0 while no message can be proven first yet (the probe then reports
 * none); -1 when wildcards take the MPI's order here (the caller probes as
 * asked and, when it finds one, calls rp_match_real_probe); -2 the same,
 * already counted. */
int rp_match_try(int tag, MPI_Comm comm, int *src);
void rp_match_real_probe(void);

/* MPI_Waitany and MPI_Testany (wait 0) over n receives, the i-th from
 * rank src[i] of comm with tag tags[i], whose message is there in
 * predicted time at(i, t_send, bytes, ud) (avg clock), or known[i] when
 * it was delivered already (MPI_Request_get_status; NaN: not): the index of the
 * one there first, once no other source can still send one there earlier
 * (Waitany waits for the proof); -1 undecided yet (Testany); -2 when this
 * is not decided here (matching in predicted time off, a communicator
 * without an id, fewer than two receives, two from one source). */
typedef double (*rp_arrival_fn)(int i, const double t_send[RP_NB],
                                double bytes, void *ud);
int rp_match_any(int n, const int *src, const int *tags,
                 const double *known, MPI_Comm comm, rp_arrival_fn at,
                 void *ud, int wait);

/* A wildcard receive or probe the MPI matched (why: for the report). */
void rp_match_real(const char *why);

/* This rank blocks in a receive from rank source of comm (not a
 * wildcard), or in a send to dest; finalizes. (Collectives publish
 * themselves: rp_coll_start_sync.) */
void rp_match_block_recv(int source, MPI_Comm comm);
void rp_match_block_send(int dest, MPI_Comm comm, double bytes);
/* A blocking send of bytes to rank dest of comm, its message logged. */
static inline void rp_match_send(int dest, MPI_Comm comm, double bytes) {
  if (rp_g.pub)
    rp_match_block_send(dest, comm, bytes);
}
void rp_match_gone(void);

/* Synchronous sends (the rendezvous rule): every receive is published as
 * it is posted, before PMPI, with the rank's clocks then, as the k-th it
 * posted for (source, comm, tag); a receive whose match the sender cannot
 * tell so (from MPI_ANY_SOURCE or with MPI_ANY_TAG, a message taken by a
 * matched probe, a cancelled request: rp_match_unsure) turns the rule off
 * for the messages to this rank, and a cancel for this rank's own. */
void rp_match_posted_slow(int source, int tag, MPI_Comm comm);
static inline void rp_match_posted(int source, int tag, MPI_Comm comm) {
  if (rp_g.pub)
    rp_match_posted_slow(source, tag, comm);
}
/* A blocking receive from rank source >= 0 of comm (rp_g.pub set): posted
 * (rp_match_posted_slow), then blocked on source (rp_match_block_recv),
 * the communicator looked up once. */
void rp_match_recv_slow(int source, int tag, MPI_Comm comm);
void rp_match_unsure(void);
/* The message the last send logged (key->valid 0: it logged none), taken:
 * a synchronous send's, read right after its rp_match_log. */
void rp_match_last_sent(rp_rdv_key *key);
/* Once the MPI has completed a synchronous send of message key (so its
 * receive is posted): 1 with the post clocks t_post of the receive it met,
 * the k-th message from this rank to (dest, comm, tag) meeting dest's k-th
 * receive posted for (this rank, comm, tag) (non-overtaking); 0 when that
 * receive cannot be told (no message logged, an unsure receiver or sender,
 * a post overwritten in its ring). */
int rp_match_rendezvous(const rp_rdv_key *key, double t_post[RP_NB]);

#endif
