/* The in-memory machine model: function and basis tables, evaluation of
 * t(fn, p, d) with its bounds, consistency checks and readable printing. */
#include "model_int.h"
#include "rp_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---------------------------------------------------------------- tables */

const char *revprof_strerror(int code) {
  switch (code) {
#define RP_ERR_CASE_(id, c, msg)                                               \
  case c:                                                                      \
    return msg;
    REVPROF_ERROR_TABLE(RP_ERR_CASE_)
#undef RP_ERR_CASE_
  default:
    return "unknown error";
  }
}

int rp_perror(const char *who, int code, const char *msg) {
  fprintf(stderr, "%s: %s\n", who,
          msg && *msg ? msg : revprof_strerror(code));
  return code;
}

static const struct {
  const char *name, *what;
  revprof_fn_kind kind;
} fn_table[REVPROF_FN_COUNT] = {
#define RP_FN_ROW_(id, name, kind, what) {name, what, REVPROF_KIND_##kind},
    REVPROF_FUNCTION_TABLE(RP_FN_ROW_)
#undef RP_FN_ROW_
};

const char *revprof_fn_name(revprof_fn fn) {
  return (unsigned)fn < REVPROF_FN_COUNT ? fn_table[fn].name : "?";
}

const char *revprof_fn_what(revprof_fn fn) {
  return (unsigned)fn < REVPROF_FN_COUNT ? fn_table[fn].what : "?";
}

revprof_fn_kind revprof_fn_kind_of(revprof_fn fn) {
  return (unsigned)fn < REVPROF_FN_COUNT ? fn_table[fn].kind
                                         : REVPROF_KIND_LOCAL;
}

revprof_fn revprof_fn_lookup(const char *name) {
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (strcmp(fn_table[i].name, name) == 0)
      return (revprof_fn)i;
  return REVPROF_FN_COUNT;
}

const char *revprof_fn_nearest(const char *name) {
  char mpi[72];
  int best = 3; /* within 2 edits: a swap of two letters is 2 */
  const char *near = NULL;
  snprintf(mpi, sizeof mpi, "MPI_%s", name);
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    int d = rp_edits(name, fn_table[i].name, 1);
    if (strncasecmp(name, "MPI_", 4) != 0) {
      int dm = rp_edits(mpi, fn_table[i].name, 1);
      d = dm < d ? dm : d;
    }
    if (d < best) {
      best = d;
      near = fn_table[i].name;
    }
  }
  return near;
}

const char *revprof_fn_hint(const char *name, char *buf, size_t len) {
  const char *near = revprof_fn_nearest(name);
  if (len > 0)
    snprintf(buf, len, near ? "did you mean %s? " : "", near);
  return buf;
}

static const struct {
  const char *name;
  int uses_p, uses_d;
  double knot;
} basis_table[REVPROF_BASIS_COUNT] = {
#define RP_BASIS_ROW_(id, name, up, ud, knot) {name, up, ud, knot},
    REVPROF_BASIS_TABLE(RP_BASIS_ROW_)
#undef RP_BASIS_ROW_
};

const char *revprof_basis_name(revprof_basis b) {
  return (unsigned)b < REVPROF_BASIS_COUNT ? basis_table[b].name : "?";
}

revprof_basis revprof_basis_lookup(const char *name) {
  for (int i = 0; i < REVPROF_BASIS_COUNT; i++)
    if (strcmp(basis_table[i].name, name) == 0)
      return (revprof_basis)i;
  return REVPROF_BASIS_COUNT;
}

int revprof_basis_uses_p(revprof_basis b) {
  return (unsigned)b < REVPROF_BASIS_COUNT && basis_table[b].uses_p;
}

int revprof_basis_uses_d(revprof_basis b) {
  return (unsigned)b < REVPROF_BASIS_COUNT && basis_table[b].uses_d;
}

double revprof_basis_knot(revprof_basis b) {
  return (unsigned)b < REVPROF_BASIS_COUNT ? basis_table[b].knot : 0.0;
}

double revprof_basis_eval(revprof_basis b, double p, double d) {
  double knot = revprof_basis_knot(b);
  if (knot > 0.0) {
    double h = p > knot ? p - knot : 0.0;
    return basis_table[b].uses_d ? h * d : h;
  }
  switch (b) {
  case REVPROF_BASIS_ONE: return 1.0;
  case REVPROF_BASIS_P: return p;
  case REVPROF_BASIS_LOG2P: return log2(p);
  case REVPROF_BASIS_P2: return p * p;
  case REVPROF_BASIS_LOG2P_2: return log2(p) * log2(p);
  case REVPROF_BASIS_SQRTP: return sqrt(p);
  case REVPROF_BASIS_INVP: return 1.0 / p;
  case REVPROF_BASIS_D: return d;
  case REVPROF_BASIS_PD: return p * d;
  case REVPROF_BASIS_LOG2PD: return log2(p) * d;
  case REVPROF_BASIS_P2D: return p * p * d;
  case REVPROF_BASIS_PM1_P_D: return (p - 1.0) / p * d;
  case REVPROF_BASIS_PM1D: return (p - 1.0) * d;
  case REVPROF_BASIS_SQRTPD: return sqrt(p) * d;
  default: break;
  }
  return 0.0;
}

/* ---------------------------------------------------------------- model */

/* A model is some 160 KiB, above glibc's mmap threshold: allocated with
 * malloc and freed, it would raise that threshold (and the heap's trim
 * threshold) for the rest of the process. librevprof frees its model at
 * start-up in compensate and sample modes, inside the program it measures,
 * whose own allocations would then behave as they do not natively. So the
 * model's pages come from the kernel directly and go back to it. */
static size_t model_bytes(void) {
  long page = sysconf(_SC_PAGESIZE);
  size_t pg = page > 0 ? (size_t)page : 4096;
  return (sizeof(revprof_model) + pg - 1) / pg * pg;
}

revprof_model *revprof_model_alloc(void) {
  void *p = mmap(NULL, model_bytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  revprof_model *m = p == MAP_FAILED ? NULL : p; /* zero-filled */
  if (m) {
    m->format_version = REVPROF_MODEL_VERSION;
    snprintf(m->method, sizeof m->method, "default");
    m->machine_compute_spread = -1.0;
  }
  return m;
}

void revprof_model_free(revprof_model *m) {
  if (m)
    munmap(m, model_bytes());
}

int revprof_model_has(const revprof_model *m, revprof_fn fn) {
  return m && (unsigned)fn < REVPROF_FN_COUNT && m->fn[fn].nregimes > 0;
}

revprof_fn revprof_fn_fallback(revprof_fn fn) {
  switch (fn) {
  case REVPROF_FN_ISEND: return REVPROF_FN_SEND;
  case REVPROF_FN_IRECV: return REVPROF_FN_RECV;
  /* a completed receive's own cost: what a late receive costs (the rule
     of format 1 models); the gap has none: without it, messages do not
     queue at the endpoints */
  case REVPROF_FN_WAIT: return REVPROF_FN_IRECV;
  case REVPROF_FN_IBARRIER: return REVPROF_FN_BARRIER;
  case REVPROF_FN_IBCAST: return REVPROF_FN_BCAST;
  /* a member's own part of a rooted collective: the whole call's time
     (the rule of models without these rows) */
  case REVPROF_FN_BCAST_ROOT: return REVPROF_FN_BCAST;
  case REVPROF_FN_BCAST_LATE: return REVPROF_FN_BCAST;
  case REVPROF_FN_REDUCE_LATE: return REVPROF_FN_REDUCE;
  case REVPROF_FN_IALLREDUCE: return REVPROF_FN_ALLREDUCE;
  case REVPROF_FN_IALLTOALL: return REVPROF_FN_ALLTOALL;
  case REVPROF_FN_GATHERV: return REVPROF_FN_GATHER;
  case REVPROF_FN_SCATTERV: return REVPROF_FN_SCATTER;
  case REVPROF_FN_ALLGATHERV: return REVPROF_FN_ALLGATHER;
  case REVPROF_FN_ALLTOALLV: return REVPROF_FN_ALLTOALL;
  case REVPROF_FN_REDUCE_SCATTER_BLOCK: return REVPROF_FN_REDUCE_SCATTER;
  case REVPROF_FN_REDUCE_SCATTER: return REVPROF_FN_ALLREDUCE;
  case REVPROF_FN_EXSCAN: return REVPROF_FN_SCAN;
  case REVPROF_FN_SCAN: return REVPROF_FN_ALLREDUCE;
  /* one-sided: an operation completed at the target is about a message's
     transit; a fence about a barrier */
  case REVPROF_FN_GET: return REVPROF_FN_PUT;
  case REVPROF_FN_ACCUMULATE: return REVPROF_FN_PUT;
  case REVPROF_FN_PUT: return REVPROF_FN_LATENCY;
  case REVPROF_FN_WIN_LOCK: return REVPROF_FN_LATENCY;
  case REVPROF_FN_WIN_FENCE: return REVPROF_FN_BARRIER;
  /* over p - 1 neighbours each, a neighbourhood collective is its
     all-members form */
  case REVPROF_FN_NEIGHBOR_ALLGATHER: return REVPROF_FN_ALLGATHER;
  case REVPROF_FN_NEIGHBOR_ALLTOALL: return REVPROF_FN_ALLTOALL;
  /* I/O falls back only on I/O: a model without I/O rows leaves the calls
     uncosted (counted in the report's "not predicted" line) */
  case REVPROF_FN_FILE_READ_AT_ALL: return REVPROF_FN_FILE_READ_AT;
  case REVPROF_FN_FILE_WRITE_AT_ALL: return REVPROF_FN_FILE_WRITE_AT;
  case REVPROF_FN_FILE_READ_AT: return REVPROF_FN_FILE_WRITE_AT;
  case REVPROF_FN_FILE_CLOSE: return REVPROF_FN_FILE_OPEN;
  /* sync, set_size, preallocate, set_view and delete have none: no other
     I/O row measures what they do */
  default: return REVPROF_FN_COUNT;
  }
}

revprof_fn revprof_model_row_for(const revprof_model *m, revprof_fn fn) {
  int hops = 0;
  while (fn != REVPROF_FN_COUNT && !revprof_model_has(m, fn) &&
         hops++ < REVPROF_FN_COUNT)
    fn = revprof_fn_fallback(fn);
  return revprof_model_has(m, fn) ? fn : REVPROF_FN_COUNT;
}

const revprof_regime *revprof_model_regime(const revprof_model *m,
                                           revprof_fn fn, double d) {
  if (!revprof_model_has(m, fn))
    return NULL;
  const revprof_fnmodel *f = &m->fn[fn];
  int i = 0;
  while (i < f->nregimes - 1 && d > f->regime[i].dmax) /* few regimes */
    i++;
  return &f->regime[i];
}

double rp_regime_sum(const revprof_regime *r, const double *coef, double p,
                     double d) {
  double t = 0.0;
  for (int k = 0; k < r->nterms; k++)
    t += coef[k] * revprof_basis_eval(r->form[k], p, d);
  return t;
}

static double eval_coef(const revprof_regime *r, const double *coef,
                        const double *basis) {
  double t = 0.0;
  for (int k = 0; k < r->nterms; k++)
    t += coef[k] * basis[k];
  return t;
}

int revprof_fnmodel_top_of_range(const revprof_fnmodel *fm, double *factor) {
  if (fm == NULL || fm->nregimes < 2)
    return 0;
  const revprof_regime *r = &fm->regime[fm->nregimes - 1], *b = r - 1;
  if (r->cv_error >= 0.0 || r->n < 1 || !(b->dmax > 0.0) ||
      r->nterms != b->nterms || !(b->avg[0] > 0.0))
    return 0;
  double f = r->avg[0] / b->avg[0];
  for (int a = 0; a < r->nterms; a++)
    if (r->form[a] != b->form[a] ||
        !(fabs(r->avg[a] - f * b->avg[a]) <= 1e-9 * fabs(r->avg[a])))
      return 0;
  if (factor)
    *factor = f;
  return 1;
}

int revprof_model_eval(const revprof_model *m, revprof_fn fn, double p,
                       double d, double out[3]) {
  const revprof_regime *r = revprof_model_regime(m, fn, d);
  if (r == NULL) {
    out[0] = out[1] = out[2] = 0.0;
    return REVPROF_ENOFUNC;
  }
  double basis[REVPROF_MAX_TERMS];
  if (p < 1.0)
    p = 1.0; /* keeps log2(p) and 1/p finite */
  for (int k = 0; k < r->nterms; k++)
    basis[k] = revprof_basis_eval(r->form[k], p, d);
  double avg = eval_coef(r, r->avg, basis);
  double lo = eval_coef(r, r->min, basis);
  double hi = eval_coef(r, r->max, basis);
  if (avg < 0.0)
    avg = 0.0;
  out[REVPROF_AVG] = avg;
  out[REVPROF_MIN] = lo < 0.0 ? 0.0 : (lo > avg ? avg : lo);
  out[REVPROF_MAX] = hi < avg ? avg : hi;
  return 0;
}

static double axis_factor(double x, double lo, double hi) {
  if (x > hi)
    return x / hi;
  if (x < lo)
    return lo / x;
  return 1.0;
}

int revprof_model_outside(const revprof_model *m, revprof_fn fn, double p,
                          double d, double *fp, double *fd) {
  double a = 1.0, b = 1.0;
  int rc;
  if (!revprof_model_has(m, fn))
    rc = REVPROF_ENOFUNC;
  else if (!m->fn[fn].range.known)
    rc = REVPROF_RANGE_UNKNOWN;
  else {
    const revprof_range *r = &m->fn[fn].range;
    a = axis_factor(p < 1.0 ? 1.0 : p, r->pmin, r->pmax);
    b = axis_factor((d < 0.0 ? 0.0 : d) + 1.0, r->dmin + 1.0, r->dmax + 1.0);
    rc = a > 1.0 || b > 1.0 ? REVPROF_OUTSIDE : REVPROF_INSIDE;
  }
  if (fp)
    *fp = a;
  if (fd)
    *fd = b;
  return rc;
}

int revprof_model_eval_x(const revprof_model *m, revprof_fn fn, double p,
                         double d, double out[3], double how_far[2]) {
  int rc = revprof_model_eval(m, fn, p, d, out);
  if (rc)
    return rc;
  return revprof_model_outside(m, fn, p, d, how_far ? &how_far[0] : NULL,
                               how_far ? &how_far[1] : NULL);
}

int revprof_range_format(const revprof_range *r, char *buf, size_t len) {
  if (!r->known)
    return snprintf(buf, len, "range unknown");
  return snprintf(buf, len, "p %.0f..%.0f, d %.0f..%.0f", r->pmin, r->pmax,
                  r->dmin, r->dmax);
}

double revprof_model_overhead(const revprof_model *m, const char *name,
                              double fallback) {
  for (int i = 0; m && i < m->noverhead; i++)
    if (strcmp(m->overhead[i].name, name) == 0)
      return m->overhead[i].seconds;
  return fallback;
}

/* ---------------------------------------------------------------- checks */

void rp_errf(char *err, size_t errlen, const char *fmt, ...) {
  if (err == NULL || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static int check_coefs(const double *c, int n, const char *name,
                       const char *fn, int reg, const char *field, char *err,
                       size_t errlen) {
  for (int k = 0; k < n; k++) {
    if (!isfinite(c[k])) {
      rp_errf(err, errlen, "%s: functions.%s[%d].%s[%d]: not a finite number",
              name, fn, reg + 1, field, k + 1);
      return REVPROF_EFIELD;
    }
    if (c[k] < 0.0) {
      rp_errf(err, errlen,
              "%s: functions.%s[%d].%s[%d]: coefficient is negative (%g)",
              name, fn, reg + 1, field, k + 1, c[k]);
      return REVPROF_ERANGE;
    }
  }
  return 0;
}

static int check_range(const revprof_range *r, const char *name,
                       const char *fn, char *err, size_t errlen) {
  if (!r->known)
    return 0;
  if (!(r->pmin >= 1.0 && r->pmax >= r->pmin && isfinite(r->pmax) &&
        r->pmin == floor(r->pmin) && r->pmax == floor(r->pmax))) {
    rp_errf(err, errlen,
            "%s: functions.%s.range.p: {%g, %g} is not a range of group "
            "sizes (need whole numbers 1 <= pmin <= pmax)",
            name, fn, r->pmin, r->pmax);
    return REVPROF_ERANGE;
  }
  if (!(r->dmin >= 0.0 && r->dmax >= r->dmin && isfinite(r->dmax))) {
    rp_errf(err, errlen,
            "%s: functions.%s.range.d: {%g, %g} is not a range of sizes "
            "(need 0 <= dmin <= dmax, finite)",
            name, fn, r->dmin, r->dmax);
    return REVPROF_ERANGE;
  }
  return 0;
}

/* Evaluates regime i's three equations on a grid over the range and 4 times
 * beyond it (see revprof_model_check). */
static int check_times(const revprof_fnmodel *fm, int i, const char *name,
                       const char *fn, char *err, size_t errlen) {
  const revprof_regime *r = &fm->regime[i];
  const revprof_range *rg = &fm->range;
  double plim = rg->known ? 4.0 * rg->pmax : 256.0;
  double dlim = rg->known ? 4.0 * (rg->dmax + 1.0) : 67108864.0;
  double dlo = i == 0 ? 0.0 : r->dmin;
  double dhi = r->dmax < dlim ? r->dmax : dlim;
  if (dhi < dlo)
    dhi = dlo; /* a regime beyond the limit: its first size only */
  for (double p = 1.0;; p = p * 2.0 > plim ? plim : p * 2.0) {
    for (double d = dlo;; d = d * 2.0 + 1.0 > dhi ? dhi : d * 2.0 + 1.0) {
      for (int w = 0; w < 3; w++) {
        const double *c = w == 0 ? r->avg : w == 1 ? r->min : r->max;
        double t = rp_regime_sum(r, c, p, d);
        if (!(t >= 0.0 && t <= REVPROF_TIME_MAX)) {
          rp_errf(err, errlen,
                  "%s: functions.%s[%d].%s: predicts %g s at p = %g, d = %g "
                  "(need a finite time, 0 to %g s, over the measured range "
                  "and 4 times beyond)",
                  name, fn, i + 1, w == 0 ? "avg" : w == 1 ? "min" : "max", t,
                  p, d, REVPROF_TIME_MAX);
          return REVPROF_ERANGE;
        }
      }
      if (d >= dhi)
        break;
    }
    if (p >= plim)
      break;
  }
  return 0;
}

int revprof_model_check(const revprof_model *m, const char *name, char *err,
                        size_t errlen) {
  if (m == NULL)
    return REVPROF_EINVAL;
  for (int f = 0; f < REVPROF_FN_COUNT; f++) {
    const revprof_fnmodel *fm = &m->fn[f];
    const char *fn = revprof_fn_name((revprof_fn)f);
    if (fm->nregimes < 0 || fm->nregimes > REVPROF_MAX_REGIMES) {
      rp_errf(err, errlen, "%s: functions.%s: %d regimes (at most %d)", name,
              fn, fm->nregimes, REVPROF_MAX_REGIMES);
      return REVPROF_ERANGE;
    }
    for (int i = 0; i < fm->nregimes; i++) {
      const revprof_regime *r = &fm->regime[i];
      int rc;
      if (r->nterms < 1 || r->nterms > REVPROF_MAX_TERMS) {
        rp_errf(err, errlen, "%s: functions.%s[%d].form: %d terms (1 to %d)",
                name, fn, i + 1, r->nterms, REVPROF_MAX_TERMS);
        return REVPROF_EFIELD;
      }
      for (int k = 0; k < r->nterms; k++) {
        if ((unsigned)r->form[k] >= REVPROF_BASIS_COUNT) {
          rp_errf(err, errlen, "%s: functions.%s[%d].form[%d]: unknown term",
                  name, fn, i + 1, k + 1);
          return REVPROF_EFIELD;
        }
        for (int j = 0; j < k; j++)
          if (r->form[j] == r->form[k]) {
            rp_errf(err, errlen,
                    "%s: functions.%s[%d].form[%d]: term \"%s\" repeated",
                    name, fn, i + 1, k + 1, revprof_basis_name(r->form[k]));
            return REVPROF_EFIELD;
          }
      }
      if ((rc = check_coefs(r->avg, r->nterms, name, fn, i, "avg", err,
                            errlen)) ||
          (rc = check_coefs(r->err, r->nterms, name, fn, i, "err", err,
                            errlen)) ||
          (rc = check_coefs(r->min, r->nterms, name, fn, i, "min", err,
                            errlen)) ||
          (rc = check_coefs(r->max, r->nterms, name, fn, i, "max", err,
                            errlen)))
        return rc;
      if (!(r->dmin >= 0.0) || !(r->dmax >= r->dmin)) {
        rp_errf(err, errlen,
                "%s: functions.%s[%d]: bad size range dmin = %g, dmax = %g "
                "(need 0 <= dmin <= dmax)",
                name, fn, i + 1, r->dmin, r->dmax);
        return REVPROF_ERANGE;
      }
      if (i > 0) {
        const revprof_regime *q = &fm->regime[i - 1];
        if (r->dmin <= q->dmax) {
          rp_errf(err, errlen,
                  "%s: functions.%s[%d]: regimes overlap or are unsorted "
                  "(dmin = %g is not above dmax = %g of regime %d)",
                  name, fn, i + 1, r->dmin, q->dmax, i);
          return REVPROF_ERANGE;
        }
        if (r->dmin > q->dmax + 1.0) {
          rp_errf(err, errlen,
                  "%s: functions.%s[%d]: gap between regimes (dmin = %g, "
                  "previous dmax = %g; need dmin = previous dmax + 1)",
                  name, fn, i + 1, r->dmin, q->dmax);
          return REVPROF_ERANGE;
        }
      }
      if (i < fm->nregimes - 1 && isinf(r->dmax)) {
        rp_errf(err, errlen,
                "%s: functions.%s[%d]: dmax missing (only the last regime "
                "may be open-ended)",
                name, fn, i + 1);
        return REVPROF_EFIELD;
      }
      if (r->n < 0) {
        rp_errf(err, errlen, "%s: functions.%s[%d].n: negative", name, fn,
                i + 1);
        return REVPROF_ERANGE;
      }
    }
    int rc = check_range(&fm->range, name, fn, err, errlen);
    for (int i = 0; rc == 0 && i < fm->nregimes; i++)
      rc = check_times(fm, i, name, fn, err, errlen);
    if (rc)
      return rc;
  }
  for (int i = 0; i < m->noverhead; i++)
    if (!isfinite(m->overhead[i].seconds) || m->overhead[i].seconds < 0.0) {
      rp_errf(err, errlen, "%s: overhead.%s: must be a finite number >= 0",
              name, m->overhead[i].name);
      return REVPROF_ERANGE;
    }
  return 0;
}

/* ------------------------------------------------------------- printing */

int revprof_regime_format(const revprof_regime *r, int which, double scale,
                          char *buf, size_t len) {
  const double *c = which == REVPROF_MIN   ? r->min
                    : which == REVPROF_MAX ? r->max
                                           : r->avg;
  size_t used = 0;
  int total = 0;
  for (int k = 0; k < r->nterms; k++) {
    const char *b = revprof_basis_name(r->form[k]);
    int n;
    if (r->form[k] == REVPROF_BASIS_ONE)
      n = snprintf(buf + used, used < len ? len - used : 0, "%s%.4g",
                   k ? " + " : "", c[k] * scale);
    else
      n = snprintf(buf + used, used < len ? len - used : 0, "%s%.4g*%s",
                   k ? " + " : "", c[k] * scale, b);
    if (n < 0)
      return n;
    total += n;
    used += (size_t)n;
    if (used > len)
      used = len;
  }
  return total;
}

static void print_range(const revprof_regime *r, int first, int last,
                        FILE *f) {
  if (first && last)
    fprintf(f, "all d");
  else if (first)
    fprintf(f, "d <= %.0f", r->dmax);
  else if (last)
    fprintf(f, "d >= %.0f", r->dmin);
  else
    fprintf(f, "%.0f <= d <= %.0f", r->dmin, r->dmax);
}

void revprof_model_print(const revprof_model *m, FILE *f) {
  char buf[512];
  fprintf(f, "machine: %s\n", m->machine_name[0] ? m->machine_name : "?");
  if (m->machine_mpi[0])
    fprintf(f, "mpi:     %s\n", m->machine_mpi);
  if (m->machine_filesystem[0])
    fprintf(f, "file system: %s (file I/O rows)\n", m->machine_filesystem);
  if (m->machine_date[0])
    fprintf(f, "date:    %s\n", m->machine_date);
  if (m->machine_ranks)
    fprintf(f, "ranks:   %d\n", m->machine_ranks);
  if (m->machine_compute_spread >= 0)
    fprintf(f, "compute spread: %.3g (run to run; librevprof's least "
               "[min, max] of measured compute)\n",
            m->machine_compute_spread);
  if (isinf(m->machine_eager_limit))
    fprintf(f, "eager limit: none (no MPI_Send probed waited for its "
               "receive)\n");
  else if (m->machine_eager_limit > 0)
    fprintf(f, "eager limit: %.0f B (MPI_Send from this size waits for its "
               "receive to be posted)\n",
            m->machine_eager_limit);
  else
    fprintf(f, "eager limit: not measured (standard sends are costed as "
               "eager)\n");
  if (m->machine_notes[0])
    fprintf(f, "notes:   %s\n", m->machine_notes);
  fprintf(f, "method:  %s\n", m->method);
  fprintf(f, "format:  revprof-model %d%s\n", m->format_version,
          m->format_version < 2 && !revprof_model_has(m, REVPROF_FN_WAIT) &&
                  !revprof_model_has(m, REVPROF_FN_GAP)
              ? " (made before the MPI_Wait and gap rows: re-characterize "
                "for them)"
              : "");
  int unknown = 0;
  for (int fn = 0; fn < REVPROF_FN_COUNT; fn++)
    unknown += m->fn[fn].nregimes > 0 && !m->fn[fn].range.known;
  if (unknown)
    fprintf(f, "range:   unknown for %d function(s) (model written before "
               "revprof recorded measured ranges: extrapolation is not "
               "detected)\n",
            unknown);
  fprintf(f, "times in microseconds; p = group size, d = bytes; "
             "coefficient (standard error)\n");
  for (int fn = 0; fn < REVPROF_FN_COUNT; fn++) {
    const revprof_fnmodel *fm = &m->fn[fn];
    if (fm->nregimes == 0)
      continue;
    fprintf(f, "\n%s", revprof_fn_name((revprof_fn)fn));
    if (fm->range.known) {
      revprof_range_format(&fm->range, buf, sizeof buf);
      fprintf(f, "  (measured %s; outside: extrapolated)", buf);
    }
    fprintf(f, "\n");
    for (int i = 0; i < fm->nregimes; i++) {
      const revprof_regime *r = &fm->regime[i];
      fprintf(f, "  ");
      print_range(r, i == 0, i == fm->nregimes - 1, f);
      fprintf(f, ":  t = ");
      for (int k = 0; k < r->nterms; k++) {
        fprintf(f, "%s(%.4g ± %.2g)", k ? " + " : "", r->avg[k] * 1e6,
                r->err[k] * 1e6);
        if (r->form[k] != REVPROF_BASIS_ONE)
          fprintf(f, "*%s", revprof_basis_name(r->form[k]));
      }
      fprintf(f, "\n");
      revprof_regime_format(r, REVPROF_MIN, 1e6, buf, sizeof buf);
      fprintf(f, "      min = %s\n", buf);
      revprof_regime_format(r, REVPROF_MAX, 1e6, buf, sizeof buf);
      fprintf(f, "      max = %s\n", buf);
      double factor;
      if (r->cv_error >= 0.0)
        fprintf(f, "      %d points, cross-validated error %.1f %%\n", r->n,
                r->cv_error * 100.0);
      else if (i == fm->nregimes - 1 &&
               revprof_fnmodel_top_of_range(fm, &factor))
        fprintf(f, "      %d points, top of the range: the regime above "
                   "times %.3g (not cross-validated)\n",
                r->n, factor);
      else
        fprintf(f, "      %d points\n", r->n);
    }
  }
  if (m->noverhead) {
    fprintf(f, "\noverhead (microseconds per event)\n");
    for (int i = 0; i < m->noverhead; i++)
      fprintf(f, "  %-20s %.4g\n", m->overhead[i].name,
              m->overhead[i].seconds * 1e6);
  }
}
