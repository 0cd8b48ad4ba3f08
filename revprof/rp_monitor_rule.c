/* Online monitoring's pure rules (seed 004): settings, tree shape, packets,
 * filters, the acceptance threshold, the BOI search, the Limiting Overhead,
 * the thinning to the BOI and the model's BOI; see rp_monitor_rule.h. */
#include "rp_monitor_rule.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h" /* rp_errf */
#include "revprof_model.h"
#include "rp_util.h"

/* ------------------------------------------------------------- settings */

void rp_mon_config_default(rp_mon_config *c) {
  memset(c, 0, sizeof *c);
  c->tools = 0;
  c->fanout = RP_MON_DEFAULT_FANOUT;
  c->offload = RP_MON_BLOCKING;
  c->lossy_cap = RP_MON_DEFAULT_LOSSY;
  c->accept = 0;
  c->filter = RP_MON_STATS;
  c->when = RP_MON_TIMER;
  c->interval = RP_MON_DEFAULT_INTERVAL;
  c->poll_us = RP_MON_DEFAULT_POLL_US;
}

/* A decimal integer >= min with nothing before or after it, within int:
 * 1 with *out, else 0. */
static int parse_int(const char *s, int min, int *out) {
  char *end;
  if (!(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9')))
    return 0; /* strtol would skip white space */
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < min || v > INT_MAX)
    return 0;
  *out = (int)v;
  return 1;
}

/* A finite number with nothing before or after it (no NaN, inf or
 * overflow): 1 with *out, else 0. */
static int parse_num(const char *s, double *out) {
  if (!(*s == '-' || *s == '+' || *s == '.' || (*s >= '0' && *s <= '9')))
    return 0;
  return rp_parse_double(s, out);
}

/* The variable's value, NULL when unset or empty. */
static const char *value(const char *(*get)(const char *, void *), void *ctx,
                         const char *name) {
  const char *v = get(name, ctx);
  return v && *v ? v : NULL;
}

static int read_int(const char *(*get)(const char *, void *), void *ctx,
                    const char *name, int min, int *out, char *err,
                    size_t errlen) {
  const char *v = value(get, ctx, name);
  if (v && !parse_int(v, min, out)) {
    rp_errf(err, errlen, "%s=%s: expected an integer >= %d", name, v, min);
    return REVPROF_EINVAL;
  }
  return 0;
}

static int read_offload(const char *v, rp_mon_config *c, char *err,
                        size_t errlen) {
  if (strcmp(v, "blocking") == 0) {
    c->offload = RP_MON_BLOCKING;
  } else if (strcmp(v, "nonblocking") == 0) {
    c->offload = RP_MON_NONBLOCKING;
  } else if (strcmp(v, "lossy") == 0) {
    c->offload = RP_MON_LOSSY;
  } else if (strncmp(v, "lossy:", 6) == 0) {
    if (!parse_int(v + 6, 1, &c->lossy_cap)) {
      rp_errf(err, errlen, "REVPROF_MONITOR_OFFLOAD=%s: the queue bound must "
              "be an integer >= 1", v);
      return REVPROF_EINVAL;
    }
    c->offload = RP_MON_LOSSY;
  } else {
    rp_errf(err, errlen, "REVPROF_MONITOR_OFFLOAD=%s: expected blocking, "
            "nonblocking, lossy or lossy:B", v);
    return REVPROF_EINVAL;
  }
  return 0;
}

int rp_mon_config_read(rp_mon_config *c,
                       const char *(*get)(const char *name, void *ctx),
                       void *ctx, char *err, size_t errlen) {
  const char *v;
  int rc;
  rp_mon_config_default(c);
  if (err && errlen)
    err[0] = '\0';
  if ((rc = read_int(get, ctx, "REVPROF_MONITOR", 0, &c->tools, err,
                     errlen)) ||
      (rc = read_int(get, ctx, "REVPROF_MONITOR_FANOUT", 1, &c->fanout, err,
                     errlen)) ||
      (rc = read_int(get, ctx, "REVPROF_MONITOR_ACCEPT", 0, &c->accept, err,
                     errlen)))
    return rc;
  if ((v = value(get, ctx, "REVPROF_MONITOR_OFFLOAD")) &&
      (rc = read_offload(v, c, err, errlen)))
    return rc;
  if ((v = value(get, ctx, "REVPROF_MONITOR_FILTER"))) {
    if (strcmp(v, "stats") == 0) {
      c->filter = RP_MON_STATS;
    } else if (strcmp(v, "hist") == 0) {
      c->filter = RP_MON_HIST;
    } else {
      rp_errf(err, errlen, "REVPROF_MONITOR_FILTER=%s: expected stats or "
              "hist", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = value(get, ctx, "REVPROF_MONITOR_INTERVAL"))) {
    double s;
    if (strcmp(v, "calls") == 0) {
      c->when = RP_MON_CALLS;
    } else if (strcmp(v, "auto") == 0) {
      c->when = RP_MON_AUTO;
    } else if (parse_num(v, &s) && s > 0.0) {
      c->when = RP_MON_TIMER;
      c->interval = s;
    } else {
      rp_errf(err, errlen, "REVPROF_MONITOR_INTERVAL=%s: expected a number of "
              "seconds > 0, calls or auto", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = value(get, ctx, "REVPROF_MONITOR_POLL_US"))) {
    double us;
    if (!parse_num(v, &us) || us < 0.0) {
      rp_errf(err, errlen, "REVPROF_MONITOR_POLL_US=%s: expected a number of "
              "microseconds >= 0", v);
      return REVPROF_EINVAL;
    }
    c->poll_us = us;
  }
  return 0;
}

const char *rp_mon_offload_name(int offload) {
  switch (offload) {
  case RP_MON_BLOCKING: return "blocking";
  case RP_MON_NONBLOCKING: return "nonblocking";
  case RP_MON_LOSSY: return "lossy";
  default: return "?";
  }
}

const char *rp_mon_filter_name(int filter) {
  switch (filter) {
  case RP_MON_STATS: return "stats";
  case RP_MON_HIST: return "hist";
  default: return "?";
  }
}

const char *rp_mon_when_name(int when) {
  switch (when) {
  case RP_MON_TIMER: return "timer";
  case RP_MON_CALLS: return "calls";
  case RP_MON_AUTO: return "auto";
  default: return "?";
  }
}

/* ----------------------------------------------------------------- tree */
/* Products such as t * F are taken in long long: K and F may each be up to
 * INT_MAX. The inner nodes are tools 0 .. K-L-1, the leaves K-L .. K-1. */

int rp_mon_parent(int t, int fanout) {
  if (t <= 0 || fanout < 1)
    return -1;
  return (t - 1) / fanout;
}

int rp_mon_tool_children(int t, int tools, int fanout) {
  if (t < 0 || t >= tools || fanout < 1)
    return 0;
  long long first = (long long)t * fanout + 1;
  long long last = first + fanout - 1;
  if (last > tools - 1)
    last = tools - 1;
  return last >= first ? (int)(last - first + 1) : 0;
}

int rp_mon_leaves(int tools, int fanout) {
  if (tools < 1 || fanout < 1)
    return 0;
  /* inner nodes: t with t * F + 1 < K, that is t < ceil((K - 1) / F) */
  long long inner = ((long long)tools - 1 + fanout - 1) / fanout;
  return tools - (int)inner;
}

/* ceil(j * n / l) for j, n >= 0 and l >= 1 */
static long long ceil_div(long long j, long long n, long long l) {
  return (j * n + l - 1) / l;
}

int rp_mon_leaf_of_app(int a, int apps, int tools, int fanout) {
  int l = rp_mon_leaves(tools, fanout);
  if (l < 1 || apps < 1 || a < 0 || a >= apps)
    return -1;
  /* the largest j with ceil(j * N / L) <= a, i.e. j * N / L <= a */
  long long j = (long long)a * l / apps;
  return tools - l + (int)j;
}

int rp_mon_app_range(int t, int apps, int tools, int fanout, int *first,
                     int *count) {
  int l = rp_mon_leaves(tools, fanout);
  *first = 0;
  *count = 0;
  if (l < 1 || apps < 0 || t < tools - l || t >= tools)
    return 0;
  long long j = t - (tools - l);
  long long lo = ceil_div(j, apps, l), hi = ceil_div(j + 1, apps, l);
  *first = (int)lo;
  *count = (int)(hi - lo);
  return 1;
}

int rp_mon_depth(int tools, int fanout) {
  if (tools < 1 || fanout < 1)
    return 0;
  int d = 1;
  for (int t = tools - 1; t > 0; t = (t - 1) / fanout)
    d++; /* the last tool is on the deepest level */
  return d;
}

int rp_mon_shape_check(int apps, int tools, int fanout, char *err,
                       size_t errlen) {
  if (tools < 1) {
    rp_errf(err, errlen, "REVPROF_MONITOR=%d: at least one tool rank is "
            "needed", tools);
    return REVPROF_EINVAL;
  }
  if (fanout < 1) {
    rp_errf(err, errlen, "REVPROF_MONITOR_FANOUT=%d: the fanout must be >= 1",
            fanout);
    return REVPROF_EINVAL;
  }
  if (apps < 1) {
    rp_errf(err, errlen, "REVPROF_MONITOR=%d: no application ranks left "
            "(%d)", tools, apps);
    return REVPROF_EINVAL;
  }
  int l = rp_mon_leaves(tools, fanout);
  if (apps < l) {
    rp_errf(err, errlen, "REVPROF_MONITOR=%d with REVPROF_MONITOR_FANOUT=%d "
            "makes %d leaves for %d application ranks: every leaf needs at "
            "least one", tools, fanout, l, apps);
    return REVPROF_EINVAL;
  }
  return 0;
}

/* -------------------------------------------------------------- packets */

int rp_mon_words(int n) { return n > 0 ? (n + 63) / 64 : 0; }

size_t rp_mon_payload(int raw, int events, int filter) {
  size_t e = events > 0 ? (size_t)events : 0;
  if (raw)
    return e;
  return (filter == RP_MON_HIST ? RP_MON_BINS : RP_MON_STAT) * e;
}

size_t rp_mon_packet_doubles(int raw, int events, int filter, int apps) {
  return RP_MON_HDR + rp_mon_payload(raw, events, filter) +
         (size_t)rp_mon_words(apps);
}

/* The bitmap's words are only ever read and written through this pointer
 * (and copied as bytes by MPI), never as doubles; a double array is 8-byte
 * aligned, as uint64_t needs. */
uint64_t *rp_mon_bitmap(double *p, int raw, int events, int filter) {
  return (uint64_t *)(void *)(p + RP_MON_HDR +
                              rp_mon_payload(raw, events, filter));
}

void rp_mon_bit_set(uint64_t *w, int a) {
  w[a / 64] |= (uint64_t)1 << (a % 64);
}

int rp_mon_bit_get(const uint64_t *w, int a) {
  return (int)((w[a / 64] >> (a % 64)) & 1u);
}

void rp_mon_bit_or(uint64_t *dst, const uint64_t *src, int words) {
  for (int i = 0; i < words; i++)
    dst[i] |= src[i];
}

int rp_mon_bit_count(const uint64_t *w, int words) {
  int n = 0;
  for (int i = 0; i < words; i++)
    for (uint64_t x = w[i]; x; x &= x - 1)
      n++;
  return n;
}

/* --------------------------------------------------------------- filters */

int rp_mon_hist_bin(double v) {
  if (!(v > 0.0))
    return 0; /* v <= 0 or NaN */
  if (isinf(v))
    return RP_MON_BINS - 1;
  int e;
  frexp(v, &e); /* v = m * 2^e, 0.5 <= m < 1: floor(log2(v)) = e - 1 */
  int b = e - 1 + 32;
  return b < 1 ? 1 : b > RP_MON_BINS - 1 ? RP_MON_BINS - 1 : b;
}

double rp_mon_hist_lo(int b) { return b >= 1 ? ldexp(1.0, b - 32) : 0.0; }

void rp_mon_acc_init(double *acc, int events, int filter) {
  for (int e = 0; e < events; e++) {
    if (filter == RP_MON_HIST) {
      for (int b = 0; b < RP_MON_BINS; b++)
        acc[(size_t)RP_MON_BINS * e + b] = 0.0;
    } else {
      double *s = acc + (size_t)RP_MON_STAT * e;
      s[0] = s[1] = s[2] = 0.0;
      s[3] = INFINITY;
      s[4] = -INFINITY;
    }
  }
}

void rp_mon_acc_raw(double *acc, const double *v, int events, int filter) {
  for (int e = 0; e < events; e++) {
    if (filter == RP_MON_HIST) {
      acc[(size_t)RP_MON_BINS * e + rp_mon_hist_bin(v[e])] += 1.0;
    } else {
      double *s = acc + (size_t)RP_MON_STAT * e;
      s[0] += 1.0;
      s[1] += v[e];
      s[2] += v[e] * v[e];
      s[3] = fmin(s[3], v[e]);
      s[4] = fmax(s[4], v[e]);
    }
  }
}

void rp_mon_acc_merge(double *acc, const double *in, int events, int filter) {
  if (filter == RP_MON_HIST) {
    size_t n = (size_t)RP_MON_BINS * (size_t)(events > 0 ? events : 0);
    for (size_t i = 0; i < n; i++)
      acc[i] += in[i];
    return;
  }
  for (int e = 0; e < events; e++) {
    double *s = acc + (size_t)RP_MON_STAT * e;
    const double *t = in + (size_t)RP_MON_STAT * e;
    s[0] += t[0];
    s[1] += t[1];
    s[2] += t[2];
    s[3] = fmin(s[3], t[3]);
    s[4] = fmax(s[4], t[4]);
  }
}

/* Any output may be NULL. */
void rp_mon_stats_of(const double *acc, int e, double *mean, double *sd,
                     double *min, double *max, double *n) {
  const double *s = acc + (size_t)RP_MON_STAT * e;
  double cnt = s[0], m = 0.0, d = 0.0, lo = 0.0, hi = 0.0;
  if (cnt > 0.0) {
    m = s[1] / cnt;
    lo = s[3];
    hi = s[4];
    if (cnt >= 2.0) {
      double var = (s[2] - s[1] * m) / (cnt - 1.0);
      d = var > 0.0 ? sqrt(var) : 0.0; /* rounding can make it negative */
    }
  }
  if (mean)
    *mean = m;
  if (sd)
    *sd = d;
  if (min)
    *min = lo;
  if (max)
    *max = hi;
  if (n)
    *n = cnt > 0.0 ? cnt : 0.0;
}

/* --------------------------------------------------- acceptance threshold */

int rp_mon_decide(int nchild, int nhave, int ngone, int accept) {
  if (nhave + ngone < nchild)
    return RP_MON_WAIT;
  return nchild - nhave <= accept ? RP_MON_REDUCE : RP_MON_DISCARD;
}

/* ------------------------------------------------------------ BOI search */

void rp_mon_mean_sd(const double *v, int n, double *mean, double *sd) {
  double m = 0.0, ss = 0.0;
  for (int i = 0; i < n; i++)
    m += v[i];
  if (n > 0)
    m /= n;
  for (int i = 0; i < n; i++)
    ss += (v[i] - m) * (v[i] - m);
  *mean = m;
  *sd = n >= 2 ? sqrt(ss / (n - 1)) : 0.0;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n) {
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void rp_mon_median_mad(const double *v, int n, double *median,
                       double *spread) {
  *median = *spread = 0.0;
  if (n < 1)
    return;
  double *w = malloc((size_t)n * sizeof *w);
  if (w == NULL) { /* no memory: the plain figures */
    rp_mon_mean_sd(v, n, median, spread);
    return;
  }
  memcpy(w, v, (size_t)n * sizeof *w);
  qsort(w, (size_t)n, sizeof *w, cmp_dbl);
  double m = median_sorted(w, n);
  for (int i = 0; i < n; i++)
    w[i] = fabs(v[i] - m);
  qsort(w, (size_t)n, sizeof *w, cmp_dbl);
  *median = m;
  *spread = 1.4826 * median_sorted(w, n);
  free(w);
}

double rp_boi_growth(const double *owd, int n) {
  return n >= 2 ? (owd[n - 1] - owd[0]) / (n - 1) : 0.0; /* telescoped */
}

double rp_boi_slope(const double *owd, int n) {
  if (n < 2)
    return 0.0;
  double xm = 0.5 * (n - 1), ym = 0.0, sxy = 0.0, sxx = 0.0;
  for (int i = 0; i < n; i++)
    ym += owd[i];
  ym /= n;
  for (int i = 0; i < n; i++) {
    sxy += (i - xm) * (owd[i] - ym);
    sxx += (i - xm) * (i - xm);
  }
  return sxy / sxx;
}

/* the least width at which a search ends: a thousandth of the first high */
static double err_least(const rp_boi_search *s) { return 1e-3 * s->first; }

void rp_boi_init(rp_boi_search *s, double rest_owd, double rest_sd,
                 double low, double k) {
  memset(s, 0, sizeof *s);
  s->rest_owd = rest_owd;
  s->rest_sd = rest_sd > 0.0 ? rest_sd : 0.0;
  s->k = k;
  s->lo = low > 0.0 ? low : 0.0;
  s->hi = rest_owd;
  if (!(s->hi > s->lo)) /* a previous BOI above restOWD, or no restOWD */
    s->hi = s->lo + (rest_owd > 0.0 ? rest_owd : 1e-6);
  s->cur = s->hi;
  /* the seed's 2 restSD, but at most an eighth of the first range: a
     resting spread as large as restOWD would end the search untried */
  s->first = s->hi;
  s->err = fmax(fmin(2.0 * s->rest_sd, 0.125 * (s->hi - s->lo)),
                err_least(s));
}

int rp_boi_rounds(const rp_boi_search *s, int l) {
  if (s->rule != RP_BOI_STEP || !(s->cur > 0.0) || !(s->cur < s->first))
    return l;
  double n = ceil((double)l * s->first / s->cur);
  double most = (double)l * RP_BOI_LONG;
  return n < most ? (int)n : (int)most;
}

/* the width at which the search ends: the seed's err, and under the
 * step's rule also an eighth of the high end */
static double end_width(const rp_boi_search *s) {
  if (s->rule != RP_BOI_STEP)
    return s->err;
  return fmax(fmin(s->err, RP_BOI_REL * s->hi), err_least(s));
}

/* the seed's decision on a step's growth (per round) and mean OWD, the
 * growth taken over the step's n rounds under RP_BOI_STEP */
static int queued_by(const rp_boi_search *s, double growth, double mean,
                     int n) {
  double rise = s->rule == RP_BOI_ROUND ? growth : growth * (n - 1);
  return rise > s->rest_sd && mean > s->rest_owd + s->k * s->rest_sd;
}

int rp_boi_queued(const rp_boi_search *s, const double *owd, int n) {
  double mean, sd;
  rp_mon_mean_sd(owd, n, &mean, &sd);
  return queued_by(s, rp_boi_slope(owd, n), mean, n);
}

static int finish(rp_boi_search *s, double boi) {
  s->done = 1;
  s->boi = boi;
  return 1;
}

int rp_boi_step(rp_boi_search *s, const double *owd, int n) {
  double sd;
  if (s->done)
    return 1;
  s->growth = rp_boi_slope(owd, n);
  rp_mon_mean_sd(owd, n, &s->mean, &sd);
  int q = queued_by(s, s->growth, s->mean, n);
  s->steps++;
  if (q && s->cur >= s->hi) { /* queued at the top: no quiet interval yet */
    if (s->grown >= RP_BOI_GROW)
      return finish(s, s->hi);
    s->lo = s->hi;
    s->hi *= 2.0;
    s->cur = s->hi;
    s->grown++;
    s->last_queued = 1;
    return s->steps >= RP_BOI_MAX_STEPS ? finish(s, s->hi) : 0;
  }
  if (q) {
    s->lo = s->cur;
    s->cur = 0.5 * (s->cur + s->hi);
  } else {
    s->hi = s->cur;
    s->cur = 0.5 * (s->lo + s->cur);
  }
  s->last_queued = q;
  if (s->hi - s->lo < end_width(s))
    return finish(s, q ? s->hi : s->cur);
  if (s->steps >= RP_BOI_MAX_STEPS)
    return finish(s, s->hi);
  return 0;
}

double rp_mon_capacity(const double *arrival, int n) {
  double c = rp_boi_slope(arrival, n); /* unmoved by a common offset */
  return c > 0.0 ? c : 0.0;
}

double rp_mon_lo(double oc, double boi) {
  double t = boi + oc;
  return t != 0.0 ? oc / t * 100.0 : 0.0;
}

/* ------------------------------------------------- offloads thinned to BOI */

/* floor(x), with x within a relative 1e-12 below an integer taken as that
 * integer: c * d / boi for d / boi = 0.75 must step exactly every 4 calls,
 * not drift with the rounding of 0.075 / 0.1. */
static double floor_slack(double x) {
  return floor(x + 1e-12 * fmax(1.0, fabs(x)));
}

int rp_mon_auto_keep(long c, double d, double boi) {
  if (c < 1)
    return 0; /* calls are numbered from 1 */
  if (!(boi > 0.0) || !(d < boi))
    return 1; /* no BOI, or calls no more often than it */
  return floor_slack((double)c * d / boi) >
         floor_slack((double)(c - 1) * d / boi); /* 0 for d <= 0 */
}

/* --------------------------------------------------------- model's BOI */

/* Out of range arguments (a shape rp_mon_shape_check rejects, no msg) give
 * all zero with node -1. */
void rp_mon_predict(int apps, int tools, int fanout, int events, int filter,
                    double (*msg)(double bytes, void *ctx), void *ctx,
                    double elem, int cores, rp_mon_pred *out) {
  rp_mon_predict_x(apps, tools, fanout, events, filter, msg, ctx, elem, 0.0,
                   cores, out);
}

void rp_mon_predict_x(int apps, int tools, int fanout, int events,
                      int filter, double (*msg)(double bytes, void *ctx),
                      void *ctx, double elem, double root_extra, int cores,
                      rp_mon_pred *out) {
  memset(out, 0, sizeof *out);
  out->node = -1;
  if (msg == NULL || events < 0 ||
      rp_mon_shape_check(apps, tools, fanout, NULL, 0) != 0)
    return;
  double raw_b = 8.0 * (double)rp_mon_packet_doubles(1, events, filter, apps);
  double red_b = 8.0 * (double)rp_mon_packet_doubles(0, events, filter, apps);
  double m_raw = msg(raw_b, ctx), m_red = msg(red_b, ctx);
  double add = events * elem; /* one raw packet into the accumulator */
  double merge = events * elem * (filter == RP_MON_HIST ? RP_MON_BINS : 1);
  double total = 0.0; /* the tools' */
  for (int t = 0; t < tools; t++) {
    int first, c, m = rp_mon_tool_children(t, tools, fanout);
    double up = t == 0 ? root_extra : m_red, time;
    if (rp_mon_app_range(t, apps, tools, fanout, &first, &c))
      time = c * (m_raw + add) + up;
    else
      time = m * (m_red + merge) + up;
    total += time;
    if (out->node < 0 || time > out->node_max) {
      out->node_max = time;
      out->node = t;
    }
  }
  out->oc = m_raw;
  out->total = total + apps * m_raw;
  out->boi = out->node_max;
  /* processor sharing: the application ranks wait for their next offload
     running (the probe's, below 300 us; an application's, computing), so
     each holds a core share all round, and a tool rank one as long as it
     is busy: node_max x (N + total / node_max) / C */
  if (cores > 0 && (long long)cores < (long long)apps + tools)
    out->boi = fmax(out->node_max, (apps * out->node_max + total) / cores);
}

const char *rp_boi_rule_name(int rule) {
  return rule == RP_BOI_ROUND ? "round" : "step";
}

int rp_boi_rule_of(const char *name) {
  return strcmp(name, "step") == 0    ? RP_BOI_STEP
         : strcmp(name, "round") == 0 ? RP_BOI_ROUND
                                      : -1;
}
