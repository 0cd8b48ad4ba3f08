/* Online monitoring's pure rules (after Nataraj, Malony, Shende and Morris's
 * TAU-over-MRNet operating range study, seed 004): the settings, the shape
 * of the tree of tool ranks, the packets that climb it and the filters that
 * reduce them, the decision to reduce a round with children missing (the
 * acceptance threshold), the search for the Bottleneck Offload Interval
 * (BOI), the Limiting Overhead, the thinning of offloads to the BOI and the
 * model's BOI. No MPI, no clocks, no I/O. */
#ifndef RP_MONITOR_RULE_H
#define RP_MONITOR_RULE_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------- settings */

typedef enum rp_mon_offload {
  RP_MON_BLOCKING = 0,    /* the offload waits for its parent to take it */
  RP_MON_NONBLOCKING = 1, /* an unbounded queue drained at MPI calls */
  RP_MON_LOSSY = 2        /* a queue of at most lossy_cap; drop when full */
} rp_mon_offload;

typedef enum rp_mon_filter {
  RP_MON_STATS = 0, /* per event: n, sum, sum of squares, min, max */
  RP_MON_HIST = 1   /* per event: RP_MON_BINS counts (rp_mon_hist_bin) */
} rp_mon_filter;

typedef enum rp_mon_when {
  RP_MON_TIMER = 0, /* every interval seconds, checked at MPI calls and
                       region boundaries, until the first explicit call */
  RP_MON_CALLS = 1, /* only at revprof_monitor_offload() */
  RP_MON_AUTO = 2   /* at revprof_monitor_offload(), thinned to the BOI */
} rp_mon_when;

#define RP_MON_DEFAULT_FANOUT 8
#define RP_MON_DEFAULT_LOSSY 4
#define RP_MON_DEFAULT_INTERVAL 1.0 /* seconds */
#define RP_MON_DEFAULT_POLL_US 50.0

typedef struct rp_mon_config {
  int tools;       /* K, REVPROF_MONITOR: tool ranks (0: off) */
  int fanout;      /* F, REVPROF_MONITOR_FANOUT (>= 1) */
  int offload;     /* enum rp_mon_offload, REVPROF_MONITOR_OFFLOAD */
  int lossy_cap;   /* B of "lossy:B" (>= 1) */
  int accept;      /* AT, REVPROF_MONITOR_ACCEPT (>= 0) */
  int filter;      /* enum rp_mon_filter, REVPROF_MONITOR_FILTER */
  int when;        /* enum rp_mon_when, from REVPROF_MONITOR_INTERVAL */
  double interval; /* seconds, RP_MON_TIMER only (> 0) */
  double poll_us;  /* REVPROF_MONITOR_POLL_US: an idle tool rank sleeps
                      this long between polls (0: spins) */
} rp_mon_config;

/* The defaults: off, fanout 8, blocking, lossy_cap 4, accept 0, stats,
 * timer of 1 s, poll 50 us. */
void rp_mon_config_default(rp_mon_config *c);

/* Reads the REVPROF_MONITOR* variables through get (NULL or "" for unset:
 * the default) into c: REVPROF_MONITOR (integer >= 0),
 * REVPROF_MONITOR_FANOUT (integer >= 1), REVPROF_MONITOR_OFFLOAD
 * ("blocking", "nonblocking", "lossy" or "lossy:B" with B >= 1),
 * REVPROF_MONITOR_ACCEPT (integer >= 0), REVPROF_MONITOR_FILTER ("stats",
 * "hist"), REVPROF_MONITOR_INTERVAL (seconds > 0, "calls" or "auto"),
 * REVPROF_MONITOR_POLL_US (>= 0). Returns 0, or REVPROF_EINVAL with a
 * message naming the variable and its value (c then undefined). */
int rp_mon_config_read(rp_mon_config *c,
                       const char *(*get)(const char *name, void *ctx),
                       void *ctx, char *err, size_t errlen);

/* "blocking", "nonblocking", "lossy"; "stats", "hist"; "timer", "calls",
 * "auto" ("?" for anything else). */
const char *rp_mon_offload_name(int offload);
const char *rp_mon_filter_name(int filter);
const char *rp_mon_when_name(int when);

/* ----------------------------------------------------------------- tree */
/* K tool ranks numbered 0..K-1 form a heap of fanout F: tool t's children
 * are tools t*F+1 .. t*F+F that are < K; tool 0, the root, is the
 * front-end. The tools without tool children are the leaves: they receive
 * from the N application ranks, leaf j (j = 0..L-1, tool K-L+j) from the
 * application ranks ceil(j*N/L) .. ceil((j+1)*N/L)-1, contiguous. */

/* tool t's parent tool, -1 for the root */
int rp_mon_parent(int t, int fanout);
/* number of tool children of tool t (0 for a leaf) */
int rp_mon_tool_children(int t, int tools, int fanout);
/* number of leaves L */
int rp_mon_leaves(int tools, int fanout);
/* the tool index of the leaf application rank a sends to */
int rp_mon_leaf_of_app(int a, int apps, int tools, int fanout);
/* the application ranks leaf tool t receives from: *first and *count
 * (count 0 and returns 0 if t is not a leaf; returns 1 if it is) */
int rp_mon_app_range(int t, int apps, int tools, int fanout, int *first,
                     int *count);
/* depth of the tree (1 for a lone root) */
int rp_mon_depth(int tools, int fanout);
/* 0, or REVPROF_EINVAL with a message when the shape cannot work: tools
 * < 1, fanout < 1, apps < 1, or fewer application ranks than leaves. */
int rp_mon_shape_check(int apps, int tools, int fanout, char *err,
                       size_t errlen);

/* -------------------------------------------------------------- packets */
/* Every packet is an array of doubles: a header of RP_MON_HDR doubles,
 * then its payload, then the bitmap of the application ranks it holds
 * (rp_mon_words(apps) 64-bit words stored in doubles' bits: memcpy). */

#define RP_MON_HDR 8
enum {
  RP_MON_H_ROUND = 0,   /* round number */
  RP_MON_H_FLAGS = 1,   /* RP_MON_F_* */
  RP_MON_H_EVENTS = 2,  /* E */
  RP_MON_H_RANKS = 3,   /* application ranks whose data it holds */
  RP_MON_H_TMIN = 4,    /* earliest offload start (front-end clock, s) */
  RP_MON_H_TMAX = 5,    /* latest offload start */
  RP_MON_H_DISCARD = 6, /* ranks whose data a node threw away (over AT) */
  RP_MON_H_PREVOC = 7   /* largest cost of the offload before this one of
                           the ranks it holds (s; 0 for a first one) */
};
#define RP_MON_F_RAW 1.0       /* E raw values of one application rank */
#define RP_MON_F_DISCARDED 2.0 /* no payload: the round was thrown away */

#define RP_MON_BINS 64 /* histogram bins per event */
#define RP_MON_STAT 5  /* n, sum, sumsq, min, max */

/* 64-bit words of a bitmap of n ranks */
int rp_mon_words(int n);
/* payload doubles: raw E; stats RP_MON_STAT * E; hist RP_MON_BINS * E */
size_t rp_mon_payload(int raw, int events, int filter);
/* whole packet in doubles: header + payload + bitmap words */
size_t rp_mon_packet_doubles(int raw, int events, int filter, int apps);
/* the bitmap part of packet p (of that kind): bit a is application rank a */
uint64_t *rp_mon_bitmap(double *p, int raw, int events, int filter);
void rp_mon_bit_set(uint64_t *w, int a);
int rp_mon_bit_get(const uint64_t *w, int a);
void rp_mon_bit_or(uint64_t *dst, const uint64_t *src, int words);
int rp_mon_bit_count(const uint64_t *w, int words);

/* --------------------------------------------------------------- filters */

/* the histogram bin of a value: 0 for v <= 0 or NaN, else
 * floor(log2(v)) + 32 clamped to 1..RP_MON_BINS-1 (bin b >= 1 holds
 * [2^(b-32), 2^(b-31)), the end bins open) */
int rp_mon_hist_bin(double v);
/* the lower edge of bin b >= 1 (2^(b-32)); 0 for bin 0 */
double rp_mon_hist_lo(int b);
/* the identity of the filter: stats n = sum = sumsq = 0, min = +inf,
 * max = -inf; hist all zero */
void rp_mon_acc_init(double *acc, int events, int filter);
/* adds one application rank's E raw values */
void rp_mon_acc_raw(double *acc, const double *v, int events, int filter);
/* merges a reduced payload of the same filter */
void rp_mon_acc_merge(double *acc, const double *in, int events, int filter);
/* event e of a stats payload: mean, sample standard deviation over the
 * ranks (0 for n < 2), min, max; all 0 when n is 0 */
void rp_mon_stats_of(const double *acc, int e, double *mean, double *sd,
                     double *min, double *max, double *n);

/* --------------------------------------------------- acceptance threshold */

typedef enum rp_mon_decision {
  RP_MON_WAIT = 0,   /* a child may still send this round */
  RP_MON_REDUCE = 1, /* send it up (complete, or with <= AT missing) */
  RP_MON_DISCARD = 2 /* more than AT children missing: thrown away */
} rp_mon_decision;

/* A node with nchild children holds a round: nhave children sent it with
 * data, ngone can no longer send it with data (they sent a later round,
 * finished, or sent it discarded). Waits while nhave + ngone < nchild;
 * then reduces when nchild - nhave <= accept, else discards. */
int rp_mon_decide(int nchild, int nhave, int ngone, int accept);

/* ------------------------------------------------------------ BOI search */
/* Seed 004 section IV: a resting phase (stop-and-go) gives restOWD and
 * restSD; the search starts at high = restOWD (low = 0 or the BOI of the
 * previous profile size), and after l rounds at the current interval
 * decides from their OWDs: queued when growth > restSD and mean OWD >
 * restOWD + k * restSD; queued moves low up and the interval to the
 * middle of the upper half, else high down and the interval to the middle
 * of the lower half; it ends when high - low < the error threshold
 * (2 * restSD), returning the current interval, or high if the last step
 * queued. Beyond the seed: growth is the least-squares slope of the step's
 * OWDs per round (the seed's mean of successive increases is (last -
 * first) / (l - 1): two rounds' noise decides it on a time-shared
 * machine); queuing at the first high doubles it (at most RP_BOI_GROW
 * times); the error threshold is at most an eighth of the first range (a
 * resting spread as large as restOWD would end the search before any
 * step) and at least 1e-3 of the first high (one without spread ends).
 * Also beyond the seed, and the default (RP_BOI_STEP): the growth compared
 * with restSD is the step's rise, the slope over its l - 1 intervals, not
 * one round's. The seed's per-round rule (RP_BOI_ROUND) sees a queue only
 * when it grows by restSD each round: where the resting spread is as large
 * as one round's work (a time-shared VM: restSD 30 us, the tree 70 us a
 * round), it takes intervals 30 us short of the tree's as quiet. The mean
 * OWD's test (restOWD + k restSD) stays, and keeps noise from passing for
 * a queue: the edge found is b - 2 k restSD / (l - 1) (the mean rises by
 * half the step's rise), b - restSD with the seed's rule.
 * Beyond the seed, under RP_BOI_STEP: a step below the first high lasts
 * as long as the first step did, l * first / cur rounds (rp_boi_rounds),
 * so that the rise a queue gains over the step does not shrink with the
 * interval (with l rounds a tree of 10 us a round probed at 7.7 us rises
 * 50 us over the step, within a 30 us resting spread's reach of noise);
 * and the search ends when high - low is below err or an eighth of high,
 * whichever is less (at least 1e-3 of the first high): its answer is
 * within 12.5 % wherever it lies, where 2 restSD is wider than a small
 * profile's whole BOI. */

#define RP_BOI_L 20   /* rounds per step (the seed's l) */
#define RP_BOI_K 2.0  /* the seed's k */
#define RP_BOI_GROW 12
#define RP_BOI_MAX_STEPS 64
#define RP_BOI_LONG 32 /* a step's rounds: at most this many times l */
#define RP_BOI_REL 0.125 /* the step rule's end: high - low < this * high */
enum { RP_BOI_STEP = 0, RP_BOI_ROUND = 1 }; /* the growth's rule, above */
/* The rule's name ("step", "round"), and the rule of a name (-1: neither):
 * the words of --growth, REVPROF_MONITOR_PROBE and probe.csv's column. */
const char *rp_boi_rule_name(int rule);
int rp_boi_rule_of(const char *name);

typedef struct rp_boi_search {
  double rest_owd, rest_sd, k, err; /* err: error threshold */
  double first;                     /* the first high */
  double lo, hi, cur;               /* interval range and current */
  int steps, grown, last_queued, done;
  int rule;                         /* RP_BOI_STEP (rp_boi_init's) or
                                       RP_BOI_ROUND (the seed's) */
  double boi;                       /* the result once done */
  double growth, mean;              /* the last step's figures */
} rp_boi_search;

/* mean and sample standard deviation of n values (sd 0 for n < 2) */
void rp_mon_mean_sd(const double *v, int n, double *mean, double *sd);
/* median and robust spread (1.4826 x the median absolute deviation: the
 * standard deviation for normal values, unmoved by a few outliers) of n
 * values (0 and 0 for n < 1). The probe's resting phase on a machine that
 * time-shares its cores: one descheduled round would otherwise set restSD
 * (beyond the seed, which takes mean and standard deviation). */
void rp_mon_median_mad(const double *v, int n, double *median,
                       double *spread);
/* mean of successive differences v[i+1] - v[i] (0 for n < 2) */
double rp_boi_growth(const double *owd, int n);
/* least-squares slope of v over i = 0 .. n-1 (0 for n < 2): the growth
 * the search decides by */
double rp_boi_slope(const double *owd, int n);
void rp_boi_init(rp_boi_search *s, double rest_owd, double rest_sd,
                 double low, double k);
/* the decision on l OWDs measured at s->cur (no state change) */
int rp_boi_queued(const rp_boi_search *s, const double *owd, int n);
/* Rounds of the next step at s->cur for l rounds a step: l under the
 * seed's rule, at or above the first high, or before rp_boi_init; under
 * RP_BOI_STEP below it l * first / cur rounded up, at most RP_BOI_LONG * l
 * (and never below l). */
int rp_boi_rounds(const rp_boi_search *s, int l);
/* takes the step's OWDs, moves the range; returns 1 when done (s->boi),
 * else 0 with the next interval in s->cur */
int rp_boi_step(rp_boi_search *s, const double *owd, int n);

/* The tree's capacity (beyond the seed): n rounds offloaded faster than
 * the tree takes them queue, and each arrives at the front-end one
 * round's processing time after the one before: the least-squares slope
 * of their arrival times (seconds, any origin), at least 0. Rounds that
 * the application cannot offload that fast arrive as it offloads them,
 * so it is the slower of the two. The search's BOI approaches it from
 * above only as far as the resting spread lets it see the growth. */
double rp_mon_capacity(const double *arrival, int n);

/* Limiting Overhead in percent: oc / (boi + oc) * 100 (0 if both 0) */
double rp_mon_lo(double oc, double boi);

/* ------------------------------------------------- offloads thinned to BOI */

/* REVPROF_MONITOR_INTERVAL=auto: the application calls the offload every
 * d seconds (agreed across ranks), the BOI is boi: call c (1, 2, ...)
 * offloads when floor(c * d / boi) > floor((c - 1) * d / boi), keeping a
 * share d / boi of the calls spread evenly (every call when d >= boi or
 * boi <= 0). The same c, d, boi give the same answer on every rank. */
int rp_mon_auto_keep(long c, double d, double boi);

/* --------------------------------------------------------- model's BOI */
/* A round's service time at each tool rank: a leaf receives its c
 * application ranks' raw packets and adds them (E events each), an inner
 * node receives its children's reduced packets and merges them, and every
 * node but the root sends one reduced packet up. msg(bytes) is one
 * message's cost (the model's point-to-point time at that size), elem the
 * filter's cost per event and packet (seconds). The BOI is the slowest
 * node's time; when the N + K ranks share fewer cores than they are
 * (cores > 0), the slowest node shares the C cores with the N application
 * ranks, which run all round (computing, or waiting for their next
 * offload), and with the other tool ranks as long as they are busy:
 * at least node_max (N + sum of the tools' times / node_max) / C. */
typedef struct rp_mon_pred {
  double boi;      /* predicted BOI, s */
  double node_max; /* slowest tool rank's time per round, s */
  int node;        /* which tool */
  double total;    /* all ranks' work per round (the tools' and the
                      application ranks' sends), s */
  double oc;       /* an application rank's offload cost (one send), s */
} rp_mon_pred;

void rp_mon_predict(int apps, int tools, int fanout, int events, int filter,
                    double (*msg)(double bytes, void *ctx), void *ctx,
                    double elem, int cores, rp_mon_pred *out);
/* The same with root_extra seconds more per round at the root (the
 * front-end writing the round's rows). */
void rp_mon_predict_x(int apps, int tools, int fanout, int events,
                      int filter, double (*msg)(double bytes, void *ctx),
                      void *ctx, double elem, double root_extra, int cores,
                      rp_mon_pred *out);

/* The non-zero events of a probe's synthetic profile (an application's is
 * sparse: bspbench's has 16 of 706): the first RP_MON_PROBE_NONZERO. */
#define RP_MON_PROBE_NONZERO 64

#endif
