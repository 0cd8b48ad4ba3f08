/* Settings of librevprof from REVPROF_* environment variables: parsing and
 * checking, no MPI (every variable is documented in docs/revprof.md). */
#ifndef RP_CONFIG_H
#define RP_CONFIG_H

#include <stddef.h>
#include <string.h>

#include "rp_clock.h"
#include "rp_icost_rule.h"
#include "rp_sample_rule.h"

typedef enum rp_mode {
  RP_MODE_PREDICT = 0,
  RP_MODE_OFF = 1,
  RP_MODE_COMPENSATE = 2, /* measure for real, remove own overhead */
  RP_MODE_SAMPLE = 3      /* native speed, message latencies sampled */
} rp_mode;

typedef enum rp_overhead_src {
  RP_OVERHEAD_AUTO = 0,      /* model's overhead table if complete, else
                                calibrate */
  RP_OVERHEAD_CALIBRATE = 1, /* time empty events at MPI_Init */
  RP_OVERHEAD_MODEL = 2      /* the model's overhead table only */
} rp_overhead_src;

typedef enum rp_compute_mode {
  RP_COMPUTE_ZERO = 0,     /* computation costs nothing */
  RP_COMPUTE_ANNOTATE = 1, /* only what the program declares */
  RP_COMPUTE_MEASURE = 2,  /* host CPU time of the gaps, scaled */
  RP_COMPUTE_AUTO = 3      /* the default: measure until the program's
                              first annotation, annotate from then on (the
                              engine resolves it at MPI_Init) */
} rp_compute_mode;

#define RP_PATH_MAX 1024

/* REVPROF_CONTENTION (rp_config.contention) */
enum { RP_CONTENTION_OFF = 0, RP_CONTENTION_EPOCH = 1, RP_CONTENTION_WORLD = 2 };

typedef struct rp_config {
  rp_mode mode;                 /* REVPROF_MODE */
  rp_compute_mode compute;      /* REVPROF_COMPUTE */
  double step[RP_NB];           /* REVPROF_STEP_MIN/STEP/STEP_MAX, s/step */
  double cpu_scale;             /* REVPROF_CPU_SCALE, target/host time */
  double compute_spread;        /* REVPROF_COMPUTE_SPREAD: least relative
                                   spread of measured compute (rp_noise.h);
                                   < 0 unset (rp_compute_spread) */
  double sec_per_ins;           /* REVPROF_INSTRUCTION_TIME, s; 0: off */
  int wtime_real;               /* REVPROF_WTIME=real */
  int quiet;                    /* REVPROF_QUIET=1: nothing on stdout or
                                   stderr, the report in its files only */
  int test_cal_zero;            /* REVPROF_TEST_CALIBRATION=zero (tests):
                                   the overhead calibrations at MPI_Init
                                   find revprof's work per MPI call free */
  int timer_monotonic;          /* REVPROF_TIMER=monotonic: measured gaps
                                   by clock_gettime, never the cycle
                                   counter */
  double pack_max;              /* REVPROF_PACK_MAX: piggyback by copy up
                                   to this many bytes, bytes; -1 when unset
                                   (the engine then picks its MPI library's
                                   measured default) */
  rp_overhead_src overhead;     /* REVPROF_OVERHEAD (compensate mode) */
  double inject;                /* REVPROF_INJECT_OVERHEAD: busy-wait per
                                   event in compensate mode (testing aid),
                                   seconds; 0: off */
  int wildcard_real;            /* REVPROF_WILDCARD=real: the MPI decides
                                   which message a wildcard receive takes
                                   (default predicted: the first in
                                   predicted time, rp_match.c) */
  int contention;               /* REVPROF_CONTENTION, with the model's
                                   gap_all row: RP_CONTENTION_EPOCH
                                   (default) one-sided operations of
                                   active-target epochs drain at the rate
                                   of the window's group all moving data,
                                   messages received while their receiver
                                   was sending at the rate of their
                                   communicator's, others at the pair's
                                   (the gap row);
                                   _WORLD: both at the rate of all the
                                   job's ranks sending at once; _OFF: both
                                   at the pair's */
  int exchange_sendrecv;        /* REVPROF_EXCHANGE=sendrecv (default
                                   latency: 0): with the model's
                                   MPI_Sendrecv row and eager limit, an
                                   exchange's messages from the eager
                                   limit on travel no shorter than that
                                   row (rp_p2p.c) */
  double wildcard_timeout;      /* REVPROF_WILDCARD_TIMEOUT, s: a wildcard
                                   receive whose senders all wait inside MPI
                                   without a change for this long takes the
                                   earliest message known */
  double wildcard_stall;        /* REVPROF_WILDCARD_STALL, s: a blocking
                                   wildcard decision still waiting after
                                   this long says so on stderr, with the
                                   other ranks' states, once a run (0:
                                   never) */
  char model[RP_PATH_MAX];      /* REVPROF_MODEL, "" if unset */
  char lua[RP_PATH_MAX];        /* REVPROF_LUA, "" if unset */
  char outdir[RP_PATH_MAX];     /* REVPROF_OUTPUT_DIR */
  rp_sample_spec sample;        /* REVPROF_SAMPLE (sample mode) */
  unsigned long seed;           /* REVPROF_SEED: random sampling */
  unsigned analysis;            /* REVPROF_ANALYSIS: RP_ANALYSIS_* bits */
  char gnuplot[RP_PATH_MAX];    /* REVPROF_GNUPLOT: sample mode draws its
                                   plot with it ("gnuplot" unless set;
                                   "": not drawn) */
  char trace[256];              /* REVPROF_TRACE, "" when off */
  /* the instrumentation cost model (seed 002, rp_icost.c) */
  double max_overhead;          /* REVPROF_MAX_OVERHEAD as a share of one
                                   CPU (0.05 for 5%); 0: no bound */
  double cost_period;           /* REVPROF_COST_PERIOD, s (default 0.1) */
  double checkpoint;            /* REVPROF_CHECKPOINT: seconds between
                                   checkpoints of the partial report; 0:
                                   none; < 0: auto (rp_checkpoint_next) */
  double cost_rate[RP_IC_KINDS]; /* expected events per second: the seed's
                                   static rates, REVPROF_COST_RATES over
                                   them */
  int cost_rates_set;           /* REVPROF_COST_RATES was given */
  char cost_profile[RP_PATH_MAX]; /* REVPROF_COST_PROFILE: a previous
                                   run's cost.csv (or its folder); "" */
  char regions_off[RP_PATH_MAX]; /* REVPROF_REGIONS_OFF: names of user
                                   regions and instrumented functions off
                                   from the start (compensate), comma-
                                   separated; "" none */
  int dry_cost;                 /* REVPROF_DRY_COST=1: print the predicted
                                   cost at MPI_Init and exit (revprof run
                                   --dry-cost) */
} rp_config;

/* Where variables come from: getenv in the library, a table in tests.
 * Returns NULL for an unset variable. */
typedef const char *(*rp_getenv_fn)(const char *name, void *ud);


/* Reads every REVPROF_* setting. On a bad value returns REVPROF_EINVAL (or
 * REVPROF_ERANGE for a path too long) and writes a message naming the
 * variable, the value and what is accepted; *c then holds defaults for
 * everything not yet read. */
int rp_config_read(rp_config *c, rp_getenv_fn get, void *ud, char *err,
                   size_t errlen);

/* Checkpoints of the partial report (REVPROF_CHECKPOINT): a run killed
 * by a signal revprof cannot catch (SIGKILL: a launcher's time limit, the
 * out-of-memory killer) keeps the last one. The host seconds to the next
 * checkpoint after one gap seconds long (gap 0: the first): setting s > 0
 * every s; auto (< 0) 10 s first, then each gap twice the one before, at
 * most 300 s, so short runs get one early and long ones write rarely;
 * 0: never (INFINITY). */
double rp_checkpoint_next(double setting, double gap);

/* The compute mode a run starts with: asked unless it is auto; auto starts
 * in annotate when a Lua cost file is set (the program declares its
 * computation), in measure otherwise (an unmodified program). The engine
 * switches an auto run from measure to annotate at the first annotation
 * call (rp_compute_switches). */
rp_compute_mode rp_compute_resolve(rp_compute_mode asked, int have_lua);

/* 1 when an annotation call (revprof_compute_steps/seconds,
 * revprof_region) seen in a run that auto started in measure switches it
 * to annotate; 0 otherwise. */
int rp_compute_switches(int is_auto, rp_compute_mode now);

/* REVPROF_QUIET from the process environment, for messages that may come
 * before rp_config_read (or without it): 1 for "1", 0 for unset, "" and
 * "0"; any other value is not quiet, so that rp_config_read's error about
 * it is seen. */
int rp_quiet_env(void);

/* This process's MPI_COMM_WORLD rank and size as the launcher put them in
 * the environment (Open MPI, MPICH/Hydra, PMIx), for a report written
 * without MPI; rank 0 of 1 when none says. */
void rp_launcher_rank(rp_getenv_fn get, void *ud, int *rank, int *size);

/* REVPROF_OUTPUT_DIR alone (even when another variable stopped
 * rp_config_read): its value, else fallback when unset or empty. */
const char *rp_config_outdir(rp_getenv_fn get, void *ud,
                             const char *fallback);

/* An environment entry ("NAME=value", or a bare name) that looks like
 * revprof's but is none of its variables (the README's table, the tools'
 * included: one environment reaches both): 1, and in hint (len bytes) the
 * closest known name when one is within 2 edits ("" otherwise); 0 for a
 * known variable or another prefix than REVPROF_. */
int rp_env_unknown(const char *entry, char *hint, size_t len);

/* The modes' names, by rp_mode's value: REVPROF_MODE's and the reports'. */
#define RP_MODE_COUNT 4
_Static_assert(RP_MODE_SAMPLE + 1 == RP_MODE_COUNT, "a name per mode");
static const char *const rp_mode_names[RP_MODE_COUNT] = {
    "predict", "off", "compensate", "sample"};
/* m's name ("off" for a value out of range). */
static inline const char *rp_mode_name(rp_mode m) {
  return (unsigned)m < RP_MODE_COUNT ? rp_mode_names[m] : "off";
}
/* The mode that a REVPROF_MODE value (or revprof run's --mode) names: 0
 * and *m set, or -1 for a name this revprof does not know. Inline: the
 * revprof tool checks --mode by it without librevprof's settings code. */
static inline int rp_mode_parse(const char *v, rp_mode *m) {
  for (int k = 0; v && k < RP_MODE_COUNT; k++)
    if (strcmp(v, rp_mode_names[k]) == 0) {
      *m = (rp_mode)k;
      return 0;
    }
  return -1;
}
const char *rp_compute_name(rp_compute_mode m);
/* REVPROF_CONTENTION's name of an RP_CONTENTION_* value ("?" otherwise) */
const char *rp_contention_name(int c);

/* The least relative spread of measured compute: REVPROF_COMPUTE_SPREAD
 * when set (asked >= 0), else the model's machine.compute_spread when it
 * has one (model >= 0), else RP_NOISE_FLOOR; *from names the source. */
double rp_compute_spread(double asked, double model, const char **from);

#endif
