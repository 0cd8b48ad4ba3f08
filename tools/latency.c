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

int rp_latency_class_of(double b) {
  int e = 0;
  if (!(b >= 1.0))
    return 0;
  if (b >= ldexp(1.0, 62))
    return 63;
  frexp(b, &e);
  return e;
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

/* The two files share their columns from size_class on; before it,
 * latency.csv names a message class, calls.csv a call class. */
typedef struct layout {
  const char *what;          /* for messages: "sample-mode latency.csv" */
  const char *first;         /* its header's start, for messages */
  int head;                  /* columns before size_class */
  const char *const *names;  /* their names */
  unsigned text;             /* bit i: head column i is any text */
} layout;

static const char *const latency_head[] = {"src", "dst", "send_site",
                                           "recv_site"};
static const char *const calls_head[] = {"call", "costed_as", "rank"};
static const layout LATENCY = {"sample-mode latency.csv",
                               "src,dst,send_site,...", 4, latency_head,
                               1u << 2 | 1u << 3};
static const layout CALLS = {"sample-mode calls.csv",
                             "call,costed_as,rank,...", 3, calls_head,
                             1u << 0 | 1u << 1};

static const char *const tail_named[] = {
    "size_class", "bytes_lo", "bytes_hi", "bytes_mean", "count",
    "mean_s",     "min_s",    "max_s",    "sd_s"};

/* columns from size_class on, counted from it */
enum { SIZE_CLASS, BYTES_LO, BYTES_HI, BYTES_MEAN, COUNT, MEAN_S, MIN_S,
       MAX_S, SD_S, B00, TAIL = B00 + RP_LATENCY_BUCKETS };

static int fields(const layout *L) { return L->head + TAIL; }

/* Name of column i (0-based) into buf: "mean_s", "b07". */
static const char *column(const layout *L, int i, char *buf, size_t len) {
  if (i < L->head)
    snprintf(buf, len, "%s", L->names[i]);
  else if (i - L->head < B00)
    snprintf(buf, len, "%s", tail_named[i - L->head]);
  else
    snprintf(buf, len, "b%02d", i - L->head - B00);
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

/* column i holds a whole number (i counted from size_class; head columns
   that are not text are ranks) */
static int whole_column(const layout *L, int i) {
  int t = i - L->head;
  return t < 0 || t == SIZE_CLASS || t == BYTES_LO || t == BYTES_HI ||
         t == COUNT || t >= B00;
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

static int parse_row(const layout *L, char *line, rp_latency_row *row,
                     char *err, size_t errlen) {
  enum { MAXF = 4 + TAIL };
  char *f[MAXF], name[32];
  double v[MAXF] = {0};
  int nf = fields(L), bad = 0, n = split(line, f, nf, &bad);
  if (n < 0) {
    if (bad > nf) /* no such column */
      snprintf(name, sizeof name, "field %d", bad);
    rp_errf(err, errlen, "%s: a quote that does not close, or text after "
            "the closing quote",
            bad <= nf ? column(L, bad - 1, name, sizeof name) : name);
    return REVPROF_EFORMAT;
  }
  if (n != nf) {
    rp_errf(err, errlen, "expected %d fields, found %d", nf, n);
    return REVPROF_EFORMAT;
  }
  memset(row, 0, sizeof *row);
  for (int i = 0; i < nf; i++) {
    if (i < L->head && (L->text >> i & 1u)) /* any text */
      continue;
    if (!rp_parse_double(f[i], &v[i]) || v[i] < 0 ||
        (whole_column(L, i) && v[i] != floor(v[i]))) {
      rp_errf(err, errlen, "%s: '%s' is not a %s >= 0",
              column(L, i, name, sizeof name), f[i],
              whole_column(L, i) ? "whole number" : "number");
      return REVPROF_EFIELD;
    }
  }
  const double *t = v + L->head;
  if (t[SIZE_CLASS] >= RP_LATENCY_CLASSES) {
    rp_errf(err, errlen, "size_class: %s is above %d", f[L->head + SIZE_CLASS],
            RP_LATENCY_CLASSES - 1);
    return REVPROF_EFIELD;
  }
  if (L == &LATENCY) {
    row->src = v[0];
    row->dst = v[1];
  } else {
    if (*f[0] == '\0' || *f[1] == '\0' || strlen(f[0]) >= sizeof row->call ||
        strlen(f[1]) >= sizeof row->costed_as) {
      rp_errf(err, errlen, "%s: a function name (of 1 to %zu characters) is "
              "due", *f[0] == '\0' || strlen(f[0]) >= sizeof row->call
                         ? "call" : "costed_as", sizeof row->call - 1);
      return REVPROF_EFIELD;
    }
    snprintf(row->call, sizeof row->call, "%s", f[0]);
    snprintf(row->costed_as, sizeof row->costed_as, "%s", f[1]);
    row->src = v[2];
    row->dst = -1;
  }
  row->size_class = (int)t[SIZE_CLASS];
  row->bytes_lo = t[BYTES_LO];
  row->bytes_hi = t[BYTES_HI];
  row->bytes_mean = t[BYTES_MEAN];
  row->count = t[COUNT];
  row->mean = t[MEAN_S];
  row->min = t[MIN_S];
  row->max = t[MAX_S];
  row->sd = t[SD_S];
  memcpy(row->hist, t + B00, sizeof row->hist);
  return check_row(row, err, errlen);
}

int rp_latency_parse_row(char *line, rp_latency_row *row, char *err,
                         size_t errlen) {
  return parse_row(&LATENCY, line, row, err, errlen);
}

int rp_calls_parse_row(char *line, rp_latency_row *row, char *err,
                       size_t errlen) {
  return parse_row(&CALLS, line, row, err, errlen);
}

/* 0 when line is the header line, else REVPROF_EFORMAT with a message. */
static int check_header(const layout *L, char *line, char *err,
                        size_t errlen) {
  char *f[4 + TAIL], want[16];
  int nf = fields(L), bad, n = split(line, f, nf, &bad);
  if (n < 0) {
    rp_errf(err, errlen, "not the header of a %s: a quote in column %d "
            "does not close", L->what, bad);
    return REVPROF_EFORMAT;
  }
  for (int i = 0; i < nf; i++) {
    column(L, i, want, sizeof want);
    if (i < n && strcmp(f[i], want) == 0)
      continue;
    rp_errf(err, errlen, "not the header of a %s: column %d is '%s', "
            "expected '%s'", L->what, i + 1, i < n ? f[i] : "missing", want);
    return REVPROF_EFORMAT;
  }
  if (n != nf) {
    rp_errf(err, errlen, "header: expected %d fields, found %d", nf, n);
    return REVPROF_EFORMAT;
  }
  return 0;
}

/* Reads f in layout L, handing each row to add(ctx, row): 0, or an error
 * code with its message (add's own ones too) in err. */
static int read_rows(const layout *L, FILE *f, const char *name,
                     int (*add)(void *ctx, const rp_latency_row *row,
                                char *err, size_t errlen),
                     void *ctx, long *nrows, char *err, size_t errlen) {
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
      rc = check_header(L, line, msg, sizeof msg);
      header = 1;
    } else if ((rc = parse_row(L, line, &row, msg, sizeof msg)) == 0 &&
               (rc = add(ctx, &row, msg, sizeof msg)) == 0)
      ++*nrows;
    if (rc != 0)
      rp_errf(err, errlen, "%s:%ld: %s", name, lineno, msg);
  }
  free(line);
  if (rc == 0 && !header) {
    rp_errf(err, errlen, "%s: empty (no header line '%s')", name, L->first);
    rc = REVPROF_EFORMAT;
  } else if (rc == 0 && *nrows == 0) {
    rp_errf(err, errlen, "%s: no rows after the header (no message sampled)",
            name);
    rc = REVPROF_EFORMAT;
  }
  return rc;
}

static int add_latency(void *ctx, const rp_latency_row *row, char *err,
                       size_t errlen) {
  (void)err;
  (void)errlen;
  rp_latency_class_add(ctx, row);
  return 0;
}

int rp_latency_read(FILE *f, const char *name,
                    rp_latency_class cls[RP_LATENCY_CLASSES], long *nrows,
                    char *err, size_t errlen) {
  return read_rows(&LATENCY, f, name, add_latency, cls, nrows, err, errlen);
}

static int add_call(void *ctx, const rp_latency_row *row, char *err,
                    size_t errlen) {
  rp_call_set *set = ctx;
  int i = 0;
  while (i < set->n && strcmp(set->c[i].call, row->call) != 0)
    i++;
  if (i < set->n && strcmp(set->c[i].costed_as, row->costed_as) != 0) {
    rp_errf(err, errlen, "costed_as: %s, where an earlier row of %s said %s",
            row->costed_as, row->call, set->c[i].costed_as);
    return REVPROF_EFIELD;
  }
  if (i == set->n) {
    if (set->n == RP_CALLS_MAX) {
      rp_errf(err, errlen, "call: more than %d different calls",
              RP_CALLS_MAX);
      return REVPROF_EFIELD;
    }
    memset(&set->c[i], 0, sizeof set->c[i]);
    snprintf(set->c[i].call, sizeof set->c[i].call, "%s", row->call);
    snprintf(set->c[i].costed_as, sizeof set->c[i].costed_as, "%s",
             row->costed_as);
    set->n++;
  }
  rp_latency_class_add(set->c[i].cls, row);
  return 0;
}

int rp_calls_read(FILE *f, const char *name, rp_call_set *set, long *nrows,
                  char *err, size_t errlen) {
  set->n = 0;
  return read_rows(&CALLS, f, name, add_call, set, nrows, err, errlen);
}
