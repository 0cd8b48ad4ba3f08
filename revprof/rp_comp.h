/* Overhead compensation rules of compensate mode (seed 000 §2-§3): per-rank
 * overhead, delay and waiting-time bookkeeping, message by message. Pure:
 * no MPI, no clocks; the engine feeds measured times in seconds. */
#ifndef RP_COMP_H
#define RP_COMP_H

/* What one rank knows about its own intrusion. Invariant: x == o + adj. */
typedef struct rp_comp {
  double o;      /* measurement overhead accumulated locally, seconds */
  double adj;    /* waiting removed by the parallel rule (sum of w - w'),
                    seconds; negative when approximated waits grew */
  double x;      /* delay: how much earlier this rank's next event would
                    happen without measurement, seconds (piggybacked) */
  double wait;   /* measured waiting in receives and collectives, seconds */
  double wait_c; /* the same, approximated without measurement, seconds */
  double msgs;   /* receive events processed */
} rp_comp;

void rp_comp_init(rp_comp *c);

/* dt seconds of measurement overhead happened on this rank (o, x grow). */
void rp_comp_overhead(rp_comp *c, double dt);

/* A receive completed after measured waiting w (seconds, >= 0) on a
 * message whose sender had delay xs when sending (seconds): seed 000's
 * general two-process analysis. With w' = max(0, w + x - xs) the waiting
 * becomes w', and the delay min(xs, x + w). Returns w'. */
double rp_comp_recv(rp_comp *c, double w, double xs);

/* The same with the messages' host send times, where the ranks share one
 * clock (one node). The call began at host time t0 (the receiver's post)
 * with delay x, so without measurement at t0 - x; late = max(0, a - (t0 -
 * x)) with a the latest send time without measurement (a message's send
 * time less its sender's delay) among the messages the call completed, and
 * sent = max(0, s - t0) with s the latest measured send time among them.
 * Without measurement the call ends late after its own post, plus the
 * part of its measured waiting w that came after the last send (the
 * transfer): w' = max(0, late + w - sent). Seed 000's rule is this rule
 * for a message sent when the receive ended (s = t0 + w); a message that
 * was already there when the call began (s <= t0) is no longer taken to
 * have arrived at its end, where the seed's w + x - xs overstates the
 * waiting by up to t0 + w - s. The delay becomes x + w - w'. Returns w'. */
double rp_comp_recv_timed(rp_comp *c, double w, double late, double sent);

/* Seed 000 Fig. 12: two messages received in the order a, then b, sent at
 * measured times ta, tb by ranks with delays xa, xb. Returns 1 when the
 * approximated execution sends b before a (ta - xa > tb - xb) although the
 * measured one sent a no later than b: a reordering the rules keep in
 * measured receive order (reported, not corrected). */
int rp_comp_reordered(double ta, double xa, double tb, double xb);

/* Local compensation of one region (seed 000 §2): measured inclusive time
 * incl minus the overhead ov spent inside it, clamped at 0. Parallel
 * compensation also removes adj, the waiting removed inside it. */
double rp_comp_local(double incl, double ov);
double rp_comp_parallel(double incl, double ov, double adj);

#endif
