/* Sample mode's rules: settings, samplers, size classes and latency
 * statistics (rp_sample_rule.h). */
#include "rp_sample_rule.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "revprof_model.h"

/* ------------------------------------------------------------- settings */

#define SAMPLE_FORMS "off, all, random:P, counter:N[:J] or timer:S[:J]"

/* The techniques as written: name, the form of the setting, and how many
 * ':'-separated fields it takes, the name included. */
static const struct {
  const char *name, *form;
  rp_sample_kind kind;
  int lo, hi;
} techniques[] = {
    {"off", "off", RP_SAMPLE_OFF, 1, 1},
    {"all", "all", RP_SAMPLE_ALL, 1, 1},
    {"random", "random:P", RP_SAMPLE_RANDOM, 2, 2},
    {"counter", "counter:N or counter:N:J", RP_SAMPLE_COUNTER, 2, 3},
    {"timer", "timer:S or timer:S:J", RP_SAMPLE_TIMER, 2, 3},
};
#define N_TECHNIQUES (sizeof techniques / sizeof techniques[0])

const char *rp_sample_kind_name(rp_sample_kind k) {
  for (size_t t = 0; t < N_TECHNIQUES; t++)
    if (techniques[t].kind == k)
      return techniques[t].name;
  return "?";
}

/* REVPROF_EINVAL with "NAME="TEXT": what" in err (err may be NULL). */
static int bad(char *err, size_t errlen, const char *name, const char *text,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int bad(char *err, size_t errlen, const char *name, const char *text,
               const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    int k = snprintf(err, errlen, "%s=\"%s\": ", name, text);
    if (k >= 0 && (size_t)k < errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return REVPROF_EINVAL;
}

/* A field of a setting: len bytes from p, no NUL of its own. */
typedef struct field {
  const char *p;
  size_t len;
} field;

static int field_is(field f, const char *word) {
  return strlen(word) == f.len && strncmp(f.p, word, f.len) == 0;
}

/* Splits text at each sep into at most max fields; returns their number,
 * max + 1 when there are more. */
static int split(const char *text, char sep, field *f, int max) {
  int n = 0;
  for (const char *p = text;; p++) {
    const char *q = strchr(p, sep);
    size_t len = q != NULL ? (size_t)(q - p) : strlen(p);
    if (n == max)
      return max + 1;
    f[n].p = p;
    f[n++].len = len;
    if (q == NULL)
      return n;
    p = q;
  }
}

/* A finite decimal number filling the whole field (no blanks). */
static int get_real(field f, double *out) {
  char buf[64];
  if (f.len == 0 || f.len >= sizeof buf)
    return -1;
  memcpy(buf, f.p, f.len);
  buf[f.len] = '\0';
  if (strchr("0123456789.+-", buf[0]) == NULL)
    return -1; /* strtod would skip blanks, read "inf", "nan" */
  char *end;
  errno = 0;
  double x = strtod(buf, &end);
  if (*end != '\0' || errno != 0 || !isfinite(x))
    return -1;
  *out = x;
  return 0;
}

/* A whole number filling the whole field, as a double (range checked by
 * the caller). */
static int get_whole(field f, double *out) {
  double x;
  if (get_real(f, &x) != 0 || x != floor(x))
    return -1;
  *out = x;
  return 0;
}

/* The rules on the numbers of a spec, with text (the setting as written)
 * in the message. */
static int check_spec(const rp_sample_spec *s, const char *text, char *err,
                      size_t errlen) {
  const char *v = "REVPROF_SAMPLE";
  switch (s->kind) {
  case RP_SAMPLE_OFF:
  case RP_SAMPLE_ALL:
    return 0;
  case RP_SAMPLE_RANDOM:
    if (!(s->p >= 0.0 && s->p <= 1.0))
      return bad(err, errlen, v, text,
                 "the probability must be between 0 and 1");
    return 0;
  case RP_SAMPLE_COUNTER:
    if (s->n < 1 || s->n > RP_SAMPLE_COUNTER_MAX)
      return bad(err, errlen, v, text,
                 "the counter period N must be a whole number from 1 to %ld",
                 RP_SAMPLE_COUNTER_MAX);
    if (!(s->jitter >= 0.0 && s->jitter < (double)s->n) ||
        s->jitter != floor(s->jitter))
      return bad(err, errlen, v, text,
                 "the jitter J must be a whole number of messages with "
                 "0 <= J < N (%ld)",
                 s->n);
    return 0;
  case RP_SAMPLE_TIMER:
    if (!(s->period > 0.0 && isfinite(s->period)))
      return bad(err, errlen, v, text,
                 "the period S must be a positive number of seconds");
    if (!(s->jitter >= 0.0 && s->jitter < s->period))
      return bad(err, errlen, v, text,
                 "the jitter J must be a number of seconds with "
                 "0 <= J < S (%g)",
                 s->period);
    return 0;
  }
  return bad(err, errlen, v, text, "unknown technique %d", (int)s->kind);
}

int rp_sample_parse(const char *text, rp_sample_spec *out, char *err,
                    size_t errlen) {
  const char *v = "REVPROF_SAMPLE";
  if (text == NULL)
    text = "";
  field f[3];
  int nf = split(text, ':', f, 3);
  size_t t = 0;
  while (t < N_TECHNIQUES && !field_is(f[0], techniques[t].name))
    t++;
  if (t == N_TECHNIQUES)
    return bad(err, errlen, v, text, "expected " SAMPLE_FORMS);
  if (nf < techniques[t].lo || nf > techniques[t].hi)
    return bad(err, errlen, v, text, "expected %s", techniques[t].form);

  /* a number that cannot be read becomes one check_spec refuses, with the
     message that says what is expected */
  rp_sample_spec s = {.kind = techniques[t].kind};
  double x;
  switch (s.kind) {
  case RP_SAMPLE_RANDOM:
    if (get_real(f[1], &s.p) != 0)
      return bad(err, errlen, v, text,
                 "the probability \"%.*s\" is not a number", (int)f[1].len,
                 f[1].p);
    break;
  case RP_SAMPLE_COUNTER:
    s.n = get_whole(f[1], &x) == 0 && x >= 1.0 &&
                  x <= (double)RP_SAMPLE_COUNTER_MAX
              ? (long)x
              : 0;
    if (nf == 3 && get_whole(f[2], &s.jitter) != 0)
      s.jitter = -1.0;
    break;
  case RP_SAMPLE_TIMER:
    if (get_real(f[1], &s.period) != 0)
      s.period = -1.0;
    if (nf == 3 && get_real(f[2], &s.jitter) != 0)
      s.jitter = -1.0;
    break;
  default:
    break;
  }
  int rc = check_spec(&s, text, err, errlen);
  if (rc == 0)
    *out = s;
  return rc;
}

/* x in the fewest significant digits that strtod reads back exactly. */
static void format_real(char *buf, size_t len, double x) {
  char tmp[32];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, x);
    if (strtod(tmp, NULL) == x)
      break;
  }
  snprintf(buf, len, "%s", tmp);
}

void rp_sample_format(const rp_sample_spec *s, char *buf, size_t len) {
  char a[32], b[32];
  const char *name = rp_sample_kind_name(s->kind);
  switch (s->kind) {
  case RP_SAMPLE_RANDOM:
    format_real(a, sizeof a, s->p);
    snprintf(buf, len, "%s:%s", name, a);
    return;
  case RP_SAMPLE_COUNTER:
    if (s->jitter > 0.0)
      snprintf(buf, len, "%s:%ld:%.0f", name, s->n, s->jitter);
    else
      snprintf(buf, len, "%s:%ld", name, s->n);
    return;
  case RP_SAMPLE_TIMER:
    format_real(a, sizeof a, s->period);
    format_real(b, sizeof b, s->jitter);
    if (s->jitter > 0.0)
      snprintf(buf, len, "%s:%s:%s", name, a, b);
    else
      snprintf(buf, len, "%s:%s", name, a);
    return;
  default:
    snprintf(buf, len, "%s", name);
  }
}

int rp_sample_check(const rp_sample_spec *s, char *err, size_t errlen) {
  char text[96];
  rp_sample_format(s, text, sizeof text);
  return check_spec(s, text, err, errlen);
}

/* ------------------------------------------------------------- samplers */

/* MurmurHash3's 32-bit finalizer: a bijection that spreads every input
 * bit over the output. */
static uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bU;
  x ^= x >> 13;
  x *= 0xc2b2ae35U;
  x ^= x >> 16;
  return x;
}

unsigned long rp_sample_seed(unsigned long seed, int rank) {
  uint64_t s = (uint64_t)seed;
  uint32_t base = mix32((uint32_t)(s ^ (s >> 32)));
  /* base + rank * odd is one-to-one in rank (mod 2^32), and so is mix32 */
  return (unsigned long)mix32(base + (uint32_t)rank * 0x9e3779b9U);
}

static int needs_draws(const rp_sample_spec *s) {
  return s->kind == RP_SAMPLE_RANDOM ||
         (s->kind == RP_SAMPLE_COUNTER && s->jitter > 0.0) ||
         (s->kind == RP_SAMPLE_TIMER && s->jitter > 0.0);
}

/* The next counter gap: N + u, u uniform in [-J, J]. */
static long counter_gap(rp_sampler *s) {
  long j = (long)s->spec.jitter;
  if (j == 0)
    return s->spec.n;
  return s->spec.n - j +
         (long)gsl_rng_uniform_int(s->rng, (unsigned long)(2 * j + 1));
}

/* The next random gap: the number of messages up to and including the
 * next sampled one when each is sampled with probability P independently,
 * a geometric variable (1 with probability P, k with P (1 - P)^(k - 1)),
 * drawn by inversion from one uniform in (0, 1). One draw per sampled
 * message rather than one per message: the same choices in distribution.
 * P = 0 never samples. */
static long random_gap(rp_sampler *s) {
  double p = s->spec.p;
  if (p >= 1.0)
    return 1;
  if (!(p > 0.0))
    return LONG_MAX;
  double k = floor(log(gsl_rng_uniform_pos(s->rng)) / log1p(-p)) + 1.0;
  return k < (double)LONG_MAX / 2 ? (long)k : LONG_MAX / 2;
}

/* The next timer period: S + v, v uniform in [-J, J). */
static double timer_period(rp_sampler *s) {
  double j = s->spec.jitter;
  if (j == 0.0)
    return s->spec.period;
  return s->spec.period + j * (2.0 * gsl_rng_uniform(s->rng) - 1.0);
}

static const rp_sample_spec off = {.kind = RP_SAMPLE_OFF};

void rp_sampler_set(rp_sampler *s, const rp_sample_spec *spec) {
  if (rp_sample_check(spec, NULL, 0) != 0 ||
      (needs_draws(spec) && s->rng == NULL))
    spec = &off;
  s->spec = *spec;
  s->count = 0;
  s->gap = s->spec.kind == RP_SAMPLE_COUNTER  ? counter_gap(s)
           : s->spec.kind == RP_SAMPLE_RANDOM ? random_gap(s)
                                              : 0;
  s->deadline = NAN;
}

int rp_sampler_init(rp_sampler *s, const rp_sample_spec *spec,
                    unsigned long seed, int rank) {
  memset(s, 0, sizeof *s);
  rp_sampler_set(s, &off);
  if (rp_sample_check(spec, NULL, 0) != 0)
    return REVPROF_EINVAL;
  gsl_error_handler_t *old = gsl_set_error_handler_off(); /* no abort */
  s->rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_set_error_handler(old);
  if (s->rng == NULL)
    return REVPROF_ENOMEM;
  gsl_rng_set(s->rng, rp_sample_seed(seed, rank));
  rp_sampler_set(s, spec);
  return 0;
}

void rp_sampler_free(rp_sampler *s) {
  if (s == NULL)
    return;
  gsl_rng_free(s->rng); /* NULL: no-op */
  s->rng = NULL;
  s->spec.kind = RP_SAMPLE_OFF;
}

long rp_sampler_skip(const rp_sampler *s) {
  switch (s->spec.kind) {
  case RP_SAMPLE_OFF:
    return LONG_MAX;
  case RP_SAMPLE_COUNTER:
  case RP_SAMPLE_RANDOM: /* the message that brings count to gap is taken */
    return s->gap - s->count - 1 > 0 ? s->gap - s->count - 1 : 0;
  case RP_SAMPLE_ALL:
  case RP_SAMPLE_TIMER:
    break;
  }
  return 0;
}

void rp_sampler_pass(rp_sampler *s, long n) {
  if (n > 0 && (s->spec.kind == RP_SAMPLE_COUNTER ||
                s->spec.kind == RP_SAMPLE_RANDOM))
    s->count += n;
}

int rp_sampler_decide(rp_sampler *s, double now) {
  switch (s->spec.kind) {
  case RP_SAMPLE_OFF:
    return 0;
  case RP_SAMPLE_ALL:
    return 1;
  case RP_SAMPLE_COUNTER:
    if (++s->count < s->gap)
      return 0;
    s->count = 0;
    s->gap = counter_gap(s);
    return 1;
  case RP_SAMPLE_RANDOM:
    if (++s->count < s->gap)
      return 0;
    s->count = 0;
    s->gap = random_gap(s);
    return 1;
  case RP_SAMPLE_TIMER:
    if (now < s->deadline)
      return 0;
    if (isnan(s->deadline)) { /* first message: it starts the clock */
      s->deadline = now + timer_period(s);
      return 0;
    }
    s->deadline = now + timer_period(s);
    return 1;
  }
  return 0;
}

/* ----------------------------------------------------------- size classes */

int rp_size_class(double bytes) {
  if (!(bytes >= 1.0))
    return 0; /* 0, negative, NaN */
  if (bytes >= ldexp(1.0, RP_SIZE_CLASS_N - 2))
    return RP_SIZE_CLASS_N - 1;
  int e;
  frexp(bytes, &e); /* bytes = m 2^e, m in [1/2, 1): 2^(e-1) <= bytes < 2^e */
  return e;
}

double rp_size_class_lo(int k) {
  return k <= 0 ? 0.0 : ldexp(1.0, k - 1);
}

double rp_size_class_hi(int k) {
  if (k <= 0)
    return 0.0;
  if (k >= RP_SIZE_CLASS_N - 1)
    return INFINITY;
  return ldexp(1.0, k) - 1.0;
}

/* ---------------------------------------------------- latency histogram */

#define LHIST_LAST (RP_LHIST_N - 1)

double rp_lhist_lo(int k) {
  /* exact decades times 10^(i/4), so that 1e-7, ..., 10 are bounds exactly */
  static const double decade[] = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3,
                                  1e-2, 1e-1, 1.0,  10.0};
  static const double quarter[] = {1.0, 1.7782794100389228,
                                   3.1622776601683795, 5.6234132519034912};
  if (k <= 0)
    return 0.0;
  if (k > LHIST_LAST)
    return INFINITY;
  return decade[(k - 1) / 4] * quarter[(k - 1) % 4];
}

double rp_lhist_hi(int k) {
  return k >= LHIST_LAST ? INFINITY : rp_lhist_lo(k < 0 ? 1 : k + 1);
}

int rp_lhist_bucket(double seconds) {
  if (!(seconds >= rp_lhist_lo(1)))
    return 0; /* below 1e-7 s, negative or NaN */
  int lo = 1, hi = LHIST_LAST; /* lo(lo) <= seconds; find the last such */
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (seconds >= rp_lhist_lo(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* ---------------------------------------------------- latency statistics */

void rp_lstat_init(rp_lstat *s) {
  memset(s, 0, sizeof *s);
  s->min = INFINITY;
  s->max = -INFINITY;
}

void rp_lstat_add(rp_lstat *s, double latency, double bytes, int with_hist) {
  s->n += 1.0;
  double d = latency - s->mean;
  s->mean += d / s->n;
  s->m2 += d * (latency - s->mean);
  if (latency < s->min)
    s->min = latency;
  if (latency > s->max)
    s->max = latency;
  s->bytes += bytes;
  if (with_hist)
    s->hist[rp_lhist_bucket(latency)] += 1.0;
}

void rp_lstat_merge(rp_lstat *a, const rp_lstat *b) {
  if (b->n > 0.0) {
    double n = a->n + b->n, d = b->mean - a->mean;
    a->mean += d * (b->n / n);
    a->m2 += b->m2 + d * d * (a->n * b->n / n);
    a->n = n;
  }
  if (b->min < a->min)
    a->min = b->min;
  if (b->max > a->max)
    a->max = b->max;
  a->bytes += b->bytes;
  for (int k = 0; k < RP_LHIST_N; k++)
    a->hist[k] += b->hist[k];
}

double rp_lstat_sd(const rp_lstat *s) {
  if (s->n < 2.0 || !(s->m2 > 0.0))
    return 0.0;
  return sqrt(s->m2 / (s->n - 1.0));
}

double rp_lstat_median(const rp_lstat *s) {
  double total = 0.0;
  for (int k = 0; k < RP_LHIST_N; k++)
    total += s->hist[k];
  if (!(s->n > 0.0) || !(total > 0.0))
    return NAN;
  double half = total / 2.0, below = 0.0;
  int k = 0;
  while (k < LHIST_LAST && below + s->hist[k] < half)
    below += s->hist[k++];
  double lo = fmax(rp_lhist_lo(k), s->min), hi = fmin(rp_lhist_hi(k), s->max);
  double x = s->hist[k] > 0.0 && hi > lo
                 ? lo + (half - below) / s->hist[k] * (hi - lo)
                 : lo;
  return fmin(fmax(x, s->min), s->max);
}

/* ------------------------------------------------------------ clock drift */

/* (b - a) x (c - a) for the points a, b, c of the (u, x) plane: > 0 when
   a, b, c turn left */
static double cross3(double au, double ax, double bu, double bx, double cu,
                     double cx) {
  return (bu - au) * (cx - ax) - (bx - ax) * (cu - au);
}

void rp_lhull_add(rp_lhull *h, double u, double x, int upper) {
  /* monotone chain: a lower hull turns left, an upper one right */
  double sign = upper ? -1.0 : 1.0;
  while (h->n >= 2 &&
         sign * cross3(h->u[h->n - 2], h->x[h->n - 2], h->u[h->n - 1],
                       h->x[h->n - 1], u, x) <= 0.0)
    h->n--;
  if (h->n == 1 && h->u[0] == u) { /* the same u: keep the extreme */
    if (upper ? x > h->x[0] : x < h->x[0])
      h->x[0] = x;
    return;
  }
  if (h->n == RP_LHULL_N) {
    /* full: the inner vertex whose neighbours are the closest in u goes
       (the hull stays spread over the run; a subtraction a vertex, as
       this runs for every sampled message once the hull is full) */
    int best = 1;
    double gap = INFINITY;
    for (int i = 1; i + 1 < h->n; i++) {
      double g = h->u[i + 1] - h->u[i - 1];
      if (g < gap) {
        gap = g;
        best = i;
      }
    }
    memmove(h->u + best, h->u + best + 1,
            (size_t)(h->n - best - 1) * sizeof *h->u);
    memmove(h->x + best, h->x + best + 1,
            (size_t)(h->n - best - 1) * sizeof *h->x);
    h->n--;
  }
  h->u[h->n] = u;
  h->x[h->n] = x;
  h->n++;
}

double rp_lhull_extreme(const rp_lhull *h, double c, int upper) {
  double e = NAN;
  for (int i = 0; i < h->n; i++) {
    double v = h->x[i] + c * h->u[i];
    if (isnan(e) || (upper ? v > e : v < e))
      e = v;
  }
  return e;
}

void rp_ldrift_init(rp_ldrift *d) { memset(d, 0, sizeof *d); }

void rp_ldrift_add(rp_ldrift *d, const rp_lstat *s, double latency,
                   double u, int with_hist) {
  double n = s->n + 1.0;
  double dx = latency - s->mean; /* against the mean before this sample */
  double du_old = u - d->umean;
  d->umean += du_old / n;
  double du = u - d->umean; /* against the mean with it */
  d->um2 += du_old * du;
  d->cov += dx * du;
  rp_lhull_add(&d->lo, u, latency, 0);
  rp_lhull_add(&d->hi, u, latency, 1);
  if (with_hist) {
    int b = rp_lhist_bucket(latency);
    d->hu[b] += u;
    d->hx[b] += latency;
  }
}

double rp_drift_rate(double off0, double off1, double rtt0, double rtt1,
                     double span) {
  double change = off1 - off0;
  if (!(span > 0.0) || !isfinite(change) ||
      fabs(change) <= 0.5 * (fabs(rtt0) + fabs(rtt1)))
    return 0.0;
  return change / span;
}

double rp_lstat_undrift(rp_lstat *s, const rp_ldrift *d, double c,
                        double k) {
  if (!(s->n > 0.0) || !isfinite(c) || !isfinite(k) || (c == 0.0 && k == 0.0))
    return 0.0;
  double h[RP_LHIST_N] = {0};
  for (int b = 0; b < RP_LHIST_N; b++)
    if (s->hist[b] > 0.0)
      h[rp_lhist_bucket((d->hx[b] + c * d->hu[b]) / s->hist[b] + k)] +=
          s->hist[b];
  memcpy(s->hist, h, sizeof h);
  double shift = c * d->umean + k;
  s->mean += shift;
  s->m2 += 2.0 * c * d->cov + c * c * d->um2;
  if (s->m2 < 0.0) /* rounding */
    s->m2 = 0.0;
  double lo = rp_lhull_extreme(&d->lo, c, 0);
  double hi = rp_lhull_extreme(&d->hi, c, 1);
  if (!isnan(lo))
    s->min = fmin(lo + k, s->mean);
  if (!isnan(hi))
    s->max = fmax(hi + k, s->mean);
  return shift;
}

/* --------------------------------------------------------------- analyses */

static const struct {
  const char *name;
  unsigned bit;
} analyses[] = {{"stat", RP_ANALYSIS_STAT},
                {"freq", RP_ANALYSIS_FREQ},
                {"write", RP_ANALYSIS_WRITE}};
#define N_ANALYSES (sizeof analyses / sizeof analyses[0])

int rp_analysis_parse(const char *text, unsigned *mask, char *err,
                      size_t errlen) {
  const char *v = "REVPROF_ANALYSIS";
  if (text == NULL)
    text = "";
  enum { MAX_ITEMS = 8 };
  field f[MAX_ITEMS];
  int nf = split(text, ',', f, MAX_ITEMS);
  if (nf == 1 && field_is(f[0], "off")) {
    *mask = 0;
    return 0;
  }
  if (nf > MAX_ITEMS)
    return bad(err, errlen, v, text, "too many items");
  unsigned m = 0;
  for (int i = 0; i < nf; i++) {
    unsigned bit = 0;
    for (size_t a = 0; a < N_ANALYSES; a++)
      if (field_is(f[i], analyses[a].name))
        bit = analyses[a].bit;
    if (field_is(f[i], "off"))
      return bad(err, errlen, v, text, "\"off\" goes alone");
    if (bit == 0)
      return bad(err, errlen, v, text, "unknown analysis \"%.*s\": expected "
                 "a comma-separated list of stat, freq and write, or off",
                 (int)f[i].len, f[i].p);
    if (m & bit)
      return bad(err, errlen, v, text, "\"%.*s\" twice", (int)f[i].len,
                 f[i].p);
    m |= bit;
  }
  *mask = m;
  return 0;
}

void rp_analysis_format(unsigned mask, char *buf, size_t len) {
  size_t used = 0;
  if (len == 0)
    return;
  buf[0] = '\0';
  for (size_t a = 0; a < N_ANALYSES; a++)
    if (mask & analyses[a].bit) {
      int k = snprintf(buf + used, len - used, "%s%s", used > 0 ? "," : "",
                       analyses[a].name);
      if (k < 0 || (size_t)k >= len - used)
        return;
      used += (size_t)k;
    }
  if (used == 0)
    snprintf(buf, len, "off");
}
