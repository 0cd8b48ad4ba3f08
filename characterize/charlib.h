/* Pure rules of the characterization program, kept apart from MPI so they
 * are unit-tested without it: options, the list of points to measure,
 * statistics with outlier rejection, the stop rule, jump detection between
 * message sizes, the time budget, clock offsets and progress estimates. */
#ifndef RP_CHARLIB_H
#define RP_CHARLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "revprof_model.h"

/* ------------------------------------------------------------- options */

#define RP_CHAR_MAX_PLIST 256   /* group sizes in an explicit --procs list */
#define RP_CHAR_MAX_SIZE (1L << 30) /* largest message size, bytes (int counts) */

typedef enum rp_sync {
  RP_SYNC_BARRIER = 0, /* MPI_Barrier before each repetition */
  RP_SYNC_WINDOW = 1   /* clock offsets + agreed start time (seed 003 §3.1) */
} rp_sync;

typedef enum rp_preset {
  RP_PRESET_DEFAULT = 0,
  RP_PRESET_QUICK = 1,
  RP_PRESET_FULL = 2
} rp_preset;

typedef struct rp_char_options {
  unsigned char fn_on[REVPROF_FN_COUNT]; /* 1: measure this function; the
                                            file I/O rows only with io_dir */
  long smin, smax;      /* message sizes, bytes; smin = 0 adds d = 0 */
  int pmin, pmax;       /* group sizes when nplist = 0; pmax 0 = default */
  int nplist;           /* entries of plist (an explicit --procs list) */
  int plist[RP_CHAR_MAX_PLIST]; /* sorted, distinct, each >= 2 */
  int peer;             /* world rank paired with rank 0 for P2P */
  double rse;           /* target relative standard error of the mean */
  double point_time;    /* cap per point, seconds (warm-up included) */
  long min_reps;        /* repetitions before the rse rule may stop */
  long max_reps;        /* hard limit of repetitions per point */
  int warmup;           /* untimed repetitions before each point */
  double budget;        /* seconds for all measurements; 0 = no limit */
  double checkpoint;    /* seconds between rewrites of raw.partial.csv;
                           0 = after every point */
  uint64_t seed;        /* order of points; used when seed_set */
  int seed_set;
  rp_sync sync;
  double jump;          /* factor flagging a jump; 0 = no extra sizes */
  int refine;           /* rounds of extra sizes */
  int passes;           /* sweeps over all points, merged per point */
  int max_extra;        /* extra sizes per function and round */
  long max_buffer;      /* bytes per buffer per rank; bigger points skipped */
  char method[16];      /* fitting method name: "default" or "paper" */
  char name[128];       /* machine name; "" = host name */
  char outdir[1024];    /* output directory */
  char io_dir[1024];    /* --io-dir: where the file I/O rows are timed;
                           "" = they are not */
  int raw_only;         /* stop after raw.csv */
  int resume;           /* --resume: keep DIR/raw.partial.csv's points */
  int no_datasheet;     /* fit and write the model, no datasheet */
  int no_pdf;           /* datasheet without running pdflatex */
  int verbose;          /* -1 quiet, 0 progress, 1 every point */
  int help, list;       /* --help, --list given */
  int np;               /* -n N passed through by a launcher; 0 if absent */
  rp_preset preset;
} rp_char_options;

/* Fills o with the defaults of preset (see rp_char_usage). */
void rp_char_options_init(rp_char_options *o, rp_preset preset);

/* Parses argv[1..argc-1] into o. Presets (--quick, --full) are applied
 * first wherever they stand; every other option overrides them. Without
 * --io-dir the file I/O rows are dropped from "all" (the default), and
 * naming one in --functions is an error. Returns 0, or REVPROF_EINVAL /
 * REVPROF_ERANGE / REVPROF_ENOFUNC with a message that names the option at
 * fault. */
int rp_char_parse(int argc, char **argv, rp_char_options *o, char *err,
                  size_t errlen);

/* Checks the options against the number of ranks launched (group sizes and
 * peer must exist, at least 2 ranks). 0 or REVPROF_ERANGE with a message. */
int rp_char_validate(const rp_char_options *o, int world, char *err,
                     size_t errlen);

/* Prints the option list (every option the parser knows) to f. */
void rp_char_usage(FILE *f);

/* Prints the function table: name, kind, what is timed, sizes used; the
 * file I/O rows say that they need --io-dir. */
void rp_char_list(FILE *f);

/* 1 for the file I/O rows (MPI_File_*): timed only with --io-dir. */
int rp_char_fn_io(revprof_fn fn);

/* 1 when o times every function it can: all of the table, the file I/O
 * rows only when io_dir is set ("all" in messages and notes). */
int rp_char_all_on(const rp_char_options *o);

/* Name of a file system from statfs's f_type: "ext2/3/4", "xfs", "nfs",
 * "lustre", ... or "type 0x..." for one not in the table. Pure. */
void rp_char_fs_name(unsigned long f_type, char *buf, size_t len);

/* The machine's speed, checked around the whole run: t0 and t1 are one
 * way of a reference message timed before the first point and after the
 * last. When they differ by more than limit times either way, writes the
 * note REVPROF_NOTES_DRIFT "..." (model notes, run.txt) to buf and returns
 * 1; else buf is "" and it returns 0 (also without both times). Pure. */
int rp_char_drift(double t0, double t1, double limit, char *buf, size_t len);

/* The eager limit (machine.eager_limit): the smallest size d in 1..dmax
 * for which waits(d, arg) says 1, waits being 0 below some size and 1 from
 * it (an MPI_Send that waits for its receive to be posted: rendezvous).
 * Doubles d from 1 until a size waits, then bisects between the last size
 * that did not and the first that did, so the limit is exact to the byte
 * in about 2 log2(limit) calls. INFINITY when no size up to dmax waits
 * (dmax itself is tried); 0 when dmax < 1. Pure but for waits. */
double rp_char_eager_search(long dmax, int (*waits)(long d, void *arg),
                            void *arg);

/* One-line summary of the settings (for model notes and run.txt). */
void rp_char_describe(const rp_char_options *o, int world, char *buf,
                      size_t len);

/* Group sizes to measure for collectives, ascending; returns the count
 * (<= max). Default: every p in 2..world when world <= 16, else the powers
 * of two below world and world itself. */
int rp_char_procs(const rp_char_options *o, int world, int *out, int max);

/* Message sizes: 0 (when smin is 0), smin, the powers of two between, smax;
 * ascending and distinct. Returns the count (<= max). */
int rp_char_sizes(const rp_char_options *o, long *out, int max);

/* Bytes each rank writes to the file before a timed MPI_File_sync */
#define RP_IO_SYNC_BYTES 65536

/* Bytes of the send and receive buffers one rank needs for fn with group
 * size p and d bytes (the largest over the ranks of the group). */
void rp_char_buffers(revprof_fn fn, int p, long d, size_t *send,
                     size_t *recv);

/* 1 when fn's repetitions send data their sender has just written, as an
 * application packs a halo before it sends it (the point-to-point message
 * rows, gap_all included): rp_kctx_fresh rewrites the send buffer before
 * each one. On shared memory a message of freshly written data copies
 * more slowly than one sent again from the same buffer. */
int rp_char_fresh_send(revprof_fn fn);

/* 1 when the point fits max_buffer and int element counts (d too). */
int rp_char_fits(revprof_fn fn, int p, long d, long max_buffer);

/* --------------------------------------------------------------- plan */

typedef struct rp_char_spec {
  revprof_fn fn;
  int p;  /* group size; 2 for P2P, 1 for LOCAL */
  long d; /* bytes */
} rp_char_spec;

typedef struct rp_char_plan {
  size_t n, cap;
  rp_char_spec *pt;
  size_t nlimited; /* points left out because of --max-buffer */
} rp_char_plan;

/* Every point of the enabled functions: P2P at p = 2 over all sizes,
 * collectives over all group sizes and sizes (barriers at d = 0 only),
 * LOCAL at p = 1, d = 0. plan must be zeroed or freed. */
int rp_char_plan_build(const rp_char_options *o, int world,
                       rp_char_plan *plan, char *err, size_t errlen);
int rp_char_plan_add(rp_char_plan *plan, const rp_char_spec *s);
void rp_char_plan_free(rp_char_plan *plan); /* keeps the struct, zeroes it */

/* Merges k >= 1 measurements of one point from separate passes into out:
 * median of the pass medians, mean of the pass means, min of the minima,
 * max of the maxima, repetitions summed; rse is the standard error of the
 * pass means relative to their mean (k >= 2), else the single pass's. A
 * point measured in one block of repetitions carries that block's state
 * (caches, scheduling, the peer's polling), which its own rse does not see. */
void rp_char_merge_passes(const revprof_point *in, size_t k,
                          revprof_point *out);

/* Fisher-Yates shuffle with splitmix64: the same seed gives the same order
 * on every machine. */
void rp_char_plan_shuffle(rp_char_plan *plan, uint64_t seed);
uint64_t rp_rand_next(uint64_t *state);

/* ---------------------------------------------------------- statistics */

typedef struct rp_stats {
  double min, median, mean, max; /* seconds, over the kept samples */
  double rse;      /* standard error of the mean / mean; 0 when all equal */
  long n;          /* samples kept */
  long nrejected;  /* samples outside the 1.5 x IQR fences */
} rp_stats;

/* Statistics of x[0..n-1] after dropping the samples outside
 * [Q1 - 1.5 IQR, Q3 + 1.5 IQR] (quartiles interpolated; no rejection when
 * n < 4). work holds n doubles. REVPROF_EINVAL when n = 0. */
int rp_stats_compute(const double *x, size_t n, double *work, rp_stats *out);

typedef enum rp_stop {
  RP_STOP_NO = 0,
  RP_STOP_RSE,  /* target rse reached */
  RP_STOP_TIME, /* per-point time cap reached */
  RP_STOP_REPS  /* --max-reps reached */
} rp_stop;

typedef struct rp_stop_rule {
  double rse;     /* target */
  double cap;     /* seconds per point */
  long min_reps;  /* before the rse rule applies */
  long max_reps;
} rp_stop_rule;

/* Whether the repetition loop stops after nreps timed repetitions, elapsed
 * seconds since the point began, and rse of the samples so far (negative
 * when not computed at this repetition). The time cap needs 2 repetitions
 * so that an rse exists, unless 10 caps have passed (the caller then drops
 * a point with fewer than 2). All ranks call it with the same values. */
rp_stop rp_stop_decide(const rp_stop_rule *r, long nreps, double elapsed,
                       double rse);

/* 1 when the statistics should be recomputed after nreps repetitions:
 * every time up to 32, then every nreps/16 (keeps sorting cheap). */
int rp_stop_check_due(long nreps);

const char *rp_stop_name(rp_stop s);

/* -------------------------------------------------------- jump detection */

/* Looks for jumps in one sweep: sizes d[0..n-1] ascending (> 0) with times
 * t[]. The interval (d[i], d[i+1]) is flagged when t[i+1]/t[i] differs from
 * the local trend (d[i+1]/d[i])^s, s the median log-log slope of up to two
 * intervals on either side (at least two needed), by more than factor.
 * Writes the flagged intervals' midpoints (d[i]+d[i+1])/2 to mid[] and
 * their deviations |log ratio - log trend| to score[], largest first, at
 * most max; returns the count. */
int rp_jumps_find(const double *d, const double *t, int n, double factor,
                  long *mid, double *score, int max);

/* Extra points after a sweep: for each function and group size in pts,
 * runs rp_jumps_find on the medians; the midpoints of a function (union
 * over p, the max_extra with the largest deviation, not already measured)
 * are added for every p measured for that function. */
int rp_char_refine(const revprof_point *pts, size_t n, double factor,
                   int max_extra, long max_buffer, rp_char_plan *out);

/* ----------------------------------------------------- budget, progress */

typedef enum rp_budget {
  RP_BUDGET_RUN = 0, /* full per-point cap */
  RP_BUDGET_SHRINK,  /* cap lowered to fit the budget */
  RP_BUDGET_SKIP     /* budget spent: the point is not measured */
} rp_budget;

/* Per-point cap under a total budget (seconds, 0 = none) after elapsed
 * seconds with left points to go (this one included): the remaining time
 * shared evenly, at most point_time. */
rp_budget rp_budget_cap(double budget, double elapsed, size_t left,
                        double point_time, double *cap);

/* Seconds left: the mean time per point so far times the points left
 * (unbiased because the order is random); capped by the budget left when
 * budget > 0; negative when nothing is done yet. */
double rp_eta(double elapsed, size_t done, size_t total, double budget);

/* "42 s", "3 min 05 s", "1 h 02 min". */
void rp_fmt_duration(double seconds, char *buf, size_t len);

/* Clock offset of a remote rank (remote clock minus local clock, seconds)
 * from n ping-pongs: local send time, remote reply time, local receive time;
 * the exchange with the shortest round trip wins. */
double rp_clock_offset(const double *t_send, const double *t_remote,
                       const double *t_recv, int n);

#endif
