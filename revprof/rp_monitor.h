/* Online monitoring (seed 004, TAU over MRNet, built on MPI itself as
 * MUST/GTI does): with REVPROF_MONITOR=K the last K ranks of
 * MPI_COMM_WORLD are tool ranks that never return to main. They form a
 * tree of fanout REVPROF_MONITOR_FANOUT whose leaves receive the
 * application ranks' profiles (per-function calls and times of the active
 * mode) and whose nodes reduce them (statistics or histograms per event)
 * on the way to the root, the front-end, which writes each round's reduced
 * profile, offload cost, one-way delay, loss map and arrival interval under
 * REVPROF_OUTPUT_DIR/monitor. The application ranks see a world of their
 * own (rp_g.world; every wrapper maps MPI_COMM_WORLD to it). With
 * REVPROF_MONITOR_PROBE the application ranks run the search for the
 * Bottleneck Offload Interval instead of the program (revprof
 * monitor-probe). The rules are rp_monitor_rule.c's; docs/revprof.md,
 * "Online monitoring". Core layer: no mode, no engine call. */
#ifndef RP_MONITOR_H
#define RP_MONITOR_H

#include "rp_monitor_rule.h"
#include "rp_state.h"

/* Right after PMPI_Init, before the engine reads its settings: nothing
 * without REVPROF_MONITOR; else the tool ranks run the tree until the
 * application ranks finish, then finalize MPI and exit (never return),
 * and the application ranks return with rp_g.world their communicator,
 * their clocks' offset to the front-end measured, or (probe) run the
 * search and exit. Bad settings end the job with a message naming the
 * variable. */
void rp_monitor_startup(void);

/* MPI_Finalize, first thing: the last offload, the queue drained, the
 * rank's offload costs and losses sent to the front-end. */
void rp_monitor_finish(void);

/* 1 on an application rank of a monitored job (its offloads are an
 * event kind of the instrumentation cost, RP_IC_OFFLOAD). */
int rp_monitor_app(void);

/* The offloads' expected rate for the cost prediction: 1 / interval with
 * timer rounds, 0 when the program's calls decide (unknown). */
double rp_monitor_offload_rate(void);

/* An offload's cost before the first one is timed: the OC that
 * `revprof monitor-probe` measured for this job's shape (probe.csv),
 * else one send of the profile by model m (NULL: none); -1 when neither
 * is there. */
double rp_monitor_offload_guess(const revprof_model *m);

/* An application rank that ends inside MPI_Init (revprof run --dry-cost)
 * tells the tool ranks it is done, having offloaded nothing, so that
 * they end too (else MPI_Finalize would wait for them). */
void rp_monitor_leave(void);

/* The reports' "monitor:" line ("" without monitoring). */
const char *rp_monitor_line(void);

/* Region data in the profile: RP_MON_REGIONS slots of (calls, time)
 * after the wrappers', numbered by the front-end in the order it first
 * hears of each name, so the same for every rank. */
#define RP_MON_REGIONS 32
/* Longest region name the front-end keeps (longer ones are cut). */
#define RP_MON_NAME 200

/* The slot of the region called name: asked of the front-end, a round
 * trip, by the offload that first carries the region (each rank asks once
 * per name). -1 without monitoring or when every slot is taken (the
 * front-end lists those names in its summary). */
int rp_monitor_region_slot(const char *name);

/* The mode's writer of its regions' data into an offload: calls and time
 * of slot s at out[2 s] and out[2 s + 1] (zero before it is called). */
void rp_monitor_regions(void (*fill)(double *out));

/* One call of region name taking seconds, for a mode that keeps no
 * profile of its own (predict mode's Lua regions): kept by name here and
 * written into the offloads (nothing without monitoring). A mode with its
 * own writer (rp_monitor_regions) does not call it. */
void rp_monitor_region_add(const char *name, double seconds);

/* A region boundary (compensate mode's regions, annotations): a timer
 * offload that is due, the queue's progress. */
static inline void rp_monitor_at_region(void) {
  if (RP_UNLIKELY(rp_g.mon_poll != NULL))
    rp_g.mon_poll();
}

#endif
