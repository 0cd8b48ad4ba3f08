/* Sample mode (REVPROF_MODE=sample; seed 001, PHOTON): the program runs at
 * native speed while the sender of each point-to-point message decides
 * whether to sample it (REVPROF_SAMPLE, rp_sample_rule.h), flags the
 * message, and when it does, sends after it a stamp with its send start
 * (a time common to all ranks: each rank's offset to rank 0 is measured
 * at MPI_Init) and its call site; the receiver computes the latency at
 * completion and folds it into its class (source, destination, send site, receive site, size
 * class) at once, so no trace is written unless REVPROF_ANALYSIS asks.
 * MPI_Finalize gathers the classes to rank 0: latency.csv, sample.txt
 * (docs/revprof.md, "Sample mode"). Modes layer: the point-to-point layer
 * calls rp_sample_flag/rp_sample_flag_in, this file calls nothing above
 * the core. */
#ifndef RP_SAMPLE_H
#define RP_SAMPLE_H

#include "rp_state.h"

/* A stamp has the piggyback's layout: its min slot carries the send start
 * of a sampled message (-1: not sampled), its max slot the send site (in
 * sample mode the clocks mean nothing: no model). */
#define RP_PB_STAMP RP_MIN
#define RP_PB_SITE RP_MAX

extern const rp_mode_ops rp_mode_sample;

void rp_sample_out_slow(double *pb);
void rp_sample_in_slow(const double *pb, double bytes);
void rp_sample_sent_slow(rp_wid w, revprof_fn fn);

/* On the wire a message carries a flag in front of its data: whether it
 * was sampled (docs/revprof.md, "Sample mode"). A sampled message's stamp
 * (the piggyback's layout: send start, site, sender and bytes) follows it
 * as a message of its own on the communicator's shadow, with the same
 * destination and tag: messages of one (source, communicator, tag) are
 * received in the order they were sent, so the receiver takes the stamps
 * in the same order. The sender sends them when its call is over
 * (rp_sample_flush, at rp_leave), the receiver receives one when the
 * message it belongs to has been received. Unsampled messages thus cost
 * the flag and no stamp. */
#define RP_SFLAG_NO 0xA0  /* not sampled */
#define RP_SFLAG_YES 0xA1 /* sampled: its stamp follows */
/* The flag's bytes on the wire. One, so that a small message stays under
 * the size where an MPI takes a slower path (Open MPI 4.1's shared memory:
 * 10 bytes). MPICH 4.0's datatype engine cannot receive a large packed
 * message into a typed buffer at an odd offset (Message truncated; a
 * Sendrecv_replace packs its send half): eight bytes there. */
#ifdef MPICH_VERSION
#define RP_SFLAG_BYTES 8
#else
#define RP_SFLAG_BYTES 1
#endif

unsigned char rp_sample_flag_slow(double bytes, int dest, int tag,
                                  MPI_Comm comm);
void rp_sample_stamp_in(double bytes, MPI_Comm comm, MPI_Comm shadow,
                        const MPI_Status *st);

/* The flag of a message of bytes to dest with tag on comm (sample mode). */
static inline unsigned char rp_sample_flag(double bytes, int dest, int tag,
                                           MPI_Comm comm) {
  if (!rp_g.sampling)
    return RP_SFLAG_NO;
  if (rp_g.sample_skip > 0) {
    rp_g.sample_skip--;
    rp_g.sample_skipped++;
    return RP_SFLAG_NO;
  }
  return rp_sample_flag_slow(bytes, dest, tag, comm);
}

/* A received message's flag f, RP_SFLAG_NO or _YES (sample mode; st its
 * status, bytes its data; its stamp comes on comm's shadow, or on shadow
 * when comm is MPI_COMM_NULL, freed): the sample taken when f says it was
 * sampled. */
static inline void rp_sample_flag_in(unsigned char f, double bytes,
                                     MPI_Comm comm, MPI_Comm shadow,
                                     const MPI_Status *st) {
  if (RP_UNLIKELY(f == RP_SFLAG_YES))
    rp_sample_stamp_in(bytes, comm, shadow, st);
}

/* A partitioned message with piggyback pb leaves (at its last
 * MPI_Pready; its stamp rides in its clocks' own message, rp_part.c): the
 * sampler decides (rp_sample_flag's decision), and no send call is timed
 * for it (no call class in calls.csv). */
static inline void rp_sample_out_untimed(double *pb) {
  if (RP_UNLIKELY(rp_g.sampling)) {
    rp_sample_out_slow(pb);
    rp_t.sample_t0 = -1.0;
  }
}

/* A message of bytes with piggyback pb was received (once per message). */
static inline void rp_sample_in(const double *pb, double bytes) {
  if (RP_UNLIKELY(rp_g.sampling) && pb[RP_PB_STAMP] >= 0.0)
    rp_sample_in_slow(pb, bytes);
}

/* The send call w (costed as fn in predict mode) is over: when it stamped
 * a sampled message, the sender's time in it, send start to now, goes to
 * its call class (w, size class): calls.csv, which 'revprof validate'
 * puts beside the model's fn row. */
static inline void rp_sample_sent(rp_wid w, revprof_fn fn) {
  if (RP_UNLIKELY(rp_g.sampling) && rp_t.sample_t0 >= 0.0)
    rp_sample_sent_slow(w, fn);
}

/* The instrumentation cost's calibration (rp_engine.c): pass 0 samples no
 * message, pass 1 every message (REVPROF_ANALYSIS=write writing to
 * /dev/null), -1 forgets every sample since pass 0 and restores the
 * technique and the samples file. */
void rp_sample_calibrating(int pass);

/* revprof_sample_set: the technique from now on (REVPROF_SAMPLE's
 * syntax); 0, or a negative code with err set. */
int rp_sample_set(const char *spec, char *err, size_t errlen);

#endif
