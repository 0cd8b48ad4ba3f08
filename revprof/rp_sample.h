/* Sample mode (REVPROF_MODE=sample; seed 001, PHOTON): the program runs at
 * native speed while the sender of each point-to-point message decides
 * whether to sample it (REVPROF_SAMPLE, rp_sample_rule.h) and, when it
 * does, stamps the piggyback with its send start (a time common to all
 * ranks: each rank's offset to rank 0 is measured at MPI_Init) and its
 * call site; the receiver computes the latency at completion and folds it
 * into its class (source, destination, send site, receive site, size
 * class) at once, so no trace is written unless REVPROF_ANALYSIS asks.
 * MPI_Finalize gathers the classes to rank 0: latency.csv, sample.txt
 * (docs/revprof.md, "Sample mode"). Modes layer: the point-to-point layer
 * calls rp_sample_out/rp_sample_in, this file calls nothing above the
 * core. */
#ifndef RP_SAMPLE_H
#define RP_SAMPLE_H

#include "rp_state.h"

/* In sample mode the clocks mean nothing (no model): the piggyback's min
 * slot carries the send start of a sampled message (-1: not sampled), the
 * max slot its send site. */
#define RP_PB_STAMP RP_MIN
#define RP_PB_SITE RP_MAX

extern const rp_mode_ops rp_mode_sample;

void rp_sample_out_slow(double *pb);
void rp_sample_in_slow(const double *pb, double bytes);
void rp_sample_sent_slow(rp_wid w, revprof_fn fn);

/* A message with piggyback pb leaves (after its clocks are written). One
 * the sampler would certainly not sample (its counter, or its random gap
 * drawn in advance, has not run out) is marked here; the sampler then
 * counts it the next time it runs (the same decisions, message by message,
 * as deciding each one there). */
static inline void rp_sample_out(double *pb) {
  if (RP_UNLIKELY(rp_g.sampling)) {
    if (rp_g.sample_skip > 0) {
      rp_g.sample_skip--;
      rp_g.sample_skipped++;
      pb[RP_PB_STAMP] = -1.0;
    } else
      rp_sample_out_slow(pb);
  }
}

/* The same for a message whose send call is not timed (a partitioned
 * send leaves at its last MPI_Pready): no call class in calls.csv. */
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
