/* The instrumentation cost model's pure rules (seed 002): see
 * rp_icost_rule.h. */
#include "rp_icost_rule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h" /* rp_errf */
#include "revprof_model.h"
#include "rp_util.h"

static const char *const kind_names[RP_IC_KINDS] = {
    [RP_IC_MPI] = "mpi",         [RP_IC_REGION] = "region",
    [RP_IC_FUNCTION] = "function", [RP_IC_SKIPPED] = "skipped",
    [RP_IC_SAMPLE] = "sample",   [RP_IC_TRACE] = "trace",
    [RP_IC_OFFLOAD] = "offload", [RP_IC_LUA] = "lua"};

const char *rp_ic_kind_name(int k) {
  return k >= 0 && k < RP_IC_KINDS ? kind_names[k] : "?";
}

int rp_ic_kind_of(const char *name) {
  for (int k = 0; name && k < RP_IC_KINDS; k++)
    if (strcmp(name, kind_names[k]) == 0)
      return k;
  return -1;
}

void rp_ic_static_rates(double rate[RP_IC_KINDS]) {
  for (int k = 0; k < RP_IC_KINDS; k++)
    rate[k] = 0.0;
  rate[RP_IC_MPI] = 100.0;
  rate[RP_IC_REGION] = 1000.0;
  rate[RP_IC_FUNCTION] = 1000.0;
  rate[RP_IC_LUA] = 1000.0; /* a user procedure's, as regions */
}

int rp_ic_rates_parse(const char *text, double rate[RP_IC_KINDS], char *err,
                      size_t errlen) {
  double r[RP_IC_KINDS];
  char buf[512];
  memcpy(r, rate, sizeof r);
  if (text == NULL || strlen(text) >= sizeof buf) {
    rp_errf(err, errlen, "REVPROF_COST_RATES: expected kind=rate,... (at most "
        "%zu characters)", sizeof buf - 1);
    return REVPROF_EINVAL;
  }
  strcpy(buf, text);
  char *save = NULL;
  for (char *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(e, '=');
    double v;
    int k = -1;
    if (eq) {
      *eq = '\0';
      k = rp_ic_kind_of(e);
    }
    if (eq == NULL || k < 0 || !rp_parse_double(eq + 1, &v) || v < 0.0) {
      if (eq)
        *eq = '=';
      rp_errf(err, errlen, "REVPROF_COST_RATES=%s: \"%s\" is not kind=rate with "
          "kind one of mpi, region, function, skipped, sample, trace and a "
          "rate "
          ">= 0 per second", text, e);
      return REVPROF_EINVAL;
    }
    r[k] = v;
  }
  memcpy(rate, r, sizeof r);
  return 0;
}

int rp_ic_bound_parse(const char *text, double *bound, char *err,
                      size_t errlen) {
  char num[64];
  size_t n = text ? strlen(text) : 0;
  double v;
  if (n == 0 || strcmp(text, "off") == 0) {
    *bound = 0.0;
    return 0;
  }
  if (n < 2 || n >= sizeof num || text[n - 1] != '%') {
    rp_errf(err, errlen, "REVPROF_MAX_OVERHEAD=%s: expected a percentage such "
        "as 5%% (or off)", text);
    return REVPROF_EINVAL;
  }
  memcpy(num, text, n - 1);
  num[n - 1] = '\0';
  if (!rp_parse_double(num, &v) || !(v > 0.0) || v > 100.0) {
    rp_errf(err, errlen, "REVPROF_MAX_OVERHEAD=%s: the percentage must be a "
        "number above 0 and at most 100", text);
    return REVPROF_EINVAL;
  }
  *bound = v / 100.0;
  return 0;
}

double rp_ic_sample_fraction(const rp_sample_spec *s, double msg_rate) {
  switch (s->kind) {
  case RP_SAMPLE_ALL:
    return 1.0;
  case RP_SAMPLE_RANDOM:
    return s->p;
  case RP_SAMPLE_COUNTER:
    return 1.0 / (double)s->n;
  case RP_SAMPLE_TIMER:
    if (msg_rate <= 0.0 || s->period <= 0.0)
      return 0.0;
    return fmin(1.0, 1.0 / (s->period * msg_rate));
  default:
    return 0.0;
  }
}

double rp_ic_share(const double events[RP_IC_KINDS],
                   const double cost[RP_IC_KINDS], double elapsed) {
  if (!(elapsed > 0.0))
    return 0.0;
  double s = 0.0;
  for (int k = 0; k < RP_IC_KINDS; k++)
    s += events[k] * cost[k];
  return s / elapsed;
}

/* One CSV field (no quotes in what cost.csv writes) at *p into f (len
 * bytes); *p moves past it and its comma. */
static void field(const char **p, char *f, size_t len) {
  size_t n = 0;
  while (**p && **p != ',' && **p != '\n' && **p != '\r') {
    if (n + 1 < len)
      f[n++] = **p;
    (*p)++;
  }
  f[n] = '\0';
  if (**p == ',' || **p == '\r')
    (*p)++;
}

/* 1 when a cost.csv row's cost_from says its cost was timed from the
 * run's own events (offloads, timed Lua calls), not calibrated */
static int timed_from_events(const char *from) {
  return strcmp(from, "offloads") == 0 || strcmp(from, "timed-calls") == 0;
}

int rp_ic_profile_parse(const char *text, double **rates, double **costs,
                        char *err, size_t errlen) {
  enum { F_RANK, F_KIND, F_COUNT, F_ELAPSED, F_COST, F_FROM, F_N,
         F_NEEDED = F_COST };
  static const char *const want[F_N] = {"rank", "kind", "count", "elapsed_s",
                                        "cost_per_event_s", "cost_from"};
  int col[F_N] = {-1, -1, -1, -1, -1, -1}, ncol = 0, nranks = 0, line = 1;
  double *r = NULL, *c = NULL;
  char f[128];
  const char *p = text ? text : "";
  *rates = NULL;
  if (costs)
    *costs = NULL;
  while (*p && *p != '\n') { /* the header */
    field(&p, f, sizeof f);
    for (int i = 0; i < F_N; i++)
      if (strcmp(f, want[i]) == 0)
        col[i] = ncol;
    ncol++;
  }
  for (int i = 0; i < F_NEEDED; i++)
    if (col[i] < 0) {
      rp_errf(err, errlen, "line 1: no column %s (expected the cost.csv of a "
          "revprof run)", want[i]);
      return REVPROF_EINVAL;
    }
  while (*p) {
    char v[F_N][128] = {{0}};
    int rank, k;
    double count, el, cost;
    if (*p == '\n')
      p++;
    if (*p == '\r')
      p++;
    if (*p == '\0')
      break;
    line++;
    for (int cn = 0; *p && *p != '\n'; cn++) {
      field(&p, f, sizeof f);
      for (int i = 0; i < F_N; i++)
        if (cn == col[i])
          memcpy(v[i], f, sizeof f);
    }
    double rk;
    if (!rp_parse_double(v[F_RANK], &rk))
      continue; /* a summary row ("all") */
    rank = (int)rk;
    k = rp_ic_kind_of(v[F_KIND]);
    if (k < 0)
      continue; /* "total" and kinds of a later version */
    if (rk != (double)rank || rank < 0 || rank > 1 << 24 ||
        !rp_parse_double(v[F_COUNT], &count) || count < 0.0 ||
        !rp_parse_double(v[F_ELAPSED], &el) || !(el > 0.0)) {
      rp_errf(err, errlen, "line %d: expected rank >= 0, count >= 0 and "
          "elapsed_s > 0", line);
      free(r);
      free(c);
      return REVPROF_EINVAL;
    }
    if (rank >= nranks) {
      size_t n0 = (size_t)nranks * RP_IC_KINDS,
             n1 = (size_t)(rank + 1) * RP_IC_KINDS;
      double *nr = realloc(r, n1 * sizeof *nr);
      if (nr)
        r = nr;
      double *nc = nr ? realloc(c, n1 * sizeof *nc) : NULL;
      if (nc)
        c = nc;
      if (nr == NULL || nc == NULL) {
        rp_errf(err, errlen, "out of memory");
        free(r);
        free(c);
        return REVPROF_ENOMEM;
      }
      for (size_t i = n0; i < n1; i++) {
        r[i] = 0.0;
        c[i] = -1.0;
      }
      nranks = rank + 1;
    }
    r[(size_t)rank * RP_IC_KINDS + (size_t)k] = count / el;
    if (count > 0.0 && timed_from_events(v[F_FROM]) &&
        rp_parse_double(v[F_COST], &cost) && cost > 0.0 && isfinite(cost))
      c[(size_t)rank * RP_IC_KINDS + (size_t)k] = cost;
  }
  if (nranks == 0) {
    rp_errf(err, errlen, "no rank's rows (expected the cost.csv of a revprof "
        "run)");
    return REVPROF_EINVAL;
  }
  *rates = r;
  if (costs)
    *costs = c;
  else
    free(c);
  return nranks;
}

/* ---------------------------------------------------------- regulation */

rp_ic_action rp_ic_regulate(rp_ic_reg *r, double share, int lowered) {
  if (!(r->bound > 0.0))
    return RP_IC_KEEP;
  if (share > r->bound) {
    r->calm = 0;
    return RP_IC_LOWER;
  }
  if (share < RP_IC_LOW * r->bound) {
    if (++r->calm >= RP_IC_HOLD && lowered) {
      r->calm = 0;
      return RP_IC_RAISE;
    }
    return RP_IC_KEEP;
  }
  r->calm = 0;
  return RP_IC_KEEP;
}

int rp_ic_fits(double share, double add, double bound) {
  return share + add <= RP_IC_TARGET * bound;
}

/* A candidate as rp_ic_pick orders them. */
typedef struct pick_key {
  double save, per_call;
  size_t i;
} pick_key;

static int by_saving(const void *a, const void *b) {
  const pick_key *x = a, *y = b;
  if (x->save != y->save)
    return x->save > y->save ? -1 : 1;
  if (x->per_call != y->per_call)
    return x->per_call < y->per_call ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

size_t rp_ic_pick(const rp_ic_cand *c, size_t n, double excess, size_t *out,
                  size_t max) {
  size_t m = 0, k = 0;
  pick_key *key = malloc((n ? n : 1) * sizeof *key);
  if (key == NULL)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!c[i].off && c[i].calls > 0.0 && c[i].saving > 0.0)
      key[m++] = (pick_key){c[i].calls * c[i].saving, c[i].per_call, i};
  qsort(key, m, sizeof *key, by_saving);
  double saved = 0.0;
  for (size_t i = 0; i < m && k < max && saved < excess; i++) {
    out[k++] = key[i].i;
    saved += key[i].save;
  }
  free(key);
  return k;
}

int rp_ic_sample_lower(const rp_sample_spec *cur, rp_sample_spec *out) {
  rp_sample_spec s = *cur;
  switch (cur->kind) {
  case RP_SAMPLE_ALL:
    memset(&s, 0, sizeof s);
    s.kind = RP_SAMPLE_RANDOM;
    s.p = 0.5;
    break;
  case RP_SAMPLE_RANDOM:
    if (cur->p < 1e-6)
      return 0;
    s.p = cur->p / 2.0;
    break;
  case RP_SAMPLE_COUNTER:
    if (cur->n > RP_SAMPLE_COUNTER_MAX / 2)
      return 0;
    s.n = 2 * cur->n;
    s.jitter = 2.0 * cur->jitter;
    break;
  case RP_SAMPLE_TIMER:
    if (cur->period > 1e6)
      return 0;
    s.period = 2.0 * cur->period;
    s.jitter = 2.0 * cur->jitter;
    break;
  default:
    return 0;
  }
  *out = s;
  return 1;
}

int rp_ic_sample_raise(const rp_sample_spec *cur, const rp_sample_spec *orig,
                       rp_sample_spec *out) {
  rp_sample_spec s = *cur;
  if (cur->kind != orig->kind && !(orig->kind == RP_SAMPLE_ALL &&
                                   cur->kind == RP_SAMPLE_RANDOM))
    return 0;
  switch (cur->kind) {
  case RP_SAMPLE_RANDOM:
    if (orig->kind == RP_SAMPLE_ALL) {
      if (cur->p >= 0.5) {
        *out = *orig;
        return 1;
      }
      s.p = 2.0 * cur->p;
    } else {
      if (cur->p >= orig->p)
        return 0;
      s.p = fmin(2.0 * cur->p, orig->p);
    }
    break;
  case RP_SAMPLE_COUNTER:
    if (cur->n <= orig->n)
      return 0;
    s.n = cur->n / 2 < orig->n ? orig->n : cur->n / 2;
    s.jitter = s.n == orig->n ? orig->jitter : floor(cur->jitter / 2.0);
    if (s.jitter >= (double)s.n)
      s.jitter = (double)(s.n - 1);
    break;
  case RP_SAMPLE_TIMER:
    if (cur->period <= orig->period)
      return 0;
    s.period = fmax(cur->period / 2.0, orig->period);
    s.jitter = s.period == orig->period ? orig->jitter : cur->jitter / 2.0;
    break;
  default:
    return 0;
  }
  *out = s;
  return 1;
}
