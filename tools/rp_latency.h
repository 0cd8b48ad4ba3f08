/* Reading the latency.csv of librevprof's sample mode (one-way message
 * latencies per message class, over all ranks) and merging its rows by
 * message-size class, with the median of a latency histogram. No MPI, no
 * model: 'revprof validate' puts a model beside what this reads. */
#ifndef RP_LATENCY_H
#define RP_LATENCY_H

#include <stddef.h>
#include <stdio.h>

/* Size classes: 0 for 0 bytes, k >= 1 for [2^(k-1), 2^k) bytes. */
#define RP_LATENCY_CLASSES 65
/* Histogram buckets: 0 below 1e-7 s, k = 1..32 [1e-7 * 10^((k-1)/4),
 * 1e-7 * 10^(k/4)) s, 33 from 10 s up. */
#define RP_LATENCY_BUCKETS 34
/* Columns of a row: 13 named ones, then b00..b33. */
#define RP_LATENCY_FIELDS (13 + RP_LATENCY_BUCKETS)

/* One row of latency.csv: the messages of one class (src, dst, send site,
 * receive site, size class). Counts are whole numbers held as doubles. */
typedef struct rp_latency_row {
  double src, dst;            /* ranks in MPI_COMM_WORLD (calls.csv: its
                                 rank, dst -1) */
  char call[48], costed_as[48]; /* calls.csv: the call, its model row */
  int size_class;             /* 0..RP_LATENCY_CLASSES - 1 */
  double bytes_lo, bytes_hi;  /* bytes, the class's range, inclusive */
  double bytes_mean;          /* bytes, mean size of the sampled messages */
  double count;               /* messages sampled */
  double mean, min, max, sd;  /* seconds, over the sampled messages */
  double hist[RP_LATENCY_BUCKETS]; /* messages per latency bucket */
} rp_latency_row;

/* The rows of one size class merged: counts and histograms added. */
typedef struct rp_latency_class {
  int rows;                   /* rows merged; 0: the class is absent */
  double count;               /* messages sampled, all rows */
  double bytes_sum;           /* bytes, sum of bytes_mean * count */
  double mean_sum;            /* seconds, sum of mean * count */
  double min, max;            /* seconds, over the rows with messages */
  double hist[RP_LATENCY_BUCKETS]; /* messages per latency bucket */
} rp_latency_class;

/* The range of size class k in bytes, inclusive: 0..0, then
 * 2^(k-1)..2^k - 1. */
void rp_latency_class_bytes(int k, double *lo, double *hi);

/* The size class of a message of b bytes, the inverse of
 * rp_latency_class_bytes: 0 below 1 byte, then k with 2^(k-1) <= b < 2^k
 * (librevprof's rp_size_class: its last class, 63, takes all above). */
int rp_latency_class_of(double b);

/* Edges of histogram bucket k in seconds: [*lo, *hi); 0 for the lower edge
 * of bucket 0, HUGE_VAL for the upper edge of bucket 33. */
void rp_latency_bucket_edges(int k, double *lo, double *hi);

/* Median of a latency histogram, in seconds: linear inside the bucket that
 * holds the middle message, the open buckets 0 and 33 closed by min and
 * max, the result clamped to [min, max] (seconds, the smallest and largest
 * latency measured; ignored when min > max). Returns 0, or REVPROF_EINVAL
 * when the histogram holds no message. */
int rp_latency_hist_median(const double hist[RP_LATENCY_BUCKETS], double min,
                           double max, double *median);

/* Parses one data line of latency.csv (no newline), splitting it in place:
 * quoted fields ("pingpong.c:42 main") may hold commas. Returns 0, or
 * REVPROF_EFORMAT (wrong number of fields, bad quoting) or REVPROF_EFIELD
 * (a value that is not a number, not a whole number where one is due, out
 * of range, or a byte range that is not its class's), with a message
 * naming the column in err (without file or line: the caller adds them). */
int rp_latency_parse_row(char *line, rp_latency_row *row, char *err,
                         size_t errlen);

/* The same for a data line of calls.csv (the sender's time in the send
 * calls that stamped a sampled message): call, costed_as, rank, then the
 * columns of latency.csv from size_class on. */
int rp_calls_parse_row(char *line, rp_latency_row *row, char *err,
                       size_t errlen);

/* Adds a row to its class (cls[row->size_class]). */
void rp_latency_class_add(rp_latency_class cls[RP_LATENCY_CLASSES],
                          const rp_latency_row *row);

/* Mean message size of a class in bytes, count-weighted over its rows;
 * the class's lower bound when it holds no message. */
double rp_latency_class_bytes_mean(const rp_latency_class *c, int k);

/* Reads latency.csv from f ('#' lines are comments, blank lines skipped,
 * then the header line, then rows) and merges its rows into cls (zeroed by
 * the caller). name (the file) and the line number start every message
 * ("DIR/latency.csv:7: expected 47 fields, found 12"). *nrows gets the
 * rows read. Returns 0, or REVPROF_EFORMAT (no header, a bad header, no
 * rows, a malformed row), REVPROF_EFIELD (a bad value), REVPROF_EIO (read
 * error) or REVPROF_ENOMEM. */
int rp_latency_read(FILE *f, const char *name,
                    rp_latency_class cls[RP_LATENCY_CLASSES], long *nrows,
                    char *err, size_t errlen);

/* The rows of calls.csv merged by call and size class. */
#define RP_CALLS_MAX 32
typedef struct rp_call_costs {
  char call[48];      /* MPI_Isend */
  char costed_as[48]; /* the model row predict mode charges it by */
  rp_latency_class cls[RP_LATENCY_CLASSES];
} rp_call_costs;
typedef struct rp_call_set {
  int n;
  rp_call_costs c[RP_CALLS_MAX];
} rp_call_set;

/* Reads calls.csv as rp_latency_read reads latency.csv, merging its rows
 * into set (by call, then size class); a call whose rows name two model
 * rows, or more than RP_CALLS_MAX calls, is REVPROF_EFIELD. */
int rp_calls_read(FILE *f, const char *name, rp_call_set *set, long *nrows,
                  char *err, size_t errlen);

#endif
