/* The instrumentation cost model's pure rules (after Hollingsworth and
 * Miller's adaptive cost model for Paradyn, seed 002): revprof's own events
 * by kind, the predicted cost (expected rate x calibrated cost per event),
 * the observed cost of a period (counted events x calibrated cost, no timer
 * around any event), the settings that drive them, and the regulation that
 * keeps the observed cost under the user's bound (REVPROF_MAX_OVERHEAD)
 * with hysteresis. No MPI, no clocks, no I/O. */
#ifndef RP_ICOST_RULE_H
#define RP_ICOST_RULE_H

#include <stddef.h>

#include "rp_sample_rule.h"

/* revprof's own events, each with one calibrated cost. */
typedef enum rp_ic_kind {
  RP_IC_MPI = 0,  /* an intercepted MPI call in the active mode, with the
                     piggyback of one message */
  RP_IC_REGION,   /* a user region's enter + exit (compensate) */
  RP_IC_FUNCTION, /* a -finstrument-functions enter + exit (compensate) */
  RP_IC_SKIPPED,  /* the enter + exit of a throttled region or function:
                     the look-up that finds it off */
  RP_IC_SAMPLE,   /* a sampled message: the stamp at its send and the
                     latency's record at its receive (half each) */
  RP_IC_TRACE,    /* a trace record (REVPROF_TRACE) */
  RP_IC_OFFLOAD,  /* an online monitoring offload (REVPROF_MONITOR): its
                     cost is the mean of the rank's offload costs, which
                     monitoring times anyway (its OC) */
  RP_IC_LUA,      /* a Lua region's cost function run (revprof_region,
                     REVPROF_COMPUTE=annotate): its cost is the mean of
                     one call in RP_IC_LUA_EVERY, timed */
  RP_IC_KINDS
} rp_ic_kind;

#define RP_IC_LUA_EVERY 64

/* "mpi", "region", "function", "skipped", "sample", "trace", "offload",
 * "lua"; "?" otherwise. */
const char *rp_ic_kind_name(int k);
/* The kind named name, or -1. */
int rp_ic_kind_of(const char *name);

/* The seed's static rates, events per second: 1,000 for user procedures
 * (regions, functions), 100 for library and MPI routines; 0 for skipped,
 * sample and trace (derived from the MPI rate: rp_ic_sample_fraction, one
 * record per call). */
void rp_ic_static_rates(double rate[RP_IC_KINDS]);

/* Reads REVPROF_COST_RATES ("mpi=100,region=1000,function=2e4", any
 * subset of the kind names, rates >= 0 per second) over rate[]. Returns 0,
 * or REVPROF_EINVAL with a message naming the entry and rate[] untouched. */
int rp_ic_rates_parse(const char *text, double rate[RP_IC_KINDS], char *err,
                      size_t errlen);

/* Reads REVPROF_MAX_OVERHEAD: "off" or "" (no bound: 0), else a percentage
 * "P%" with 0 < P <= 100, e.g. "5%" -> 0.05. Returns 0, or REVPROF_EINVAL
 * with a message. */
int rp_ic_bound_parse(const char *text, double *bound, char *err,
                      size_t errlen);

/* The share of messages a sampling technique samples when msg_rate
 * messages per second leave: off 0, all 1, random p, counter 1/n, timer
 * at most one per period. */
double rp_ic_sample_fraction(const rp_sample_spec *s, double msg_rate);

/* Cost share of one CPU: sum over kinds of events x seconds per event,
 * over elapsed seconds (events a rate per second when elapsed is 1).
 * 0 when elapsed <= 0. */
double rp_ic_share(const double events[RP_IC_KINDS],
                   const double cost[RP_IC_KINDS], double elapsed);

/* A previous run's cost.csv (the text of the file): each rank's events
 * per second by kind (count / elapsed_s of its rows) and, when costs is
 * not NULL, its seconds per event of the kinds that run timed from their
 * own events (cost_from "offloads" or "timed-calls", with events; -1
 * elsewhere). Returns the number of ranks found (rates and costs
 * malloc'ed, nranks x RP_IC_KINDS, rank-major), or REVPROF_EINVAL /
 * REVPROF_ENOMEM with a message naming the line. */
int rp_ic_profile_parse(const char *text, double **rates, double **costs,
                        char *err, size_t errlen);

/* ---------------------------------------------------------- regulation */

#define RP_IC_LOW 0.5    /* raise again below this share of the bound */
#define RP_IC_TARGET 0.8 /* lower to (and raise up to) this share of it */
#define RP_IC_HOLD 3     /* periods in a row below RP_IC_LOW first */

typedef enum rp_ic_action {
  RP_IC_KEEP = 0, /* nothing to change */
  RP_IC_LOWER,    /* over the bound: lower revprof's cost */
  RP_IC_RAISE     /* well under it for a while: give back what was lowered */
} rp_ic_action;

/* One rank's regulator: bound (share of one CPU; 0 off) and how many
 * periods in a row the observed cost was under RP_IC_LOW x bound. */
typedef struct rp_ic_reg {
  double bound;
  int calm;
} rp_ic_reg;

/* The action after a period whose observed share was share; lowered: 1
 * when something lowered earlier can be given back. LOWER as soon as the
 * share exceeds the bound; RAISE after RP_IC_HOLD periods in a row under
 * RP_IC_LOW x bound (the count starts again after each RAISE); KEEP
 * otherwise and always without a bound. */
rp_ic_action rp_ic_regulate(rp_ic_reg *r, double share, int lowered);

/* 1 when giving back something that adds share add keeps the observed
 * share at most RP_IC_TARGET x bound. */
int rp_ic_fits(double share, double add, double bound);

/* A user region or instrumented function the regulation may turn off. */
typedef struct rp_ic_cand {
  double calls;    /* its calls in the period */
  double per_call; /* its own (inclusive) time per call, seconds */
  double saving;   /* instrumentation seconds one call costs on, minus
                      what it costs off */
  int off;         /* already off */
} rp_ic_cand;

/* The candidates to turn off so that the period's instrumentation time
 * falls by excess seconds: the largest savings (calls x saving) first,
 * among equal ones the least time per call, until the sum reaches excess
 * (or every candidate is used). Writes their indices to out (at most max)
 * and returns how many. */
size_t rp_ic_pick(const rp_ic_cand *c, size_t n, double excess, size_t *out,
                  size_t max);

/* Sampling at a lower or higher rate (sample mode's first lever): lower
 * halves the rate (all -> random:0.5, random:p -> p/2, counter:n -> 2n,
 * timer:s -> 2s, jitter scaled alike); raise doubles it up to orig at most.
 * Return 1 and fill *out, or 0 when nothing can change (off; random below
 * 1e-6, counter or timer at their largest; already at orig). */
int rp_ic_sample_lower(const rp_sample_spec *cur, rp_sample_spec *out);
int rp_ic_sample_raise(const rp_sample_spec *cur, const rp_sample_spec *orig,
                       rp_sample_spec *out);

#endif
