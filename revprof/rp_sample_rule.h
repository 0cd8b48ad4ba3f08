/* Sample mode's pure rules (after PHOTON, Vetter 2002, section 3): which
 * messages to sample (REVPROF_SAMPLE: random, counter or timer based), what
 * to do with them (REVPROF_ANALYSIS), message-size classes, and the latency
 * statistics kept per class. No MPI, no clocks, no I/O. */
#ifndef RP_SAMPLE_RULE_H
#define RP_SAMPLE_RULE_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

/* ------------------------------------------------------------ techniques */

typedef enum rp_sample_kind {
  RP_SAMPLE_OFF = 0, /* no message */
  RP_SAMPLE_ALL,     /* every message */
  RP_SAMPLE_RANDOM,  /* each message with probability p */
  RP_SAMPLE_COUNTER, /* every n-th message */
  RP_SAMPLE_TIMER    /* the first message after each period */
} rp_sample_kind;

#define RP_SAMPLE_COUNTER_MAX 1000000000L /* largest counter period n */

typedef struct rp_sample_spec {
  rp_sample_kind kind;
  double p;      /* random: probability in [0, 1] */
  long n;        /* counter: every n-th message, 1 <= n <= RP_SAMPLE_COUNTER_MAX */
  double period; /* timer: seconds > 0 */
  double jitter; /* counter: J messages (whole number, 0 <= J < n); timer:
                    J seconds (0 <= J < period); 0: none */
} rp_sample_spec;

/* "off", "all", "random", "counter" or "timer" ("?" for another value). */
const char *rp_sample_kind_name(rp_sample_kind k);

/* Reads a REVPROF_SAMPLE value: "off", "all", "random:P", "counter:N",
 * "counter:N:J", "timer:S" or "timer:S:J" (lowercase, no blanks; P, S and J
 * of the timer are decimal numbers, N and J of the counter whole numbers).
 * Returns 0 and fills *out (fields a technique does not use are 0), or
 * REVPROF_EINVAL, leaves *out untouched and writes to err (may be NULL) a
 * message naming the text and what is wrong with it. */
int rp_sample_parse(const char *text, rp_sample_spec *out, char *err,
                    size_t errlen);

/* 0 when *s is a technique rp_sample_parse could have returned; else
 * REVPROF_EINVAL with a message in err (may be NULL). */
int rp_sample_check(const rp_sample_spec *s, char *err, size_t errlen);

/* The canonical text of a spec, which rp_sample_parse reads back to the
 * same spec, e.g. "counter:8:2", "timer:0.01" (numbers in the fewest
 * digits that give them back exactly). Cut to len - 1 bytes. */
void rp_sample_format(const rp_sample_spec *s, char *buf, size_t len);

/* ------------------------------------------------------------- a sampler */

/* One rank's sampling state. By value; its only allocation is the
 * generator. Read the fields, never write them. */
typedef struct rp_sampler {
  rp_sample_spec spec; /* the technique in force */
  gsl_rng *rng;        /* mt19937, seeded by rp_sample_seed; NULL when the
                          allocation failed */
  long count;          /* counter, random: messages since the last
                          sample */
  long gap;            /* counter, random: the message (counting from 1
                          after the last sample) that is sampled next */
  double deadline;     /* timer: host time (s) from which the next message
                          is sampled; NAN until the first message */
} rp_sampler;

/* The generator's seed for rank (>= 0) from REVPROF_SEED: a 32-bit value
 * (mt19937 uses no more), reproducible, different for every rank of one
 * seed. */
unsigned long rp_sample_seed(unsigned long seed, int rank);

/* Sets s up for spec with a generator seeded by rp_sample_seed(seed,
 * rank). Returns 0; REVPROF_EINVAL when spec fails rp_sample_check;
 * REVPROF_ENOMEM when the generator cannot be allocated. On an error s
 * samples nothing (off), and rp_sampler_free is still to be called. */
int rp_sampler_init(rp_sampler *s, const rp_sample_spec *spec,
                    unsigned long seed, int rank);

/* Frees the generator; s then samples nothing. NULL, or a second call, is a
 * no-op. */
void rp_sampler_free(rp_sampler *s);

/* One message about to leave at host time now (seconds, monotonic,
 * finite): 1 to sample it, 0 not. The hot path: a compare and an increment
 * for off, all, counter and random (random draws once per sampled message,
 * not once per message).
 * - counter:N samples messages N, 2N, 3N, ... (counting from 1); with
 *   counter:N:J each gap is N + u, u a whole number uniform in [-J, J],
 *   the first gap (to the first sample) included: the rate stays 1/N.
 * - timer:S samples the first message at or after each deadline. The first
 *   message is never sampled: it sets the first deadline, its time + S + v;
 *   after a sample at time t the next is t + S + v (v uniform in [-J, J],
 *   drawn each time; 0 without jitter).
 * - random:P samples each message with probability P, independently: the
 *   gap to the next sample is drawn as a geometric variable of parameter P
 *   (at the start, at each rp_sampler_set and after each sample), which
 *   gives the same choices in distribution as a uniform draw per message
 *   compared with P. */
int rp_sampler_decide(rp_sampler *s, double now);

/* How many of the next messages s cannot sample, whatever their time: for
 * counter and random, those before the end of the current gap; for off,
 * LONG_MAX (none ever); for all and timer, 0 (each is to be decided). A
 * caller may pass over that many messages without rp_sampler_decide,
 * telling s with rp_sampler_pass: the choices are then the same as if each
 * had been decided. */
long rp_sampler_skip(const rp_sampler *s);

/* n messages (0 <= n <= rp_sampler_skip(s)) went by without
 * rp_sampler_decide: counted as messages of the current gap. */
void rp_sampler_pass(rp_sampler *s, long n);

/* Changes the technique while running; the generator (and so the stream
 * of draws) goes on. A counter starts counting again from the next message
 * and a timer from its next message, as after init. A spec that fails
 * rp_sample_check, or one that needs draws when s has no generator, turns
 * sampling off. */
void rp_sampler_set(rp_sampler *s, const rp_sample_spec *spec);

/* ----------------------------------------------------------- size classes */

#define RP_SIZE_CLASS_N 64 /* classes 0 .. 63 */

/* Message-size class on a log2 scale: 0 for 0 bytes (and for negative or
 * NaN sizes); k >= 1 for bytes in [2^(k-1), 2^k). The last class, 63, holds
 * every size from 2^62 bytes up. */
int rp_size_class(double bytes);

/* Smallest byte count of class k (0 for k = 0). */
double rp_size_class_lo(int k);

/* Largest byte count of class k, inclusive: 2^k - 1, e.g. 1 for class 1, 7
 * for class 3 (as a double, exact up to class 53); 0 for class 0, INFINITY
 * for the last. */
double rp_size_class_hi(int k);

/* ---------------------------------------------------- latency statistics */

#define RP_LHIST_N 34 /* latency histogram buckets */

/* Latency histogram bucket, a quarter of a decade wide: 0 for x < 1e-7 s
 * (and NaN); k = 1..32 for [1e-7 * 10^((k-1)/4), 1e-7 * 10^(k/4)) s; 33 for
 * x >= 10 s. The decade bounds (1e-7, 1e-6, ..., 10) are exact. */
int rp_lhist_bucket(double seconds);

/* Lower bound of bucket k, seconds (0 for k = 0): bucket k holds
 * [rp_lhist_lo(k), rp_lhist_hi(k)). */
double rp_lhist_lo(int k);

/* Upper bound of bucket k, seconds, excluded (INFINITY for k = 33). */
double rp_lhist_hi(int k);

/* Latencies of a set of sampled messages. */
typedef struct rp_lstat {
  double n;              /* messages */
  double mean;           /* mean latency, seconds */
  double m2;             /* sum of squared deviations from mean, s^2 */
  double min, max;       /* seconds; +INFINITY and -INFINITY when n = 0 */
  double bytes;          /* sum of message sizes, bytes */
  double hist[RP_LHIST_N]; /* messages per latency bucket (those added with
                              with_hist only) */
} rp_lstat;

void rp_lstat_init(rp_lstat *s);

/* Adds one message's latency (seconds) and size (bytes), by Welford's
 * update; counts it in the histogram when with_hist. */
void rp_lstat_add(rp_lstat *s, double latency, double bytes, int with_hist);

/* a += b (Chan, Golub and LeVeque's pairwise merge of mean and m2;
 * histograms added). */
void rp_lstat_merge(rp_lstat *a, const rp_lstat *b);

/* Sample standard deviation, seconds; 0 when n < 2. */
double rp_lstat_sd(const rp_lstat *s);

/* The median latency from the histogram, seconds: linear interpolation
 * inside the bucket that holds the middle message (a bucket's bounds taken
 * no wider than [min, max]), clamped to [min, max]. NAN when n == 0 or the
 * histogram is empty. Within one bucket width of the true median. */
double rp_lstat_median(const rp_lstat *s);

/* ------------------------------------------------------------ clock drift */

/* A latency is the receiver's clock minus the sender's, both made global
 * with the offsets measured at MPI_Init; a clock that drifts from rank 0's
 * (offset o(t) = o0 + a t, a in s per s, measured again at MPI_Finalize)
 * adds a u to a sample taken u seconds into the run. Over a class (one
 * sender, one receiver) a sample's error is c u + k, c = a_receiver -
 * a_sender, k a constant, so what its statistics need to be corrected at
 * the end, when c and k are known, is kept beside them. */

/* The smallest (lower) or largest (upper) of x + c u over the samples
 * (u, x) seen, for any c, is taken at a vertex of their lower or upper
 * convex hull: the hull is kept as samples come (u not decreasing: a
 * rank's receive times), at most RP_LHULL_N vertices (beyond, the inner
 * vertex whose neighbours are the closest in u goes: then the extreme is
 * within what that vertex added). */
#define RP_LHULL_N 16
typedef struct rp_lhull {
  int n;
  double u[RP_LHULL_N], x[RP_LHULL_N];
} rp_lhull;

/* Adds (u, x) to the lower hull (upper = 0) or the upper one (1). */
void rp_lhull_add(rp_lhull *h, double u, double x, int upper);

/* min (upper = 0) or max (1) of x + c u over the hull's vertices; NAN when
 * empty. */
double rp_lhull_extreme(const rp_lhull *h, double c, int upper);

typedef struct rp_ldrift {
  double umean;     /* mean of u (s since the receiver's offset at
                       MPI_Init) */
  double um2;       /* sum of squared deviations of u, s^2 */
  double cov;       /* sum of (latency - mean)(u - umean), s^2 */
  rp_lhull lo, hi;  /* the samples' lower and upper hulls */
  double hu[RP_LHIST_N]; /* sum of u and of the latencies of the samples */
  double hx[RP_LHIST_N]; /* in each histogram bucket (with_hist ones) */
} rp_ldrift;

void rp_ldrift_init(rp_ldrift *d);

/* Adds a sample (latency, u) to d; s is its class's statistics before
 * rp_lstat_add adds the same sample (Welford's co-moment update), with the
 * same with_hist. */
void rp_ldrift_add(rp_ldrift *d, const rp_lstat *s, double latency,
                   double u, int with_hist);

/* A clock's drift rate against rank 0's, s per s: its offset's change
 * (off1 - off0) over span seconds; 0 when the change is within the two
 * measurements' uncertainty (half of each one's round trip, rtt0 and rtt1)
 * or span is not positive. */
double rp_drift_rate(double off0, double off1, double rtt0, double rtt1,
                     double span);

/* Corrects s (with d, its drift record) for a receiver-minus-sender drift
 * rate c and a constant k: every sample's latency becomes latency + c u +
 * k (k: the sender's drift over the time between the two ranks' offset
 * measurements, u counting from the receiver's). Mean, standard deviation,
 * min and max exactly (min and max from the hulls); the histogram bucket
 * by bucket: a bucket's samples move together to the bucket of their
 * corrected mean (their mean latency plus c times their mean u plus k,
 * exact), so a sample ends in another bucket than its corrected latency's
 * only where the samples of one bucket spread over more than one once
 * corrected. Returns the correction of the mean, c * umean + k. */
double rp_lstat_undrift(rp_lstat *s, const rp_ldrift *d, double c, double k);

/* ------------------------------------------------------------- analyses */

/* What sample mode does with a sampled message (REVPROF_ANALYSIS). */
enum {
  RP_ANALYSIS_STAT = 1,  /* count, mean, sd, min, max */
  RP_ANALYSIS_FREQ = 2,  /* latency histogram */
  RP_ANALYSIS_WRITE = 4  /* one record per message to a file */
};

/* Reads a REVPROF_ANALYSIS value: a comma-separated list of "stat", "freq"
 * and "write" (each at most once), or "off" alone (mask 0). Returns 0 and
 * sets *mask, or REVPROF_EINVAL, leaves *mask untouched and writes to err
 * (may be NULL) a message naming the text and what is wrong. */
int rp_analysis_parse(const char *text, unsigned *mask, char *err,
                      size_t errlen);

/* The canonical text of a mask: e.g. "stat,freq", "off" for 0. */
void rp_analysis_format(unsigned mask, char *buf, size_t len);

#endif
