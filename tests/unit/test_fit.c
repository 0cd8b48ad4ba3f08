/* Unit tests of the fitter (models/fit.c): known equations recovered from
 * synthetic exact and noisy data by both methods, breakpoints, degenerate
 * data (one p, d = 0 only, one point), non-negative coefficients, bounds,
 * model checks and file round trips, and rejected input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "revprof_model.h"

/* |a - b| <= rel * |b|, both values in the failure message. */
#define expect_rel(a, b, rel)                                                  \
  do {                                                                         \
    double ea_ = (a), eb_ = (b), et_ = (rel) * fabs(eb_);                      \
    if (!(fabs(ea_ - eb_) <= et_))                                             \
      fail_msg("%s = %.17g, expected %s = %.17g (relative tolerance %g)", #a,  \
               ea_, #b, eb_, (double)(rel));                                   \
  } while (0)

/* ------------------------------------------------------------- fixtures */

typedef double (*truth_fn)(double p, double d);

static unsigned long long rng = 1;

static double urand(void) { /* xorshift64, uniform in [0, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* 0, then 1 B to 4 MiB in powers of two: 24 sizes. */
static double dsize(int i) { return i == 0 ? 0.0 : ldexp(1.0, i - 1); }
#define NSIZES 24

/* Points of fn for p = pmin..pmax and the first nd sizes; median = mean =
 * truth x (1 + noise * U(-1, 1)), min = 0.93 x median, max = 1.18 x
 * median, rse = 1 %. Returns a malloc'd array and its length in *n. */
static revprof_point *make_points(revprof_fn fn, int pmin, int pmax, int nd,
                                  truth_fn f, double noise, size_t *n) {
  size_t cap = (size_t)(pmax - pmin + 1) * (size_t)nd;
  revprof_point *pt = calloc(cap, sizeof *pt);
  assert_non_null(pt);
  *n = 0;
  for (int p = pmin; p <= pmax; p++)
    for (int i = 0; i < nd; i++) {
      revprof_point *q = &pt[(*n)++];
      double d = dsize(i), t = f(p, d) * (1.0 + noise * (2.0 * urand() - 1.0));
      q->fn = fn;
      q->p = p;
      q->d = d;
      q->median = q->mean = t;
      q->min = 0.93 * t;
      q->max = 1.18 * t;
      q->reps = 50;
      q->rse = 0.01;
    }
  return pt;
}

static revprof_fit_options opts(revprof_method m) {
  revprof_fit_options o;
  revprof_fit_options_init(&o);
  o.method = m;
  return o;
}

static void fit_ok(const revprof_point *pt, size_t n, revprof_method m,
                   revprof_fnmodel *out) {
  char err[512] = "";
  revprof_fit_options o = opts(m);
  int rc = revprof_fit_function(pt, n, &o, out, err, sizeof err);
  if (rc != 0)
    fail_msg("revprof_fit_function: %d: %s", rc, err);
}

/* The regime's form must be exactly terms[0..k) in that order. */
static void expect_form(const revprof_regime *r, int k,
                        const revprof_basis *terms) {
  char got[256] = "";
  for (int a = 0; a < r->nterms; a++) {
    strcat(got, revprof_basis_name(r->form[a]));
    strcat(got, " ");
  }
  if (r->nterms != k)
    fail_msg("form has %d terms (%s), expected %d", r->nterms, got, k);
  for (int a = 0; a < k; a++)
    if (r->form[a] != terms[a])
      fail_msg("term %d is %s (form %s), expected %s", a + 1,
               revprof_basis_name(r->form[a]), got,
               revprof_basis_name(terms[a]));
}

static void expect_coefs(const revprof_regime *r, const double *c,
                         double rel) {
  for (int a = 0; a < r->nterms; a++)
    expect_rel(r->avg[a], c[a], rel);
}

/* The function model inside a model passes revprof_model_check. */
static void expect_checks(const revprof_fnmodel *fm, revprof_fn fn) {
  char err[512] = "";
  revprof_model *m = revprof_model_alloc();
  assert_non_null(m);
  m->fn[fn] = *fm;
  int rc = revprof_model_check(m, "fitted", err, sizeof err);
  revprof_model_free(m);
  if (rc != 0)
    fail_msg("revprof_model_check: %s", err);
}

/* Largest relative deviation of the model's avg from the truth over the
 * grid of p = pmin..pmax and the first nd sizes. */
static double max_dev(const revprof_fnmodel *fm, revprof_fn fn, int pmin,
                      int pmax, int nd, truth_fn f) {
  revprof_model *m = revprof_model_alloc();
  double worst = 0.0;
  assert_non_null(m);
  m->fn[fn] = *fm;
  for (int p = pmin; p <= pmax; p++)
    for (int i = 0; i < nd; i++) {
      double out[3], t = f(p, dsize(i));
      assert_int_equal(revprof_model_eval(m, fn, p, dsize(i), out), 0);
      if (t <= 0.0)
        continue;
      double e = fabs(out[REVPROF_AVG] - t) / t;
      if (e > worst)
        worst = e;
    }
  revprof_model_free(m);
  return worst;
}

/* ------------------------------------------------------ known equations */

static double eq_log(double p, double d) {
  return 4.2e-6 + 1.3e-6 * log2(p) + 3.1e-10 * log2(p) * d;
}
static double eq_lin(double p, double d) {
  return 2.7e-6 + 0.45e-6 * p + 1.9e-10 * (p - 1.0) / p * d;
}
static double eq_sqrt(double p, double d) {
  return 1.1e-6 + 0.7e-6 * sqrt(p) + 2.3e-10 * d;
}
/* seed 003's MPI_Allreduce example, microseconds turned into seconds */
static double eq_paper(double p, double d) {
  return d <= 32.0 ? 50e-6 + 200e-6 * log2(p) + 4e-6 * d
                   : 300e-6 + 20e-6 * p + 0.9e-6 * log2(p) * d;
}
/* eager to rendezvous at 64 KiB (p2p, p = 2) */
static double eq_eager(double p, double d) {
  (void)p;
  return d <= 65536.0 ? 1.1e-6 + d / 8e9 : 14e-6 + d / 1.2e10;
}
/* a collective switching algorithm after 8 KiB */
static double eq_switch(double p, double d) {
  return d <= 8192.0 ? 2e-6 + 1.5e-6 * log2(p) + 2.5e-10 * log2(p) * d
                     : 2e-5 + 3e-6 * log2(p) + 5e-10 * (p - 1.0) / p * d;
}
static double eq_barrier(double p, double d) {
  (void)d;
  return 1.2e-6 + 0.8e-6 * log2(p);
}

static void test_fit_default_recovers_exact_equations(void **state) {
  (void)state;
  static const struct {
    truth_fn f;
    revprof_basis t[3];
    double c[3];
  } eq[] = {
      {eq_log,
       {REVPROF_BASIS_ONE, REVPROF_BASIS_LOG2P, REVPROF_BASIS_LOG2PD},
       {4.2e-6, 1.3e-6, 3.1e-10}},
      {eq_lin,
       {REVPROF_BASIS_ONE, REVPROF_BASIS_P, REVPROF_BASIS_PM1_P_D},
       {2.7e-6, 0.45e-6, 1.9e-10}},
      {eq_sqrt,
       {REVPROF_BASIS_ONE, REVPROF_BASIS_SQRTP, REVPROF_BASIS_D},
       {1.1e-6, 0.7e-6, 2.3e-10}},
  };
  for (size_t e = 0; e < sizeof eq / sizeof eq[0]; e++) {
    size_t n;
    revprof_fnmodel fm;
    revprof_point *pt =
        make_points(REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq[e].f, 0.0, &n);
    fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
    assert_int_equal(fm.nregimes, 1);
    expect_form(&fm.regime[0], 3, eq[e].t);
    expect_coefs(&fm.regime[0], eq[e].c, 1e-8);
    assert_int_equal(fm.regime[0].n, (int)n);
    assert_true(fm.regime[0].cv_error >= 0.0 &&
                fm.regime[0].cv_error < 1e-9);
    assert_true(fm.regime[0].dmin == 0.0 && isinf(fm.regime[0].dmax));
    expect_checks(&fm, REVPROF_FN_ALLREDUCE);
    free(pt);
  }
}

/* A shared resource that saturates beyond 8 ranks (a backbone behind
 * per-host links), in its startup and per byte alike: flat from 2 to 8
 * group sizes, linear beyond (issue 14: with smooth p-terms alone the 8-rank
 * value was over-predicted by a quarter, between the flat 4 and the risen
 * 16). */
static double eq_backbone(double p, double d) {
  double h = p > 8.0 ? p - 8.0 : 0.0;
  return 1.5e-6 + 2e-7 * h + (1e-10 + 2e-11 * h) * d;
}

/* Points of f at the group sizes ps[0..nps) (see make_points). */
static revprof_point *make_points_at(revprof_fn fn, const int *ps, int nps,
                                     truth_fn f, size_t *n) {
  revprof_point *pt = calloc((size_t)nps * NSIZES, sizeof *pt);
  assert_non_null(pt);
  *n = 0;
  for (int i = 0; i < nps; i++) {
    size_t k;
    revprof_point *one = make_points(fn, ps[i], ps[i], NSIZES, f, 0.0, &k);
    memcpy(pt + *n, one, k * sizeof *pt);
    *n += k;
    free(one);
  }
  return pt;
}

/* Fitted from points at the group sizes ps[0..5), truth is one regime of
 * the form {1, hinge, d, hinge*d} with coefficients c, exactly (within
 * 1e-8 of every point between ps[0] and ps[4]), and passes the checks. */
static void expect_hinge_fit(truth_fn truth, const int *ps, revprof_basis h,
                             revprof_basis hd, const double *c) {
  const revprof_basis t[] = {REVPROF_BASIS_ONE, h, REVPROF_BASIS_D, hd};
  size_t n;
  revprof_fnmodel fm;
  revprof_point *pt = make_points_at(REVPROF_FN_GAP_ALL, ps, 5, truth, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 1);
  expect_form(&fm.regime[0], 4, t);
  expect_coefs(&fm.regime[0], c, 1e-8);
  assert_true(max_dev(&fm, REVPROF_FN_GAP_ALL, ps[0], ps[4], NSIZES, truth) <
              1e-8);
  expect_checks(&fm, REVPROF_FN_GAP_ALL);
  free(pt);
}

static void test_fit_default_finds_saturation_hinge(void **state) {
  (void)state;
  static const double c[] = {1.5e-6, 2e-7, 1e-10, 2e-11};
  static const int ps[] = {2, 4, 8, 16, 32};
  expect_hinge_fit(eq_backbone, ps, REVPROF_BASIS_HINGE8,
                   REVPROF_BASIS_HINGE8D, c);
}

/* The backbone saturating beyond 4 ranks instead of 8. */
static double eq_backbone4(double p, double d) {
  double h = p > 4.0 ? p - 4.0 : 0.0;
  return 1.5e-6 + 2e-7 * h + (1e-10 + 2e-11 * h) * d;
}

/* The same saturation beyond 128 ranks, measured up to 512: the
 * separable form pairs max(p-128,0) with max(p-128,0)*d (its first version
 * paired every hinge from 64 up with max(p-64,0)*d, all zero at 8 and 64
 * ranks). */
static double eq_backbone128(double p, double d) {
  double h = p > 128.0 ? p - 128.0 : 0.0;
  return 1.5e-6 + 2e-8 * h + (1e-10 + 2e-12 * h) * d;
}

static void test_fit_default_finds_hinge_at_128(void **state) {
  (void)state;
  static const double c[] = {1.5e-6, 2e-8, 1e-10, 2e-12};
  static const int ps[] = {16, 64, 128, 256, 512};
  expect_hinge_fit(eq_backbone128, ps, REVPROF_BASIS_HINGE128,
                   REVPROF_BASIS_HINGE128D, c);
}

/* A hinge whose knot is not strictly inside the measured group sizes is
 * zero there, or the same model as p: never chosen. Measured at 8, 16 and
 * 32 only, a backbone saturating beyond 4 ranks is linear in p and fitted
 * so (extrapolated below 8 as a line, which is all the data say). */
static void test_fit_hinge_needs_knot_inside(void **state) {
  (void)state;
  static const int ps[] = {8, 16, 32};
  size_t n;
  revprof_fnmodel fm;
  revprof_point *pt =
      make_points_at(REVPROF_FN_GAP_ALL, ps, 3, eq_backbone4, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  for (int i = 0; i < fm.nregimes; i++)
    for (int k = 0; k < fm.regime[i].nterms; k++)
      if (revprof_basis_knot(fm.regime[i].form[k]) > 0.0)
        fail_msg("regime %d term %d is %s", i + 1, k + 1,
                 revprof_basis_name(fm.regime[i].form[k]));
  assert_true(max_dev(&fm, REVPROF_FN_GAP_ALL, 8, 32, NSIZES, eq_backbone4) <
              1e-6);
  free(pt);
}

/* SimGrid's network between 257 and 2047 bytes, sampled at powers of two:
 * a regime of three sizes (256, 512, 1 KiB) between two others, at a
 * backbone saturating beyond 8 ranks. Measured at 4, 8 and 16 ranks each
 * size holds three points, so the regime may have one size fewer than
 * min_sizes = 4 (before, 1 KiB fell in a regime from 512 B up; on
 * SimGrid's own gap_all, bench/smpi-p2p.sh, one regime from 256 B to
 * 12 KiB was 46 % under the measured time at 1 KiB and 16 ranks). */
static double eq_short_regime(double p, double d) {
  double h = 1.0 + 0.1 * (p > 8.0 ? p - 8.0 : 0.0);
  if (d < 256.0)
    return (1.6e-7 + 1e-8 * d) * h;
  if (d < 2048.0)
    return (2e-7 + 4e-8 * d) * h;
  return (2e-5 + 6e-9 * d) * h;
}

static void test_fit_default_short_regime_at_several_p(void **state) {
  (void)state;
  static const int ps[] = {4, 8, 16};
  size_t n;
  revprof_fnmodel fm;
  revprof_point *pt =
      make_points_at(REVPROF_FN_GAP_ALL, ps, 3, eq_short_regime, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  int k = 0;
  while (k < fm.nregimes && fm.regime[k].dmax < 1024.0)
    k++;
  assert_true(k < fm.nregimes);
  if (fm.regime[k].dmin != 256.0 || fm.regime[k].dmax != 2047.0)
    fail_msg("1 KiB is in the regime %g..%g, expected 256..2047",
             fm.regime[k].dmin, fm.regime[k].dmax);
  double dev = max_dev(&fm, REVPROF_FN_GAP_ALL, 4, 16, NSIZES,
                       eq_short_regime);
  if (dev > 1e-6)
    fail_msg("deviation from the truth %g", dev);
  expect_checks(&fm, REVPROF_FN_GAP_ALL);
  free(pt);
}

static void test_fit_paper_recovers_exact_equations(void **state) {
  (void)state;
  static const revprof_basis small[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_LOG2P,
                                        REVPROF_BASIS_D};
  static const revprof_basis large[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_P,
                                        REVPROF_BASIS_LOG2PD};
  static const double cs[] = {50e-6, 200e-6, 4e-6};
  static const double cl[] = {300e-6, 20e-6, 0.9e-6};
  size_t n;
  revprof_fnmodel fm;
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_paper, 0.0, &n);
  fit_ok(pt, n, REVPROF_METHOD_PAPER, &fm);
  assert_int_equal(fm.nregimes, 2);
  assert_true(fm.regime[0].dmin == 0.0 && fm.regime[0].dmax == 32.0);
  assert_true(fm.regime[1].dmin == 33.0 && isinf(fm.regime[1].dmax));
  expect_form(&fm.regime[0], 3, small);
  expect_form(&fm.regime[1], 3, large);
  expect_coefs(&fm.regime[0], cs, 1e-8);
  expect_coefs(&fm.regime[1], cl, 1e-8);
  assert_int_equal(fm.regime[0].n + fm.regime[1].n, (int)n);
  /* exact data, yet the points' 1 % standard errors propagate (not just
   * round-off, which is 1e-12 of the coefficients) */
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 3; k++)
      assert_true(fm.regime[i].err[k] > 1e-5 * fm.regime[i].avg[k]);
  expect_checks(&fm, REVPROF_FN_ALLREDUCE);
  free(pt);
}

/* The stored cv_error is the mean relative leave-one-out error: compare
 * with refitting c + k*d without each point in turn (weights 1/y^2). */
static void test_fit_cv_error_is_leave_one_out(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_D};
  size_t n;
  revprof_fnmodel fm;
  char err[256];
  rng = 2718;
  revprof_point *pt =
      make_points(REVPROF_FN_RECV, 2, 2, NSIZES, eq_sqrt, 0.05, &n);
  revprof_fit_options o = opts(REVPROF_METHOD_DEFAULT);
  o.max_regimes = 1;
  assert_int_equal(revprof_fit_function(pt, n, &o, &fm, err, sizeof err), 0);
  expect_form(&fm.regime[0], 2, t);
  double acc = 0.0;
  for (size_t i = 0; i < n; i++) {
    double s0 = 0, s1 = 0, s2 = 0, b0 = 0, b1 = 0; /* normal equations */
    for (size_t j = 0; j < n; j++) {
      double w = 1.0 / (pt[j].median * pt[j].median), d = pt[j].d;
      if (j == i)
        continue;
      s0 += w;
      s1 += w * d;
      s2 += w * d * d;
      b0 += w * pt[j].median;
      b1 += w * d * pt[j].median;
    }
    double det = s0 * s2 - s1 * s1;
    double c = (b0 * s2 - b1 * s1) / det, k = (s0 * b1 - s1 * b0) / det;
    acc += fabs(pt[i].median - c - k * pt[i].d) / pt[i].median;
  }
  expect_rel(fm.regime[0].cv_error, acc / (double)n, 1e-6);
  free(pt);
}

/* ±4 % uniform noise (fixed seed): the default method still picks the true
 * form, every coefficient within 5 % and the curve within 2 % of the
 * noise-free truth everywhere on the grid. */
static void test_fit_default_noisy_within_tolerance(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_LOG2P,
                                    REVPROF_BASIS_LOG2PD};
  static const double c[] = {4.2e-6, 1.3e-6, 3.1e-10};
  size_t n;
  revprof_fnmodel fm;
  rng = 12345;
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_log, 0.04, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 1);
  expect_form(&fm.regime[0], 3, t);
  expect_coefs(&fm.regime[0], c, 0.05);
  double dev = max_dev(&fm, REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_log);
  if (dev > 0.02)
    fail_msg("deviation from the truth %.4f > 0.02", dev);
  /* uniform ±4 % noise has mean absolute value 2 % */
  assert_true(fm.regime[0].cv_error > 0.015 && fm.regime[0].cv_error < 0.03);
  expect_checks(&fm, REVPROF_FN_ALLREDUCE);
  free(pt);
}

/* ±3 % noise with the paper method: forms as without noise, coefficients
 * within 10 % where they matter, curve within 3 % of the truth. */
static void test_fit_paper_noisy_within_tolerance(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  rng = 777;
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_paper, 0.03, &n);
  fit_ok(pt, n, REVPROF_METHOD_PAPER, &fm);
  assert_int_equal(fm.nregimes, 2);
  const revprof_regime *s = &fm.regime[0], *l = &fm.regime[1];
  assert_int_equal(s->form[1], REVPROF_BASIS_LOG2P);
  assert_int_equal(l->form[2], REVPROF_BASIS_LOG2PD);
  expect_rel(s->avg[1], 200e-6, 0.1);
  expect_rel(s->avg[2], 4e-6, 0.1);
  expect_rel(l->avg[2], 0.9e-6, 0.1);
  double dev = max_dev(&fm, REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_paper);
  if (dev > 0.03)
    fail_msg("deviation from the truth %.4f > 0.03", dev);
  expect_checks(&fm, REVPROF_FN_ALLREDUCE);
  free(pt);
}

/* Paper weights are 1/sigma^2 with sigma = rse * mean: a point measured
 * imprecisely (large rse) barely moves the fit, while with relative
 * weights (some point without rse) it would. */
static void test_fit_paper_weights_by_standard_error(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel precise, relative;
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_paper, 0.0, &n);
  for (size_t i = 0; i < n; i++)
    if (pt[i].d == 0.0 && pt[i].p == 9) { /* one bad point, known to be */
      pt[i].mean = pt[i].median = 3.0 * pt[i].mean;
      pt[i].max = 1.2 * pt[i].mean;
      pt[i].rse = 0.5;
    }
  fit_ok(pt, n, REVPROF_METHOD_PAPER, &precise);
  pt[1].rse = 0.0; /* a small-message point without rse: relative weights */
  fit_ok(pt, n, REVPROF_METHOD_PAPER, &relative);
  double dp = max_dev(&precise, REVPROF_FN_ALLREDUCE, 2, 16, 7, eq_paper);
  double dr = max_dev(&relative, REVPROF_FN_ALLREDUCE, 2, 16, 7, eq_paper);
  if (!(dp < 0.01 && dr > 2.0 * dp))
    fail_msg("small-message deviation %.4f with sigma weights, %.4f with "
             "relative weights",
             dp, dr);
  free(pt);
}

/* A p-independent time with noise: no p-term may survive selection and
 * pruning, whatever the noise happens to favour. */
static double eq_flat_p(double p, double d) {
  (void)p;
  return 3.3e-6 + 2.1e-10 * d;
}

static void test_fit_default_prunes_unneeded_terms(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_D};
  for (unsigned long long seed = 1; seed <= 8; seed++) {
    size_t n;
    revprof_fnmodel fm;
    rng = seed * 104729;
    revprof_point *pt =
        make_points(REVPROF_FN_ALLGATHER, 2, 16, NSIZES, eq_flat_p, 0.04, &n);
    fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
    assert_int_equal(fm.nregimes, 1);
    expect_form(&fm.regime[0], 2, t);
    free(pt);
  }
}

/* ------------------------------------------------- startup terms, d = 0 */

/* small messages whose startup cost is a tenth of the time at 4 KiB */
static double eq_startup(double p, double d) {
  (void)p;
  return 3e-7 + 7e-10 * d;
}
/* an MPI library that short-cuts empty messages (Open MPI's MPI_Allreduce) */
static double eq_shortcut(double p, double d) {
  (void)p;
  return d == 0.0 ? 4e-8 : 4e-7 + 2e-10 * d;
}

/* Issue 8: regimes were fitted as k*d without a constant (0 s at 0 bytes). */
static void test_fit_default_keeps_startup_term(void **state) {
  (void)state;
  for (unsigned long long seed = 1; seed <= 8; seed++) {
    size_t n;
    revprof_fnmodel fm;
    rng = seed * 7919;
    /* 256 B .. 64 KiB, where the constant is 57 % .. 0.5 % of the time,
     * 10 % noise: with the startup term optional, k*d alone often won */
    revprof_point *pt = make_points(REVPROF_FN_SEND, 2, 2, 18, eq_startup,
                                    0.10, &n);
    memmove(pt, pt + 9, (n - 9) * sizeof *pt);
    n -= 9;
    fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
    const revprof_regime *r = &fm.regime[0];
    int has1 = 0;
    for (int a = 0; a < r->nterms; a++)
      has1 |= r->form[a] == REVPROF_BASIS_ONE && r->avg[a] > 0.0;
    if (!has1)
      fail_msg("seed %llu: the small-message regime lost its startup term",
               seed);
    /* and 1 byte is predicted near its 0.3 us, not near 0 (extrapolated
     * down: 1 B was not measured) */
    revprof_model *m = revprof_model_alloc();
    double out[3];
    m->fn[REVPROF_FN_SEND] = fm;
    assert_int_equal(revprof_model_eval(m, REVPROF_FN_SEND, 2, 1, out), 0);
    expect_rel(out[REVPROF_AVG], eq_startup(2, 1), 0.5);
    revprof_model_free(m);
    free(pt);
  }
}

static void test_fit_default_zero_bytes_regime(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  rng = 5;
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 2, NSIZES, eq_shortcut, 0.03, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_true(fm.nregimes >= 2);
  assert_true(fm.regime[0].dmin == 0.0 && fm.regime[0].dmax == 0.0);
  assert_true(fm.regime[1].dmin == 1.0);
  expect_checks(&fm, REVPROF_FN_ALLREDUCE);
  assert_true(max_dev(&fm, REVPROF_FN_ALLREDUCE, 2, 2, NSIZES, eq_shortcut) <
              0.1);
  free(pt);
  /* where d = 0 follows the same equation it gets no regime of its own */
  pt = make_points(REVPROF_FN_ALLREDUCE, 2, 2, NSIZES, eq_startup, 0.0, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 1);
  free(pt);
}

/* With max_regimes above REVPROF_MAX_REGIMES and the d = 0 regime taken,
 * the sizes above must still leave room for it (no overflow). */
static double eq_steps(double p, double d) { /* 12 plateaus, then 0 B */
  (void)p;
  return d == 0.0 ? 1e-8 : 1e-6 * pow(3.0, floor(log2(d) / 2.0));
}

static void test_fit_zero_regime_respects_max_regimes(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  char err[512] = "";
  rng = 77;
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 2, NSIZES, eq_steps, 0.01, &n);
  revprof_fit_options o = opts(REVPROF_METHOD_DEFAULT);
  o.max_regimes = 100;
  o.min_sizes = 1;
  o.regime_gain = 0.0;
  assert_int_equal(revprof_fit_function(pt, n, &o, &fm, err, sizeof err), 0);
  assert_true(fm.nregimes >= 2 && fm.nregimes <= REVPROF_MAX_REGIMES);
  assert_true(fm.regime[0].dmax == 0.0);
  expect_checks(&fm, REVPROF_FN_ALLREDUCE);
  free(pt);
}

/* One size measured while the machine was busy (3x) does not drag the
 * equation: the final fit is robust (least absolute relative deviation). */
static void test_fit_default_robust_to_outlier(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  rng = 11;
  revprof_point *pt =
      make_points(REVPROF_FN_SEND, 2, 2, 13, eq_startup, 0.02, &n);
  for (int i = 5; i <= 7; i += 2) { /* 16 B and 64 B */
    pt[i].median = pt[i].mean = 3.0 * pt[i].median;
    pt[i].max = 1.18 * pt[i].median;
  }
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  revprof_model *m = revprof_model_alloc();
  m->fn[REVPROF_FN_SEND] = fm;
  for (int i = 1; i < 13; i++) {
    double out[3];
    assert_int_equal(revprof_model_eval(m, REVPROF_FN_SEND, 2, dsize(i), out),
                     0);
    expect_rel(out[REVPROF_AVG], eq_startup(2, dsize(i)), 0.05);
  }
  revprof_model_free(m);
  free(pt);
}

/* ----------------------------------------------------------- breakpoints */

/* Fits MPI_Send at p = 2 over all sizes of the truth f (3 % noise when
 * noisy, generator seeded with seed), which must give two regimes. */
static void fit_two_regimes(truth_fn f, unsigned long long seed, int noisy,
                            revprof_fnmodel *fm) {
  size_t n;
  rng = seed;
  revprof_point *pt =
      make_points(REVPROF_FN_SEND, 2, 2, NSIZES, f, noisy ? 0.03 : 0.0, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, fm);
  free(pt);
  if (fm->nregimes != 2)
    fail_msg("%s data: %d regimes, expected 2", noisy ? "noisy" : "exact",
             fm->nregimes);
}

static void test_fit_default_finds_eager_rendezvous_breakpoint(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_D};
  static const double ce[] = {1.1e-6, 1.0 / 8e9}, cr[] = {14e-6, 1.0 / 1.2e10};
  for (int noisy = 0; noisy < 2; noisy++) {
    revprof_fnmodel fm;
    fit_two_regimes(eq_eager, 99, noisy, &fm);
    assert_true(fm.regime[0].dmin == 0.0);
    /* unmeasured sizes up to the next measured one (128 KiB) stay eager:
     * protocol limits are inclusive */
    assert_true(fm.regime[0].dmax == 131071.0);
    assert_true(fm.regime[1].dmin == 131072.0);
    assert_true(isinf(fm.regime[1].dmax));
    assert_int_equal(fm.regime[0].n, 18);
    assert_int_equal(fm.regime[1].n, 6);
    assert_false(revprof_fnmodel_top_of_range(&fm, NULL)); /* a regime */
    expect_form(&fm.regime[0], 2, t);
    expect_form(&fm.regime[1], 2, t);
    expect_coefs(&fm.regime[0], ce, noisy ? 0.1 : 1e-8);
    expect_coefs(&fm.regime[1], cr, noisy ? 0.1 : 1e-8);
    expect_checks(&fm, REVPROF_FN_SEND);
  }
}

/* Where unmeasured sizes between two regimes go: from the first power of
 * two above the lower regime's last size on, to the upper regime (a
 * protocol limit of 4 KiB already applies to 4096 B when it counts the
 * header); with no power of two in the gap, all to the lower one. */
static void test_fit_default_regime_switch_between_sizes(void **state) {
  (void)state;
  static const double lo_a[] = {16,   32,   64,   128,   256,   512,  1024,
                                2048, 3072, 3584, 8192,  16384, 32768,
                                65536, 131072, 262144, 524288};
  static const double lo_b[] = {16,  32,   64,   128,  160,  192,   224,
                                256, 448,  512,  1024, 2048, 4096,  8192};
  static const struct {
    const double *d;
    size_t n;
    double last_lower, dmax;
  } c[] = {{lo_a, sizeof lo_a / sizeof *lo_a, 3584, 4095},
           {lo_b, sizeof lo_b / sizeof *lo_b, 256, 447}};
  for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
    revprof_point pt[32];
    revprof_fnmodel fm;
    memset(pt, 0, sizeof pt);
    for (size_t i = 0; i < c[k].n; i++) {
      double d = c[k].d[i];
      double t = d <= c[k].last_lower ? 1e-6 + d / 8e9 : 4e-6 + d / 1.2e10;
      pt[i].fn = REVPROF_FN_SEND;
      pt[i].p = 2;
      pt[i].d = d;
      pt[i].median = pt[i].mean = t;
      pt[i].min = 0.93 * t;
      pt[i].max = 1.18 * t;
      pt[i].reps = 50;
      pt[i].rse = 0.01;
    }
    fit_ok(pt, c[k].n, REVPROF_METHOD_DEFAULT, &fm);
    if (fm.nregimes != 2)
      fail_msg("case %zu: %d regimes, expected 2", k, fm.nregimes);
    if (!(fm.regime[0].dmax == c[k].dmax &&
          fm.regime[1].dmin == c[k].dmax + 1.0))
      fail_msg("case %zu: regimes split at %g/%g, expected %g/%g", k,
               fm.regime[0].dmax, fm.regime[1].dmin, c[k].dmax,
               c[k].dmax + 1.0);
    expect_checks(&fm, REVPROF_FN_SEND);
  }
}

static void test_fit_default_finds_collective_breakpoint(void **state) {
  (void)state;
  static const revprof_basis ts[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_LOG2P,
                                     REVPROF_BASIS_LOG2PD};
  static const revprof_basis tl[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_LOG2P,
                                     REVPROF_BASIS_PM1_P_D};
  static const double cs[] = {2e-6, 1.5e-6, 2.5e-10};
  static const double cl[] = {2e-5, 3e-6, 5e-10};
  size_t n;
  revprof_fnmodel fm;
  revprof_point *pt =
      make_points(REVPROF_FN_BCAST, 2, 16, NSIZES, eq_switch, 0.0, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 2);
  assert_true(fm.regime[0].dmax == 16383.0 && fm.regime[1].dmin == 16384.0);
  expect_form(&fm.regime[0], 3, ts);
  expect_form(&fm.regime[1], 3, tl);
  expect_coefs(&fm.regime[0], cs, 1e-8);
  expect_coefs(&fm.regime[1], cl, 1e-8);
  expect_checks(&fm, REVPROF_FN_BCAST);
  free(pt);
}

/* Without a breakpoint in the data, noise must not invent one. */
static void test_fit_default_no_spurious_breakpoint(void **state) {
  (void)state;
  for (unsigned long long seed = 1; seed <= 5; seed++) {
    size_t n;
    revprof_fnmodel fm;
    rng = seed * 7919;
    revprof_point *pt =
        make_points(REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_lin, 0.05, &n);
    fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
    if (fm.nregimes != 1)
      fail_msg("seed %llu: %d regimes from one equation plus noise", seed,
               fm.nregimes);
    free(pt);
  }
}

/* ------------------------------------------------------ top of the range */

/* A cache cliff at the top of the measured range: from 2 MiB on, 1.6 times
 * the equation below (2 sizes, fewer than min_sizes = 4, so no segment of
 * the breakpoint search can hold them). */
static double eq_cliff(double p, double d) {
  return (d >= 2097152.0 ? 1.6 : 1.0) * eq_startup(p, d);
}
static double eq_cliff_coll(double p, double d) {
  return (d >= 4194304.0 ? 1.8 : 1.0) * eq_log(p, d);
}

/* The top sizes get a regime of their own: the equation below scaled. */
static void test_fit_default_top_of_range_cliff(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_D};
  static const double c[] = {3e-7, 7e-10}, ct[] = {1.6 * 3e-7, 1.6 * 7e-10};
  for (int noisy = 0; noisy < 2; noisy++) {
    revprof_fnmodel fm;
    fit_two_regimes(eq_cliff, 5, noisy, &fm);
    assert_true(fm.regime[0].dmax == 2097151.0);
    assert_true(fm.regime[1].dmin == 2097152.0 && isinf(fm.regime[1].dmax));
    assert_int_equal(fm.regime[1].n, 2);
    assert_true(fm.regime[1].cv_error < 0.0); /* not cross-validated */
    double factor = 0.0;
    assert_true(revprof_fnmodel_top_of_range(&fm, &factor));
    expect_rel(factor, 1.6, noisy ? 0.1 : 1e-8);
    expect_form(&fm.regime[0], 2, t);
    expect_form(&fm.regime[1], 2, t);
    expect_coefs(&fm.regime[0], c, noisy ? 0.1 : 1e-8);
    expect_coefs(&fm.regime[1], ct, noisy ? 0.1 : 1e-8);
    /* bounds from the two points' own spread: min 0.93, max 1.18 x */
    expect_rel(fm.regime[1].min[1], 0.93 * fm.regime[1].avg[1], 1e-8);
    expect_rel(fm.regime[1].max[1], 1.18 * fm.regime[1].avg[1], 1e-8);
    assert_true(max_dev(&fm, REVPROF_FN_SEND, 2, 2, NSIZES, eq_cliff) <
                (noisy ? 0.06 : 1e-8));
    expect_checks(&fm, REVPROF_FN_SEND);
  }
}

/* A collective over p = 2..16, 4 MiB above the cliff: the tail keeps the
 * p-dependence. */
static void test_fit_default_top_of_range_keeps_p(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_cliff_coll, 0.0, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 2);
  assert_true(fm.regime[1].dmin == 4194304.0);
  assert_int_equal(fm.regime[1].n, 15);
  assert_true(max_dev(&fm, REVPROF_FN_ALLREDUCE, 2, 16, NSIZES,
                      eq_cliff_coll) < 1e-8);
  free(pt);
}

/* Not a cliff: the largest size measured while the machine was busy (its
 * median 1.6 times the equation, but its fastest repetition on it), or a
 * top only 20 % off. (Options that forbid a split: options_limit_regimes.)
 */
static void test_fit_default_top_of_range_not_split(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  revprof_point *pt =
      make_points(REVPROF_FN_SEND, 2, 2, NSIZES, eq_startup, 0.0, &n);
  revprof_point *top = &pt[n - 1];
  top->median = top->mean = 1.6 * eq_startup(2, top->d);
  top->min = 0.95 * eq_startup(2, top->d);
  top->max = 1.18 * top->median;
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 1);
  top->median = top->mean = 1.2 * eq_startup(2, top->d);
  top->min = 0.93 * top->median;
  top->max = 1.18 * top->median;
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 1);
  free(pt);
}

static void test_fit_options_limit_regimes(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  char err[256];
  revprof_point *pt =
      make_points(REVPROF_FN_SEND, 2, 2, NSIZES, eq_eager, 0.0, &n);
  /* 6 sizes above the jump: with min_sizes = 7 the breakpoint search
   * cannot isolate them (the top-of-range rule may still give the largest
   * sizes a regime: its last, without a CV error) */
  revprof_fit_options o = opts(REVPROF_METHOD_DEFAULT);
  o.min_sizes = 7;
  assert_int_equal(revprof_fit_function(pt, n, &o, &fm, err, sizeof err), 0);
  for (int i = 0; i < fm.nregimes; i++) {
    if (i == fm.nregimes - 1 && i > 0 && fm.regime[i].cv_error < 0.0)
      continue;
    int k = 0;
    for (int j = 0; j < NSIZES; j++)
      k += dsize(j) >= fm.regime[i].dmin && dsize(j) <= fm.regime[i].dmax;
    if (k < 7)
      fail_msg("regime %d holds %d sizes, min_sizes is 7", i + 1, k);
  }
  free(pt);
  /* one regime with max_regimes = 1 or regime_gain = 1 (no split can cut
   * the error by 100 %), for a jump and for a cliff at the top alike */
  static const truth_fn fs[] = {eq_eager, eq_cliff};
  for (size_t f = 0; f < sizeof fs / sizeof *fs; f++) {
    pt = make_points(REVPROF_FN_SEND, 2, 2, NSIZES, fs[f], 0.0, &n);
    for (int way = 0; way < 2; way++) {
      o = opts(REVPROF_METHOD_DEFAULT);
      if (way == 0)
        o.max_regimes = 1;
      else
        o.regime_gain = 1.0;
      assert_int_equal(revprof_fit_function(pt, n, &o, &fm, err, sizeof err),
                       0);
      if (fm.nregimes != 1)
        fail_msg("truth %zu, %s: %d regimes", f,
                 way ? "regime_gain 1" : "max_regimes 1", fm.nregimes);
    }
    free(pt);
  }
}

/* ------------------------------------------------------- degenerate data */

static void test_fit_p2p_single_p(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_D};
  static const double c[] = {1.7e-6, 1.0 / 9e9};
  size_t n;
  revprof_point *pt =
      make_points(REVPROF_FN_LATENCY, 2, 2, NSIZES, eq_eager, 0.0, &n);
  for (size_t i = 0; i < n; i++) /* one line: 1.7 us + d / 9 GB/s */
    pt[i].median = pt[i].mean = c[0] + c[1] * pt[i].d;
  for (int m = 0; m < 2; m++) {
    revprof_fnmodel fm;
    fit_ok(pt, n, m ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT, &fm);
    assert_int_equal(fm.nregimes, m ? 2 : 1);
    for (int i = 0; i < fm.nregimes; i++) {
      expect_form(&fm.regime[i], 2, t);
      expect_coefs(&fm.regime[i], c, 1e-8);
    }
    expect_checks(&fm, REVPROF_FN_LATENCY);
  }
  free(pt);
}

static void test_fit_barrier_d0_only(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_LOG2P};
  static const double c[] = {1.2e-6, 0.8e-6};
  size_t n;
  revprof_point *pt =
      make_points(REVPROF_FN_BARRIER, 2, 16, 1, eq_barrier, 0.0, &n);
  for (int m = 0; m < 2; m++) {
    revprof_fnmodel fm;
    fit_ok(pt, n, m ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT, &fm);
    assert_int_equal(fm.nregimes, 1);
    assert_true(fm.regime[0].dmin == 0.0 && isinf(fm.regime[0].dmax));
    expect_form(&fm.regime[0], 2, t);
    expect_coefs(&fm.regime[0], c, 1e-8);
    assert_int_equal(fm.regime[0].n, 15);
    expect_checks(&fm, REVPROF_FN_BARRIER);
  }
  free(pt);
}

static void test_fit_wtime_single_point(void **state) {
  (void)state;
  revprof_point q = {REVPROF_FN_WTIME, 1, 0.0, 2.1e-8, 2.5e-8, 2.6e-8,
                     4.0e-8, 1000, 0.002};
  for (int m = 0; m < 2; m++) {
    revprof_fnmodel fm;
    fit_ok(&q, 1, m ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT, &fm);
    assert_int_equal(fm.nregimes, 1);
    const revprof_regime *r = &fm.regime[0];
    assert_int_equal(r->nterms, 1);
    assert_int_equal(r->form[0], REVPROF_BASIS_ONE);
    assert_int_equal(r->n, 1);
    assert_true(r->cv_error < 0.0); /* nothing to cross-validate with */
    if (m == 0) { /* default: median, bounds from min and max */
      expect_rel(r->avg[0], 2.5e-8, 1e-12);
      expect_rel(r->min[0], 2.1e-8, 1e-12);
      expect_rel(r->max[0], 4.0e-8, 1e-12);
    } else { /* paper: mean, no degrees of freedom for an error */
      expect_rel(r->avg[0], 2.6e-8, 1e-12);
      assert_true(r->err[0] == 0.0);
      assert_true(r->min[0] == r->avg[0] && r->max[0] == r->avg[0]);
    }
    expect_checks(&fm, REVPROF_FN_WTIME);
  }
}

/* Two group sizes: every p-term is the same model, so only "p" is used. */
static void test_fit_two_group_sizes(void **state) {
  (void)state;
  static const revprof_basis t[] = {REVPROF_BASIS_ONE, REVPROF_BASIS_P,
                                    REVPROF_BASIS_PM1_P_D};
  static const double c[] = {2.7e-6, 0.45e-6, 1.9e-10};
  size_t n4, n8;
  revprof_point *a = make_points(REVPROF_FN_ALLREDUCE, 4, 4, NSIZES, eq_lin,
                                 0.0, &n4);
  revprof_point *b = make_points(REVPROF_FN_ALLREDUCE, 8, 8, NSIZES, eq_lin,
                                 0.0, &n8);
  revprof_point *pt = calloc(n4 + n8, sizeof *pt);
  assert_non_null(pt);
  memcpy(pt, a, n4 * sizeof *pt);
  memcpy(pt + n4, b, n8 * sizeof *pt);
  revprof_fnmodel fm;
  fit_ok(pt, n4 + n8, REVPROF_METHOD_DEFAULT, &fm);
  assert_int_equal(fm.nregimes, 1);
  expect_form(&fm.regime[0], 3, t);
  expect_coefs(&fm.regime[0], c, 1e-8);
  fit_ok(pt, n4 + n8, REVPROF_METHOD_PAPER, &fm);
  for (int i = 0; i < fm.nregimes; i++)
    for (int k = 0; k < fm.regime[i].nterms; k++)
      assert_true(fm.regime[i].form[k] != REVPROF_BASIS_LOG2P &&
                  fm.regime[i].form[k] != REVPROF_BASIS_P2);
  expect_checks(&fm, REVPROF_FN_ALLREDUCE);
  free(a);
  free(b);
  free(pt);
}

/* Times below the timer's resolution read as 0: still a valid model. */
static void test_fit_zero_times(void **state) {
  (void)state;
  size_t n;
  revprof_point *pt =
      make_points(REVPROF_FN_ISEND, 2, 2, NSIZES, eq_eager, 0.0, &n);
  for (size_t i = 0; i < 5; i++)
    pt[i].min = pt[i].median = pt[i].mean = 0.0;
  for (int m = 0; m < 2; m++) {
    revprof_fnmodel fm;
    fit_ok(pt, n, m ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT, &fm);
    expect_checks(&fm, REVPROF_FN_ISEND);
  }
  free(pt);
}

/* ------------------------------------------------ signs, bounds, models */

/* Time falling with p, and time growing faster than d: the unconstrained
 * fits need negative coefficients; the fitter must find non-negative ones
 * that still follow the data as far as the basis allows (every d-term is
 * linear in d, so the convex curve is followed piecewise: about 8 %). */
static double eq_falling(double p, double d) {
  return 9e-6 - 0.3e-6 * p + 2e-10 * d;
}
static double eq_superlinear(double p, double d) {
  (void)p;
  return d * (1e-10 + 4e-18 * d);
}

static void test_fit_coefficients_never_negative(void **state) {
  (void)state;
  static const struct {
    truth_fn f;
    int nd;
    double tol; /* largest deviation from the truth allowed */
  } cases[] = {{eq_falling, NSIZES, 0.25}, {eq_superlinear, NSIZES, 0.1}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int m = 0; m < 2; m++) {
      size_t n;
      revprof_fnmodel fm;
      revprof_point *pt = make_points(REVPROF_FN_SCAN, 2, 16, cases[c].nd,
                                      cases[c].f, 0.0, &n);
      if (cases[c].f == eq_superlinear) { /* skip d = 0, whose time is 0 */
        memmove(pt, pt + 1, (n - 1) * sizeof *pt);
        n--;
      }
      fit_ok(pt, n, m ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT, &fm);
      for (int i = 0; i < fm.nregimes; i++)
        for (int k = 0; k < fm.regime[i].nterms; k++) {
          const revprof_regime *r = &fm.regime[i];
          assert_true(r->avg[k] >= 0.0 && r->err[k] >= 0.0 &&
                      r->min[k] >= 0.0 && r->max[k] >= 0.0);
        }
      expect_checks(&fm, REVPROF_FN_SCAN);
      if (m == 0 && cases[c].f == eq_falling) {
        /* only 1/p falls with p; the best non-negative c + s/p + k*d is
         * off by about 21 % mid-range, the best constant by 33 % */
        int inv = 0;
        for (int k = 0; k < fm.regime[0].nterms; k++)
          inv |= fm.regime[0].form[k] == REVPROF_BASIS_INVP;
        assert_true(inv);
      }
      if (m == 0) {
        double dev = max_dev(&fm, REVPROF_FN_SCAN, 2, 16, NSIZES, cases[c].f);
        if (dev > cases[c].tol)
          fail_msg("case %zu: deviation %.3f > %.3f", c + 1, dev,
                   cases[c].tol);
      }
      free(pt);
    }
}

/* Default bounds are fits to the min and max columns: with min = 0.93 x
 * median and max = 1.18 x median exactly, the bound coefficients are the
 * same multiples of avg. Paper bounds are avg -/+ standard error. */

/* Issue 8: [min, max] held the native time in 0 of 8 runs. Fitted on every
 * size but each third, the bounds of the default method must hold at least
 * 70 % of the withheld medians (nominally 80 %: 10 % and 90 % quantiles of
 * the held-out errors) and stay reasonably narrow. */
static void test_fit_bounds_cover_heldout_points(void **state) {
  (void)state;
  size_t inside = 0, total = 0;
  double width = 0.0;
  for (unsigned long long seed = 1; seed <= 6; seed++) {
    size_t n, k = 0;
    revprof_fnmodel fm;
    rng = seed * 104729;
    revprof_point *pt =
        make_points(REVPROF_FN_BCAST, 2, 16, NSIZES, eq_switch, 0.10, &n);
    /* repetitions agree within 1 %, the points' medians scatter by 10 %
     * (conditions change from one point to the next): bounds from the
     * repetitions' min and max would hold few of the withheld medians */
    for (size_t i = 0; i < n; i++) {
      pt[i].min = 0.99 * pt[i].median;
      pt[i].max = 1.01 * pt[i].median;
    }
    revprof_point *train = calloc(n, sizeof *train);
    assert_non_null(train);
    for (size_t i = 0; i < n; i++)
      if (i % NSIZES % 3 != 1 || i % NSIZES == NSIZES - 1)
        train[k++] = pt[i];
    fit_ok(train, k, REVPROF_METHOD_DEFAULT, &fm);
    revprof_model *m = revprof_model_alloc();
    assert_non_null(m);
    m->fn[REVPROF_FN_BCAST] = fm;
    for (size_t i = 0; i < n; i++) {
      double out[3];
      if (i % NSIZES % 3 != 1 || i % NSIZES == NSIZES - 1)
        continue;
      assert_int_equal(
          revprof_model_eval(m, REVPROF_FN_BCAST, pt[i].p, pt[i].d, out), 0);
      inside += out[REVPROF_MIN] <= pt[i].median &&
                pt[i].median <= out[REVPROF_MAX];
      width += 0.5 * (out[REVPROF_MAX] - out[REVPROF_MIN]) / out[REVPROF_AVG];
      total++;
    }
    revprof_model_free(m);
    free(train);
    free(pt);
  }
  double cover = (double)inside / (double)total;
  print_message("bounds: %zu of %zu withheld medians inside (%.1f %%), "
                "mean half-width %.1f %%\n",
                inside, total, 100.0 * cover, 100.0 * width / (double)total);
  assert_true(cover >= 0.70);
  assert_true(width / (double)total <= 0.25);
}

static void test_fit_bounds_from_data(void **state) {
  (void)state;
  size_t n;
  revprof_fnmodel fm;
  rng = 4242;
  revprof_point *pt =
      make_points(REVPROF_FN_REDUCE, 2, 16, NSIZES, eq_log, 0.0, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  /* exact data: the medians sit on the equation, the bounds are tight
   * (the bounds are about the median's uncertainty, not the repetitions'
   * min and max columns) */
  for (int k = 0; k < fm.regime[0].nterms; k++) {
    expect_rel(fm.regime[0].min[k], fm.regime[0].avg[k], 1e-6);
    expect_rel(fm.regime[0].max[k], fm.regime[0].avg[k], 1e-6);
  }
  free(pt);
  pt = make_points(REVPROF_FN_REDUCE, 2, 16, NSIZES, eq_paper, 0.03, &n);
  fit_ok(pt, n, REVPROF_METHOD_PAPER, &fm);
  for (int i = 0; i < fm.nregimes; i++)
    for (int k = 0; k < fm.regime[i].nterms; k++) {
      const revprof_regime *r = &fm.regime[i];
      assert_true(r->err[k] > 0.0);
      assert_true(r->min[k] == (r->avg[k] > r->err[k] ? r->avg[k] - r->err[k]
                                                      : 0.0));
      assert_true(r->max[k] == r->avg[k] + r->err[k]);
    }
  free(pt);
  /* noisy default fit: err > 0 and the evaluated bounds bracket avg */
  pt = make_points(REVPROF_FN_REDUCE, 2, 16, NSIZES, eq_switch, 0.03, &n);
  fit_ok(pt, n, REVPROF_METHOD_DEFAULT, &fm);
  revprof_model *m = revprof_model_alloc();
  assert_non_null(m);
  m->fn[REVPROF_FN_REDUCE] = fm;
  for (size_t i = 0; i < n; i++) {
    double out[3];
    revprof_model_eval(m, REVPROF_FN_REDUCE, pt[i].p, pt[i].d, out);
    assert_true(out[REVPROF_MIN] < out[REVPROF_AVG]);
    assert_true(out[REVPROF_MAX] > out[REVPROF_AVG]);
  }
  for (int k = 0; k < fm.regime[0].nterms; k++)
    assert_true(fm.regime[0].err[k] > 0.0);
  revprof_model_free(m);
  free(pt);
}

static int regimes_equal(const revprof_regime *a, const revprof_regime *b) {
  if (a->dmin != b->dmin || a->dmax != b->dmax || a->nterms != b->nterms ||
      a->n != b->n || a->cv_error != b->cv_error)
    return 0;
  for (int k = 0; k < a->nterms; k++)
    if (a->form[k] != b->form[k] || a->avg[k] != b->avg[k] ||
        a->err[k] != b->err[k] || a->min[k] != b->min[k] ||
        a->max[k] != b->max[k])
      return 0;
  return 1;
}

static int fnmodels_equal(const revprof_fnmodel *a, const revprof_fnmodel *b) {
  if (a->nregimes != b->nregimes)
    return 0;
  for (int i = 0; i < a->nregimes; i++)
    if (!regimes_equal(&a->regime[i], &b->regime[i]))
      return 0;
  return 1;
}

/* A raw data set with the shapes characterize produces. */
static revprof_raw *make_raw(double noise) {
  static const struct {
    revprof_fn fn;
    int pmin, pmax, nd;
    truth_fn f;
  } spec[] = {
      {REVPROF_FN_ALLREDUCE, 2, 16, NSIZES, eq_paper},
      {REVPROF_FN_SEND, 2, 2, NSIZES, eq_eager},
      {REVPROF_FN_BARRIER, 2, 16, 1, eq_barrier},
      {REVPROF_FN_BCAST, 2, 16, NSIZES, eq_switch},
      {REVPROF_FN_WTIME, 1, 1, 1, eq_barrier},
      {REVPROF_FN_LATENCY, 2, 2, NSIZES, eq_eager},
  };
  revprof_raw *raw = revprof_raw_alloc();
  assert_non_null(raw);
  rng = 31337;
  for (size_t s = 0; s < sizeof spec / sizeof spec[0]; s++) {
    size_t n;
    revprof_point *pt = make_points(spec[s].fn, spec[s].pmin, spec[s].pmax,
                                    spec[s].nd, spec[s].f, noise, &n);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(revprof_raw_add(raw, &pt[i]), 0);
    free(pt);
  }
  return raw;
}

static void test_fit_models_check_and_round_trip(void **state) {
  (void)state;
  for (int noisy = 0; noisy < 2; noisy++)
    for (int meth = 0; meth < 2; meth++) {
      char err[512] = "", path[] = "/tmp/rp_test_fit_XXXXXX";
      revprof_raw *raw = make_raw(noisy ? 0.04 : 0.0);
      revprof_model *m = revprof_model_alloc(), *back = NULL;
      revprof_fit_options o =
          opts(meth ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT);
      assert_non_null(m);
      if (revprof_fit(raw, &o, m, err, sizeof err))
        fail_msg("revprof_fit: %s", err);
      if (revprof_model_check(m, "fitted", err, sizeof err))
        fail_msg("revprof_model_check: %s", err);
      int fd = mkstemp(path);
      assert_true(fd >= 0);
      close(fd);
      if (revprof_model_write(m, path, err, sizeof err))
        fail_msg("revprof_model_write: %s", err);
      if (revprof_model_load(path, &back, err, sizeof err))
        fail_msg("revprof_model_load: %s", err);
      remove(path);
      int nfn = 0;
      for (int f = 0; f < REVPROF_FN_COUNT; f++) {
        nfn += m->fn[f].nregimes > 0;
        if (!fnmodels_equal(&m->fn[f], &back->fn[f]))
          fail_msg("%s differs after write and load",
                   revprof_fn_name((revprof_fn)f));
      }
      assert_int_equal(nfn, 6);
      revprof_model_free(back);
      revprof_model_free(m);
      revprof_raw_free(raw);
    }
}

/* revprof_fit reuses one workspace for all functions, biggest and
 * smallest mixed: results equal fitting each function on its own. */
static void test_fit_shared_workspace_matches_single(void **state) {
  (void)state;
  revprof_raw *raw = make_raw(0.03);
  revprof_model *m = revprof_model_alloc();
  char err[512];
  assert_non_null(m);
  for (int meth = 0; meth < 2; meth++) {
    revprof_fit_options o =
        opts(meth ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT);
    assert_int_equal(revprof_fit(raw, &o, m, err, sizeof err), 0);
    for (int f = 0; f < REVPROF_FN_COUNT; f++) {
      revprof_point *pt = calloc(raw->n, sizeof *pt);
      size_t n = 0;
      assert_non_null(pt);
      for (size_t i = 0; i < raw->n; i++)
        if ((int)raw->pt[i].fn == f)
          pt[n++] = raw->pt[i];
      if (n > 0) {
        revprof_fnmodel one;
        fit_ok(pt, n, o.method, &one);
        if (!fnmodels_equal(&one, &m->fn[f]))
          fail_msg("%s: revprof_fit and revprof_fit_function differ",
                   revprof_fn_name((revprof_fn)f));
      }
      free(pt);
    }
  }
  revprof_model_free(m);
  revprof_raw_free(raw);
}

static void test_fit_leaves_absent_functions_untouched(void **state) {
  (void)state;
  revprof_raw *raw = make_raw(0.0);
  revprof_model *m = revprof_model_alloc();
  char err[512];
  assert_non_null(m);
  revprof_regime *r = &m->fn[REVPROF_FN_SCAN].regime[0];
  m->fn[REVPROF_FN_SCAN].nregimes = 1;
  r->dmax = HUGE_VAL;
  r->nterms = 1;
  r->form[0] = REVPROF_BASIS_ONE;
  r->avg[0] = r->min[0] = r->max[0] = 7e-6;
  r->cv_error = -1.0;
  revprof_fnmodel scan = m->fn[REVPROF_FN_SCAN];
  revprof_fit_options o = opts(REVPROF_METHOD_DEFAULT);
  assert_int_equal(revprof_fit(raw, &o, m, err, sizeof err), 0);
  assert_true(fnmodels_equal(&scan, &m->fn[REVPROF_FN_SCAN]));
  assert_true(m->fn[REVPROF_FN_ALLREDUCE].nregimes > 0);
  assert_int_equal(m->fn[REVPROF_FN_GATHER].nregimes, 0);
  /* a failure leaves the whole model as it was */
  revprof_model *before = revprof_model_alloc();
  assert_non_null(before);
  memcpy(before, m, sizeof *m);
  revprof_point bad = raw->pt[raw->n - 1];
  bad.median = -1e-6;
  assert_int_equal(revprof_raw_add(raw, &bad), 0);
  assert_int_equal(revprof_fit(raw, &o, m, err, sizeof err), REVPROF_EINVAL);
  for (int f = 0; f < REVPROF_FN_COUNT; f++)
    assert_true(fnmodels_equal(&before->fn[f], &m->fn[f]));
  revprof_model_free(before);
  revprof_model_free(m);
  revprof_raw_free(raw);
}

/* ------------------------------------------------------------- bad input */

static void expect_rejected(const revprof_point *pt, size_t n,
                            const revprof_fit_options *o, const char *what) {
  char err[512] = "";
  revprof_fnmodel fm;
  fm.nregimes = -5; /* untouched on error */
  int rc = revprof_fit_function(pt, n, o, &fm, err, sizeof err);
  if (rc != REVPROF_EINVAL)
    fail_msg("%s: rc = %d, expected REVPROF_EINVAL", what, rc);
  if (strstr(err, "revprof_fit_function") == NULL)
    fail_msg("%s: message \"%s\" does not name the function", what, err);
  assert_int_equal(fm.nregimes, -5);
}

static void test_fit_bad_input_is_rejected(void **state) {
  (void)state;
  size_t n;
  char err[512] = "";
  revprof_point *pt =
      make_points(REVPROF_FN_ALLREDUCE, 2, 4, 8, eq_log, 0.0, &n);
  revprof_fit_options o = opts(REVPROF_METHOD_DEFAULT);
  revprof_fnmodel fm;

  expect_rejected(pt, 0, &o, "n = 0");
  expect_rejected(NULL, 5, &o, "NULL points");
  assert_int_equal(revprof_fit_function(pt, n, &o, NULL, err, sizeof err),
                   REVPROF_EINVAL);
  for (int m = 0; m < 2; m++) {
    o = opts(m ? REVPROF_METHOD_PAPER : REVPROF_METHOD_DEFAULT);
    revprof_point keep = pt[2];
    pt[2].median = -3e-6;
    expect_rejected(pt, n, &o, "negative median");
    revprof_fit_function(pt, n, &o, &fm, err, sizeof err);
    assert_non_null(strstr(err, "MPI_Allreduce point 3"));
    pt[2] = keep;
    pt[4].min = -1e-9;
    expect_rejected(pt, n, &o, "negative min");
    pt[4] = keep;
    pt[4].max = NAN;
    expect_rejected(pt, n, &o, "NaN max");
    pt[4] = keep;
    pt[4].mean = HUGE_VAL;
    expect_rejected(pt, n, &o, "infinite mean");
    pt[4] = keep;
    pt[4].d = -8.0;
    expect_rejected(pt, n, &o, "negative size");
    pt[4] = keep;
    pt[4].p = 0;
    expect_rejected(pt, n, &o, "p = 0");
    pt[4] = keep;
    pt[4].rse = -0.1;
    expect_rejected(pt, n, &o, "negative rse");
    pt[4] = keep;
    pt[5].fn = REVPROF_FN_BCAST;
    expect_rejected(pt, n, &o, "two functions");
    pt[5].fn = REVPROF_FN_ALLREDUCE;
  }
  o = opts(REVPROF_METHOD_DEFAULT);
  o.min_sizes = 0;
  expect_rejected(pt, n, &o, "min_sizes = 0");
  o = opts(REVPROF_METHOD_DEFAULT);
  o.max_regimes = 0;
  expect_rejected(pt, n, &o, "max_regimes = 0");
  o = opts(REVPROF_METHOD_DEFAULT);
  o.regime_gain = -0.5;
  expect_rejected(pt, n, &o, "negative regime_gain");
  o = opts(REVPROF_METHOD_PAPER);
  o.paper_split = NAN;
  expect_rejected(pt, n, &o, "NaN paper_split");
  o = opts(REVPROF_METHOD_DEFAULT);
  o.method = (revprof_method)7;
  expect_rejected(pt, n, &o, "unknown method");
  /* NULL options mean the defaults */
  assert_int_equal(revprof_fit_function(pt, n, NULL, &fm, err, sizeof err), 0);

  revprof_raw *raw = revprof_raw_alloc();
  revprof_model *m = revprof_model_alloc();
  assert_non_null(raw);
  assert_non_null(m);
  o = opts(REVPROF_METHOD_DEFAULT);
  assert_int_equal(revprof_fit(raw, &o, m, err, sizeof err), REVPROF_EINVAL);
  assert_non_null(strstr(err, "revprof_fit"));
  assert_int_equal(revprof_fit(NULL, &o, m, err, sizeof err), REVPROF_EINVAL);
  assert_int_equal(revprof_raw_add(raw, &pt[0]), 0);
  assert_int_equal(revprof_fit(raw, &o, NULL, err, sizeof err),
                   REVPROF_EINVAL);
  revprof_model_free(m);
  revprof_raw_free(raw);
  free(pt);
}

static void test_fit_method_names(void **state) {
  (void)state;
  revprof_method m;
  assert_string_equal(revprof_method_name(REVPROF_METHOD_PAPER), "paper");
  assert_string_equal(revprof_method_name(REVPROF_METHOD_DEFAULT), "default");
  assert_int_equal(revprof_method_lookup("paper", &m), 0);
  assert_int_equal(m, REVPROF_METHOD_PAPER);
  assert_int_equal(revprof_method_lookup("default", &m), 0);
  assert_int_equal(m, REVPROF_METHOD_DEFAULT);
  assert_int_equal(revprof_method_lookup("extra-p", &m), REVPROF_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fit_default_recovers_exact_equations),
      cmocka_unit_test(test_fit_paper_recovers_exact_equations),
      cmocka_unit_test(test_fit_default_finds_saturation_hinge),
      cmocka_unit_test(test_fit_default_finds_hinge_at_128),
      cmocka_unit_test(test_fit_hinge_needs_knot_inside),
      cmocka_unit_test(test_fit_default_short_regime_at_several_p),
      cmocka_unit_test(test_fit_default_noisy_within_tolerance),
      cmocka_unit_test(test_fit_paper_noisy_within_tolerance),
      cmocka_unit_test(test_fit_paper_weights_by_standard_error),
      cmocka_unit_test(test_fit_cv_error_is_leave_one_out),
      cmocka_unit_test(test_fit_default_prunes_unneeded_terms),
      cmocka_unit_test(test_fit_default_keeps_startup_term),
      cmocka_unit_test(test_fit_default_zero_bytes_regime),
      cmocka_unit_test(test_fit_default_robust_to_outlier),
      cmocka_unit_test(test_fit_zero_regime_respects_max_regimes),
      cmocka_unit_test(test_fit_default_finds_eager_rendezvous_breakpoint),
      cmocka_unit_test(test_fit_default_regime_switch_between_sizes),
      cmocka_unit_test(test_fit_default_finds_collective_breakpoint),
      cmocka_unit_test(test_fit_default_no_spurious_breakpoint),
      cmocka_unit_test(test_fit_default_top_of_range_cliff),
      cmocka_unit_test(test_fit_default_top_of_range_keeps_p),
      cmocka_unit_test(test_fit_default_top_of_range_not_split),
      cmocka_unit_test(test_fit_options_limit_regimes),
      cmocka_unit_test(test_fit_p2p_single_p),
      cmocka_unit_test(test_fit_barrier_d0_only),
      cmocka_unit_test(test_fit_wtime_single_point),
      cmocka_unit_test(test_fit_two_group_sizes),
      cmocka_unit_test(test_fit_zero_times),
      cmocka_unit_test(test_fit_coefficients_never_negative),
      cmocka_unit_test(test_fit_bounds_from_data),
      cmocka_unit_test(test_fit_bounds_cover_heldout_points),
      cmocka_unit_test(test_fit_models_check_and_round_trip),
      cmocka_unit_test(test_fit_shared_workspace_matches_single),
      cmocka_unit_test(test_fit_leaves_absent_functions_untouched),
      cmocka_unit_test(test_fit_bad_input_is_rejected),
      cmocka_unit_test(test_fit_method_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
