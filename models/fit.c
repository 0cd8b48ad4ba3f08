/* Least-squares fitting of per-function equations (GSL): seed 003's paper
 * method and the default method (term search, LOO-CV, breakpoints). The
 * algorithm is described step by step in README.md, "Fitting: the exact
 * algorithm". */
#include "model_int.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_vector.h>
#include <gsl/gsl_version.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* gsl_multifit_wlinear_tsvd (with its rank) and fits smaller than the
 * workspace (n <= nmax, p <= pmax) both need GSL 2.3 or later. */
#if !defined(GSL_MAJOR_VERSION) || GSL_MAJOR_VERSION < 2 ||                    \
    (GSL_MAJOR_VERSION == 2 && GSL_MINOR_VERSION < 3)
#error "revprof's fitter needs GSL 2.3 or later"
#endif

#define NB REVPROF_BASIS_COUNT
#define MAXT REVPROF_MAX_TERMS

/* ------------------------------------------------------------ constants */

/* A negative coefficient whose largest relative contribution
 * max_i |c * basis(p_i, d_i)| / y_i is below this is round-off: set to 0. */
static const double neg_tol = 1e-6;
/* Two cross-validated errors e1 <= e2 count as equal when
 * e2 <= e1 * (1 + cv_tol_rel) + cv_tol_abs (parsimony and pruning). */
static const double cv_tol_rel = 0.05;
static const double cv_tol_abs = 5e-4;
/* Pruning: a term is worth trying to drop when its largest relative
 * contribution is below prune_contrib or its t value below prune_t. */
static const double prune_contrib = 0.01;
static const double prune_t = 2.0;
/* Breakpoints: each extra regime must also cut the mean CV error by at least
 * this much in absolute terms (0.001 = 0.1 percentage point). */
static const double split_min_abs = 1e-3;
/* ... and do so significantly: the mean of the paired per-point differences
 * of LOO errors must be at least this many standard errors, the one-sided
 * 5 % level of Student's t at ~20 points (the question is "better", not
 * "different"). (3 kept real protocol switches out of the shipped data's
 * fits: every size above 16 B of its MPI_Allreduce was one regime, 26 % CV
 * error; 2 found most of them, but still left MPI_Send's 4 KiB switch in
 * one regime: a jump's gain sits on the few points around it, which
 * widens the standard error.) */
static const double split_t = 1.7;
/* Cholesky pivot (of the unit-diagonal scaled Gram matrix) below which the
 * terms count as collinear over the data. */
static const double pivot_tol = 1e-10;
/* Singular values below this times the largest are discarded by GSL; a fit
 * that loses one is rejected as not identifiable. */
static const double svd_tol = 1e-12;
/* A point with leverage above this makes the leave-one-out error undefined. */
static const double leverage_max = 1.0 - 1e-8;
/* The top of the measured range: its largest sizes (fewer than min_sizes)
 * become a regime of their own when the last regime's equation misses each
 * of them, on the same side, by more than tail_min and tail_factor times
 * its CV error, and their fastest (slowest) repetition is still above
 * (below) the equation: a cache or protocol cliff at the end of the range,
 * which no segment may hold, not a size measured while the machine was
 * busy. */
static const double tail_min = 0.25, tail_factor = 3.0;
/* Distinct message sizes are merged into at most this many groups before the
 * breakpoint search (its table is groups^2). */
#define MAX_GROUPS 160

/* --------------------------------------------------------------- options */

void revprof_fit_options_init(revprof_fit_options *o) {
  memset(o, 0, sizeof *o);
  o->method = REVPROF_METHOD_DEFAULT;
  o->paper_split = 32.0;
  o->min_sizes = 4;
  o->max_regimes = 6;
  o->regime_gain = 0.1;
}

const char *revprof_method_name(revprof_method m) {
  return m == REVPROF_METHOD_PAPER ? "paper" : "default";
}

int revprof_method_lookup(const char *name, revprof_method *out) {
  if (strcmp(name, "default") == 0)
    *out = REVPROF_METHOD_DEFAULT;
  else if (strcmp(name, "paper") == 0)
    *out = REVPROF_METHOD_PAPER;
  else
    return REVPROF_EINVAL;
  return 0;
}

/* ------------------------------------------------------ points and forms */

enum { COL_MED, COL_MIN, COL_MAX, COL_MEAN, NCOL };
enum wmode { W_REL, W_SIGMA }; /* weights 1/y^2, or 1/sigma^2 */

typedef struct fpt {
  double p, d;      /* group size, bytes */
  double y[NCOL];   /* median, min, max, mean time (seconds) */
  double yw[NCOL];  /* the same with zeros raised to the column's floor */
  double sigma;     /* standard error of the mean (seconds); 0 if unknown */
} fpt;

typedef struct form {
  int k; /* number of terms */
  revprof_basis t[MAXT];
} form;

typedef struct fitres {
  double c[MAXT];         /* coefficients */
  double cov[MAXT][MAXT]; /* (X^T W X)^-1, not scaled by the residuals */
  double chi2;            /* weighted sum of squared residuals */
  double cv;              /* mean |loo_i| / y_i; -1 if undefined */
} fitres;

static int form_has(const form *f, revprof_basis b) {
  for (int a = 0; a < f->k; a++)
    if (f->t[a] == b)
      return 1;
  return 0;
}

static void form_drop(form *f, int a) {
  for (int j = a; j + 1 < f->k; j++)
    f->t[j] = f->t[j + 1];
  f->k--;
}

static void form_text(const form *f, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int a = 0; a < f->k && used < len; a++) {
    int w = snprintf(buf + used, len - used, "%s%s", a ? " + " : "",
                     revprof_basis_name(f->t[a]));
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

/* 1 when error e is as good as the best error for model selection. */
static int cv_close(double best, double e) {
  return e <= best * (1.0 + cv_tol_rel) + cv_tol_abs;
}

static int cmp_fpt(const void *a, const void *b) {
  const fpt *x = a, *y = b;
  if (x->d != y->d)
    return x->d < y->d ? -1 : 1;
  return (x->p > y->p) - (x->p < y->p);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ------------------------------------------------------------- workspace */

/* Everything one fit needs, allocated once for the largest function and
 * reused: GSL accepts matrices smaller than its workspace (GSL >= 2.2). */
typedef struct fitws {
  size_t nmax;                          /* points the buffers hold */
  gsl_multifit_linear_workspace *lin;   /* nmax x MAXT */
  gsl_matrix *X, *cov;                  /* nmax x MAXT, MAXT x MAXT */
  gsl_vector *y, *w, *c;                /* nmax, nmax, MAXT */
  fpt *pt;                              /* points being fitted, sorted */
  double *z;                            /* nmax x NB: basis / y (default) */
  double *pv;                           /* distinct group sizes */
  int *pidx, *pcnt;                     /* point's index into pv; counts */
  size_t *gstart;                       /* first point of each d group */
  int *gnd;                             /* distinct d values per group */
  int act[NB], nact; /* the terms the function's data can use (no hinge
                        whose knot is outside its group sizes) */
} fitws;

static void ws_free(fitws *ws) {
  gsl_multifit_linear_free(ws->lin); /* NULL is fine for these */
  gsl_matrix_free(ws->X);
  gsl_matrix_free(ws->cov);
  gsl_vector_free(ws->y);
  gsl_vector_free(ws->w);
  gsl_vector_free(ws->c);
  free(ws->pt);
  free(ws->z);
  free(ws->pv);
  free(ws->pidx);
  free(ws->pcnt);
  free(ws->gstart);
  free(ws->gnd);
  memset(ws, 0, sizeof *ws);
}

static int ws_alloc(fitws *ws, size_t nmax) {
  memset(ws, 0, sizeof *ws);
  ws->nmax = nmax;
  ws->lin = gsl_multifit_linear_alloc(nmax, MAXT);
  ws->X = gsl_matrix_alloc(nmax, MAXT);
  ws->cov = gsl_matrix_alloc(MAXT, MAXT);
  ws->y = gsl_vector_alloc(nmax);
  ws->w = gsl_vector_alloc(nmax);
  ws->c = gsl_vector_alloc(MAXT);
  ws->pt = malloc(nmax * sizeof *ws->pt);
  ws->z = malloc(nmax * NB * sizeof *ws->z);
  ws->pv = malloc(nmax * sizeof *ws->pv);
  ws->pidx = malloc(nmax * sizeof *ws->pidx);
  ws->pcnt = malloc(nmax * sizeof *ws->pcnt);
  ws->gstart = malloc((nmax + 1) * sizeof *ws->gstart);
  ws->gnd = malloc(nmax * sizeof *ws->gnd);
  if (!ws->lin || !ws->X || !ws->cov || !ws->y || !ws->w || !ws->c ||
      !ws->pt || !ws->z || !ws->pv || !ws->pidx || !ws->pcnt ||
      !ws->gstart || !ws->gnd) {
    ws_free(ws);
    return REVPROF_ENOMEM;
  }
  return 0;
}

/* ------------------------------------------------- weighted fits on GSL */

/* Largest |basis_a(p_i, d_i)| / y_i over the points, per term of f: the
 * relative contribution of a unit coefficient. */
static void term_scale(const fpt *pt, size_t n, const form *f, int col,
                       double *scale) {
  for (int a = 0; a < f->k; a++) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
      double v = fabs(revprof_basis_eval(f->t[a], pt[i].p, pt[i].d)) /
                 pt[i].yw[col];
      if (v > m)
        m = v;
    }
    scale[a] = m;
  }
}

/* Zeroes negligible negative coefficients; returns the index of the most
 * negative remaining one (by relative contribution), or -1 if none. */
static int worst_negative(double *c, const double *scale, int k) {
  int worst = -1;
  double wv = 0.0;
  for (int a = 0; a < k; a++) {
    if (!(c[a] < 0.0))
      continue;
    double v = -c[a] * scale[a];
    if (v <= neg_tol)
      c[a] = 0.0;
    else if (v > wv) {
      wv = v;
      worst = a;
    }
  }
  return worst;
}

/* Weighted least squares on GSL over pt[0..n): column col of the points
 * against the terms of f, weights 1/yw^2 (W_REL) or 1/sigma^2 (W_SIGMA).
 * Columns are scaled to unit maximum before the SVD and unscaled after.
 * Also computes the leave-one-out relative error through the hat matrix:
 * loo_i = r_i / (1 - h_ii), h_ii = w_i x_i^T cov x_i, cv = mean |loo_i|/y_i.
 * Returns 0, or REVPROF_EFIT when the terms are not identifiable over the
 * data (rank deficient) or GSL fails. */
static int fit_form(fitws *ws, const fpt *pt, size_t n, const form *f,
                    int col, enum wmode wm, fitres *r) {
  int k = f->k;
  double s[MAXT];
  if (k < 1 || n < (size_t)k || n > ws->nmax)
    return REVPROF_EFIT;
  for (int a = 0; a < k; a++) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
      double v = revprof_basis_eval(f->t[a], pt[i].p, pt[i].d);
      gsl_matrix_set(ws->X, i, (size_t)a, v);
      if (fabs(v) > m)
        m = fabs(v);
    }
    if (!(m > 0.0) || !isfinite(m))
      return REVPROF_EFIT; /* term is zero over the data */
    s[a] = m;
  }
  for (size_t i = 0; i < n; i++) {
    for (int a = 0; a < k; a++)
      gsl_matrix_set(ws->X, i, (size_t)a,
                     gsl_matrix_get(ws->X, i, (size_t)a) / s[a]);
    double sw = wm == W_SIGMA ? pt[i].sigma : pt[i].yw[col];
    gsl_vector_set(ws->y, i, pt[i].y[col]);
    gsl_vector_set(ws->w, i, 1.0 / (sw * sw));
  }
  gsl_matrix_view X = gsl_matrix_submatrix(ws->X, 0, 0, n, (size_t)k);
  gsl_matrix_view cov = gsl_matrix_submatrix(ws->cov, 0, 0, (size_t)k,
                                             (size_t)k);
  gsl_vector_view y = gsl_vector_subvector(ws->y, 0, n);
  gsl_vector_view w = gsl_vector_subvector(ws->w, 0, n);
  gsl_vector_view c = gsl_vector_subvector(ws->c, 0, (size_t)k);
  size_t rank = 0;
  double chi2 = 0.0;
  int rc = gsl_multifit_wlinear_tsvd(&X.matrix, &w.vector, &y.vector, svd_tol,
                                     &c.vector, &cov.matrix, &chi2, &rank,
                                     ws->lin);
  if (rc != GSL_SUCCESS || rank < (size_t)k || !isfinite(chi2))
    return REVPROF_EFIT;
  for (int a = 0; a < k; a++) {
    r->c[a] = gsl_vector_get(&c.vector, (size_t)a) / s[a];
    for (int b = 0; b < k; b++)
      r->cov[a][b] = gsl_matrix_get(&cov.matrix, (size_t)a, (size_t)b) /
                     (s[a] * s[b]);
    if (!isfinite(r->c[a]))
      return REVPROF_EFIT;
  }
  r->chi2 = chi2;
  /* leave-one-out errors, in the scaled coordinates of the fit */
  double acc = 0.0;
  r->cv = 0.0;
  for (size_t i = 0; i < n && r->cv == 0.0; i++) {
    double x[MAXT], res = pt[i].y[col], h = 0.0;
    for (int a = 0; a < k; a++) {
      x[a] = gsl_matrix_get(ws->X, i, (size_t)a);
      res -= gsl_vector_get(&c.vector, (size_t)a) * x[a];
    }
    for (int a = 0; a < k; a++)
      for (int b = 0; b < k; b++)
        h += x[a] * gsl_matrix_get(&cov.matrix, (size_t)a, (size_t)b) * x[b];
    h *= gsl_vector_get(ws->w, i);
    if (!(h <= leverage_max))
      r->cv = -1.0; /* a point the others cannot predict */
    else
      acc += fabs(res) / (1.0 - h) / pt[i].yw[col];
  }
  if (r->cv == 0.0)
    r->cv = acc / (double)n;
  return 0;
}

/* Non-negative fit by a small active set: fit f, and while a coefficient is
 * negative drop the most negative term and refit. On return *act holds the
 * terms kept (a subset of f, same order) and r their fit; c_full (if not
 * NULL) gets f's coefficients with 0 for dropped terms. A single term with
 * non-negative basis values and data never goes negative, so this ends
 * with at least one term. Returns 0 or REVPROF_EFIT. */
static int fit_nonneg(fitws *ws, const fpt *pt, size_t n, const form *f,
                      int col, enum wmode wm, form *act, fitres *r,
                      double *c_full) {
  double scale[MAXT];
  *act = *f;
  for (;;) {
    int rc = fit_form(ws, pt, n, act, col, wm, r);
    if (rc)
      return rc;
    term_scale(pt, n, act, col, scale);
    int worst = worst_negative(r->c, scale, act->k);
    if (worst < 0)
      break;
    if (act->k == 1)
      return REVPROF_EFIT; /* cannot happen with data >= 0 */
    form_drop(act, worst);
  }
  if (c_full) {
    for (int a = 0; a < f->k; a++) {
      c_full[a] = 0.0;
      for (int b = 0; b < act->k; b++)
        if (act->t[b] == f->t[a])
          c_full[a] = r->c[b];
    }
  }
  return 0;
}

/* Standard errors sqrt(cov_aa * scale) with scale = chi2 / (n - k), the
 * residual variance (relative weights) or at least 1 (measured sigmas);
 * 0 when there are no degrees of freedom left. */
static void std_errors(const fitres *r, int k, size_t n, enum wmode wm,
                       double *se) {
  double scale = 0.0;
  if (n > (size_t)k) {
    scale = r->chi2 / (double)(n - (size_t)k);
    if (wm == W_SIGMA && scale < 1.0)
      scale = 1.0;
  }
  for (int a = 0; a < k; a++) {
    double v = r->cov[a][a] * scale;
    se[a] = v > 0.0 && isfinite(v) ? sqrt(v) : 0.0;
  }
}

/* ------------------------------------------------- data-driven term sets */

/* The hinges come last, so that with two group sizes p_terms[0] = p is the
 * one p-term tried; a hinge is tried only where its knot lies strictly
 * between the segment's smallest and largest group size (usable_term). */
static const revprof_basis p_terms[] = {
    REVPROF_BASIS_P,        REVPROF_BASIS_LOG2P,    REVPROF_BASIS_P2,
    REVPROF_BASIS_LOG2P_2,  REVPROF_BASIS_SQRTP,    REVPROF_BASIS_INVP,
    REVPROF_BASIS_HINGE4,   REVPROF_BASIS_HINGE8,   REVPROF_BASIS_HINGE16,
    REVPROF_BASIS_HINGE32,  REVPROF_BASIS_HINGE64,  REVPROF_BASIS_HINGE128,
    REVPROF_BASIS_HINGE256, REVPROF_BASIS_HINGE512};
static const revprof_basis d_terms[] = {
    REVPROF_BASIS_D,         REVPROF_BASIS_PD,        REVPROF_BASIS_LOG2PD,
    REVPROF_BASIS_P2D,       REVPROF_BASIS_PM1_P_D,   REVPROF_BASIS_PM1D,
    REVPROF_BASIS_SQRTPD,    REVPROF_BASIS_HINGE4D,   REVPROF_BASIS_HINGE8D,
    REVPROF_BASIS_HINGE16D,  REVPROF_BASIS_HINGE32D,  REVPROF_BASIS_HINGE64D,
    REVPROF_BASIS_HINGE128D, REVPROF_BASIS_HINGE256D, REVPROF_BASIS_HINGE512D};
/* The d-term h(p)*d of each p-term h(p) (p_pair[i] for p_terms[i]),
 * REVPROF_BASIS_COUNT where the table has none: the separable forms. */
static const revprof_basis p_pair[] = {
    REVPROF_BASIS_PD,        REVPROF_BASIS_LOG2PD,    REVPROF_BASIS_P2D,
    REVPROF_BASIS_COUNT,     REVPROF_BASIS_SQRTPD,    REVPROF_BASIS_COUNT,
    REVPROF_BASIS_HINGE4D,   REVPROF_BASIS_HINGE8D,   REVPROF_BASIS_HINGE16D,
    REVPROF_BASIS_HINGE32D,  REVPROF_BASIS_HINGE64D,  REVPROF_BASIS_HINGE128D,
    REVPROF_BASIS_HINGE256D, REVPROF_BASIS_HINGE512D};
_Static_assert(sizeof p_pair == sizeof p_terms, "one pair per p-term");
#define N_PTERMS ((int)(sizeof p_terms / sizeof p_terms[0]))
#define N_DTERMS ((int)(sizeof d_terms / sizeof d_terms[0]))

/* How many p-terms (of p_terms) and d-terms (of d_terms) the data can
 * identify next to a constant: none with one group size; with two group
 * sizes every p-term is the same model as "p"; with one group size every
 * d-term is the same model as "d"; none with one message size. */
static int n_pterms(int np) { return np >= 3 ? N_PTERMS : np == 2 ? 1 : 0; }
static int n_dterms(int np, int nd) {
  return nd < 2 ? 0 : np >= 2 ? N_DTERMS : 1;
}

/* ------------------------------------------------------ default: screen */

/* One contiguous range of d groups during the breakpoint search: Gram matrix
 * of the relative-weighted design z_i = basis(p_i, d_i) / y_i over all NB
 * terms (lower triangle), so that any form's normal equations are a
 * submatrix; the weighted target is 1 for every point. */
typedef struct segctx {
  const double *z; /* first point's NB values */
  size_t n;        /* points */
  int np, nd;      /* distinct p and d values */
  double pmin, pmax; /* smallest and largest p */
  double G[NB][NB], b[NB], zmax[NB];
} segctx;

typedef struct cand {
  form f;
  double c[MAXT];      /* coefficients (seconds per unit of the term) */
  double L[MAXT][MAXT]; /* Cholesky factor of the scaled Gram matrix */
  double s[MAXT];      /* column scaling */
  double chi2;         /* sum of squared relative residuals */
  double cv;           /* mean |loo| / y; HUGE_VAL if undefined */
} cand;

static double gram(const segctx *sc, revprof_basis u, revprof_basis v) {
  return u >= v ? sc->G[u][v] : sc->G[v][u];
}

/* Normal-equation fit of cd->f on the segment (Cholesky of the Jacobi-scaled
 * Gram matrix). Returns REVPROF_EFIT when the terms are collinear over the
 * segment or a coefficient is negative beyond round-off (the form is
 * rejected, no message), else 0. */
static int screen(const segctx *sc, cand *cd) {
  const form *f = &cd->f;
  int k = f->k;
  double A[MAXT][MAXT], u[MAXT];
  for (int a = 0; a < k; a++) {
    double g = gram(sc, f->t[a], f->t[a]);
    if (!(g > 0.0) || !isfinite(g))
      return REVPROF_EFIT;
    cd->s[a] = 1.0 / sqrt(g);
  }
  for (int a = 0; a < k; a++) {
    for (int b = 0; b <= a; b++)
      A[a][b] = gram(sc, f->t[a], f->t[b]) * cd->s[a] * cd->s[b];
    u[a] = sc->b[f->t[a]] * cd->s[a];
  }
  for (int j = 0; j < k; j++) { /* A = L L^T, lower triangle */
    double dj = A[j][j];
    for (int m = 0; m < j; m++)
      dj -= cd->L[j][m] * cd->L[j][m];
    if (!(dj > pivot_tol))
      return REVPROF_EFIT;
    cd->L[j][j] = sqrt(dj);
    for (int i = j + 1; i < k; i++) {
      double v = A[i][j];
      for (int m = 0; m < j; m++)
        v -= cd->L[i][m] * cd->L[j][m];
      cd->L[i][j] = v / cd->L[j][j];
    }
  }
  for (int i = 0; i < k; i++) { /* L v = u */
    for (int m = 0; m < i; m++)
      u[i] -= cd->L[i][m] * u[m];
    u[i] /= cd->L[i][i];
  }
  for (int i = k - 1; i >= 0; i--) { /* L^T x = v */
    for (int m = i + 1; m < k; m++)
      u[i] -= cd->L[m][i] * u[m];
    u[i] /= cd->L[i][i];
  }
  for (int a = 0; a < k; a++) {
    cd->c[a] = u[a] * cd->s[a];
    if (cd->c[a] < 0.0) {
      if (-cd->c[a] * sc->zmax[f->t[a]] > neg_tol)
        return REVPROF_EFIT;
      cd->c[a] = 0.0;
    }
  }
  double chi2 = (double)sc->n;
  for (int a = 0; a < k; a++) {
    chi2 -= 2.0 * cd->c[a] * sc->b[f->t[a]];
    for (int b = 0; b < k; b++)
      chi2 += cd->c[a] * gram(sc, f->t[a], f->t[b]) * cd->c[b];
  }
  cd->chi2 = chi2 > 0.0 ? chi2 : 0.0;
  cd->cv = -1.0;
  return 0;
}

/* Leave-one-out mean relative error of a screened candidate: with weighted
 * target 1, e_i = 1 - z_i.c and h_ii = |L^-1 S z_i|^2. */
static double screen_cv(const segctx *sc, const cand *cd) {
  int k = cd->f.k;
  double acc = 0.0;
  for (size_t i = 0; i < sc->n; i++) {
    const double *zi = sc->z + i * NB;
    double e = 1.0, v[MAXT], h = 0.0;
    for (int a = 0; a < k; a++) {
      e -= cd->c[a] * zi[cd->f.t[a]];
      v[a] = zi[cd->f.t[a]] * cd->s[a];
      for (int m = 0; m < a; m++)
        v[a] -= cd->L[a][m] * v[m];
      v[a] /= cd->L[a][a];
      h += v[a] * v[a];
    }
    if (!(h <= leverage_max))
      return HUGE_VAL;
    acc += fabs(e) / (1.0 - h);
  }
  return acc / (double)sc->n;
}

/* 1 unless b is a hinge whose knot is not strictly inside the segment's
 * group sizes (there it is zero everywhere, or the same model as p) or the
 * segment has fewer than three group sizes (there it is the same model as
 * p). */
static int usable_term(const segctx *sc, revprof_basis b) {
  double knot = revprof_basis_knot(b);
  return knot == 0.0 ||
         (sc->np >= 3 && sc->pmin < knot && knot < sc->pmax);
}

/* Keeps the `keep` lowest-chi2 candidates of one size class in list. */
static void shortlist_add(cand *list, int *len, int keep, const cand *cd) {
  int pos = *len < keep ? (*len)++ : keep;
  if (pos == keep) {
    if (!(cd->chi2 < list[keep - 1].chi2))
      return;
    pos = keep - 1;
  }
  while (pos > 0 && cd->chi2 < list[pos - 1].chi2) {
    list[pos] = list[pos - 1];
    pos--;
  }
  list[pos] = *cd;
}

#define SHORT_KEEP 3

/* Chooses the form of one segment: every 1 + [p-term] + [d-term] the data
 * identifies (the startup term 1 is dropped only where the data prove it
 * zero: the form with it needs a negative constant) is screened by its
 * in-sample fit, the SHORT_KEEP best of each size get their leave-one-out
 * error, so do the separable forms 1 + h(p) + d + h(p)*d, then a second
 * d-term is tried on each shortlisted model with a d-term. Winner: the
 * fewest terms whose error is within cv_tol of the smallest. Returns
 * REVPROF_EFIT when nothing could be fitted (no message: the caller tries
 * other segments). */
static int select_segment(const segctx *sc, form *out, double *cv) {
  cand list[4][SHORT_KEEP], pool[2 * 4 * SHORT_KEEP + N_PTERMS], cd;
  int len[4] = {0, 0, 0, 0}, npool = 0;
  int npt = n_pterms(sc->np), ndt = n_dterms(sc->np, sc->nd);
  for (int pi = -1; pi < npt; pi++)
    for (int di = -1; di < ndt; di++)
      for (int c1 = 0; c1 < 2; c1++) { /* with the startup term, then not */
        if ((pi >= 0 && !usable_term(sc, p_terms[pi])) ||
            (di >= 0 && !usable_term(sc, d_terms[di])))
          break;
        cd.f.k = 0;
        if (c1 == 0)
          cd.f.t[cd.f.k++] = REVPROF_BASIS_ONE;
        if (pi >= 0)
          cd.f.t[cd.f.k++] = p_terms[pi];
        if (di >= 0)
          cd.f.t[cd.f.k++] = d_terms[di];
        if (cd.f.k > 0 && screen(sc, &cd) == 0) {
          shortlist_add(list[cd.f.k - 1], &len[cd.f.k - 1], SHORT_KEEP, &cd);
          break; /* with its startup term it fits: keep that */
        }
        /* else the constant would be negative (or the terms are collinear):
         * the data prove the startup term zero; try the form without it */
      }
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < len[k]; j++) {
      list[k][j].cv = screen_cv(sc, &list[k][j]);
      if (isfinite(list[k][j].cv))
        pool[npool++] = list[k][j];
    }
  int nfirst = npool;
  /* separable forms (a + b h(p)) + (c + e h(p)) d: a cost that scales
   * with the same function of p in its startup and per byte (a shared
   * resource) is found here, not by adding terms one at a time */
  for (int pi = 0; pi < npt && ndt > 1; pi++) {
    revprof_basis pd = p_pair[pi];
    if (pd == REVPROF_BASIS_COUNT || !usable_term(sc, p_terms[pi]))
      continue;
    for (int c1 = 0; c1 < 2; c1++) {
      cd.f.k = 0;
      if (c1 == 0)
        cd.f.t[cd.f.k++] = REVPROF_BASIS_ONE;
      cd.f.t[cd.f.k++] = p_terms[pi];
      cd.f.t[cd.f.k++] = REVPROF_BASIS_D;
      cd.f.t[cd.f.k++] = pd;
      if (screen(sc, &cd) == 0) {
        cd.cv = screen_cv(sc, &cd);
        if (isfinite(cd.cv))
          pool[npool++] = cd;
        break;
      }
    }
  }
  /* forward step: a second d-term on each shortlisted model with one
   * d-term (on the best one alone, a p-dependence that a single d-term
   * approximates, such as (p-1)/p*d for a flat-then-rising hinge, would
   * hide the pair that fits it exactly) */
  for (int j = 0; j < nfirst && ndt > 1; j++) {
    const form *f = &pool[j].f;
    if (!revprof_basis_uses_d(f->t[f->k - 1]))
      continue;
    cand best2;
    int have = 0;
    for (int di = 0; di < ndt; di++) {
      if (form_has(f, d_terms[di]) || !usable_term(sc, d_terms[di]))
        continue;
      cd.f = *f;
      cd.f.t[cd.f.k++] = d_terms[di];
      if (screen(sc, &cd) == 0 && (!have || cd.chi2 < best2.chi2)) {
        best2 = cd;
        have = 1;
      }
    }
    if (have) {
      best2.cv = screen_cv(sc, &best2);
      if (isfinite(best2.cv))
        pool[npool++] = best2;
    }
  }
  if (npool == 0)
    return REVPROF_EFIT;
  double emin = HUGE_VAL;
  for (int j = 0; j < npool; j++)
    if (pool[j].cv < emin)
      emin = pool[j].cv;
  int win = -1;
  for (int j = 0; j < npool; j++) {
    if (!cv_close(emin, pool[j].cv))
      continue;
    if (win < 0 || pool[j].f.k < pool[win].f.k ||
        (pool[j].f.k == pool[win].f.k && pool[j].cv < pool[win].cv))
      win = j;
  }
  *out = pool[win].f;
  *cv = pool[win].cv;
  return 0;
}

/* ------------------------------------------------- default: final fits */

/* Iteratively reweighted least squares towards the least absolute relative
 * deviation: the medians of a characterization have outliers (one size
 * measured while the machine was busy), which a squared-error fit follows.
 * Weights u_i = 1 / max(|r_i|, robust_floor) on the relative residuals r_i,
 * robust_iter rounds, same form (terms that go negative keep their zero). */
static const int robust_iter = 10;
static const double robust_floor = 0.02;

static void robust_refit(fitws *ws, const fpt *pt, size_t n, const form *f,
                         fitres *r) {
  fpt *q = malloc(n * sizeof *q);
  if (q == NULL)
    return;
  memcpy(q, pt, n * sizeof *q);
  for (int it = 0; it < robust_iter; it++) {
    for (size_t i = 0; i < n; i++) {
      double yhat = 0.0;
      for (int a = 0; a < f->k; a++)
        yhat += r->c[a] * revprof_basis_eval(f->t[a], pt[i].p, pt[i].d);
      double rel = fabs(pt[i].y[COL_MED] - yhat) / pt[i].yw[COL_MED];
      double u = 1.0 / (rel > robust_floor ? rel : robust_floor);
      q[i].yw[COL_MED] = pt[i].yw[COL_MED] / sqrt(u);
    }
    form g;
    fitres t;
    double c[MAXT];
    if (fit_nonneg(ws, q, n, f, COL_MED, W_REL, &g, &t, c) != 0)
      break;
    memcpy(r->c, c, sizeof c);
  }
  free(q);
}

/* Nearest-rank quantile q of v[0..n) (sorted in place). */
static double quantile(double *v, size_t n, double q) {
  qsort(v, n, sizeof *v, cmp_double);
  size_t r = (size_t)ceil(q * (double)n);
  return v[r > 0 ? r - 1 : 0];
}

/* A regime's relative half-widths kept sane: wlo in [0, 1], whi >= 0 and
 * finite. */
static void clamp_widths(double *wlo, double *whi) {
  *wlo = *wlo > 0.0 ? (*wlo < 1.0 ? *wlo : 1.0) : 0.0;
  *whi = *whi > 0.0 && isfinite(*whi) ? *whi : 0.0;
}

/* The points' own spread around their medians: mean of 1 - min/median
 * (wlo) and of max/median - 1 (whi), added to *wlo and *whi. */
static void spread_widths(const fpt *pt, size_t n, double *wlo, double *whi) {
  for (size_t i = 0; i < n; i++) {
    double y = pt[i].yw[COL_MED];
    *wlo += (1.0 - pt[i].y[COL_MIN] / y) / (double)n;
    *whi += (pt[i].y[COL_MAX] / y - 1.0) / (double)n;
  }
}

/* The bounds of a regime: relative half-widths below (wlo) and above (whi)
 * its equation c such that min = c (1 - wlo) and max = c (1 + whi) hold the
 * measured medians the equation did not see. Each point's leave-one-out
 * prediction yhat_-i = y_i - r_i / (1 - h_ii) (residual r_i of the final fit,
 * leverage h_ii of the relative-weighted least-squares fit of the same form)
 * gives e_i = y_i / yhat_-i - 1; wlo = -(bound_lo quantile of e), whi = the
 * bound_hi quantile, each at least 0 (wlo at most 1). With fewer than 3 points
 * or no degrees of freedom: the points' own spread, mean of 1 - min/median
 * and of max/median - 1. */
static const double bound_lo = 0.1, bound_hi = 0.9;

static void bound_widths(fitws *ws, const fpt *pt, size_t n, const form *f,
                         const double *c, double *wlo, double *whi) {
  fitres r;
  double *e = malloc(n * sizeof *e);
  size_t k = 0;
  *wlo = *whi = 0.0;
  if (e && n >= 3 && n > (size_t)f->k &&
      fit_form(ws, pt, n, f, COL_MED, W_REL, &r) == 0)
    for (size_t i = 0; i < n; i++) {
      double x[MAXT], yhat = 0.0, h = 0.0;
      for (int a = 0; a < f->k; a++) {
        x[a] = revprof_basis_eval(f->t[a], pt[i].p, pt[i].d);
        yhat += c[a] * x[a];
      }
      for (int a = 0; a < f->k; a++)
        for (int b = 0; b < f->k; b++)
          h += x[a] * r.cov[a][b] * x[b];
      h /= pt[i].yw[COL_MED] * pt[i].yw[COL_MED];
      if (!(h < leverage_max))
        continue; /* a point nothing else predicts */
      double loo = pt[i].y[COL_MED] - (pt[i].y[COL_MED] - yhat) / (1.0 - h);
      if (loo > 0.0 && isfinite(loo))
        e[k++] = pt[i].y[COL_MED] / loo - 1.0;
    }
  if (k >= 3) {
    *wlo = -quantile(e, k, bound_lo);
    *whi = quantile(e, k, bound_hi);
  } else
    spread_widths(pt, n, wlo, whi);
  clamp_widths(wlo, whi);
  free(e);
}

/* Final fit of one regime over pt[0..n) with the form chosen by the search:
 * GSL fit of the medians (non-negative), pruning of negligible or
 * insignificant terms, standard errors, and the min and max columns fitted
 * with the same form for the bounds. */
static int finish_regime(fitws *ws, const fpt *pt, size_t n, const form *f0,
                         revprof_regime *rg) {
  form f, g;
  fitres r, q;
  double se[MAXT], scale[MAXT];
  int rc = fit_nonneg(ws, pt, n, f0, COL_MED, W_REL, &f, &r, NULL);
  if (rc) { /* should not happen: fall back to a constant */
    form one = {1, {REVPROF_BASIS_ONE}};
    if ((rc = fit_nonneg(ws, pt, n, &one, COL_MED, W_REL, &f, &r, NULL)))
      return rc;
  }
  double cv0 = r.cv;
  while (f.k > 1 && cv0 >= 0.0) {
    int order[MAXT], tried = 0;
    double contrib[MAXT];
    std_errors(&r, f.k, n, W_REL, se);
    term_scale(pt, n, &f, COL_MED, scale);
    for (int a = 0; a < f.k; a++) {
      contrib[a] = r.c[a] * scale[a];
      order[a] = a;
    }
    for (int a = 1; a < f.k; a++) /* by contribution, smallest first */
      for (int b = a; b > 0 && contrib[order[b]] < contrib[order[b - 1]];
           b--) {
        int t = order[b];
        order[b] = order[b - 1];
        order[b - 1] = t;
      }
    for (int j = 0; j < f.k && !tried; j++) {
      int a = order[j];
      int weak = contrib[a] < prune_contrib ||
                 (se[a] > 0.0 && r.c[a] < prune_t * se[a]);
      if (f.t[a] == REVPROF_BASIS_ONE)
        weak = 0; /* the startup term stays unless the data make it < 0 */
      if (!weak)
        continue;
      form h = f;
      form_drop(&h, a);
      if (fit_nonneg(ws, pt, n, &h, COL_MED, W_REL, &g, &q, NULL) == 0 &&
          q.cv >= 0.0 && cv_close(cv0, q.cv)) {
        f = g;
        r = q;
        tried = 1;
      }
    }
    if (!tried)
      break;
  }
  double cvls = r.cv;
  if (n > (size_t)f.k)
    robust_refit(ws, pt, n, &f, &r);
  r.cv = cvls;
  memset(rg, 0, sizeof *rg);
  rg->nterms = f.k;
  memcpy(rg->form, f.t, sizeof f.t);
  memcpy(rg->avg, r.c, sizeof r.c);
  std_errors(&r, f.k, n, W_REL, rg->err);
  rg->n = (int)n;
  rg->cv_error = r.cv;
  double wlo, whi;
  bound_widths(ws, pt, n, &f, rg->avg, &wlo, &whi);
  for (int a = 0; a < f.k; a++) {
    rg->min[a] = rg->avg[a] * (1.0 - wlo);
    rg->max[a] = rg->avg[a] * (1.0 + whi);
  }
  return 0;
}

/* Where the upper of two regimes starts, given the largest size measured
 * in the lower one (lo) and the smallest in the upper (hi): at the first
 * power of two above lo when one lies in (lo, hi], else at hi. Protocol
 * limits are mostly powers of two, and the size at the limit already
 * crosses it when the limit counts the MPI's own header (Open MPI's
 * shared-memory eager limit, 4 KiB: 3584 B eager, 4096 B not). */
static double regime_switch(double lo, double hi) {
  double s = 1.0;
  while (s <= lo && s < 0x1p62)
    s *= 2.0;
  return s <= hi ? s : hi;
}

/* --------------------------------------------- default: top of the range */

/* Side on which point q lies off the equation rg: +1 above (median above
 * by more than thr and min above), -1 below (median below by more than thr
 * and max below), else 0. */
static int off_side(const fpt *q, const revprof_regime *rg, double thr) {
  double t = rp_regime_sum(rg, rg->avg, q->p, q->d);
  if (!(t > 0.0))
    return 0;
  if (q->y[COL_MED] > t * (1.0 + thr) && q->y[COL_MIN] > t)
    return 1;
  if (q->y[COL_MED] < t * (1.0 - thr) && q->y[COL_MAX] < t)
    return -1;
  return 0;
}

/* Median ratio of the medians of pt[0..n) to the equation rg (0 when out
 * of memory). */
static double tail_scale(const fpt *pt, size_t n, const revprof_regime *rg) {
  double *ratio = malloc(n * sizeof *ratio), s;
  if (ratio == NULL)
    return 0.0;
  for (size_t i = 0; i < n; i++)
    ratio[i] =
        pt[i].y[COL_MED] / rp_regime_sum(rg, rg->avg, pt[i].p, pt[i].d);
  qsort(ratio, n, sizeof *ratio, cmp_double);
  s = (ratio[(n - 1) / 2] + ratio[n / 2]) / 2.0;
  free(ratio);
  return s;
}

/* The scale of a top-of-range regime for pt[0..n) under the equation rg:
 * their median ratio to it (tail_scale) when every point lies off rg on
 * one same side (off_side, with the rule's threshold thr) and rg times
 * that scale is within thr of each (a cliff, then one slope; not two
 * steps); else 0. */
static double tail_fit(const fpt *pt, size_t n, const revprof_regime *rg) {
  double cv = rg->cv_error > 0.0 ? rg->cv_error : 0.0;
  double thr = tail_factor * cv > tail_min ? tail_factor * cv : tail_min;
  int side = off_side(&pt[0], rg, thr);
  for (size_t i = 1; i < n && side != 0; i++)
    if (off_side(&pt[i], rg, thr) != side)
      side = 0;
  double s = side != 0 ? tail_scale(pt, n, rg) : 0.0;
  if (!(s > 0.0 && isfinite(s)))
    return 0.0;
  for (size_t i = 0; i < n; i++) {
    double t = s * rp_regime_sum(rg, rg->avg, pt[i].p, pt[i].d);
    if (!(fabs(pt[i].y[COL_MED] / t - 1.0) <= thr))
      return 0.0;
  }
  return s;
}

/* Appends to out, whose last regime rg was fitted below pt[it], the
 * top-of-range regime of pt[it..n): rg's equation times s (tail_fit: one
 * coefficient, the form's p-dependence kept), bounds from their own
 * spread, no CV error. */
static void add_top_tail(const fpt *pt, size_t it, size_t n, double s,
                         revprof_fnmodel *out) {
  revprof_regime *rg = &out->regime[out->nregimes - 1], tail = *rg;
  size_t nt = n - it;
  double wlo = 0.0, whi = 0.0;
  spread_widths(pt + it, nt, &wlo, &whi);
  clamp_widths(&wlo, &whi);
  for (int a = 0; a < tail.nterms; a++) {
    tail.avg[a] = rg->avg[a] * s;
    tail.err[a] = rg->err[a] * s;
    tail.min[a] = tail.avg[a] * (1.0 - wlo);
    tail.max[a] = tail.avg[a] * (1.0 + whi);
  }
  tail.n = (int)nt;
  tail.cv_error = -1.0;
  rg->dmax = regime_switch(pt[it - 1].d, pt[it].d) - 1.0;
  tail.dmin = rg->dmax + 1.0;
  tail.dmax = HUGE_VAL;
  out->regime[out->nregimes++] = tail;
}

/* --------------------------------------------- default: breakpoint search */

typedef struct segfit {
  double cost; /* cv * points; HUGE_VAL when the segment is not usable */
  form f;
} segfit;

/* Adds one point to the Gram matrix, over the function's usable terms
 * only (act, ascending: the lower triangle stays the one filled). */
static void seg_add_point(segctx *sc, const fitws *ws, const double *zi) {
  for (int a = 0; a < ws->nact; a++) {
    int u = ws->act[a];
    sc->b[u] += zi[u];
    if (fabs(zi[u]) > sc->zmax[u])
      sc->zmax[u] = fabs(zi[u]);
    for (int c = 0; c <= a; c++)
      sc->G[u][ws->act[c]] += zi[u] * zi[ws->act[c]];
  }
}

/* Per-point leave-one-out relative errors of the segmentation whose
 * segments start at groups starts[0..k) (each with its form in seg), written
 * to e[0..n). Same screening fit as the search used. */
static void segmentation_errors(fitws *ws, segctx *sc, const segfit *seg,
                                size_t m, const size_t *starts, int k,
                                double *e) {
  for (int s = 0; s < k; s++) {
    size_t ga = starts[s], gb = s + 1 < k ? starts[s + 1] - 1 : m - 1;
    size_t i0 = ws->gstart[ga], i1 = ws->gstart[gb + 1];
    cand cd;
    memset(sc, 0, sizeof *sc);
    sc->z = ws->z + i0 * NB;
    sc->n = i1 - i0;
    for (size_t i = i0; i < i1; i++)
      seg_add_point(sc, ws, ws->z + i * NB);
    cd.f = seg[ga * m + gb].f;
    if (screen(sc, &cd) != 0) { /* cannot happen: it was screened */
      for (size_t i = i0; i < i1; i++)
        e[i] = HUGE_VAL;
      continue;
    }
    for (size_t i = i0; i < i1; i++) {
      const double *zi = ws->z + i * NB;
      double r = 1.0, v[MAXT], h = 0.0;
      for (int a = 0; a < cd.f.k; a++) {
        r -= cd.c[a] * zi[cd.f.t[a]];
        v[a] = zi[cd.f.t[a]] * cd.s[a];
        for (int j = 0; j < a; j++)
          v[a] -= cd.L[a][j] * v[j];
        v[a] /= cd.L[a][a];
        h += v[a] * v[a];
      }
      e[i] = h <= leverage_max ? fabs(r) / (1.0 - h) : HUGE_VAL;
    }
  }
}

/* Group index where each of the k segments of the best k-segmentation of
 * groups 0..m-1 starts. */
static void backtrack(const size_t *from, size_t m, int k, size_t *starts) {
  size_t bend = m - 1;
  for (int j = k; j >= 1; j--) {
    starts[j - 1] = from[(size_t)j * m + bend];
    if (j > 1)
      bend = starts[j - 1] - 1;
  }
}

/* 1 when the per-point errors e1 are better than e0 beyond chance: the mean
 * paired difference is at least split_t standard errors. */
static int significantly_better(const double *e0, const double *e1,
                                size_t n) {
  double sum = 0.0, sum2 = 0.0;
  for (size_t i = 0; i < n; i++) {
    double dlt = e0[i] - e1[i];
    if (!isfinite(dlt))
      return 0;
    sum += dlt;
  }
  double mean = sum / (double)n;
  for (size_t i = 0; i < n; i++) {
    double dlt = e0[i] - e1[i] - mean;
    sum2 += dlt * dlt;
  }
  if (!(mean > 0.0))
    return 0;
  if (n < 2)
    return 1;
  double se = sqrt(sum2 / (double)(n - 1) / (double)n);
  return mean >= split_t * se;
}

/* A regime of a function measured at this many group sizes or more may
 * have min_sizes - 1 distinct sizes: each size then holds that many points
 * (a regime of 3 sizes has 9), enough to fit and cross-validate, and a
 * network whose time changes its slope every few sizes (SimGrid's
 * piecewise factors put 1 KiB alone between 732 and 1426 bytes) needs the
 * shorter regime where power-of-two sizes sample it. */
static const size_t min_sizes_multi_p = 3;

/* The breakpoint search and the regimes' fits on ws->pt[0..n), sorted by
 * d: see README.md, "Fitting: the exact algorithm". */
static int segment_sizes(fitws *ws, size_t n, const revprof_fit_options *o,
                         revprof_fnmodel *out) {
  fpt *pt = ws->pt;
  size_t npv = 0, m = 0, md = 0;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    for (int b = 0; b < NB; b++)
      ws->z[i * NB + (size_t)b] =
          revprof_basis_eval((revprof_basis)b, pt[i].p, pt[i].d) /
          pt[i].yw[COL_MED];
    ws->pv[i] = pt[i].p;
  }
  qsort(ws->pv, n, sizeof *ws->pv, cmp_double);
  for (size_t i = 0; i < n; i++)
    if (npv == 0 || ws->pv[i] != ws->pv[npv - 1])
      ws->pv[npv++] = ws->pv[i];
  for (size_t i = 0; i < n; i++) {
    double *hit = bsearch(&pt[i].p, ws->pv, npv, sizeof *ws->pv, cmp_double);
    ws->pidx[i] = (int)(hit - ws->pv);
  }
  ws->nact = 0;
  for (int b = 0; b < NB; b++) {
    double knot = revprof_basis_knot((revprof_basis)b);
    if (knot == 0.0 || (ws->pv[0] < knot && knot < ws->pv[npv - 1]))
      ws->act[ws->nact++] = b;
  }
  /* groups of distinct d values (several per group beyond MAX_GROUPS) */
  for (size_t i = 0; i < n; i++)
    if (i == 0 || pt[i].d != pt[i - 1].d)
      md++;
  size_t per = (md + MAX_GROUPS - 1) / MAX_GROUPS, seen = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || pt[i].d != pt[i - 1].d) {
      if (seen % per == 0) {
        ws->gstart[m] = i;
        ws->gnd[m++] = 0;
      }
      ws->gnd[m - 1]++;
      seen++;
    }
  ws->gstart[m] = n;

  /* measured at three group sizes or more, each size holds as many
   * points: a regime then needs one size less (see min_sizes_multi_p) */
  int min_sizes = o->min_sizes;
  if (npv >= min_sizes_multi_p && min_sizes > 2)
    min_sizes--;
  int kmax = o->max_regimes < REVPROF_MAX_REGIMES ? o->max_regimes
                                                  : REVPROF_MAX_REGIMES;
  if ((int)(md / (size_t)min_sizes) < kmax)
    kmax = (int)(md / (size_t)min_sizes);
  if (kmax < 1 || !(o->regime_gain < 1.0))
    kmax = 1;

  segfit *seg = malloc(m * m * sizeof *seg);
  double *best = malloc((size_t)(kmax + 1) * m * sizeof *best);
  size_t *from = malloc((size_t)(kmax + 1) * m * sizeof *from);
  int *cum = malloc((m + 1) * sizeof *cum); /* distinct d before group */
  segctx *sc = malloc(sizeof *sc);
  double *ebuf = malloc(2 * n * sizeof *ebuf); /* per-point LOO errors */
  double *e0 = ebuf, *e1 = ebuf ? ebuf + n : NULL;
  if (!seg || !best || !from || !cum || !sc || !ebuf) {
    rc = REVPROF_ENOMEM;
    goto done;
  }
  cum[0] = 0;
  for (size_t g = 0; g < m; g++)
    cum[g + 1] = cum[g] + ws->gnd[g];

  /* best form and cost of every usable segment [a, b] of groups */
  for (size_t j = 0; j < m * m; j++)
    seg[j].cost = HUGE_VAL;
  for (size_t a = 0; a < m; a++) {
    if (a > 0 && (kmax == 1 || (int)md - cum[a] < min_sizes))
      break; /* no later segment can be followed by nothing */
    if (a > 0 && cum[a] < min_sizes)
      continue; /* the segments before it would be too small */
    memset(sc, 0, sizeof *sc);
    memset(ws->pcnt, 0, npv * sizeof *ws->pcnt);
    sc->z = ws->z + ws->gstart[a] * NB;
    for (size_t b = a; b < m; b++) {
      segfit *sf = &seg[a * m + b];
      for (size_t i = ws->gstart[b]; i < ws->gstart[b + 1]; i++) {
        seg_add_point(sc, ws, ws->z + i * NB);
        if (ws->pcnt[ws->pidx[i]]++ == 0) {
          double p = ws->pv[ws->pidx[i]];
          if (sc->np++ == 0 || p < sc->pmin)
            sc->pmin = p;
          if (p > sc->pmax)
            sc->pmax = p;
        }
      }
      sc->n = ws->gstart[b + 1] - ws->gstart[a];
      sc->nd += ws->gnd[b];
      int whole = a == 0 && b == m - 1;
      int tail = (int)md - cum[b + 1]; /* distinct d after the segment */
      if (!whole && (kmax == 1 || sc->nd < min_sizes ||
                     (tail > 0 && tail < min_sizes)))
        continue;
      double cv;
      if (select_segment(sc, &sf->f, &cv) == 0)
        sf->cost = cv * (double)sc->n;
    }
  }

  /* dynamic programme: best[k][b] = cheapest cover of groups 0..b by k
   * segments; then the number of regimes by the gain rule */
  for (int k = 1; k <= kmax; k++)
    for (size_t b = 0; b < m; b++) {
      double *bk = &best[(size_t)k * m + b];
      *bk = HUGE_VAL;
      if (k == 1) {
        *bk = seg[b].cost;
        from[(size_t)k * m + b] = 0;
        continue;
      }
      for (size_t a = 1; a <= b; a++) {
        double v = best[(size_t)(k - 1) * m + a - 1] + seg[a * m + b].cost;
        if (v < *bk) {
          *bk = v;
          from[(size_t)k * m + b] = a;
        }
      }
    }
  int kbest = 1;
  double ebest = best[1 * m + m - 1] / (double)n;
  size_t starts[REVPROF_MAX_REGIMES + 1], cand_starts[REVPROF_MAX_REGIMES + 1];
  starts[0] = 0;
  if (!isfinite(ebest)) { /* no usable fit of everything: take any */
    for (int k = 2; k <= kmax; k++)
      if (best[(size_t)k * m + m - 1] / (double)n < ebest) {
        ebest = best[(size_t)k * m + m - 1] / (double)n;
        kbest = k;
      }
    if (kbest > 1)
      backtrack(from, m, kbest, starts);
  } else if (kmax > 1) {
    segmentation_errors(ws, sc, seg, m, starts, 1, e0);
    for (int k = 2; k <= kmax; k++) {
      double e = best[(size_t)k * m + m - 1] / (double)n;
      int extra = k - kbest;
      if (!(isfinite(e) && e <= ebest * pow(1.0 - o->regime_gain, extra) &&
            ebest - e >= split_min_abs * extra))
        continue;
      backtrack(from, m, k, cand_starts);
      segmentation_errors(ws, sc, seg, m, cand_starts, k, e1);
      if (!significantly_better(e0, e1, n))
        continue;
      kbest = k;
      ebest = e;
      memcpy(starts, cand_starts, sizeof starts);
      double *t = e0;
      e0 = e1;
      e1 = t;
    }
  }
  int nreg = kbest;
  memset(out, 0, sizeof *out);
  out->nregimes = nreg;
  for (int k = 0; k < nreg; k++) {
    size_t ga = starts[k], gb = k + 1 < nreg ? starts[k + 1] - 1 : m - 1;
    size_t i0 = ws->gstart[ga], i1 = ws->gstart[gb + 1];
    form f = {1, {REVPROF_BASIS_ONE}};
    if (isfinite(seg[ga * m + gb].cost))
      f = seg[ga * m + gb].f;
    revprof_regime *rg = &out->regime[k];
    if ((rc = finish_regime(ws, pt + i0, i1 - i0, &f, rg)))
      goto done;
    rg->dmin = k == 0 ? 0.0 : out->regime[k - 1].dmax + 1.0;
    rg->dmax = k + 1 >= nreg ? HUGE_VAL
                             : regime_switch(pt[i1 - 1].d, pt[i1].d) - 1.0;
  }
done:
  free(ebuf);
  free(seg);
  free(best);
  free(from);
  free(cum);
  free(sc);
  return rc;
}

/* Mean relative error |t - median| / median of fm's equations over
 * pt[0..n). */
static double fit_error(const fpt *pt, size_t n, const revprof_fnmodel *fm) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    int k = 0;
    while (k + 1 < fm->nregimes && pt[i].d > fm->regime[k].dmax)
      k++;
    const revprof_regime *r = &fm->regime[k];
    double t = rp_regime_sum(r, r->avg, pt[i].p, pt[i].d);
    sum += fabs(t - pt[i].y[COL_MED]) / pt[i].yw[COL_MED];
  }
  return n ? sum / (double)n : 0.0;
}

/* The default method on ws->pt[0..n), sorted by d: the regimes of all sizes
 * (segment_sizes), then the top of the range: for t = min_sizes - 1 down to
 * 1 the regimes are fitted without the t largest sizes; if each of those lies
 * off the last regime's equation on one same side and one scale of that
 * equation fits them (tail_fit), they become a regime of their own
 * (add_top_tail). The candidate with the least mean relative error over
 * all points replaces the first fit if it has less than it. */
static int fit_default_sizes(fitws *ws, size_t n, const revprof_fit_options *o,
                             revprof_fnmodel *out) {
  const fpt *pt = ws->pt;
  int kmax = o->max_regimes < REVPROF_MAX_REGIMES ? o->max_regimes
                                                  : REVPROF_MAX_REGIMES;
  int md = 0, rc = segment_sizes(ws, n, o, out);
  if (rc || kmax < 2 || !(o->regime_gain < 1.0) || n == 0)
    return rc;
  for (size_t i = 0; i < n; i++)
    md += i == 0 || pt[i].d != pt[i - 1].d;
  revprof_fnmodel *alt = malloc(2 * sizeof *alt), *best = alt + 1;
  if (alt == NULL)
    return REVPROF_ENOMEM;
  double ebest = fit_error(pt, n, out);
  int found = 0;
  for (int t = o->min_sizes - 1; t >= 1; t--) {
    if (md - t < o->min_sizes)
      continue;
    size_t it = n;
    for (int k = 0; k < t; k++) /* first point of the t largest sizes */
      for (double d = pt[it - 1].d; it > 0 && pt[it - 1].d == d;)
        it--;
    revprof_fit_options o1 = *o;
    o1.max_regimes = kmax - 1; /* the tail takes one */
    if ((rc = segment_sizes(ws, it, &o1, alt)) != 0)
      break;
    double s = tail_fit(pt + it, n - it, &alt->regime[alt->nregimes - 1]);
    if (!(s > 0.0))
      continue;
    add_top_tail(pt, it, n, s, alt);
    double e = fit_error(pt, n, alt);
    if (e < ebest) {
      ebest = e;
      *best = *alt;
      found = 1;
    }
  }
  if (rc == 0 && found)
    *out = *best;
  free(alt);
  return rc;
}

/* Empty messages can be a case of their own: MPI libraries short-cut them
 * (a 0-byte MPI_Allreduce of Open MPI takes a tenth of a 1-byte one), and a
 * relative-weighted fit through d = 0 then pulls every small size towards
 * it. When the function was measured at d = 0 and at min_sizes sizes above,
 * the sizes above are fitted without d = 0 and d = 0 is predicted as held
 * out: if that misses (see zero_factor), d = 0 gets a regime of its own,
 * else everything is fitted together. */
/* d = 0 gets its own regime when the equation of the sizes above misses
 * the d = 0 medians by more than zero_factor times its CV error and more
 * than zero_min (relative). */
static const double zero_factor = 3.0, zero_min = 0.5;

static int fit_default(fitws *ws, size_t n, const revprof_fit_options *o,
                       revprof_fnmodel *out) {
  size_t n0 = 0;
  int nd = 0, rc;
  while (n0 < n && ws->pt[n0].d == 0.0)
    n0++;
  for (size_t i = n0; i < n; i++)
    nd += i == n0 || ws->pt[i].d != ws->pt[i - 1].d;
  if (n0 == 0 || nd < o->min_sizes || o->max_regimes < 2)
    return fit_default_sizes(ws, n, o, out);
  revprof_fnmodel *z = malloc(sizeof *z);
  revprof_fit_options o1 = *o;
  if (z == NULL)
    return REVPROF_ENOMEM;
  o1.max_regimes = (o->max_regimes < REVPROF_MAX_REGIMES
                        ? o->max_regimes
                        : REVPROF_MAX_REGIMES) - 1; /* d = 0 takes one */
  fpt *all = ws->pt;
  rc = fit_default_sizes(ws, n0, o, z);
  if (rc == 0) {
    ws->pt = all + n0;
    rc = fit_default_sizes(ws, n - n0, &o1, out);
    ws->pt = all;
  }
  if (rc == 0) { /* d = 0 held out: does the small sizes' equation hold? */
    const revprof_regime *r1 = &out->regime[0];
    double e0 = 0.0, cv1 = r1->cv_error > 0.0 ? r1->cv_error : 0.0;
    for (size_t i = 0; i < n0; i++) {
      double t = rp_regime_sum(r1, r1->avg, all[i].p, 0.0);
      e0 += fabs(t - all[i].y[COL_MED]) / all[i].yw[COL_MED] / (double)n0;
    }
    if (!(e0 > zero_factor * cv1 && e0 > zero_min)) {
      free(z);
      return fit_default_sizes(ws, n, o, out);
    }
  }
  if (rc == 0) {
    memmove(&out->regime[1], &out->regime[0],
            (size_t)out->nregimes * sizeof out->regime[0]);
    out->regime[0] = z->regime[0];
    out->regime[0].dmin = 0.0;
    out->regime[0].dmax = 0.0;
    out->regime[1].dmin = 1.0;
    out->nregimes++;
  }
  free(z);
  return rc;
}

/* --------------------------------------------------------- paper method */

static int count_distinct_p(fitws *ws, const fpt *pt, size_t n) {
  size_t np = 0;
  for (size_t i = 0; i < n; i++)
    ws->pv[i] = pt[i].p;
  qsort(ws->pv, n, sizeof *ws->pv, cmp_double);
  for (size_t i = 0; i < n; i++)
    if (i == 0 || ws->pv[i] != ws->pv[i - 1])
      np++;
  return (int)np;
}

/* Seed 003 on pt[0..n) (sorted by d): t = c + s*startup(p) + k*data(p,d)
 * over the 12 forms (fewer when the data cannot tell them apart), fitted to
 * the mean times with weights 1/sigma^2 (sigma = rse * mean, when every
 * point has one) or 1/mean^2; least chi-squared among the fits with
 * non-negative coefficients wins; bounds are avg -/+ standard error. */
static int paper_regime(fitws *ws, const fpt *pt, size_t n,
                        revprof_regime *rg) {
  static const revprof_basis startup[] = {REVPROF_BASIS_P, REVPROF_BASIS_LOG2P,
                                          REVPROF_BASIS_P2};
  static const revprof_basis data[] = {REVPROF_BASIS_D, REVPROF_BASIS_PD,
                                       REVPROF_BASIS_LOG2PD,
                                       REVPROF_BASIS_P2D};
  int np = count_distinct_p(ws, pt, n), nd = 0;
  enum wmode wm = W_SIGMA;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || pt[i].d != pt[i - 1].d)
      nd++;
    if (!(pt[i].sigma > 0.0))
      wm = W_REL;
  }
  int ns = np >= 3 ? 3 : np == 2 ? 1 : 0;
  int ndata = nd < 2 ? 0 : np >= 2 ? 4 : 1;
  form best, f;
  fitres rb, r;
  int have = 0;
  for (int si = ns ? 0 : -1; si < ns; si++)
    for (int di = ndata ? 0 : -1; di < ndata; di++) {
      double scale[MAXT];
      f.k = 0;
      f.t[f.k++] = REVPROF_BASIS_ONE;
      if (si >= 0)
        f.t[f.k++] = startup[si];
      if (di >= 0)
        f.t[f.k++] = data[di];
      if (fit_form(ws, pt, n, &f, COL_MEAN, wm, &r))
        continue;
      term_scale(pt, n, &f, COL_MEAN, scale);
      if (worst_negative(r.c, scale, f.k) >= 0)
        continue;
      if (!have || r.chi2 < rb.chi2 * (1.0 - 1e-12)) {
        best = f;
        rb = r;
        have = 1;
      }
    }
  if (!have) { /* every form had a negative term: active set on the first */
    f.k = 0;
    f.t[f.k++] = REVPROF_BASIS_ONE;
    if (ns)
      f.t[f.k++] = startup[0];
    if (ndata)
      f.t[f.k++] = data[0];
    int rc = fit_nonneg(ws, pt, n, &f, COL_MEAN, wm, &best, &rb, NULL);
    if (rc)
      return rc;
  }
  memset(rg, 0, sizeof *rg);
  rg->nterms = best.k;
  memcpy(rg->form, best.t, sizeof best.t);
  memcpy(rg->avg, rb.c, sizeof rb.c);
  std_errors(&rb, best.k, n, wm, rg->err);
  for (int a = 0; a < best.k; a++) {
    rg->min[a] = rg->avg[a] > rg->err[a] ? rg->avg[a] - rg->err[a] : 0.0;
    rg->max[a] = rg->avg[a] + rg->err[a];
  }
  rg->n = (int)n;
  rg->cv_error = rb.cv;
  return 0;
}

static int fit_paper(fitws *ws, size_t n, const revprof_fit_options *o,
                     revprof_fnmodel *out) {
  size_t ns = 0;
  int rc;
  while (ns < n && ws->pt[ns].d <= o->paper_split)
    ns++;
  memset(out, 0, sizeof *out);
  if (ns == 0 || ns == n) {
    if ((rc = paper_regime(ws, ws->pt, n, &out->regime[0])))
      return rc;
    out->regime[0].dmin = 0.0;
    out->regime[0].dmax = HUGE_VAL;
    out->nregimes = 1;
    return 0;
  }
  if ((rc = paper_regime(ws, ws->pt, ns, &out->regime[0])) ||
      (rc = paper_regime(ws, ws->pt + ns, n - ns, &out->regime[1])))
    return rc;
  out->regime[0].dmin = 0.0;
  out->regime[0].dmax = o->paper_split;
  out->regime[1].dmin = o->paper_split + 1.0;
  out->regime[1].dmax = HUGE_VAL;
  out->nregimes = 2;
  return 0;
}

/* ------------------------------------------------------------ entry points */

static int check_options(const revprof_fit_options *o, const char *who,
                         char *err, size_t errlen) {
  if (o->method != REVPROF_METHOD_DEFAULT && o->method != REVPROF_METHOD_PAPER) {
    rp_errf(err, errlen, "%s: unknown fitting method %d", who, (int)o->method);
    return REVPROF_EINVAL;
  }
  if (!isfinite(o->paper_split) || o->paper_split < 0.0) {
    rp_errf(err, errlen, "%s: paper_split = %g must be a size >= 0", who,
            o->paper_split);
    return REVPROF_EINVAL;
  }
  if (o->min_sizes < 1 || o->max_regimes < 1) {
    rp_errf(err, errlen,
            "%s: min_sizes = %d and max_regimes = %d must be >= 1", who,
            o->min_sizes, o->max_regimes);
    return REVPROF_EINVAL;
  }
  if (!isfinite(o->regime_gain) || o->regime_gain < 0.0) {
    rp_errf(err, errlen, "%s: regime_gain = %g must be >= 0", who,
            o->regime_gain);
    return REVPROF_EINVAL;
  }
  return 0;
}

static int bad_time(double t) { return !isfinite(t) || t < 0.0; }

/* Checks pts[0..n), copies them into ws->pt sorted by (d, p) and sets the
 * floors: a zero time (below the timer's resolution) is replaced, for
 * weights and relative errors only, by half the column's smallest positive
 * time (1 ns if the column is all zeros). */
static int load_points(fitws *ws, const revprof_point *pts, size_t n,
                       char *err, size_t errlen) {
  const char *fn = revprof_fn_name(pts[0].fn);
  double floor_[NCOL];
  for (int c = 0; c < NCOL; c++)
    floor_[c] = HUGE_VAL;
  for (size_t i = 0; i < n; i++) {
    const revprof_point *q = &pts[i];
    if (q->fn != pts[0].fn) {
      rp_errf(err, errlen,
              "revprof_fit_function: point %zu is %s, point 1 is %s (one "
              "function at a time)",
              i + 1, revprof_fn_name(q->fn), fn);
      return REVPROF_EINVAL;
    }
    if (q->p < 1 || !isfinite(q->d) || q->d < 0.0) {
      rp_errf(err, errlen,
              "revprof_fit_function: %s point %zu: p = %d, d = %g (need "
              "p >= 1 and d >= 0 bytes)",
              fn, i + 1, q->p, q->d);
      return REVPROF_EINVAL;
    }
    if (bad_time(q->min) || bad_time(q->median) || bad_time(q->mean) ||
        bad_time(q->max) || !isfinite(q->rse) || q->rse < 0.0) {
      rp_errf(err, errlen,
              "revprof_fit_function: %s point %zu (p = %d, d = %g): times "
              "and rse must be finite and >= 0 (min %g, median %g, mean %g, "
              "max %g, rse %g)",
              fn, i + 1, q->p, q->d, q->min, q->median, q->mean, q->max,
              q->rse);
      return REVPROF_EINVAL;
    }
    fpt *f = &ws->pt[i];
    f->p = q->p;
    f->d = q->d;
    f->y[COL_MED] = q->median;
    f->y[COL_MIN] = q->min;
    f->y[COL_MAX] = q->max;
    f->y[COL_MEAN] = q->mean;
    f->sigma = q->rse * q->mean;
    for (int c = 0; c < NCOL; c++)
      if (f->y[c] > 0.0 && f->y[c] < floor_[c])
        floor_[c] = f->y[c];
  }
  for (int c = 0; c < NCOL; c++)
    floor_[c] = isfinite(floor_[c]) ? 0.5 * floor_[c] : 1e-9;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < NCOL; c++)
      ws->pt[i].yw[c] = ws->pt[i].y[c] > 0.0 ? ws->pt[i].y[c] : floor_[c];
  qsort(ws->pt, n, sizeof *ws->pt, cmp_fpt);
  return 0;
}

static void print_choice(revprof_fn fn, const revprof_fit_options *o,
                         const revprof_fnmodel *fm) {
  char buf[256];
  fprintf(stderr, "revprof fit (%s): %s\n", revprof_method_name(o->method),
          revprof_fn_name(fn));
  for (int i = 0; i < fm->nregimes; i++) {
    const revprof_regime *r = &fm->regime[i];
    form f;
    f.k = r->nterms;
    memcpy(f.t, r->form, sizeof f.t);
    form_text(&f, buf, sizeof buf);
    char top[32] = "inf";
    if (isfinite(r->dmax))
      snprintf(top, sizeof top, "%.0f", r->dmax);
    double factor;
    if (r->cv_error >= 0.0)
      fprintf(stderr, "  d %.0f..%s: %s  (%d points, CV error %.2f %%)\n",
              r->dmin, top, buf, r->n, r->cv_error * 100.0);
    else if (i == fm->nregimes - 1 &&
             revprof_fnmodel_top_of_range(fm, &factor))
      fprintf(stderr,
              "  d %.0f..%s: %s  (%d points, top of the range: the "
              "equation below x %.3g)\n",
              r->dmin, top, buf, r->n, factor);
    else
      fprintf(stderr, "  d %.0f..%s: %s  (%d points, no CV error)\n",
              r->dmin, top, buf, r->n);
  }
}

static int fit_one(fitws *ws, const revprof_point *pts, size_t n,
                   const revprof_fit_options *o, revprof_fnmodel *out,
                   char *err, size_t errlen) {
  revprof_fnmodel fm;
  int rc = load_points(ws, pts, n, err, errlen);
  if (rc)
    return rc;
  rc = o->method == REVPROF_METHOD_PAPER ? fit_paper(ws, n, o, &fm)
                                         : fit_default(ws, n, o, &fm);
  if (rc) {
    rp_errf(err, errlen, "revprof_fit_function: %s: %s",
            revprof_fn_name(pts[0].fn),
            rc == REVPROF_ENOMEM ? "out of memory" : "least-squares fit failed");
    return rc;
  }
  fm.range.known = 1;
  fm.range.pmin = fm.range.pmax = pts[0].p;
  fm.range.dmin = fm.range.dmax = pts[0].d;
  for (size_t i = 1; i < n; i++) {
    fm.range.pmin = fmin(fm.range.pmin, pts[i].p);
    fm.range.pmax = fmax(fm.range.pmax, pts[i].p);
    fm.range.dmin = fmin(fm.range.dmin, pts[i].d);
    fm.range.dmax = fmax(fm.range.dmax, pts[i].d);
  }
  if (o->verbose)
    print_choice(pts[0].fn, o, &fm);
  *out = fm;
  return 0;
}

int revprof_fit_function(const revprof_point *pts, size_t n,
                         const revprof_fit_options *o, revprof_fnmodel *out,
                         char *err, size_t errlen) {
  revprof_fit_options defaults;
  fitws ws;
  if (pts == NULL || n == 0 || out == NULL) {
    rp_errf(err, errlen, "revprof_fit_function: %s",
            out == NULL ? "no output model" : "no points to fit");
    return REVPROF_EINVAL;
  }
  if (n > (size_t)1 << 30) {
    rp_errf(err, errlen, "revprof_fit_function: %zu points is too many", n);
    return REVPROF_EINVAL;
  }
  if (o == NULL) {
    revprof_fit_options_init(&defaults);
    o = &defaults;
  }
  int rc = check_options(o, "revprof_fit_function", err, errlen);
  if (rc)
    return rc;
  if (ws_alloc(&ws, n)) {
    rp_errf(err, errlen, "revprof_fit_function: out of memory (%zu points)",
            n);
    return REVPROF_ENOMEM;
  }
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  rc = fit_one(&ws, pts, n, o, out, err, errlen);
  gsl_set_error_handler(old);
  ws_free(&ws);
  return rc;
}

int revprof_fit(const revprof_raw *raw, const revprof_fit_options *o,
                revprof_model *model, char *err, size_t errlen) {
  revprof_fit_options defaults;
  size_t count[REVPROF_FN_COUNT] = {0}, nmax = 0;
  if (raw == NULL || model == NULL || raw->n == 0) {
    rp_errf(err, errlen, "revprof_fit: %s",
            model == NULL ? "no model" : "no raw points to fit");
    return REVPROF_EINVAL;
  }
  if (o == NULL) {
    revprof_fit_options_init(&defaults);
    o = &defaults;
  }
  int rc = check_options(o, "revprof_fit", err, errlen);
  if (rc)
    return rc;
  for (size_t i = 0; i < raw->n; i++) {
    if ((unsigned)raw->pt[i].fn >= REVPROF_FN_COUNT) {
      rp_errf(err, errlen, "revprof_fit: point %zu: unknown function %d",
              i + 1, (int)raw->pt[i].fn);
      return REVPROF_EINVAL;
    }
    if (++count[raw->pt[i].fn] > nmax)
      nmax = count[raw->pt[i].fn];
  }
  fitws ws;
  revprof_point *buf = malloc(nmax * sizeof *buf);
  revprof_fnmodel *fm = malloc(REVPROF_FN_COUNT * sizeof *fm);
  if (buf == NULL || fm == NULL || ws_alloc(&ws, nmax)) {
    free(buf);
    free(fm);
    rp_errf(err, errlen, "revprof_fit: out of memory");
    return REVPROF_ENOMEM;
  }
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  for (int f = 0; f < REVPROF_FN_COUNT && rc == 0; f++) {
    size_t k = 0;
    if (count[f] == 0)
      continue;
    for (size_t i = 0; i < raw->n; i++)
      if ((int)raw->pt[i].fn == f)
        buf[k++] = raw->pt[i];
    rc = fit_one(&ws, buf, k, o, &fm[f], err, errlen);
  }
  gsl_set_error_handler(old);
  if (rc == 0) /* all or nothing */
    for (int f = 0; f < REVPROF_FN_COUNT; f++)
      if (count[f])
        model->fn[f] = fm[f];
  ws_free(&ws);
  free(buf);
  free(fm);
  return rc;
}
