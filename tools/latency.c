/* The latency.csv of librevprof's sample mode: parsing its rows, merging
 * them by message-size class, and the median of a latency histogram. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h" /* rp_errf, rp_fmt_double */
#include "revprof_model.h"
#include "rp_latency.h"
#include "rp_util.h"

/* ------------------------------------------------------------- classes */

void rp_latency_class_bytes(int k, double *lo, double *hi) {
  *lo = k == 0 ? 0 : ldexp(1, k - 1);
  *hi = k == 0 ? 0 : ldexp(1, k) - 1;
}

void rp_latency_bucket_edges(int k, double *lo, double *hi) {
  *lo = k == 0 ? 0 : 1e-7 * pow(10, (k - 1) / 4.0);
  *hi = k >= RP_LATENCY_BUCKETS - 1 ? HUGE_VAL : 1e-7 * pow(10, k / 4.0);
}

int rp_latency_hist_median(const double hist[RP_LATENCY_BUCKETS], double min,
                           double max, double *median) {
  double n = 0, below = 0, lo, hi;
  int k = 0, known = min <= max; /* min and max measured */
  for (int i = 0; i < RP_LATENCY_BUCKETS; i++)
    n += hist[i];
  if (!(n > 0))
    return REVPROF_EINVAL;
  while (below + hist[k] < 0.5 * n) /* stops at a bucket that is not empty */
    below += hist[k++];
  rp_latency_bucket_edges(k, &lo, &hi);
  if (k == 0 && known)
    lo = fmin(min, hi);
  if (k == RP_LATENCY_BUCKETS - 1)
    hi = known ? fmax(max, lo) : lo;
  double x = lo + (0.5 * n - below) / hist[k] * (hi - lo);
  *median = known ? fmin(fmax(x, min), max) : x;
  return 0;
}

void rp_latency_class_add(rp_latency_class cls[RP_LATENCY_CLASSES],
                          const rp_latency_row *row) {
  rp_latency_class *c = &cls[row->size_class];
  c->rows++;
  if (!(row->count > 0)) /* nothing sampled: its min and max mean nothing */
    return;
  c->min = c->count > 0 ? fmin(c->min, row->min) : row->min;
  c->max = c->count > 0 ? fmax(c->max, row->max) : row->max;
  c->count += row->count;
  c->bytes_sum += row->bytes_mean * row->count;
  c->mean_sum += row->mean * row->count;
  for (int i = 0; i < RP_LATENCY_BUCKETS; i++)
    c->hist[i] += row->hist[i];
}

double rp_latency_class_bytes_mean(const rp_latency_class *c, int k) {
  double lo, hi;
  rp_latency_class_bytes(k, &lo, &hi);
  return c->count > 0 ? c->bytes_sum / c->count : lo;
}

/* ------------------------------------------------------------- parsing */

static const char *const named[] = {
    "src",      "dst",     "send_site", "recv_site", "size_class",
    "bytes_lo", "bytes_hi", "bytes_mean", "count",    "mean_s",
    "min_s",    "max_s",   "sd_s"};

enum { SRC, DST, SEND_SITE, RECV_SITE, SIZE_CLASS, BYTES_LO, BYTES_HI,
       BYTES_MEAN, COUNT, MEAN_S, MIN_S, MAX_S, SD_S, B00 };

/* Name of column i (0-based) into buf: "mean_s", "b07". */
static const char *column(int i, char *buf, size_t len) {
  if (i < B00)
    snprintf(buf, len, "%s", named[i]);
  else
    snprintf(buf, len, "b%02d", i - B00);
  return buf;
}

/* Splits line at commas in place, keeping the first max fields in field[];
 * a field in double quotes may hold commas. Returns the number of fields,
 * or -1 with the (1-based) number of a field whose quotes do not close or
 * are followed by more text in *bad. */
static int split(char *line, char **field, int max, int *bad) {
  int n = 0;
  for (char *p = line;; p++) {
    char *start = p, *end;
    if (*p == '"') {
      start = p + 1;
      end = strchr(start, '"');
      if (end == NULL || (end[1] != ',' && end[1] != '\0')) {
        *bad = n + 1;
        return -1;
      }
      p = end + 1;
    } else
      end = p = p + strcspn(p, ",");
    char sep = *p;
    *end = '\0';
    if (n < max)
      field[n] = start;
    n++;
    if (sep == '\0')
      return n;
  }
}


static int whole_column(int i) {
  return i == SRC || i == DST || i == SIZE_CLASS || i == BYTES_LO ||
         i == BYTES_HI || i == COUNT || i >= B00;
}

/* The checks across columns of a parsed row: 0 or REVPROF_EFIELD. */
static int check_row(const rp_latency_row *r, char *err, size_t errlen) {
  double lo, hi, inhist = 0, slack = 1e-3; /* bytes_mean may be rounded */
  char a[32], b[32];
  rp_latency_class_bytes(r->size_class, &lo, &hi);
  if (r->bytes_lo != lo || r->bytes_hi != hi) {
    rp_fmt_double(a, sizeof a, r->bytes_lo);
    rp_fmt_double(b, sizeof b, r->bytes_hi);
    rp_errf(err, errlen, "size_class %d is bytes %.0f..%.0f, not %s..%s",
            r->size_class, lo, hi, a, b);
    return REVPROF_EFIELD;
  }
  for (int i = 0; i < RP_LATENCY_BUCKETS; i++)
    inhist += r->hist[i];
  if (inhist != 0 && inhist != r->count) { /* 0: sampled without freq */
    rp_fmt_double(a, sizeof a, inhist);
    rp_fmt_double(b, sizeof b, r->count);
    rp_errf(err, errlen, "the histogram b00..b%02d holds %s messages, "
            "count says %s", RP_LATENCY_BUCKETS - 1, a, b);
    return REVPROF_EFIELD;
  }
  if (r->count > 0 && r->min > r->max) {
    rp_fmt_double(a, sizeof a, r->min);
    rp_fmt_double(b, sizeof b, r->max);
    rp_errf(err, errlen, "min_s %s is above max_s %s", a, b);
    return REVPROF_EFIELD;
  }
  if (r->count > 0 &&
      (r->bytes_mean < lo * (1 - slack) || r->bytes_mean > hi * (1 + slack))) {
    rp_fmt_double(a, sizeof a, r->bytes_mean);
    rp_errf(err, errlen, "bytes_mean %s is outside size_class %d "
            "(%.0f..%.0f bytes)", a, r->size_class, lo, hi);
    return REVPROF_EFIELD;
  }
  return 0;
}

int rp_latency_parse_row(char *line, rp_latency_row *row, char *err,
                         size_t errlen) {
  char *f[RP_LATENCY_FIELDS], name[32];
  double v[RP_LATENCY_FIELDS] = {0};
  int bad = 0, n = split(line, f, RP_LATENCY_FIELDS, &bad);
  if (n < 0) {
    if (bad > RP_LATENCY_FIELDS) /* no such column */
      snprintf(name, sizeof name, "field %d", bad);
    rp_errf(err, errlen, "%s: a quote that does not close, or text after "
            "the closing quote",
            bad <= RP_LATENCY_FIELDS ? column(bad - 1, name, sizeof name)
                                     : name);
    return REVPROF_EFORMAT;
  }
  if (n != RP_LATENCY_FIELDS) {
    rp_errf(err, errlen, "expected %d fields, found %d", RP_LATENCY_FIELDS,
            n);
    return REVPROF_EFORMAT;
  }
  for (int i = 0; i < RP_LATENCY_FIELDS; i++) {
    if (i == SEND_SITE || i == RECV_SITE) /* any text */
      continue;
    if (!rp_parse_double(f[i], &v[i]) || v[i] < 0 ||
        (whole_column(i) && v[i] != floor(v[i]))) {
      rp_errf(err, errlen, "%s: '%s' is not a %s >= 0",
              column(i, name, sizeof name), f[i],
              whole_column(i) ? "whole number" : "number");
      return REVPROF_EFIELD;
    }
  }
  if (v[SIZE_CLASS] >= RP_LATENCY_CLASSES) {
    rp_errf(err, errlen, "size_class: %s is above %d", f[SIZE_CLASS],
            RP_LATENCY_CLASSES - 1);
    return REVPROF_EFIELD;
  }
  row->src = v[SRC];
  row->dst = v[DST];
  row->size_class = (int)v[SIZE_CLASS];
  row->bytes_lo = v[BYTES_LO];
  row->bytes_hi = v[BYTES_HI];
  row->bytes_mean = v[BYTES_MEAN];
  row->count = v[COUNT];
  row->mean = v[MEAN_S];
  row->min = v[MIN_S];
  row->max = v[MAX_S];
  row->sd = v[SD_S];
  memcpy(row->hist, v + B00, sizeof row->hist);
  return check_row(row, err, errlen);
}

/* 0 when line is the header line, else REVPROF_EFORMAT with a message. */
static int check_header(char *line, char *err, size_t errlen) {
  char *f[RP_LATENCY_FIELDS], want[16];
  int bad, n = split(line, f, RP_LATENCY_FIELDS, &bad);
  if (n < 0) {
    rp_errf(err, errlen, "not the header of a sample-mode latency.csv: a "
            "quote in column %d does not close", bad);
    return REVPROF_EFORMAT;
  }
  for (int i = 0; i < RP_LATENCY_FIELDS; i++) {
    column(i, want, sizeof want);
    if (i < n && strcmp(f[i], want) == 0)
      continue;
    rp_errf(err, errlen, "not the header of a sample-mode latency.csv: "
            "column %d is '%s', expected '%s'", i + 1,
            i < n ? f[i] : "missing", want);
    return REVPROF_EFORMAT;
  }
  if (n != RP_LATENCY_FIELDS) {
    rp_errf(err, errlen, "header: expected %d fields, found %d",
            RP_LATENCY_FIELDS, n);
    return REVPROF_EFORMAT;
  }
  return 0;
}

int rp_latency_read(FILE *f, const char *name,
                    rp_latency_class cls[RP_LATENCY_CLASSES], long *nrows,
                    char *err, size_t errlen) {
  char *line = NULL, msg[512];
  size_t cap = 0;
  long lineno = 0;
  int rc = 0, header = 0;
  *nrows = 0;
  while (rc == 0) {
    errno = 0;
    ssize_t len = getline(&line, &cap, f);
    if (len < 0) {
      if (errno == ENOMEM || !feof(f)) { /* EISDIR, EIO */
        int e = errno ? errno : EIO;
        rp_errf(err, errlen, "%s: cannot read: %s", name, strerror(e));
        rc = e == ENOMEM ? REVPROF_ENOMEM : REVPROF_EIO;
      }
      break;
    }
    lineno++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    if (line[0] == '#' || line[0] == '\0')
      continue;
    rp_latency_row row;
    if (!header) {
      rc = check_header(line, msg, sizeof msg);
      header = 1;
    } else if ((rc = rp_latency_parse_row(line, &row, msg, sizeof msg)) ==
               0) {
      rp_latency_class_add(cls, &row);
      ++*nrows;
    }
    if (rc != 0)
      rp_errf(err, errlen, "%s:%ld: %s", name, lineno, msg);
  }
  free(line);
  if (rc == 0 && !header) {
    rp_errf(err, errlen, "%s: empty (no header line 'src,dst,send_site,...')",
            name);
    rc = REVPROF_EFORMAT;
  } else if (rc == 0 && *nrows == 0) {
    rp_errf(err, errlen, "%s: no rows after the header (no message sampled)",
            name);
    rc = REVPROF_EFORMAT;
  }
  return rc;
}
