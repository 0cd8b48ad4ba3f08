/* Trace writers of librevprof: the contract between the clock engine, which
 * calls these as the run goes, and the OTF2 / Chrome JSON writers. Times are
 * the rank's simulated avg clock in seconds. Every function is a no-op when
 * tracing is off or after a writer failed (it then warns once). */
#ifndef RP_TRACE_H
#define RP_TRACE_H

#include <stddef.h>

typedef struct rp_trace_config {
  const char *dir;    /* output directory (REVPROF_OUTPUT_DIR) */
  const char *formats; /* comma list from REVPROF_TRACE: "otf2,chrome"; "" off */
  int rank, size;     /* MPI_COMM_WORLD rank and size */
  int quiet;          /* REVPROF_QUIET=1: no warnings on stderr */
} rp_trace_config;

/* Starts this rank's trace; called once in MPI_Init after the clocks start.
 * Returns 0 (also when no format asks for a trace), or REVPROF_EIO
 * (revprof_model.h) after warning once when the stream cannot be made:
 * tracing is then off for this rank. */
int rp_trace_open(const rp_trace_config *c);

/* A state of the rank from t0 to t1 (seconds, simulated): name is an MPI
 * function ("MPI_Send"), "compute", or a region name; bytes may be 0. */
void rp_trace_state(const char *name, double t0, double t1, double bytes);

/* A point-to-point message seen at the receiver: sent by world rank src at
 * t_send, received here at t_recv (simulated seconds). */
void rp_trace_message(int src, double t_send, double t_recv, int tag,
                      double bytes);

/* The instrumentation cost model (rp_icost.c): event lines written so far,
 * and the seconds one state line costs, timed now by formatting lines
 * into the buffer without keeping them (best of a few rounds; 0 when
 * tracing is off). */
double rp_trace_records(void);
double rp_trace_record_cost(void);

/* Flushes and closes; partial = 1 when the run did not reach MPI_Finalize
 * (abort, signal): the output is marked as partial. Safe to call twice. */
void rp_trace_close(int partial);

#endif
