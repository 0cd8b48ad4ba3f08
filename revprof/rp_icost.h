/* revprof's own cost (seed 002, the Paradyn adaptive cost model), in every
 * mode: the predicted cost at MPI_Init (calibrated seconds per event x the
 * expected rate of each event kind, the seed's static rates or a previous
 * run's cost.csv), the observed cost of each period of REVPROF_COST_PERIOD
 * seconds (events counted x calibrated cost: no timer around any event),
 * and the regulation that keeps it under REVPROF_MAX_OVERHEAD through the
 * mode's regulate hook. MPI_Finalize writes cost.txt, cost.csv,
 * cost-series.csv and cost-decisions.csv (docs/revprof.md, "Instrumentation
 * cost"). The rules are rp_icost_rule.c's. Core layer: calls the modes only
 * through their hooks. */
#ifndef RP_ICOST_H
#define RP_ICOST_H

#include "rp_state.h"

#define RP_IC_TICK 32 /* MPI calls between two looks at the clock */

/* The kinds a mode has (rp_mode_ops.cost_kinds), MPI calls always. */
unsigned rp_icost_kinds(void);

/* End of MPI_Init, costs calibrated (rp_g.ic_cost): the predicted cost
 * (collective over MPI_COMM_WORLD: the maximum over ranks), its line on
 * stderr (rank 0, unless quiet), the first period started. With
 * REVPROF_DRY_COST=1 rank 0 prints the prediction by kind on stdout and
 * every rank ends the program (exit 0) without running it further. */
void rp_icost_startup(void);

/* A region or function event at host time now (compensate mode: it read
 * the clock anyway): the period is closed when it is over, or early when
 * its events alone used up the bound's budget for the whole period. */
void rp_icost_close(double now);
static inline void rp_icost_at(double now) {
  if (RP_UNLIKELY(now >= rp_g.ic_due || --rp_g.ic_budget < 0.0))
    rp_icost_close(now);
}

/* What the regulation changed, for the report: action "lower" or
 * "raise", what ("region foo off", "sampling random:0.05"), why, the
 * observed share before, and the share predicted after. */
void rp_icost_decision(const char *action, const char *what, const char *why,
                       double before, double after);

/* The events a kind counted in the period under way, so far. */
double rp_icost_period_events(int kind);

/* MPI_Finalize, before the mode's report (collective): the last period
 * closed, every rank's figures gathered, rank 0 writes the cost files and
 * keeps the summary line (rp_icost_line); flags set where the bound was
 * exceeded or something was throttled. */
void rp_icost_finish(void);

/* Rank 0 after rp_icost_finish: the one-line summary for the mode's report
 * ("instrumentation cost: predicted ..., observed ..."), "" before. */
const char *rp_icost_line(void);

/* This rank's line for a partial report (no malloc, no MPI); "" before
 * rp_icost_startup. */
void rp_icost_partial_line(char *buf, size_t len);

#endif
